/* cudaoptics — LGPL-2.1-or-later
 *
 * What the pipeline benchmarks share: a few prepared frames that appsrc
 * pushes again and again (new buffer headers over the same memory), made
 * by videotestsrc and, for CUDA, uploaded once by cudaupload whose CUDA
 * context the benchmarked pipeline is then given.
 */
#ifndef BENCH_APP_H
#define BENCH_APP_H

#include <stdlib.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>

#define N_FRAMES 8

static GstBuffer *frames[N_FRAMES];
static GstCaps *frame_caps;
static GstContext *cuda_ctx;
static guint64 pushed, limit;

/* bench_pin: move the frames into the buffer pool the element after appsrc
 * proposes (its pinned host memory on the CUDA backend), as an application
 * that wants its frames DMA'd at full rate does (docs/performance.md):
 * an ALLOCATION query from appsrc's pad, that pool configured with the
 * query's allocator, frames written into its buffers.  Tried at every push
 * until the element answers (a transform answers once caps are set). */
static gboolean bench_pin, bench_pinned;
static GstBufferPool *bench_pool;

static gboolean
bench_pin_frames (GstAppSrc * src)
{
  GstPad *pad = gst_element_get_static_pad (GST_ELEMENT (src), "src");
  GstQuery *q = gst_query_new_allocation (frame_caps, TRUE);
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean ok = FALSE;
  gint i;

  if (gst_pad_peer_query (pad, q) && gst_query_get_n_allocation_pools (q) > 0)
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
  if (pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, frame_caps, size, N_FRAMES,
        0);
    if (gst_query_get_n_allocation_params (q) > 0) {
      GstAllocator *a = NULL;
      GstAllocationParams params;
      gst_query_parse_nth_allocation_param (q, 0, &a, &params);
      gst_buffer_pool_config_set_allocator (config, a, &params);
      gst_clear_object (&a);
    }
    ok = gst_buffer_pool_set_config (pool, config) &&
        gst_buffer_pool_set_active (pool, TRUE);
    for (i = 0; ok && i < N_FRAMES; i++) {
      GstBuffer *b = NULL;
      GstMapInfo m;
      ok = gst_buffer_pool_acquire_buffer (pool, &b, NULL) == GST_FLOW_OK &&
          gst_buffer_map (frames[i], &m, GST_MAP_READ);
      if (ok) {
        gst_buffer_fill (b, 0, m.data, MIN (m.size, gst_buffer_get_size (b)));
        gst_buffer_unmap (frames[i], &m);
        gst_buffer_unref (frames[i]);
        frames[i] = b;
      } else if (b) {
        gst_buffer_unref (b);
      }
    }
    /* a pool of an earlier pipeline's element goes once its frames have
     * left it */
    if (bench_pool && bench_pool != pool) {
      gst_buffer_pool_set_active (bench_pool, FALSE);
      gst_object_unref (bench_pool);
    }
    bench_pool = pool;
  }
  gst_query_unref (q);
  gst_object_unref (pad);
  return ok;
}

/* The next frame, or end of stream once @limit frames went. */
static G_GNUC_UNUSED void
bench_push (GstAppSrc * src)
{
  GstBuffer *b;

  if (bench_pin && !bench_pinned && pushed > 0)
    bench_pinned = bench_pin_frames (src);
  if (pushed >= limit) {
    gst_app_src_end_of_stream (src);
    return;
  }
  b = gst_buffer_copy (frames[pushed % N_FRAMES]);
  GST_BUFFER_PTS (b) = pushed * GST_SECOND / 1000;
  GST_BUFFER_DURATION (b) = GST_SECOND / 1000;
  pushed++;
  gst_app_src_push_buffer (src, b);
}

/* A bus sync handler handing every element that asks cudaupload's context. */
static GstBusSyncReply
bench_give_context (GstBus * bus, GstMessage * msg, gpointer data)
{
  const gchar *type = NULL;

  if (cuda_ctx && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      g_strcmp0 (type, gst_context_get_context_type (cuda_ctx)) == 0)
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), cuda_ctx);
  return GST_BUS_PASS;
}

static void
bench_clear_frames (void)
{
  gint i;

  for (i = 0; i < N_FRAMES; i++)
    gst_clear_buffer (&frames[i]);
  gst_clear_caps (&frame_caps);
  if (bench_pool)
    gst_buffer_pool_set_active (bench_pool, FALSE);
  gst_clear_object (&bench_pool);
  bench_pinned = FALSE;
  if (cuda_ctx)
    gst_context_unref (cuda_ctx);
  cuda_ctx = NULL;
}

static gboolean bench_source_frames (const gchar * source, gint w, gint h,
    const gchar * format, gboolean cuda);

