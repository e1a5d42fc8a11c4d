/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:element-cudaomniunwrap
 * @title: cudaomniunwrap
 *
 * 360-degree unwrapping of omnidirectional frames into panoramas, on CUDA or
 * on the CPU (after Chong, Wong and Kho, "Accelerated catadioptric
 * omnidirectional view image unwrapping processing using GPU
 * parallelisation", 2013).
 *
 * Projections (#GstCudaOmniUnwrap:projection):
 * - `polar`: the donut a 360-degree lens or a mirror draws, unrolled into a
 *   strip.  The donut is centred on (#GstCudaOmniUnwrap:center-x,
 *   #GstCudaOmniUnwrap:center-y) with radii #GstCudaOmniUnwrap:inner-radius
 *   and #GstCudaOmniUnwrap:outer-radius (source pixels); the strip's top
 *   row is the outer rim, its columns go round from
 *   #GstCudaOmniUnwrap:start-angle (degrees, 0 = to the right of the
 *   centre) in #GstCudaOmniUnwrap:direction.
 * - `cylinder`, `cuboid` and `ground` see the world through a spherical
 *   mirror (#GstCudaOmniUnwrap:mirror-radius,
 *   #GstCudaOmniUnwrap:mirror-distance, #GstCudaOmniUnwrap:focal-length;
 *   kernels/omni_mirror.h): on a cylinder round the axis, on the paper's
 *   four planes, or on the floor seen from above, at
 *   #GstCudaOmniUnwrap:plane-distance.  The two radii are the image radii
 *   of the viewing window's edges; the mirror model is solved by
 *   Newton-Raphson, on the GPU with the CUDA backend.
 *
 * #GstCudaOmniUnwrap:layout shows the turn as one view, two halves stacked
 * or four quarters in a grid; #GstCudaOmniUnwrap:zoom magnifies every view
 * about its centre.  #GstCudaOmniUnwrap:auto-center finds the image circle
 * in the first frames and posts a `cudaomniunwrap-auto-center` element
 * message (centre, radius, rms residual).
 *
 * The output's size follows the geometry (polar: as many columns as the
 * circle of mid radius has pixels, as many rows as the donut is thick; the
 * mirror projections: one unit of length per pixel) unless downstream caps
 * fix one; a change of it while PLAYING renegotiates.  The centre, the
 * start angle and the zoom are controllable, so a GstController pans and
 * zooms the view with no torn frame.  The table, its sampling and
 * `off-edge` are #GstCoRemapFilter's.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=pipelines/samples/building.jpg ! jpegdec ! videoconvert ! videoscale ! video/x-raw,width=800,height=800,pixel-aspect-ratio=1/1 ! circle height=250 spread-angle=6.2832 ! imagefreeze num-buffers=1 ! cudaomniunwrap auto-center=true inner-radius=80 ! videoconvert ! pngenc ! filesink location=/tmp/panorama.png
 * ]| Makes a 360-degree donut of a photograph (GStreamer's circle element)
 * and unrolls it into a strip, the donut's centre and rim found in the
 * picture.
 * |[
 * gst-launch-1.0 filesrc location=pipelines/samples/mirror.jpg ! jpegdec ! videoconvert ! imagefreeze num-buffers=1 ! cudaomniunwrap projection=cuboid mirror-radius=30 mirror-distance=150 focal-length=2400 plane-distance=229 inner-radius=120 outer-radius=465 ! videoconvert ! pngenc ! filesink location=/tmp/cuboid.png
 * ]| The bundled spherical-mirror picture on the paper's four planes
 * (pipelines/omni-examples.sh has one line per projection).
 * |[
 * # needs: camera, gpu, display
 * gst-launch-1.0 v4l2src ! videoconvert ! cudaupload ! cudaomniunwrap projection=cylinder auto-center=true layout=four ! cudadownload ! autovideosink
 * ]| A live spherical-mirror camera, unwrapped on the GPU into four views,
 * the mirror found in the picture.
 *
 * Since: 0.1
 */
#include "gstcudaomniunwrap-private.h"
#include "omni_circle.h"

#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY (gst_cuda_omni_unwrap_debug);
#define GST_CAT_DEFAULT gst_cuda_omni_unwrap_debug

enum
{
  PROP_0,
  PROP_PROJECTION,
  PROP_CENTER_X,
  PROP_CENTER_Y,
  PROP_INNER_RADIUS,
  PROP_OUTER_RADIUS,
  PROP_START_ANGLE,
  PROP_DIRECTION,
  PROP_MIRROR_RADIUS,
  PROP_MIRROR_DISTANCE,
  PROP_FOCAL_LENGTH,
  PROP_PLANE_DISTANCE,
  PROP_PLANE_GAP,
  PROP_LAYOUT,
  PROP_ZOOM,
  PROP_AUTO_CENTER,
};

/* auto-center looks at this many frames at most */
#define AUTO_FRAMES 10

#define FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB, GRAY8, GRAY16_LE, NV12, I420 }"
#define MAX_COORD 65536.0

G_DEFINE_TYPE_WITH_CODE (GstCudaOmniUnwrap, gst_cuda_omni_unwrap,
    GST_TYPE_CO_REMAP_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_omni_unwrap_debug, "cudaomniunwrap", 0,
        "cudaoptics omnidirectional unwrapping"));

