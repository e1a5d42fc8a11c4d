/* cudaoptics — LGPL-2.1-or-later: CUDA side of tests/check/modes-ops.h */
#include <cuda_runtime.h>
#include "modes-ops.h"

__global__ static void
scale_kernel (CoFrame in, CoFrame out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < out.width && y < out.height)
    mo_scale_px (&in, &out, x, y);
}

__global__ static void
rgba_kernel (CoFrame in, CoFrame out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < out.width && y < out.height)
    mo_to_rgba_px (&in, &out, x, y);
}

__global__ static void
sum_kernel (CoFrame in, unsigned long long *sum)
{
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y < in.height)
    atomicAdd (sum, (unsigned long long) mo_row_sum (&in, y));
}

static dim3
grid_for (const CoFrame * f, dim3 block)
{
  return dim3 ((f->width + block.x - 1) / block.x,
      (f->height + block.y - 1) / block.y);
}

extern "C" int
mo_scale_cuda (const CoFrame * in, const CoFrame * out, void *stream)
{
  dim3 block (16, 16);
  scale_kernel <<< grid_for (out, block), block, 0,
      (cudaStream_t) stream >>> (*in, *out);
  return (int) cudaGetLastError ();
}

extern "C" int
mo_to_rgba_cuda (const CoFrame * in, const CoFrame * out, void *stream)
{
  dim3 block (16, 16);
  rgba_kernel <<< grid_for (out, block), block, 0,
      (cudaStream_t) stream >>> (*in, *out);
  return (int) cudaGetLastError ();
}

extern "C" int
mo_sum_cuda (const CoFrame * in, unsigned long long *dev_sum, void *stream)
{
  sum_kernel <<< (in->height + 63) / 64, 64, 0,
      (cudaStream_t) stream >>> (*in, dev_sum);
  return (int) cudaGetLastError ();
}
