/* cudaoptics — LGPL-2.1-or-later
 *
 * bench-correlate's baseline, the conventional GPU method on the same tiles
 * (correlate-baselines.h): cuFFT per-tile phase correlation.  A kernel
 * gathers each camera's 16x16 tiles (stride 8, co_clt_tiles's grid, edges
 * clamped) with a 2D Hann window into a batch, cuFFT transforms it (one
 * batched R2C per camera); per pair a kernel forms the normalised
 * cross-power spectrum, cuFFT transforms it back (one batched C2R) and a
 * kernel (a warp a tile) finds the argmax with a parabolic sub-pixel fit.
 * cuFFT is opened with dlopen through a table of the few calls used, its
 * types declared here, so neither the build nor the binary needs it.
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "clt.h"
#include "correlate-baselines.h"

#define TILE 16
#define SPEC (TILE * (TILE / 2 + 1))    /* complex bins of an R2C tile */
#define EPS 1e-6f

/* cufft.h's, for what is used */
typedef int cufftHandle;
typedef int cufftResult;        /* 0: CUFFT_SUCCESS */
enum
{ CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c };

static struct
{
  void *lib;
    cufftResult (*plan_many) (cufftHandle * plan, int rank, int *n,
      int *inembed, int istride, int idist, int *onembed, int ostride,
      int odist, int type, int batch);
    cufftResult (*exec_r2c) (cufftHandle plan, float *in, float2 * out);
    cufftResult (*exec_c2r) (cufftHandle plan, float2 * in, float *out);
    cufftResult (*set_stream) (cufftHandle plan, cudaStream_t stream);
    cufftResult (*destroy) (cufftHandle plan);
    cufftResult (*get_version) (int *version);
} fft;

#define CUDA_OK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
          cudaGetErrorString (e_)); return -1; } } while (0)
