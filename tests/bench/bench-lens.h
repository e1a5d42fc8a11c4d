/* cudaoptics — LGPL-2.1-or-later
 *
 * The lens the tile-processor benchmarks correct (bench-clt,
 * bench-correlate): a blur growing to the corners and lateral colour, its
 * kernel nodes on a grid at @stride over w x h (malloc'd, *gw x *gh nodes
 * of 3 colours), built in parallel.
 */
#ifndef BENCH_LENS_H
#define BENCH_LENS_H

#include <stdlib.h>
#include "clt_build.h"

static inline float *
bench_lens_nodes (int w, int h, int stride, int *gw, int *gh)
{
  CoCltLens lens;
  float *nodes;
  int i, c;

  *gw = (w - 1 + stride - 1) / stride + 1;
  *gh = (h - 1 + stride - 1) / stride + 1;
  co_clt_lens_init (&lens, w, h);
  lens.sigma0 = 0.7;
  lens.sigma1 = 1.2;
  lens.chroma[0] = 1.0008;
  lens.chroma[2] = 0.9993;
  lens.nsr = 0.03;
  lens.bayer = 1;
  nodes = malloc (sizeof (float) * (size_t) *gw * *gh * 3 * 258);
#pragma omp parallel for private(c) schedule(dynamic, 64)
  for (i = 0; i < *gw * *gh; i++)
    for (c = 0; c < 3; c++)
      co_clt_lens_node (&lens, (i % *gw) * stride, (i / *gw) * stride, c,
          nodes + ((size_t) i * 3 + c) * 258);
  return nodes;
}

#endif
