/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:element-cudafoveate
 * @title: cudafoveate
 *
 * Space-variant Gaussian foveation, on CUDA or on the CPU (after Malkin,
 * Deza and Poggio, "CUDA-Optimized real-time rendering of a Foveated Visual
 * System", 2020): the frame is tiled into fragments of
 * #GstCudaFoveate:fragment-size pixels, one centred on the fixation point
 * (#GstCudaFoveate:fixation-x, #GstCudaFoveate:fixation-y), and each is
 * blurred with the Gaussian that Geisler and Perry's contrast threshold
 * gives for its centre's eccentricity (kernels/foveate_math.h): sharp at the
 * fixation, blurrier towards the periphery.
 *
 * With #GstCudaFoveate:follow-pointer the fixation follows the mouse
 * (GstNavigation events from the video sink).  Every output buffer carries
 * a `GstCoFoveaGaze` result (include/cudaoptics/co-results.h) with the
 * fixation it was rendered for and the clock time that fixation arrived,
 * so an eye-tracking experiment can measure gaze-to-photon latency.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=pipelines/samples/building.jpg ! jpegdec ! videoconvert ! cudafoveate fixation-x=0.62 fixation-y=0.7 strength=3 ! videoconvert ! jpegenc ! filesink location=/tmp/foveated.jpg
 * ]| A photograph foveated on a point, three times the model's blur.
 * |[
 * # needs: display
 * gst-launch-1.0 videotestsrc ! cudafoveate follow-pointer=true ! videoconvert ! autovideosink
 * ]| A foveated test picture whose fixation follows the mouse.
 * |[
 * # needs: camera, gpu, display
 * gst-launch-1.0 v4l2src ! videoconvert ! cudaupload ! cudafoveate fixation-x=0.3 strength=2 ! cudadownload ! autovideosink
 * ]| A camera foveated on the GPU, twice the model's blur.
 *
 * Since: 0.1
 */
#include "gstcudafoveate.h"
#include "foveate_math.h"
#include "gstcometa.h"
#include "gstcofilesetting.h"
#include "gstcoimage.h"

#include <gst/video/navigation.h>
#include <math.h>
#include <string.h>

/* The properties, copied under the object lock. */
typedef struct
{
  gdouble fixation_x, fixation_y;       /* 0..1 of the frame */
  gboolean follow_pointer;
  gint fragment;
  CoFoveaModel model;
  GstClockTime gaze_time;       /* when the fixation arrived (clock time) */
  gboolean show_map;
  gchar *blur_map;
  guint blur_map_gen;           /* counts its sets: read again */
} GstCoFoveaSettings;

struct _GstCudaFoveate
{
  GstCoBaseFilter parent;

  GstCoFoveaSettings set;       /* the settings table's, object lock */
  GstCoFoveaSettings snap;      /* of the last rebuild: the frame's */
  CoFovea fovea;                /* its blur, table pointers on the backend */
  gpointer table;               /* backend memory: offsets then taps */
  gsize table_size;

  gboolean built;               /* once since start: a bad map then warns */
  GstCoFileSetting map_fs;      /* what the blur-map settings gave */
  gboolean mapped;              /* map_mem holds a map */
  gpointer map_mem;             /* backend memory */
  gsize map_size;
  gint map_w, map_h;
  /* under the object lock: the output's size for the pointer, whose events
   * come from downstream while set_caps writes base->out.info */
  gint out_w, out_h;
};

GST_DEBUG_CATEGORY_STATIC (gst_cuda_foveate_debug);
#define GST_CAT_DEFAULT gst_cuda_foveate_debug

enum
{
  PROP_0,
  PROP_FIXATION_X,
  PROP_FIXATION_Y,
  PROP_FOLLOW_POINTER,
  PROP_FRAGMENT_SIZE,
  PROP_STRENGTH,
  PROP_CORNER_ECCENTRICITY,
  PROP_CT0,
  PROP_ALPHA,
  PROP_E2,
  PROP_PIXELS_PER_DEGREE,
  PROP_MIN_SIGMA,
  PROP_BLUR_MAP,
  PROP_SHOW_MAP,
};

#define FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB, GRAY8, NV12, I420 }"
G_DEFINE_TYPE_WITH_CODE (GstCudaFoveate, gst_cuda_foveate,
    GST_TYPE_CO_BASE_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_foveate_debug, "cudafoveate", 0,
        "cudaoptics foveation"));