#define FFT_OK(call) do { cufftResult r_ = (call); if (r_ != 0) { \
      fprintf (stderr, "%s:%d: %s: cuFFT status %d\n", __FILE__, __LINE__, \
          #call, r_); return -1; } } while (0)

struct BenchPcorr
{
  int w, h, tx, ty, n, n_slots;
  float *window;                /* 256: the 2D Hann window */
  float *tiles;                 /* n x 256: the windowed tiles, R2C's input */
  float2 *spec;                 /* n_slots x n x SPEC */
  float2 *cross;                /* n x SPEC */
  float *corr;                  /* n x 256 */
  cufftHandle fwd, inv;
  int have_fwd, have_inv;
  cudaStream_t fwd_stream, inv_stream;
};

extern "C" int
bench_pcorr_open (char *path, size_t size, int *version)
{
  static const char *const names[] = { "libcufft.so.12", "libcufft.so.13",
    "libcufft.so.11", "libcufft.so"
  };
  static const char *const dirs[] = { "", "/usr/local/cuda/lib64/" };
  int d, i;

  if (fft.lib)
    return 0;
  for (d = 0; d < 2 && !fft.lib; d++)
    for (i = 0; i < 4 && !fft.lib; i++) {
      snprintf (path, size, "%s%s", dirs[d], names[i]);
      fft.lib = dlopen (path, RTLD_NOW | RTLD_LOCAL);
    }
  if (!fft.lib)
    return -1;
#define LOAD(field, symbol) \
  fft.field = reinterpret_cast < decltype (fft.field) > \
      (dlsym (fft.lib, symbol))
  LOAD (plan_many, "cufftPlanMany");
  LOAD (exec_r2c, "cufftExecR2C");
  LOAD (exec_c2r, "cufftExecC2R");
  LOAD (set_stream, "cufftSetStream");
  LOAD (destroy, "cufftDestroy");
  LOAD (get_version, "cufftGetVersion");
#undef LOAD
  if (!fft.plan_many || !fft.exec_r2c || !fft.exec_c2r || !fft.set_stream
      || !fft.destroy || !fft.get_version
      || fft.get_version (version) != 0) {
    dlclose (fft.lib);
    fft.lib = NULL;
    return -1;
  }
  return 0;
}

extern "C" int
bench_pcorr_n_tiles (const BenchPcorr * p)
{
  return p->n;
}

extern "C" void
bench_pcorr_free (BenchPcorr * p)
{
  if (!p)
    return;
  if (p->have_fwd)
    fft.destroy (p->fwd);
  if (p->have_inv)
    fft.destroy (p->inv);
  cudaFree (p->window);
  cudaFree (p->tiles);
  cudaFree (p->spec);
  cudaFree (p->cross);
  cudaFree (p->corr);
  free (p);
}

static int
pcorr_alloc (BenchPcorr * p)
{
  const size_t n = p->n;
  int dims[2] = { TILE, TILE };
  float win[TILE * TILE];
  int i, j;

  /* sin^2 (pi (i + 0.5) / 16) across times the same down */
  for (j = 0; j < TILE; j++)
    for (i = 0; i < TILE; i++) {
      const double sx = sin (M_PI * (i + 0.5) / TILE);
      const double sy = sin (M_PI * (j + 0.5) / TILE);
      win[j * TILE + i] = (float) (sx * sx * sy * sy);
    }
  CUDA_OK (cudaMalloc ((void **) &p->window, sizeof (win)));
  CUDA_OK (cudaMemcpy (p->window, win, sizeof (win),
          cudaMemcpyHostToDevice));
  CUDA_OK (cudaMalloc ((void **) &p->tiles, sizeof (float) * TILE * TILE *
          n));
  CUDA_OK (cudaMalloc ((void **) &p->spec, sizeof (float2) * SPEC * n *
          p->n_slots));
  CUDA_OK (cudaMalloc ((void **) &p->cross, sizeof (float2) * SPEC * n));
  CUDA_OK (cudaMalloc ((void **) &p->corr, sizeof (float) * TILE * TILE *
          n));
  /* packed tiles: 256 reals, SPEC complex bins each */
  FFT_OK (fft.plan_many (&p->fwd, 2, dims, NULL, 1, TILE * TILE, NULL, 1,
          SPEC, CUFFT_R2C, p->n));
  p->have_fwd = 1;
  FFT_OK (fft.plan_many (&p->inv, 2, dims, NULL, 1, SPEC, NULL, 1,
          TILE * TILE, CUFFT_C2R, p->n));
  p->have_inv = 1;
  /* plans start on the default stream */
  p->fwd_stream = p->inv_stream = 0;
  return 0;
}

extern "C" BenchPcorr *
bench_pcorr_new (int w, int h, int n_slots)
{
  BenchPcorr *p = (BenchPcorr *) calloc (1, sizeof (BenchPcorr));

  if (!p || !fft.lib) {
    fprintf (stderr, "bench_pcorr_new: %s\n", p ? "cuFFT not opened" :
        "out of memory");
    free (p);
    return NULL;
  }
  p->w = w;
  p->h = h;
  p->n_slots = n_slots;
  co_clt_tiles (w, h, &p->tx, &p->ty);
  p->n = p->tx * p->ty;
  if (pcorr_alloc (p) != 0) {
    bench_pcorr_free (p);
    return NULL;
  }
  return p;
}

/* a block a tile, a thread a sample: the sample at the clamped position,
 * 0..1, times the window */
__global__ void
gather_kernel (const uint8_t * gray, int pitch, int w, int h, int tx,
    const float *window, float *tiles)
{
  const int t = blockIdx.x, i = threadIdx.x, j = threadIdx.y;
  int x = (t % tx) * 8 - 8 + i, y = (t / tx) * 8 - 8 + j;
  x = min (max (x, 0), w - 1);
  y = min (max (y, 0), h - 1);
  tiles[(size_t) t * TILE * TILE + j * TILE + i] =
      (float) gray[(size_t) y * pitch + x] * (1.0f / 255.0f) *
      __ldg (window + j * TILE + i);
}

static int
step_gather (BenchPcorr * p, const uint8_t * gray, int pitch, cudaStream_t s)
{
  gather_kernel <<< p->n, dim3 (TILE, TILE), 0, s >>> (gray, pitch, p->w,
      p->h, p->tx, p->window, p->tiles);
  CUDA_OK (cudaGetLastError ());
  return 0;
}

static int
step_r2c (BenchPcorr * p, int slot, cudaStream_t s)
{
  if (s != p->fwd_stream) {
    FFT_OK (fft.set_stream (p->fwd, s));
    p->fwd_stream = s;
  }
  FFT_OK (fft.exec_r2c (p->fwd, p->tiles, p->spec + (size_t) slot * SPEC *
          p->n));
  return 0;
}

extern "C" int
bench_pcorr_forward (BenchPcorr * p, const uint8_t * gray, int pitch,
    int slot, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;

  return step_gather (p, gray, pitch, s) || step_r2c (p, slot, s) ? -1 : 0;
}

/* a thread a bin: a conj(b) / (|a conj(b)| + eps) */
__global__ void
cross_kernel (const float2 * a, const float2 * b, float2 * out, size_t n)
{
  const size_t k = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n)
    return;
  const float2 u = a[k], v = b[k];
  const float re = u.x * v.x + u.y * v.y, im = u.y * v.x - u.x * v.y;
  const float m = 1.0f / (sqrtf (re * re + im * im) + EPS);
  out[k] = make_float2 (re * m, im * m);
}

