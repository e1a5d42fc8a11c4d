/* cudaoptics — LGPL-2.1-or-later
 *
 * cudaomniunwrap's map on the device: every entry from an image radius of
 * its row and its column's (cos, sin), both tables computed on the host
 * (the radii by the mirror model's Newton solve), so the CUDA and C maps
 * are the same floats.
 */
#include <cuda_runtime.h>
#include "omni_math.h"
#include "omni_mirror.h"

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

/* One thread per column, down from the window's closed-form point, each
 * row from the root of the row above (the paper's propagation; its
 * sequential first row is replaced by the closed-form start, which keeps
 * the solve fully parallel). */
__global__ static void
solve_columns (CoOmniRows s, const double *ax, int n_ax, int height,
    float scale, float *rho, int *fail)
{
  int k = blockIdx.x * blockDim.x + threadIdx.x, r;
  double x;

  if (k >= n_ax)
    return;
  x = s.r_top;
  for (r = 0; r < height; r++)
    if (!co_omni_solve_cell (&s, ax[k], co_omni_row_z (&s, r, scale), &x,
            &rho[(size_t) r * n_ax + k]))
      *fail = 1;
}

/* Every cell on its own, from its row's interpolated guess. */
__global__ static void
solve_cells (CoOmniRows s, const double *ax, int n_ax, int height,
    float scale, float *rho, int *fail)
{
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  double x;

  if (k >= n_ax || r >= height)
    return;
  x = co_omni_guess (&s, r, scale);
  if (!co_omni_solve_cell (&s, ax[k], co_omni_row_z (&s, r, scale), &x,
          &rho[(size_t) r * n_ax + k]))
    *fail = 1;
}

extern "C" int
co_omni_solve_cuda (const CoOmniRows * s, const double *ax, int n_ax,
    int height, float scale, float *rho, int *dev_fail, void *stream)
{
  cudaStream_t st = (cudaStream_t) stream;
  int err = (int) cudaMemsetAsync (dev_fail, 0, sizeof (int), st);

  if (err)
    return err;
  if (s->propagate) {
    solve_columns <<< (n_ax + 127) / 128, 128, 0, st >>> (*s, ax, n_ax,
        height, scale, rho, dev_fail);
  } else {
    dim3 block (32, 4), grid ((n_ax + 31) / 32, (height + 3) / 4);
    solve_cells <<< grid, block, 0, st >>> (*s, ax, n_ax, height, scale,
        rho, dev_fail);
  }
  return (int) cudaGetLastError ();
}

extern "C" int
co_omni_read_flag_cuda (int *host_flag, const int *dev_flag, void *stream)
{
  int err = (int) cudaMemcpyAsync (host_flag, dev_flag, sizeof (int),
      cudaMemcpyDeviceToHost, (cudaStream_t) stream);
  return err ? err : (int) cudaStreamSynchronize ((cudaStream_t) stream);
}
