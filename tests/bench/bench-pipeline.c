/* cudaoptics — LGPL-2.1-or-later
 *
 * Frames per second of cudalensdistort in a memory:CUDAMemory pipeline fed
 * by a source that is not the bottleneck: appsrc re-pushing a few frames
 * uploaded once by cudaupload, sharing cudaupload's CUDA context, into
 * `appsrc ! cudalensdistort x K ! fakesink`.
 *
 * Each process spends seconds starting CUDA, so the rate is taken from the
 * difference between two frame counts, and the per-element cost from the
 * difference between K elements and none.
 *
 *   bench-pipeline [WIDTH HEIGHT FORMAT]     (default 1920 1080 RGBA)
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>

#define N_FRAMES 8

static GstBuffer *frames[N_FRAMES];
static GstCaps *frame_caps;
static GstContext *cuda_ctx;
static guint64 pushed, limit;

static void
need_data (GstAppSrc * src, guint length, gpointer data)
{
  GstBuffer *b;

  if (pushed >= limit) {
    gst_app_src_end_of_stream (src);
    return;
  }
  /* a new buffer header over the same CUDA memory */
  b = gst_buffer_copy (frames[pushed % N_FRAMES]);
  GST_BUFFER_PTS (b) = pushed * GST_SECOND / 1000;
  GST_BUFFER_DURATION (b) = GST_SECOND / 1000;
  pushed++;
  gst_app_src_push_buffer (src, b);
}

static GstBusSyncReply
give_context (GstBus * bus, GstMessage * msg, gpointer data)
{
  const gchar *type = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      g_strcmp0 (type, gst_context_get_context_type (cuda_ctx)) == 0)
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), cuda_ctx);
  return GST_BUS_PASS;
}

static gboolean
upload (gint w, gint h, const gchar * format)
{
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=%d "
      "pattern=ball ! video/x-raw,format=%s,width=%d,height=%d ! "
      "cudaupload name=up ! video/x-raw(memory:CUDAMemory) ! "
      "appsink name=out sync=false max-buffers=%d", N_FRAMES, format, w, h,
      N_FRAMES);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstElement *up = gst_bin_get_by_name (GST_BIN (pipe), "up");
  GstQuery *q;
  gint i;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (i = 0; i < N_FRAMES; i++) {
    GstSample *s = gst_app_sink_pull_sample (GST_APP_SINK (sink));
    if (!s)
      return FALSE;
    frames[i] = gst_buffer_ref (gst_sample_get_buffer (s));
    if (!frame_caps)
      frame_caps = gst_caps_ref (gst_sample_get_caps (s));
    gst_sample_unref (s);
  }
  q = gst_query_new_context ("gst.cuda.context");
  if (gst_element_query (up, q))
    gst_query_parse_context (q, &cuda_ctx);
  if (cuda_ctx)
    gst_context_ref (cuda_ctx);
  gst_query_unref (q);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (up);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  return cuda_ctx != NULL;
}

/* Seconds to push @n frames through @k elements, and the warnings seen. */
static gdouble
run (gint k, guint64 n, gint * warnings)
{
  GString *d = g_string_new ("appsrc name=src format=time ");
  GstElement *pipe, *src;
  GstBus *bus;
  GstMessage *m;
  gint64 t0;
  gint i;

  for (i = 0; i < k; i++)
    g_string_append_printf (d, "! cudalensdistort k1=%g ", -0.2 - 0.01 * i);
  g_string_append (d, "! fakesink sync=false");
  pipe = gst_parse_launch (d->str, NULL);
  bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, give_context, NULL, NULL);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  g_object_set (src, "caps", frame_caps, NULL);
  g_signal_connect (src, "need-data", G_CALLBACK (need_data), NULL);
  pushed = 0;
  limit = n;
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  t0 = g_get_monotonic_time ();
  *warnings = 0;
  while ((m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GstMessageType t = GST_MESSAGE_TYPE (m);
    if (t == GST_MESSAGE_WARNING || t == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      if (t == GST_MESSAGE_WARNING)
        gst_message_parse_warning (m, &e, NULL);
      else
        gst_message_parse_error (m, &e, NULL);
      g_printerr ("%s: %s\n", t == GST_MESSAGE_ERROR ? "ERROR" : "warning",
          e->message);
      g_error_free (e);
      (*warnings)++;
    }
    gst_message_unref (m);
    if (t != GST_MESSAGE_WARNING)
      break;
  }
  t0 = g_get_monotonic_time () - t0;
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_string_free (d, TRUE);
  return t0 / 1e6;
}

int
main (int argc, char **argv)
{
  gint w = argc > 2 ? atoi (argv[1]) : 1920, h = argc > 2 ? atoi (argv[2]) :
      1080, ks[] = { 0, 1, 4 }, i, warn = 0;
  const gchar *format = argc > 3 ? argv[3] : "RGBA";
  const guint64 n1 = 1000, n2 = 6000;
  gdouble base = 0;

  gst_init (&argc, &argv);
  if (!upload (w, h, format)) {
    g_printerr ("could not upload frames with cudaupload (no GPU?)\n");
    return 2;
  }
  g_print ("| %dx%d %s, CUDA memory | frames/s | ms per frame | ms per "
      "element |\n|---|---|---|---|\n", w, h, format);
  for (i = 0; i < (gint) G_N_ELEMENTS (ks); i++) {
    gint w1, w2;
    gdouble t1 = run (ks[i], n1, &w1), t2 = run (ks[i], n2, &w2);
    gdouble per = (t2 - t1) / (n2 - n1) * 1e3;
    warn += w1 + w2;
    if (ks[i] == 0)
      base = per;
    g_print ("| appsrc ! %d x cudalensdistort ! fakesink | %.0f | %.4f | %s |\n",
        ks[i], 1e3 / per, per, ks[i] ? g_strdup_printf ("%.4f",
            (per - base) / ks[i]) : "-");
  }
  g_print ("warnings/errors: %d\n", warn);
  return warn ? 1 : 0;
}
