/* cudaoptics — LGPL-2.1-or-later
 *
 * A stand-in for NVIDIA's libnvbufsurface, built only for the tests and
 * never installed: the same C ABI (V2 layout; V3 when built with
 * CO_TEST_NVBUF_V3), from the family's own declarations
 * (common/nvmm/gstconvmm-abi.h), so that memory:NVMM is exercised where no
 * Jetson and no DeepStream are.
 *
 * Surfaces are host memory on a machine without a GPU, whatever their
 * memory type (co_test_nvbufsurface_device_is_host says so to the loader),
 * laid out as awkwardly as real ones may be: rows padded to 256 bytes and
 * then 64 more, NV12's chroma plane at an offset that is not the luma
 * plane's end.  NVBUF_MEM_DEFAULT is CUDA_DEVICE, as on dGPU.  A
 * SURFACE_ARRAY surface has no data pointer and NvBufSurfaceMapEglImage
 * fails, as it does without a display; with CUDA, CO_TEST_NVBUF_EGL set
 * and NVIDIA's EGL driver present, it gives a real EGLImage of a 4-byte
 * surface (nvbufsurface-egl.c).
 *
 * Built with CUDA (CO_TEST_NVBUF_CUDA) and run where a device answers,
 * the CUDA types are what NVIDIA's are on dGPU: CUDA_DEVICE in device
 * memory, CUDA_UNIFIED managed, CUDA_PINNED page-locked host memory, all
 * in the device's primary context (where DeepStream makes them), and
 * co_test_nvbufsurface_device_is_host says 0.  co_test_nvbufsurface_copy
 * copies bytes whatever side they are on, for the tests' own reads and
 * writes of planes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gstconvmm-abi.h"
#ifdef CO_TEST_NVBUF_CUDA
#include <cuda_runtime.h>
#include "nvbufsurface-egl.h"
#endif

#define EXPORT __attribute__ ((visibility ("default")))

#ifdef CO_TEST_NVBUF_V3
typedef CoNvBufSurfaceV3 Surface;
typedef CoNvBufSurfaceParamsV3 Params;
#else
typedef CoNvBufSurfaceV2 Surface;
typedef CoNvBufSurfaceParamsV2 Params;
#endif

/* NvBufSurfaceAllocateParams: its CreateParams first (V2 and V3) */
typedef struct
{
  CoNvBufCreateParams params;
} AllocateHead;

#define ROUND_UP(x, n) (((x) + (n) - 1) / (n) * (n))

/* Bytes a pixel of each plane, planes, and the chroma's subsampling */
static int
layout (uint32_t color, uint32_t * bpp, uint32_t * n_planes)
{
  switch (color) {
    case CO_NVBUF_COLOR_GRAY8:
      bpp[0] = 1, *n_planes = 1;
      return 0;
    case CO_NVBUF_COLOR_NV12:
    case CO_NVBUF_COLOR_NV12_ER:
    case CO_NVBUF_COLOR_NV12_709:
    case CO_NVBUF_COLOR_NV12_709_ER:
    case CO_NVBUF_COLOR_NV12_2020:
      bpp[0] = 1, bpp[1] = 2, *n_planes = 2;
      return 0;
    case CO_NVBUF_COLOR_RGBA:
    case CO_NVBUF_COLOR_BGRA:
    case CO_NVBUF_COLOR_RGBx:
    case CO_NVBUF_COLOR_BGRx:
      bpp[0] = 4, *n_planes = 1;
      return 0;
    default:
      return -1;
  }
}

/* Whether a CUDA device answers (once): then the CUDA types are real */
static int
have_device (void)
{
#ifdef CO_TEST_NVBUF_CUDA
  static int known = -1;
  if (known < 0) {
    int n = 0;
    known = cudaGetDeviceCount (&n) == cudaSuccess && n > 0;
    cudaGetLastError ();
  }
  return known;
#else
  return 0;
#endif
}

/* @total bytes of @mem_type's memory, 0xa5 in every byte (not zero: a
 * reader that skips the offsets sees garbage, not black); -1 on failure */
static int
alloc_bytes (uint32_t mem_type, size_t total, void **data)
{
#ifdef CO_TEST_NVBUF_CUDA
  if (have_device () && mem_type != CO_NVBUF_MEM_SYSTEM &&
      mem_type != CO_NVBUF_MEM_SURFACE_ARRAY) {
    cudaError_t err = mem_type == CO_NVBUF_MEM_CUDA_DEVICE ?
        cudaMalloc (data, total) : mem_type == CO_NVBUF_MEM_CUDA_UNIFIED ?
        cudaMallocManaged (data, total, cudaMemAttachGlobal) :
        cudaHostAlloc (data, total, cudaHostAllocDefault);
    if (err == cudaSuccess)
      err = cudaMemset (*data, 0xa5, total);
    if (err == cudaSuccess)
      err = cudaDeviceSynchronize ();
    return err == cudaSuccess ? 0 : -1;
  }
#endif
  if (posix_memalign (data, 256, total) != 0)
    return -1;
  memset (*data, 0xa5, total);
  return 0;
}

