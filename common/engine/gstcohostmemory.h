/* cudaoptics — LGPL-2.1-or-later
 *
 * Host memory the GPU can reach fast: pinned (page-locked) on discrete GPUs,
 * so uploads and downloads run asynchronously at full PCIe speed; pinned and
 * mapped on integrated GPUs (Jetson), where the device reads it in place.
 * GstCoBaseFilter offers a video pool of this memory upstream for
 * system-memory caps and uses one for its own system-memory output.
 *
 * Another host-visible memory type (NVMM / NvBufSurface, say) would be a
 * second allocator here answering gst_co_host_memory_device_ptr(); elements
 * do not see the difference.
 */
#ifndef __GST_CO_HOST_MEMORY_H__
#define __GST_CO_HOST_MEMORY_H__

#include <gst/video/video.h>
#include "gstcodevice.h"

G_BEGIN_DECLS

#define GST_TYPE_CO_HOST_ALLOCATOR (gst_co_host_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCoHostAllocator, gst_co_host_allocator, GST,
    CO_HOST_ALLOCATOR, GstAllocator)

GstAllocator  * gst_co_host_allocator_new  (GstCoDevice * device);
gboolean        gst_is_co_host_memory      (GstMemory * mem);
/* The device address of host address @host inside @mem, or NULL where the
 * device cannot read it in place (discrete GPUs: copy instead). */
gpointer        gst_co_host_memory_device_ptr (GstMemory * mem, gpointer host);

G_END_DECLS
#endif
