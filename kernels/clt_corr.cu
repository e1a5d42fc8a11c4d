/* cudaoptics — LGPL-2.1-or-later
 *
 * CUDA side of the CLT-domain phase correlation (clt_corr.h): one warp a
 * tile, eight warps a block, each warp going on to further tiles so that
 * the block's copy of the basis back to pixels is built once.  Lane l owns
 * frequencies l and l + 32 of the cross-power; the mean modulus is added
 * by shuffles in co_clt_sum64's tree order; the 120 sums across and 225
 * down are dealt round the lanes; the argmax is a shuffle reduction that
 * keeps the first of equal samples, as the C reference's scan does.
 * Every value goes through clt_corr_math.h's functions, so the bits are
 * the C side's.
 */
#include <cuda_runtime.h>
#include "clt_corr.h"

#define WARPS 8
#define MAX_BLOCKS 2048

namespace {

__global__ void __launch_bounds__ (32 * WARPS)
correlate_kernel (const float *clt_a, const float *clt_b, int n_tiles,
    const CoCltCorrParams cp, int method, const float *on, float *corr,
    float *dx, float *dy, float *strength)
{
  __shared__ float cs[CO_CLT_BASIS], sn[CO_CLT_BASIS];
  __shared__ float pp[WARPS][CO_CLT_COEFFS];
  __shared__ float aa[WARPS][CO_CLT_N * CO_CLT_CORR];
  __shared__ float bb[WARPS][CO_CLT_N * CO_CLT_CORR];
  __shared__ float cc[WARPS][CO_CLT_CORR * CO_CLT_CORR];
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned all = 0xffffffffu;
  float *p = pp[w], *a = aa[w], *b = bb[w], *c = cc[w];

  /* the parameters in shared memory: a pointer to the argument itself
   * would give every thread a local copy */
  __shared__ CoCltCorrParams sp;
  if (threadIdx.x == 0)
    sp = cp;
  for (int j = threadIdx.x; j < CO_CLT_BASIS; j += blockDim.x)
    co_clt_corr_basis_at (j, cs, sn);
  __syncthreads ();

  /* whole warps from here: no block-wide barrier */
  for (int i = blockIdx.x * WARPS + w; i < n_tiles; i += gridDim.x * WARPS) {
    /* a tile left out (the whole warp: i is the warp's) */
    if (on && on[i] == 0.0f)
      continue;
    const float *za = clt_a + (size_t) i * CO_CLT_COEFFS;
    const float *zb = clt_b + (size_t) i * CO_CLT_COEFFS;

    /* the tree of co_clt_sum64: step 32 inside the lane, then shuffles */
    float m = co_clt_corr_cross_at (za, zb, lane, p);
    m += co_clt_corr_cross_at (za, zb, lane + 32, p);
    for (int s = 16; s >= 1; s /= 2)
      m += __shfl_down_sync (all, m, s);
    const float mean = co_clt_corr_mean (__shfl_sync (all, m, 0));
    co_clt_corr_norm_at (p, lane, &sp, mean);
    co_clt_corr_norm_at (p, lane + 32, &sp, mean);
    __syncwarp ();

    for (int j = lane; j < CO_CLT_N * CO_CLT_CORR; j += 32)
      co_clt_corr_across (p, cs, sn, j / CO_CLT_CORR, j % CO_CLT_CORR, &a[j],
          &b[j]);
    __syncwarp ();

    /* each lane scans its samples in ascending order, so its own first
     * maximum survives; ties between lanes go to the lower index */
    float best_v = 0.0f;
    int best = -1;
    for (int j = lane; j < CO_CLT_CORR * CO_CLT_CORR; j += 32) {
      const float v = co_clt_corr_down (a, b, cs, sn, j % CO_CLT_CORR,
          j / CO_CLT_CORR);
      c[j] = v;
      if (best < 0 || v > best_v) {
        best_v = v;
        best = j;
      }
    }
    for (int s = 16; s >= 1; s /= 2) {
      const float ov = __shfl_down_sync (all, best_v, s);
      const int oi = __shfl_down_sync (all, best, s);
      if (ov > best_v || (ov == best_v && oi < best)) {
        best_v = ov;
        best = oi;
      }
    }
    best = __shfl_sync (all, best, 0);
    __syncwarp ();

    if (corr)
      for (int j = lane; j < CO_CLT_CORR * CO_CLT_CORR; j += 32)
        corr[(size_t) i * CO_CLT_CORR * CO_CLT_CORR + j] = c[j];
    /* Newton's sums in co_clt_sum64's order, as the mean's */
    float g[CO_CLT_NEWTON];
    if (method == CO_CLT_PEAK_NEWTON) {
      float t0[CO_CLT_NEWTON], t1[CO_CLT_NEWTON];
      co_clt_corr_newton_at (p, cs, sn, best, lane, t0);
      co_clt_corr_newton_at (p, cs, sn, best, lane + 32, t1);
      for (int j = 0; j < CO_CLT_NEWTON; j++) {
        float v = t0[j] + t1[j];
        for (int s = 16; s >= 1; s /= 2)
          v += __shfl_down_sync (all, v, s);
        g[j] = v;
      }
    }
    if (lane == 0)
      co_clt_corr_fit (c, best, (CoCltPeak) method,
          method == CO_CLT_PEAK_NEWTON ? g : NULL, &dx[i], &dy[i],
          &strength[i]);
    __syncwarp ();              /* p, a, b, c are the next tile's */
  }
}

__global__ void
plane_kernel (CoFrame in, float *plane)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x < in.width && y < in.height)
    plane[(size_t) y * in.width + x] = co_clt_corr_sample (&in, x, y);
}

