/* cudaoptics — LGPL-2.1-or-later
 *
 * Failures injected through CO_FAULT_INJECT (common/gstcobasefilter.c) on
 * the CPU backend, so that CI without a GPU covers the error paths: a failed
 * allocation is a clear element error, and a table whose rebuild failed is
 * never used afterwards.  The GPU suite repeats these on CUDA.
 */
#include "lensdistort-common.h"

static GstMessage *
pop_error (GstBus * bus)
{
  return gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
}

static void
expect_no_space (GstMessage * m)
{
  GError *e = NULL;
  gchar *dbg = NULL;

  fail_unless (m != NULL, "no error message");
  gst_message_parse_error (m, &e, &dbg);
  fail_unless (e->domain == GST_RESOURCE_ERROR &&
      e->code == GST_RESOURCE_ERROR_NO_SPACE_LEFT, "%s", e->message);
  fail_unless (strstr (e->message, "Out of memory") != NULL, "%s", e->message);
  g_error_free (e);
  g_free (dbg);
  gst_message_unref (m);
}

/* The first table allocation after @change fails (@caps2: a larger frame,
 * so the table is reallocated).  The next frame must be rebuilt from the
 * current settings, not read from a freed or stale table; a restart works. */
static void
failed_rebuild (const gchar * props1, GstCaps * caps1, const gchar * change,
    GstCaps * caps2, const gchar * ref_desc, const gchar * spec)
{
  gchar *desc = g_strdup_printf ("cudalensdistort backend=cpu %s", props1);
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GRand *rand = g_rand_new_with_seed (41);
  GstVideoInfo i1, i2;
  GstBuffer *a, *b, *out, *ref;
  GstSegment seg;
  gint md = -1;

  gst_video_info_from_caps (&i1, caps1);
  gst_video_info_from_caps (&i2, caps2);
  a = make_frame (&i1, rand, FALSE);
  b = make_frame (&i2, rand, FALSE);
  ref = run_frame (ref_desc, caps2, b);

  /* read when the element starts */
  g_setenv ("CO_FAULT_INJECT", spec, TRUE);
  h = lens_harness (desc, gst_caps_ref (caps1));
  g_unsetenv ("CO_FAULT_INJECT");
  gst_element_set_bus (h->element, bus);

  out = gst_harness_push_and_pull (h, gst_buffer_ref (a));
  fail_unless (out != NULL);
  gst_buffer_unref (out);

  apply_props (h, change);
  if (caps2 != caps1)
    gst_harness_set_src_caps (h, gst_caps_ref (caps2));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (b)),
      GST_FLOW_ERROR);
  expect_no_space (pop_error (bus));

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (b)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  frames_equal (&i2, out, ref, &md);
  fail_unless (md == 0, "[%s] -> [%s]: stale table after a failed rebuild "
      "(differs by %d)", props1, change, md);
  gst_buffer_unref (out);

  fail_unless (gst_element_set_state (h->element, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (h->element, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_harness_push_event (h, gst_event_new_stream_start ("restart"));
  gst_harness_push_event (h, gst_event_new_caps (caps2));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (b));
  fail_unless (out != NULL);
  fail_unless (frames_equal (&i2, out, ref, NULL), "after the restart");
  gst_buffer_unref (out);
  fail_unless (pop_error (bus) == NULL);

  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (ref);
  g_rand_free (rand);
  g_free (desc);
}

GST_START_TEST (test_failed_rebuild)
{
  GstCaps *small = video_caps ("RGBA", 160, 120);
  GstCaps *large = video_caps ("NV12", 640, 480);

  /* a larger frame: the table is freed and its replacement fails */
  failed_rebuild ("k1=-0.3", small, "k1=-0.3", large,
      "cudalensdistort backend=cpu k1=-0.3", "alloc:2");
  /* new geometry and a first table (lut=none had none), which fails */
  failed_rebuild ("k1=-0.3 lut=none", small, "k1=-0.1 lut=compressed", small,
      "cudalensdistort backend=cpu k1=-0.1", "alloc:1");
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
  h = lens_harness ("cudalensdistort backend=cpu k1=-0.2", caps);
  gst_element_set_bus (h->element, bus);
  for (i = 0; i < 5; i++) {
    apply_props (h, i % 2 ? "lut=two-table" : "lut=compressed");
    gst_buffer_unref (gst_harness_push_and_pull (h, gst_buffer_ref (in)));
  }
  fail_unless (pop_error (bus) == NULL);
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