static GST_CO_ENUM_TYPE (gst_co_omni_projection_get_type, "GstCoOmniProjection",
    {GST_CO_OMNI_POLAR, "Donut unrolled into a strip (no mirror model)",
        "polar"},
    {GST_CO_OMNI_CYLINDER, "Spherical mirror seen on a cylinder around the "
          "axis (plane-distance its radius)", "cylinder"},
    {GST_CO_OMNI_CUBOID, "Spherical mirror seen on four planes round the "
          "axis, plane-distance from it (the paper's cuboid)", "cuboid"},
    {GST_CO_OMNI_GROUND, "Spherical mirror's view of the ground plane, "
          "plane-distance from the sphere's centre, from above", "ground"})

static GST_CO_ENUM_TYPE (gst_co_omni_layout_get_type, "GstCoOmniLayout",
    {GST_CO_OMNI_LAYOUT_ONE, "One view of the whole turn", "one"},
    {GST_CO_OMNI_LAYOUT_TWO, "Two half-turn views stacked", "two"},
    {GST_CO_OMNI_LAYOUT_FOUR, "Four quarter-turn views in a 2x2 grid",
        "four"})

static GST_CO_ENUM_TYPE (gst_co_omni_direction_get_type, "GstCoOmniDirection",
    {GST_CO_OMNI_COUNTERCLOCKWISE, "Counter-clockwise on screen",
        "counterclockwise"},
    {GST_CO_OMNI_CLOCKWISE, "Clockwise on screen", "clockwise"})

/* What a 0 means for the mirror projections, taken from the frame: a
 * fixed focal length or window fits one camera and frame size, and fails
 * with "beyond the mirror" on any other.  focal-length 0 puts the mirror's
 * image (its limb) on the circle auto-center found, else across 98% of the
 * frame's shorter side; a radius 0 is a fraction of that limb, those of the
 * bundled mirror picture (pipelines/samples/mirror.jpg: limb 490 pixels,
 * window 120..465; the ground 12..118), which keep their meaning at any
 * focal length since the image scales with it. */
#define CO_OMNI_FILL 0.98
static void
settle (GstCoOmniSettings * s, gint src_w, gint src_h)
{
  CoMirror unit = { s->mirror_radius, s->mirror_distance, 1.0 };
  gboolean ground = s->projection == GST_CO_OMNI_GROUND;
  gdouble limb;

  if (s->projection == GST_CO_OMNI_POLAR || !(unit.h > unit.R))
    return;                     /* (an impossible mirror is reported later) */
  if (s->focal_length <= 0) {
    limb = s->found_radius > 0 ? s->found_radius :
        CO_OMNI_FILL * MIN (src_w, src_h) / 2.0;
    s->focal_length = MAX (limb / co_mirror_limb (&unit), 1.0);
  }
  unit.f = s->focal_length;
  limb = co_mirror_limb (&unit);
  if (s->outer_radius <= 0)
    s->outer_radius = (ground ? 0.24 : 0.95) * limb;
  if (s->inner_radius <= 0)
    s->inner_radius = (ground ? 0.025 : 0.245) * limb;
}

