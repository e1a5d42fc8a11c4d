/* cudaoptics — LGPL-2.1-or-later
 *
 * cudaomniunwrap's map on the device: every entry from an image radius of
 * its row and its column's (cos, sin), both tables computed on the host
 * (the radii by the mirror model's Newton solve), so the CUDA and C maps
 * are the same floats.
 */
#include <cuda_runtime.h>
#include "omni_math.h"

__global__ static void
fill_kernel (CoOmniPolar p, const float *rho, int n_rho, const float *trig,
    int width, int height, float scale, float *x, float *y, int pitch)
{
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;

  if (c < width && r < height)
    co_omni_fill_px (&p, rho, n_rho, trig, c, r, scale, x, y, pitch);
}

extern "C" int
co_omni_fill_cuda (const CoOmniPolar * p, const float *rho, int n_rho,
    const float *trig, int width, int height, float scale, float *x,
    float *y, int pitch, void *stream)
{
  dim3 block (32, 8);
  dim3 grid ((width + 31) / 32, (height + 7) / 8);

  fill_kernel <<< grid, block, 0, (cudaStream_t) stream >>> (*p, rho, n_rho,
      trig, width, height, scale, x, y, pitch);
  return (int) cudaGetLastError ();
}

extern "C" int
co_omni_upload_cuda (void *dst, const void *src, size_t n, void *stream)
{
  return (int) cudaMemcpyAsync (dst, src, n, cudaMemcpyHostToDevice,
      (cudaStream_t) stream);
}
