/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter's contract with its subclasses, through a test-only
 * subclass (an inverter, on both backends' CPU path here): what set_info
 * sees on renegotiation.
 */
#include "family-check.h"
#include "gstcobasefilter.h"

typedef struct
{
  GstCoBaseFilter parent;
  gint set_info_calls, mismatches;
} TestFilter;

typedef struct
{
  GstCoBaseFilterClass parent_class;
} TestFilterClass;

GType test_filter_get_type (void);
G_DEFINE_TYPE (TestFilter, test_filter, GST_TYPE_CO_BASE_FILTER);

/* the infos given and the ones stored must be the same, new ones */
static gboolean
test_filter_set_info (GstCoBaseFilter * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info)
{
  TestFilter *self = (TestFilter *) base;

  self->set_info_calls++;
  if (GST_VIDEO_INFO_WIDTH (&base->in.info) != GST_VIDEO_INFO_WIDTH (in_info)
      || GST_VIDEO_INFO_HEIGHT (&base->out.info) !=
      GST_VIDEO_INFO_HEIGHT (out_info)
      || GST_VIDEO_INFO_FORMAT (&base->in.info) !=
      GST_VIDEO_INFO_FORMAT (in_info))
    self->mismatches++;
  return TRUE;
}

static GstFlowReturn
test_filter_process (GstCoBaseFilter * base, const CoFrame * in,
    CoFrame * out)
{
  int y;

  if (base->engine.active_backend != GST_CO_BACKEND_CPU)
    return GST_FLOW_NOT_SUPPORTED;
  for (y = 0; y < in->height; y++) {
    const uint8_t *s = in->data[0] + (size_t) y * in->pitch[0];
    uint8_t *d = out->data[0] + (size_t) y * out->pitch[0];
    int x;
    for (x = 0; x < in->width; x++)
      d[x] = (uint8_t) (255 - s[x]);
  }
  return GST_FLOW_OK;
}

static void
test_filter_class_init (TestFilterClass * klass)
{
  GstCoBaseFilterClass *fc = GST_CO_BASE_FILTER_CLASS (klass);

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "test filter", "Filter/Video", "inverts GRAY8", "cudaoptics tests");
  gst_co_base_filter_class_add_video_templates (GST_ELEMENT_CLASS (klass),
      "GRAY8", 4096);
  fc->set_info = test_filter_set_info;
  fc->process = test_filter_process;
}

static void
test_filter_init (TestFilter * self)
{
}

GST_START_TEST (test_set_info_sees_new_caps)
{
  GstElement *e = g_object_new (test_filter_get_type (), "backend",
      GST_CO_BACKEND_CPU, NULL);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  TestFilter *tf = (TestFilter *) e;
  const gint sizes[][2] = { {64, 48}, {33, 7}, {64, 48} };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    GstCaps *caps = video_caps ("GRAY8", sizes[i][0], sizes[i][1]);
    GstVideoInfo info;
    GstBuffer *in, *out;
    GstMapInfo a, b;

    gst_harness_set_src_caps (h, gst_caps_ref (caps));
    gst_video_info_from_caps (&info, caps);
    in = make_frame (&info, NULL, TRUE);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    gst_buffer_map (in, &a, GST_MAP_READ);
    gst_buffer_map (out, &b, GST_MAP_READ);
    fail_unless_equals_int (b.data[0], 255 - a.data[0]);
    gst_buffer_unmap (in, &a);
    gst_buffer_unmap (out, &b);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_caps_unref (caps);
  }
  fail_unless_equals_int (tf->set_info_calls, 3);
  fail_unless_equals_int (tf->mismatches, 0);
  gst_harness_teardown (h);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
basefilter_suite (void)
{
  Suite *s = suite_create ("basefilter");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_set_info_sees_new_caps);
  return s;
}

GST_CHECK_MAIN (basefilter);