__global__ void
refine_kernel (float *dx, float *dy, float *strength, const float *rdx,
    const float *rdy, const float *rs, float *hist, int n, int pass)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    co_clt_corr_refine_at (i, n, pass, dx, dy, strength, rdx, rdy, rs, hist);
}

__global__ void
mix_kernel (const float *clt, size_t n, float *out)
{
  const size_t j = (size_t) blockIdx.x * blockDim.x + threadIdx.x;

  if (j < n)
    co_clt_corr_mix_at (clt, n, j, out);
}

__global__ void
shifts_kernel (const float *bdx, const float *bdy, const float *dx,
    const float *dy, int n, float *odx, float *ody)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    co_clt_corr_shifts_at (i, bdx, bdy, dx, dy, odx, ody);
}

__global__ void
rig_kernel (const CoCltCorrRig rig, const float *res, int n, float *disp,
    float *comb, float *conf)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    co_clt_corr_rig_at (i, n, &rig, res, disp, comb, conf);
}

__global__ void
prior_kernel (const float *prior, CoCltCorrBaseline b, int has_b, int n,
    float *dx, float *dy)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    co_clt_corr_prior_at (i, n, prior, has_b ? &b : NULL, dx, dy);
}

}                               /* namespace */

extern "C" int
co_clt_corr_rig_cuda (const CoCltCorrRig * rig, const float *res, int n,
    float *disp, float *comb, float *conf, void *stream)
{
  if (n <= 0)
    return (int) cudaSuccess;
  /* the rig (1.9 KB) travels as the kernel's argument */
  rig_kernel <<< (n + 255) / 256, 256, 0, (cudaStream_t) stream >>> (*rig,
      res, n, disp, comb, conf);
  return (int) cudaGetLastError ();
}

extern "C" int
co_clt_corr_prior_cuda (const float *prior, const CoCltCorrBaseline * b,
    int n, float *dx, float *dy, void *stream)
{
  CoCltCorrBaseline none = { 0.0f, 0.0f, 1.0f, 1.0f };

  if (n <= 0)
    return (int) cudaSuccess;
  prior_kernel <<< (n + 255) / 256, 256, 0, (cudaStream_t) stream >>> (prior,
      b ? *b : none, b != NULL, n, dx, dy);
  return (int) cudaGetLastError ();
}

