/* cudaoptics — LGPL-2.1-or-later
 *
 * cudashcentroid against the paper's Table 1 (Mocci et al. 2020): square
 * regions of interest of 100 to 1000 pixels, lenslet pitches 3.8, 11, 20
 * and 29, 8-bit frames of synthetic spots (tests/sh-spots.h), centre of
 * gravity.  Side by side, in one process:
 *   - the sequential reference (the paper's Algorithm 1, double), on one
 *     CPU thread and on all of them (OpenMP);
 *   - the straightforward GPU mapping, a block per lenslet
 *     (shcentroid-baselines.cu), and cudashcentroid's kernel
 *     (kernels/shcentroid.cu), both checked against the reference first;
 *   - the device copy of one frame, the memory floor of the same run;
 *   - latency over 10,000 frames, from a frame in pinned host memory to
 *     the results in pinned host memory (upload, kernel, read-back, one
 *     synchronisation), as plain stream calls and as one CUDA graph; the
 *     frame rewritten by the CPU before each (untimed; a source leaves it
 *     in the CPU's caches); with the kernel reading the pinned frame in
 *     place (no upload); and from a
 *     frame already on the device (a camera writing GPU memory): median,
 *     99th and 99.9th percentiles, worst;
 *   - the element itself, from a buffer's arrival on its sink pad to its
 *     push with the results attached, on CUDA and on the CPU, frames from
 *     videotestsrc (in the pinned pool the element proposes) and from
 *     appsrc (pageable memory the element stages).
 *
 *   bench-shcentroid [--quick | --kernels | --element | --marks [appsrc] |
 *                     --pipelined]
 *   (exit 77 without a GPU; --quick: 1000x1000 only; --kernels: 1000x1000
 *   without the element; --element: the element alone; --marks: where the
 *   element's time goes, from the base class's trace marks; --pipelined:
 *   ways of overlapping the upload, the kernel and the read-back)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "bench-skip.h"
#include <gst/gst.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "shcentroid_math.h"
#include "bench-app.h"
#include "../sh-spots.h"

#define REPS 200
#define LATENCY_FRAMES 10000

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, \
          cudaGetErrorString (e_)); exit (1); } } while (0)

int bench_sh_block_per_lenslet (const CoShGrid * g, const uint8_t * why,
    const CoFrame * in, CoShResult * r, void *stream);

typedef int (*Kernel) (const CoShGrid *, const uint8_t *, const CoFrame *,
    CoShResult *, void *);

static double
now_us (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int
by_value (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* median, 99th and 99.9th percentiles and worst of @n samples (sorted
 * in place) */
static void
spread (double *v, int n, double q[4])
{
  qsort (v, n, sizeof *v, by_value);
  q[0] = v[n / 2];
  q[1] = v[(int) (0.99 * (n - 1))];
  q[2] = v[(int) (0.999 * (n - 1))];
  q[3] = v[n - 1];
}

/* One case: the frame, the grid, host and device. */
typedef struct
{
  int size, nx, ny, n;
  double pitch;
  uint8_t *host;                /* pinned frame */
  uint8_t *spare;               /* its copy, for FRESH */
  CoFrame dframe;
  int32_t *bx, *by;
  uint8_t *measure;
  CoShGrid g, dg;
  uint8_t *dwhy;
  CoShResult ref, dres, hres;   /* hres: pinned */
  cudaStream_t s;
} Case;

static void *
to_device (const void *p, size_t n)
{
  void *d;

  CHECK (cudaMalloc (&d, n));
  CHECK (cudaMemcpy (d, p, n, cudaMemcpyHostToDevice));
  return d;
}

