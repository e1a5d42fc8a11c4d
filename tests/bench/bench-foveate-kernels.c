/* cudaoptics — LGPL-2.1-or-later
 *
 * bench-foveate-kernels: cudafoveate's block-wise kernel (co_fovea_cuda)
 * beside what one would use instead, each timed on the device with events
 * over 8 rotating frame pairs (more than the L2 holds) and given as a ratio
 * to the device copy of one frame measured in the same run: the perfect
 * per-pixel foveation, a Gaussian pyramid blend (foveate-baselines.cu), and
 * NPP's uniform Gaussian (15x15, and of the widest kernel the frame uses)
 * when libnppif can be loaded at run time.  1080p and 4K RGBA, fragments
 * of 8, 16 and 32, fixation in the centre and in a corner, strengths 1, 2
 * and 4.  Before timing, each block-wise configuration's output is compared
 * with the C reference (co_fovea_cpu) on random frames.
 *
 *   bench-foveate-kernels [--quick | --4k | --profile]
 *
 * Exit status: 0 ok, 1 a CUDA error, 77 no usable CUDA device, 3 the GPU output
 * differs from the C reference.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "foveate_math.h"
#include "foveate-baselines.h"
#include "bench-cuda.h"
#include "bench-skip.h"
#include "bench-npp.h"

#define N_FRAMES 8
#define BATCH 10
#define N_BATCH 20

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,     \
          #call, cudaGetErrorString (e_)); exit (1); } } while (0)

typedef int (*NppGaussFn) (const unsigned char *src, int sstep,
    NppiSize ssize, NppiPoint soff, unsigned char *dst, int dstep,
    NppiSize roi, int mask, int border, NppStreamContext ctx);
typedef int (*NppGaussAdvFn) (const unsigned char *src, int sstep,
    NppiSize ssize, NppiPoint soff, unsigned char *dst, int dstep,
    NppiSize roi, int taps, const float *kernel, int border,
    NppStreamContext ctx);
#define NPP_MASK_SIZE_15_X_15 800
#define NPP_BORDER_REPLICATE 2

static NppGaussFn npp_gauss;
static NppGaussAdvFn npp_gauss_adv;
static NppStreamContext npp_ctx;

static void
load_npp (void)
{
  char path[200];
  void *h = bench_npp_open ("libnppif", path, sizeof (path));

  if (!h) {
    printf ("NPP: libnppif not found, its rows are skipped\n");
    return;
  }
  npp_gauss = (NppGaussFn) dlsym (h, "nppiFilterGaussBorder_8u_C4R_Ctx");
  npp_gauss_adv = (NppGaussAdvFn) dlsym (h,
      "nppiFilterGaussAdvancedBorder_8u_C4R_Ctx");
  printf ("NPP: %s\n", path);
}

typedef struct
{
  int w, h;
  CoFrame in[N_FRAMES], out[N_FRAMES];
  cudaStream_t s;
  CoFovea f;                    /* table bound to device memory */
  void *table;
  BenchPyramid py;
  float *npp_kernel;            /* the widest level's full kernel */
  int npp_taps;
} Bench;

enum
{ K_BLOCK, K_PERFECT, K_PYRAMID, K_NPP15, K_NPPW };

static int
launch (Bench * b, int kind, int i)
{
  CoFrame *in = &b->in[i % N_FRAMES], *out = &b->out[i % N_FRAMES];
  NppiSize sz = { b->w, b->h };
  NppiPoint zero = { 0, 0 };

  switch (kind) {
    case K_BLOCK:
      return co_fovea_cuda (&b->f, in, out, b->s);
    case K_PERFECT:
      return bench_perfect_cuda (&b->f, in, out, b->s);
    case K_PYRAMID:
      return bench_pyramid_cuda (&b->f, &b->py, in, out, b->s);
    case K_NPP15:
      return npp_gauss (in->data[0], in->pitch[0], sz, zero, out->data[0],
          out->pitch[0], sz, NPP_MASK_SIZE_15_X_15, NPP_BORDER_REPLICATE,
          npp_ctx) < 0;
    default:
      return npp_gauss_adv (in->data[0], in->pitch[0], sz, zero,
          out->data[0], out->pitch[0], sz, b->npp_taps, b->npp_kernel,
          NPP_BORDER_REPLICATE, npp_ctx) < 0;
  }
}

static int
cmp_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

