/* cudaoptics — LGPL-2.1-or-later
 *
 * omni_math.h's CUDA launchers for builds without CUDA (never reached: no
 * device means the CPU backend); they fail as the runtime would without a
 * driver.
 */
#include "omni_math.h"
#include "omni_mirror.h"

#define NO_DRIVER 35            /* cudaErrorInsufficientDriver */

int
co_omni_fill_cuda (const CoOmniView * p, const float *rho, int n_rho,
    const float *trig, int width, int height, float scale, float *x,
    float *y, int pitch, void *stream)
{
  return NO_DRIVER;
}


int
co_omni_solve_cuda (const CoOmniRows * s, const CoOmniView * v,
    const double *ax, int n_ax, int height, float scale, float *rho,
    int *dev_fail, void *stream)
{
  return NO_DRIVER;
}

int
co_omni_ground_cuda (const CoOmniView * v, const CoOmniRows * s, int width,
    int height, float scale, float *x, float *y, int pitch, int *dev_fail,
    void *stream)
{
  return NO_DRIVER;
}

