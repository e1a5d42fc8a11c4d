/* cudaoptics — LGPL-2.1-or-later
 *
 * CUDA side of the generic remap (remap.h); the kernel is
 * co_remap_kernel.cuh's, the maths co_remap.h's.
 */
#include "co_remap_kernel.cuh"
#include "remap.h"

namespace {

__global__ void __launch_bounds__ (CO_BLOCK_X * CO_BLOCK_Y)
from_map_kernel (CoLutPlane pl, int mode, int interp, int edge, int frac,
    const float *mx, const float *my, int map_pitch)
{
  const int x = blockIdx.x * CO_BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * CO_BLOCK_Y + threadIdx.y;
  if (x >= pl.pitch || y >= pl.height)
    return;
  /* the row's padding is written too, as "no source pixel" */
  const bool pad = x >= pl.width;
  const size_t i = (size_t) y * pl.pitch + x, mi = (size_t) y * map_pitch + x;
  const float nan = __int_as_float (0x7fc00000);
  const float sx = pad ? nan : mx[mi], sy = pad ? nan : my[mi];
  if (mode == CO_LUT_COMPRESSED) {
    pl.packed[i] = co_lut_encode ((CoInterp) interp, (CoEdge) edge, sx, sy,
        pl.src_width, pl.src_height, frac);
  } else {
    pl.x[i] = sx;
    pl.y[i] = sy;
  }
}

}  // namespace

extern "C" int
co_lut_from_map_cuda (const CoLut * lut, int g, const float *x,
    const float *y, int map_pitch, void *stream)
{
  const CoLutPlane &pl = lut->plane[g];
  if (lut->mode == CO_LUT_COMPUTE)
    return cudaSuccess;
  if (pl.width <= 0 || pl.height <= 0 || map_pitch < pl.width)
    return cudaErrorInvalidValue;
  if (!x || !y || (lut->mode == CO_LUT_COMPRESSED ? !pl.packed :
          (!pl.x || !pl.y)))
    return cudaErrorInvalidDevicePointer;
  from_map_kernel <<<co_grid_for (pl.pitch, pl.height, 1),
      dim3 (CO_BLOCK_X, CO_BLOCK_Y), 0, (cudaStream_t) stream>>> (pl,
      lut->mode, lut->interp, lut->edge, lut->frac[g], x, y, map_pitch);
  return cudaGetLastError ();
}

extern "C" int
co_remap_cuda (const CoLut * lut, const CoFrame * in, CoFrame * out,
    const uint32_t border[CO_MAX_PLANES], void *stream)
{
  if (lut->mode == CO_LUT_COMPUTE)
    return cudaErrorInvalidValue;
  return co_remap_launch (CoNoEntry (), lut, in, out, border,
      (cudaStream_t) stream);
}