/* ms per frame, median of N_BATCH batches; NAN when the call failed */
static double
time_kind (Bench * b, int kind)
{
  cudaEvent_t ev[N_BATCH + 1];
  float t[N_BATCH];
  int i, k;

  if ((kind == K_NPP15 && !npp_gauss) || (kind == K_NPPW && !npp_gauss_adv))
    return NAN;
  for (i = 0; i < 2 * N_FRAMES; i++)
    if (launch (b, kind, i) != 0) {
      CHECK (cudaStreamSynchronize (b->s));
      return NAN;
    }
  for (k = 0; k <= N_BATCH; k++)
    CHECK (cudaEventCreate (&ev[k]));
  CHECK (cudaEventRecord (ev[0], b->s));
  for (k = 0; k < N_BATCH; k++) {
    for (i = 0; i < BATCH; i++)
      if (launch (b, kind, k * BATCH + i) != 0) {
        fprintf (stderr, "launch %d failed\n", kind);
        exit (1);
      }
    CHECK (cudaEventRecord (ev[k + 1], b->s));
  }
  CHECK (cudaStreamSynchronize (b->s));
  for (k = 0; k < N_BATCH; k++) {
    CHECK (cudaEventElapsedTime (&t[k], ev[k], ev[k + 1]));
    t[k] /= BATCH;
  }
  for (k = 0; k <= N_BATCH; k++)
    CHECK (cudaEventDestroy (ev[k]));
  qsort (t, N_BATCH, sizeof (float), cmp_float);
  return t[N_BATCH / 2];
}

/* The model's defaults (the element's) at @strength, table on the device. */
static void
plan (Bench * b, int fragment, double fx, double fy, double strength)
{
  CoFoveaModel m = { 15.0f, 1.0f / 64, 0.106f, 2.3f, 0.0f, 1.0f, 0.5f };
  size_t bytes;
  void *host;
  int k, r;

  m.strength = (float) strength;
  co_fovea_plan (&b->f, &m, CO_FORMAT_RGBA, b->w, b->h, fx, fy, fragment);
  bytes = co_fovea_table_bytes (&b->f);
  host = malloc (bytes);
  co_fovea_fill_table (&b->f, host);
  CHECK (cudaFree (b->table));
  CHECK (cudaMalloc (&b->table, bytes));
  CHECK (cudaMemcpy (b->table, host, bytes, cudaMemcpyHostToDevice));
  /* NPP's kernel: the widest level's taps, both halves */
  co_fovea_bind_table (&b->f, host);
  r = b->f.rmax;
  {
    float full[2 * 512 + 1];
    const float *w = b->f.w + b->f.off[b->f.n - 1];
    for (k = -r; k <= r; k++)
      full[k + r] = w[k < 0 ? -k : k];
    b->npp_taps = 2 * r + 1;
    CHECK (cudaFree (b->npp_kernel));
    CHECK (cudaMalloc ((void **) &b->npp_kernel, sizeof (float) * (2 * r +
                1)));
    CHECK (cudaMemcpy (b->npp_kernel, full, sizeof (float) * (2 * r + 1),
            cudaMemcpyHostToDevice));
  }
  free (host);
  co_fovea_bind_table (&b->f, b->table);
}

/* GPU against the C reference on frame 0; 0 when equal. */
static int
check (Bench * b)
{
  size_t row = (size_t) b->w * 4, n = row * b->h;
  uint8_t *src = malloc (n), *gpu = malloc (n), *cpu = malloc (n);
  CoFrame hi = b->in[0], ho = b->out[0];
  CoFovea fc = b->f;
  void *table = malloc (co_fovea_table_bytes (&b->f));
  size_t diff = 0, i;

  CHECK (cudaMemcpy2D (src, row, b->in[0].data[0], b->in[0].pitch[0], row,
          b->h, cudaMemcpyDeviceToHost));
  CHECK ((cudaError_t) co_fovea_cuda (&b->f, &b->in[0], &b->out[0], b->s));
  CHECK (cudaStreamSynchronize (b->s));
  CHECK (cudaMemcpy2D (gpu, row, b->out[0].data[0], b->out[0].pitch[0], row,
          b->h, cudaMemcpyDeviceToHost));
  co_fovea_fill_table (&fc, table);
  co_fovea_bind_table (&fc, table);
  hi.data[0] = src;
  hi.pitch[0] = (int32_t) row;
  ho.data[0] = cpu;
  ho.pitch[0] = (int32_t) row;
  if (co_fovea_cpu (&fc, &hi, &ho) != 0)
    exit (1);
  for (i = 0; i < n; i++)
    diff += gpu[i] != cpu[i];
  free (src);
  free (gpu);
  free (cpu);
  free (table);
  return diff != 0;
}

/* @n RGBA input frames of random bytes (timing never runs on zeros) and
 * their outputs, b->w x b->h, on the device. */
