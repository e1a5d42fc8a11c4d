/* cudaoptics — LGPL-2.1-or-later
 *
 * Failures injected through CO_FAULT_INJECT (common/filter/gstcobasefilter.c) on
 * the CPU backend, so that CI without a GPU covers the error paths: a failed
 * allocation is a clear element error, and a table whose rebuild failed is
 * never used afterwards.  The GPU suite repeats these on CUDA; the CUDA
 * backend's own start is check-faults-cuda (skipped without a device).
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

/* The CUDA event cannot be created when the backend starts, after its
 * stream was: backend=auto falls back to the CPU with a warning saying
 * why, backend=cuda fails to start saying why, and either element, started
 * again without the fault, runs on CUDA (the failed start let its stream
 * go rather than keep it for the next). */
GST_START_TEST (test_event_creation_fails)
{
  const gchar *backends[] = { "auto", "cuda" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (backends); i++) {
    gchar *launch = g_strdup_printf ("videotestsrc num-buffers=2 ! "
        "video/x-raw,width=160,height=120 ! cudalensdistort name=e "
        "backend=%s k1=-0.3 ! fakesink", backends[i]);
    GstElement *p = gst_parse_launch (launch, NULL), *e;
    GstBus *bus = gst_element_get_bus (p);
    GstMessage *m;
    GError *err = NULL;
    gint active = -1;

    e = gst_bin_get_by_name (GST_BIN (p), "e");
    /* read when the element starts */
    g_setenv ("CO_FAULT_INJECT", "creating a CUDA event", TRUE);
    gst_element_set_state (p, GST_STATE_PLAYING);
    g_unsetenv ("CO_FAULT_INJECT");
    m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, i ?
        GST_MESSAGE_ERROR : GST_MESSAGE_WARNING);
    fail_unless (m != NULL, "backend=%s: nothing said", backends[i]);
    if (i)
      gst_message_parse_error (m, &err, NULL);
    else
      gst_message_parse_warning (m, &err, NULL);
    fail_unless (strstr (err->message, "creating a CUDA event") != NULL,
        "backend=%s: %s", backends[i], err->message);
    g_clear_error (&err);
    gst_message_unref (m);
    if (!i) {
      g_object_get (e, "active-backend", &active, NULL);
      fail_unless_equals_int (active, GST_CO_BACKEND_CPU);
    }
    gst_element_set_state (p, GST_STATE_NULL);

    gst_element_set_state (p, GST_STATE_PLAYING);
    m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_EOS |
        GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    fail_unless (m != NULL && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS,
        "backend=%s: no EOS once the fault is gone", backends[i]);
    gst_message_unref (m);
    g_object_get (e, "active-backend", &active, NULL);
    fail_unless_equals_int (active, GST_CO_BACKEND_CUDA);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (e);
    gst_object_unref (bus);
    gst_object_unref (p);
    g_free (launch);
  }
}

GST_END_TEST;

/* The CUDA cases apart: check-faults-cuda (family-check.h) */
static Suite *
faults_suite (gboolean cuda)
{
  Suite *s = suite_create ("faults");
  TCase *tc = tcase_create (cuda ? "cuda" : "cpu");

  suite_add_tcase (s, tc);
  if (cuda) {
    tcase_add_test (tc, test_event_creation_fails);
    return s;
  }
  tcase_add_test (tc, test_failed_rebuild);
  tcase_add_test (tc, test_injection_inert);
  return s;
}

CO_CHECK_MAIN (faults);
