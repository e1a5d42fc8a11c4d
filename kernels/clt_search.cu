/* cudaoptics — LGPL-2.1-or-later
 *
 * CUDA side of cudacltcorrelate's coarse-to-fine search (clt_search.h): a
 * thread a pixel or a tile, every value through clt_search_math.h, so the
 * bits are the C reference's.
 */
#include <cuda_runtime.h>
#include "clt_search.h"

namespace {

__global__ void
half_kernel (const float *src, int w, int h, float *dst, int hw, int hh)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x < hw && y < hh)
    dst[(size_t) y * hw + x] = co_clt_search_half_at (src, w, h, x, y);
}

__global__ void
sweep_kernel (int k, int reach, CoCltSearchLine line, int n, float *sx,
    float *sy)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x, y;

  if (i < n) {
    co_clt_search_sweep_at (k, reach, line, &x, &y);
    sx[i] = x;
    sy[i] = y;
  }
}

__global__ void
parent_kernel (int k, int tx_n, int n, int ptx_n, int pty_n,
    const float *pdx, const float *pdy, CoCltSearchLine line, float *sx,
    float *sy, float *on)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    co_clt_search_parent_at (i, k, tx_n, ptx_n, pty_n, pdx, pdy, line,
        &sx[i], &sy[i], &on[i]);
}

__global__ void
keep_kernel (int first, int n, const float *sx, const float *sy,
    const float *on, const float *rdx, const float *rdy, const float *rs,
    float *dx, float *dy, float *strength)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    co_clt_search_keep_at (i, first, sx, sy, on, rdx, rdy, rs, dx, dy,
        strength);
}

__global__ void
along_kernel (int n, const float *dx, const float *dy, CoCltSearchLine line,
    float scale, float *d)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    co_clt_search_along_at (i, dx, dy, line, scale, d);
}

}                               /* namespace */

extern "C" int
co_clt_search_along_cuda (int n, const float *dx, const float *dy,
    CoCltSearchLine line, float scale, float *d, void *stream)
{
  if (n <= 0)
    return (int) cudaSuccess;
  along_kernel <<< (n + 255) / 256, 256, 0, (cudaStream_t) stream >>> (n, dx,
      dy, line, scale, d);
  return (int) cudaGetLastError ();
}

extern "C" int
co_clt_search_half_cuda (const float *src, int w, int h, float *dst,
    void *stream)
{
  const dim3 block (32, 8);
  int hw, hh;

  co_clt_search_half_size (w, h, &hw, &hh);
  const dim3 grid ((hw + 31) / 32, (hh + 7) / 8);
  half_kernel <<< grid, block, 0, (cudaStream_t) stream >>> (src, w, h, dst,
      hw, hh);
  return (int) cudaGetLastError ();
}

extern "C" int
co_clt_search_sweep_cuda (int k, int reach, CoCltSearchLine line, int n,
    float *sx, float *sy, void *stream)
{
  if (n <= 0)
    return (int) cudaSuccess;
  sweep_kernel <<< (n + 255) / 256, 256, 0, (cudaStream_t) stream >>> (k,
      reach, line, n, sx, sy);
  return (int) cudaGetLastError ();
}

extern "C" int
co_clt_search_parent_cuda (int k, int tx_n, int ty_n, int ptx_n, int pty_n,
    const float *pdx, const float *pdy, CoCltSearchLine line, float *sx,
    float *sy, float *on, void *stream)
{
  const int n = tx_n * ty_n;

  if (n <= 0)
    return (int) cudaSuccess;
  parent_kernel <<< (n + 255) / 256, 256, 0, (cudaStream_t) stream >>> (k,
      tx_n, n, ptx_n, pty_n, pdx, pdy, line, sx, sy, on);
  return (int) cudaGetLastError ();
}

extern "C" int
co_clt_search_keep_cuda (int first, int n, const float *sx, const float *sy,
    const float *on, const float *rdx, const float *rdy, const float *rs,
    float *dx, float *dy, float *strength, void *stream)
{
  if (n <= 0)
    return (int) cudaSuccess;
  keep_kernel <<< (n + 255) / 256, 256, 0, (cudaStream_t) stream >>> (first,
      n, sx, sy, on, rdx, rdy, rs, dx, dy, strength);
  return (int) cudaGetLastError ();
}