static GST_CO_ENUM_TYPE (gst_co_fovea_fragment_get_type, "GstCoFoveaFragment",
    {8, "8x8 pixels", "8"},
    {16, "16x16 pixels", "16"},
    {32, "32x32 pixels", "32"})

/* Now on the element's clock, for the gaze-to-photon audit.  Object lock
 * held (it guards the element's clock). */
static GstClockTime
now_locked (GstCudaFoveate * self)
{
  GstClock *clock = GST_ELEMENT_CLOCK (self);

  return clock ? gst_clock_get_time (clock) : GST_CLOCK_TIME_NONE;
}

/* blur-map: (re)loads the picture into backend memory when the property
 * was set (again: a file may have been edited), as gstcofilesetting.h
 * says.  FALSE after posting an error. */
static gboolean
load_map (GstCudaFoveate * self, const GstCoFoveaSettings * s)
{
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (self);
  gchar *why = NULL;
  guint8 *pix = NULL;
  gint w = 0, h = 0;
  gboolean ok;

  if (!gst_co_file_setting_needs_read (&self->map_fs, s->blur_map_gen))
    return TRUE;
  if (s->blur_map && *s->blur_map &&
      !(pix = gst_co_decode_gray (s->blur_map, &w, &h, &why))) {
    ok = gst_co_file_setting_failed (&self->map_fs, GST_ELEMENT (self),
        s->blur_map_gen, self->built, "blur map", why);
    g_free (why);
    return ok;
  }
  self->mapped = FALSE;
  if (pix) {
    ok = gst_co_element_ensure (base, &self->map_mem, &self->map_size,
        (gsize) w * h) && gst_co_element_upload (base, self->map_mem, pix,
        (gsize) w * h, "uploading the blur map");
    g_free (pix);
    if (!ok)
      return FALSE;
    self->mapped = TRUE;
    GST_INFO_OBJECT (self, "blur map %s: %dx%d", s->blur_map, w, h);
  }
  self->map_w = w;
  self->map_h = h;
  gst_co_file_setting_loaded (&self->map_fs, s->blur_map_gen);
  return TRUE;
}

/* The map in use into @f (a map loaded since its plan may have moved) */
static void
bind_map (GstCudaFoveate * self, CoFovea * f)
{
  if (self->mapped) {
    f->map = self->map_mem;
    f->map_w = self->map_w;
    f->map_h = self->map_h;
  }
}

/* GstCoBaseFilter::set_info: a copy of the size src_event may read. */
static gboolean
gst_cuda_foveate_set_info (GstCoBaseFilter * base, GstCaps * incaps,
    const GstVideoInfo * in, GstCaps * outcaps, const GstVideoInfo * out)
{
  GST_OBJECT_LOCK (base);
  GST_CUDA_FOVEATE (base)->out_w = GST_VIDEO_INFO_WIDTH (out);
  GST_CUDA_FOVEATE (base)->out_h = GST_VIDEO_INFO_HEIGHT (out);
  GST_OBJECT_UNLOCK (base);
  return TRUE;
}

/* GstCoBaseFilter::rebuild: the blur for the negotiated frame and the
 * settings, and its table on the active backend. */
