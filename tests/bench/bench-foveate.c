/* cudaoptics — LGPL-2.1-or-later
 *
 * cudafoveate in a pipeline, `appsrc ! cudafoveate ! fakesink`, frames in
 * memory:CUDAMemory (uploaded once by cudaupload): ms per frame and frames
 * per second at 1080p and 4K RGBA, fragments of 8, 16 and 32, fixation in
 * the centre and in a corner, strengths 1 and 2, each beside the device
 * copy of one frame measured in the same run; and with the fixation moving
 * every frame (follow-pointer: the filter table rebuilt and uploaded before
 * each frame).  The rate is the difference between two frame counts (CUDA
 * start-up is excluded).  The kernel alone is timed with ncu (README).
 *
 *   bench-foveate            (exit 2 without a GPU or without the element)
 */
#include <gst/video/video.h>
#include <stdlib.h>
#include <string.h>
#include "bench-app.h"
#include "bench-cuda.h"

static GstElement *fovea;
static gboolean moving;

static void
need_data (GstAppSrc * src, guint length, gpointer data)
{
  if (moving && pushed < limit)
    g_object_set (fovea, "fixation-x", 0.25 + 0.5 * (pushed % 100) / 100.0,
        NULL);
  bench_push (src);
}

/* Seconds for @n frames; -1 on an error. */
static gdouble
run (const gchar * props, guint64 n)
{
  gchar *d = g_strdup_printf ("appsrc name=src format=time ! cudafoveate "
      "name=f backend=cuda %s ! fakesink sync=false", props);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (d, &err), *src;
  GstBus *bus;
  GstMessage *m;
  gint64 t0;
  gdouble ret = -1;

  if (err) {
    /* e.g. no element: GST_PLUGIN_PATH must name the build's gst/ */
    g_printerr ("%s: %s\n", d, err->message);
    g_error_free (err);
    exit (2);
  }
  bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, bench_give_context, NULL, NULL);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  fovea = gst_bin_get_by_name (GST_BIN (pipe), "f");
  g_object_set (src, "caps", frame_caps, NULL);
  g_signal_connect (src, "need-data", G_CALLBACK (need_data), NULL);
  pushed = 0;
  limit = n;
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  t0 = g_get_monotonic_time ();
  m = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND, GST_MESSAGE_EOS |
      GST_MESSAGE_ERROR);
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS)
    ret = (g_get_monotonic_time () - t0) / 1e6;
  else if (m) {
    GError *e = NULL;
    gst_message_parse_error (m, &e, NULL);
    g_printerr ("ERROR in %s: %s\n", d, e->message);
    g_error_free (e);
  }
  gst_clear_message (&m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (fovea);
  gst_object_unref (src);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_free (d);
  return ret;
}

/* ms per frame from two counts */
static gdouble
per_frame (const gchar * props, guint64 n1, guint64 n2)
{
  gdouble t1 = run (props, n1), t2 = run (props, n2);
  return t1 < 0 || t2 < 0 ? -1 : (t2 - t1) / (n2 - n1) * 1e3;
}

int
main (int argc, char **argv)
{
  static const gint sizes[][2] = { {1920, 1080}, {3840, 2160} };
  static const gint fragments[] = { 8, 16, 32 };
  static const gchar *fixations[] = { "fixation-x=0.5 fixation-y=0.5",
    "fixation-x=0 fixation-y=0"
  };
  static const gdouble strengths[] = { 1.0, 2.0 };
  guint s, f, x, k;
  gint dev = 0;

  gst_init (&argc, &argv);
  if (cudaGetDeviceCount (&dev) != cudaSuccess || dev < 1) {
    g_printerr ("no CUDA device\n");
    return 2;
  }
  g_print ("| frame | fragment | fixation | strength | copy ms | ms per frame "
      "(x copy) | frames/s | moving fixation ms |\n"
      "|---|---:|---|---:|---:|---:|---:|---:|\n");
  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    gdouble copy;

    if (!bench_test_frames (sizes[s][0], sizes[s][1], "RGBA", "smpte", TRUE))
      return 2;
    copy = copy_ms (sizes[s][0], sizes[s][1]);
    for (f = 0; f < G_N_ELEMENTS (fragments); f++)
      for (x = 0; x < G_N_ELEMENTS (fixations); x++)
        for (k = 0; k < G_N_ELEMENTS (strengths); k++) {
          gchar *props = g_strdup_printf ("fragment-size=%d strength=%g %s",
              fragments[f], strengths[k], fixations[x]);
          gdouble ms, mv;

          moving = FALSE;
          ms = per_frame (props, 200, 1200);
          moving = TRUE;
          mv = per_frame (props, 50, 250);
          g_print ("| %dx%d | %d | %s | %g | %.4f | %.4f (%.1f) | %.0f | "
              "%.4f |\n", sizes[s][0], sizes[s][1], fragments[f],
              x ? "corner" : "centre", strengths[k], copy, ms, ms / copy,
              1e3 / ms, mv);
          g_free (props);
        }
  }
  bench_clear_frames ();
  return 0;
}