/* The donut in source pixels, from settings and the source size. */
static void
resolve (const GstCoOmniSettings * s, gint src_w, gint src_h, CoOmniView * v)
{
  memset (v, 0, sizeof *v);
  v->cx = (float) (s->center_x < 0 ? (src_w - 1) / 2.0 : s->center_x);
  v->cy = (float) (s->center_y < 0 ? (src_h - 1) / 2.0 : s->center_y);
  v->r_out = (float) (s->outer_radius > 0 ? s->outer_radius :
      MIN (src_w, src_h) / 2.0);
  v->r_in = (float) s->inner_radius;
  v->start = (float) (s->start_angle * G_PI / 180.0);
  v->dir = s->direction == GST_CO_OMNI_CLOCKWISE ? -1.0f : 1.0f;
  v->zoom = (float) s->zoom;
}

/* The panels of an @out_w x @out_h output, and the ground's directions:
 * panel k looks along the middle of its sector, turned so that this
 * direction is up and the sector runs left to right as in the panorama
 * (a top-down map of the floor when the camera looks up at the mirror);
 * the single view looks where the first of two halves would. */
static void
layout_view (const GstCoOmniSettings * s, gint out_w, gint out_h,
    CoOmniView * v)
{
  gint n = s->layout, k;

  v->cols = n == GST_CO_OMNI_LAYOUT_FOUR ? 2 : 1;
  v->rows = n == GST_CO_OMNI_LAYOUT_ONE ? 1 : 2;
  v->pw = (float) out_w / v->cols;
  v->ph = (float) out_h / v->rows;
  v->anchor_t = n == GST_CO_OMNI_LAYOUT_ONE ? 0.5f : 1.0f;
  for (k = 0; k < n; k++) {
    double a = v->start - v->dir * 2 * G_PI * (k + 0.5) / MAX (n, 2);
    v->right[k][0] = (float) (v->dir * sin (a));
    v->right[k][1] = (float) (-v->dir * cos (a));
    v->down[k][0] = (float) -cos (a);
    v->down[k][1] = (float) -sin (a);
  }
}

/* The mirror projections' window: where the rays seen at outer-radius
 * (t = 0) and inner-radius (t = 1) meet the surface; FALSE with *why. */
static gboolean
mirror_window (const GstCoOmniSettings * s, const CoOmniView * v,
    CoOmniRows * w, gchar ** why)
{
  CoMirror *m = &w->m;
  gboolean ground = s->projection == GST_CO_OMNI_GROUND, hit;
  double D = s->plane_distance, limb;

  memset (w, 0, sizeof *w);
  m->R = s->mirror_radius;
  m->h = s->mirror_distance;
  m->f = s->focal_length;
  w->ys = D;
  if (!(m->h > m->R)) {
    *why = g_strdup_printf ("mirror-distance (%g) must be larger than "
        "mirror-radius (%g): the model expects the camera outside the "
        "mirror's sphere, looking at the mirror, and this mirror-distance "
        "puts it %s the sphere", m->h, m->R, m->h == m->R ? "on" : "inside");
    return FALSE;
  }
  if (!(D > m->R)) {
    *why = g_strdup_printf ("plane-distance (%g) must be larger than "
        "mirror-radius (%g)", D, m->R);
    return FALSE;
  }
  limb = co_mirror_limb (m);
  if (v->r_out > limb) {
    *why = g_strdup_printf ("outer-radius (%g pixels) reaches beyond the "
        "mirror, whose image radius is %.1f pixels for this mirror-radius, "
        "mirror-distance and focal-length", v->r_out, limb);
    return FALSE;
  }
  if (ground)
    hit = co_mirror_ground_rho (m, D, v->r_out, &w->w0, &w->r0) &&
        co_mirror_ground_rho (m, D, v->r_in, &w->w1, &w->r1);
  else
    hit = co_mirror_cylinder_z (m, D, v->r_out, &w->w0, &w->r0) &&
        co_mirror_cylinder_z (m, D, v->r_in, &w->w1, &w->r1);
  if (!hit && ground) {
    *why = g_strdup_printf ("the ray seen at outer-radius %g goes at or "
        "above the horizon and never reaches the ground: make outer-radius "
        "smaller", v->r_out);
    return FALSE;
  }
  if (!hit) {
    *why = g_strdup_printf ("the rays seen at inner-radius %g and "
        "outer-radius %g do not both reach the cylinder (a small "
        "inner-radius looks back at the camera)", v->r_in, v->r_out);
    return FALSE;
  }
  if (ground && !(w->w0 > w->w1)) {
    *why = g_strdup_printf ("the ground seen between inner-radius %g and "
        "outer-radius %g is empty", v->r_in, v->r_out);
    return FALSE;
  }
  w->propagate = g_getenv ("CO_OMNI_PROPAGATE") != NULL;
  return TRUE;
}

