/* cudaoptics — LGPL-2.1-or-later
 *
 * cudaomniunwrap (projection=polar): synthetic donuts unwrap to straight
 * rows and columns; the panorama's size follows the radii, yields to
 * downstream caps and renegotiates while PLAYING; impossible geometry is a
 * clear error; CUDA gives the CPU's bytes for every format (where a device
 * is usable).
 */
#include "family-check.h"
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <math.h>
#include "omni_mirror.h"

/* A GRAY8 frame whose value depends only on the radius (@radial) or only
 * on the azimuth around (cx, cy). */
static GstBuffer *
donut_frame (const GstVideoInfo * info, gboolean radial, double cx, double cy)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame f;
  gint x, y;

  fail_unless (gst_video_frame_map (&f, (GstVideoInfo *) info, buf,
          GST_MAP_WRITE));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++)
    for (x = 0; x < GST_VIDEO_INFO_WIDTH (info); x++) {
      double r = hypot (x - cx, y - cy), t = atan2 (y - cy, x - cx);
      double v = radial ? 128 + 100 * sin (r * 0.15) : 128 + 100 * sin (t * 6);
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(gsize) y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x] = (guint8) lround (v);
    }
  gst_video_frame_unmap (&f);
  return buf;
}

static void
out_size (GstHarness * h, gint * w, gint * hh)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL);
  gst_structure_get_int (gst_caps_get_structure (caps, 0), "width", w);
  gst_structure_get_int (gst_caps_get_structure (caps, 0), "height", hh);
  gst_caps_unref (caps);
}

/* Largest spread of the values along each row (@rows) or column. */
static gint
spread (GstBuffer * buf, gint w, gint h, gboolean rows)
{
  GstVideoInfo info;
  GstVideoFrame f;
  gint i, j, worst = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_READ));
  for (i = 0; i < (rows ? h : w); i++) {
    gint lo = 255, hi = 0;
    for (j = 0; j < (rows ? w : h); j++) {
      gint v = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(gsize)
          (rows ? i : j) * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) +
          (rows ? j : i)];
      lo = MIN (lo, v);
      hi = MAX (hi, v);
    }
    worst = MAX (worst, hi - lo);
  }
  gst_video_frame_unmap (&f);
  return worst;
}

/* Rings become rows, spokes columns; the size is 2 pi r_mid x thickness. */
GST_START_TEST (test_polar_straightens)
{
  GstCaps *caps = video_caps ("GRAY8", 640, 480);
  GstVideoInfo info;
  gint pass;

  gst_video_info_from_caps (&info, caps);
  for (pass = 0; pass < 2; pass++) {
    GstHarness *h = co_harness ("cudaomniunwrap backend=cpu center-x=300 "
        "center-y=250 inner-radius=50 outer-radius=200", gst_caps_ref (caps));
    GstBuffer *out = gst_harness_push_and_pull (h,
        donut_frame (&info, pass == 0, 300, 250));
    gint w = 0, hh = 0, s;

    fail_unless (out != NULL);
    out_size (h, &w, &hh);
    fail_unless_equals_int (w, (gint) (2 * G_PI * 125 + 0.5));
    fail_unless_equals_int (hh, 150);
    s = spread (out, w, hh, pass == 0);
    /* bilinear taps of a smooth pattern: a few code values at most */
    fail_unless (s <= 6, "%s spread %d", pass == 0 ? "row" : "column", s);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
  gst_caps_unref (caps);
}

GST_END_TEST;

/* Downstream fixes the size; a radius change while PLAYING renegotiates. */
/* The output size cudaomniunwrap @props fixates for GRAY8 640x480 input,
 * without a frame (the caps transform and fixation of the element). */
static void
fixated_size (const gchar * props, gint * w, gint * h)
{
  gchar *desc = g_strdup_printf ("cudaomniunwrap backend=cpu %s", props);
  GstElement *e = gst_parse_launch (desc, NULL);
  GstBaseTransformClass *k = GST_BASE_TRANSFORM_GET_CLASS (e);
  GstCaps *in = gst_caps_from_string ("video/x-raw, format=GRAY8, "
      "width=640, height=480, framerate=30/1");
  GstCaps *other = k->transform_caps (GST_BASE_TRANSFORM (e), GST_PAD_SINK,
      in, NULL);
  GstCaps *fixed = k->fixate_caps (GST_BASE_TRANSFORM (e), GST_PAD_SINK, in,
      other);
  GstStructure *s = gst_caps_get_structure (fixed, 0);

  fail_unless (gst_structure_get_int (s, "width", w) &&
      gst_structure_get_int (s, "height", h), "%s", desc);
  gst_caps_unref (fixed);
  gst_caps_unref (in);
  gst_object_unref (e);
  g_free (desc);
}

/* Extreme but legal settings: the natural size is worked out in double
 * and clamped to what a frame may be, never wrapped into a 1-pixel-high
 * panorama (a float beyond int's range converted: 16384x1 before). */
GST_START_TEST (test_extreme_sizes)
{
  const gchar *cases[] = {
    "projection=cylinder focal-length=1000000 plane-distance=1000000 "
        "inner-radius=1 outer-radius=100",
    "projection=cuboid focal-length=1000000 plane-distance=1000000 "
        "inner-radius=1 outer-radius=100",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gint w = 0, h = 0;
    fixated_size (cases[i], &w, &h);
    GST_INFO ("%s: %dx%d", cases[i], w, h);
    fail_unless (w > 1 && h > 1, "%s: %dx%d", cases[i], w, h);
  }
}

GST_END_TEST;

GST_START_TEST (test_polar_sizes)
{
  GstCaps *caps = video_caps ("RGBA", 320, 240);
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *out;
  gint w = 0, hh = 0;

  gst_video_info_from_caps (&info, caps);
  h = co_harness ("cudaomniunwrap backend=cpu inner-radius=20",
      gst_caps_ref (caps));
  gst_harness_set_sink_caps_str (h, "video/x-raw, width=(int)400, "
      "height=(int)64");
  out = gst_harness_push_and_pull (h, make_frame (&info, NULL, TRUE));
  fail_unless (out != NULL);
  out_size (h, &w, &hh);
  fail_unless (w == 400 && hh == 64, "%dx%d", w, hh);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  h = co_harness ("cudaomniunwrap name=u backend=cpu inner-radius=20",
      gst_caps_ref (caps));
  out = gst_harness_push_and_pull (h, make_frame (&info, NULL, TRUE));
  out_size (h, &w, &hh);
  fail_unless (w == (gint) (2 * G_PI * 70 + 0.5) && hh == 100, "%dx%d", w,
      hh);
  gst_buffer_unref (out);
  {
    GstElement *u = gst_bin_get_by_name (GST_BIN (h->element), "u");
    g_object_set (u, "outer-radius", 60.0, NULL);
    gst_object_unref (u);
  }
  out = gst_harness_push_and_pull (h, make_frame (&info, NULL, TRUE));
  out_size (h, &w, &hh);
  fail_unless (w == (gint) (2 * G_PI * 40 + 0.5) && hh == 40, "%dx%d", w, hh);
  fail_unless (gst_buffer_get_size (out) >= (gsize) w * hh * 4);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* An impossible donut is an error naming the radii; one off the frame is
 * a warning, and the frames still flow. */
GST_START_TEST (test_polar_bad_geometry)
{
  GstMessage *m = first_message ("cudaomniunwrap backend=cpu "
      "inner-radius=70 outer-radius=50", GST_MESSAGE_ERROR);
  GError *err = NULL;

  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR);
  gst_message_parse_error (m, &err, NULL);
  fail_unless (strstr (err->message, "inner-radius") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (m);

  m = first_message ("cudaomniunwrap backend=cpu center-x=10 inner-radius=5",
      GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING);
  gst_message_parse_warning (m, &err, NULL);
  fail_unless (strstr (err->message, "beyond") != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (m);
}

GST_END_TEST;

/* What the camera sees at image radius @ri and angle @a (0 outside). */
typedef double (*SceneFn) (const CoMirror * m, double ri, double a);

/* A 480x480 GRAY8 mirror picture, the mirror's image centred. */
static GstBuffer *
mirror_frame (const GstVideoInfo * info, const CoMirror * m, SceneFn scene)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  const double c = 239.5;
  GstVideoFrame f;
  gint x, y;

  fail_unless (gst_video_frame_map (&f, (GstVideoInfo *) info, buf,
          GST_MAP_WRITE));
  for (y = 0; y < 480; y++)
    for (x = 0; x < 480; x++) {
      double ri = hypot (x - c, y - c), v = 0;
      if (ri > 0 && ri < co_mirror_limb (m))
        v = scene (m, ri, atan2 (y - c, x - c));
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(gsize) y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x] = (guint8) lround (v);
    }
  gst_video_frame_unmap (&f);
  return buf;
}

/* A mirror image rendered from a known scene (horizontal stripes on the
 * cylinder, traced through the backward model) unwraps back to the scene:
 * every panorama row has the stripe value of its height. */
#define SCENE(z) (128.0 + 100.0 * sin ((z) * 2.0 * G_PI / 120.0))

static double
stripes_on_cylinder (const CoMirror * m, double ri, double a)
{
  double z, r;

  return co_mirror_cylinder_z (m, 100.0, ri, &z, &r) ? SCENE (z) : 0.0;
}

GST_START_TEST (test_cylinder_scene)
{
  const CoMirror m = { 30.0, 150.0, 800.0 };
  const double D = 100.0, rin = 40.0, rout = 155.0;
  GstCaps *caps = video_caps ("GRAY8", 480, 480);
  GstVideoInfo info;
  GstBuffer *buf, *out;
  GstVideoFrame f;
  GstHarness *h;
  double za, zb, ra, rb, top, span;
  gint x, y, w = 0, hh = 0, worst = 0;

  gst_video_info_from_caps (&info, caps);
  buf = mirror_frame (&info, &m, stripes_on_cylinder);

  h = co_harness ("cudaomniunwrap backend=cpu projection=cylinder "
      "mirror-radius=30 mirror-distance=150 focal-length=800 "
      "plane-distance=100 inner-radius=40 outer-radius=155",
      gst_caps_ref (caps));
  out = gst_harness_push_and_pull (h, buf);
  fail_unless (out != NULL);
  out_size (h, &w, &hh);
  fail_unless (co_mirror_cylinder_z (&m, D, rin, &za, &ra));
  fail_unless (co_mirror_cylinder_z (&m, D, rout, &zb, &rb));
  /* the top row is the window's outer edge */
  top = zb;
  span = za - zb;
  fail_unless_equals_int (w, (gint) (2 * G_PI * D));
  fail_unless_equals_int (hh, (gint) span);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, hh);
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (y = 0; y < hh; y++) {
    double zv = top + (y + 0.5) * span / hh;
    for (x = 0; x < w; x++) {
      gint got = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(gsize) y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x];
      worst = MAX (worst, ABS (got - (gint) lround (SCENE (zv))));
    }
  }
  gst_video_frame_unmap (&f);
  GST_INFO ("cylinder %dx%d, worst difference from the scene %d", w, hh,
      worst);
  /* the mirror squeezes the scene near its rim: bilinear taps there blur
   * a stripe by a few code values at most */
  fail_unless (worst <= 12, "worst difference from the scene: %d", worst);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* Each ray traced to the first of the four planes 80 units from the axis
 * that it meets. */
