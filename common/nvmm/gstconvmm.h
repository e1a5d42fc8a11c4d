/* cudaoptics — LGPL-2.1-or-later
 *
 * memory:NVMM for the family: NVIDIA's libnvbufsurface loaded at run time
 * (no build-time dependency), the layout it speaks, and an NVMM buffer
 * read as planes.  Where the library is absent nothing of this is offered
 * and nothing changes.  The surface pool is gstconvmmpool.h's.
 */
#ifndef __GST_CO_NVMM_H__
#define __GST_CO_NVMM_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include "gstconvmm-abi.h"

G_BEGIN_DECLS

#define GST_CO_CAPS_FEATURE_MEMORY_NVMM "memory:NVMM"

/* The formats an NVMM surface of ours may hold (among an element's own) */
#define GST_CO_NVMM_FORMATS "NV12", "RGBA", "BGRA", "RGBx", "BGRx", "GRAY8"

typedef enum
{
  GST_CO_NVMM_ABI_NONE = 0,     /* no library */
  GST_CO_NVMM_ABI_V1 = 1,
  GST_CO_NVMM_ABI_V2 = 2,
  GST_CO_NVMM_ABI_V3 = 3,
} GstCoNvmmAbi;

/* Loads libnvbufsurface once: $CO_NVBUFSURFACE_LIB alone when set (the
 * tests'; "none" for no library), else libnvbufsurface.so.1.0.0,
 * libnvbufsurface.so, then the Jetson and DeepStream directories. */
gboolean     gst_co_nvmm_available (void);
GstCoNvmmAbi gst_co_nvmm_abi (void);
/* The library's sizeof(NvBufSurface): what an NVMM memory of ours holds */
gsize        gst_co_nvmm_surface_size (void);
/* The file loaded, for messages and tests (NULL without one) */
const gchar *gst_co_nvmm_library (void);

/* Whether @format can be an NVMM surface, and its NvBufSurfaceColorFormat */
gboolean     gst_co_nvmm_format (GstVideoFormat format, guint32 * color);
/* Whether structure @i of @caps is in memory:NVMM */
gboolean     gst_co_caps_is_nvmm (const GstCaps * caps, guint i);
/* The memory:NVMM copy of system structure @sys: its NVMM formats; NULL
 * when none (Bayer, 16-bit) or without the library */
GstStructure *gst_co_nvmm_structure (const GstStructure * sys);

/* How a surface's planes are reached (gst_co_nvmm_release undoes it) */
typedef enum
{
  GST_CO_NVMM_DIRECT = 0,       /* its dataPtr: CUDA or system memory */
  GST_CO_NVMM_UNMAPPED,         /* SURFACE_ARRAY / HANDLE: no pointer yet */
  GST_CO_NVMM_CPU_MAPPED,       /* NvBufSurfaceMap + SyncForCpu */
  GST_CO_NVMM_EGL,              /* NvBufSurfaceMapEglImage + CUDA's EGL
                                 * interop */
} GstCoNvmmAccess;

/* What one surface gives to read or write, checked against the caps */
typedef struct
{
  guint32 mem_type;
  guint32 gpu_id;
  guint32 color_format;
  guint32 layout;               /* NvBufSurfaceLayout */
  gboolean host_visible;        /* the CPU may read and write the planes */
  guint n_planes;
  guint8 *data[CO_NVBUF_MAX_PLANES];
  gint pitch[CO_NVBUF_MAX_PLANES];
  guint32 offset[CO_NVBUF_MAX_PLANES];
  /*< private: the mapping (gstconvmm-map.c) >*/
  GstCoNvmmAccess access;
  gpointer surf;
  gpointer resource;            /* CUgraphicsResource (EGL) */
  /* CUarray of each plane where CUDA sees the surface as arrays (block-
   * linear): no pointer, copied on the device (data[] NULL) */
  gpointer array[CO_NVBUF_MAX_PLANES];
} GstCoNvmmPlanes;

/* @surf (@size bytes: the mapped memory) described for @info; FALSE and
 * *@why (to free) naming what is wrong: batch > 1, a memory type not read
 * here, block-linear outside surface arrays, a colour format or size that
 * is not the caps'.  SURFACE_ARRAY and HANDLE surfaces come back
 * GST_CO_NVMM_UNMAPPED, without pointers: map them with
 * gst_co_nvmm_map_cpu or gst_co_nvmm_map_egl. */
gboolean     gst_co_nvmm_describe (gconstpointer surf, gsize size,
    const GstVideoInfo * info, GstCoNvmmPlanes * planes, gchar ** why);
/* A surface array's planes for the CPU: NvBufSurfaceMap (@write: read and
 * write) and SyncForCpu, pitch-linear only.  FALSE and *@why (to free)
 * when the library or the layout does not allow it. */
gboolean     gst_co_nvmm_map_cpu (GstCoNvmmPlanes * planes, gboolean write,
    gchar ** why);
/* A surface array's planes for CUDA, in the CUDA context current on the
 * calling thread: NvBufSurfaceMapEglImage, cuGraphicsEGLRegisterImage
 * and the mapped EGL frame (libcuda's functions resolved at run time):
 * device pointers for a pitch-linear frame, CUDA arrays (array[]) for a
 * block-linear one.  FALSE and *@why (to free) without EGL (no display,
 * not a Jetson's library) or on a CUDA error. */
gboolean     gst_co_nvmm_map_egl (GstCoNvmmPlanes * planes, gchar ** why);
/* Undoes a mapping: after a CPU write (@wrote) SyncForDevice first.  An
 * EGL mapping must have no device work pending on it. */
void         gst_co_nvmm_release (GstCoNvmmPlanes * planes, gboolean wrote);
/* Whether the CPU reads and writes surfaces of @mem_type in place: system,
 * pinned and unified memory; CUDA device memory only with the tests'
 * library, whose "device" surfaces are host memory (no GPU there) */
gboolean     gst_co_nvmm_host_visible (guint32 mem_type);
/* Whether a CUDA kernel reads and writes surfaces of @mem_type in place:
 * device and unified memory (not the tests' host "device" surfaces) */
gboolean     gst_co_nvmm_device_visible (guint32 mem_type);
/* A memory type's name, e.g. "NVBUF_MEM_SURFACE_ARRAY" */
const gchar *gst_co_nvmm_mem_type_name (guint32 mem_type);

/* NvBufSurfaceCreate / NvBufSurfaceDestroy of the library loaded: a
 * single pitch-linear surface of @info, numFilled 1 */
gpointer     gst_co_nvmm_surface_new (const GstVideoInfo * info,
    guint32 mem_type, guint32 gpu_id, gchar ** why);
void         gst_co_nvmm_surface_free (gpointer surf);
/* A buffer of one memory mapping to @surf, as NVIDIA's elements make them;
 * the buffer owns the surface */
GstBuffer   *gst_co_nvmm_buffer_wrap (gpointer surf);

/* The nvmm-memory-type property's values (NvBufSurfaceMemType) */
#define GST_TYPE_CO_NVMM_MEM_TYPE (gst_co_nvmm_mem_type_get_type ())
GType        gst_co_nvmm_mem_type_get_type (void);

G_END_DECLS
#endif
