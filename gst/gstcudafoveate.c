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
 * gst-launch-1.0 videotestsrc ! cudafoveate follow-pointer=true ! videoconvert ! autovideosink
 * ]| A foveated test picture whose fixation follows the mouse.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! cudaupload ! cudafoveate fixation-x=0.3 strength=2 ! cudadownload ! autovideosink
 * ]| A camera foveated on the GPU, twice the paper's blur.
 *
 * Since: 0.1
 */
#include "gstcudafoveate.h"
#include "gstcometa.h"

#include <gst/video/navigation.h>
#include <math.h>
#include <string.h>

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
};

#define FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB, GRAY8, NV12, I420 }"

G_DEFINE_TYPE_WITH_CODE (GstCudaFoveate, gst_cuda_foveate,
    GST_TYPE_CO_BASE_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_foveate_debug, "cudafoveate", 0,
        "cudaoptics foveation"));

static GType
gst_co_fovea_fragment_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {8, "8x8 pixels", "8"},
    {16, "16x16 pixels", "16"},
    {32, "32x32 pixels", "32"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCoFoveaFragment",
            values));
  return (GType) type;
}

/* Now on the element's clock, for the gaze-to-photon audit. */
static GstClockTime
now (GstCudaFoveate * self)
{
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  GstClockTime t = GST_CLOCK_TIME_NONE;

  if (clock) {
    t = gst_clock_get_time (clock);
    gst_object_unref (clock);
  }
  return t;
}

/* The frame's blur and its table on the active backend, rebuilt when the
 * settings or the size changed. */
static gboolean
prepare (GstCudaFoveate * self, const CoFrame * in)
{
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (self);
  GstCoFoveaSettings s;
  CoFovea *f = &self->fovea;
  gboolean dirty;
  gint lo, hi, n, taps, shift;
  gfloat dmax, smin;
  gsize bytes;
  guint8 *host;

  GST_OBJECT_LOCK (self);
  s = self->set;
  dirty = self->dirty || !self->table;
  self->dirty = FALSE;
  GST_OBJECT_UNLOCK (self);
  self->snap = s;
  if (!dirty)
    return TRUE;

  memset (f, 0, sizeof *f);
  f->m = s.model;
  f->ln_ct = logf (1.0f / s.model.ct0);
  f->fx = (gfloat) (s.fixation_x * in->width - 0.5);
  f->fy = (gfloat) (s.fixation_y * in->height - 0.5);
  f->d_corner = 0.5f * sqrtf ((gfloat) in->width * in->width +
      (gfloat) in->height * in->height);
  f->fragment = s.fragment;
  f->direct = g_getenv ("CO_FOVEA_DIRECT") != NULL;
  /* every level a fragment centre can take: from the fixation in the most
   * subsampled plane to beyond the farthest corner */
  shift = co_format_n_planes (in->format) > 1 ? 1 : 0;
  smin = co_fovea_sigma (&f->m, 0.0f, f->ln_ct) / (1 << shift);
  dmax = 2.0f * f->d_corner + 2.0f * s.fragment;
  lo = MAX ((gint) floorf (smin * CO_FOVEA_Q + 0.5f) - 1,
      (gint) ceilf (s.model.min_sigma * CO_FOVEA_Q));
  lo = MAX (lo, 0);
  hi = (gint) floorf (co_fovea_sigma (&f->m, co_fovea_eccentricity (&f->m,
              dmax, f->d_corner), f->ln_ct) * CO_FOVEA_Q + 0.5f) + 1;
  n = MAX (hi - lo + 1, 0);
  taps = co_fovea_table_size (lo, n);
  f->lo = lo;
  f->n = n;
  f->rmax = co_fovea_radius ((gfloat) (lo + n - 1) / CO_FOVEA_Q);
  bytes = GST_ROUND_UP_16 ((n + 1) * sizeof (gint32)) + taps * sizeof (gfloat);

  host = g_malloc (bytes);
  co_fovea_table (lo, n, (gint32 *) host, (gfloat *) (host +
          GST_ROUND_UP_16 ((n + 1) * sizeof (gint32))));
  if (!gst_co_base_filter_ensure (base, &self->table, &self->table_size,
          bytes)) {
    g_free (host);
    return FALSE;
  }
  if (base->device) {
    /* from pageable memory: staged before the call returns */
    if (!gst_co_base_filter_cuda_ok (base, co_fovea_upload_cuda (self->table,
                host, bytes, base->stream), "uploading the foveation filters")) {
      g_free (host);
      return FALSE;
    }
  } else {
    memcpy (self->table, host, bytes);
  }
  g_free (host);
  f->off = (const gint32 *) self->table;
  f->w = (const gfloat *) ((guint8 *) self->table +
      GST_ROUND_UP_16 ((n + 1) * sizeof (gint32)));
  GST_DEBUG_OBJECT (self, "fixation %.1f,%.1f: levels %d..%d, %d taps, "
      "widest radius %d", f->fx, f->fy, lo, lo + n - 1, taps, f->rmax);
  return TRUE;
}