static double
stripes_on_cuboid (const CoMirror * m, double ri, double a)
{
  double mr, mz, dr, dz, best = G_MAXDOUBLE;
  gint k;

  if (!co_mirror_ray (m, ri, &mr, &mz, &dr, &dz) || dr <= 0)
    return 0.0;
  for (k = 0; k < 4; k++) {
    double cn = cos (a - k * G_PI / 2), t;
    if (cn <= 1e-9)
      continue;
    t = (80.0 - mr * cn) / (dr * cn);
    if (t > 0 && t < best)
      best = t;
  }
  return best < G_MAXDOUBLE ? SCENE (mz + best * dz) : 0.0;
}

/* The cuboid (the paper's): the same stripes seen on four planes at
 * plane-distance from the axis, each ray traced to the first face it
 * meets; every face's rows have the stripe value of their height, and the
 * gaps between faces take border-color. */
GST_START_TEST (test_cuboid_scene)
{
  const CoMirror m = { 30.0, 150.0, 800.0 };
  const double ys = 80.0;
  GstCaps *caps = video_caps ("GRAY8", 480, 480);
  GstVideoInfo info;
  GstBuffer *buf, *out;
  GstVideoFrame f;
  GstHarness *h;
  double za, zb, ra, rb, top, span;
  gint x, y, w = 0, hh = 0, worst = 0, gap_worst = 0, plane_w = 160, gap = 6;

  gst_video_info_from_caps (&info, caps);
  buf = mirror_frame (&info, &m, stripes_on_cuboid);

  h = co_harness ("cudaomniunwrap backend=cpu projection=cuboid "
      "focal-length=800 plane-distance=80 plane-gap=6 inner-radius=40 "
      "outer-radius=155 "
      "border-color=0xff000000", gst_caps_ref (caps));
  out = gst_harness_push_and_pull (h, buf);
  fail_unless (out != NULL);
  out_size (h, &w, &hh);
  fail_unless (co_mirror_cylinder_z (&m, ys, 40, &za, &ra));
  fail_unless (co_mirror_cylinder_z (&m, ys, 155, &zb, &rb));
  top = zb;
  span = za - zb;
  fail_unless_equals_int (w, 4 * plane_w + 3 * gap);
  fail_unless_equals_int (hh, (gint) span);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, hh);
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (y = 0; y < hh; y++) {
    double zv = top + (y + 0.5) * span / hh;
    for (x = 0; x < w; x++) {
      gint got = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(gsize) y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x];
      if (x % (plane_w + gap) >= plane_w)
        gap_worst = MAX (gap_worst, got);
      else
        worst = MAX (worst, ABS (got - (gint) lround (SCENE (zv))));
    }
  }
  gst_video_frame_unmap (&f);
  GST_INFO ("cuboid %dx%d, worst difference from the scene %d", w, hh, worst);
  fail_unless (worst <= 12, "worst difference from the scene: %d", worst);
  fail_unless_equals_int (gap_worst, 0);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* With nothing but the projection set, a mirror projection unwraps an
 * ordinary frame: focal length and window come from the frame (they
 * failed with "outer-radius reaches beyond the mirror"); with auto-center
 * the mirror's image is the circle found. */
