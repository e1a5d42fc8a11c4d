/* cudaoptics — LGPL-2.1-or-later
 *
 * The paper's Tables 2 and 3 (Chong et al., stable and transition state)
 * with cudaomniunwrap projection=cuboid, in one process:
 *   stable      the table is reused: the per-frame cost is the remap;
 *   transition  start-angle changes every frame and CO_OMNI_NO_KEEP=1 makes
 *               the element solve the mirror model again (as for any
 *               geometry change) before each frame: the GPU solve, or the C
 *               reference on the CPU backend; on the GPU both with every
 *               cell started on its own (the element's way) and with the
 *               paper's propagation (CO_OMNI_PROPAGATE=1);
 *   pan         the same without CO_OMNI_NO_KEEP: the solved radii are
 *               kept, the columns turned and the table filled again.
 * Outputs 1440x180, 2880x360 and 5760x720 (the paper's) and 3840x2160 from
 * a 2048x2048 RGBA mirror frame, 5760x720 from a 4K and an 8K frame, and
 * a 2048x2048 ground view (solved per pixel: the propagation and the pan
 * change nothing there); each GPU
 * row beside the device copy of one output frame measured in the same run.
 * Frames are in memory:CUDAMemory (uploaded once by cudaupload) for CUDA,
 * in system memory for the CPU.  The rate is the difference between two
 * frame counts (CUDA start-up is excluded).
 *
 *   bench-omni [--cpu-frames N | --stable [CASE]]   (exit 77 without a GPU)
 *
 * --stable: only the copy and the per-frame cost with the table reused,
 * 10,000 frames a case, every case or the one numbered CASE from 0 in the
 * table's order (4: 5760x720 from 4K), for A/B runs (e.g. CO_RETIRE=0
 * against the default on 1.24+).
 */
#include <gst/video/video.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <string.h>
#include "bench-app.h"
#include "bench-cuda.h"
#include "bench-skip.h"

static GstElement *unwrap;
static enum
{ STABLE, SOLVE, PAN } transition;

static void
need_data (GstAppSrc * src, guint length, gpointer data)
{
  /* a geometry change every frame rebuilds the table before it */
  if (transition != STABLE && pushed < limit)
    g_object_set (unwrap, "start-angle", (gdouble) (pushed % 360), NULL);
  bench_push (src);
}

/* Seconds for @n frames; -1 on an error. */
static gdouble
run (const gchar * props, gint ow, gint oh, gboolean cuda, guint64 n)
{
  gchar *d = g_strdup_printf ("appsrc name=src format=time ! cudaomniunwrap "
      "name=el backend=%s %s ! video/x-raw%s,width=%d,height=%d ! "
      "fakesink sync=false", cuda ? "cuda" : "cpu", props,
      cuda ? "(memory:CUDAMemory)" : "", ow, oh);
  gdouble t = bench_run (d, G_CALLBACK (need_data), &unwrap, n);

  g_free (d);
  return t;
}

/* ms per frame from two counts */
static gdouble
per_frame (const gchar * props, gint ow, gint oh, gboolean cuda, guint64 n1,
    guint64 n2)
{
  gdouble t1 = run (props, ow, oh, cuda, n1), t2 = run (props, ow, oh, cuda,
      n2);
  return t1 < 0 || t2 < 0 ? -1 : (t2 - t1) / (n2 - n1) * 1e3;
}

