/* cudaoptics — LGPL-2.1-or-later
 *
 * cudafoveate in a pipeline, `appsrc ! cudafoveate ! fakesink`, frames in
 * memory:CUDAMemory (uploaded once by cudaupload): ms per frame and frames
 * per second at 1080p and 4K RGBA, fragments of 16 at the default strength
 * (bench-foveate-kernels times the kernel across fragments and strengths),
 * fixation in the centre and in a corner, each beside the device
 * copy of one frame measured in the same run; and with the fixation moving
 * every frame (follow-pointer: the filter table rebuilt and uploaded before
 * each frame).  The rate is the difference between two frame counts (CUDA
 * start-up is excluded).  The kernel alone is timed with ncu (README).
 *
 *   bench-foveate            (exit 77 without a GPU, 2 without the element)
 */
#include <gst/video/video.h>
#include <string.h>
#include "bench-app.h"
#include "bench-cuda.h"
#include "bench-skip.h"

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
      "name=el backend=cuda %s ! fakesink sync=false", props);
  gdouble t = bench_run (d, G_CALLBACK (need_data), &fovea, n);

  g_free (d);
  return t;
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
  static const gint fragments[] = { 16 };
  static const gchar *fixations[] = { "fixation-x=0.5 fixation-y=0.5",
    "fixation-x=0 fixation-y=0"
  };
  static const gdouble strengths[] = { 1.0 };
  guint s, f, x, k;

  gst_init (&argc, &argv);
  bench_require_cuda (1);
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
