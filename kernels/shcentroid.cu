/* cudaoptics — LGPL-2.1-or-later
 *
 * cudashcentroid on the device, after the paper's data levels: pixel
 * groups (4 pixels of GRAY8 or 2 of GRAY16_LE read as one 32-bit word),
 * a group of lanes per lenslet (G lanes along a row times R row slices, S =
 * G R lanes, powers of two from co_sh_plan's widest lenslet), several
 * lenslets per warp, and an XOR-butterfly over the S lanes that reduces
 * every lenslet of the warp at once: no shared memory, no barrier.  Pixels
 * of a word outside the lenslet count as zero (the paper's straddling
 * groups).  Each lane sums its few pixels in float about the lenslet's
 * first pixel (few terms; the products are exact for raw pixel values);
 * the butterfly adds in double,
 * so the centroids keep 1e-4 pixel for lenslets far wider than the paper's.
 *
 * tcog with a relative threshold takes a first pass for the largest
 * weight.  Brightest N counts every pixel whose weight is at least the
 * N-th largest (ties included), found as the N-th largest (weight, earlier
 * pixel) key, whose weight it is (weights are not negative, so their bits
 * order as they do):
 * N passes of "the largest key below the last" for small N, a bitwise
 * search of the 64-bit key (64 passes of a count) past that, so any N
 * costs a bounded time.
 */
#include <cuda_runtime.h>
#include "shcentroid_math.h"

#define THREADS 128
#define BITWISE_FROM 64         /* brightest N: N passes below this */

/* Where one lane's pixels are: the lenslet, and the lane's words. */
struct Lane
{
  int x0, x1, y0, y1;           /* the measured pixels, [x0, x1) x [y0, y1) */
  int col, slice;               /* word column (of G) and row slice (of R) */
  int G, R;
};

/* Calls fn (x, y, weight) for every pixel of the lane's words. */
template < bool WIDE, bool WORD, class Fn > __device__ static inline void
each (const CoShGrid & g, const CoFrame & f, const Lane & l, Fn fn)
{
  const int per = WIDE ? 2 : 4;
  const int w0 = l.x0 / per, w1 = (l.x1 - 1) / per;

#pragma unroll 4
  for (int y = l.y0 + l.slice; y < l.y1; y += l.R) {
    const uint8_t *row = f.data[0] + (size_t) y * f.pitch[0];
    for (int wi = w0 + l.col; wi <= w1; wi += l.G) {
      uint32_t word;
      if (WORD)
        word = __ldg ((const uint32_t *) row + wi);
      else {
        /* the bytes of the word that lie in the frame */
        const int b0 = wi * 4, nb = min (4, f.width * (WIDE ? 2 : 1) - b0);
        word = 0;
        for (int b = 0; b < nb; b++)
          word |= (uint32_t) __ldg (row + b0 + b) << (8 * b);
      }
#pragma unroll
      for (int p = 0; p < per; p++) {
        const int x = wi * per + p;
        const uint32_t v = WIDE ? (word >> (16 * p)) & 0xffffu :
            (word >> (8 * p)) & 0xffu;
        if (x >= l.x0 && x < l.x1)
          fn (x, y, co_sh_weight (&g, v));
      }
    }
  }
}

/* Over the S lanes of each lenslet (aligned groups of the warp). */
template < class T, class Op > __device__ static inline T
reduce (T v, int S, Op op)
{
  for (int o = S / 2; o > 0; o /= 2)
    v = op (v, __shfl_xor_sync (0xffffffffu, v, o));
  return v;
}

struct Add
{
  template < class T > __device__ T operator () (T a, T b) const
  {
    return a + b;
  }
};
struct Max
{
  template < class T > __device__ T operator () (T a, T b) const
  {
    return a > b ? a : b;
  }
};

/* (weight, earlier pixel first) as one orderable key: weights are never
 * negative, so their bits order as unsigned integers */
__device__ static inline unsigned long long
key_of (float w, int at)
{
  /* + 0: a -0 weight (a LUT may hold one) orders as 0 */
  return (unsigned long long) __float_as_uint (w + 0.0f) << 32 |
      (0xffffffffu - (unsigned) at);
}