static GstBuffer *lens_frame (const GstVideoInfo * info, double cx,
    double cy, double r, gboolean circle);

GST_START_TEST (test_mirror_defaults)
{
  const gchar *proj[] = { "cylinder", "cuboid", "ground" };
  const gint sizes[][2] = { {1280, 720}, {1920, 1080} };
  const CoMirror m = { 30.0, 150.0, 800.0 };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (proj); i++)
    for (j = 0; j < G_N_ELEMENTS (sizes); j++) {
      GstCaps *caps = video_caps ("RGBA", sizes[j][0], sizes[j][1]);
      gchar *d = g_strdup_printf ("cudaomniunwrap backend=cpu projection=%s",
          proj[i]);
      GstHarness *h = co_harness (d, gst_caps_ref (caps));
      GstVideoInfo info;
      GstBuffer *out;
      gint w = 0, hh = 0;

      gst_video_info_from_caps (&info, caps);
      out = gst_harness_push_and_pull (h, lens_frame (&info,
              sizes[j][0] / 2, sizes[j][1] / 2, sizes[j][1] / 2 - 4, FALSE));
      fail_unless (out != NULL, "%s on %dx%d: no picture", d, sizes[j][0],
          sizes[j][1]);
      out_size (h, &w, &hh);
      fail_unless (w >= 64 && hh >= 64, "%s: %dx%d", d, w, hh);
      gst_buffer_unref (out);
      gst_harness_teardown (h);
      gst_caps_unref (caps);
      g_free (d);
    }

  /* a mirror drawn with f 800 (its image 163 pixels round): auto-center
   * puts the mirror on the circle, so the panorama is f 800's to a few
   * levels; from the frame alone (its image taken as 235 pixels round) it
   * is another */
  {
    const gchar *descs[] = { "focal-length=800", "auto-center=true", "" };
    GstBuffer *outs[3];
    gdouble diff[3] = { 0 };

    for (i = 0; i < 3; i++) {
      GstCaps *caps = video_caps ("GRAY8", 480, 480);
      gchar *d = g_strdup_printf ("cudaomniunwrap backend=cpu "
          "projection=cylinder plane-distance=100 %s", descs[i]);
      GstHarness *h = co_harness (d, gst_caps_ref (caps));
      GstVideoInfo info;
      GstMapInfo a, b;
      gsize k;

      gst_video_info_from_caps (&info, caps);
      outs[i] = gst_harness_push_and_pull (h, mirror_frame (&info, &m,
              stripes_on_cylinder));
      fail_unless (outs[i] != NULL);
      fail_unless (gst_buffer_map (outs[0], &a, GST_MAP_READ));
      fail_unless (gst_buffer_map (outs[i], &b, GST_MAP_READ));
      fail_unless (a.size == b.size, "%s: another size", d);
      for (k = 0; k < a.size; k++)
        diff[i] += abs ((gint) a.data[k] - (gint) b.data[k]);
      diff[i] /= a.size;
      gst_buffer_unmap (outs[0], &a);
      gst_buffer_unmap (outs[i], &b);
      gst_harness_teardown (h);
      gst_caps_unref (caps);
      g_free (d);
    }
    GST_INFO ("mean difference from f 800: auto-center %.2f, frame %.2f",
        diff[1], diff[2]);
    fail_unless (diff[1] < 8 && diff[2] > 4 * diff[1], "mean difference "
        "from f 800: auto-center %.2f, from the frame %.2f", diff[1], diff[2]);
    for (i = 0; i < 3; i++)
      gst_buffer_unref (outs[i]);
  }
}

GST_END_TEST;

/* Impossible mirror geometry is an error saying which property. */
GST_START_TEST (test_cylinder_bad_geometry)
{
  const gchar *cases[][2] = {
    {"mirror-radius=30 mirror-distance=20", "mirror-distance (20) must be "
          "larger than mirror-radius (30): the model expects the camera "
          "outside the mirror's sphere, looking at the mirror, and this "
          "mirror-distance puts it inside the sphere"},
    {"mirror-radius=30 mirror-distance=30", "puts it on the sphere"},
    {"outer-radius=400", "beyond the mirror"},
    {"plane-distance=10", "plane-distance"},
    {"projection=ground plane-distance=300 outer-radius=140", "horizon"},
    {"projection=ground plane-distance=20", "plane-distance"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *desc = g_strdup_printf ("cudaomniunwrap backend=cpu "
        "projection=cylinder mirror-radius=30 mirror-distance=150 "
        "focal-length=800 inner-radius=20 outer-radius=50 %s", cases[i][0]);
    GstMessage *m = first_message (desc, GST_MESSAGE_ERROR);
    GError *err = NULL;

    fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "%s", desc);
    gst_message_parse_error (m, &err, NULL);
    fail_unless (strstr (err->message, cases[i][1]) != NULL, "%s: %s", desc,
        err->message);
    g_clear_error (&err);
    gst_message_unref (m);
    g_free (desc);
  }
}

GST_END_TEST;

/* A GRAY8 output buffer read in place. */
typedef struct
{
  GstMapInfo map;
  GstBuffer *buf;
  gint w, h, stride;
} Gray;

static void
gray_open (Gray * g, GstBuffer * buf, gint w, gint h)
{
  g->buf = buf;
  g->w = w;
  g->h = h;
  g->stride = GST_ROUND_UP_4 (w);
  fail_unless (gst_buffer_map (buf, &g->map, GST_MAP_READ));
  fail_unless (g->map.size >= (gsize) g->stride * h);
}

static gint
gray_at (const Gray * g, gint x, gint y)
{
  return g->map.data[(gsize) y * g->stride + x];
}

static void
gray_close (Gray * g)
{
  gst_buffer_unmap (g->buf, &g->map);
  gst_buffer_unref (g->buf);
}

/* The ground: a floor texture seen in the mirror (traced through the
 * backward model) comes out as a top-down map: at start-angle 0 the view
 * looks towards the image's top, the image's left on its right (a mirror
 * seen from below), one world unit per pixel, the axis in the middle. */
#define FLOOR(gx, gy) (128.0 + 90.0 * sin ((gx) / 40.0) * cos ((gy) / 55.0))

