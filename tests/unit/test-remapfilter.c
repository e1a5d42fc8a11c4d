/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoRemapFilter's contract with a subclass that gives only map_cpu, on
 * the CPU backend: a mirror shifted by the property `shift`, so that part
 * of every row falls off the source.  Checks the pixels of every off-edge
 * mode and lut strategy (`none` falls back to float tables without a remap
 * vfunc), that a property change rebuilds the table between two frames,
 * and when prepare sees new caps.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include "gstcoremapfilter.h"

/* ---- the test element ---- */

typedef struct
{
  GstCoRemapFilter parent;
  gint shift;                   /* under the object lock */
  gint snap_shift;              /* streaming thread */
  gint prepared, new_caps;
} GstTestRemap;

typedef struct
{
  GstCoRemapFilterClass parent_class;
} GstTestRemapClass;

GType gst_test_remap_get_type (void);
G_DEFINE_TYPE (GstTestRemap, gst_test_remap, GST_TYPE_CO_REMAP_FILTER);

static void
test_remap_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstTestRemap *self = (GstTestRemap *) object;

  GST_OBJECT_LOCK (self);
  self->shift = g_value_get_int (value);
  gst_co_remap_filter_mark_dirty (GST_CO_REMAP_FILTER (self));
  GST_OBJECT_UNLOCK (self);
}

static void
test_remap_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstTestRemap *self = (GstTestRemap *) object;

  GST_OBJECT_LOCK (self);
  g_value_set_int (value, self->shift);
  GST_OBJECT_UNLOCK (self);
}

static gboolean
test_remap_prepare (GstCoRemapFilter * remap, CoLut * lut,
    gboolean new_caps)
{
  GstTestRemap *self = (GstTestRemap *) remap;

  GST_OBJECT_LOCK (self);
  self->snap_shift = self->shift;
  GST_OBJECT_UNLOCK (self);
  self->prepared++;
  self->new_caps += new_caps;
  return TRUE;
}

static gboolean
test_remap_map_cpu (GstCoRemapFilter * remap, const CoLut * lut, gint g,
    gfloat * x, gfloat * y, gint pitch)
{
  GstTestRemap *self = (GstTestRemap *) remap;
  const CoLutPlane *pl = &lut->plane[g];
  gint r, c;

  for (r = 0; r < pl->height; r++)
    for (c = 0; c < pl->width; c++) {
      x[r * pitch + c] = (gfloat) (pl->src_width - 1 - c +
          (self->snap_shift >> g));
      y[r * pitch + c] = (gfloat) r;
    }
  return TRUE;
}

static void
gst_test_remap_class_init (GstTestRemapClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstCoRemapFilterClass *rc = GST_CO_REMAP_FILTER_CLASS (klass);

  oc->set_property = test_remap_set_property;
  oc->get_property = test_remap_get_property;
  g_object_class_install_property (oc, 1, g_param_spec_int ("shift", "Shift",
          "Pixels the mirror is shifted by", -1000, 1000, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "Test remap", "Filter/Effect/Video", "Shifted mirror", "cudaoptics");
  gst_co_base_filter_class_add_video_templates (GST_ELEMENT_CLASS (klass),
      "{ RGBA, GRAY8, I420 }", 4096);
  rc->prepare = test_remap_prepare;
  rc->map_cpu = test_remap_map_cpu;
}

static void
gst_test_remap_init (GstTestRemap * self)
{
}

/* ---- tests ---- */

static const gchar *edges[] = { "border", "clamp", "wrap" };
static const gchar *luts[] = { "compressed", "two-table", "none" };

#define W 37
#define H 5
#define BORDER 0x80

/* GRAY8: the shifted mirror with the off-edge mode applied */
static void
check_gray (GstBuffer * in, GstBuffer * out, gint shift, gint edge)
{
  GstMapInfo mi, mo;
  gint x, y;

  fail_unless (gst_buffer_map (in, &mi, GST_MAP_READ));
  fail_unless (gst_buffer_map (out, &mo, GST_MAP_READ));
  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++) {
      gint sx = W - 1 - x + shift, want;
      if (edge == 1)
        sx = CLAMP (sx, 0, W - 1);
      else if (edge == 2)
        sx = ((sx % W) + W) % W;
      /* GRAY8 rows are padded to 4 bytes */
      want = (sx < 0 || sx >= W) ? BORDER : mi.data[y * 40 + sx];
      fail_unless_equals_int (mo.data[y * 40 + x], want);
    }
  gst_buffer_unmap (in, &mi);
  gst_buffer_unmap (out, &mo);
}