/* The N-th largest key of the lenslet, or 0 when it has N pixels or fewer
 * (all of them count).  Every lane of the warp runs the same passes. */
template < bool WIDE, bool WORD > __device__ static unsigned long long
nth_key (const CoShGrid & g, const CoFrame & f, const Lane & l, int S,
    int passes)
{
  const int w = l.x1 - l.x0, n = max (w, 0) * max (l.y1 - l.y0, 0);
  const unsigned long long N = (unsigned long long) g.brightest;

  if (passes < BITWISE_FROM) {
    unsigned long long last = ~0ull;
    for (int q = 0; q < passes; q++) {
      unsigned long long best = 0;
      each < WIDE, WORD > (g, f, l, [&] (int x, int y, float v) {
        unsigned long long k = key_of (v, (y - l.y0) * w + (x - l.x0));
        if (k < last && k > best)
          best = k;
      });
      last = reduce (best, S, Max ());
    }
    return (unsigned long long) n > N ? last : 0;
  }
  /* the largest T with at least N keys >= T, bit by bit */
  unsigned long long t = 0;
  for (int b = 63; b >= 0; b--) {
    const unsigned long long cand = t | 1ull << b;
    unsigned int count = 0;
    each < WIDE, WORD > (g, f, l, [&] (int x, int y, float v) {
      count += key_of (v, (y - l.y0) * w + (x - l.x0)) >= cand;
    });
    if (reduce (count, S, Add ()) >= N)
      t = cand;
  }
  return (unsigned long long) n > N ? t : 0;
}

template < bool WIDE, bool WORD > __global__ static void
lenslets (CoShGrid g, const uint8_t * why, CoFrame f, CoShResult r, int lgG,
    int lgR, int passes)
{
  const int S = 1 << (lgG + lgR), lane = threadIdx.x % 32;
  const int k = (blockIdx.x * blockDim.x + threadIdx.x) / S;
  const int n = g.nx * g.ny, u = lane % S;
  const bool real = k < n && g.measure[k];
  Lane l;
  float t = 0.0f, m00 = 0.0f, m10 = 0.0f, m01 = 0.0f;
  unsigned long long cut = 0;

  l.G = 1 << lgG;
  l.R = 1 << lgR;
  l.col = u & (l.G - 1);
  l.slice = u >> lgG;
  l.x0 = l.x1 = l.y0 = l.y1 = 0;
  if (real) {
    const int i = k % g.nx, j = k / g.nx;
    l.x0 = g.bx[i] + g.margin;
    l.x1 = g.bx[i + 1] - g.margin;
    l.y0 = g.by[j] + g.margin;
    l.y1 = g.by[j + 1] - g.margin;
  }
  /* every lane goes through every shuffle: lanes past the grid or on an
   * unmeasured lenslet walk an empty one */
  if (l.x1 <= l.x0 || l.y1 <= l.y0)
    l.x1 = l.x0, l.y1 = l.y0;
  if (g.method == CO_SH_TCOG) {
    if (g.threshold_fraction) {
      float v = 0.0f;
      each < WIDE, WORD > (g, f, l, [&] (int, int, float w) {
        v = fmaxf (v, w);
      });
      t = g.threshold * reduce (v, S, Max ());
    } else {
      t = g.threshold;
    }
  } else if (g.method == CO_SH_BRIGHTEST) {
    cut = nth_key < WIDE, WORD > (g, f, l, S, passes);
  }
  {
    each < WIDE, WORD > (g, f, l, [&] (int x, int y, float v) {
      /* every pixel tied with the N-th largest weight counts */
      if (cut && __float_as_uint (v + 0.0f) < (unsigned) (cut >> 32))
        return;
      v -= t;
      if (v <= 0.0f)
        return;
      m00 += v;
      m10 = fmaf (v, (float) (x - l.x0) + 0.5f, m10);
      m01 = fmaf (v, (float) (y - l.y0) + 0.5f, m01);
    });
  }
  const double s00 = reduce ((double) m00, S, Add ());
  const double s10 = reduce ((double) m10, S, Add ());
  const double s01 = reduce ((double) m01, S, Add ());
  if (k >= n || u != 0)
    return;
  if (!g.measure[k]) {
    r.cx[k] = r.cy[k] = r.m00[k] = 0.0f;
    r.flags[k] = why[k];
  } else if (s00 > 0.0) {
    r.cx[k] = (float) ((double) l.x0 + s10 / s00);
    r.cy[k] = (float) ((double) l.y0 + s01 / s00);
    r.m00[k] = (float) s00;
    r.flags[k] = CO_SH_VALID;
  } else {
    r.cx[k] = r.cy[k] = r.m00[k] = 0.0f;
    r.flags[k] = CO_SH_NO_LIGHT;
  }
  if (r.sx)
    co_sh_slopes_of (&g, &r, k);
}