static void
case_init (Case * c, int size, double pitch, cudaStream_t s)
{
  ShSpots sp = { pitch, 0.3, 0.6, 0, 0, 0.12 * pitch + 0.3, 1500.0, 10.0,
    2.0, 0.15, 8
  };
  double *tx, *ty;
  uint8_t *dmem;
  size_t n;
  int i;

  memset (c, 0, sizeof *c);
  c->size = size;
  c->pitch = pitch;
  c->s = s;
  c->nx = sp.nx = (int) floor ((size - sp.ox) / pitch);
  c->ny = sp.ny = (int) floor ((size - sp.oy) / pitch);
  c->n = c->nx * c->ny;
  n = (size_t) c->n;
  CHECK (cudaMallocHost ((void **) &c->host, (size_t) size * size));
  tx = malloc (sizeof (double) * n);
  ty = malloc (sizeof (double) * n);
  sh_spots_draw (&sp, 7, size, size, c->host, size, tx, ty);
  c->spare = malloc ((size_t) size * size);
  memcpy (c->spare, c->host, (size_t) size * size);
  free (tx);
  free (ty);
  c->bx = malloc (sizeof (int32_t) * (c->nx + 1));
  c->by = malloc (sizeof (int32_t) * (c->ny + 1));
  c->measure = malloc (n);
  memset (c->measure, 1, n);
  for (i = 0; i <= c->nx; i++)
    c->bx[i] = co_sh_boundary (sp.ox, pitch, i, size);
  for (i = 0; i <= c->ny; i++)
    c->by[i] = co_sh_boundary (sp.oy, pitch, i, size);
  c->g.nx = c->nx;
  c->g.ny = c->ny;
  c->g.bx = c->bx;
  c->g.by = c->by;
  c->g.measure = c->measure;
  c->g.method = CO_SH_COG;
  c->g.brightest = 9;
  co_sh_plan (&c->g, 1);
  c->ref.cx = malloc (sizeof (float) * n);
  c->ref.cy = malloc (sizeof (float) * n);
  c->ref.m00 = malloc (sizeof (float) * n);
  c->ref.flags = calloc (n, 1);
  c->dg = c->g;
  c->dg.bx = to_device (c->bx, sizeof (int32_t) * (c->nx + 1));
  c->dg.by = to_device (c->by, sizeof (int32_t) * (c->ny + 1));
  c->dg.measure = to_device (c->measure, n);
  CHECK (cudaMalloc ((void **) &c->dwhy, n));
  CHECK (cudaMemset (c->dwhy, 0, n));
  memset (&c->dframe, 0, sizeof c->dframe);
  c->dframe.data[0] = to_device (c->host, (size_t) size * size);
  c->dframe.pitch[0] = size;
  c->dframe.width = c->dframe.height = size;
  c->dframe.format = CO_FORMAT_GRAY8;
  /* the element's layout: the results one block, read back at once */
  CHECK (cudaMalloc ((void **) &dmem, co_sh_result_bytes (c->n, 0)));
  co_sh_result_in (&c->dres, dmem, c->n, 0);
  CHECK (cudaMallocHost ((void **) &dmem, co_sh_result_bytes (c->n, 0)));
  co_sh_result_in (&c->hres, dmem, c->n, 0);
}

static void
case_clear (Case * c)
{
  CHECK (cudaFreeHost (c->host));
  free (c->spare);
  CHECK (cudaFreeHost (c->hres.cx));
  CHECK (cudaFree (c->dres.cx));
  CHECK (cudaFree ((void *) c->dg.bx));
  CHECK (cudaFree ((void *) c->dg.by));
  CHECK (cudaFree ((void *) c->dg.measure));
  CHECK (cudaFree (c->dwhy));
  CHECK (cudaFree (c->dframe.data[0]));
  free (c->bx);
  free (c->by);
  free (c->measure);
  free (c->ref.cx);
  free (c->ref.cy);
  free (c->ref.m00);
  free (c->ref.flags);
}

/* ms per frame of the reference on @threads threads, median of a few */
static double
cpu_ms (Case * c, int threads)
{
  CoFrame f = c->dframe;
  double t[9], q[4];
  int i, reps = c->size >= 500 ? 5 : 9;

  f.data[0] = c->host;
#ifdef _OPENMP
  omp_set_num_threads (threads);
#endif
  for (i = 0; i < reps; i++) {
    double t0 = now_us ();
    if (co_sh_reference (&c->g, &f, &c->ref) != 0)
      exit (1);
    t[i] = (now_us () - t0) / 1e3;
  }
  spread (t, reps, q);
  return q[0];
}