/* The natural size: one unit of the projection surface is one output
 * pixel (polar: one source pixel), then the layout's arrangement of it. */
/* A size in pixels, worked out in double: at least 1, at most what a
 * frame may be (extreme but legal radii and distances must not overflow
 * into a 1-pixel panorama). */
static gint
px (gdouble v)
{
  return !(v >= 1.0) ? 1 : v > CO_REMAP_MAX_SIZE ? CO_REMAP_MAX_SIZE : (gint) v;
}

/* The natural size: one unit of the projection surface is one output
 * pixel (polar: one source pixel), then the layout's arrangement of it. */
static void
projection_size (const GstCoOmniSettings * s, const CoOmniView * v, gint * w,
    gint * h)
{
  CoOmniRows win;
  gchar *why = NULL;
  gdouble plane_w = MAX (2.0 * s->plane_distance, 1.0), dw, dh;

  if (s->projection == GST_CO_OMNI_POLAR) {
    co_omni_polar_size (v->r_in, v->r_out, w, h);
    dw = *w;
    dh = *h;
  } else if (mirror_window (s, v, &win, &why)) {
    if (s->projection == GST_CO_OMNI_GROUND) {
      *w = *h = CLAMP (px (2.0 * win.w0), 1, 4096);
      return;                   /* the panels share the square */
    }
    if (s->projection == GST_CO_OMNI_CYLINDER)
      dw = 2 * G_PI * s->plane_distance;
    else if (s->layout == GST_CO_OMNI_LAYOUT_ONE)
      dw = 4.0 * floor (MIN (plane_w, CO_REMAP_MAX_SIZE)) +
          3.0 * s->plane_gap;
    else
      dw = 4.0 * floor (MIN (plane_w, CO_REMAP_MAX_SIZE));
    dh = fabs ((gdouble) win.w0 - (gdouble) win.w1);
  } else {
    g_free (why);
    return;
  }
  if (s->layout != GST_CO_OMNI_LAYOUT_ONE) {
    /* two halves or four quarters of the turn, two rows of them */
    dw = floor (px (dw) / 2.0);
    dh = 2.0 * px (dh);
  }
  *w = px (dw);
  *h = px (dh);
}

static void
gst_cuda_omni_unwrap_get_output_size (GstCoBaseFilter * base,
    const GstVideoInfo * in, gint * w, gint * h)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (base);
  GstCoOmniSettings s;
  CoOmniView v;

  GST_OBJECT_LOCK (self);
  s = self->set;
  GST_OBJECT_UNLOCK (self);
  settle (&s, GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in));
  resolve (&s, GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in), &v);
  /* an impossible geometry keeps the input's size: prepare reports it */
  if (v.r_in < v.r_out)
    projection_size (&s, &v, w, h);
}