int
main (int argc, char **argv)
{
  static const struct
  {
    gint iw, ih, ow, oh;
    gboolean ground;
  } cases[] = {
    {2048, 2048, 1440, 180, FALSE}, {2048, 2048, 2880, 360, FALSE},
    {2048, 2048, 5760, 720, FALSE}, {2048, 2048, 3840, 2160, FALSE},
    {3840, 2160, 5760, 720, FALSE}, {7680, 4320, 5760, 720, FALSE},
    {2048, 2048, 2048, 2048, TRUE},
  };
  guint64 cpu_frames = argc > 2 && !strcmp (argv[1], "--cpu-frames") ?
      g_ascii_strtoull (argv[2], NULL, 10) : 6;
  gboolean stable_only = argc > 1 && !strcmp (argv[1], "--stable");
  gint only_case = stable_only && argc > 2 ? atoi (argv[2]) : -1;
  guint c;

  gst_init (&argc, &argv);
  bench_require_cuda (1);
  g_print ("| input | output | copy ms | GPU stable ms (x copy) | frames/s | "
      "GPU transition ms | GPU rebuild ms | rebuild, paper's propagation | "
      "GPU pan rebuild ms | CPU stable ms | CPU transition ms | "
      "CPU/GPU transition |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    if (only_case >= 0 && (gint) c != only_case)
      continue;
    /* a mirror filling 95% of the frame's shorter side; the cuboid's
     * planes as wide as the output asks (its caps fix the rest) */
    gint side = MIN (cases[c].iw, cases[c].ih);
    gdouble f = 0.95 * side / 2 * sqrt (150.0 * 150.0 - 30.0 * 30.0) / 30.0;
    gdouble limb = 0.95 * side / 2;
    /* ground: the floor 485 units away, seen inside 45% of the image
     * radius (one Newton solve per pixel, nothing shared or kept) */
    gchar *props = cases[c].ground ?
        g_strdup_printf ("projection=ground mirror-radius=30 "
        "mirror-distance=150 focal-length=%g plane-distance=485 "
        "inner-radius=%g outer-radius=%g interpolation=bilinear", f,
        0.03 * limb, 0.45 * limb) :
        g_strdup_printf ("projection=cuboid mirror-radius=30 "
        "mirror-distance=150 focal-length=%g plane-distance=%g "
        "inner-radius=%g outer-radius=%g interpolation=bilinear", f,
        cases[c].ow / 8.0, 0.15 * limb, 0.9 * limb);
    gdouble copy, gs, gt, gp, gpan, cs = -1, ct = -1;

    if (!bench_test_frames (cases[c].iw, cases[c].ih, "RGBA", "pinwheel",
            TRUE))
      return 2;
    copy = copy_ms (cases[c].ow, cases[c].oh);
    transition = STABLE;
    if (stable_only) {
      gs = per_frame (props, cases[c].ow, cases[c].oh, TRUE, 1000, 11000);
      g_print ("| %dx%d | %dx%d%s | %.4f | %.4f (%.2f) | %.0f |\n",
          cases[c].iw, cases[c].ih, cases[c].ow, cases[c].oh,
          cases[c].ground ? " ground" : "", copy, gs, gs / copy, 1e3 / gs);
      g_free (props);
      continue;
    }
    gs = per_frame (props, cases[c].ow, cases[c].oh, TRUE, 200, 1200);
    transition = PAN;
    gpan = per_frame (props, cases[c].ow, cases[c].oh, TRUE, 50, 250);
    transition = SOLVE;
    g_setenv ("CO_OMNI_NO_KEEP", "1", TRUE);
    gt = per_frame (props, cases[c].ow, cases[c].oh, TRUE, 50, 250);
    /* the paper's guesses: each row from the row above, column by column */
    g_setenv ("CO_OMNI_PROPAGATE", "1", TRUE);
    gp = per_frame (props, cases[c].ow, cases[c].oh, TRUE, 50, 250);
    g_unsetenv ("CO_OMNI_PROPAGATE");
    g_unsetenv ("CO_OMNI_NO_KEEP");
    if (cpu_frames > 0 && bench_test_frames (cases[c].iw, cases[c].ih,
            "RGBA", "pinwheel", FALSE)) {
      transition = STABLE;
      cs = per_frame (props, cases[c].ow, cases[c].oh, FALSE, 2,
          2 + cpu_frames);
      transition = SOLVE;
      g_setenv ("CO_OMNI_NO_KEEP", "1", TRUE);
      ct = per_frame (props, cases[c].ow, cases[c].oh, FALSE, 2,
          2 + cpu_frames);
      g_unsetenv ("CO_OMNI_NO_KEEP");
    }
    g_print ("| %dx%d | %dx%d%s | %.4f | %.4f (%.2f) | %.0f | %.4f | %.4f | "
        "%.4f | %.4f | %.2f | %.2f | %.0f |\n", cases[c].iw, cases[c].ih,
        cases[c].ow, cases[c].oh, cases[c].ground ? " ground" : "", copy, gs,
        gs / copy, 1e3 / gs, gt, gt - gs, gp - gs, gpan - gs, cs, ct,
        gt > 0 ? ct / gt : 0);
    g_free (props);
  }
  return 0;
}