static gboolean
gst_cuda_foveate_rebuild (GstCoBaseFilter * base, gboolean caps_changed)
{
  GstCudaFoveate *self = GST_CUDA_FOVEATE (base);
  const CoFrame frame = {
    .format = base->in.format,
    .width = GST_VIDEO_INFO_WIDTH (&base->in.info),
    .height = GST_VIDEO_INFO_HEIGHT (&base->in.info),
  };
  const CoFrame *in = &frame;
  GstCoFoveaSettings s;
  CoFovea *f = &self->fovea, plan;
  gfloat sig_hi;
  gsize bytes;
  guint8 *host;

  gst_co_base_filter_snapshot (base, &s);
  if (!load_map (self, &s)) {
    gst_co_base_filter_snapshot_clear (base, &s);
    return FALSE;
  }
  /* the frames' copy keeps no string */
  gst_co_base_filter_snapshot_clear (base, &s);

  /* planned aside: a plan refused while PLAYING keeps the one in use */
  plan = *f;
  sig_hi = co_fovea_plan (&plan, &s.model, in->format, in->width,
      in->height, s.fixation_x, s.fixation_y, s.fragment);
  /* a map's eccentricities are not the pixels' distances */
  if (sig_hi <= CO_FOVEA_MAX_SIGMA && self->mapped)
    sig_hi = co_fovea_plan_map (&plan);
  if (!(sig_hi <= CO_FOVEA_MAX_SIGMA)) {
    /* name every setting that widens the blur, in the message text */
    gchar *advice = s.model.ppd > 0 ?
        g_strdup_printf ("lower strength (%g) or pixels-per-degree (%g), or "
        "raise e2 (%g) or ct0 (%g)", s.model.strength, s.model.ppd,
        s.model.e2, s.model.ct0) :
        g_strdup_printf ("lower strength (%g) or corner-eccentricity (%g), "
        "or raise e2 (%g)", s.model.strength, s.model.e_corner, s.model.e2);
    if (self->built && !caps_changed) {
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("The widest blur would "
              "be sigma %.0f pixels, more than %.0f: keeping the previous "
              "blur; %s", sig_hi, CO_FOVEA_MAX_SIGMA, advice), (NULL));
      g_free (advice);
      bind_map (self, f);
      return TRUE;
    }
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("The widest blur would be "
            "sigma %.0f pixels, more than %.0f: %s", sig_hi,
            CO_FOVEA_MAX_SIGMA, advice), ("%dx%d frame, fixation %g,%g",
            in->width, in->height, plan.fx, plan.fy));
    g_free (advice);
    return FALSE;
  }
  *f = plan;
  self->snap = s;
  f->show = s.show_map;
  {
    /* red on the map: the level of the farthest corner (or of the map's
     * largest eccentricity) */
    gfloat dx = MAX (f->fx + 0.5f, in->width - 0.5f - f->fx);
    gfloat dy = MAX (f->fy + 0.5f, in->height - 0.5f - f->fy);
    gfloat e = self->mapped ? s.model.e_corner :
        co_fovea_eccentricity (&s.model, sqrtf (dx * dx + dy * dy),
        f->d_corner);
    f->show_hi = (gint) floorf (co_fovea_sigma (&s.model, e,
            f->ln_ct) * CO_FOVEA_Q + 0.5f);
  }
  bind_map (self, f);
  {
    /* tests: CO_FOVEA_PATH=packed or direct forces that way on the device */
    const gchar *path = g_getenv ("CO_FOVEA_PATH");
    f->path = !g_strcmp0 (path, "direct") ? CO_FOVEA_PATH_DIRECT :
        !g_strcmp0 (path, "packed") ? CO_FOVEA_PATH_PACKED :
        CO_FOVEA_PATH_AUTO;
  }
  bytes = co_fovea_table_bytes (f);
  host = g_malloc (bytes);
  co_fovea_fill_table (f, host);
  if (!gst_co_element_ensure (base, &self->table, &self->table_size,
          bytes)) {
    g_free (host);
    return FALSE;
  }
  /* from pageable memory: staged before the call returns */
  if (!gst_co_element_upload (base, self->table, host, bytes,
          "uploading the foveation filters")) {
    g_free (host);
    return FALSE;
  }
  g_free (host);
  co_fovea_bind_table (f, self->table);
  self->built = TRUE;
  GST_DEBUG_OBJECT (self, "fixation %.1f,%.1f: levels %d..%d, %"
      G_GSIZE_FORMAT " table bytes, widest radius %d", f->fx, f->fy, f->lo,
      f->lo + f->n - 1, bytes, f->rmax);
  return TRUE;
}

static GstFlowReturn
gst_cuda_foveate_process (GstCoBaseFilter * base, const CoFrame * in,
    CoFrame * out)
{
  GstCudaFoveate *self = GST_CUDA_FOVEATE (base);

  if (gst_co_element_on_cuda (base))
    return gst_co_element_cuda_ok (base, co_fovea_cuda (&self->fovea, in,
            out, base->engine.stream), "foveating a frame") ? GST_FLOW_OK :
        GST_FLOW_ERROR;
  if (co_fovea_cpu (&self->fovea, in, out) != 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Out of memory "
            "while foveating a frame"), (NULL));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* The fixation the frame was rendered for, on the frame. */
static GstFlowReturn
gst_cuda_foveate_finish (GstCoBaseFilter * base, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaFoveate *self = GST_CUDA_FOVEATE (base);
  GstStructure *s = gst_co_buffer_add_results (outbuf, "GstCoFoveaGaze");

  if (s)
    gst_structure_set (s, "fixation-x", G_TYPE_DOUBLE, self->snap.fixation_x,
        "fixation-y", G_TYPE_DOUBLE, self->snap.fixation_y, "gaze-time",
        G_TYPE_UINT64, (guint64) self->snap.gaze_time, NULL);
  return GST_FLOW_OK;
}

