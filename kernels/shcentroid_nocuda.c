/* cudaoptics — LGPL-2.1-or-later
 *
 * shcentroid_math.h's CUDA launcher for builds without CUDA (never
 * reached: no device means the CPU backend); it fails as the runtime would
 * without a driver.
 */
#include "shcentroid_math.h"

int
co_sh_cuda (const CoShGrid * g, const uint8_t * why, const CoFrame * in,
    CoShResult * r, void *stream)
{
  return 35;                    /* cudaErrorInsufficientDriver */
}

int
co_sh_overlay_cuda (const CoShGrid * g, const CoShMarks * m,
    const CoFrame * f, void *stream)
{
  return 35;                    /* cudaErrorInsufficientDriver */
}
