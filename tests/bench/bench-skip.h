/* cudaoptics — LGPL-2.1-or-later
 *
 * How every benchmark says that it cannot run here: without a usable CUDA
 * device a benchmark is skipped, not failed, so each exits 77 (meson's and
 * automake's skip) with the same words, which scripts and people can
 * match once for all benchmarks.
 */
#ifndef BENCH_SKIP_H
#define BENCH_SKIP_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#define BENCH_SKIP_STATUS 77
#define BENCH_NO_CUDA "no usable CUDA device: skipped"

static void bench_skip_no_cuda (void) __attribute__ ((unused, noreturn));
static void
bench_skip_no_cuda (void)
{
  fflush (stdout);
  fprintf (stderr, "%s\n", BENCH_NO_CUDA);
  exit (BENCH_SKIP_STATUS);
}

/* The number of CUDA devices, at least @min_devices of them, or the skip.
 * A device counted but refusing a context (a driver older than the
 * runtime, a GPU taken by another process in exclusive mode) is as
 * unusable as none: cudaFree (0) makes the context. */
static int bench_require_cuda (int min_devices) __attribute__ ((unused));
static int
bench_require_cuda (int min_devices)
{
  int n = 0;

  if (cudaGetDeviceCount (&n) != cudaSuccess || n < min_devices
      || n < 1 || cudaFree (0) != cudaSuccess)
    bench_skip_no_cuda ();
  return n;
}

#endif /* BENCH_SKIP_H */