static void
gst_cuda_foveate_release (GstCoBaseFilter * base)
{
  GstCudaFoveate *self = GST_CUDA_FOVEATE (base);

  gst_co_element_free (base, self->table);
  gst_co_element_free (base, self->map_mem);
  self->table = NULL;
  self->table_size = 0;
  self->map_mem = NULL;
  self->map_size = 0;
  /* the next start loads the map again, on its backend */
  self->mapped = FALSE;
  gst_co_file_setting_reset (&self->map_fs);
  self->built = FALSE;
}

/* follow-pointer: the mouse over the video sets the fixation. */
static gboolean
gst_cuda_foveate_src_event (GstBaseTransform * bt, GstEvent * event)
{
  GstCudaFoveate *self = GST_CUDA_FOVEATE (bt);
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (bt);
  gdouble x, y;

  if (GST_EVENT_TYPE (event) == GST_EVENT_NAVIGATION &&
      gst_navigation_event_get_type (event) == GST_NAVIGATION_EVENT_MOUSE_MOVE
      && gst_navigation_event_parse_mouse_move_event (event, &x, &y)) {
    gint w, h;
    GST_OBJECT_LOCK (self);
    w = self->out_w;
    h = self->out_h;
    /* coordinates from a remote client may be anything */
    if (self->set.follow_pointer && w > 0 && h > 0 && isfinite (x) &&
        isfinite (y)) {
      /* a pointer outside the picture holds the fixation at its edge */
      self->set.fixation_x = CLAMP ((x + 0.5) / w, 0.0, 1.0);
      self->set.fixation_y = CLAMP ((y + 0.5) / h, 0.0, 1.0);
      self->set.gaze_time = now_locked (self);
      gst_co_base_filter_mark_dirty (base);
    }
    GST_OBJECT_UNLOCK (self);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_foveate_parent_class)->src_event
      (bt, event);
}

/* A fixation set by the application: when it arrived, for the results */
static void
gst_cuda_foveate_setting_changed (GstCoBaseFilter * base, guint prop_id)
{
  GstCudaFoveate *self = GST_CUDA_FOVEATE (base);

  /* the same fixation again is a new gaze sample: the next frame's results
   * carry its time, so it rebuilds even when the value did not change */
  if (prop_id == PROP_FIXATION_X || prop_id == PROP_FIXATION_Y) {
    self->set.gaze_time = now_locked (self);
    gst_co_base_filter_mark_dirty (base);
  }
}

#define SET(f) G_STRUCT_OFFSET (GstCoFoveaSettings, f)
#define REBUILD GST_CO_SETTING_REBUILD
#define MODEL (GST_CO_SETTING_REBUILD | GST_CO_SETTING_FLOAT)