static GstBuffer *
gray_frame (void)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, 40 * H, NULL);
  GstMapInfo m;
  gint i;

  gst_buffer_map (b, &m, GST_MAP_WRITE);
  for (i = 0; i < 40 * H; i++)
    m.data[i] = (guint8) (i * 7 + 3);
  gst_buffer_unmap (b, &m);
  return b;
}

GST_START_TEST (test_pixels)
{
  GstBuffer *in = gray_frame ();
  guint e, l;

  for (e = 0; e < 3; e++)
    for (l = 0; l < 3; l++) {
      gchar *desc = g_strdup_printf ("testremap backend=cpu shift=5 "
          "interpolation=nearest border-color=0xff808080 off-edge=%s lut=%s",
          edges[e], luts[l]);
      GstHarness *h = gst_harness_new_parse (desc);
      GstBuffer *out;

      gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=37,"
          "height=5,framerate=30/1");
      out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
      fail_unless (out != NULL);
      check_gray (in, out, 5, e);
      gst_buffer_unref (out);
      gst_harness_teardown (h);
      g_free (desc);
    }
  gst_buffer_unref (in);
}

GST_END_TEST;

/* A property change is seen on the next frame, through prepare; new caps
 * only on the first build after negotiation. */
GST_START_TEST (test_rebuild)
{
  GstHarness *h = gst_harness_new_parse ("testremap backend=cpu "
      "interpolation=nearest border-color=0xff808080");
  GstTestRemap *t = (GstTestRemap *) gst_harness_find_element (h,
      "testremap");
  GstBuffer *in = gray_frame (), *out;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=37,"
      "height=5,framerate=30/1");
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  check_gray (in, out, 0, 0);
  gst_buffer_unref (out);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  gst_buffer_unref (out);
  fail_unless_equals_int (t->prepared, 1);
  fail_unless_equals_int (t->new_caps, 1);

  g_object_set (t, "shift", -9, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  check_gray (in, out, -9, 0);
  gst_buffer_unref (out);
  g_object_set (t, "off-edge", 2, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  check_gray (in, out, -9, 2);
  gst_buffer_unref (out);
  fail_unless_equals_int (t->prepared, 3);
  fail_unless_equals_int (t->new_caps, 1);

  gst_object_unref (t);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Subsampled planes get their own geometry (a map per plane). */
GST_START_TEST (test_i420)
{
  GstHarness *h = gst_harness_new_parse ("testremap backend=cpu shift=4 "
      "off-edge=wrap lut=two-table");
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame fi, fo;
  guint p;
  gint x, y;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 16);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  in = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_memset (in, 0, 0, GST_VIDEO_INFO_SIZE (&info));
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_WRITE));
  for (p = 0; p < 3; p++)
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fi, p); y++)
      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&fi, p); x++)
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi, p))[y *
            GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p) + x] = (guint8) (x + 3 * p);
  gst_video_frame_unmap (&fi);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
  for (p = 0; p < 3; p++) {
    gint pw = GST_VIDEO_FRAME_COMP_WIDTH (&fo, p), s = p ? 2 : 4;
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fo, p); y++)
      for (x = 0; x < pw; x++)
        fail_unless_equals_int (((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo,
                    p))[y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, p) + x],
            ((pw - 1 - x + s) % pw) + 3 * p);
  }
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
remapfilter_suite (void)
{
  Suite *s = suite_create ("remapfilter");
  TCase *tc = tcase_create ("cpu");

  gst_element_register (NULL, "testremap", GST_RANK_NONE,
      gst_test_remap_get_type ());
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pixels);
  tcase_add_test (tc, test_rebuild);
  tcase_add_test (tc, test_i420);
  return s;
}

GST_CHECK_MAIN (remapfilter);