/* The results in pinned host memory within 1e-4 pixel of the
 * reference's (after any run that wrote them there). */
static int
host_agrees (Case * c, const char *name)
{
  double worst = 0.0;
  int i;

  for (i = 0; i < c->n; i++) {
    if (c->hres.flags[i] != c->ref.flags[i]) {
      fprintf (stderr, "%s, lenslet %d: flags %d, the reference's %d\n",
          name, i, c->hres.flags[i], c->ref.flags[i]);
      return 0;
    }
    worst = fmax (worst, fmax (fabs (c->hres.cx[i] - c->ref.cx[i]),
            fabs (c->hres.cy[i] - c->ref.cy[i])));
  }
  if (worst > 1e-4)
    fprintf (stderr, "%s: %g pixels from the reference\n", name, worst);
  return worst <= 1e-4;
}

/* The kernel's centroids within 1e-4 pixel of the reference's. */
static int
agrees (Case * c, Kernel k, const char *name)
{
  CHECK ((cudaError_t) k (&c->dg, c->dwhy, &c->dframe, &c->dres, c->s));
  CHECK (cudaMemcpyAsync (c->hres.cx, c->dres.cx, co_sh_result_bytes (c->n, 0),
          cudaMemcpyDeviceToHost, c->s));
  CHECK (cudaStreamSynchronize (c->s));
  return host_agrees (c, name);
}

/* µs per launch, REPS back to back between two events */
static double
kernel_us (Case * c, Kernel k)
{
  cudaEvent_t a, b;
  float ms;
  int i;

  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  for (i = 0; i < 20; i++)
    CHECK ((cudaError_t) k (&c->dg, c->dwhy, &c->dframe, &c->dres, c->s));
  CHECK (cudaEventRecord (a, c->s));
  for (i = 0; i < REPS; i++)
    CHECK ((cudaError_t) k (&c->dg, c->dwhy, &c->dframe, &c->dres, c->s));
  CHECK (cudaEventRecord (b, c->s));
  CHECK (cudaEventSynchronize (b));
  CHECK (cudaEventElapsedTime (&ms, a, b));
  CHECK (cudaEventDestroy (a));
  CHECK (cudaEventDestroy (b));
  return ms * 1e3 / REPS;
}

static double
copy_us (Case * c)
{
  size_t bytes = (size_t) c->size * c->size;
  cudaEvent_t a, b;
  void *d;
  float ms;
  int i;

  CHECK (cudaMalloc (&d, bytes));
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  CHECK (cudaEventRecord (a, c->s));
  for (i = 0; i < REPS; i++)
    CHECK (cudaMemcpyAsync (d, c->dframe.data[0], bytes,
            cudaMemcpyDeviceToDevice, c->s));
  CHECK (cudaEventRecord (b, c->s));
  CHECK (cudaEventSynchronize (b));
  CHECK (cudaEventElapsedTime (&ms, a, b));
  CHECK (cudaEventDestroy (a));
  CHECK (cudaEventDestroy (b));
  CHECK (cudaFree (d));
  return ms * 1e3 / REPS;
}

enum
{ ON_DEVICE, UPLOAD, IN_PLACE, FRESH, TO_HOST, BANDS_BACK };

static int bands = 4;
static cudaStream_t up, down;
static cudaEvent_t fork_ev, uploaded[16], measured[16], read_back[16];

/* Lenslet rows [j0, j1) of @c as a grid of their own: the same frame
 * coordinates, their flags and results at their offset. */
static void
band_of (Case * c, int j0, int j1, CoShGrid * g, const uint8_t ** why,
    CoShResult * r, const CoShResult * all)
{
  const size_t at = (size_t) j0 * c->nx;

  *g = c->dg;
  g->ny = j1 - j0;
  g->by = c->dg.by + j0;
  g->measure = c->dg.measure + at;
  *why = c->dwhy + at;
  r->cx = all->cx + at;
  r->cy = all->cy + at;
  r->m00 = all->m00 + at;
  r->flags = all->flags + at;
  r->sx = r->sy = NULL;
}

