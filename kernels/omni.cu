/* cudaoptics — LGPL-2.1-or-later
 *
 * cudaomniunwrap's map on the device.  Panoramas: every entry from an image
 * radius of its row and its column's (cos, sin), the radii solved here by
 * the mirror model's Newton-Raphson (or, for polar, computed on the host),
 * the trigonometry on the host, so the CUDA and C maps are the same
 * floats.  Ground: every pixel solved on its own.
 */
#include <cuda_runtime.h>
#include "omni_math.h"
#include "omni_mirror.h"

__global__ static void
fill_kernel (CoOmniView p, const float *rho, int n_rho, const float *trig,
    int width, int height, float scale, float *x, float *y, int pitch)
{
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;

  if (c < width && r < height)
    co_omni_fill_px (&p, rho, n_rho, trig, width, c, r, scale, x, y, pitch);
}

extern "C" int
co_omni_fill_cuda (const CoOmniView * p, const float *rho, int n_rho,
    const float *trig, int width, int height, float scale, float *x,
    float *y, int pitch, void *stream)
{
  dim3 block (32, 8);
  dim3 grid ((width + 31) / 32, (height + 7) / 8);

  fill_kernel <<< grid, block, 0, (cudaStream_t) stream >>> (*p, rho, n_rho,
      trig, width, height, scale, x, y, pitch);
  return (int) cudaGetLastError ();
}


/* One thread per column, down the rows, each from the root of the row
 * above (the paper's propagation; its sequential first row is replaced by
 * the window's closed-form point, which keeps the solve fully parallel). */
__global__ static void
solve_columns (CoOmniRows s, CoOmniView v, const double *ax, int n_ax,
    int height, float scale, float *rho, int *fail)
{
  int k = blockIdx.x * blockDim.x + threadIdx.x, r, pr;
  double x = -1.0;

  if (k >= n_ax)
    return;
  for (r = 0; r < height; r++)
    if (!co_omni_solve_cell (&s, ax[k], co_omni_t (&v, ((float) r + 0.5f) *
                scale - 0.5f, &pr), &x, &rho[(size_t) r * n_ax + k]))
      *fail = 1;
}

/* Every cell on its own, from its row's window point. */
__global__ static void
solve_cells (CoOmniRows s, CoOmniView v, const double *ax, int n_ax,
    int height, float scale, float *rho, int *fail)
{
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y, pr;
  double x = -1.0;

  if (k >= n_ax || r >= height)
    return;
  if (!co_omni_solve_cell (&s, ax[k], co_omni_t (&v, ((float) r + 0.5f) *
              scale - 0.5f, &pr), &x, &rho[(size_t) r * n_ax + k]))
    *fail = 1;
}

extern "C" int
co_omni_solve_cuda (const CoOmniRows * s, const CoOmniView * v,
    const double *ax, int n_ax, int height, float scale, float *rho,
    int *dev_fail, void *stream)
{
  cudaStream_t st = (cudaStream_t) stream;
  int err = (int) cudaMemsetAsync (dev_fail, 0, sizeof (int), st);

  if (err)
    return err;
  if (s->propagate) {
    solve_columns <<< (n_ax + 127) / 128, 128, 0, st >>> (*s, *v, ax, n_ax,
        height, scale, rho, dev_fail);
  } else {
    dim3 block (32, 4), grid ((n_ax + 31) / 32, (height + 3) / 4);
    solve_cells <<< grid, block, 0, st >>> (*s, *v, ax, n_ax, height, scale,
        rho, dev_fail);
  }
  return (int) cudaGetLastError ();
}

__global__ static void
ground_kernel (CoOmniView v, CoOmniRows s, int width, int height,
    float scale, float *x, float *y, int pitch, int *fail)
{
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;

  if (c < width && r < height &&
      !co_omni_ground_px (&v, &s, c, r, scale, x, y, pitch))
    *fail = 1;
}

extern "C" int
co_omni_ground_cuda (const CoOmniView * v, const CoOmniRows * s, int width,
    int height, float scale, float *x, float *y, int pitch, int *dev_fail,
    void *stream)
{
  cudaStream_t st = (cudaStream_t) stream;
  dim3 block (32, 4), grid ((width + 31) / 32, (height + 3) / 4);
  int err = (int) cudaMemsetAsync (dev_fail, 0, sizeof (int), st);

  if (err)
    return err;
  ground_kernel <<< grid, block, 0, st >>> (*v, *s, width, height, scale, x,
      y, pitch, dev_fail);
  return (int) cudaGetLastError ();
}
