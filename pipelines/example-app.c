/* cudaoptics — LGPL-2.1-or-later
 *
 * Embedding cudalensdistort in a C application: build a pipeline, animate a
 * property while PLAYING, and handle the bus (the backend warning, errors).
 *
 *   example-app [N_FRAMES]
 */
#include <gst/gst.h>

int
main (int argc, char **argv)
{
  GstElement *pipe, *lens;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  gint frames = argc > 1 ? atoi (argv[1]) : 300, i, backend;
  gchar *launch;

  gst_init (&argc, &argv);
  /* videotestsrc stands in for a camera (v4l2src, nvarguscamerasrc, ...) */
  launch = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "video/x-raw,format=NV12,width=1280,height=720 ! "
      "cudalensdistort name=lens model=hmd stereo=true ! fakesink", frames);
  pipe = gst_parse_launch (launch, &err);
  g_free (launch);
  if (!pipe) {
    g_printerr ("could not build the pipeline: %s\n", err->message);
    return 1;
  }
  lens = gst_bin_get_by_name (GST_BIN (pipe), "lens");
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);

  for (i = 0;; i++) {
    msg = gst_bus_timed_pop_filtered (bus, 10 * GST_MSECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    /* a slowly breathing lens: every property can change while PLAYING */
    g_object_set (lens, "k1", -0.3 * (i % 100) / 100.0, NULL);
    if (!msg)
      continue;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (msg, &err, NULL);
      g_printerr ("warning: %s\n", err->message);       /* e.g. CPU fallback */
      g_clear_error (&err);
      gst_message_unref (msg);
      continue;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      g_printerr ("error: %s\n", err->message);
      g_clear_error (&err);
    }
    gst_message_unref (msg);
    break;
  }
  g_object_get (lens, "active-backend", &backend, NULL);
  g_print ("processed %d frames on the %s backend\n", frames,
      backend == 1 ? "CUDA" : "CPU");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (lens);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return 0;
}
