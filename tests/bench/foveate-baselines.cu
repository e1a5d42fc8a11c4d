/* cudaoptics — LGPL-2.1-or-later
 *
 * What bench-foveate-kernels sets cudafoveate's block-wise kernel beside
 * (RGBA frames): the perfect foveation on the device (every pixel its own
 * sigma, unquantised, the full 2D Gaussian of ceil (6 sigma) taps; the
 * quality reference of tests/check/cudafoveate.c), and the usual fast
 * approximation, a Gaussian pyramid (Burt and Adelson's REDUCE, 5-tap
 * binomial) blended per pixel between the two levels whose blur brackets
 * the pixel's sigma.  Benchmark code: no C twin, no GStreamer.
 */
#include <cuda_runtime.h>
#include "foveate-baselines.h"

#define LEVELS 6

/* sigma of pyramid level l in full-resolution pixels: each REDUCE adds a
 * binomial of sigma 1 at the previous level's spacing */
__device__ static float
level_sigma (int l)
{
  float s2 = 0.0f;

  for (int i = 0; i < l; i++)
    s2 += (float) (1 << (2 * i));
  return sqrtf (s2);
}

__device__ static float
pixel_sigma (const CoFovea f, int x, int y)
{
  float dx = x - f.fx, dy = y - f.fy;
  float e = co_fovea_eccentricity (&f.m, sqrtf (dx * dx + dy * dy),
      f.d_corner);

  return co_fovea_sigma (&f.m, e, f.ln_ct);
}

__global__ static void
perfect (CoFovea f, const uchar4 * src, int sp, uchar4 * dst, int dp, int w,
    int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= w || y >= h)
    return;
  const float s = pixel_sigma (f, x, y);
  if (s < f.m.min_sigma) {
    dst[y * dp + x] = src[y * sp + x];
    return;
  }
  const int r = co_fovea_radius (s);
  const float k = -1.0f / (2.0f * s * s);
  float4 acc = make_float4 (0, 0, 0, 0);
  float sum = 0.0f;

  for (int j = -r; j <= r; j++) {
    const uchar4 *row = src + co_fovea_clampi (y + j, h - 1) * sp;
    for (int i = -r; i <= r; i++) {
      float g = __expf ((float) (i * i + j * j) * k);
      uchar4 p = row[co_fovea_clampi (x + i, w - 1)];
      acc.x += g * p.x;
      acc.y += g * p.y;
      acc.z += g * p.z;
      acc.w += g * p.w;
      sum += g;
    }
  }
  dst[y * dp + x] = make_uchar4 (co_fovea_round (acc.x / sum),
      co_fovea_round (acc.y / sum), co_fovea_round (acc.z / sum),
      co_fovea_round (acc.w / sum));
}

/* level l + 1 from level l, 5x5 binomial, edges repeated */
__global__ static void
reduce (const float4 * src, int sw, int sh, float4 * dst, int dw, int dh)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const float b[5] = { 1 / 16.0f, 4 / 16.0f, 6 / 16.0f, 4 / 16.0f, 1 / 16.0f };

  if (x >= dw || y >= dh)
    return;
  float4 acc = make_float4 (0, 0, 0, 0);
  for (int j = 0; j < 5; j++)
    for (int i = 0; i < 5; i++) {
      float4 p = src[co_fovea_clampi (2 * y + j - 2, sh - 1) * sw +
          co_fovea_clampi (2 * x + i - 2, sw - 1)];
      float g = b[i] * b[j];
      acc.x += g * p.x;
      acc.y += g * p.y;
      acc.z += g * p.z;
      acc.w += g * p.w;
    }
  dst[y * dw + x] = acc;
}

__global__ static void
to_float (const uchar4 * src, int sp, float4 * dst, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x < w && y < h) {
    uchar4 p = src[y * sp + x];
    dst[y * w + x] = make_float4 (p.x, p.y, p.z, p.w);
  }
}