/* a warp a tile: the argmax of the 16x16 cyclic correlation (lowest index
 * on ties), then a parabola per axis through it and its two neighbours.
 * The peak of a conj(b) lies at minus b's shift; C2R leaves it scaled by
 * 256. */
__global__ void
peak_kernel (const float *corr, int n, float *dx, float *dy, float *strength)
{
  const int t = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (t >= n)
    return;
  const float *c = corr + (size_t) t * TILE * TILE;
  float best = c[lane];
  int at = lane;
  for (int k = 1; k < TILE * TILE / 32; k++) {
    const float v = c[lane + 32 * k];
    if (v > best) {
      best = v;
      at = lane + 32 * k;
    }
  }
  for (int o = 16; o > 0; o /= 2) {
    const float v = __shfl_down_sync (0xffffffffu, best, o);
    const int i = __shfl_down_sync (0xffffffffu, at, o);
    if (v > best || (v == best && i < at)) {
      best = v;
      at = i;
    }
  }
  if (lane != 0)
    return;
  const int i = at % TILE, j = at / TILE;
  const float xm = c[j * TILE + (i + TILE - 1) % TILE];
  const float xp = c[j * TILE + (i + 1) % TILE];
  const float ym = c[((j + TILE - 1) % TILE) * TILE + i];
  const float yp = c[((j + 1) % TILE) * TILE + i];
  const float qx = xm - 2.0f * best + xp, qy = ym - 2.0f * best + yp;
  const float fx = qx < 0.0f ? 0.5f * (xm - xp) / qx : 0.0f;
  const float fy = qy < 0.0f ? 0.5f * (ym - yp) / qy : 0.0f;
  dx[t] = -((float) (i < TILE / 2 ? i : i - TILE) + fx);
  dy[t] = -((float) (j < TILE / 2 ? j : j - TILE) + fy);
  strength[t] = best * (1.0f / (TILE * TILE));
}

static int
step_cross (BenchPcorr * p, int a, int b, cudaStream_t s)
{
  const size_t bins = (size_t) SPEC * p->n;

  cross_kernel <<< (unsigned) ((bins + 255) / 256), 256, 0, s >>> (p->spec +
      (size_t) a * bins, p->spec + (size_t) b * bins, p->cross, bins);
  CUDA_OK (cudaGetLastError ());
  return 0;
}

static int
step_c2r (BenchPcorr * p, cudaStream_t s)
{
  if (s != p->inv_stream) {
    FFT_OK (fft.set_stream (p->inv, s));
    p->inv_stream = s;
  }
  FFT_OK (fft.exec_c2r (p->inv, p->cross, p->corr));
  return 0;
}

static int
step_peak (BenchPcorr * p, float *dx, float *dy, float *strength,
    cudaStream_t s)
{
  peak_kernel <<< (p->n + 7) / 8, 256, 0, s >>> (p->corr, p->n, dx, dy,
      strength);
  CUDA_OK (cudaGetLastError ());
  return 0;
}

extern "C" int
bench_pcorr_correlate (BenchPcorr * p, int a, int b, float *dx, float *dy,
    float *strength, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;

  return step_cross (p, a, b, s) || step_c2r (p, s) ||
      step_peak (p, dx, dy, strength, s) ? -1 : 0;
}

extern "C" int
bench_pcorr_step (BenchPcorr * p, BenchPcorrStep step, const uint8_t * gray,
    int pitch, int a, int b, float *dx, float *dy, float *strength,
    void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;

  switch (step) {
    case BENCH_PCORR_GATHER:
      return step_gather (p, gray, pitch, s);
    case BENCH_PCORR_R2C:
      return step_r2c (p, a, s);
    case BENCH_PCORR_CROSS:
      return step_cross (p, a, b, s);
    case BENCH_PCORR_C2R:
      return step_c2r (p, s);
    case BENCH_PCORR_PEAK:
      return step_peak (p, dx, dy, strength, s);
  }
  fprintf (stderr, "bench_pcorr_step: no step %d\n", (int) step);
  return -1;
}
