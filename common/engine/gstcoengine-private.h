/* cudaoptics — LGPL-2.1-or-later
 *
 * What the engine's files share and nothing else sees: the inputs held for
 * the device (gstcoengine-retire.c, 1.24+) and the frame runner's waits
 * (gstcoengine-run.c), made and freed with the device (gstcoengine.c).
 */
#ifndef __GST_CO_ENGINE_PRIVATE_H__
#define __GST_CO_ENGINE_PRIVATE_H__

#include "gstcocompat.h"
#include "gstcoengine.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_co_engine_debug);

/* memory:NVMM sides (gstcoengine-nvmm.c): the surface mapped and checked,
 * its planes in s->nvmm_host; @on_device: the CUDA backend, which reads
 * device and unified surfaces in place (s->nvmm_device).  FALSE after an
 * element error. */
gboolean  co_engine_map_nvmm (GstCoEngine * e, GstCoSide * s,
    gboolean on_device);
void      co_engine_unmap_nvmm (GstCoEngine * e, GstCoSide * s);

#ifdef HAVE_CUDA
/* gstcoengine-frame.c's staging, for the NVMM sides too */
gboolean  co_engine_ensure_stage (GstCoEngine * e, GstCoStage * stage,
    const CoFrame * host);
gboolean  co_engine_copy_planes (GstCoEngine * e, const CoFrame * dst,
    const CoFrame * src, int kind);
/* Device frame @f from (or, @to_arrays, into) the CUDA arrays of a
 * block-linear surface's planes, on the stream (no host copy) */
gboolean  co_engine_copy_arrays (GstCoEngine * e, const CoFrame * f,
    gpointer const *arrays, gboolean to_arrays);
#endif

/* with the device current: at open, at close */
void      co_engine_start_waits (GstCoEngine * e);
void      co_engine_free_waits (GstCoEngine * e);

#ifdef CO_CUDA_STREAMS
typedef struct _CoRetire CoRetire;
CoRetire *co_retire_new (GstCoEngine * e);
gboolean  co_retire_push (CoRetire * r, GstBuffer * buf, gpointer stream);
void      co_retire_free (CoRetire * r);
#endif

G_END_DECLS
#endif
