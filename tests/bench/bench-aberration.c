/* cudaoptics — LGPL-2.1-or-later
 *
 * Frames per second of cudaaberration in a pipeline: appsrc re-pushing 8
 * raw Bayer frames (a natural picture mosaiced, in the pinned pool the
 * element proposes upstream, as a camera source would write them) through
 *   appsrc ! cudaaberration [kernels-file] ! OUTPUT ! fakesink
 * with OUTPUT memory:CUDAMemory RGBA (the CUDA-memory pipeline) or
 * system-memory RGBA (downloaded into the element's pinned pool).  The
 * kernels are a lens's (co_clt_lens_node, 3 colours at stride 16, the
 * paper's grid), or the built-in demosaicing ones.  The rate comes from the
 * difference between two frame counts (CUDA's start-up left out).  Beside
 * it, in the same process: a device-to-host copy of one RGBA output frame
 * into pinned memory and the host-to-device copy of one Bayer frame, and
 * for each set of kernels what system memory costs over CUDA memory
 * against that download.
 *
 *   bench-aberration [WIDTH HEIGHT [BACKEND]]   (default 2592 1936 cuda)
 */
#include <unistd.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include "bench-app.h"
#include "bench-cuda.h"
#include "bench-skip.h"
#include "clt_build.h"
#include "gstcocltkernels.h"

static void
need_data (GstAppSrc * src, guint length, gpointer data)
{
  bench_push (src);
}

/* Mosaiced frames (RGGB of a smooth, busy test picture) in the element's
 * proposed pool. */
static gboolean
bayer_frames (gint w, gint h, const gchar * backend)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-bayer", "format",
      G_TYPE_STRING, "rggb", "width", G_TYPE_INT, w, "height", G_TYPE_INT, h,
      "framerate", GST_TYPE_FRACTION, 1000, 1, NULL);
  GstElement *e = gst_element_factory_make ("cudaaberration", NULL);
  GstPad *sink;
  GstBufferPool *pool = NULL;
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  gint i, x, y, stride = GST_ROUND_UP_4 (w);

  if (!e)
    return FALSE;
  g_object_set (e, "backend", !strcmp (backend, "cpu") ? 2 : 1, NULL);
  sink = gst_element_get_static_pad (e, "sink");
  gst_element_set_state (e, GST_STATE_PAUSED);
  gst_pad_set_active (sink, TRUE);
  gst_pad_send_event (sink, gst_event_new_stream_start ("bench"));
  gst_pad_send_event (sink, gst_event_new_caps (caps));
  if (gst_pad_query (sink, q) && gst_query_get_n_allocation_pools (q) > 0)
    gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
  gst_query_unref (q);
  if (pool && !gst_buffer_pool_set_active (pool, TRUE))
    return FALSE;
  for (i = 0; i < N_FRAMES; i++) {
    GstMapInfo map;
    if (pool)
      gst_buffer_pool_acquire_buffer (pool, &frames[i], NULL);
    else
      frames[i] = gst_buffer_new_allocate (NULL, (gsize) stride * h, NULL);
    gst_buffer_map (frames[i], &map, GST_MAP_WRITE);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        map.data[(gsize) y * stride + x] = (guint8) (128 + 90 *
            sin (0.05 * x + 0.3 * i) * cos (0.037 * y) + 30 *
            sin (0.9 * (x + y)));
    gst_buffer_unmap (frames[i], &map);
  }
  g_print ("frames: %dx%d rggb in %s memory\n", w, h,
      gst_buffer_peek_memory (frames[0], 0)->allocator->mem_type);
  gst_object_unref (sink);
  frame_caps = caps;
  return TRUE;
}

