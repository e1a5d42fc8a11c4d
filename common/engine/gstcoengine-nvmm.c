/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoEngine, memory:NVMM frames for every base: a side whose pad carries
 * memory:NVMM is one NvBufSurface (gstconvmm.h), read and written through
 * its planes with their pitch and offsets, never through a GstVideoFrame.
 *
 * Which memory the backend reaches (docs/architecture.md, "NVMM"):
 * - CPU backend: system, pinned and unified surfaces in place.  CUDA
 *   device surfaces are refused with a message: the CPU cannot read them
 *   (only the tests' library marks its "device" surfaces as host memory,
 *   there being no GPU).
 * - CUDA backend: device and unified surfaces in place (their pointers go
 *   to the kernels; not run on a GPU yet: docs/limits.md), system and
 *   pinned ones copied through the side's staging frame.
 * Every CUDA surface must be on the element's GPU.
 */
#include "gstcocompat.h"
#include "gstcoengine-private.h"
#include "gstconvmm.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_co_engine_debug

/* The GPU frames are processed on, as the surface's gpuId counts it: the
 * device opened, else the device-id property, else the first */
static gint
element_gpu (GstCoEngine * e)
{
  if (e->device)
    return e->device->device_id;
  return e->device_id >= 0 ? e->device_id : 0;
}

static gboolean
refuse (GstCoEngine * e, GstCoSide * s, gchar * why)
{
  /* an output surface is ours: its memory is the property's choice */
  const gboolean out = !(s->flags & GST_MAP_READ);

  GST_ELEMENT_ERROR (e->element, STREAM, FORMAT, ("Cannot %s the "
          "memory:NVMM %s frame: %s%s", out ? "write" : "read", s->what, why,
          out ? " (this element's output surfaces: set its nvmm-memory-type, "
          "e.g. cuda-unified, cuda-pinned or system)" : ""), ("library %s",
          GST_STR_NULL (gst_co_nvmm_library ())));
  g_free (why);
  return FALSE;
}

gboolean
co_engine_map_nvmm (GstCoEngine * e, GstCoSide * s, gboolean on_device)
{
  const GstVideoInfo *info = &s->vinfo->info;
  GstCoNvmmPlanes p;
  gchar *why = NULL;
  guint i;

  /* the memory holds the struct: writing the planes writes no byte of it */
  if (gst_buffer_n_memory (s->buf) != 1 ||
      !gst_buffer_map (s->buf, &s->nvmm_map, GST_MAP_READ))
    return refuse (e, s, g_strdup_printf ("a buffer of %u memories, not "
            "one NvBufSurface", gst_buffer_n_memory (s->buf)));
  if (!gst_co_nvmm_describe (s->nvmm_map.data, s->nvmm_map.size, info, &p,
          &why))
    goto failed;
  if (p.mem_type != CO_NVBUF_MEM_SYSTEM && (gint) p.gpu_id != element_gpu (e)) {
    why = g_strdup_printf ("its %s surface is on GPU %u and this element "
        "works on GPU %d: set the element's device-id=%u, or have the "
        "producer make its surfaces on GPU %d (gpu-id)",
        gst_co_nvmm_mem_type_name (p.mem_type), p.gpu_id, element_gpu (e),
        p.gpu_id, element_gpu (e));
    goto failed;
  }
  if (!p.host_visible && !(on_device && gst_co_nvmm_device_visible
          (p.mem_type))) {
    why = g_strdup_printf ("%s is device memory, which the CPU backend "
        "cannot read: use the CUDA backend, or have the producer give "
        "CUDA_PINNED, CUDA_UNIFIED or system memory (nvvideoconvert "
        "nvbuf-memory-type)", gst_co_nvmm_mem_type_name (p.mem_type));
    goto failed;
  }
  memset (&s->nvmm_host, 0, sizeof (s->nvmm_host));
  s->nvmm_host.format = s->vinfo->format;
  s->nvmm_host.width = GST_VIDEO_INFO_WIDTH (info);
  s->nvmm_host.height = GST_VIDEO_INFO_HEIGHT (info);
  for (i = 0; i < p.n_planes && i < CO_MAX_PLANES; i++) {
    s->nvmm_host.data[i] = p.data[i];
    s->nvmm_host.pitch[i] = p.pitch[i];
  }
  s->nvmm_device = on_device && gst_co_nvmm_device_visible (p.mem_type);
  s->nvmm = TRUE;
  GST_LOG_OBJECT (e->element, "%s: %s surface, pitch %d, offsets %u %u",
      s->what, gst_co_nvmm_mem_type_name (p.mem_type), p.pitch[0],
      p.offset[0], p.offset[1]);
  return TRUE;

failed:
  gst_buffer_unmap (s->buf, &s->nvmm_map);
  return refuse (e, s, why);
}

void
co_engine_unmap_nvmm (GstCoEngine * e, GstCoSide * s)
{
  if (!s->nvmm)
    return;
  gst_buffer_unmap (s->buf, &s->nvmm_map);
  s->nvmm = FALSE;
}