static void
gst_cuda_foveate_class_init (GstCudaFoveateClass * klass)
{
  GstBaseTransformClass *bt = GST_BASE_TRANSFORM_CLASS (klass);
  GstCoBaseFilterClass *fc = GST_CO_BASE_FILTER_CLASS (klass);

  const GstCoSetting settings[] = {
    [PROP_FIXATION_X - 1] = GST_CO_ROW_DOUBLE ("fixation-x", "Fixation x",
        "Horizontal fixation point, 0 the left edge, 1 the right", 0.0,
        1.0, 0.5, GST_CO_PARAM_ANIM, SET (fixation_x), REBUILD),
    [PROP_FIXATION_Y - 1] = GST_CO_ROW_DOUBLE ("fixation-y", "Fixation y",
        "Vertical fixation point, 0 the top edge, 1 the bottom", 0.0, 1.0,
        0.5, GST_CO_PARAM_ANIM, SET (fixation_y), REBUILD),
    [PROP_FOLLOW_POINTER - 1] = GST_CO_ROW_BOOLEAN ("follow-pointer",
        "Follow pointer", "The fixation follows the mouse over the video "
        "(navigation events)", FALSE, GST_CO_PARAM_LIVE,
        SET (follow_pointer), GST_CO_SETTING_FRAME),
    [PROP_FRAGMENT_SIZE - 1] = GST_CO_ROW_ENUM ("fragment-size",
        "Fragment size", "Side of the square fragments that each take one "
        "blur", gst_co_fovea_fragment_get_type (), 16, GST_CO_PARAM_LIVE,
        SET (fragment), REBUILD),
    [PROP_STRENGTH - 1] = GST_CO_ROW_DOUBLE ("strength", "Strength",
        "Scales every blur's sigma (1: the paper's)", 0.0, 16.0, 1.0,
        GST_CO_PARAM_ANIM, SET (model.strength), MODEL),
    [PROP_CORNER_ECCENTRICITY - 1] = GST_CO_ROW_DOUBLE
        ("corner-eccentricity", "Corner eccentricity", "Eccentricity in "
        "degrees at half the frame's diagonal from the fixation (when "
        "pixels-per-degree is 0)", 0.1, 180.0, 15.0, GST_CO_PARAM_ANIM,
        SET (model.e_corner), MODEL),
    [PROP_CT0 - 1] = GST_CO_ROW_DOUBLE ("ct0", "CT0", "Minimal contrast "
        "threshold of Geisler and Perry's model (only with "
        "pixels-per-degree)", 1e-4, 0.99, 1.0 / 64, GST_CO_PARAM_LIVE,
        SET (model.ct0), MODEL),
    [PROP_ALPHA - 1] = GST_CO_ROW_DOUBLE ("alpha", "Alpha", "Spatial "
        "frequency decay constant (only with pixels-per-degree)", 1e-3,
        10.0, 0.106, GST_CO_PARAM_LIVE, SET (model.alpha), MODEL),
    [PROP_E2 - 1] = GST_CO_ROW_DOUBLE ("e2", "e2", "Half-resolution "
        "eccentricity in degrees", 0.01, 100.0, 2.3, GST_CO_PARAM_LIVE,
        SET (model.e2), MODEL),
    [PROP_PIXELS_PER_DEGREE - 1] = GST_CO_ROW_DOUBLE ("pixels-per-degree",
        "Pixels per degree", "The display's resolution at the viewer's "
        "distance; 0 keeps the paper's normalisation by "
        "corner-eccentricity", 0.0, 10000.0, 0.0, GST_CO_PARAM_LIVE,
        SET (model.ppd), MODEL),
    [PROP_MIN_SIGMA - 1] = GST_CO_ROW_DOUBLE ("min-sigma", "Minimum sigma",
        "Fragments whose sigma (pixels) is below this are copied; the "
        "fixation's own fragment always is", 0.0, 10.0, 0.5,
        GST_CO_PARAM_LIVE, SET (model.min_sigma), MODEL),
    [PROP_BLUR_MAP - 1] = GST_CO_ROW_FILE ("blur-map", "Blur map",
        "A grey picture of the visual field (twice the frame's width and "
        "height, centred on the fixation): value v gives the "
        "eccentricity v / 255 x corner-eccentricity instead of the "
        "distance; for non-radial retinas. Any format GStreamer decodes",
        SET (blur_map), REBUILD, SET (blur_map_gen)),
    [PROP_SHOW_MAP - 1] = GST_CO_ROW_BOOLEAN ("show-map", "Show map",
        "Draw the fragments' borders in the colour of their blur (blue: "
        "copied, then green to red)", FALSE, GST_CO_PARAM_LIVE,
        SET (show_map), REBUILD),
  };

  GST_CO_BASE_FILTER_CLASS_INSTALL (fc, GstCudaFoveate, set, settings);
  fc->setting_changed = gst_cuda_foveate_setting_changed;

  gst_co_base_filter_class_set_details (fc, "CUDA foveation",
      "Filter/Effect/Video",
      "Space-variant Gaussian foveation on CUDA (CPU fallback)", FORMATS,
      GST_CO_MAX_SIZE);

  bt->src_event = GST_DEBUG_FUNCPTR (gst_cuda_foveate_src_event);
  fc->mode = GST_CO_FILTER_SAME;
  fc->set_info = GST_DEBUG_FUNCPTR (gst_cuda_foveate_set_info);
  fc->rebuild = GST_DEBUG_FUNCPTR (gst_cuda_foveate_rebuild);
  fc->process = GST_DEBUG_FUNCPTR (gst_cuda_foveate_process);
  fc->finish = GST_DEBUG_FUNCPTR (gst_cuda_foveate_finish);
  fc->release = GST_DEBUG_FUNCPTR (gst_cuda_foveate_release);
}

/* the table's defaults are the pspecs' (set by the base) */
static void
gst_cuda_foveate_init (GstCudaFoveate * self)
{
  self->set.gaze_time = GST_CLOCK_TIME_NONE;
}