static GstFlowReturn
gst_cuda_foveate_process (GstCoBaseFilter * base, const CoFrame * in,
    CoFrame * out)
{
  GstCudaFoveate *self = GST_CUDA_FOVEATE (base);

  if (!prepare (self, in))
    return GST_FLOW_ERROR;
  if (base->device)
    return gst_co_base_filter_cuda_ok (base, co_fovea_cuda (&self->fovea, in,
            out, base->stream), "foveating a frame") ? GST_FLOW_OK :
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

  gst_co_base_filter_free (base, self->table);
  self->table = NULL;
  self->table_size = 0;
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
    gint w = GST_VIDEO_INFO_WIDTH (&base->out_info);
    gint h = GST_VIDEO_INFO_HEIGHT (&base->out_info);
    GstClockTime t = now (self);

    GST_OBJECT_LOCK (self);
    if (self->set.follow_pointer && w > 0 && h > 0) {
      /* a pointer outside the picture holds the fixation at its edge */
      self->set.fixation_x = CLAMP ((x + 0.5) / w, 0.0, 1.0);
      self->set.fixation_y = CLAMP ((y + 0.5) / h, 0.0, 1.0);
      self->set.gaze_time = t;
      self->dirty = TRUE;
    }
    GST_OBJECT_UNLOCK (self);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_foveate_parent_class)->src_event
      (bt, event);
}