/* N_FRAMES frames of videotestsrc @pattern, in memory:CUDAMemory through
 * cudaupload (@cuda; its context kept for the pipelines) or on the host. */
static G_GNUC_UNUSED gboolean
bench_test_frames (gint w, gint h, const gchar * format,
    const gchar * pattern, gboolean cuda)
{
  gchar *src = g_strdup_printf ("videotestsrc num-buffers=%d pattern=%s",
      N_FRAMES, pattern);
  gboolean ok = bench_source_frames (src, w, h, format, cuda);

  g_free (src);
  return ok;
}

/* N_FRAMES frames of the PNG pictures @location names (a printf pattern
 * of an index from 0: tests/data/stereo/art/im%d.png), each in turn, so
 * that the frame set alternates between them (bench-correlate's cameras
 * take frames 3 apart: a pair's two views).  FALSE when they cannot be
 * read. */
static G_GNUC_UNUSED gboolean
bench_picture_frames (const gchar * location, gint n, gint w, gint h,
    const gchar * format, gboolean cuda)
{
  gchar *src = g_strdup_printf ("multifilesrc location=\"%s\" loop=true "
      "stop-index=%d caps=image/png ! pngdec ! videoconvert", location,
      n - 1);
  gboolean ok = bench_source_frames (src, w, h, format, cuda);

  g_free (src);
  return ok;
}

static gboolean
bench_source_frames (const gchar * source, gint w, gint h,
    const gchar * format, gboolean cuda)
{
  gchar *launch = g_strdup_printf ("%s ! video/x-raw,format=%s,width=%d,"
      "height=%d %s ! appsink name=out sync=false max-buffers=%d", source,
      format, w, h, cuda ? "! cudaupload name=up ! "
      "video/x-raw(memory:CUDAMemory)" : "", N_FRAMES);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  gboolean ok = TRUE;
  gint i;

  bench_clear_frames ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (i = 0; i < N_FRAMES && ok; i++) {
    GstSample *s = gst_app_sink_pull_sample (GST_APP_SINK (sink));
    ok = s != NULL;
    if (!s)
      break;
    frames[i] = gst_buffer_ref (gst_sample_get_buffer (s));
    if (!frame_caps)
      frame_caps = gst_caps_ref (gst_sample_get_caps (s));
    gst_sample_unref (s);
  }
  if (ok && cuda) {
    GstElement *up = gst_bin_get_by_name (GST_BIN (pipe), "up");
    GstQuery *q = gst_query_new_context ("gst.cuda.context");
    if (gst_element_query (up, q))
      gst_query_parse_context (q, &cuda_ctx);
    if (cuda_ctx)
      gst_context_ref (cuda_ctx);
    gst_query_unref (q);
    gst_object_unref (up);
    ok = cuda_ctx != NULL;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  return ok;
}

/* Seconds from PLAYING to end of stream of @pipe (its @bus), which is then
 * stopped; -1 on a pipeline error, printed with @desc. */
static G_GNUC_UNUSED gdouble
bench_play (GstElement * pipe, GstBus * bus, const gchar * desc)
{
  GstMessage *m;
  gint64 t0;
  gdouble ret = -1;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  t0 = g_get_monotonic_time ();
  m = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND, GST_MESSAGE_EOS |
      GST_MESSAGE_ERROR);
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS)
    ret = (g_get_monotonic_time () - t0) / 1e6;
  else if (m) {
    GError *e = NULL;
    gst_message_parse_error (m, &e, NULL);
    g_printerr ("ERROR in %s: %s\n", desc, e->message);
    g_error_free (e);
  }
  gst_clear_message (&m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  return ret;
}

/* Seconds to push @n frames through @desc, an "appsrc name=src ..." launch
 * line whose benchmarked element is named "el": *el is that element while
 * the pipeline runs (for @need_data, which must call bench_push).  -1 on a
 * pipeline error; a line that does not parse (no element: GST_PLUGIN_PATH
 * must name the build's gst/) exits with status 2. */
static G_GNUC_UNUSED gdouble
bench_run (const gchar * desc, GCallback need_data, GstElement ** el,
    guint64 n)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err), *src;
  GstBus *bus;
  gdouble ret;

  if (err) {
    g_printerr ("%s: %s\n", desc, err->message);
    g_error_free (err);
    exit (2);
  }
  bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, bench_give_context, NULL, NULL);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  *el = gst_bin_get_by_name (GST_BIN (pipe), "el");
  g_object_set (src, "caps", frame_caps, NULL);
  g_signal_connect (src, "need-data", need_data, NULL);
  pushed = 0;
  limit = n;
  ret = bench_play (pipe, bus, desc);
  gst_clear_object (el);
  gst_object_unref (src);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return ret;
}

#endif
