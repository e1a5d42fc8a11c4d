/* cudaoptics — LGPL-2.1-or-later
 *
 * omni_math.h's CUDA launcher for builds without CUDA (never reached: no
 * device means the CPU backend); fails as the runtime would without a
 * driver.
 */
#include "omni_math.h"
#include "omni_mirror.h"

int
co_omni_fill_cuda (const CoOmniPolar * p, const float *rho, int n_rho,
    const float *trig, int width, int height, float scale, float *x,
    float *y, int pitch, void *stream)
{
  return 35;                    /* cudaErrorInsufficientDriver */
}

int
co_omni_upload_cuda (void *dst, const void *src, size_t n, void *stream)
{
  return 35;
}

int
co_omni_solve_cuda (const CoOmniRows * s, const double *ax, int n_ax,
    int height, float scale, float *rho, int *dev_fail, void *stream)
{
  return 35;
}

int
co_omni_read_flag_cuda (int *host_flag, const int *dev_flag, void *stream)
{
  return 35;
}
