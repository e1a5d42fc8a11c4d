/* cudaoptics — LGPL-2.1-or-later
 *
 * Our own declarations of the part of NVIDIA's NvBufSurface C ABI the
 * family uses (memory:NVMM buffers map to an NvBufSurface, not to pixels).
 * Written from NVIDIA's public API references, not copied from a header:
 * Jetson Linux API Reference (structNvBufSurface, structNvBufSurfaceParams,
 * structNvBufSurfacePlaneParams, structNvBufSurfaceMappedAddr, r35.x and
 * r39.2) and DeepStream SDK API Reference 6.0.1, 7.1, 8.0 and 9.1.  No
 * NVIDIA SDK is needed to build: the library is loaded at run time
 * (gstconvmm.c).
 *
 * Three layouts exist on 64-bit Linux (docs/architecture.md, "NVMM"):
 *   V1  DeepStream 4.0 to 6.0, L4T r32         NvBufSurface 64 B, params 384
 *   V2  DeepStream 6.1 to 7.1, JetPack 5 (6?)   NvBufSurface 64 B, params 384
 *   V3  DeepStream 8.0 and 9.1, Jetson r39      NvBufSurface 72 B, params 416
 * Every field the family reads lies at the same offset in all three: the
 * *Head structs below hold exactly those.  The full V2 and V3 structs are
 * here for the test library (tests/nvmm/) and the ABI test, which pins
 * sizes and offsets; nothing else may index surfaceList beyond 0 or take
 * sizeof of a full struct as the library's.
 */
#ifndef __GST_CO_NVMM_ABI_H__
#define __GST_CO_NVMM_ABI_H__

#include <stdbool.h>
#include <stdint.h>

/* NVBUF_MAX_PLANES and STRUCTURE_PADDING of the references */
#define CO_NVBUF_MAX_PLANES 4
#define CO_NVBUF_PADDING 4

/* NvBufSurfaceMemType */
enum
{
  CO_NVBUF_MEM_DEFAULT = 0,     /* CUDA_DEVICE on dGPU, SURFACE_ARRAY on Jetson */
  CO_NVBUF_MEM_CUDA_PINNED = 1,
  CO_NVBUF_MEM_CUDA_DEVICE = 2,
  CO_NVBUF_MEM_CUDA_UNIFIED = 3,
  CO_NVBUF_MEM_SURFACE_ARRAY = 4,       /* Jetson: reached through EGL */
  CO_NVBUF_MEM_HANDLE = 5,      /* Jetson */
  CO_NVBUF_MEM_SYSTEM = 6,      /* malloc */
  CO_NVBUF_MEM_CUDA_ARRAY = 7,  /* DeepStream 9.1 */
};

/* NvBufSurfaceLayout */
enum
{
  CO_NVBUF_LAYOUT_PITCH = 0,
  CO_NVBUF_LAYOUT_BLOCK_LINEAR = 1,
};

/* NvBufSurfaceMemMapFlags */
enum
{
  CO_NVBUF_MAP_READ = 0,
  CO_NVBUF_MAP_WRITE = 1,
  CO_NVBUF_MAP_READ_WRITE = 2,
};

/* NvBufSurfaceColorFormat: a sequential enum that only grows at its end;
 * the values the family takes, the same in every reference */
enum
{
  CO_NVBUF_COLOR_INVALID = 0,
  CO_NVBUF_COLOR_GRAY8 = 1,
  CO_NVBUF_COLOR_NV12 = 6,
  CO_NVBUF_COLOR_NV12_ER = 7,
  CO_NVBUF_COLOR_RGBA = 19,
  CO_NVBUF_COLOR_BGRA = 20,
  CO_NVBUF_COLOR_RGBx = 23,
  CO_NVBUF_COLOR_BGRx = 24,
  CO_NVBUF_COLOR_NV12_709 = 33,
  CO_NVBUF_COLOR_NV12_709_ER = 34,
  CO_NVBUF_COLOR_NV12_2020 = 36,
};

/* NvBufSurfacePlaneParams: the same in V1, V2 and V3 (232 B) */
typedef struct
{
  uint32_t num_planes;
  uint32_t width[CO_NVBUF_MAX_PLANES];
  uint32_t height[CO_NVBUF_MAX_PLANES];
  uint32_t pitch[CO_NVBUF_MAX_PLANES];
  uint32_t offset[CO_NVBUF_MAX_PLANES];
  uint32_t psize[CO_NVBUF_MAX_PLANES];
  uint32_t bytesPerPix[CO_NVBUF_MAX_PLANES];
  void *_reserved[CO_NVBUF_PADDING * CO_NVBUF_MAX_PLANES];
} CoNvBufPlaneParams;

/* NvBufSurfaceMappedAddr up to eglImage (V3 inserts fields after it) */
typedef struct
{
  void *addr[CO_NVBUF_MAX_PLANES];
  void *eglImage;
} CoNvBufMappedAddrHead;