static int
lg_ceil (int v)
{
  int l = 0;

  while ((1 << l) < v)
    l++;
  return l;
}

extern "C" int
co_sh_cuda (const CoShGrid * g, const uint8_t * why, const CoFrame * in,
    CoShResult * r, void *stream)
{
  const bool wide = in->format == CO_FORMAT_GRAY16_LE;
  const bool word = ((uintptr_t) in->data[0] | (uintptr_t) in->pitch[0]) %
      4 == 0;
  const int lgG = lg_ceil (g->span_words) > 5 ? 5 : lg_ceil (g->span_words);
  int lgR = lg_ceil (g->span_rows) > 5 - lgG ? 5 - lgG :
      lg_ceil (g->span_rows);
  /* many small lenslets: fewer row slices each (a lane then loops over
   * more rows) until the grid is about 2^17 threads.  Past that, lanes
   * mostly idle on short lenslets and shuffle in long reductions; on the
   * H100 at 1000 x 1000 this took pitch 3.8 from 10.4 to 6.5 us and pitch
   * 11 from 8.4 to 6.5 us, and leaves pitches 20 and 29 (already under
   * that count) as they were */
  while (lgR > 0 && ((long long) g->nx * g->ny << (lgG + lgR)) > (1 << 17))
    lgR--;
  const int per_block = THREADS >> (lgG + lgR);
  const int n = g->nx * g->ny;
  const int pixels = g->span_words * (wide ? 2 : 4) * g->span_rows;
  int passes = g->brightest < pixels ? g->brightest : pixels;
  cudaStream_t st = (cudaStream_t) stream;

  if (g->nx < 1 || g->ny < 1 || g->span_words < 1)
    return (int) cudaErrorInvalidValue;
  if (passes >= BITWISE_FROM)
    passes = BITWISE_FROM;
#define LAUNCH(W, A) lenslets < W, A > <<< (n + per_block - 1) / per_block, \
      THREADS, 0, st >>> (*g, why, *in, *r, lgG, lgR, passes)
  if (wide)
    word ? LAUNCH (true, true) : LAUNCH (true, false);
  else
    word ? LAUNCH (false, true) : LAUNCH (false, false);
#undef LAUNCH
  return (int) cudaGetLastError ();
}

__global__ static void
border_lines (CoShGrid g, CoFrame f)
{
  co_sh_line_pixel (&g, &f, blockIdx.y, blockIdx.x * blockDim.x +
      threadIdx.x);
}

__global__ static void
marks (CoShMarks m, CoFrame f, int n)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n)
    co_sh_marks (&m, &f, k);
}

extern "C" int
co_sh_overlay_cuda (const CoShGrid * g, const CoShMarks * m,
    const CoFrame * f, void *stream)
{
  cudaStream_t st = (cudaStream_t) stream;
  /* the boundaries are on the device: no line is longer than the frame */
  const int n = g->nx * g->ny, len = f->width > f->height ? f->width :
      f->height;
  dim3 lines ((len + 127) / 128, g->nx + g->ny + 2);

  if (len > 0)
    border_lines <<< lines, 128, 0, st >>> (*g, *f);
  marks <<< (n + 127) / 128, 128, 0, st >>> (*m, *f, n);
  return (int) cudaGetLastError ();
}