static gboolean
gst_cuda_omni_unwrap_prepare (GstCoRemapFilter * remap, CoLut * lut,
    gboolean new_caps)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (remap);
  const CoLutPlane *pl = &lut->plane[0];
  GstCoOmniSettings s;
  CoOmniView *v = &self->view;

  GST_OBJECT_LOCK (self);
  s = self->set;
  GST_OBJECT_UNLOCK (self);
  settle (&s, pl->src_width, pl->src_height);
  resolve (&s, pl->src_width, pl->src_height, v);
  layout_view (&s, pl->width, pl->height, v);
  if (!(v->r_in < v->r_out)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("inner-radius (%g) must be "
            "smaller than outer-radius (%g pixels; 0 is half the frame's "
            "shorter side for polar, 0.95 of the mirror's image radius for "
            "the others)", v->r_in, v->r_out), (NULL));
    return FALSE;
  }
  self->snap = s;
  self->no_keep = g_getenv ("CO_OMNI_NO_KEEP") != NULL;
  self->no_share = g_getenv ("CO_OMNI_NO_SHARE") != NULL;
  if (s.projection != GST_CO_OMNI_POLAR) {
    gchar *why = NULL;
    if (!mirror_window (&s, v, &self->window, &why)) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Impossible mirror "
              "geometry: %s", why), (NULL));
      g_free (why);
      return FALSE;
    }
  }
  if (v->cx - v->r_out < -0.5f || v->cy - v->r_out < -0.5f ||
      v->cx + v->r_out > pl->src_width - 0.5f ||
      v->cy + v->r_out > pl->src_height - 0.5f) {
    if (!self->warned_outside)
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("The donut (centre %g,%g, "
              "outer radius %g) reaches beyond the %dx%d frame: that part "
              "of the panorama takes off-edge", v->cx, v->cy, v->r_out,
              pl->src_width, pl->src_height), (NULL));
    self->warned_outside = TRUE;
  } else {
    self->warned_outside = FALSE;
  }
  GST_DEBUG_OBJECT (self, "projection %d layout %d: centre %g,%g radii "
      "%g..%g, %dx%d, zoom %g", s.projection, s.layout, v->cx, v->cy,
      v->r_in, v->r_out, pl->width, pl->height, v->zoom);
  return TRUE;
}

static void
gst_cuda_omni_unwrap_release (GstCoBaseFilter * base)
{
  gst_cuda_omni_unwrap_free_maps (GST_CUDA_OMNI_UNWRAP (base));
  GST_CO_BASE_FILTER_CLASS (gst_cuda_omni_unwrap_parent_class)->release
      (base);
}

/* The channel auto-center looks at: luma, or green for RGB formats. */
static gboolean
circle_channel (const GstVideoFrame * f, const guint8 ** data, gint * ps,
    gint * depth)
{
  const GstVideoFormatInfo *fi = f->info.finfo;

  *data = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, 0);
  *ps = GST_VIDEO_FRAME_COMP_PSTRIDE (f, 0);
  *depth = GST_VIDEO_FORMAT_INFO_DEPTH (fi, 0) > 8 ? 16 : 8;
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (fi)) {
    *data = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, 1);
    *ps = GST_VIDEO_FRAME_COMP_PSTRIDE (f, 1);
  }
  return *data != NULL;
}

/* auto-center gives up: a message with the reason and a warning, after
 * AUTO_FRAMES frames or at the end of a shorter stream (a single picture),
 * so it always says what it found. */
static void
auto_center_not_found (GstCudaOmniUnwrap * self, gint frames,
    const gchar * why)
{
  GstStructure *st = gst_structure_new ("cudaomniunwrap-auto-center",
      "found", G_TYPE_BOOLEAN, FALSE, "frames", G_TYPE_INT, frames,
      "reason", G_TYPE_STRING, why, NULL);

  GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("auto-center found no "
          "image circle in %s %d frame%s (%s): center-x and center-y are "
          "kept", frames < AUTO_FRAMES ? "the stream's" : "the first", frames,
          frames == 1 ? "" : "s", why), (NULL));
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), st));
}

/* One frame of auto-center: the image circle, and the properties set from
 * it once found (or a warning after AUTO_FRAMES frames). */
