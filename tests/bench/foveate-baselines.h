/* cudaoptics — LGPL-2.1-or-later
 *
 * The baselines of bench-foveate-kernels (foveate-baselines.cu), RGBA.
 */
#ifndef BENCH_FOVEATE_BASELINES_H
#define BENCH_FOVEATE_BASELINES_H

#include "foveate_math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  void *lv[6];                  /* float4 levels, level 0 the frame */
  int w[6], h[6];
} BenchPyramid;

/* Each returns a cudaError_t; the model, fixation and min-sigma of @f. */
int bench_perfect_cuda (const CoFovea * f, const CoFrame * in, CoFrame * out,
    void *stream);
int bench_pyramid_alloc (BenchPyramid * py, int w, int h);
void bench_pyramid_free (BenchPyramid * py);
int bench_pyramid_cuda (const CoFovea * f, BenchPyramid * py,
    const CoFrame * in, CoFrame * out, void *stream);

#ifdef __cplusplus
}
#endif
#endif