__device__ static float4
sample (const float4 * lv, int lw, int lh, int l, int x, int y)
{
  /* full-resolution pixel centre in level l's pixels, bilinear */
  float u = (x + 0.5f) / (1 << l) - 0.5f, v = (y + 0.5f) / (1 << l) - 0.5f;
  int x0 = (int) floorf (u), y0 = (int) floorf (v);
  float a = u - x0, c = v - y0;
  float4 p[4];

  for (int i = 0; i < 4; i++)
    p[i] = lv[co_fovea_clampi (y0 + i / 2, lh - 1) * lw +
        co_fovea_clampi (x0 + i % 2, lw - 1)];
#define MIX(q) ((1 - c) * ((1 - a) * p[0].q + a * p[1].q) + \
      c * ((1 - a) * p[2].q + a * p[3].q))
  return make_float4 (MIX (x), MIX (y), MIX (z), MIX (w));
#undef MIX
}

__global__ static void
compose (CoFovea f, const uchar4 * src, int sp, BenchPyramid py,
    uchar4 * dst, int dp)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= py.w[0] || y >= py.h[0])
    return;
  const float s = pixel_sigma (f, x, y);
  if (s < f.m.min_sigma) {
    dst[y * dp + x] = src[y * sp + x];
    return;
  }
  int l = 0;
  while (l + 1 < LEVELS - 1 && level_sigma (l + 1) <= s)
    l++;
  float s0 = level_sigma (l), s1 = level_sigma (l + 1);
  float t = fminf ((s - s0) / (s1 - s0), 1.0f);
  float4 a = l ? sample ((const float4 *) py.lv[l], py.w[l], py.h[l], l, x, y) :
      make_float4 (src[y * sp + x].x, src[y * sp + x].y, src[y * sp + x].z,
      src[y * sp + x].w);
  float4 b = sample ((const float4 *) py.lv[l + 1], py.w[l + 1], py.h[l + 1], l + 1, x, y);
  dst[y * dp + x] = make_uchar4 (co_fovea_round (a.x + t * (b.x - a.x)),
      co_fovea_round (a.y + t * (b.y - a.y)),
      co_fovea_round (a.z + t * (b.z - a.z)),
      co_fovea_round (a.w + t * (b.w - a.w)));
}

extern "C" int
bench_perfect_cuda (const CoFovea * f, const CoFrame * in, CoFrame * out,
    void *stream)
{
  dim3 block (32, 8), grid ((in->width + 31) / 32, (in->height + 7) / 8);

  perfect <<< grid, block, 0, (cudaStream_t) stream >>> (*f,
      (const uchar4 *) in->data[0], in->pitch[0] / 4, (uchar4 *) out->data[0],
      out->pitch[0] / 4, in->width, in->height);
  return (int) cudaGetLastError ();
}

extern "C" int
bench_pyramid_alloc (BenchPyramid * py, int w, int h)
{
  cudaError_t err = cudaSuccess;

  for (int l = 0; l < LEVELS && err == cudaSuccess; l++) {
    py->w[l] = l ? (py->w[l - 1] + 1) / 2 : w;
    py->h[l] = l ? (py->h[l - 1] + 1) / 2 : h;
    err = cudaMalloc (&py->lv[l], sizeof (float4) * py->w[l] *
        py->h[l]);
  }
  return (int) err;
}

extern "C" void
bench_pyramid_free (BenchPyramid * py)
{
  for (int l = 0; l < LEVELS; l++)
    cudaFree (py->lv[l]);
}

extern "C" int
bench_pyramid_cuda (const CoFovea * f, BenchPyramid * py, const CoFrame * in,
    CoFrame * out, void *stream)
{
  cudaStream_t st = (cudaStream_t) stream;
  dim3 block (32, 8);
  dim3 grid ((in->width + 31) / 32, (in->height + 7) / 8);

  to_float <<< grid, block, 0, st >>> ((const uchar4 *) in->data[0],
      in->pitch[0] / 4, (float4 *) py->lv[0], py->w[0], py->h[0]);
  for (int l = 1; l < LEVELS; l++) {
    dim3 g ((py->w[l] + 31) / 32, (py->h[l] + 7) / 8);
    reduce <<< g, block, 0, st >>> ((const float4 *) py->lv[l - 1],
        py->w[l - 1], py->h[l - 1], (float4 *) py->lv[l], py->w[l], py->h[l]);
  }
  compose <<< grid, block, 0, st >>> (*f, (const uchar4 *) in->data[0],
      in->pitch[0] / 4, *py, (uchar4 *) out->data[0], out->pitch[0] / 4);
  return (int) cudaGetLastError ();
}
