/* cudaoptics — LGPL-2.1-or-later
 *
 * One application driving a pipeline on each GPU: does the frame rate
 * scale with the cards?  For each device g a few 4K RGBA frames are
 * uploaded once by `cudaupload cuda-device-id=g`, and
 *   appsrc ! cudalensdistort k1=-0.2 x CHAIN ! fakesink
 * re-pushes them, its elements given that cudaupload's context (device-id
 * left at -1, the way docs/performance.md tells users).  Each pipeline runs
 * alone, then all together in this one process, each from its own
 * streaming thread; the rate of a pipeline comes from the difference
 * between two frame counts (CUDA's start-up left out).
 *
 * Checked before any timing: the output of every device lies in that
 * device's memory (cudaPointerGetAttributes) and has device 0's bytes.
 *
 *   bench-multigpu [FRAMES [CHAIN]]   (default 3000 4; exit 77 with fewer
 *                                      than 2 GPUs, 1 when a check fails)
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>
#include <cuda_runtime_api.h>
#include "bench-skip.h"
#include <stdlib.h>
#include <string.h>

#define N_FRAMES 8
#define MAX_GPUS 8
#define W 3840
#define H 2160

typedef struct
{
  gint device;
  GstBuffer *frames[N_FRAMES];
  GstCaps *caps;
  GstContext *ctx;
  GstElement *pipe;
  guint64 pushed, limit;
  gint64 t0, t1;                /* start, end of stream (µs) */
  gboolean failed;
} Gpu;

static void
need_data (GstAppSrc * src, guint length, gpointer data)
{
  Gpu *g = data;
  GstBuffer *b;

  if (g->pushed >= g->limit) {
    gst_app_src_end_of_stream (src);
    return;
  }
  b = gst_buffer_copy (g->frames[g->pushed % N_FRAMES]);
  GST_BUFFER_PTS (b) = g->pushed * GST_SECOND / 1000;
  GST_BUFFER_DURATION (b) = GST_SECOND / 1000;
  g->pushed++;
  gst_app_src_push_buffer (src, b);
}

static GstBusSyncReply
give_context (GstBus * bus, GstMessage * msg, gpointer data)
{
  Gpu *g = data;
  const gchar *type = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      !g_strcmp0 (type, gst_context_get_context_type (g->ctx)))
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), g->ctx);
  return GST_BUS_PASS;
}

/* Frames of videotestsrc on device g, and cudaupload's context there. */
static gboolean
upload_frames (Gpu * g)
{
  gchar *d = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "video/x-raw,format=RGBA,width=%d,height=%d ! cudaupload name=up "
      "cuda-device-id=%d ! video/x-raw(memory:CUDAMemory) ! appsink "
      "name=out sync=false max-buffers=%d", N_FRAMES, W, H, g->device,
      N_FRAMES);
  GstElement *p = gst_parse_launch (d, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out");
  GstElement *up = gst_bin_get_by_name (GST_BIN (p), "up");
  GstQuery *q = gst_query_new_context ("gst.cuda.context");
  gboolean ok = TRUE;
  gint i;

  gst_element_set_state (p, GST_STATE_PLAYING);
  for (i = 0; i < N_FRAMES && ok; i++) {
    GstSample *s = gst_app_sink_pull_sample (GST_APP_SINK (sink));
    if (!(ok = s != NULL))
      break;
    g->frames[i] = gst_buffer_ref (gst_sample_get_buffer (s));
    if (!g->caps)
      g->caps = gst_caps_ref (gst_sample_get_caps (s));
    gst_sample_unref (s);
  }
  if (ok && gst_element_query (up, q)) {
    gst_query_parse_context (q, &g->ctx);
    if (g->ctx)
      gst_context_ref (g->ctx);
  }
  gst_query_unref (q);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (up);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (d);
  return ok && g->ctx;
}

/* The chain on device g, ending in @tail. */
static GstElement *
make_pipeline (Gpu * g, gint chain, const gchar * tail)
{
  GString *d = g_string_new ("appsrc name=src format=time");
  GstElement *p, *src;
  GstBus *bus;
  gint i;

  for (i = 0; i < chain; i++)
    g_string_append (d, " ! cudalensdistort k1=-0.2");
  g_string_append_printf (d, " ! %s", tail);
  p = gst_parse_launch (d->str, NULL);
  g_string_free (d, TRUE);
  if (!p)
    return NULL;
  bus = gst_element_get_bus (p);
  gst_bus_set_sync_handler (bus, give_context, g, NULL);
  gst_object_unref (bus);
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  g_object_set (src, "caps", g->caps, NULL);
  g_signal_connect (src, "need-data", G_CALLBACK (need_data), g);
  gst_object_unref (src);
  return p;
}

/* Runs every pipeline of @gs (n of them) at once for @frames frames each;
 * FALSE on an error. */
