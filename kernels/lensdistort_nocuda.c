/* cudaoptics — LGPL-2.1-or-later
 *
 * The CUDA launchers of lensdistort.h for builds without CUDA: they are never
 * reached (no device means the CPU backend), but they keep every element free
 * of #ifdefs.  They fail as the CUDA runtime would without a driver.
 */
#include "lensdistort.h"

#define NO_CUDA 35              /* cudaErrorInsufficientDriver */

int
co_lens_build_lut_cuda (const CoLensParams * p, const CoLut * lut, void *stream)
{
  return NO_CUDA;
}

int
co_lens_remap_cuda (const CoLensParams * p, const CoLut * lut,
    const CoFrame * in, CoFrame * out, const uint32_t border[CO_MAX_PLANES],
    void *stream)
{
  return NO_CUDA;
}

int
co_lens_build_forward_cuda (const CoLensParams * p, uint32_t * fwd,
    int pitch, void *stream)
{
  return NO_CUDA;
}

int
co_lens_remap_forward_cuda (const uint32_t * fwd, int pitch,
    const CoFrame * in, CoFrame * out, void *stream)
{
  return NO_CUDA;
}