/* The frame in bands of lenslet rows on three streams: band b+1 uploads
 * while band b is measured, and band b's results come back (the three
 * float arrays as one 2D copy, the flags as another) while band b+1 is
 * measured.  Forked from and joined to the frame's stream, so it can be
 * captured as one graph. */
static void
banded_work (Case * c)
{
  const size_t row = (size_t) c->size;
  int b;

  CHECK (cudaEventRecord (fork_ev, c->s));
  CHECK (cudaStreamWaitEvent (up, fork_ev, 0));
  CHECK (cudaStreamWaitEvent (down, fork_ev, 0));
  for (b = 0; b < bands; b++) {
    const int j0 = c->ny * b / bands, j1 = c->ny * (b + 1) / bands;
    const int r0 = b ? c->by[j0] : 0;
    const int r1 = b == bands - 1 ? c->size : c->by[j1];
    const size_t at = (size_t) j0 * c->nx, m = (size_t) (j1 - j0) * c->nx;
    CoShGrid g;
    CoShResult r;
    const uint8_t *why;

    CHECK (cudaMemcpyAsync (c->dframe.data[0] + r0 * row, c->host + r0 * row,
            (r1 - r0) * row, cudaMemcpyHostToDevice, up));
    CHECK (cudaEventRecord (uploaded[b], up));
    CHECK (cudaStreamWaitEvent (c->s, uploaded[b], 0));
    band_of (c, j0, j1, &g, &why, &r, &c->dres);
    CHECK ((cudaError_t) co_sh_cuda (&g, why, &c->dframe, &r, c->s));
    CHECK (cudaEventRecord (measured[b], c->s));
    CHECK (cudaStreamWaitEvent (down, measured[b], 0));
    CHECK (cudaMemcpy2DAsync (c->hres.cx + at, sizeof (float) * c->n,
            c->dres.cx + at, sizeof (float) * c->n, sizeof (float) * m, 3,
            cudaMemcpyDeviceToHost, down));
    CHECK (cudaMemcpyAsync (c->hres.flags + at, c->dres.flags + at, m,
            cudaMemcpyDeviceToHost, down));
  }
  CHECK (cudaEventRecord (read_back[0], down));
  CHECK (cudaStreamWaitEvent (c->s, read_back[0], 0));
}

/* One frame's work on the stream: the frame uploaded first (UPLOAD), read
 * where it is in pinned host memory (IN_PLACE, as the element reads frames
 * from the pinned pool it proposes) or already on the device; the kernel;
 * the read-back. */
static void
frame_work (Case * c, int where)
{
  CoFrame f = c->dframe;

  if (where == BANDS_BACK) {
    banded_work (c);
    return;
  }
  if (where == TO_HOST) {
    CHECK (cudaMemcpyAsync (c->dframe.data[0], c->host, (size_t) c->size *
            c->size, cudaMemcpyHostToDevice, c->s));
    CHECK ((cudaError_t) co_sh_cuda (&c->dg, c->dwhy, &f, &c->hres, c->s));
    return;
  }

  if (where == UPLOAD || where == FRESH)
    CHECK (cudaMemcpyAsync (c->dframe.data[0], c->host, (size_t) c->size *
            c->size, cudaMemcpyHostToDevice, c->s));
  if (where == IN_PLACE)
    f.data[0] = c->host;        /* pinned: one address space (UVA) */
  CHECK ((cudaError_t) co_sh_cuda (&c->dg, c->dwhy, &f, &c->dres, c->s));
  CHECK (cudaMemcpyAsync (c->hres.cx, c->dres.cx, co_sh_result_bytes (c->n, 0),
          cudaMemcpyDeviceToHost, c->s));
}

/* Latency of LATENCY_FRAMES frames, each from its first call to the
 * results on the host: plain calls, or one graph launch. */