static double
floor_below (const CoMirror * m, double ri, double a)
{
  double rho, r;

  return co_mirror_ground_rho (m, 300.0, ri, &rho, &r) ?
      FLOOR (rho * cos (a), rho * sin (a)) : 0.0;
}

GST_START_TEST (test_ground_scene)
{
  const CoMirror m = { 30.0, 150.0, 800.0 };
  const double G = 300.0;
  GstCaps *caps = video_caps ("GRAY8", 480, 480);
  GstVideoInfo info;
  GstBuffer *buf, *out;
  GstHarness *h;
  Gray o;
  double far, near, rr;
  gint x, y, w = 0, hh = 0, worst = 0, hole = 0, n = 0;

  gst_video_info_from_caps (&info, caps);
  buf = mirror_frame (&info, &m, floor_below);

  h = co_harness ("cudaomniunwrap backend=cpu projection=ground "
      "focal-length=800 plane-distance=300 inner-radius=10 outer-radius=80 "
      "border-color=0xff000000", gst_caps_ref (caps));
  out = gst_harness_push_and_pull (h, buf);
  fail_unless (out != NULL);
  out_size (h, &w, &hh);
  fail_unless (co_mirror_ground_rho (&m, G, 80, &far, &rr));
  fail_unless (co_mirror_ground_rho (&m, G, 10, &near, &rr));
  fail_unless_equals_int (w, (gint) (2 * far));
  fail_unless_equals_int (hh, w);
  gray_open (&o, out, w, hh);
  for (y = 0; y < hh; y++)
    for (x = 0; x < w; x++) {
      /* right is the image's -x, down its +y */
      double a = (x + 0.5 - w / 2.0) * 2 * far / hh;
      double b = (y + 0.5 - hh / 2.0) * 2 * far / hh, d = hypot (a, b);
      if (d < near * 0.9)
        hole = MAX (hole, gray_at (&o, x, y));
      if (d > near * 1.1 && d < far * 0.85) {
        worst = MAX (worst, ABS (gray_at (&o, x, y) -
                (gint) lround (FLOOR (-a, b))));
        n++;
      }
    }
  gray_close (&o);
  GST_INFO ("ground %dx%d, worst difference from the floor %d over %d px",
      w, hh, worst, n);
  gst_harness_teardown (h);
  gst_caps_unref (caps);
  fail_unless (n > 100000);
  fail_unless (worst <= 12, "worst difference from the floor: %d", worst);
  fail_unless_equals_int (hole, 0);
}

GST_END_TEST;

/* One unwrap of a GRAY8 frame with @props, at a fixed output size. */
static GstBuffer *
unwrap_fixed (const gchar * props, GstBuffer * in, gint w, gint h)
{
  GstCaps *caps = video_caps ("GRAY8", 480, 480);
  gchar *d = g_strdup_printf ("cudaomniunwrap backend=cpu %s", props);
  GstHarness *hs = co_harness (d, gst_caps_ref (caps));
  gchar *sink = g_strdup_printf ("video/x-raw, format=GRAY8, width=(int)%d, "
      "height=(int)%d", w, h);
  GstBuffer *out;

  gst_harness_set_sink_caps_str (hs, sink);
  out = gst_harness_push_and_pull (hs, gst_buffer_ref (in));
  gst_harness_teardown (hs);
  fail_unless (out != NULL, "%s", d);
  g_free (sink);
  g_free (d);
  gst_caps_unref (caps);
  return out;
}

/* Two halves and four quarters are the one panorama cut and stacked;
 * their natural size is half as wide and twice as high. */
GST_START_TEST (test_layouts)
{
  const gchar *proj[] = { "inner-radius=40 outer-radius=200",
    "projection=cuboid plane-distance=80 inner-radius=40 outer-radius=155"
  };
  GstCaps *caps = video_caps ("GRAY8", 480, 480);
  GstVideoInfo info;
  GstBuffer *in;
  guint p, n;

  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, NULL, TRUE);
  for (p = 0; p < G_N_ELEMENTS (proj); p++) {
    Gray one;
    gint W = 640, H = 60;

    gray_open (&one, unwrap_fixed (proj[p], in, W, H), W, H);
    for (n = 2; n <= 4; n += 2) {
      gchar *props = g_strdup_printf ("%s layout=%s", proj[p],
          n == 2 ? "two" : "four");
      gint cols = n / 2, pw = W / n, x, y, worst = 0, w = 0, hh = 0;
      gchar *d = g_strdup_printf ("cudaomniunwrap backend=cpu %s", props);
      gchar *d0 = g_strdup_printf ("cudaomniunwrap backend=cpu %s", proj[p]);
      GstHarness *h = co_harness (d, gst_caps_ref (caps));
      Gray lay;
      GstBuffer *nat = gst_harness_push_and_pull (h, gst_buffer_ref (in));

      /* natural size: half the width (of the one layout's), twice the height */
      fail_unless (nat != NULL);
      {
        gint w1 = 0, h1 = 0;
        GstHarness *h0 = co_harness (d0, gst_caps_ref (caps));
        GstBuffer *b0 = gst_harness_push_and_pull (h0, gst_buffer_ref (in));
        out_size (h0, &w1, &h1);
        out_size (h, &w, &hh);
        gst_buffer_unref (b0);
        gst_harness_teardown (h0);
        fail_unless (w == w1 / 2 && hh == 2 * h1, "%s: %dx%d from %dx%d",
            props, w, hh, w1, h1);
      }
      gst_buffer_unref (nat);
      gst_harness_teardown (h);
      g_free (d);
      g_free (d0);

      gray_open (&lay, unwrap_fixed (props, in, cols * pw, 2 * H),
          cols * pw, 2 * H);
      for (y = 0; y < 2 * H; y++)
        for (x = 0; x < cols * pw; x++) {
          gint k = (y / H) * cols + x / pw;
          worst = MAX (worst, ABS (gray_at (&lay, x, y) - gray_at (&one,
                      k * pw + x % pw, y % H)));
        }
      gray_close (&lay);
      GST_INFO ("%s: worst difference from the one panorama %d", props,
          worst);
      fail_unless (worst <= 2, "%s: worst difference %d", props, worst);
      g_free (props);
    }
    gray_close (&one);
  }
  gst_buffer_unref (in);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* zoom magnifies about the centre without changing the size; below 1 the
 * window is framed by border-color. */
