/* cudaoptics — LGPL-2.1-or-later
 *
 * bench-clt: the workload of Filippov, "GPU implementation of the tile
 * processor" (Elphel, 2018): four 2592x1936 Bayer images through the
 * complex lapped transform with space-variant kernels, forward (to the
 * frequency domain, kernels applied) and inverse timed apart, on the C
 * reference (OpenMP) and on CUDA (kernels/clt.cu), beside a pixel-domain
 * direct 16x16 space-variant convolution on the GPU and the device's copy.
 * The paper: 57.0 ms forward + 29.5 ms inverse = 86.5 ms on a GTX 1050 Ti.
 * Exit status: 0 ok, 1 CUDA error, 77 no usable device, 3 GPU differs from C.
 *   bench-clt [--images N]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "clt.h"
#include "clt_build.h"
#include "bench-cuda.h"
#include "bench-skip.h"
#include "bench-lens.h"

#define W 2592
#define H 1936
#define STRIDE 16
#define RUNS 20

#define CHECK(call) do { cudaError_t e_ = (cudaError_t) (call); \
    if (e_ != cudaSuccess) { fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, \
          __LINE__, #call, cudaGetErrorString (e_)); exit (1); } } while (0)

int bench_clt_direct (const uint8_t * raw, int w, int h, const float *kern,
    int gw, int gh, float *out[3], void *stream);

static double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int
cmp (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof (double), cmp);
  return v[n / 2];
}

typedef struct
{
  int n_img, tx, ty, gw, gh;
  size_t nc;                    /* coefficients of one colour plane */
  uint8_t *d_raw;               /* n_img mosaics */
  float *d_clt[3], *d_out[3], *d_dx, *d_dy, *d_nodes, *d_direct_k;
} Gpu;

static void
gpu_forward (Gpu * g, int img, cudaStream_t s)
{
  float *clt[3] = { g->d_clt[0], g->d_clt[1], g->d_clt[2] };
  int c;
  CHECK (co_clt_forward_bayer_cuda (g->d_raw + (size_t) img * W * H, W, H, W,
          1, 1.0f / 255, CO_BAYER_RGGB, NULL, g->d_dx, g->d_dy, clt, s));
  for (c = 0; c < 3; c++)
    CHECK (co_clt_convolve_grid_cuda (g->d_clt[c], 0, 0, W, H, g->d_nodes, g->gw,
            g->gh, STRIDE, 3, c, s));
}

static void
gpu_inverse (Gpu * g, cudaStream_t s)
{
  int c;
  for (c = 0; c < 3; c++)
    CHECK (co_clt_inverse_cuda (g->d_clt[c], W, H, g->d_out[c], W, s));
}

/* The three steps as one chain (tiles never leave the chip) */
static void
gpu_chain (Gpu * g, int img, cudaStream_t s)
{
  CHECK (co_clt_chain_bayer_cuda (g->d_raw + (size_t) img * W * H, W, H, W,
          1, 1.0f / 255, CO_BAYER_RGGB, NULL, g->d_dx, g->d_dy, g->d_nodes,
          g->gw, g->gh, STRIDE, 3, g->d_out, W, s));
}

/* ms for the whole set, median of RUNS: @what 0 forward, 1 inverse,
 * 2 both, 3 the direct baseline, 4 the chain */
static double
time_gpu (Gpu * g, int what, cudaStream_t s)
{
  double t[RUNS];
  cudaEvent_t a, b;
  int r, i;

  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  for (r = -2; r < RUNS; r++) {
    float ms;
    CHECK (cudaEventRecord (a, s));
    for (i = 0; i < g->n_img; i++) {
      if (what == 0 || what == 2)
        gpu_forward (g, i, s);
      if (what == 1 || what == 2)
        gpu_inverse (g, s);
      if (what == 4)
        gpu_chain (g, i, s);
      if (what == 3)
        CHECK (bench_clt_direct (g->d_raw + (size_t) i * W * H, W, H,
                g->d_direct_k, g->gw, g->gh, g->d_out, s));
    }
    CHECK (cudaEventRecord (b, s));
    CHECK (cudaEventSynchronize (b));
    CHECK (cudaEventElapsedTime (&ms, a, b));
    if (r >= 0)
      t[r] = ms;
  }
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return median (t, RUNS);
}

