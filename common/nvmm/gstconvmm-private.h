/* cudaoptics — LGPL-2.1-or-later
 *
 * memory:NVMM inside common/nvmm: the library's functions the mapping
 * (gstconvmm-map.c) calls, as the loader (gstconvmm.c) resolved them.
 */
#ifndef __GST_CO_NVMM_PRIVATE_H__
#define __GST_CO_NVMM_PRIVATE_H__

#include "gstconvmm.h"

G_BEGIN_DECLS

typedef struct
{
  CoNvBufSurfaceMapFunc map;
  CoNvBufSurfaceUnMapFunc unmap;
  CoNvBufSurfaceSyncFunc sync_cpu, sync_device;
  /* Jetson's libraries only: NULL elsewhere */
  CoNvBufSurfaceEglFunc map_egl, unmap_egl;
} CoNvmmFuncs;

/* NULL without the library */
const CoNvmmFuncs *co_nvmm_funcs (void);

G_END_DECLS
#endif
