/* cudaoptics — LGPL-2.1-or-later
 *
 * Failures injected through CO_FAULT_INJECT (common/gstcobasefilter.c) on
 * the CPU backend, so that CI without a GPU covers the error paths: a failed
 * allocation is a clear element error, and a table whose rebuild failed is
 * never used afterwards.  The GPU suite repeats these on CUDA.
 */
#include "family-check.h"

GST_START_TEST (test_failed_rebuild)
{
  GstCaps *small = video_caps ("RGBA", 160, 120);
  GstCaps *large = video_caps ("NV12", 640, 480);

  /* a larger frame: the table is freed and its replacement fails */
  failed_rebuild_case ("cudalensdistort backend=cpu k1=-0.3", "alloc:2",
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT, "Out of memory",
      small, "k1=-0.3", large, "cudalensdistort backend=cpu k1=-0.3");
  /* new geometry and a first table (lut=none had none), which fails */
  failed_rebuild_case ("cudalensdistort backend=cpu k1=-0.3 lut=none",
      "alloc:1", GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
      "Out of memory", small, "k1=-0.1 lut=compressed", small,
      "cudalensdistort backend=cpu k1=-0.1");
  gst_caps_unref (small);
  gst_caps_unref (large);
}

GST_END_TEST;

/* Unset, the facility is inert: nothing fails, whatever the allocations. */
GST_START_TEST (test_injection_inert)
{
  GstCaps *caps = video_caps (all_formats[8], 96, 64);  /* I420 */
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GRand *rand = g_rand_new_with_seed (42);
  GstVideoInfo info;
  GstBuffer *in;
  gint i;

  g_unsetenv ("CO_FAULT_INJECT");
  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, FALSE);
  h = co_harness ("cudalensdistort backend=cpu k1=-0.2", caps);
  gst_element_set_bus (h->element, bus);
  for (i = 0; i < 5; i++) {
    apply_props (h, i % 2 ? "lut=two-table" : "lut=compressed");
    gst_buffer_unref (gst_harness_push_and_pull (h, gst_buffer_ref (in)));
  }
  fail_unless (pop_error (bus, 0) == NULL);
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_END_TEST;

static Suite *
faults_suite (void)
{
  Suite *s = suite_create ("faults");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_failed_rebuild);
  tcase_add_test (tc, test_injection_inert);
  return s;
}

GST_CHECK_MAIN (faults);