GST_START_TEST (test_zoom)
{
  GstCaps *caps = video_caps ("GRAY8", 480, 480);
  GstVideoInfo info;
  GstBuffer *in;
  gint z;

  gst_video_info_from_caps (&info, caps);
  in = donut_frame (&info, TRUE, 239.5, 239.5);
  for (z = 0; z < 2; z++) {
    double zoom = z ? 0.5 : 2.0;
    gchar *props = g_strdup_printf ("inner-radius=40 outer-radius=200 "
        "zoom=%g border-color=0xff000000", zoom);
    Gray o;
    gint x, y, worst = 0, frame = 0, W = 600, H = 80;

    gray_open (&o, unwrap_fixed (props, in, W, H), W, H);
    for (y = 0; y < H; y++) {
      double t = 0.5 + ((y + 0.5) / H - 0.5) / zoom;
      double r = 200 - 160 * t;
      for (x = 0; x < W; x++) {
        double sx = 0.5 + ((x + 0.5) / W - 0.5) / zoom;
        if (t < 0 || t > 1 || sx < 0 || sx > 1)
          frame = MAX (frame, gray_at (&o, x, y));
        else if (t > 0.02 && t < 0.98 && sx > 0.01 && sx < 0.99)
          worst = MAX (worst, ABS (gray_at (&o, x, y) -
                  (gint) lround (128 + 100 * sin (r * 0.15))));
      }
    }
    gray_close (&o);
    GST_INFO ("zoom %g: worst %d, frame %d", zoom, worst, frame);
    fail_unless (worst <= 6, "zoom %g: worst difference %d", zoom, worst);
    fail_unless_equals_int (frame, 0);
    g_free (props);
  }
  gst_buffer_unref (in);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* A pan while PLAYING reuses the solved radii, a zoom solves again: both
 * give the bytes of an element started with those settings. */
static void
check_pan_and_zoom (const gchar * backend)
{
  const gchar *base = "projection=cuboid plane-distance=60 plane-gap=3 "
      "inner-radius=30 outer-radius=110 interpolation=bilinear";
  GstCaps *caps = video_caps ("I420", 322, 242);
  GstVideoInfo info, oinfo;
  GRand *r = g_rand_new_with_seed (7);
  GstBuffer *in, *a, *b;
  gchar *d = g_strdup_printf ("cudaomniunwrap name=u backend=%s %s", backend,
      base);
  GstHarness *h = co_harness (d, gst_caps_ref (caps));
  GstElement *u = gst_bin_get_by_name (GST_BIN (h->element), "u");
  GstCaps *cur;
  gint step, md = 0;

  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, r, TRUE);
  for (step = 0; step < 3; step++) {
    const gchar *set[] = { "start-angle=0", "start-angle=33 center-x=165",
      "start-angle=33 center-x=165 zoom=1.3"
    };
    gchar *ref = g_strdup_printf ("cudaomniunwrap backend=%s %s %s", backend,
        base, set[step]);
    if (step == 1)
      g_object_set (u, "start-angle", 33.0, "center-x", 165.0, NULL);
    if (step == 2)
      g_object_set (u, "zoom", 1.3, NULL);
    b = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    a = run_frame (ref, caps, in);
    fail_unless (b != NULL);
    cur = gst_pad_get_current_caps (h->sinkpad);
    gst_video_info_from_caps (&oinfo, cur);
    gst_caps_unref (cur);
    fail_unless (frames_equal (&oinfo, a, b, &md), "%s %s: max diff %d",
        backend, set[step], md);
    gst_buffer_unref (a);
    gst_buffer_unref (b);
    g_free (ref);
  }
  gst_object_unref (u);
  gst_harness_teardown (h);
  gst_buffer_unref (in);
  g_rand_free (r);
  g_free (d);
  gst_caps_unref (caps);
}

/* loop index: 0 the CPU backend (the CPU cases), 1 CUDA (the CUDA ones) */
static const gchar *const backends[] = { "cpu", "cuda" };

GST_START_TEST (test_pan_keeps_radii)
{
  check_pan_and_zoom (backends[__i__]);
}

GST_END_TEST;

/* The cuboid's columns at the same distance from a face's centre line
 * share one solve (the paper's symmetry): the panorama equals a solve of
 * every column on its own (CO_OMNI_NO_SHARE), byte for byte. */
static void
check_shared_solves (const gchar * backend)
{
  const gchar *props[] = { "plane-gap=5", "layout=four", "plane-gap=2 "
        "start-angle=17 zoom=1.25"
  };
  GstCaps *caps = video_caps ("I420", 322, 242);
  GstVideoInfo info, oinfo;
  GRand *r = g_rand_new_with_seed (5);
  GstBuffer *in;
  guint i;

  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, r, TRUE);
  for (i = 0; i < G_N_ELEMENTS (props); i++) {
    gchar *d = g_strdup_printf ("cudaomniunwrap backend=%s projection=cuboid "
        "plane-distance=60 inner-radius=30 outer-radius=110 %s", backend,
        props[i]);
    GstHarness *h = co_harness (d, gst_caps_ref (caps));
    GstBuffer *shared = gst_harness_push_and_pull (h, gst_buffer_ref (in)), *own;
    GstCaps *cur = gst_pad_get_current_caps (h->sinkpad);
    gint md = 0;

    gst_video_info_from_caps (&oinfo, cur);
    gst_caps_unref (cur);
    gst_harness_teardown (h);
    g_setenv ("CO_OMNI_NO_SHARE", "1", TRUE);
    own = run_frame (d, caps, in);
    g_unsetenv ("CO_OMNI_NO_SHARE");
    fail_unless (shared != NULL);
    fail_unless (frames_equal (&oinfo, shared, own, &md), "%s: max diff %d",
        d, md);
    gst_buffer_unref (shared);
    gst_buffer_unref (own);
    g_free (d);
  }
  gst_buffer_unref (in);
  g_rand_free (r);
  gst_caps_unref (caps);
}

GST_START_TEST (test_cuboid_shared_solves)
{
  check_shared_solves (backends[__i__]);
}

GST_END_TEST;

/* zoom and start-angle follow a GstController while PLAYING: every frame
 * is the one a fresh element with the values at its timestamp gives (the
 * table rebuilt before the frame, never half of it). */
GST_START_TEST (test_controlled_zoom_and_pan)
{
  const gchar *base = "cudaomniunwrap backend=cpu projection=cylinder "
      "inner-radius=30 outer-radius=110 interpolation=bilinear";
  GstCaps *caps = video_caps ("RGBA", 322, 242);
  gchar *d = g_strdup_printf ("%s name=u", base);
  GstHarness *h = co_harness (d, gst_caps_ref (caps));
  GstElement *u = gst_bin_get_by_name (GST_BIN (h->element), "u");
  GstControlSource *zoom = gst_interpolation_control_source_new ();
  GstControlSource *pan = gst_interpolation_control_source_new ();
  GRand *r = g_rand_new_with_seed (9);
  GstVideoInfo info, oinfo;
  GstBuffer *in;
  GstCaps *cur;
  gint i;

  g_object_set (zoom, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  g_object_set (pan, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (zoom),
      0, 1.0);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (zoom),
      GST_SECOND, 2.0);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (pan), 0,
      0.0);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (pan),
      GST_SECOND, 90.0);
  gst_object_add_control_binding (GST_OBJECT (u),
      gst_direct_control_binding_new_absolute (GST_OBJECT (u), "zoom", zoom));
  gst_object_add_control_binding (GST_OBJECT (u),
      gst_direct_control_binding_new_absolute (GST_OBJECT (u), "start-angle",
          pan));
  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, r, TRUE);
  for (i = 0; i <= 2; i++) {
    gchar *ref = g_strdup_printf ("%s zoom=%g start-angle=%g", base,
        1.0 + 0.5 * i, 45.0 * i);
    GstBuffer *b = gst_buffer_copy (in), *a, *got;
    gint md = 0;

    GST_BUFFER_PTS (b) = i * GST_SECOND / 2;
    got = gst_harness_push_and_pull (h, b);
    a = run_frame (ref, caps, in);
    fail_unless (got != NULL);
    cur = gst_pad_get_current_caps (h->sinkpad);
    gst_video_info_from_caps (&oinfo, cur);
    gst_caps_unref (cur);
    fail_unless (frames_equal (&oinfo, a, got, &md), "t=%d/2 s: not %s "
        "(max diff %d)", i, ref, md);
    gst_buffer_unref (a);
    gst_buffer_unref (got);
    g_free (ref);
  }
  gst_buffer_unref (in);
  gst_object_unref (zoom);
  gst_object_unref (pan);
  gst_object_unref (u);
  gst_harness_teardown (h);
  g_rand_free (r);
  g_free (d);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* A 360-degree lens's frame: a textured bright disc of radius @r round
 * (cx, cy) with a dark hole, on a dark, noisy surround. */
