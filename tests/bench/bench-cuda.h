/* cudaoptics — LGPL-2.1-or-later
 *
 * What the benchmarks that compare with the device's own copy share: the
 * bandwidth floor of a frame, measured in the same process.
 */
#ifndef BENCH_CUDA_H
#define BENCH_CUDA_H

#include <glib.h>
#include <cuda_runtime_api.h>
#include <string.h>

/* The device copy of one output frame (RGBA), median of 50 timed with
 * events over 8 rotating buffers. */
static G_GNUC_UNUSED gdouble
copy_ms (gint w, gint h)
{
  void *buf[16];
  cudaEvent_t a, b;
  float ms[50], t;
  size_t bytes = (size_t) w * h * 4;
  gint i, j;

  for (i = 0; i < 16; i++)
    if (cudaMalloc (&buf[i], bytes) != cudaSuccess)
      return -1;
  cudaEventCreate (&a);
  cudaEventCreate (&b);
  for (i = 0; i < 50; i++) {
    cudaEventRecord (a, 0);
    for (j = 0; j < 10; j++)
      cudaMemcpyAsync (buf[(i + j) % 8 + 8], buf[(i + j) % 8], bytes,
          cudaMemcpyDeviceToDevice, 0);
    cudaEventRecord (b, 0);
    cudaEventSynchronize (b);
    cudaEventElapsedTime (&ms[i], a, b);
    ms[i] /= 10;
  }
  for (i = 0; i < 50; i++)      /* insertion sort: 50 values */
    for (j = i; j > 0 && ms[j - 1] > ms[j]; j--) {
      t = ms[j];
      ms[j] = ms[j - 1];
      ms[j - 1] = t;
    }
  for (i = 0; i < 16; i++)
    cudaFree (buf[i]);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return ms[25];
}

/* A copy of @bytes between pinned host memory and the device (@to_host:
 * device to host), ms: median of 20 means of 5, timed with events. */
static G_GNUC_UNUSED gdouble
host_copy_ms (size_t bytes, gboolean to_host)
{
  void *host = NULL, *dev = NULL;
  cudaEvent_t a, b;
  float ms[20], t;
  gint i, j;

  if (cudaMallocHost (&host, bytes) != cudaSuccess ||
      cudaMalloc (&dev, bytes) != cudaSuccess) {
    cudaFreeHost (host);
    return -1;
  }
  memset (host, 0x5a, bytes);   /* touched: no first-use page faults */
  cudaEventCreate (&a);
  cudaEventCreate (&b);
  for (i = 0; i < 20; i++) {
    cudaEventRecord (a, 0);
    for (j = 0; j < 5; j++)
      cudaMemcpyAsync (to_host ? host : dev, to_host ? dev : host, bytes,
          to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, 0);
    cudaEventRecord (b, 0);
    cudaEventSynchronize (b);
    cudaEventElapsedTime (&ms[i], a, b);
    ms[i] /= 5;
  }
  for (i = 0; i < 20; i++)
    for (j = i; j > 0 && ms[j - 1] > ms[j]; j--) {
      t = ms[j];
      ms[j] = ms[j - 1];
      ms[j - 1] = t;
    }
  cudaFreeHost (host);
  cudaFree (dev);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return ms[10];
}

#endif
