/* cudaoptics — LGPL-2.1-or-later
 *
 * bench-shcentroid's GPU baseline: the straightforward mapping the paper
 * improves on, one block of 128 threads per lenslet (a warp a row, lanes
 * along it), warp shuffles then shared memory, every method.  It was
 * cudashcentroid's first kernel; benchmark code now, compiled like the
 * kernels.
 */
#include <cuda_runtime.h>
#include "shcentroid_math.h"

#define THREADS 128
#define WARPS (THREADS / 32)

__device__ static inline float
weight_at (const CoShGrid & g, const CoFrame & f, int x, int y)
{
  return co_sh_weight (&g, co_sh_pixel (&f, x, y));
}

/* (weight, earlier pixel first) as one orderable key: weights are never
 * negative, so their bits order as unsigned integers */
__device__ static inline unsigned long long
key_of (float w, int at)
{
  return (unsigned long long) __float_as_uint (w) << 32 |
      (0xffffffffu - (unsigned) at);
}

template < class T, class Op > __device__ static T
block_reduce (T v, Op op, T * shared)
{
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  for (int o = 16; o > 0; o /= 2)
    v = op (v, __shfl_xor_sync (0xffffffffu, v, o));
  __syncthreads ();             /* shared is reused between calls */
  if (lane == 0)
    shared[warp] = v;
  __syncthreads ();
  v = shared[0];
  for (int w = 1; w < WARPS; w++)
    v = op (v, shared[w]);
  return v;
}

struct Add
{
  __device__ float operator () (float a, float b) const
  {
    return a + b;
  }
};
struct Max
{
  __device__ float operator () (float a, float b) const
  {
    return fmaxf (a, b);
  }
};
struct MaxKey
{
  __device__ unsigned long long operator () (unsigned long long a,
      unsigned long long b) const
  {
    return a > b ? a : b;
  }
};

__global__ static void
lenslets (CoShGrid g, const uint8_t * why, CoFrame f, CoShResult r)
{
  __shared__ float sf[WARPS];
  __shared__ unsigned long long sk[WARPS];
  const int k = blockIdx.x, i = k % g.nx, j = k / g.nx;
  const int x0 = g.bx[i] + g.margin, x1 = g.bx[i + 1] - g.margin;
  const int y0 = g.by[j] + g.margin, y1 = g.by[j + 1] - g.margin;
  const int w = x1 - x0, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float t = 0.0f, m00 = 0.0f, m10 = 0.0f, m01 = 0.0f;
  unsigned long long cut = 0;
  int x, y;

  if (!g.measure[k]) {
    if (threadIdx.x == 0) {
      r.cx[k] = r.cy[k] = r.m00[k] = 0.0f;
      r.flags[k] = why[k];
    }
    return;
  }
  if (w <= 0 || y1 <= y0) {
    if (threadIdx.x == 0) {
      r.cx[k] = r.cy[k] = r.m00[k] = 0.0f;
      r.flags[k] = CO_SH_NO_LIGHT;
    }
    return;
  }
  if (g.method == CO_SH_TCOG) {
    if (g.threshold_fraction) {
      float v = 0.0f;
      for (y = y0 + warp; y < y1; y += WARPS)
        for (x = x0 + lane; x < x1; x += 32)
          v = fmaxf (v, weight_at (g, f, x, y));
      t = g.threshold * block_reduce (v, Max (), sf);
    } else {
      t = g.threshold;
    }
  } else if (g.method == CO_SH_BRIGHTEST &&
      g.brightest < w * (y1 - y0)) {
    /* the N-th largest key: each pass the largest below the last */
    unsigned long long last = ~0ull;
    for (int n = 0; n < g.brightest; n++) {
      unsigned long long best = 0;
      for (y = y0 + warp; y < y1; y += WARPS)
        for (x = x0 + lane; x < x1; x += 32) {
          unsigned long long key = key_of (weight_at (g, f, x, y),
              (y - y0) * w + (x - x0));
          if (key < last && key > best)
            best = key;
        }
      last = block_reduce (best, MaxKey (), sk);
    }
    cut = last;
  }
  for (y = y0 + warp; y < y1; y += WARPS)
    for (x = x0 + lane; x < x1; x += 32) {
      float v = weight_at (g, f, x, y);
      if (cut && key_of (v, (y - y0) * w + (x - x0)) < cut)
        continue;
      v -= t;
      if (v <= 0.0f)
        continue;
      m00 += v;
      m10 += v * ((float) (x - x0) + 0.5f);
      m01 += v * ((float) (y - y0) + 0.5f);
    }
  m00 = block_reduce (m00, Add (), sf);
  m10 = block_reduce (m10, Add (), sf);
  m01 = block_reduce (m01, Add (), sf);
  if (threadIdx.x == 0) {
    if (m00 > 0.0f) {
      r.cx[k] = (float) ((double) x0 + (double) m10 / m00);
      r.cy[k] = (float) ((double) y0 + (double) m01 / m00);
      r.m00[k] = m00;
      r.flags[k] = CO_SH_VALID;
    } else {
      r.cx[k] = r.cy[k] = r.m00[k] = 0.0f;
      r.flags[k] = CO_SH_NO_LIGHT;
    }
  }
}

extern "C" int
bench_sh_block_per_lenslet (const CoShGrid * g, const uint8_t * why, const CoFrame * in,
    CoShResult * r, void *stream)
{
  if (g->nx < 1 || g->ny < 1)
    return (int) cudaErrorInvalidValue;
  lenslets <<< g->nx * g->ny, THREADS, 0, (cudaStream_t) stream >>> (*g, why,
      *in, *r);
  return (int) cudaGetLastError ();
}