static void
auto_center (GstCudaOmniUnwrap * self, GstBuffer * buf)
{
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (self);
  GstVideoFrame f;
  CoCircleFit fit;
  const gchar *why = "the frame could not be read";
  const guint8 *data;
  gint ps, depth, frames;
  gboolean found = FALSE, polar, resize = FALSE;
  GstStructure *st;
  gdouble limb = 0;

  if (gst_video_frame_map (&f, &base->in.info, buf, GST_MAP_READ)) {
    if (circle_channel (&f, &data, &ps, &depth))
      found = co_circle_find (data, GST_VIDEO_FRAME_WIDTH (&f),
          GST_VIDEO_FRAME_HEIGHT (&f), GST_VIDEO_FRAME_COMP_STRIDE (&f, 0),
          ps, depth, &fit, &why);
    gst_video_frame_unmap (&f);
  }
  GST_OBJECT_LOCK (self);
  frames = ++self->auto_frames;
  polar = self->set.projection == GST_CO_OMNI_POLAR;
  if (found) {
    GstCoOmniSettings *s = &self->set;
    s->center_x = fit.cx;
    s->center_y = fit.cy;
    if (polar) {
      /* the rim's last pixels are the edge itself: stay inside it */
      gdouble r = MAX (floor (fit.r - 1.0), 1.0);
      resize = r != s->outer_radius;
      s->outer_radius = r;
      if (s->inner_radius >= r)
        s->inner_radius = 0.0;
    } else if (s->focal_length > 0) {
      CoMirror m = { s->mirror_radius, s->mirror_distance, s->focal_length };
      if (m.h > m.R)
        limb = co_mirror_limb (&m);
    } else {
      /* focal-length 0: the mirror's image is this circle */
      s->found_radius = fit.r;
    }
    gst_co_remap_filter_mark_dirty (GST_CO_REMAP_FILTER (self));
  }
  self->auto_done = found || frames >= AUTO_FRAMES;
  self->auto_why = why;
  GST_OBJECT_UNLOCK (self);

  if (!found && frames < AUTO_FRAMES) {
    GST_DEBUG_OBJECT (self, "frame %d: no image circle (%s)", frames, why);
    return;
  }
  if (!found) {
    auto_center_not_found (self, frames, why);
    return;
  }
  st = gst_structure_new ("cudaomniunwrap-auto-center", "found",
      G_TYPE_BOOLEAN, TRUE, "frames", G_TYPE_INT, frames, NULL);
  gst_structure_set (st, "center-x", G_TYPE_DOUBLE, fit.cx, "center-y",
      G_TYPE_DOUBLE, fit.cy, "radius", G_TYPE_DOUBLE, fit.r, "rms",
      G_TYPE_DOUBLE, fit.rms, "points", G_TYPE_INT, fit.n_used, NULL);
  GST_INFO_OBJECT (self, "image circle: centre %.2f,%.2f radius %.2f (rms "
      "%.3f px, %d points, frame %d)", fit.cx, fit.cy, fit.r, fit.rms,
      fit.n_used, frames);
  if (limb > 0 && fabs (fit.r - limb) > 0.05 * limb)
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("The image circle's "
            "radius (%.1f pixels) is not the mirror's (%.1f pixels, from "
            "mirror-radius, mirror-distance and focal-length): check "
            "focal-length", fit.r, limb), (NULL));
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), st));
  g_object_notify (G_OBJECT (self), "center-x");
  g_object_notify (G_OBJECT (self), "center-y");
  if (polar)
    g_object_notify (G_OBJECT (self), "outer-radius");
  if (resize)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

/* auto-center sees a frame before it is negotiated and processed, so the
 * frame already comes out with the geometry found in it. */
static GstFlowReturn
gst_cuda_omni_unwrap_submit_input_buffer (GstBaseTransform * bt,
    gboolean discont, GstBuffer * buf)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (bt);
  gboolean look;

  GST_OBJECT_LOCK (self);
  look = self->set.auto_center && !self->auto_done;
  GST_OBJECT_UNLOCK (self);
  if (look)
    auto_center (self, buf);
  return GST_BASE_TRANSFORM_CLASS
      (gst_cuda_omni_unwrap_parent_class)->submit_input_buffer (bt, discont,
      buf);
}

/* A stream that ends before auto-center gave up still hears its result. */
static gboolean
gst_cuda_omni_unwrap_sink_event (GstBaseTransform * bt, GstEvent * event)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (bt);
  const gchar *why = NULL;
  gint frames = 0;

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    GST_OBJECT_LOCK (self);
    if (self->set.auto_center && !self->auto_done && self->auto_frames > 0) {
      self->auto_done = TRUE;
      frames = self->auto_frames;
      why = self->auto_why;
    }
    GST_OBJECT_UNLOCK (self);
    if (frames)
      auto_center_not_found (self, frames, why);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_omni_unwrap_parent_class)->
      sink_event (bt, event);
}