extern "C" int
co_clt_corr_mix_cuda (const float *clt, int n_tiles, float *out,
    void *stream)
{
  const size_t n = (size_t) n_tiles * CO_CLT_COEFFS;

  if (n_tiles <= 0)
    return (int) cudaSuccess;
  mix_kernel <<< (unsigned) ((n + 255) / 256), 256, 0,
      (cudaStream_t) stream >>> (clt, n, out);
  return (int) cudaGetLastError ();
}

extern "C" int
co_clt_corr_shifts_cuda (const float *bdx, const float *bdy, const float *dx,
    const float *dy, int n, float *odx, float *ody, void *stream)
{
  if (n <= 0)
    return (int) cudaSuccess;
  shifts_kernel <<< (n + 255) / 256, 256, 0, (cudaStream_t) stream >>> (bdx,
      bdy, dx, dy, n, odx, ody);
  return (int) cudaGetLastError ();
}

__global__ static void
lr_kernel (int tiles_x, int tiles_y, const float *dx, const float *dy,
    const float *rdx, const float *rdy, float limit, float *strength)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < tiles_x * tiles_y)
    co_clt_corr_lr_at (i, tiles_x, tiles_y, dx, dy, rdx, rdy, limit,
        strength);
}

extern "C" int
co_clt_corr_lr_cuda (int tiles_x, int tiles_y, const float *dx,
    const float *dy, const float *rdx, const float *rdy, float limit,
    float *strength, void *stream)
{
  const int n = tiles_x * tiles_y;
  if (n <= 0)
    return (int) cudaSuccess;
  lr_kernel <<< (n + 255) / 256, 256, 0, (cudaStream_t) stream >>> (tiles_x,
      tiles_y, dx, dy, rdx, rdy, limit, strength);
  return (int) cudaGetLastError ();
}

extern "C" int
co_clt_corr_refine_cuda (float *dx, float *dy, float *strength,
    const float *rdx, const float *rdy, const float *rs, float *hist, int n,
    int pass, void *stream)
{
  if (n <= 0)
    return (int) cudaSuccess;
  refine_kernel <<< (n + 255) / 256, 256, 0, (cudaStream_t) stream >>> (dx,
      dy, strength, rdx, rdy, rs, hist, n, pass);
  return (int) cudaGetLastError ();
}

extern "C" int
co_clt_corr_plane_cuda (const CoFrame * in, float *plane, void *stream)
{
  const dim3 block (32, 8);
  const dim3 grid ((in->width + 31) / 32, (in->height + 7) / 8);

  plane_kernel <<< grid, block, 0, (cudaStream_t) stream >>> (*in, plane);
  return (int) cudaGetLastError ();
}

/* both entry points: the tiles whose @on is not 0 (NULL: all), the
 * correlation tiles into @corr when given */
static int
launch_correlate (const float *clt_a, const float *clt_b, int n_tiles,
    const CoCltCorrParams * cp, CoCltPeak method, const float *on,
    float *corr, float *dx, float *dy, float *strength, void *stream)
{
  int blocks = (n_tiles + WARPS - 1) / WARPS;

  if (n_tiles <= 0)
    return (int) cudaSuccess;
  correlate_kernel <<< blocks < MAX_BLOCKS ? blocks : MAX_BLOCKS,
      32 * WARPS, 0, (cudaStream_t) stream >>> (clt_a, clt_b, n_tiles,
      *cp, (int) co_clt_corr_method (cp, method), on, corr, dx, dy, strength);
  return (int) cudaGetLastError ();
}

extern "C" int
co_clt_correlate_cuda (const float *clt_a, const float *clt_b, int n_tiles,
    const CoCltCorrParams * cp, CoCltPeak method, float *corr, float *dx,
    float *dy, float *strength, void *stream)
{
  return launch_correlate (clt_a, clt_b, n_tiles, cp, method, NULL, corr, dx,
      dy, strength, stream);
}

extern "C" int
co_clt_correlate_some_cuda (const float *clt_a, const float *clt_b,
    int n_tiles, const CoCltCorrParams * cp, CoCltPeak method,
    const float *on, float *dx, float *dy, float *strength, void *stream)
{
  return launch_correlate (clt_a, clt_b, n_tiles, cp, method, on, NULL, dx,
      dy, strength, stream);
}