static void
latency (Case * c, int where, int graph, double q[4])
{
  static double t[LATENCY_FRAMES];
  cudaGraphExec_t exec = NULL;
  int i;

  if (graph) {
    cudaGraph_t gr;
    CHECK (cudaStreamBeginCapture (c->s, cudaStreamCaptureModeThreadLocal));
    frame_work (c, where);
    CHECK (cudaStreamEndCapture (c->s, &gr));
#if CUDART_VERSION >= 12000
    CHECK (cudaGraphInstantiate (&exec, gr, 0));
#else
    CHECK (cudaGraphInstantiate (&exec, gr, NULL, NULL, 0));
#endif
    CHECK (cudaGraphDestroy (gr));
  }
  for (i = -100; i < LATENCY_FRAMES; i++) {
    double t0;
    /* FRESH: the frame rewritten by the CPU first (untimed), as a camera
     * driver or a source element leaves it: in the CPU's caches */
    if (where == FRESH)
      memcpy (c->host, c->spare, (size_t) c->size * c->size);
    t0 = now_us ();
    if (graph)
      CHECK (cudaGraphLaunch (exec, c->s));
    else
      frame_work (c, where);
    CHECK (cudaStreamSynchronize (c->s));
    if (i >= 0)
      t[i] = now_us () - t0;
  }
  if (exec)
    CHECK (cudaGraphExecDestroy (exec));
  spread (t, LATENCY_FRAMES, q);
}

/* --pipelined: ways to hide the upload and the read-back, 1000x1000 */
static int
pipelined (cudaStream_t s)
{
  static const double pitches[] = { 3.8, 11.0, 20.0, 29.0 };
  static const int band_counts[] = { 2, 3, 4, 8 };
  int pi, b, i, graph;

  CHECK (cudaStreamCreateWithFlags (&up, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&down, cudaStreamNonBlocking));
  CHECK (cudaEventCreateWithFlags (&fork_ev, cudaEventDisableTiming));
  for (i = 0; i < 16; i++) {
    CHECK (cudaEventCreateWithFlags (&uploaded[i], cudaEventDisableTiming));
    CHECK (cudaEventCreateWithFlags (&measured[i], cudaEventDisableTiming));
    CHECK (cudaEventCreateWithFlags (&read_back[i], cudaEventDisableTiming));
  }
  printf ("| pitch | serial: upload, kernel, read-back | as one graph | "
      "kernel writes the results to pinned memory | bands of rows on three "
      "streams: 2 / 3 / 4 / 8 | the same, as one graph |\n"
      "|---:|---|---|---|---|---|\n");
  for (pi = 0; pi < 4; pi++) {
    Case c;
    double q[4];
    case_init (&c, 1000, pitches[pi], s);
    cpu_ms (&c, 1);
    printf ("| %g |", c.pitch);
    for (graph = 0; graph < 2; graph++) {
      memset (c.hres.cx, 0, co_sh_result_bytes (c.n, 0));
      latency (&c, UPLOAD, graph, q);
      if (!host_agrees (&c, "serial"))
        return 3;
      printf (" %.1f / %.1f / %.1f |", q[0], q[1], q[2]);
    }
    memset (c.hres.cx, 0, co_sh_result_bytes (c.n, 0));
    latency (&c, TO_HOST, 0, q);
    if (!host_agrees (&c, "to host"))
      return 3;
    printf (" %.1f / %.1f / %.1f |", q[0], q[1], q[2]);
    for (graph = 0; graph < 2; graph++) {
      for (b = 0; b < 4; b++) {
        bands = band_counts[b];
        memset (c.hres.cx, 0, co_sh_result_bytes (c.n, 0));
        latency (&c, BANDS_BACK, graph, q);
        if (!host_agrees (&c, "bands"))
          return 3;
        printf (" %.1f / %.1f / %.1f%s", q[0], q[1], q[2], b < 3 ? ";" : "");
      }
      printf (" |");
    }
    printf ("\n");
    fflush (stdout);
    case_clear (&c);
  }
  printf ("(median / p99 / p99.9 µs, %d frames each, all checked)\n",
      LATENCY_FRAMES);
  for (i = 0; i < 16; i++) {
    CHECK (cudaEventDestroy (uploaded[i]));
    CHECK (cudaEventDestroy (measured[i]));
    CHECK (cudaEventDestroy (read_back[i]));
  }
  CHECK (cudaEventDestroy (fork_ev));
  CHECK (cudaStreamDestroy (up));
  CHECK (cudaStreamDestroy (down));
  return 0;
}

