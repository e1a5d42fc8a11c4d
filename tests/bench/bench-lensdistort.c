/* cudaoptics — LGPL-2.1-or-later
 *
 * bench-lensdistort: Table 2 of Kim et al., "Real-Time Lens Distortion
 * Algorithm on an Edge Device With GPU" (IEEE Access 2022), measured again
 * on this machine: the CPU baseline, the paper's GPU_naive and GPU_LUT, its
 * forward mapping and its compressed backward LUT ("ours"), next to a
 * device-to-device copy (the bandwidth floor) and NPP's nppiRemap when
 * libnppig can be loaded at run time.
 * Exit status: 0 ok, 1 CUDA or allocation error, 77 no usable CUDA device,
 * 3 the GPU output differs from the C reference.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <cuda_runtime_api.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "lensdistort.h"
#include "bench-npp.h"
#include "bench-skip.h"

#define N_FRAMES 8              /* rotating buffers, 8 x 8K RGBA >> 50 MB L2 */
#define WARMUP 20
#define ITERS 200
#define BATCH 10
#define N_BATCH (ITERS / BATCH)
#define E2E_WARMUP 5
#define E2E_ITERS 50
#define CPU_RUNS 5
#define N_SIZES 4

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,     \
          #call, cudaGetErrorString (e_)); exit (1); } } while (0)

typedef int (*NppRemapFn) (const unsigned char *pSrc, NppiSize oSrcSize,
    int nSrcStep, NppiRect oSrcROI, const float *pXMap, int nXMapStep,
    const float *pYMap, int nYMapStep, unsigned char *pDst, int nDstStep,
    NppiSize oDstSizeROI, int eInterpolation, NppStreamContext ctx);

static NppRemapFn npp_remap_fn;
static NppStreamContext npp_ctx;
static char npp_lib[256] = "not found";

typedef enum
{ K_COPY, K_REMAP, K_FWD, K_NPP, K_CPU, K_E2E } Kind;

enum
{
  V_COPY, V_NAIVE, V_TWO, V_FWD, V_COMP, V_NAIVE_BL, V_TWO_BL, V_COMP_BL,
  V_NPP_NN, V_NPP_BL, V_CPU_NAIVE, V_CPU_LUT, V_E2E, V_E2E_BL, N_VARIANTS
};

/* bytes: the least traffic per output pixel the variant must move */
#define NN CO_INTERP_NEAREST
#define BL CO_INTERP_BILINEAR
static const struct
{
  const char *name;
  Kind kind;
  CoLutMode mode;
  CoInterp interp;
  int bytes;
} variants[N_VARIANTS] = {
  {"copy", K_COPY, 0, NN, 8},
  {"GPU naive", K_REMAP, CO_LUT_COMPUTE, NN, 8},
  {"GPU LUT (two-table)", K_REMAP, CO_LUT_TWO_TABLE, NN, 16},
  {"ours forward", K_FWD, 0, NN, 12},
  {"ours backward (compressed)", K_REMAP, CO_LUT_COMPRESSED, NN, 12},
  {"GPU naive bilinear", K_REMAP, CO_LUT_COMPUTE, BL, 8},
  {"GPU LUT (two-table) bilinear", K_REMAP, CO_LUT_TWO_TABLE, BL, 16},
  {"ours backward (compressed) bilinear", K_REMAP, CO_LUT_COMPRESSED, BL, 12},
  {"NPP nppiRemap_8u_C4R_Ctx nearest", K_NPP, 0, NN, 16},
  {"NPP nppiRemap_8u_C4R_Ctx linear", K_NPP, 0, BL, 16},
  {"CPU naive", K_CPU, CO_LUT_COMPUTE, NN, 8},
  {"CPU LUT", K_CPU, CO_LUT_COMPRESSED, NN, 12},
  {"e2e ours backward (compressed)", K_E2E, CO_LUT_COMPRESSED, NN, 0},
  {"e2e ours backward (compressed) bilinear", K_E2E, CO_LUT_COMPRESSED, BL, 0},
};

#undef NN
#undef BL

static const struct
{
  const char *name;
  int w, h;
} sizes[N_SIZES] = {
  {"720p", 1280, 720}, {"1080p", 1920, 1080}, {"4K", 3840, 2160},
  {"8K", 7680, 4320}
};