static void
free_bytes (uint32_t mem_type, void *data)
{
#ifdef CO_TEST_NVBUF_CUDA
  if (have_device () && mem_type != CO_NVBUF_MEM_SYSTEM &&
      mem_type != CO_NVBUF_MEM_SURFACE_ARRAY) {
    if (mem_type == CO_NVBUF_MEM_CUDA_PINNED)
      cudaFreeHost (data);
    else
      cudaFree (data);
    return;
  }
#endif
  free (data);
}

/* The planes of one surface, laid out as above */
static int
alloc_planes (CoNvBufSurfaceParamsHead * s, uint32_t mem_type)
{
  CoNvBufPlaneParams *pp = &s->planeParams;
  uint32_t i, total = 0;
  void *data = NULL;

  for (i = 0; i < pp->num_planes; i++) {
    pp->width[i] = i == 0 ? s->width : (s->width + 1) / 2;
    pp->height[i] = i == 0 ? s->height : (s->height + 1) / 2;
    pp->pitch[i] = ROUND_UP (pp->width[i] * pp->bytesPerPix[i], 256) + 64;
    /* a gap before each further plane: its offset must be read */
    pp->offset[i] = i == 0 ? 0 : ROUND_UP (total, 1024) + 512;
    pp->psize[i] = pp->pitch[i] * pp->height[i];
    total = pp->offset[i] + pp->psize[i];
  }
  if (alloc_bytes (mem_type, total, &data) != 0)
    return -1;
  s->pitch = pp->pitch[0];
  s->dataSize = total;
  s->dataPtr = data;
  /* SURFACE_ARRAY's pixels are behind a dmabuf, not a pointer */
  if (mem_type == CO_NVBUF_MEM_SURFACE_ARRAY) {
    s->bufferDesc = (uint64_t) (uintptr_t) data;
    s->dataPtr = NULL;
  }
  return 0;
}

EXPORT int
NvBufSurfaceDestroy (void *surf)
{
  Surface *h = surf;
  Params *list;
  uint32_t i;

  if (!h)
    return -1;
  list = (Params *) h->head.surfaceList;
  for (i = 0; i < h->head.batchSize; i++)
    free_bytes (h->head.memType, list[i].head.dataPtr ? list[i].head.dataPtr :
        (void *) (uintptr_t) list[i].head.bufferDesc);
  free (list);
  free (h);
  return 0;
}

EXPORT int
NvBufSurfaceCreate (void **out, uint32_t batch, void *params)
{
  const CoNvBufCreateParams *p = params;
  uint32_t bpp[CO_NVBUF_MAX_PLANES] = { 0 }, n_planes = 0, mem_type, i, k;
  Surface *h;
  Params *list;

  if (!out || !p || batch < 1 || p->width < 1 || p->height < 1 ||
      p->layout != CO_NVBUF_LAYOUT_PITCH ||
      layout (p->colorFormat, bpp, &n_planes) != 0)
    return -1;
  mem_type = p->memType == CO_NVBUF_MEM_DEFAULT ? CO_NVBUF_MEM_CUDA_DEVICE :
      p->memType;
  if (mem_type > CO_NVBUF_MEM_SYSTEM || mem_type == CO_NVBUF_MEM_HANDLE)
    return -1;
  h = calloc (1, sizeof (*h));
  list = calloc (batch, sizeof (*list));
  if (!h || !list) {
    free (h);
    free (list);
    return -1;
  }
  h->head.gpuId = p->gpuId;
  h->head.batchSize = batch;
  h->head.memType = mem_type;
  h->head.isContiguous = false;
  h->head.surfaceList = &list[0].head;
  for (i = 0; i < batch; i++) {
    CoNvBufSurfaceParamsHead *s = &list[i].head;
    s->width = p->width;
    s->height = p->height;
    s->colorFormat = p->colorFormat;
    s->layout = CO_NVBUF_LAYOUT_PITCH;
    s->planeParams.num_planes = n_planes;
    for (k = 0; k < n_planes; k++)
      s->planeParams.bytesPerPix[k] = bpp[k];
    if (alloc_planes (s, mem_type) != 0) {
      h->head.batchSize = i;
      NvBufSurfaceDestroy (h);
      return -1;
    }
  }
  *out = h;
  return 0;
}

EXPORT int
NvBufSurfaceAllocate (void **out, uint32_t batch, void *params)
{
  return params ? NvBufSurfaceCreate (out, batch,
      &((AllocateHead *) params)->params) : -1;
}