/* ---- the element ---- */

static double arrived;
static char frames_in[64];
static double element_t[LATENCY_FRAMES + 200];
static int element_n;
static GstElement *element;
static gboolean probed;

/* --marks: when the base class's trace marks come after the frame's
 * arrival, caught by a log function that only stamps them (no text) */
#define MAX_MARKS 12
static int marking, n_marks;
static struct
{
  const gchar *file, *function;
  gint line;
  double *t;
} marks[MAX_MARKS];

static void
on_log (GstDebugCategory * category, GstDebugLevel level, const gchar * file,
    const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  const double t = now_us () - arrived;
  int i;

  if (!marking || level != GST_LEVEL_TRACE || element_n >= LATENCY_FRAMES +
      200)
    return;
  for (i = 0; i < n_marks; i++)
    if (marks[i].line == line && marks[i].file == file)
      break;
  if (i == n_marks) {
    if (n_marks == MAX_MARKS)
      return;
    marks[i].file = file;
    marks[i].function = function;
    marks[i].line = line;
    marks[i].t = g_new0 (double, LATENCY_FRAMES + 200);
    n_marks++;
  }
  marks[i].t[element_n] = t;
}

static void
print_marks (void)
{
  int i;

  printf ("\n| trace mark (after the frame's arrival) | median µs | p99 µs "
      "| p99.9 µs |\n|---|---:|---:|---:|\n");
  for (i = 0; i < n_marks; i++) {
    double q[4];
    spread (marks[i].t + 200, LATENCY_FRAMES, q);
    printf ("| %s:%d | %.1f | %.1f | %.1f |\n", marks[i].function,
        marks[i].line, q[0], q[1], q[2]);
    g_free (marks[i].t);
  }
  n_marks = 0;
}

static GstPadProbeReturn
on_sink (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  arrived = now_us ();
  if (element_n == 200) {
    /* what memory the measured frames come in: CoHostMemory is the pinned
     * pool's, SystemMemory pageable */
    GstMemory *m = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info),
        0);
    g_strlcpy (frames_in, m->allocator ? m->allocator->mem_type : "unknown",
        sizeof frames_in);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_src (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if (element_n < (int) G_N_ELEMENTS (element_t))
    element_t[element_n++] = now_us () - arrived;
  return GST_PAD_PROBE_OK;
}

/* appsrc's need-data, and once with no source to add the probes */
static void
need_data (GstAppSrc * src, guint length, gpointer data)
{
  if (!probed && element) {
    GstPad *sink = gst_element_get_static_pad (element, "sink");
    GstPad *srcpad = gst_element_get_static_pad (element, "src");
    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, on_sink, NULL, NULL);
    gst_pad_add_probe (srcpad, GST_PAD_PROBE_TYPE_BUFFER, on_src, NULL,
        NULL);
    gst_object_unref (sink);
    gst_object_unref (srcpad);
    probed = TRUE;
  }
  if (src)
    bench_push (src);
}

/* The element's latency over LATENCY_FRAMES frames after 200 of warm-up,
 * frames from appsrc (pageable memory, staged by the element) or from
 * videotestsrc (which takes the pinned pool the element proposes, read by
 * the device where it is); FALSE when the pipeline failed. */