static void
alloc_frames (Bench * b, int n)
{
  size_t row = (size_t) b->w * 4;
  uint8_t *host = malloc (row * b->h);
  uint32_t seed = 12345;
  int i;

  for (i = 0; i < n; i++) {
    size_t pitch, j;
    for (j = 0; j < row * b->h; j++)
      host[j] = (uint8_t) ((seed = seed * 1664525u + 1013904223u) >> 24);
    CHECK (cudaMallocPitch ((void **) &b->in[i].data[0], &pitch, row, b->h));
    b->in[i].pitch[0] = (int32_t) pitch;
    CHECK (cudaMemcpy2D (b->in[i].data[0], pitch, host, row, row, b->h,
            cudaMemcpyHostToDevice));
    CHECK (cudaMallocPitch ((void **) &b->out[i].data[0], &pitch, row, b->h));
    b->out[i].pitch[0] = (int32_t) pitch;
    b->in[i].width = b->out[i].width = b->w;
    b->in[i].height = b->out[i].height = b->h;
    b->in[i].format = b->out[i].format = CO_FORMAT_RGBA;
  }
  free (host);
}

int
main (int argc, char **argv)
{
  static const int sizes[][2] = { {1920, 1080}, {3840, 2160} };
  static const int fragments[] = { 8, 16, 32 };
  static const double strengths[] = { 1.0, 2.0, 4.0 };
  static const char *names[] = { "block-wise (cudafoveate)",
    "perfect per-pixel", "Gaussian pyramid blend", "NPP Gauss 15x15",
    "NPP Gauss, widest kernel"
  };
  /* --quick: 1080p at strength 1; --4k: 4K at strength 1, no baselines */
  int quick = argc > 1 && !strcmp (argv[1], "--quick");
  int only4k = argc > 1 && !strcmp (argv[1], "--4k");
  /* --profile: one launch of the 4K, fragment 16, centre case, for ncu */
  int profile = argc > 1 && !strcmp (argv[1], "--profile");
  int s, i, f, x, k, kind;
  Bench b;

  bench_require_cuda (1);
  load_npp ();
  memset (&b, 0, sizeof b);
  CHECK (cudaStreamCreateWithFlags (&b.s, cudaStreamNonBlocking));
  CHECK ((cudaError_t) bench_npp_context (b.s, &npp_ctx));

  printf ("| frame | fixation | strength | widest radius | kernel | fragment "
      "| ms | x copy |\n|---|---|---:|---:|---|---:|---:|---:|\n");
  if (profile) {
    b.w = 3840;
    b.h = 2160;
    alloc_frames (&b, 1);
    plan (&b, 16, 0.5, 0.5, 1.0);
    CHECK ((cudaError_t) co_fovea_cuda (&b.f, &b.in[0], &b.out[0], b.s));
    CHECK (cudaStreamSynchronize (b.s));
    printf ("profiled one launch\n");
    return 0;
  }
  for (s = only4k ? 1 : 0; s < (quick ? 1 : 2); s++) {
    double copy;

    b.w = sizes[s][0];
    b.h = sizes[s][1];
    alloc_frames (&b, N_FRAMES);
    CHECK ((cudaError_t) bench_pyramid_alloc (&b.py, b.w, b.h));
    copy = copy_ms (b.w, b.h);
    printf ("| %dx%d | | | | device copy | | %.4f | 1.00 |\n", b.w, b.h,
        copy);
    for (x = 0; x < 2; x++)
      for (k = 0; k < (quick || only4k ? 1 : 3); k++) {
        double fx = x ? 0.0 : 0.5, fy = x ? 0.0 : 0.5;
        for (f = 0; f < 3; f++) {
          double ms;
          plan (&b, fragments[f], fx, fy, strengths[k]);
          if (check (&b)) {
            fprintf (stderr, "%dx%d fragment %d strength %g: the GPU output "
                "differs from the C reference\n", b.w, b.h, fragments[f],
                strengths[k]);
            return 3;
          }
          ms = time_kind (&b, K_BLOCK);
          printf ("| %dx%d | %s | %g | %d | %s | %d | %.4f | %.2f |\n", b.w,
              b.h, x ? "corner" : "centre", strengths[k], b.f.rmax,
              names[K_BLOCK], fragments[f], ms, ms / copy);
        }
        for (kind = K_PERFECT; kind <= K_NPPW && !only4k; kind++) {
          double ms = time_kind (&b, kind);
          printf ("| %dx%d | %s | %g | %d | %s | | %.4f | %.2f |\n", b.w,
              b.h, x ? "corner" : "centre", strengths[k], b.f.rmax,
              kind == K_NPPW ? "NPP Gauss, widest kernel" : names[kind], ms,
              ms / copy);
        }
        fflush (stdout);
      }
    bench_pyramid_free (&b.py);
    for (i = 0; i < N_FRAMES; i++) {
      CHECK (cudaFree (b.in[i].data[0]));
      CHECK (cudaFree (b.out[i].data[0]));
    }
  }
  CHECK (cudaFree (b.table));
  CHECK (cudaFree (b.npp_kernel));
  printf ("all block-wise outputs equal the C reference\n");
  return 0;
}
