/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoNvmmPool: output frames in memory:NVMM.  Each buffer holds one
 * memory that maps to an NvBufSurface (one pitch-linear surface of the
 * pool's caps, made with the loaded library's NvBufSurfaceCreate), sized
 * as that library's struct, so NVIDIA's elements take it as their own.
 */
#ifndef __GST_CO_NVMM_POOL_H__
#define __GST_CO_NVMM_POOL_H__

#include "gstconvmm.h"

G_BEGIN_DECLS

#define GST_TYPE_CO_NVMM_POOL (gst_co_nvmm_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstCoNvmmPool, gst_co_nvmm_pool, GST, CO_NVMM_POOL,
    GstBufferPool)

/* Surfaces of @mem_type (an NvBufSurfaceMemType) on GPU @gpu_id */
GstBufferPool *gst_co_nvmm_pool_new (guint32 mem_type, guint32 gpu_id);

G_END_DECLS
#endif
