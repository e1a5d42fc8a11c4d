/* cudaoptics — LGPL-2.1-or-later
 *
 * Frames per second of an element of the family in a pipeline fed by a
 * source that is not the bottleneck: appsrc re-pushing a few frames into
 * `appsrc ! ELEMENT x K ! fakesink`, in three memory set-ups:
 *   cuda      frames uploaded once by cudaupload, memory:CUDAMemory
 *             throughout, cudaupload's CUDA context shared;
 *   pinned    system memory from the pinned pool the element proposes
 *             upstream (what videotestsrc or v4l2src would write into),
 *             downloaded into the element's own pinned pool;
 *   pageable  plain malloc'd system memory (a source ignoring the pool);
 *   nvmm      memory:NVMM surfaces in CUDA device memory from the
 *             libnvbufsurface of CO_NVBUFSURFACE_LIB (NVIDIA's, or the
 *             tests' tests/nvmm/ one), as nvv4l2decoder or nvstreammux
 *             give them; the elements write surfaces of their own.
 *
 * Each process spends seconds starting CUDA, so the rate is taken from the
 * difference between two frame counts, and the per-element cost from the
 * difference between K elements and none.
 *
 *   bench-pipeline [WIDTH HEIGHT FORMAT [MODES [ELEMENT [PROPS]]]]
 *     default 1920 1080 RGBA cuda,pinned,pageable cudalensdistort "k1=-0.2"
 *     (nvmm: an extra mode);
 *     FORMAT "bayer:rggb" feeds video/x-bayer.  Elements that keep the
 *     caps (cudalensdistort, cudafoveate, cudashcentroid) are chained 1 and
 *     4 deep, the others once.  CO_SYNC_EVERY_FRAME=1 restores a host wait
 *     after every frame (the behaviour before 1.24's stream ordering), for
 *     a before/after in one run.
 */
#include <gst/video/video.h>
#include <string.h>
#include <cuda_runtime.h>
#include "bench-app.h"
#include "gstconvmm.h"
#include "bench-skip.h"

static const gchar *element = "cudalensdistort", *element_props = "k1=-0.2";

/* the caps of @format frames (a Bayer order after "bayer:") */
static GstCaps *
format_caps (const gchar * format, gint w, gint h)
{
  gboolean bayer = g_str_has_prefix (format, "bayer:");

  return gst_caps_new_simple (bayer ? "video/x-bayer" : "video/x-raw",
      "format", G_TYPE_STRING, bayer ? format + 6 : format, "width",
      G_TYPE_INT, w, "height", G_TYPE_INT, h, "framerate", GST_TYPE_FRACTION,
      1000, 1, NULL);
}

static void
need_data (GstAppSrc * src, guint length, gpointer data)
{
  bench_push (src);
}

/* Random frames in system memory: from the element's proposed pool (pinned)
 * or plain allocations (pageable). */
static gboolean
host_frames (gint w, gint h, const gchar * format, gboolean pinned)
{
  GstCaps *caps = format_caps (format, w, h);
  GstElement *e = gst_element_factory_make (element, NULL);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  guint32 x = 0x9e3779b9u;
  gint i;

  if (!gst_video_info_from_caps (&info, caps)) {
    /* Bayer: one byte (or two) a sample, rows of a multiple of 4 bytes */
    gint bps = g_str_has_suffix (format, "16le") ? 2 : 1;
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8,
        GST_ROUND_UP_4 (w * bps), h);
  }
  if (pinned) {
    GstQuery *q = gst_query_new_allocation (caps, TRUE);
    gst_element_set_state (e, GST_STATE_PAUSED);
    gst_pad_set_active (sink, TRUE);
    gst_pad_send_event (sink, gst_event_new_stream_start ("bench"));
    gst_pad_send_event (sink, gst_event_new_caps (caps));
    if (gst_pad_query (sink, q) && gst_query_get_n_allocation_pools (q) > 0)
      gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
    gst_query_unref (q);
    if (!pool || !gst_buffer_pool_set_active (pool, TRUE))
      return FALSE;
  }
  for (i = 0; i < N_FRAMES; i++) {
    GstMapInfo map;
    gsize k;
    if (pool)
      gst_buffer_pool_acquire_buffer (pool, &frames[i], NULL);
    else
      frames[i] = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_map (frames[i], &map, GST_MAP_WRITE);
    for (k = 0; k < map.size; k++) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      map.data[k] = (guint8) x;
    }
    gst_buffer_unmap (frames[i], &map);
  }
  if (pinned)
    g_print ("pinned frames: %s\n", gst_buffer_peek_memory (frames[0],
            0)->allocator->mem_type);
  /* the pool and its element live on: the buffers keep them */
  gst_object_unref (sink);
  frame_caps = caps;
  return TRUE;
}

/* Random frames in memory:NVMM surfaces of CUDA device memory, rows at the
 * surface's pitch */