static GstBuffer *
lens_frame (const GstVideoInfo * info, double cx, double cy, double r,
    gboolean circle)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GRand *rand = g_rand_new_with_seed (11);
  GstVideoFrame f;
  gint x, y, c;

  fail_unless (gst_video_frame_map (&f, (GstVideoInfo *) info, buf,
          GST_MAP_WRITE));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++)
    for (x = 0; x < GST_VIDEO_INFO_WIDTH (info); x++) {
      double d = hypot (x - cx, y - cy), v = 12 + g_rand_int_range (rand, 0,
          10);
      if (circle && d < r && d > 0.25 * r)
        v = 150 + 60 * sin (x * 0.07) * cos (y * 0.05) + g_rand_int_range
            (rand, 0, 20);
      for (c = 0; c < GST_VIDEO_INFO_COMP_PSTRIDE (info, 0); c++)
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(gsize) y *
            GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x *
            GST_VIDEO_FRAME_COMP_PSTRIDE (&f, 0) + c] = (guint8) v;
    }
  gst_video_frame_unmap (&f);
  g_rand_free (rand);
  return buf;
}

/* The element message of auto-center, if one was posted. */
static GstStructure *
auto_center_message (GstBus * bus)
{
  GstMessage *m;
  GstStructure *st = NULL;

  while (!st && (m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    if (gst_structure_has_name (gst_message_get_structure (m),
            "cudaomniunwrap-auto-center"))
      st = gst_structure_copy (gst_message_get_structure (m));
    gst_message_unref (m);
  }
  return st;
}

/* auto-center on frames in memory:CUDAMemory (read back to the host). */
GST_START_TEST (test_auto_center_cuda)
{
  GstCaps *caps = video_caps ("RGBA", 640, 480);
  gchar *caps_str = gst_caps_to_string (caps);
  gchar *d = g_strdup_printf ("appsrc name=src format=time caps=\"%s\" ! "
      "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudaomniunwrap "
      "backend=cuda auto-center=true inner-radius=50 ! fakesink", caps_str);
  GstElement *p = gst_parse_launch (d, NULL), *src;
  GstBus *bus = gst_element_get_bus (p);
  GstVideoInfo info;
  GstMessage *m;
  gdouble cx = 0, cy = 0;
  gboolean found = FALSE;

  fail_unless (p != NULL, "%s", d);
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  gst_video_info_from_caps (&info, caps);
  gst_element_set_state (p, GST_STATE_PLAYING);
  gst_app_src_push_buffer (GST_APP_SRC (src), lens_frame (&info, 300.3,
          250.6, 180, TRUE));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  while ((m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    const GstStructure *st = gst_message_get_structure (m);
    gboolean done = GST_MESSAGE_TYPE (m) != GST_MESSAGE_ELEMENT;
    if (st && gst_structure_has_name (st, "cudaomniunwrap-auto-center")) {
      gst_structure_get_boolean (st, "found", &found);
      gst_structure_get_double (st, "center-x", &cx);
      gst_structure_get_double (st, "center-y", &cy);
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
      found = FALSE;
    gst_message_unref (m);
    if (done)
      break;
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (d);
  g_free (caps_str);
  gst_caps_unref (caps);
  GST_INFO ("CUDA memory: centre %.2f,%.2f", cx, cy);
  fail_unless (found && fabs (cx - 300.3) < 1 && fabs (cy - 250.6) < 1,
      "CUDA memory: found %d at %g,%g", found, cx, cy);
}

GST_END_TEST;

/* auto-center finds the image circle in the first frame, sets the centre
 * and polar's outer radius from it, posts the fit, and the frame comes out
 * with that geometry; with no circle it warns after ten frames and keeps
 * the centre. */
GST_START_TEST (test_auto_center)
{
  const gchar *formats[] = { "GRAY8", "RGBA" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstCaps *caps = video_caps (formats[i], 640, 480);
    GstHarness *h = co_harness ("cudaomniunwrap name=u backend=cpu "
        "auto-center=true inner-radius=50", gst_caps_ref (caps));
    GstElement *u = gst_bin_get_by_name (GST_BIN (h->element), "u");
    GstBus *bus = gst_bus_new ();
    GstVideoInfo info;
    GstBuffer *out;
    GstStructure *st;
    gdouble cx = 0, cy = 0, r = 0, outer = 0;
    gboolean found = FALSE;
    gint w = 0, hh = 0, ew, eh, n;

    gst_element_set_bus (u, bus);
    gst_video_info_from_caps (&info, caps);
    out = gst_harness_push_and_pull (h, lens_frame (&info, 300.3, 250.6,
            180, TRUE));
    fail_unless (out != NULL);
    out_size (h, &w, &hh);
    gst_buffer_unref (out);
    st = auto_center_message (bus);
    g_object_get (u, "center-x", &cx, "center-y", &cy, "outer-radius", &outer,
        NULL);
    if (st) {
      gst_structure_get_boolean (st, "found", &found);
      gst_structure_get_double (st, "radius", &r);
    }
    GST_INFO ("%s: centre %.2f,%.2f radius %.2f, outer-radius %g, %dx%d",
        formats[i], cx, cy, r, outer, w, hh);
    co_omni_polar_size (50, (float) outer, &ew, &eh);
    if (st)
      gst_structure_free (st);
    gst_element_set_bus (u, NULL);
    gst_object_unref (u);
    gst_harness_teardown (h);
    gst_object_unref (bus);
    gst_caps_unref (caps);
    fail_unless (found, "%s: no circle posted", formats[i]);
    fail_unless (fabs (cx - 300.3) < 1 && fabs (cy - 250.6) < 1 &&
        fabs (r - 180) < 1.5, "%s: %g,%g r %g", formats[i], cx, cy, r);
    fail_unless (outer == floor (r - 1.0), "outer-radius %g", outer);
    /* the first frame is unwrapped with the circle found in it */
    fail_unless (w == ew && hh == eh, "%dx%d, not %dx%d", w, hh, ew, eh);

    /* no circle: a warning and a message after ten frames */
    caps = video_caps (formats[i], 320, 240);
    h = co_harness ("cudaomniunwrap name=u backend=cpu auto-center=true "
        "center-x=100", gst_caps_ref (caps));
    u = gst_bin_get_by_name (GST_BIN (h->element), "u");
    bus = gst_bus_new ();
    gst_element_set_bus (u, bus);
    gst_video_info_from_caps (&info, caps);
    found = TRUE;
    for (n = 0; n < 10; n++) {
      out = gst_harness_push_and_pull (h, lens_frame (&info, 160, 120, 100,
              FALSE));
      fail_unless (out != NULL);
      gst_buffer_unref (out);
    }
    st = auto_center_message (bus);
    g_object_get (u, "center-x", &cx, NULL);
    if (st) {
      gst_structure_get_boolean (st, "found", &found);
      gst_structure_free (st);
    }
    gst_element_set_bus (u, NULL);
    gst_object_unref (u);
    gst_harness_teardown (h);
    gst_object_unref (bus);
    fail_unless (!found, "a circle in a frame without one");
    fail_unless (cx == 100.0);

    /* a single picture without one: the message comes at the end of the
     * stream (nothing was said before) */
    h = co_harness ("cudaomniunwrap name=u backend=cpu auto-center=true",
        gst_caps_ref (caps));
    u = gst_bin_get_by_name (GST_BIN (h->element), "u");
    bus = gst_bus_new ();
    gst_element_set_bus (u, bus);
    out = gst_harness_push_and_pull (h, lens_frame (&info, 160, 120, 100,
            FALSE));
    gst_buffer_unref (out);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    st = auto_center_message (bus);
    fail_unless (st != NULL, "%s: nothing said of one frame", formats[i]);
    fail_unless (gst_structure_get_boolean (st, "found", &found) && !found);
    fail_unless (gst_structure_get_string (st, "reason") != NULL);
    gst_structure_free (st);
    gst_element_set_bus (u, NULL);
    gst_object_unref (u);
    gst_harness_teardown (h);
    gst_object_unref (bus);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

/* The CUDA backend gives the CPU's bytes, every format and interpolation. */
GST_START_TEST (test_polar_cuda_equals_cpu)
{
  /* every projection, layout and zoom, both samplers */
  const gchar *configs[] = {
    "inner-radius=30 interpolation=nearest",
    "inner-radius=30 projection=cylinder outer-radius=110 "
        "interpolation=bilinear",
    "inner-radius=30 projection=cuboid plane-distance=60 plane-gap=3 "
        "outer-radius=110 interpolation=bilinear",
    "projection=ground plane-distance=300 inner-radius=10 outer-radius=80 "
        "interpolation=bilinear",
    "inner-radius=30 layout=four zoom=1.5 interpolation=nearest",
    "inner-radius=30 projection=cuboid plane-distance=60 outer-radius=110 "
        "layout=two interpolation=bilinear",
    "inner-radius=30 projection=cylinder outer-radius=110 layout=four "
        "zoom=0.7 interpolation=bilinear",
    "projection=ground plane-distance=300 inner-radius=10 outer-radius=80 "
        "layout=four zoom=1.7 interpolation=nearest",
  };
  guint f, i;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++)
    for (i = 0; i < G_N_ELEMENTS (configs); i++) {
      GstCaps *caps = video_caps (all_formats[f], 322, 242);
      GstVideoInfo info, oinfo;
      GRand *r = g_rand_new_with_seed (f * 16 + i);
      gboolean nearest = strstr (configs[i], "nearest") != NULL;
      GstBuffer *in;
      gchar *cpu, *cuda;
      GstBuffer *a, *b;
      GstCaps *cur;
      GstHarness *h;
      gint md = 0;

      gst_video_info_from_caps (&info, caps);
      /* random bytes for nearest, a smooth picture for bilinear */
      in = make_frame (&info, r, !nearest);
      cpu = g_strdup_printf ("cudaomniunwrap backend=cpu start-angle=33 %s",
          configs[i]);
      cuda = g_strdup_printf ("cudaomniunwrap backend=cuda start-angle=33 %s",
          configs[i]);
      a = run_frame (cpu, caps, in);
      h = co_harness (cuda, gst_caps_ref (caps));
      b = gst_harness_push_and_pull (h, gst_buffer_ref (in));
      fail_unless (b != NULL);
      cur = gst_pad_get_current_caps (h->sinkpad);
      gst_video_info_from_caps (&oinfo, cur);
      gst_caps_unref (cur);
      fail_unless (frames_equal (&oinfo, a, b, &md), "%s %s: max diff %d",
          all_formats[f], cpu, md);
      gst_harness_teardown (h);
      gst_buffer_unref (a);
      gst_buffer_unref (b);
      gst_buffer_unref (in);
      g_free (cpu);
      g_free (cuda);
      g_rand_free (r);
      gst_caps_unref (caps);
    }
  /* and in memory:CUDAMemory both ways, after cudaupload */
  if (gst_element_factory_find ("cudaupload")) {
    GstMessage *m = first_message_after ("video/x-raw, width=160, "
        "height=120, format=RGBA", "cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! cudaomniunwrap backend=cuda "
        "inner-radius=30 ! video/x-raw(memory:CUDAMemory) ! cudadownload",
        GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    const GstStructure *st = m ? gst_message_get_structure (m) : NULL;
    gchar *desc = st ? gst_structure_to_string (st) : NULL;
    gboolean eos = m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;

    if (m)
      gst_message_unref (m);
    fail_unless (eos, "not EOS: %s", desc ? desc : "(nothing)");
    g_free (desc);
  }
}

GST_END_TEST;

/* Runs @desc (its cudaomniunwrap named u) to the end; TRUE with the centre
 * when auto-center posted a circle. */
static gboolean
docs_auto_center (const gchar * desc, gdouble * cx, gdouble * cy)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstBus *bus;
  GstMessage *m;
  GstStructure *st = NULL;
  gboolean found = FALSE, eos = FALSE;

  fail_unless (p != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "?");
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  /* read before NULL, which flushes the bus */
  while (!eos && (m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    const GstStructure *ms = gst_message_get_structure (m);
    fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "%s: an error", desc);
    eos = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
    if (!st && ms && gst_structure_has_name (ms, "cudaomniunwrap-auto-center"))
      st = gst_structure_copy (ms);
    gst_message_unref (m);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  fail_unless (eos, "%s: no EOS", desc);
  fail_unless (st != NULL, "%s: no auto-center message", desc);
  gst_structure_get_boolean (st, "found", &found);
  gst_structure_get_double (st, "center-x", cx);
  gst_structure_get_double (st, "center-y", cy);
  gst_structure_free (st);
  gst_object_unref (bus);
  gst_object_unref (p);
  return found;
}

/* The centroid of the dark pixels within 300 of (400, 400) of an 800x800
 * GRAY8 picture from @desc: the hole of a donut made by circle. */
static void
hole_centroid (const gchar * desc, gdouble * cx, gdouble * cy)
{
  GstElement *p = gst_parse_launch (desc, NULL), *sink;
  GstSample *sample;
  GstMapInfo map;
  gdouble sx = 0, sy = 0, n = 0;
  gint x, y;

  fail_unless (p != NULL);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gst_element_set_state (p, GST_STATE_PLAYING);
  sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  fail_unless (sample != NULL);
  gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ);
  for (y = 0; y < 800; y++)
    for (x = 0; x < 800; x++)
      if ((x - 400) * (x - 400) + (y - 400) * (y - 400) < 300 * 300
          && map.data[y * 800 + x] < 128) {
        sx += x;
        sy += y;
        n++;
      }
  gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
  gst_sample_unref (sample);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  fail_unless (n > 0);
  *cx = sx / n;
  *cy = sy / n;
}

/* auto-center on the docs' own pictures (docs/cudaomniunwrap.md) within
 * half a pixel of where they are drawn.  The donut: circle maps each
 * output pixel's integer indices, its centre x-center x width, so
 * (400, 400) in an 800x800 frame with pixel centres on integers; a white
 * frame through the same circle shows it (the hole's centroid).  Dark rows
 * of the photo reach its rim, as dark as the surround in RGB: the edge
 * found there is inside the rim, and the fit must not follow it (it was
 * 401.6, 403.6).  Its formats: the docs' (BGRx, green), I420 and GRAY8
 * (luma).  mirror.jpg is pipelines/omni-render's, drawn at (499.5, 499.5)
 * (--size 1000). */
GST_START_TEST (test_auto_center_docs_pictures)
{
  const gchar *samples = g_getenv ("CO_SAMPLES_DIR");
  const gchar *convert[] = { "", "videoconvert ! video/x-raw,format=I420 ! ",
    "videoconvert ! video/x-raw,format=GRAY8 ! "
  };
  const gchar *needed[] = { "jpegdec", "imagefreeze" };
  GstElementFactory *circle = gst_element_factory_find ("circle"), *f;
  gdouble cx = 0, cy = 0;
  gchar *d;
  guint i;

  fail_unless (samples != NULL, "CO_SAMPLES_DIR is not set");
  /* -good's, which a bare GStreamer root may lack */
  for (i = 0; i < G_N_ELEMENTS (needed); i++) {
    if (!(f = gst_element_factory_find (needed[i]))) {
      g_print ("no %s: the docs' pictures not checked\n", needed[i]);
      g_clear_object (&circle);
      return;
    }
    gst_object_unref (f);
  }
  d = g_strdup_printf ("filesrc location=%s/mirror.jpg ! jpegdec ! "
      "videoconvert ! imagefreeze num-buffers=1 ! cudaomniunwrap name=u "
      "backend=cpu auto-center=true inner-radius=120 ! fakesink", samples);
  fail_unless (docs_auto_center (d, &cx, &cy), "mirror.jpg: no circle");
  GST_INFO ("mirror.jpg: %.3f, %.3f", cx, cy);
  fail_unless (hypot (cx - 499.5, cy - 499.5) <= 0.5,
      "mirror.jpg: centre %g, %g, drawn at 499.5, 499.5", cx, cy);
  g_free (d);

  if (!circle) {
    g_print ("no circle (gst-plugins-bad): the docs' donut not checked\n");
    return;
  }
  gst_object_unref (circle);
  hole_centroid ("videotestsrc pattern=white num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=800,height=800 ! circle height=250 "
      "spread-angle=6.2832 ! videoconvert ! video/x-raw,format=GRAY8 ! "
      "appsink name=sink", &cx, &cy);
  fail_unless (fabs (cx - 400) < 0.01 && fabs (cy - 400) < 0.01,
      "circle's centre is %g, %g here, not 400, 400", cx, cy);
  for (i = 0; i < G_N_ELEMENTS (convert); i++) {
    d = g_strdup_printf ("filesrc location=%s/building.jpg ! jpegdec ! "
        "videoconvert ! videoscale ! video/x-raw,width=800,height=800,"
        "pixel-aspect-ratio=1/1 ! circle height=250 spread-angle=6.2832 ! "
        "%scudaomniunwrap name=u backend=cpu auto-center=true "
        "inner-radius=200 outer-radius=399 ! fakesink", samples, convert[i]);
    fail_unless (docs_auto_center (d, &cx, &cy), "%s: no circle", d);
    GST_INFO ("donut %u: %.3f, %.3f", i, cx, cy);
    fail_unless (hypot (cx - 400, cy - 400) <= 0.5,
        "the docs' donut (%s): centre %g, %g, drawn at 400, 400",
        convert[i][0] ? convert[i] : "as the docs negotiate", cx, cy);
    g_free (d);
  }
}

GST_END_TEST;

/* The CUDA cases apart: check-cudaomniunwrap-cuda (family-check.h) */
static Suite *
cudaomniunwrap_suite (gboolean cuda)
{
  Suite *s = suite_create ("cudaomniunwrap");
  TCase *tc = tcase_create (cuda ? "cuda" : "polar");
  GstElementFactory *up;

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  if (cuda) {
    tcase_add_loop_test (tc, test_pan_keeps_radii, 1, 2);
    tcase_add_loop_test (tc, test_cuboid_shared_solves, 1, 2);
    tcase_add_test (tc, test_polar_cuda_equals_cpu);
    /* frames in CUDA memory need cudaupload (gst-plugins-bad's nvcodec) */
    up = gst_element_factory_find ("cudaupload");
    if (up)
      tcase_add_test (tc, test_auto_center_cuda);
    else
      g_print ("no cudaupload: auto-center in CUDA memory not run\n");
    g_clear_object (&up);
    return s;
  }
  tcase_add_test (tc, test_polar_straightens);
  tcase_add_test (tc, test_mirror_defaults);
  tcase_add_test (tc, test_polar_sizes);
  tcase_add_test (tc, test_extreme_sizes);
  tcase_add_test (tc, test_polar_bad_geometry);
  tcase_add_test (tc, test_cylinder_scene);
  tcase_add_test (tc, test_cylinder_bad_geometry);
  tcase_add_test (tc, test_cuboid_scene);
  tcase_add_test (tc, test_ground_scene);
  tcase_add_test (tc, test_layouts);
  tcase_add_test (tc, test_zoom);
  tcase_add_loop_test (tc, test_pan_keeps_radii, 0, 1);
  tcase_add_test (tc, test_controlled_zoom_and_pan);
  tcase_add_loop_test (tc, test_cuboid_shared_solves, 0, 1);
  tcase_add_test (tc, test_auto_center);
  tcase_add_test (tc, test_auto_center_docs_pictures);
  return s;
}

CO_CHECK_MAIN (cudaomniunwrap);