int
main (int argc, char **argv)
{
  int n_img = 4, i, c;
  Gpu g;
  uint8_t *raw;
  float *nodes, *dx, *dy, *hclt[3], *hout[3], *gout, *dk;
  cudaStream_t s;
  struct cudaDeviceProp prop;
  double t0, cpu_fwd[3], cpu_inv[3], gf, gi, gb, gd, gc, copy, bytes;
  long bad = 0;

  if (argc > 2 && !strcmp (argv[1], "--images"))
    n_img = atoi (argv[2]) > 0 ? atoi (argv[2]) : 4;
  bench_require_cuda (1);
  CHECK (cudaGetDeviceProperties (&prop, 0));
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  memset (&g, 0, sizeof g);
  g.n_img = n_img;
  co_clt_tiles (W, H, &g.tx, &g.ty);
  g.nc = (size_t) g.tx * g.ty * CO_CLT_COEFFS;
  t0 = now_ms ();
  nodes = bench_lens_nodes (W, H, STRIDE, &g.gw, &g.gh);
  printf ("device: %s, %d SMs; %d images %dx%d RGGB, %dx%d kernel nodes "
      "(built in %.0f ms)\n", prop.name, prop.multiProcessorCount, n_img, W,
      H, g.gw, g.gh, now_ms () - t0);
  dx = malloc (sizeof (float) * 3 * g.tx * g.ty);
  dy = malloc (sizeof (float) * 3 * g.tx * g.ty);
  co_clt_tile_shifts (nodes, g.gw, g.gh, STRIDE, 3, 0, 0, W, H, dx, dy);

  /* mosaics: smooth structure plus noise, never all zero */
  raw = malloc ((size_t) n_img * W * H);
  for (i = 0; i < n_img * W * H; i++) {
    int x = i % W, y = (i / W) % H;
    raw[i] = (uint8_t) (128 + 60 * sin (x * 0.05 + i / (W * H)) * cos (y *
            0.037) + (rand () % 41) - 20);
  }
  CHECK (cudaMalloc ((void **) &g.d_raw, (size_t) n_img * W * H));
  CHECK (cudaMemcpy (g.d_raw, raw, (size_t) n_img * W * H,
          cudaMemcpyHostToDevice));
  CHECK (cudaMalloc ((void **) &g.d_nodes, sizeof (float) * (size_t) g.gw *
          g.gh * 3 * 258));
  CHECK (cudaMemcpy (g.d_nodes, nodes, sizeof (float) * (size_t) g.gw * g.gh
          * 3 * 258, cudaMemcpyHostToDevice));
  CHECK (cudaMalloc ((void **) &g.d_dx, sizeof (float) * 3 * g.tx * g.ty));
  CHECK (cudaMalloc ((void **) &g.d_dy, sizeof (float) * 3 * g.tx * g.ty));
  CHECK (cudaMemcpy (g.d_dx, dx, sizeof (float) * 3 * g.tx * g.ty,
          cudaMemcpyHostToDevice));
  CHECK (cudaMemcpy (g.d_dy, dy, sizeof (float) * 3 * g.tx * g.ty,
          cudaMemcpyHostToDevice));
  for (c = 0; c < 3; c++) {
    CHECK (cudaMalloc ((void **) &g.d_clt[c], sizeof (float) * g.nc));
    CHECK (cudaMalloc ((void **) &g.d_out[c], sizeof (float) * W * H));
    hclt[c] = malloc (sizeof (float) * g.nc);
    hout[c] = malloc (sizeof (float) * W * H);
  }
  dk = malloc (sizeof (float) * (size_t) g.gw * g.gh * 3 * 256);
  for (i = 0; i < g.gw * g.gh * 3 * 256; i++)
    dk[i] = (float) ((i * 7919) % 1000) * 1e-6f;
  CHECK (cudaMalloc ((void **) &g.d_direct_k, sizeof (float) * (size_t) g.gw
          * g.gh * 3 * 256));
  CHECK (cudaMemcpy (g.d_direct_k, dk, sizeof (float) * (size_t) g.gw * g.gh
          * 3 * 256, cudaMemcpyHostToDevice));

  /* the C reference, image 0: forward (transform, kernels), inverse */
  for (i = 0; i < 3; i++) {
    t0 = now_ms ();
    co_clt_forward_bayer_cpu (raw, W, H, W, 1, 1.0f / 255, CO_BAYER_RGGB, NULL,
        dx, dy, hclt);
    for (c = 0; c < 3; c++)
      co_clt_convolve_grid_cpu (hclt[c], 0, 0, W, H, nodes, g.gw, g.gh,
          STRIDE, 3, c);
    cpu_fwd[i] = now_ms () - t0;
    t0 = now_ms ();
    for (c = 0; c < 3; c++)
      co_clt_inverse_cpu (hclt[c], W, H, hout[c], W);
    cpu_inv[i] = now_ms () - t0;
  }
  /* correctness gate: image 0 on the GPU, every output float */
  gpu_forward (&g, 0, s);
  gpu_inverse (&g, s);
  CHECK (cudaStreamSynchronize (s));
  gout = malloc (sizeof (float) * W * H);
  for (c = 0; c < 3; c++) {
    CHECK (cudaMemcpy (gout, g.d_out[c], sizeof (float) * W * H,
            cudaMemcpyDeviceToHost));
    for (i = 0; i < W * H; i++)
      bad += memcmp (&gout[i], &hout[c][i], 4) != 0;
  }
  printf ("check: %ld of %d output values differ from the C reference\n",
      bad, 3 * W * H);
  if (bad)
    return 3;
  /* the chain: the same bits */
  for (c = 0; c < 3; c++)
    CHECK (cudaMemset (g.d_out[c], 0xff, sizeof (float) * W * H));
  gpu_chain (&g, 0, s);
  CHECK (cudaStreamSynchronize (s));
  for (c = 0; c < 3; c++) {
    CHECK (cudaMemcpy (gout, g.d_out[c], sizeof (float) * W * H,
            cudaMemcpyDeviceToHost));
    for (i = 0; i < W * H; i++)
      bad += memcmp (&gout[i], &hout[c][i], 4) != 0;
  }
  printf ("check: %ld of %d output values of the chain differ from the C "
      "reference\n", bad, 3 * W * H);
  if (bad)
    return 3;

  gf = time_gpu (&g, 0, s);
  gi = time_gpu (&g, 1, s);
  gb = time_gpu (&g, 2, s);
  gd = time_gpu (&g, 3, s);
  gc = time_gpu (&g, 4, s);
  copy = copy_ms (W, H);        /* an RGBA frame of this size: 4 B/px */
  /* bytes each stage must move per image, a pixel: forward reads the
   * mosaic (1) and writes 3 planes of coefficients (4 floats a pixel each:
   * 48), the kernels read and write them again (96); inverse reads them
   * (48) and writes 3 float planes (12), read back by 3 of its 4 passes
   * (a pixel's 4 tiles) and written again: at least 12 more */
  bytes = (double) W * H * (1 + 48 + 96 + 48 + 12 + 12);
  printf ("\n| %d images %dx%d | ms | vs paper (GTX 1050 Ti) |\n|---|---:|---:|\n",
      n_img, W, H);
  printf ("| paper: forward + inverse | 86.5 | 1.0 |\n");
  printf ("| C reference (OpenMP), forward | %.1f | |\n",
      (cpu_fwd[1] < cpu_fwd[2] ? cpu_fwd[1] : cpu_fwd[2]) * n_img);
  printf ("| C reference (OpenMP), inverse | %.1f | |\n",
      (cpu_inv[1] < cpu_inv[2] ? cpu_inv[1] : cpu_inv[2]) * n_img);
  printf ("| CUDA forward (Bayer transform + kernels) | %.3f | %.0fx (paper "
      "57.0) |\n", gf, 57.0 / gf);
  printf ("| CUDA inverse (3 colours) | %.3f | %.0fx (paper 29.5) |\n", gi,
      29.5 / gi);
  printf ("| CUDA forward + inverse | %.3f | %.0fx |\n", gb, 86.5 / gb);
  printf ("| CUDA chain (the same steps, each tile kept on the chip) | %.3f | "
      "**%.0fx** |\n", gc, 86.5 / gc);
  printf ("| pixel-domain direct 16x16 space-variant convolution, 3 colours "
      "| %.3f | |\n", gd);
  {
    /* floating-point operations the kernels do per tile, counted from
     * their code (a product and a sum each 1): an 8-point transform 56
     * (a 4-point DFT between twiddles), a fold of 16 samples 80, a
     * rotation line 96; the Bayer forward 3904 for red or blue (8 rows,
     * 8 columns, flips, rotation), 6912 for green; a kernel product 1792
     * a colour; the inverse 8960 a colour (32 columns of 72, 64 rows of
     * 56, 256 pixels of 12) */
    const double per_tile = 2 * 3904 + 6912 + 3 * 1792 + 3 * 8960;
    const double flop = per_tile * g.tx * g.ty * n_img;
    int clk = 0;
    cudaDeviceGetAttribute (&clk, cudaDevAttrClockRate, 0);
    printf ("\n%.1f GFLOP for the set (%.0f a tile): %.2f TFLOP/s achieved "
        "(steps apart), %.2f (chain)", flop / 1e9, per_tile, flop / gb / 1e9,
        flop / gc / 1e9);
    if (clk > 0)
      /* 128 FP32 lanes an SM, a fused multiply-add counted as 2 */
      printf (", against %.0f TFLOP/s of FP32 peak (%d SMs x 128 x 2 x "
          "%.2f GHz)", prop.multiProcessorCount * 128.0 * 2 * clk / 1e9,
          prop.multiProcessorCount, clk / 1e6);
    printf ("\n");
  }
  printf ("\ndevice copy of a %dx%d RGBA frame: %.4f ms (%.0f GB/s); the "
      "transforms' least traffic %.0f MB an image: %.0f GB/s achieved, %.2f "
      "of the copy's\n", W, H, copy, 8.0 * W * H / copy / 1e6,
      bytes / 1e6, bytes * n_img / gb / 1e6, bytes * n_img / gb /
      (8.0 * W * H / copy));
  /* the chain reads the mosaic (1) and read-adds 3 float planes in 4
   * passes (at least 12 written, 12 read back) */
  printf ("the chain's least traffic %.0f MB an image: %.0f GB/s, %.2f of "
      "the copy's\n", W * H * 25.0 / 1e6, W * H * 25.0 * n_img / gc / 1e6,
      W * H * 25.0 * n_img / gc / (8.0 * W * H / copy));
  return 0;
}