static gboolean
nvmm_frames (gint w, gint h, const gchar * format)
{
  GstVideoInfo info;
  guint32 x = 0x2545f491u;
  gint i;
  guint k;

  if (!gst_co_nvmm_available ()) {
    g_printerr ("nvmm: no libnvbufsurface (set CO_NVBUFSURFACE_LIB to "
        "NVIDIA's or to the tests' build/tests/nvmm/libnvbufsurface.so.1.0.0)\n");
    return FALSE;
  }
  gst_video_info_set_format (&info, gst_video_format_from_string (format), w,
      h);
  for (i = 0; i < N_FRAMES; i++) {
    gchar *why = NULL;
    gpointer surf = gst_co_nvmm_surface_new (&info, CO_NVBUF_MEM_CUDA_DEVICE,
        0, &why);
    GstCoNvmmPlanes p;
    if (!surf || !gst_co_nvmm_describe (surf, gst_co_nvmm_surface_size (),
            &info, &p, &why)) {
      g_printerr ("nvmm: %s\n", GST_STR_NULL (why));
      g_free (why);
      if (surf)
        gst_co_nvmm_surface_free (surf);
      return FALSE;
    }
    for (k = 0; k < p.n_planes; k++) {
      const gsize row = (gsize) GST_VIDEO_INFO_COMP_WIDTH (&info, k) *
          GST_VIDEO_INFO_COMP_PSTRIDE (&info, k);
      const gsize rows = GST_VIDEO_INFO_COMP_HEIGHT (&info, k);
      guint8 *host = g_malloc (row * rows);
      gsize j;
      for (j = 0; j < row * rows; j++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        host[j] = (guint8) x;
      }
      if (cudaMemcpy2D (p.data[k], p.pitch[k], host, row, row, rows,
              cudaMemcpyHostToDevice) != cudaSuccess) {
        g_printerr ("nvmm: cannot write a surface (is it device memory?)\n");
        g_free (host);
        gst_co_nvmm_surface_free (surf);
        return FALSE;
      }
      g_free (host);
    }
    frames[i] = gst_co_nvmm_buffer_wrap (surf);
  }
  frame_caps = gst_video_info_to_caps (&info);
  gst_caps_set_features (frame_caps, 0,
      gst_caps_features_new_single (GST_CO_CAPS_FEATURE_MEMORY_NVMM));
  gst_caps_set_simple (frame_caps, "framerate", GST_TYPE_FRACTION, 1000, 1,
      NULL);
  return TRUE;
}

/* Seconds to push @n frames through @k elements, and the warnings seen. */
static gdouble
run (gint k, guint64 n, gint * warnings, gboolean wrap)
{
  GString *d = g_string_new ("appsrc name=src format=time ");
  GstElement *pipe, *src;
  GstBus *bus;
  GstMessage *m;
  gint64 t0;
  gint i;

  /* upstream's way of getting system memory onto the GPU and back */
  if (wrap)
    g_string_append (d, "! cudaupload ! video/x-raw(memory:CUDAMemory) ");
  for (i = 0; i < k; i++)
    g_string_append_printf (d, "! %s %s ", element, element_props);
  if (wrap)
    g_string_append (d, "! video/x-raw(memory:CUDAMemory) ! cudadownload ! "
        "video/x-raw ");
  g_string_append (d, "! fakesink sync=false");
  pipe = gst_parse_launch (d->str, NULL);
  bus = gst_element_get_bus (pipe);
  if (cuda_ctx)
    gst_bus_set_sync_handler (bus, bench_give_context, NULL, NULL);
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
      1080, ks[] = { 0, 1, 4 }, nk, i, m, warn = 0;
  const gchar *format = argc > 3 ? argv[3] : "RGBA";
  gchar **modes = g_strsplit (argc > 4 ? argv[4] : "cuda,pinned,pageable",
      ",", -1);
  const guint64 n1 = 500, n2 = 3000;

  if (argc > 5)
    element = argv[5];
  if (argc > 6)
    element_props = argv[6];
  /* a chain needs the same caps out as in */
  nk = !strcmp (element, "cudalensdistort") || !strcmp (element,
      "cudafoveate") || !strcmp (element, "cudashcentroid") ? 3 : 2;
  gst_init (&argc, &argv);
  bench_require_cuda (1);
  for (m = 0; modes[m]; m++) {
    gdouble base = 0;
    gboolean ok;
    bench_clear_frames ();
    ok = !strcmp (modes[m], "cuda") ? bench_test_frames (w, h, format,
        "ball", TRUE) : !strcmp (modes[m], "nvmm") ? nvmm_frames (w, h,
        format) : host_frames (w, h, format, !strcmp (modes[m], "pinned"));
    if (!ok) {
      g_printerr ("%s: could not prepare frames (no GPU?)\n", modes[m]);
      return 2;
    }
    g_print ("\n| %s %s, %dx%d %s, %s memory%s | frames/s | ms per frame | "
        "ms per element |\n|---|---:|---:|---:|\n", element, element_props, w,
        h, format, modes[m], g_getenv ("CO_SYNC_EVERY_FRAME") ?
        ", a host wait every frame" : "");
    for (i = 0; i < nk; i++) {
      gint w1, w2;
      gdouble t1 = run (ks[i], n1, &w1, FALSE), t2 = run (ks[i], n2, &w2,
          FALSE);
      gdouble per = (t2 - t1) / (n2 - n1) * 1e3;
      gchar *pe = ks[i] ? g_strdup_printf ("%.4f", (per - base) / ks[i]) :
          g_strdup ("-");
      warn += w1 + w2;
      if (ks[i] == 0)
        base = per;
      g_print ("| appsrc ! %d x %s ! fakesink | %.0f | %.4f | %s |\n", ks[i],
          element, 1e3 / per, per, pe);
      g_free (pe);
    }
    /* the same frames through cudaupload ! ELEMENT ! cudadownload, where
     * CUDA memory can carry them */
    if (strcmp (modes[m], "cuda") != 0 && strcmp (modes[m], "nvmm") != 0 &&
        !strcmp (element,
            "cudalensdistort")) {
      gint w1, w2;
      gdouble t1 = run (1, n1, &w1, TRUE), t2 = run (1, n2, &w2, TRUE);
      gdouble per = (t2 - t1) / (n2 - n1) * 1e3;
      warn += w1 + w2;
      g_print ("| appsrc ! cudaupload ! %s ! cudadownload ! fakesink | %.0f "
          "| %.4f | - |\n", element, 1e3 / per, per);
    }
  }
  g_print ("warnings/errors: %d\n", warn);
  g_strfreev (modes);
  return warn ? 1 : 0;
}