/* A lens's kernels at stride 16 for w x h, in @path */
static void
write_kernels (gint w, gint h, const gchar * path)
{
  GstCoCltKernels k = { 3, (w - 1 + 15) / 16 + 1, (h - 1 + 15) / 16 + 1, 16,
    w, h, NULL
  };
  CoCltLens lens;
  GBytes *bytes;
  gint i, j, c;

  co_clt_lens_init (&lens, w, h);
  lens.sigma0 = 0.8;
  lens.sigma1 = 1.2;
  lens.chroma[0] = 1.001;
  lens.chroma[2] = 0.999;
  lens.dist[0] = -0.1;
  lens.nsr = 0.03;
  lens.bayer = 1;
  k.nodes = g_new (gfloat, (gsize) k.grid_w * k.grid_h * 3 *
      GST_CO_CLT_KERNELS_NODE_FLOATS);
  for (j = 0; j < k.grid_h; j++)
    for (i = 0; i < k.grid_w; i++)
      for (c = 0; c < 3; c++)
        co_clt_lens_node (&lens, i * 16, j * 16, c,
            (gfloat *) gst_co_clt_kernels_node (&k, i, j, c));
  bytes = gst_co_clt_kernels_serialize (&k);
  g_file_set_contents (path, g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), NULL);
  g_print ("kernels: %dx%d nodes x 3 colours\n", k.grid_w, k.grid_h);
  g_bytes_unref (bytes);
  g_free (k.nodes);
}

int
main (int argc, char **argv)
{
  gint w = argc > 2 ? atoi (argv[1]) : 2592, h = argc > 2 ? atoi (argv[2]) :
      1936;
  const gchar *backend = argc > 3 ? argv[3] : "cuda";
  const gboolean cpu = !strcmp (backend, "cpu");
  const guint64 n1 = cpu ? 5 : 200, n2 = cpu ? 25 : 1200;
  gchar *path = g_strdup_printf ("%s/bench-aberration-%d.cltk",
      g_get_tmp_dir (), (int) getpid ());
  const gchar *outs[] = { "video/x-raw(memory:CUDAMemory),format=RGBA",
    "video/x-raw,format=RGBA"
  };
  gint o, kf, fails = 0;
  gdouble per_ms[2][2] = { {-1, -1}, {-1, -1} }, d2h = -1, h2d = -1;

  gst_init (&argc, &argv);
  if (!cpu)
    bench_require_cuda (1);
  write_kernels (w, h, path);
  if (!bayer_frames (w, h, backend)) {
    g_printerr ("could not prepare frames (no cudaaberration?)\n");
    return 2;
  }
  g_print ("\n| %dx%d RGGB, backend=%s | frames/s | ms per frame |\n"
      "|---|---:|---:|\n", w, h, backend);
  for (o = cpu ? 1 : 0; o < 2; o++)
    for (kf = 0; kf < 2; kf++) {
      gchar *desc = g_strdup_printf ("appsrc name=src format=time ! "
          "cudaaberration name=el backend=%s %s%s ! %s ! fakesink sync=false",
          backend, kf ? "kernels-file=" : "", kf ? path : "", outs[o]);
      GstElement *el = NULL;
      gdouble t1 = bench_run (desc, G_CALLBACK (need_data), &el, n1);
      gdouble t2 = bench_run (desc, G_CALLBACK (need_data), &el, n2);
      gdouble per = (t2 - t1) / (n2 - n1) * 1e3;
      if (t1 < 0 || t2 < 0) {
        fails++;
      } else {
        g_print ("| %s, %s | %.0f | %.3f |\n", kf ? "lens kernels" :
            "demosaicing only", o ? "RGBA system memory" :
            "RGBA memory:CUDAMemory", 1e3 / per, per);
        per_ms[kf][o] = per;
      }
      g_free (desc);
    }
  if (!cpu) {
    d2h = host_copy_ms ((size_t) w * h * 4, TRUE);
    h2d = host_copy_ms ((size_t) GST_ROUND_UP_4 (w) * h, FALSE);
    g_print ("\npinned copies, same process: RGBA frame device to host "
        "%.3f ms (%.1f GB/s), Bayer frame host to device %.3f ms\n", d2h,
        (gdouble) w * h * 4 / d2h / 1e6, h2d);
    for (kf = 0; kf < 2; kf++)
      if (per_ms[kf][0] > 0 && per_ms[kf][1] > 0 && d2h > 0)
        g_print ("%s: system memory costs %.3f ms a frame over CUDA memory, "
            "%.2f x the download\n", kf ? "lens kernels" :
            "demosaicing only", per_ms[kf][1] - per_ms[kf][0],
            (per_ms[kf][1] - per_ms[kf][0]) / d2h);
  }
  g_unlink (path);
  g_free (path);
  bench_clear_frames ();
  return fails ? 1 : 0;
}