/* auto-center switched on again: look again */
static void
gst_cuda_omni_unwrap_setting_changed (GstCoBaseFilter * base, guint prop_id)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (base);

  if (prop_id == PROP_AUTO_CENTER) {
    self->auto_frames = 0;
    self->auto_done = FALSE;
    self->set.found_radius = 0;
  }
}


#define SET(f) G_STRUCT_OFFSET (GstCoOmniSettings, f)
/* the panorama's size follows these: the next frame renegotiates, and its
 * table is sized from the new output caps */
#define RESIZE GST_CO_SETTING_RESIZE
#define REBUILD GST_CO_SETTING_REBUILD

static void
gst_cuda_omni_unwrap_class_init (GstCudaOmniUnwrapClass * klass)
{
  GstCoBaseFilterClass *fc = GST_CO_BASE_FILTER_CLASS (klass);
  GstCoRemapFilterClass *rc = GST_CO_REMAP_FILTER_CLASS (klass);

  const GstCoSetting settings[] = {
    [PROP_PROJECTION - 1] = GST_CO_ROW_ENUM ("projection", "Projection",
        "How the 360-degree view is laid out (polar: a donut unrolled)",
        gst_co_omni_projection_get_type (), GST_CO_OMNI_POLAR,
        GST_CO_PARAM_LIVE, SET (projection), RESIZE),
    [PROP_CENTER_X - 1] = GST_CO_ROW_DOUBLE ("center-x", "Centre x",
        "Horizontal centre of the donut or mirror in source pixels (-1: "
        "the frame's centre)", -1.0, MAX_COORD, -1.0, GST_CO_PARAM_ANIM,
        SET (center_x), REBUILD),
    [PROP_CENTER_Y - 1] = GST_CO_ROW_DOUBLE ("center-y", "Centre y",
        "Vertical centre of the donut or mirror in source pixels (-1: the "
        "frame's centre)", -1.0, MAX_COORD, -1.0, GST_CO_PARAM_ANIM,
        SET (center_y), REBUILD),
    [PROP_INNER_RADIUS - 1] = GST_CO_ROW_DOUBLE ("inner-radius",
        "Inner radius", "Source pixels: polar, the donut's hole (the "
        "panorama's bottom row); the mirror projections, the image radius "
        "of the window's bottom edge (0: 0.245 of the mirror's image "
        "radius; ground 0.025)", 0.0, MAX_COORD, 0.0, GST_CO_PARAM_LIVE,
        SET (inner_radius), RESIZE),
    [PROP_OUTER_RADIUS - 1] = GST_CO_ROW_DOUBLE ("outer-radius",
        "Outer radius", "Source pixels: polar, the donut's rim (the top "
        "row; 0: half the frame's shorter side); the mirror projections, "
        "the image radius of the window's top edge (0: 0.95 of the "
        "mirror's image radius; ground 0.24)", 0.0, MAX_COORD, 0.0,
        GST_CO_PARAM_LIVE, SET (outer_radius), RESIZE),
    [PROP_START_ANGLE - 1] = GST_CO_ROW_DOUBLE ("start-angle", "Start angle",
        "Azimuth of the panorama's left edge in degrees (0: right of the "
        "centre, 90: below it); pans the view", -360.0, 360.0, 0.0,
        GST_CO_PARAM_ANIM, SET (start_angle), REBUILD),
    [PROP_DIRECTION - 1] = GST_CO_ROW_ENUM ("direction", "Direction",
        "Which way the panorama goes round the donut, left to right",
        gst_co_omni_direction_get_type (), GST_CO_OMNI_COUNTERCLOCKWISE,
        GST_CO_PARAM_LIVE, SET (direction), REBUILD),
    [PROP_MIRROR_RADIUS - 1] = GST_CO_ROW_DOUBLE ("mirror-radius",
        "Mirror radius", "cylinder, cuboid, ground: radius R of the "
        "spherical mirror (any length unit, the same for every length)",
        1e-3, 1e6, 30.0, GST_CO_PARAM_LIVE, SET (mirror_radius), RESIZE),
    [PROP_MIRROR_DISTANCE - 1] = GST_CO_ROW_DOUBLE ("mirror-distance",
        "Mirror distance", "cylinder, cuboid, ground: distance h from the "
        "sphere's centre to the camera's projection centre "
        "(> mirror-radius)", 1e-3, 1e7, 150.0, GST_CO_PARAM_LIVE,
        SET (mirror_distance), RESIZE),
    [PROP_FOCAL_LENGTH - 1] = GST_CO_ROW_DOUBLE ("focal-length",
        "Focal length", "cylinder, cuboid, ground: the camera's focal "
        "length in pixels (0: the mirror's image fills the frame's shorter "
        "side, or the circle auto-center finds)", 0.0, 1e6, 0.0,
        GST_CO_PARAM_LIVE, SET (focal_length), RESIZE),
    [PROP_PLANE_DISTANCE - 1] = GST_CO_ROW_DOUBLE ("plane-distance",
        "Plane distance", "cylinder: radius of the projection cylinder "
        "around the axis; cuboid: distance of its four planes from the "
        "axis; in the mirror's unit, one unit of the surface being one "
        "output pixel (width 2 pi plane-distance, or 4 x 2 plane-distance); "
        "ground: the floor's distance from the sphere's centre", 1e-3, 1e6,
        229.0, GST_CO_PARAM_LIVE, SET (plane_distance), RESIZE),
    [PROP_PLANE_GAP - 1] = GST_CO_ROW_INT ("plane-gap", "Plane gap",
        "cuboid: empty output columns between two faces (the paper's "
        "alignment padding; border-color)", 0, 4096, 0, GST_CO_PARAM_LIVE,
        SET (plane_gap), RESIZE),
    [PROP_LAYOUT - 1] = GST_CO_ROW_ENUM ("layout", "Layout",
        "One view of the turn, two halves stacked, or four quarters in a "
        "grid (ground: the floor in front of each, turned to face up)",
        gst_co_omni_layout_get_type (), GST_CO_OMNI_LAYOUT_ONE,
        GST_CO_PARAM_LIVE, SET (layout), RESIZE),
    [PROP_ZOOM - 1] = GST_CO_ROW_DOUBLE ("zoom", "Zoom",
        "Magnification of every view about its centre; the output size "
        "stays (below 1 the window is framed by border-color)", 0.25, 64.0,
        1.0, GST_CO_PARAM_ANIM, SET (zoom), REBUILD),
    [PROP_AUTO_CENTER - 1] = GST_CO_ROW_BOOLEAN ("auto-center",
        "Auto centre", "Find the mirror's or lens's image circle in the "
        "first frames and set center-x, center-y (and polar's "
        "outer-radius) from it; the fit is posted on the bus "
        "(cudaomniunwrap-auto-center)", FALSE, GST_CO_PARAM_LIVE,
        SET (auto_center), REBUILD),
  };

  GST_CO_BASE_FILTER_CLASS_INSTALL (fc, GstCudaOmniUnwrap, set, settings);
  fc->setting_changed = gst_cuda_omni_unwrap_setting_changed;

  gst_co_base_filter_class_set_details (fc, "CUDA omnidirectional unwrap",
      "Filter/Effect/Video",
      "Unwraps 360-degree frames into panoramas on CUDA (CPU fallback)",
      FORMATS, CO_REMAP_MAX_SIZE);

  fc->mode = GST_CO_FILTER_RESIZE;
  fc->get_output_size =
      GST_DEBUG_FUNCPTR (gst_cuda_omni_unwrap_get_output_size);
  rc->prepare = GST_DEBUG_FUNCPTR (gst_cuda_omni_unwrap_prepare);
  rc->map_cpu = gst_cuda_omni_unwrap_map_cpu;
  rc->map_cuda = gst_cuda_omni_unwrap_map_cuda;
  fc->release = GST_DEBUG_FUNCPTR (gst_cuda_omni_unwrap_release);
  GST_BASE_TRANSFORM_CLASS (klass)->sink_event =
      GST_DEBUG_FUNCPTR (gst_cuda_omni_unwrap_sink_event);
  GST_BASE_TRANSFORM_CLASS (klass)->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_omni_unwrap_submit_input_buffer);
}

/* the table's defaults are the pspecs' (set by the base) */
static void
gst_cuda_omni_unwrap_init (GstCudaOmniUnwrap * self)
{
}
