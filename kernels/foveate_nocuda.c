/* cudaoptics — LGPL-2.1-or-later
 *
 * foveate_math.h's CUDA launcher for builds without CUDA (never reached: no
 * device means the CPU backend); it fails as the runtime would without a
 * driver.
 */
#include "foveate_math.h"

int
co_fovea_cuda (const CoFovea * f, const CoFrame * in, CoFrame * out,
    void *stream)
{
  return 35;                    /* cudaErrorInsufficientDriver */
}


int
co_fovea_show_cuda (const CoFovea * f, CoFrame * out, void *stream)
{
  return 35;
}
