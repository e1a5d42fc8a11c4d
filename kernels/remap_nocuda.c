/* cudaoptics — LGPL-2.1-or-later
 *
 * The CUDA launchers of remap.h for builds without CUDA (never reached: no
 * device means the CPU backend).  They fail as the runtime would without a
 * driver.
 */
#include "remap.h"

#define NO_CUDA 35              /* cudaErrorInsufficientDriver */

int
co_lut_from_map_cuda (const CoLut * lut, int g, const float *x,
    const float *y, int map_pitch, void *stream)
{
  return NO_CUDA;
}

int
co_remap_cuda (const CoLut * lut, const CoFrame * in, CoFrame * out,
    const uint32_t border[CO_MAX_PLANES], void *stream)
{
  return NO_CUDA;
}