static gboolean
element_latency (int size, double pitch, const char *backend, int pool,
    double q[4])
{
  const int n = LATENCY_FRAMES + 200;
  gchar *d;
  double t = 0;

  element_n = 0;
  probed = FALSE;
  g_strlcpy (frames_in, "?", sizeof frames_in);
  if (pool != 1) {
    d = g_strdup_printf ("appsrc name=src format=time ! cudashcentroid "
        "name=el backend=%s pitch=%g message-interval=0 ! fakesink "
        "sync=false", backend, pitch);
    if (!bench_test_frames (size, size, "GRAY8", "snow", FALSE))
      return FALSE;
    bench_pin = pool == 2;      /* appsrc asks for the element's pool */
    t = bench_run (d, G_CALLBACK (need_data), &element, n);
    bench_pin = FALSE;
  } else {
    GstElement *p;
    GstMessage *m;
    d = g_strdup_printf ("videotestsrc pattern=snow num-buffers=%d ! "
        "video/x-raw,format=GRAY8,width=%d,height=%d ! cudashcentroid name=el "
        "backend=%s pitch=%g message-interval=0 ! fakesink sync=false", n,
        size, size, backend, pitch);
    p = gst_parse_launch (d, NULL);
    if (!p)
      return FALSE;
    element = gst_bin_get_by_name (GST_BIN (p), "el");
    need_data (NULL, 0, NULL);
    gst_element_set_state (p, GST_STATE_PLAYING);
    m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 300 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    t = m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS ? 1 : -1;
    gst_clear_message (&m);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_clear_object (&element);
    gst_object_unref (p);
  }
  g_free (d);
  if (t < 0 || element_n < n)
    return FALSE;
  spread (element_t + 200, LATENCY_FRAMES, q);
  return TRUE;
}