static void
gst_cuda_foveate_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaFoveate *self = GST_CUDA_FOVEATE (object);
  GstCoFoveaSettings *s = &self->set;
  CoFoveaModel *m = &s->model;
  GstClockTime t = now (self);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FIXATION_X:
      s->fixation_x = g_value_get_double (value);
      s->gaze_time = t;
      break;
    case PROP_FIXATION_Y:
      s->fixation_y = g_value_get_double (value);
      s->gaze_time = t;
      break;
    case PROP_FOLLOW_POINTER:
      s->follow_pointer = g_value_get_boolean (value);
      break;
    case PROP_FRAGMENT_SIZE:
      s->fragment = g_value_get_enum (value);
      break;
    case PROP_STRENGTH:
      m->strength = (gfloat) g_value_get_double (value);
      break;
    case PROP_CORNER_ECCENTRICITY:
      m->e_corner = (gfloat) g_value_get_double (value);
      break;
    case PROP_CT0:
      m->ct0 = (gfloat) g_value_get_double (value);
      break;
    case PROP_ALPHA:
      m->alpha = (gfloat) g_value_get_double (value);
      break;
    case PROP_E2:
      m->e2 = (gfloat) g_value_get_double (value);
      break;
    case PROP_PIXELS_PER_DEGREE:
      m->ppd = (gfloat) g_value_get_double (value);
      break;
    case PROP_MIN_SIGMA:
      m->min_sigma = (gfloat) g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  self->dirty = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_foveate_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaFoveate *self = GST_CUDA_FOVEATE (object);
  GstCoFoveaSettings *s = &self->set;
  CoFoveaModel *m = &s->model;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FIXATION_X:
      g_value_set_double (value, s->fixation_x);
      break;
    case PROP_FIXATION_Y:
      g_value_set_double (value, s->fixation_y);
      break;
    case PROP_FOLLOW_POINTER:
      g_value_set_boolean (value, s->follow_pointer);
      break;
    case PROP_FRAGMENT_SIZE:
      g_value_set_enum (value, s->fragment);
      break;
    case PROP_STRENGTH:
      g_value_set_double (value, m->strength);
      break;
    case PROP_CORNER_ECCENTRICITY:
      g_value_set_double (value, m->e_corner);
      break;
    case PROP_CT0:
      g_value_set_double (value, m->ct0);
      break;
    case PROP_ALPHA:
      g_value_set_double (value, m->alpha);
      break;
    case PROP_E2:
      g_value_set_double (value, m->e2);
      break;
    case PROP_PIXELS_PER_DEGREE:
      g_value_set_double (value, m->ppd);
      break;
    case PROP_MIN_SIGMA:
      g_value_set_double (value, m->min_sigma);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_foveate_class_init (GstCudaFoveateClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *bt = GST_BASE_TRANSFORM_CLASS (klass);
  GstCoBaseFilterClass *fc = GST_CO_BASE_FILTER_CLASS (klass);

  oc->set_property = gst_cuda_foveate_set_property;
  oc->get_property = gst_cuda_foveate_get_property;

  g_object_class_install_property (oc, PROP_FIXATION_X,
      g_param_spec_double ("fixation-x", "Fixation x",
          "Horizontal fixation point, 0 the left edge, 1 the right", 0.0, 1.0,
          0.5, GST_CO_PARAM_ANIM));
  g_object_class_install_property (oc, PROP_FIXATION_Y,
      g_param_spec_double ("fixation-y", "Fixation y",
          "Vertical fixation point, 0 the top edge, 1 the bottom", 0.0, 1.0,
          0.5, GST_CO_PARAM_ANIM));
  g_object_class_install_property (oc, PROP_FOLLOW_POINTER,
      g_param_spec_boolean ("follow-pointer", "Follow pointer",
          "The fixation follows the mouse over the video (navigation "
          "events)", FALSE, GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_FRAGMENT_SIZE,
      g_param_spec_enum ("fragment-size", "Fragment size",
          "Side of the square fragments that each take one blur",
          gst_co_fovea_fragment_get_type (), 16, GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_STRENGTH,
      g_param_spec_double ("strength", "Strength",
          "Scales every blur's sigma (1: the paper's)", 0.0, 16.0, 1.0,
          GST_CO_PARAM_ANIM));
  g_object_class_install_property (oc, PROP_CORNER_ECCENTRICITY,
      g_param_spec_double ("corner-eccentricity", "Corner eccentricity",
          "Eccentricity in degrees at half the frame's diagonal from the "
          "fixation (when pixels-per-degree is 0)", 0.1, 180.0, 15.0,
          GST_CO_PARAM_ANIM));
  g_object_class_install_property (oc, PROP_CT0,
      g_param_spec_double ("ct0", "CT0",
          "Minimal contrast threshold of Geisler and Perry's model (only "
          "with pixels-per-degree)", 1e-4, 0.99, 1.0 / 64, GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_ALPHA,
      g_param_spec_double ("alpha", "Alpha",
          "Spatial frequency decay constant (only with pixels-per-degree)",
          1e-3, 10.0, 0.106, GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_E2,
      g_param_spec_double ("e2", "e2",
          "Half-resolution eccentricity in degrees", 0.01, 100.0, 2.3,
          GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_PIXELS_PER_DEGREE,
      g_param_spec_double ("pixels-per-degree", "Pixels per degree",
          "The display's resolution at the viewer's distance; 0 keeps the "
          "paper's normalisation by corner-eccentricity", 0.0, 10000.0, 0.0,
          GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_MIN_SIGMA,
      g_param_spec_double ("min-sigma", "Minimum sigma",
          "Blurs below this sigma (pixels) are skipped: the fovea is copied",
          0.0, 10.0, 0.5, GST_CO_PARAM_LIVE));

  gst_element_class_set_static_metadata (ec, "CUDA foveation",
      "Filter/Effect/Video",
      "Space-variant Gaussian foveation on CUDA (CPU fallback)", "cudaoptics");
  gst_co_base_filter_class_add_video_templates (ec, FORMATS, 32768);

  bt->src_event = GST_DEBUG_FUNCPTR (gst_cuda_foveate_src_event);
  fc->mode = GST_CO_FILTER_SAME;
  fc->process = GST_DEBUG_FUNCPTR (gst_cuda_foveate_process);
  fc->finish = GST_DEBUG_FUNCPTR (gst_cuda_foveate_finish);
  fc->release = GST_DEBUG_FUNCPTR (gst_cuda_foveate_release);

  gst_type_mark_as_plugin_api (gst_co_fovea_fragment_get_type (), 0);
}

static void
gst_cuda_foveate_init (GstCudaFoveate * self)
{
  CoFoveaModel *m = &self->set.model;

  self->set.fixation_x = self->set.fixation_y = 0.5;
  self->set.fragment = 16;
  self->set.gaze_time = GST_CLOCK_TIME_NONE;
  m->strength = 1.0f;
  m->e_corner = 15.0f;
  m->ct0 = 1.0f / 64;
  m->alpha = 0.106f;
  m->e2 = 2.3f;
  m->ppd = 0.0f;
  m->min_sigma = 0.5f;
  self->dirty = TRUE;
}

gboolean
gst_cuda_foveate_register (GstPlugin * plugin)
{
  return gst_element_register (plugin, "cudafoveate", GST_RANK_NONE,
      GST_TYPE_CUDA_FOVEATE);
}