static gboolean
run_all (Gpu * gs, gint n, gint chain, guint64 frames)
{
  gint i, left = n;
  gboolean ok = TRUE;

  for (i = 0; i < n; i++) {
    gs[i].pipe = make_pipeline (&gs[i], chain, "fakesink sync=false");
    gs[i].pushed = 0;
    gs[i].limit = frames;
    gs[i].t1 = 0;
  }
  for (i = 0; i < n; i++) {
    gs[i].t0 = g_get_monotonic_time ();
    gst_element_set_state (gs[i].pipe, GST_STATE_PLAYING);
  }
  while (left > 0 && ok) {
    for (i = 0; i < n; i++) {
      GstBus *bus;
      GstMessage *m;
      if (gs[i].t1)
        continue;
      bus = gst_element_get_bus (gs[i].pipe);
      m = gst_bus_timed_pop_filtered (bus, 10 * GST_MSECOND,
          GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
      gst_object_unref (bus);
      if (!m)
        continue;
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
        gs[i].t1 = g_get_monotonic_time ();
        left--;
      } else {
        GError *e = NULL;
        gst_message_parse_error (m, &e, NULL);
        g_printerr ("device %d: %s\n", gs[i].device, e->message);
        g_error_free (e);
        ok = FALSE;
      }
      gst_message_unref (m);
    }
  }
  for (i = 0; i < n; i++) {
    gst_element_set_state (gs[i].pipe, GST_STATE_NULL);
    gst_clear_object (&gs[i].pipe);
  }
  return ok;
}

/* Frames per second of each pipeline of @gs run together, from two counts */
static gboolean
rates (Gpu * gs, gint n, gint chain, guint64 frames, gdouble * fps)
{
  gdouble t_short[MAX_GPUS];
  gint i;

  if (!run_all (gs, n, chain, frames / 6))
    return FALSE;
  for (i = 0; i < n; i++)
    t_short[i] = (gs[i].t1 - gs[i].t0) / 1e6;
  if (!run_all (gs, n, chain, frames))
    return FALSE;
  for (i = 0; i < n; i++)
    fps[i] = (frames - frames / 6) / ((gs[i].t1 - gs[i].t0) / 1e6 -
        t_short[i]);
  return TRUE;
}

/* One output frame of device g: where it lies, and its bytes downloaded. */
static gboolean
check_output (Gpu * g, gint chain, GBytes ** bytes, gint * where)
{
  GstElement *p = make_pipeline (g, chain, "appsink name=out sync=false");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out");
  GstSample *s;
  gboolean ok = FALSE;

  g->pushed = 0;
  g->limit = 1;
  gst_element_set_state (p, GST_STATE_PLAYING);
  s = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  if (s) {
    GstBuffer *b = gst_sample_get_buffer (s);
    GstMapInfo cuda, host;
    struct cudaPointerAttributes a;
    *where = -1;
    if (gst_buffer_map (b, &cuda, GST_MAP_READ | GST_MAP_CUDA)) {
      if (cudaPointerGetAttributes (&a, cuda.data) == cudaSuccess)
        *where = a.device;
      gst_buffer_unmap (b, &cuda);
    }
    if (gst_buffer_map (b, &host, GST_MAP_READ)) {
      *bytes = g_bytes_new (host.data, host.size);
      gst_buffer_unmap (b, &host);
      ok = TRUE;
    }
    gst_sample_unref (s);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  return ok;
}

int
main (int argc, char **argv)
{
  guint64 frames = argc > 1 ? g_ascii_strtoull (argv[1], NULL, 10) : 3000;
  gint chain = argc > 2 ? atoi (argv[2]) : 4;
  Gpu gs[MAX_GPUS];
  GBytes *ref = NULL;
  gdouble alone[MAX_GPUS], together[MAX_GPUS], sum_alone = 0, sum = 0;
  gint n = 0, i, j;

  gst_init (&argc, &argv);
  /* the scaling over cards needs two: with one there is nothing to show */
  if (bench_require_cuda (1) < 2) {
    g_printerr ("needs 2 CUDA devices, found 1\n");
    bench_skip_no_cuda ();
  }
  n = MIN (n, MAX_GPUS);
  memset (gs, 0, sizeof gs);
  for (i = 0; i < n; i++) {
    GBytes *out = NULL;
    gint where = -1;
    gs[i].device = i;
    if (!upload_frames (&gs[i])) {
      g_printerr ("could not upload frames to device %d\n", i);
      return 2;
    }
    if (!check_output (&gs[i], chain, &out, &where)) {
      g_printerr ("device %d: no output frame\n", i);
      return 1;
    }
    g_print ("device %d: output in the memory of device %d, %s\n", i, where,
        !ref ? "the reference" : g_bytes_equal (ref, out) ?
        "the same bytes as device 0's" : "BYTES DIFFER from device 0's");
    if (where != i || (ref && !g_bytes_equal (ref, out)))
      return 1;
    if (!ref)
      ref = out;
    else
      g_bytes_unref (out);
  }
  g_bytes_unref (ref);
  g_print ("\n%dx%d RGBA, memory:CUDAMemory, cudalensdistort x %d, %"
      G_GUINT64_FORMAT " frames a pipeline\n\n| pipelines | frames/s "
      "each | total frames/s | x one alone |\n|---|---|---:|---:|\n", W, H,
      chain, frames);
  for (i = 0; i < n; i++) {
    if (!rates (&gs[i], 1, chain, frames, &alone[i]))
      return 1;
    sum_alone += alone[i];
    g_print ("| device %d alone | %.0f | %.0f | 1.00 |\n", i, alone[i],
        alone[i]);
  }
  if (!rates (gs, n, chain, frames, together))
    return 1;
  g_print ("| devices 0-%d together, one process |", n - 1);
  for (j = 0; j < n; j++) {
    g_print ("%s%.0f", j ? ", " : " ", together[j]);
    sum += together[j];
  }
  g_print (" | %.0f | **%.2f** |\n", sum, sum / (sum_alone / n));
  for (i = 0; i < n; i++) {
    for (j = 0; j < N_FRAMES; j++)
      gst_clear_buffer (&gs[i].frames[j]);
    gst_clear_caps (&gs[i].caps);
    gst_context_unref (gs[i].ctx);
  }
  return 0;
}