int
main (int argc, char **argv)
{
  static const int sizes[] = { 100, 200, 500, 1000 };
  static const double pitches[] = { 3.8, 11.0, 20.0, 29.0 };
  const int quick = argc > 1 && !strcmp (argv[1], "--quick");
  const int only_element = argc > 1 && !strcmp (argv[1], "--element");
  const int only_kernels = argc > 1 && !strcmp (argv[1], "--kernels");
  const int only_marks = argc > 1 && !strcmp (argv[1], "--marks");
  struct cudaDeviceProp prop;
  cudaStream_t s;
  int si, pi, threads = 1;

  bench_require_cuda (1);
  gst_init (&argc, &argv);
  CHECK (cudaGetDeviceProperties (&prop, 0));
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  printf ("%s; CPU reference on 1 and %d threads\n\n", prop.name, threads);
  if (argc > 1 && !strcmp (argv[1], "--pipelined"))
    return pipelined (s);
  if (only_marks) {
    /* the element on CUDA, pitch 11, frames in its pinned pool written
     * once (appsrc) and drawn anew each time (videotestsrc): where its
     * time goes */
    gst_debug_remove_log_function (gst_debug_log_default);
    gst_debug_add_log_function (on_log, NULL, NULL);
    gst_debug_set_threshold_for_name ("cobasefilter", GST_LEVEL_TRACE);
    gst_debug_set_threshold_for_name ("cudashcentroid", GST_LEVEL_TRACE);
    marking = 1;
    /* --marks appsrc: only the first (videotestsrc draws snow for ms) */
    for (si = 2; si >= (argc > 2 && !strcmp (argv[2], "appsrc") ? 2 : 1);
        si--) {
      double q[4];
      if (!element_latency (1000, 11.0, "cuda", si, q))
        return 2;
      printf ("\n1000x1000 GRAY8, pitch 11, %s, frames in %s: sink to src "
          "%.1f / %.1f / %.1f µs (median / p99 / p99.9)", si == 2 ?
          "appsrc, frames written once into the element's pool" :
          "videotestsrc", frames_in, q[0], q[1], q[2]);
      print_marks ();
    }
    return 0;
  }
  printf ("| RoI | pitch | lenslets | CPU 1 thread ms | CPU %d threads ms "
      "| GPU block per lenslet µs | cudashcentroid µs | × block | "
      "frame copy µs | latency, host frame: median / p99 / p99.9 / worst "
      "µs | as a CUDA graph | host frame just written by the CPU | pinned "
      "frame read in place | frame on the device |\n"
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|---|\n",
      threads);
  {
    /* the clocks up and the modules loaded before the first figure */
    Case c;
    double q[4];
    case_init (&c, 500, 11.0, s);
    cpu_ms (&c, threads);
    agrees (&c, co_sh_cuda, "warm-up");
    kernel_us (&c, bench_sh_block_per_lenslet);
    latency (&c, UPLOAD, 0, q);
    case_clear (&c);
  }
  for (si = quick || only_kernels ? 3 : only_element ? 4 : 0; si < 4; si++)
    for (pi = 0; pi < 4; pi++) {
      Case c;
      double cpu1, cpun, base, ours, copy, m[4], g[4], w[4], z[4], d[4];

      case_init (&c, sizes[si], pitches[pi], s);
      cpu1 = cpu_ms (&c, 1);
      cpun = cpu_ms (&c, threads);
      if (!agrees (&c, bench_sh_block_per_lenslet, "block per lenslet") ||
          !agrees (&c, co_sh_cuda, "cudashcentroid"))
        return 3;
      base = kernel_us (&c, bench_sh_block_per_lenslet);
      ours = kernel_us (&c, co_sh_cuda);
      copy = copy_us (&c);
      latency (&c, UPLOAD, 0, m);
      latency (&c, UPLOAD, 1, g);
      latency (&c, FRESH, 0, w);
      latency (&c, IN_PLACE, 0, z);
      latency (&c, ON_DEVICE, 0, d);
      printf ("| %d | %g | %d | %.3f | %.3f | %.1f | %.1f | %.1f | %.1f | "
          "%.1f / %.1f / %.1f / %.0f | %.1f / %.1f / %.1f / %.0f | "
          "%.1f / %.1f / %.1f / %.0f | %.1f / %.1f / %.1f / %.0f | "
          "%.1f / %.1f / %.1f / %.0f |\n", c.size, c.pitch, c.n, cpu1, cpun,
          base, ours, base / ours, copy, m[0], m[1], m[2], m[3], g[0], g[1],
          g[2], g[3], w[0], w[1], w[2], w[3], z[0], z[1], z[2], z[3], d[0],
          d[1], d[2], d[3]);
      fflush (stdout);
      case_clear (&c);
    }
  printf ("\nall kernels within 1e-4 pixel of the reference\n\n"
      "| element | source | frames in | pitch | backend | median µs | "
      "p99 µs | p99.9 µs | worst µs |\n"
      "|---|---|---|---:|---|---:|---:|---:|---:|\n");
  /* --element: pitch 11 on CUDA only (videotestsrc's snow takes a few ms
   * a frame to draw at 1000x1000) */
  for (si = quick ? 3 : only_kernels ? 4 : 2; si < 4; si++)
    for (pi = 1; pi < (only_element ? 2 : 4); pi += 2) {
      const char *backends[] = { "cuda", "cpu" };
      int b, pool;
      /* 2: appsrc with frames in the element's pool, 1: videotestsrc
       * (which takes the pool the element proposes), 0: appsrc's own
       * pageable frames */
      for (pool = 2; pool >= 0; pool--)
        for (b = 0; b < (only_element ? 1 : 2); b++) {
          const char *src[] = { "appsrc, own frames",
            "videotestsrc", "appsrc, frames in the element's pool"
          };
          double q[4];
          if (!element_latency (sizes[si], pitches[pi], backends[b], pool,
                  q)) {
            fprintf (stderr, "the element's pipeline failed\n");
            return 2;
          }
          printf ("| %dx%d GRAY8 | %s | %s | %g | %s | %.1f | %.1f | %.1f | "
              "%.0f |\n", sizes[si], sizes[si], src[pool], frames_in,
              pitches[pi], backends[b], q[0], q[1], q[2], q[3]);
          fflush (stdout);
        }
    }
  bench_clear_frames ();
  CHECK (cudaStreamDestroy (s));
  return 0;
}
