/* cudaoptics — LGPL-2.1-or-later
 *
 * NVIDIA NPP for the benchmarks that set a kernel beside it: NPP's types,
 * declared here (the build machines have no NPP headers), one of its
 * libraries opened at run time (the GPU machine has them under
 * /usr/local/cuda/lib64), and a stream context for a stream.
 */
#ifndef BENCH_NPP_H
#define BENCH_NPP_H

#include <dlfcn.h>
#include <stdio.h>
#include <cuda_runtime_api.h>

typedef struct
{
  int width, height;
} NppiSize;
typedef struct
{
  int x, y;
} NppiPoint;
typedef struct
{
  int x, y, width, height;
} NppiRect;
typedef struct
{
  cudaStream_t hStream;
  int nCudaDeviceId, nMultiProcessorCount, nMaxThreadsPerMultiProcessor,
      nMaxThreadsPerBlock;
  size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor, nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
} NppStreamContext;

/* libNAME.so.13, .12, .11 or unversioned (after libnppc, its dependency),
 * from the loader's path or CUDA's; NULL when there is none.  @path gets
 * the name opened. */
static inline void *
bench_npp_open (const char *name, char *path, size_t size)
{
  static const char *const ver[] = { ".13", ".12", ".11", "" };
  static const char *const dir[] = { "", "/usr/local/cuda/lib64/" };
  void *h = NULL;
  int d, i;

  for (d = 0; d < 2 && !h; d++)
    for (i = 0; i < 4 && !h; i++) {
      snprintf (path, size, "%slibnppc.so%s", dir[d], ver[i]);
      dlopen (path, RTLD_NOW | RTLD_GLOBAL);
      snprintf (path, size, "%s%s.so%s", dir[d], name, ver[i]);
      h = dlopen (path, RTLD_NOW | RTLD_LOCAL);
    }
  return h;
}

/* NPP's description of @stream on the current device; 0 or a cudaError_t. */
static inline int
bench_npp_context (cudaStream_t stream, NppStreamContext * c)
{
  struct cudaDeviceProp prop;
  cudaError_t err;
  int dev;

  if ((err = cudaGetDevice (&dev)) != cudaSuccess ||
      (err = cudaGetDeviceProperties (&prop, dev)) != cudaSuccess ||
      (err = cudaStreamGetFlags (stream, &c->nStreamFlags)) != cudaSuccess)
    return (int) err;
  c->hStream = stream;
  c->nCudaDeviceId = dev;
  c->nMultiProcessorCount = prop.multiProcessorCount;
  c->nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  c->nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  c->nSharedMemPerBlock = prop.sharedMemPerBlock;
  c->nCudaDevAttrComputeCapabilityMajor = prop.major;
  c->nCudaDevAttrComputeCapabilityMinor = prop.minor;
  c->nReserved0 = 0;
  return 0;
}

#endif