/* The CPU's view of a plane: the host pointer itself */
EXPORT int
NvBufSurfaceMap (void *surf, int index, int plane, int flags)
{
  Surface *h = surf;
  Params *list;
  uint32_t i, k;

  if (!h)
    return -1;
  list = (Params *) h->head.surfaceList;
  for (i = 0; i < h->head.batchSize; i++) {
    CoNvBufSurfaceParamsHead *s = &list[i].head;
    if (index != -1 && (uint32_t) index != i)
      continue;
    for (k = 0; k < s->planeParams.num_planes; k++)
      if (plane == -1 || (uint32_t) plane == k)
        s->mappedAddr.addr[k] = (uint8_t *) (s->dataPtr ? s->dataPtr :
            (void *) (uintptr_t) s->bufferDesc) + s->planeParams.offset[k];
  }
  return 0;
}

EXPORT int
NvBufSurfaceUnMap (void *surf, int index, int plane)
{
  return surf ? 0 : -1;
}

EXPORT int
NvBufSurfaceSyncForCpu (void *surf, int index, int plane)
{
  return surf ? 0 : -1;
}

EXPORT int
NvBufSurfaceSyncForDevice (void *surf, int index, int plane)
{
  return surf ? 0 : -1;
}

#ifdef CO_TEST_NVBUF_CUDA
/* The surface array @index of @surf with an image to map (4-byte pixels,
 * pitch-linear host memory), or NULL */
static Params *
egl_surface (void *surf, int index)
{
  Surface *h = surf;
  Params *p;

  if (!h || index < 0 || (uint32_t) index >= h->head.batchSize ||
      h->head.memType != CO_NVBUF_MEM_SURFACE_ARRAY)
    return NULL;
  p = (Params *) h->head.surfaceList + index;
  switch (p->head.colorFormat) {
    case CO_NVBUF_COLOR_RGBA:
    case CO_NVBUF_COLOR_BGRA:
    case CO_NVBUF_COLOR_RGBx:
    case CO_NVBUF_COLOR_BGRx:
      return p;
    default:
      return NULL;
  }
}
#endif

/* Without a display, no EGL: as NVIDIA's library answers there (a real
 * image where nvbufsurface-egl.c can make one); the GL texture behind the
 * image is kept in the params' first reserved pointer */
EXPORT int
NvBufSurfaceMapEglImage (void *surf, int index)
{
#ifdef CO_TEST_NVBUF_CUDA
  Params *p = egl_surface (surf, index);
  unsigned texture = 0;

  if (p && !p->head.mappedAddr.eglImage &&
      co_test_egl_map ((uint8_t *) (uintptr_t) p->head.bufferDesc,
          p->head.planeParams.pitch[0], p->head.width, p->head.height,
          &p->head.mappedAddr.eglImage, &texture) == 0) {
    p->_reserved[0] = (void *) (uintptr_t) texture;
    return 0;
  }
#endif
  return -1;
}

EXPORT int
NvBufSurfaceUnMapEglImage (void *surf, int index)
{
#ifdef CO_TEST_NVBUF_CUDA
  Params *p = egl_surface (surf, index);
  int ok;

  if (p && p->head.mappedAddr.eglImage) {
    ok = co_test_egl_unmap ((uint8_t *) (uintptr_t) p->head.bufferDesc,
        p->head.planeParams.pitch[0], p->head.width, p->head.height,
        p->head.mappedAddr.eglImage, (unsigned) (uintptr_t) p->_reserved[0]);
    p->head.mappedAddr.eglImage = NULL;
    return ok;
  }
#endif
  return -1;
}

/* Not NVIDIA's: whether NvBufSurfaceMapEglImage gives real images here */
EXPORT int
co_test_nvbufsurface_egl (void)
{
#ifdef CO_TEST_NVBUF_CUDA
  return co_test_egl_available ();
#else
  return 0;
#endif
}

#ifdef CO_TEST_NVBUF_V3
/* Present from V3 on: the loader tells the layout by it */
EXPORT int
NvBufSurfaceGetDeviceInfo (uint32_t gpu_id, void *info)
{
  return -1;
}
#endif

/* Not NVIDIA's: tells the loader whether CUDA_DEVICE surfaces are host
 * memory here (no GPU, or a build without CUDA) */
EXPORT int
co_test_nvbufsurface_device_is_host (void)
{
  return !have_device ();
}

/* Not NVIDIA's: @n bytes from @src to @dst, each on whichever side its
 * surface is (the tests' writes of inputs and reads of outputs); 0 on
 * success */
EXPORT int
co_test_nvbufsurface_copy (void *dst, const void *src, size_t n)
{
#ifdef CO_TEST_NVBUF_CUDA
  if (have_device ())
    return cudaMemcpy (dst, src, n, cudaMemcpyDefault) == cudaSuccess ? 0 : -1;
#endif
  memcpy (dst, src, n);
  return 0;
}