/* Everything one frame size needs; LUTs indexed [interp][mode]. */
typedef struct
{
  int si, w, h;
  size_t row;                   /* bytes of one tight host row */
  cudaStream_t s;
  CoLensParams p;
  uint32_t border[CO_MAX_PLANES];
  CoFrame in[N_FRAMES], out[N_FRAMES];
  CoLut dlut[2][3], hlut[2][3];
  void *dtab[12], *htab[12];    /* the tables behind dlut and hlut */
  uint32_t *fwd;
  float *npp_x, *npp_y;
  uint8_t *pin_in, *pin_out, *ref;
} Bench;

static double results[N_VARIANTS][N_SIZES];
/* --model hmd-chroma: red and blue have geometries of their own */
static int chroma;

/* The least bytes per pixel variant @v moves: a chromatic table is read
 * three times (the taps of the three colours mostly share cache lines) */
static int
min_bytes (int v)
{
  int b = variants[v].bytes;
  if (chroma && variants[v].mode == CO_LUT_COMPRESSED && b)
    b += 8;
  else if (chroma && variants[v].mode == CO_LUT_TWO_TABLE && b)
    b += 16;
  return b;
}
static cudaEvent_t ev[N_BATCH + 1];
static int gate_open, gate_expired;

static double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof (double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void
fill_random (uint8_t * p, size_t n, uint64_t seed)
{
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
  size_t i;

  for (i = 0; i < n; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    memcpy (p + i, &x, n - i < 8 ? n - i : 8);
  }
}

/* Holds the stream until every timed launch is queued, so the GPU runs them
 * back to back instead of waiting for the host; gives up after a second in
 * case the launch queue fills first (that would otherwise deadlock). */
static void CUDART_CB
gate_fn (void *arg)
{
  double t0 = now_ms ();
  int expired;

  (void) arg;
  do
    expired = now_ms () - t0 > 1000.0;
  while (!__atomic_load_n (&gate_open, __ATOMIC_ACQUIRE) && !expired);
  __atomic_store_n (&gate_expired, expired, __ATOMIC_RELEASE);
}

static void
load_npp (void)
{
  char path[200];
  void *h = bench_npp_open ("libnppig", path, sizeof (path));

  if (!h)
    return;
  npp_remap_fn = (NppRemapFn) dlsym (h, "nppiRemap_8u_C4R_Ctx");
  snprintf (npp_lib, sizeof (npp_lib), "%s%s", path,
      npp_remap_fn ? "" : " (no nppiRemap_8u_C4R_Ctx)");
}

static CoFrame
host_frame (const Bench * b, uint8_t * data)
{
  CoFrame f;

  memset (&f, 0, sizeof (f));
  f.data[0] = data;
  f.pitch[0] = (int32_t) b->row;
  f.width = b->w;
  f.height = b->h;
  f.format = CO_FORMAT_RGBA;
  return f;
}

static CoFrame
device_frame (const Bench * b)
{
  CoFrame f = host_frame (b, NULL);
  size_t pitch;

  CHECK (cudaMallocPitch ((void **) &f.data[0], &pitch, b->row, b->h));
  f.pitch[0] = (int32_t) pitch;
  return f;
}

/* One launch of variant v on frame i % N_FRAMES: 0, a cudaError_t, or an
 * NPP status. */
static int
launch (Bench * b, int v, int i)
{
  CoFrame *in = &b->in[i % N_FRAMES], *out = &b->out[i % N_FRAMES];

  switch (variants[v].kind) {
    case K_COPY:
      /* one linear copy where rows are contiguous: the 2D copy engine path
       * measured ~40% slower on the H100 and would flatter the ratios */
      if (in->pitch[0] == out->pitch[0] && (size_t) in->pitch[0] == b->row)
        return cudaMemcpyAsync (out->data[0], in->data[0], b->row * b->h,
            cudaMemcpyDeviceToDevice, b->s);
      return cudaMemcpy2DAsync (out->data[0], out->pitch[0], in->data[0],
          in->pitch[0], b->row, b->h, cudaMemcpyDeviceToDevice, b->s);
    case K_REMAP:
      return co_lens_remap_cuda (&b->p,
          &b->dlut[variants[v].interp][variants[v].mode], in, out, b->border,
          b->s);
    case K_FWD:
      return co_lens_remap_forward_cuda (b->fwd,
          b->dlut[0][CO_LUT_COMPRESSED].plane[0].pitch, in, out, b->s);
    case K_NPP:{               /* NPPI_INTER_NN 1, NPPI_INTER_LINEAR 2 */
      NppiSize sz = { b->w, b->h };
      NppiRect roi = { 0, 0, b->w, b->h };
      int step = b->dlut[0][CO_LUT_TWO_TABLE].plane[0].pitch * 4;
      int st = npp_remap_fn (in->data[0], sz, in->pitch[0], roi, b->npp_x,
          step, b->npp_y, step, out->data[0], out->pitch[0], sz,
          variants[v].interp == CO_INTERP_NEAREST ? 1 : 2, npp_ctx);
      return st < 0 ? st : 0;   /* positive: a warning */
    }
    default:
      return cudaErrorInvalidValue;
  }
}

/* NPP errors skip the row; our own launchers failing is fatal. */
static double
launch_failed (Bench * b, int v, int st)
{
  if (variants[v].kind != K_NPP) {
    fprintf (stderr, "%s: launch failed: %s\n", variants[v].name,
        cudaGetErrorString ((cudaError_t) st));
    exit (1);
  }
  printf ("%s: NPP status %d, row skipped\n", variants[v].name, st);
  CHECK (cudaStreamSynchronize (b->s));
  return NAN;
}

static double
time_gpu (Bench * b, int v)
{
  double t[N_BATCH];
  int i, k, st;

  for (i = 0; i < WARMUP; i++)
    if ((st = launch (b, v, i)) != 0)
      return launch_failed (b, v, st);
  CHECK (cudaStreamSynchronize (b->s));

  __atomic_store_n (&gate_open, 0, __ATOMIC_RELEASE);
  CHECK (cudaLaunchHostFunc (b->s, gate_fn, NULL));
  CHECK (cudaEventRecord (ev[0], b->s));
  for (k = 0; k < N_BATCH; k++) {
    for (i = 0; i < BATCH; i++) {
      if ((st = launch (b, v, k * BATCH + i)) != 0) {
        __atomic_store_n (&gate_open, 1, __ATOMIC_RELEASE);
        return launch_failed (b, v, st);
      }
    }
    CHECK (cudaEventRecord (ev[k + 1], b->s));
  }
  __atomic_store_n (&gate_open, 1, __ATOMIC_RELEASE);
  CHECK (cudaStreamSynchronize (b->s));
  if (__atomic_load_n (&gate_expired, __ATOMIC_ACQUIRE))
    fprintf (stderr, "note: %s: the gate expired before all launches were "
        "queued; its time includes host launch gaps\n", variants[v].name);

  for (k = 0; k < N_BATCH; k++) {
    float ms;
    CHECK (cudaEventElapsedTime (&ms, ev[k], ev[k + 1]));
    t[k] = ms / BATCH;
  }
  return median (t, N_BATCH);
}

static double
time_cpu (Bench * b, int v)
{
  const CoLut *lut = &b->hlut[CO_INTERP_NEAREST][variants[v].mode];
  CoFrame in = host_frame (b, b->pin_in), out = host_frame (b, b->ref);
  double t[CPU_RUNS];
  int r;

  for (r = -1; r < CPU_RUNS; r++) {
    double t0 = now_ms ();
    co_lens_remap_cpu (&b->p, lut, &in, &out, b->border);
    if (r >= 0)
      t[r] = now_ms () - t0;
  }
  return median (t, CPU_RUNS);
}

/* pinned host -> device, kernel, device -> pinned host, one frame at a time */
static double
time_e2e (Bench * b, int v)
{
  const CoLut *lut = &b->dlut[variants[v].interp][CO_LUT_COMPRESSED];
  double t[E2E_ITERS];
  int i, st;

  for (i = -E2E_WARMUP; i < E2E_ITERS; i++) {
    CoFrame *in = &b->in[(i + E2E_WARMUP) % N_FRAMES];
    CoFrame *out = &b->out[(i + E2E_WARMUP) % N_FRAMES];
    float ms;

    CHECK (cudaEventRecord (ev[0], b->s));
    CHECK (cudaMemcpy2DAsync (in->data[0], in->pitch[0], b->pin_in, b->row,
            b->row, b->h, cudaMemcpyHostToDevice, b->s));
    if ((st = co_lens_remap_cuda (&b->p, lut, in, out, b->border, b->s)))
      return launch_failed (b, v, st);
    CHECK (cudaMemcpy2DAsync (b->pin_out, b->row, out->data[0],
            out->pitch[0], b->row, b->h, cudaMemcpyDeviceToHost, b->s));
    CHECK (cudaEventRecord (ev[1], b->s));
    CHECK (cudaEventSynchronize (ev[1]));
    CHECK (cudaEventElapsedTime (&ms, ev[0], ev[1]));
    if (i >= 0)
      t[i] = ms;
  }
  return median (t, E2E_ITERS);
}

/* Mismatching pixels between the GPU's frame 0 and the C reference. */
static long
check (Bench * b, int v)
{
  const CoLut *hlut = &b->hlut[variants[v].interp][variants[v].mode];
  CoFrame in = host_frame (b, b->pin_in), ref = host_frame (b, b->ref);
  size_t i, n = (size_t) b->w * b->h;
  long bad = 0;
  int st;

  co_lens_remap_cpu (&b->p, hlut, &in, &ref, b->border);
  CHECK (cudaMemset2DAsync (b->out[0].data[0], b->out[0].pitch[0], 0x5a,
          b->row, b->h, b->s));
  if ((st = launch (b, v, 0)) != 0)
    launch_failed (b, v, st);
  CHECK (cudaMemcpy2DAsync (b->pin_out, b->row, b->out[0].data[0],
          b->out[0].pitch[0], b->row, b->h, cudaMemcpyDeviceToHost, b->s));
  CHECK (cudaStreamSynchronize (b->s));
  for (i = 0; i < n; i++) {
    if (memcmp (b->pin_out + 4 * i, b->ref + 4 * i, 4) != 0 && bad++ == 0)
      printf ("check %s %s: first mismatch at (%d, %d)\n", sizes[b->si].name,
          variants[v].name, (int) (i % b->w), (int) (i / b->w));
  }
  printf ("check %s %s: %ld of %zu pixels differ from the C reference\n",
      sizes[b->si].name, variants[v].name, bad, n);
  return bad;
}

/* p: per colour geometry c (0, CO_LUT_RED, CO_LUT_BLUE as 0, 1, 2) four
 * tables: compressed nearest, bilinear, then x and y (shared by both) */
static void
luts_alloc (CoLut lut[2][3], void *p[12], int w, int h, int device)
{
  static const int geom[3] = { 0, CO_LUT_RED, CO_LUT_BLUE };
  size_t n;
  int i, m, c;

  for (i = 0; i < 2; i++)
    for (m = 0; m < 3; m++) {
      co_lut_layout (&lut[i][m], (CoLutMode) m, (CoInterp) i,
          CO_FORMAT_RGBA, w, h);
      if (chroma)
        co_lut_set_chroma (&lut[i][m]);
    }
  n = co_lut_table_bytes (&lut[0][CO_LUT_COMPRESSED], 0);
  for (i = 0; i < 12; i++)
    CHECK (device ? cudaMalloc (&p[i], n) : cudaMallocHost (&p[i], n));
  for (c = 0; c < 3; c++)
    for (i = 0; i < 2; i++) {
      lut[i][CO_LUT_COMPRESSED].plane[geom[c]].packed = p[4 * c + i];
      lut[i][CO_LUT_TWO_TABLE].plane[geom[c]].x = p[4 * c + 2];
      lut[i][CO_LUT_TWO_TABLE].plane[geom[c]].y = p[4 * c + 3];
    }
}

/* The NPP maps: the GPU's two-table LUT with NaN (unmapped) made -1. */
static void
npp_maps (Bench * b)
{
  const CoLutPlane *d = &b->dlut[0][CO_LUT_TWO_TABLE].plane[0];
  const CoLutPlane *h = &b->hlut[0][CO_LUT_TWO_TABLE].plane[0];
  size_t i, n = co_lut_table_bytes (&b->dlut[0][CO_LUT_TWO_TABLE], 0);

  CHECK (cudaMemcpy (h->x, d->x, n, cudaMemcpyDeviceToHost));
  CHECK (cudaMemcpy (h->y, d->y, n, cudaMemcpyDeviceToHost));
  for (i = 0; i < n / 4; i++) {
    if (isnan (h->x[i]) || isnan (h->y[i]))
      h->x[i] = h->y[i] = -1.0f;
  }
  CHECK (cudaMalloc ((void **) &b->npp_x, n));
  CHECK (cudaMalloc ((void **) &b->npp_y, n));
  CHECK (cudaMemcpy (b->npp_x, h->x, n, cudaMemcpyHostToDevice));
  CHECK (cudaMemcpy (b->npp_y, h->y, n, cudaMemcpyHostToDevice));
}

static void
cell (FILE * f, double v, int prec)
{
  if (isfinite (v))
    fprintf (f, " %.*f |", prec, v);
  else
    fprintf (f, " - |");
}

static void
report (int si, const char *model, FILE * csv)
{
  double copy = results[V_COPY][si], cpu = results[V_CPU_NAIVE][si];
  double gpu = results[V_NAIVE][si];
  double px = (double) sizes[si].w * sizes[si].h;
  double copy_bw = 8.0 * px / (copy * 1e6);
  int v;

  printf ("\n### %s (%dx%d RGBA, %s)\n\n", sizes[si].name, sizes[si].w,
      sizes[si].h, model);
  printf ("| variant | ms | vs CPU naive | vs GPU naive | x copy | GB/s "
      "| of copy BW |\n|---|---:|---:|---:|---:|---:|---:|\n");
  for (v = 0; v < N_VARIANTS; v++) {
    double ms = results[v][si];
    double bw = min_bytes (v) ? min_bytes (v) * px / (ms * 1e6) : NAN;
    double d[5] = { cpu / ms, gpu / ms, ms / copy, bw, bw / copy_bw };
    static const int prec[5] = { 1, 2, 2, 0, 2 };
    int i;

    if (isnan (ms))
      continue;
    printf ("| %s |", variants[v].name);
    cell (stdout, ms, 4);
    for (i = 0; i < 5; i++)
      cell (stdout, d[i], prec[i]);
    printf ("\n");
    if (!csv)
      continue;
    fprintf (csv, "%s,%d,%d,%s,\"%s\",%.6g", sizes[si].name, sizes[si].w,
        sizes[si].h, model, variants[v].name, ms);
    for (i = 0; i < 5; i++)
      fprintf (csv, isfinite (d[i]) ? ",%.6g" : ",", d[i]);
    fprintf (csv, ",%d\n", min_bytes (v));
  }
}

/* --model beyond lensdistort_math.h's two */
enum
{ BENCH_FISHEYE = 10, BENCH_FULL, BENCH_RATIONAL };

static void
run_size (int si, int model, cudaStream_t s, const char *desc, FILE * csv)
{
  Bench b;
  double t0;
  long bad = 0;
  int k, v;

  memset (&b, 0, sizeof (b));
  b.si = si;
  b.w = sizes[si].w;
  b.h = sizes[si].h;
  b.row = (size_t) b.w * 4;
  b.s = s;
  if (model == CO_LENS_HMD) {
    co_lens_params_init_hmd (&b.p, b.w, b.h, -0.25, 0.05, 0.5, 0.5, 0);
    if (chroma) {
      /* a headset's lateral colour: red drawn in, blue out, about 1% */
      co_lens_params_set_colour (&b.p, 1, -0.24, 0.05, 0.992);
      co_lens_params_set_colour (&b.p, 2, -0.26, 0.05, 1.012);
    }
  } else if (model == CO_LENS_CAMERA) {
    double kk[4] = { 0.8 * b.w, 0.8 * b.w, 0.5 * (b.w - 1), 0.5 * (b.h - 1) };
    double dist[5] = { -0.3, 0.1, 0.001, -0.001, 0.0 };
    co_lens_params_init_camera (&b.p, b.w, b.h, kk, dist, kk);
  } else {
    /* the fisheye model, or OpenCV's whole vector (rational, thin prism,
     * tilt: the most arithmetic a pinhole map has) */
    static const double fisheye[4] = { -0.013, 0.041, -0.037, 0.0095 };
    static const double full[CO_CAMERA_N_DIST] = { -0.26, 0.07, 0.0009,
      0.0004, -0.01, 0.02, 0.01, -0.005, 0.002, -0.0008, 0.0015, 0.0003,
      0.015, -0.02
    };
    CoCamera cam;
    int j;
    co_camera_init (&cam, (model == BENCH_FISHEYE ? 0.3 : 0.8) * b.w,
        (model == BENCH_FISHEYE ? 0.3 : 0.8) * b.w, 0.5 * (b.w - 1),
        0.5 * (b.h - 1));
    if (model == BENCH_FISHEYE) {
      cam.model = CO_CAMERA_FISHEYE;
      cam.dist[CO_DIST_K1] = fisheye[0];
      cam.dist[CO_DIST_K2] = fisheye[1];
      cam.dist[CO_DIST_K3] = fisheye[2];
      cam.dist[CO_DIST_K4] = fisheye[3];
    } else {
      /* rational: the 8-coefficient vector (k1 k2 p1 p2 k3 k4 k5 k6) */
      for (j = 0; j < (model == BENCH_RATIONAL ? 8 : CO_CAMERA_N_DIST); j++)
        cam.dist[j] = full[j];
    }
    co_lens_params_init_pinhole (&b.p, b.w, b.h, &cam);
  }
  co_format_border (CO_FORMAT_RGBA, 0xff000000u, b.border);

  CHECK (cudaHostAlloc ((void **) &b.pin_in, b.row * b.h, 0));
  CHECK (cudaHostAlloc ((void **) &b.pin_out, b.row * b.h, 0));
  CHECK (cudaHostAlloc ((void **) &b.ref, b.row * b.h, 0));
  /* frames 7 .. 0, so that pin_in ends up holding frame 0 */
  for (k = N_FRAMES - 1; k >= 0; k--) {
    b.in[k] = device_frame (&b);
    b.out[k] = device_frame (&b);
    fill_random (b.pin_in, b.row * b.h, (uint64_t) k + 1);
    CHECK (cudaMemcpy2D (b.in[k].data[0], b.in[k].pitch[0], b.pin_in, b.row,
            b.row, b.h, cudaMemcpyHostToDevice));
  }

  /* tables, built once: device (what is timed) and host (the reference) */
  luts_alloc (b.dlut, b.dtab, b.w, b.h, 1);
  luts_alloc (b.hlut, b.htab, b.w, b.h, 0);
  for (k = 0; k < 3; k++) {     /* compressed nearest, bilinear; two-table */
    CoLutMode m = k < 2 ? CO_LUT_COMPRESSED : CO_LUT_TWO_TABLE;
    CHECK ((cudaError_t) co_lens_build_lut_cuda (&b.p, &b.dlut[k & 1][m], s));
    co_lens_build_lut_cpu (&b.p, &b.hlut[k & 1][m]);
  }
  CHECK (cudaMalloc ((void **) &b.fwd,
          co_lut_table_bytes (&b.dlut[0][CO_LUT_COMPRESSED], 0)));
  CHECK ((cudaError_t) co_lens_build_forward_cuda (&b.p, b.fwd,
          b.dlut[0][CO_LUT_COMPRESSED].plane[0].pitch, s));
  CHECK (cudaStreamSynchronize (s));

  /* correctness gate: every backward variant, bit-exact against C */
  printf ("\n");
  for (v = V_NAIVE; v <= V_COMP_BL; v++)
    if (variants[v].kind == K_REMAP)
      bad += check (&b, v);
  if (bad) {
    printf ("FAIL: GPU output differs from the C reference at %s\n",
        sizes[si].name);
    exit (3);
  }

  if (npp_remap_fn)
    npp_maps (&b);

  /* let the clocks settle: about 300 ms of copies before anything counts */
  for (t0 = now_ms (), k = 0; now_ms () - t0 < 300.0; k++) {
    CHECK ((cudaError_t) launch (&b, V_COPY, k));
    if (k % 64 == 63)
      CHECK (cudaStreamSynchronize (s));
  }
  CHECK (cudaStreamSynchronize (s));

  for (v = 0; v < N_VARIANTS; v++) {    /* e2e last: it overwrites frames */
    Kind kd = variants[v].kind;
    /* forward mapping and NPP move one geometry: no chromatic baseline */
    if (chroma && (kd == K_FWD || kd == K_NPP))
      results[v][si] = NAN;
    else
      results[v][si] = kd == K_CPU ? time_cpu (&b, v) : kd == K_E2E ?
          time_e2e (&b, v) : kd != K_NPP || npp_remap_fn ? time_gpu (&b, v) :
          NAN;
  }
  report (si, desc, csv);

  for (k = 0; k < N_FRAMES; k++) {
    CHECK (cudaFree (b.in[k].data[0]));
    CHECK (cudaFree (b.out[k].data[0]));
  }
  for (k = 0; k < 12; k++) {
    CHECK (cudaFree (b.dtab[k]));
    CHECK (cudaFreeHost (b.htab[k]));
  }
  CHECK (cudaFree (b.fwd));
  CHECK (cudaFree (b.npp_x));   /* NULL without NPP: a no-op */
  CHECK (cudaFree (b.npp_y));
  CHECK (cudaFreeHost (b.pin_in));
  CHECK (cudaFreeHost (b.pin_out));
  CHECK (cudaFreeHost (b.ref));
}

/* "720", "720p", "1280x720", "4k", "2160" ... into want[] */
static int
parse_sizes (char *list, int want[N_SIZES])
{
  char *tok, *save = NULL, buf[32];
  int i, found;

  memset (want, 0, N_SIZES * sizeof (int));
  for (tok = strtok_r (list, ",", &save); tok;
      tok = strtok_r (NULL, ",", &save)) {
    for (i = 0, found = 0; i < N_SIZES; i++) {
      snprintf (buf, sizeof (buf), "%dx%d", sizes[i].w, sizes[i].h);
      if (!strcasecmp (tok, sizes[i].name) || !strcmp (tok, buf) ||
          atoi (tok) == sizes[i].h)
        want[i] = found = 1;
    }
    if (!found) {
      fprintf (stderr, "unknown size '%s' (720, 1080, 4k, 8k)\n", tok);
      return 0;
    }
  }
  return 1;
}

int
main (int argc, char **argv)
{
  int want[N_SIZES] = { 1, 1, 1, 1 };
  int model = CO_LENS_HMD, dev, drv = 0, rt = 0, mclk = 0,
      bus = 0, i, v;
  const char *csv_path = NULL, *model_desc;
  struct cudaDeviceProp prop;
  cudaStream_t s;
  FILE *csv = NULL;
  char sep[64] = "|---|";

  for (i = 1; i < argc; i++) {
    const char *val = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp (argv[i], "--sizes") && *val && parse_sizes (argv[i + 1], want))
      i++;
    else if (!strcmp (argv[i], "--model") && !strcmp (val, "hmd"))
      model = CO_LENS_HMD, i++;
    else if (!strcmp (argv[i], "--model") && !strcmp (val, "hmd-chroma"))
      model = CO_LENS_HMD, chroma = 1, i++;
    else if (!strcmp (argv[i], "--model") && !strcmp (val, "camera"))
      model = CO_LENS_CAMERA, i++;
    else if (!strcmp (argv[i], "--model") && !strcmp (val, "fisheye"))
      model = BENCH_FISHEYE, i++;
    else if (!strcmp (argv[i], "--model") && !strcmp (val, "full"))
      model = BENCH_FULL, i++;
    else if (!strcmp (argv[i], "--model") && !strcmp (val, "rational"))
      model = BENCH_RATIONAL, i++;
    else if (!strcmp (argv[i], "--csv") && *val)
      csv_path = argv[++i];
    else {
      fprintf (strcmp (argv[i], "--help") ? stderr : stdout, "usage: %s "
          "[--sizes 720,1080,4k,8k] [--model hmd|hmd-chroma|camera|fisheye|"
          "rational|full] "
          "[--csv FILE]\n",
          argv[0]);
      return strcmp (argv[i], "--help") ? 1 : 0;
    }
  }
  model_desc = model == CO_LENS_HMD && chroma ? "hmd k1=-0.25 k2=0.05, "
      "chromatic: red k1=-0.24 scale 0.992, blue k1=-0.26 scale 1.012" :
      model == CO_LENS_HMD ? "hmd k1=-0.25 k2=0.05" :
      model == CO_LENS_CAMERA ? "camera f=0.8w k1=-0.3 k2=0.1 p1=0.001 "
      "p2=-0.001" : model == BENCH_FISHEYE ? "fisheye f=0.3w k1..k4=-0.013 "
      "0.041 -0.037 0.0095" : model == BENCH_RATIONAL ? "camera f=0.8w, "
      "8 coefficients (rational)" : "camera f=0.8w, all 14 coefficients "
      "(rational, thin prism, tilt)";

  bench_require_cuda (1);
  CHECK (cudaGetDevice (&dev));
  CHECK (cudaGetDeviceProperties (&prop, dev));
  CHECK (cudaDriverGetVersion (&drv));
  CHECK (cudaRuntimeGetVersion (&rt));
  /* optional: left 0 where the attributes are gone */
  cudaDeviceGetAttribute (&mclk, cudaDevAttrMemoryClockRate, dev);
  cudaDeviceGetAttribute (&bus, cudaDevAttrGlobalMemoryBusWidth, dev);
  (void) cudaGetLastError ();   /* or the launchers would report it */
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  load_npp ();
  if (npp_remap_fn)
    CHECK ((cudaError_t) bench_npp_context (s, &npp_ctx));
  for (i = 0; i <= N_BATCH; i++)
    CHECK (cudaEventCreate (&ev[i]));
  if (csv_path) {
    if (!(csv = fopen (csv_path, "w"))) {
      perror (csv_path);
      return 1;
    }
    fprintf (csv, "size,width,height,model,variant,ms,speedup_vs_cpu_naive,"
        "speedup_vs_gpu_naive,x_copy,gb_per_s,fraction_of_copy_bw,"
        "min_bytes_per_px\n");
  }

  printf ("device: %s, %d SMs, cc %d.%d, L2 %d MB", prop.name,
      prop.multiProcessorCount, prop.major, prop.minor, prop.l2CacheSize >> 20);
  if (mclk > 0 && bus > 0)
    printf (", memory %d MHz x %d bit (%.0f GB/s peak)", mclk / 1000, bus,
        2.0 * mclk * 1e3 * bus / 8 / 1e9);
  printf (", driver %d.%d, runtime %d.%d\n", drv / 1000, drv % 1000 / 10,
      rt / 1000, rt % 1000 / 10);
#ifdef _OPENMP
  printf ("CPU: %d OpenMP threads\n", omp_get_max_threads ());
#else
  printf ("CPU: 1 thread (no OpenMP)\n");
#endif
  printf ("NPP: %s\n", npp_lib);
  printf ("timing: GPU = median of %d batch means (cudaEvents around %d "
      "back-to-back launches, queued behind a host gate) after %d warm-up, "
      "%d rotating frames; CPU = median of %d after 1 warm-up; e2e = median "
      "of %d frames (pinned H2D + kernel + D2H). GB/s from the minimum bytes"
      "/px: copy, naive 8; compressed, forward 12; two-table, NPP 16\n",
      N_BATCH, BATCH, WARMUP, N_FRAMES, CPU_RUNS, E2E_ITERS);

  for (i = 0; i < N_SIZES; i++)
    if (want[i])
      run_size (i, model, s, model_desc, csv);
  if (csv) {
    fclose (csv);
    fprintf (stderr, "CSV written to %s\n", csv_path);
  }

  printf ("\n## Summary: ms per frame, RGBA, %s (GPU: median of %d means of "
      "%d launches, CPU: of %d runs, e2e: of %d frames)\n\n| variant |",
      model_desc, N_BATCH, BATCH, CPU_RUNS, E2E_ITERS);
  for (i = 0; i < N_SIZES; i++)
    if (want[i])
      printf (" %s |", sizes[i].name), strcat (sep, "---:|");
  printf ("\n%s\n", sep);
  for (v = 0; v < N_VARIANTS; v++) {
    printf ("| %s |", variants[v].name);
    for (i = 0; i < N_SIZES; i++)
      if (want[i])
        cell (stdout, results[v][i], 4);
    printf ("\n");
  }
  return 0;
}