/* NvBufSurfaceParams up to mappedAddr.eglImage: 320 B, every version */
typedef struct
{
  uint32_t width;
  uint32_t height;
  uint32_t pitch;
  uint32_t colorFormat;         /* NvBufSurfaceColorFormat */
  uint32_t layout;              /* NvBufSurfaceLayout */
  uint64_t bufferDesc;          /* dmabuf fd (SURFACE_ARRAY, HANDLE) */
  uint32_t dataSize;
  void *dataPtr;                /* not valid for SURFACE_ARRAY, HANDLE */
  CoNvBufPlaneParams planeParams;
  CoNvBufMappedAddrHead mappedAddr;
} CoNvBufSurfaceParamsHead;

/* NvBufSurface up to surfaceList: 32 B, every version */
typedef struct
{
  uint32_t gpuId;
  uint32_t batchSize;
  uint32_t numFilled;
  bool isContiguous;
  uint32_t memType;             /* NvBufSurfaceMemType */
  CoNvBufSurfaceParamsHead *surfaceList;
} CoNvBufSurfaceHead;

/* NvBufSurfaceCreateParams, V1/V2 (32 B); V3 appends 4 pointers (64 B):
 * callers pass a zeroed CoNvBufCreateParamsV3, which a V1/V2 library reads
 * the first 32 bytes of */
typedef struct
{
  uint32_t gpuId;
  uint32_t width;
  uint32_t height;
  uint32_t size;
  bool isContiguous;
  uint32_t colorFormat;
  uint32_t layout;
  uint32_t memType;
} CoNvBufCreateParams;

typedef struct
{
  CoNvBufCreateParams params;
  void *_reserved[CO_NVBUF_PADDING];
} CoNvBufCreateParamsV3;

/* The full structs of V2 and V3 (the test library's, the ABI test's) */
typedef struct
{
  CoNvBufSurfaceParamsHead head;
  void *mappedAddr_reserved[CO_NVBUF_PADDING];
  void *paramex;                /* NvBufSurfaceParamsEx * */
  void *_reserved[CO_NVBUF_PADDING - 1];
} CoNvBufSurfaceParamsV2;

typedef struct
{
  CoNvBufSurfaceParamsHead head;
  void *nvmmPtr;
  void *cudaPtr;
  void *mappedAddr_reserved[CO_NVBUF_PADDING];
  void *paramex;
  void *cudaBuffer;             /* NvBufSurfaceCudaBuffer * */
  void *_reserved[CO_NVBUF_PADDING];
} CoNvBufSurfaceParamsV3;

typedef struct
{
  CoNvBufSurfaceHead head;
  void *_reserved[CO_NVBUF_PADDING];
} CoNvBufSurfaceV2;

typedef struct
{
  CoNvBufSurfaceHead head;
  bool isImportedBuf;
  void *_reserved[CO_NVBUF_PADDING];
} CoNvBufSurfaceV3;

/* The functions resolved (all return 0 on success, -1 on failure; an index
 * or plane of -1 means all) */
typedef int (*CoNvBufSurfaceCreateFunc) (void **surf, uint32_t batch_size,
    void *params);
typedef int (*CoNvBufSurfaceDestroyFunc) (void *surf);
typedef int (*CoNvBufSurfaceMapFunc) (void *surf, int index, int plane,
    int flags);
typedef int (*CoNvBufSurfaceUnMapFunc) (void *surf, int index, int plane);
typedef int (*CoNvBufSurfaceSyncFunc) (void *surf, int index, int plane);
typedef int (*CoNvBufSurfaceEglFunc) (void *surf, int index);

/* CUDA's EGL interop (the driver API of libcuda, resolved at run time,
 * gstconvmm-map.c): our declarations of the part the Jetson path uses,
 * from the CUDA Driver API reference ("EGL Interoperability"; CUeglFrame
 * unchanged from CUDA 9 to 13).  No EGL or CUDA header is needed. */
#define CO_CU_EGL_MAX_PLANES 3

/* CUeglFrameType */
enum
{
  CO_CU_EGL_FRAME_TYPE_ARRAY = 0,
  CO_CU_EGL_FRAME_TYPE_PITCH = 1,
};

/* CUeglFrame */
typedef struct
{
  union
  {
    void *pArray[CO_CU_EGL_MAX_PLANES];         /* CUarray */
    void *pPitch[CO_CU_EGL_MAX_PLANES];
  } frame;
  unsigned int width;
  unsigned int height;
  unsigned int depth;
  unsigned int pitch;
  unsigned int planeCount;
  unsigned int numChannels;
  int frameType;                /* CUeglFrameType */
  int eglColorFormat;           /* CUeglColorFormat */
  int cuFormat;                 /* CUarray_format */
} CoCUeglFrame;

/* CUresult (0: CUDA_SUCCESS) cuGraphicsEGLRegisterImage (CUgraphicsResource *,
 * EGLImageKHR, unsigned int flags), cuGraphicsResourceGetMappedEglFrame
 * (CUeglFrame *, CUgraphicsResource, unsigned int index, unsigned int
 * mipLevel), cuGraphicsUnregisterResource (CUgraphicsResource) */
typedef int (*CoCuGraphicsEGLRegisterImageFunc) (void **resource,
    void *image, unsigned int flags);
typedef int (*CoCuGraphicsResourceGetMappedEglFrameFunc) (CoCUeglFrame * f,
    void *resource, unsigned int index, unsigned int mip_level);
typedef int (*CoCuGraphicsUnregisterResourceFunc) (void *resource);

#endif
