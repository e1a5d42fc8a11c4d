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
 *   to the kernels), system and pinned ones copied through the side's
 *   staging frame.
 * - Surface arrays (the Jetson's default): on the CPU through
 *   NvBufSurfaceMap, pitch-linear only; on CUDA through EGL interop, in
 *   place when pitch-linear, copied on the device through the staging
 *   frame when CUDA sees block-linear arrays (gstconvmm-map.c).
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

/* A surface array's planes for the backend: the CPU through
 * NvBufSurfaceMap, CUDA through EGL.  FALSE with *@why (to free). */
static gboolean
map_surface_array (GstCoEngine * e, GstCoSide * s, gboolean on_device,
    gchar ** why)
{
  GstCoNvmmPlanes *p = &s->nvmm_planes;
  gchar *how = NULL;

  if (on_device ? gst_co_nvmm_map_egl (p, &how) : gst_co_nvmm_map_cpu (p,
          (s->flags & GST_MAP_WRITE) != 0, &how))
    return TRUE;
  /* an input's producer chooses its memory; an output's is the property
   * (refuse says so) */
  *why = g_strdup_printf ("its %s surface %s: %s%s",
      gst_co_nvmm_mem_type_name (p->mem_type), on_device ? "through EGL" :
      "on the CPU", how, (s->flags & GST_MAP_READ) ? (on_device ?
          "; have the producer give CUDA memory (nvvidconv or "
          "nvvideoconvert nvbuf-memory-type=nvbuf-mem-cuda-device or "
          "-cuda-unified), or system memory (video/x-raw without "
          "memory:NVMM), or set backend=cpu" :
          "; have the producer give system memory (video/x-raw without "
          "memory:NVMM)") : "");
  g_free (how);
  return FALSE;
}

gboolean
co_engine_map_nvmm (GstCoEngine * e, GstCoSide * s, gboolean on_device)
{
  const GstVideoInfo *info = &s->vinfo->info;
  GstCoNvmmPlanes *p = &s->nvmm_planes;
  gchar *why = NULL;
  guint i;

  /* the memory holds the struct: writing the planes writes no byte of it */
  if (gst_buffer_n_memory (s->buf) != 1 ||
      !gst_buffer_map (s->buf, &s->nvmm_map, GST_MAP_READ))
    return refuse (e, s, g_strdup_printf ("a buffer of %u memories, not "
            "one NvBufSurface", gst_buffer_n_memory (s->buf)));
  if (!gst_co_nvmm_describe (s->nvmm_map.data, s->nvmm_map.size, info, p,
          &why))
    goto failed;
  if (p->mem_type != CO_NVBUF_MEM_SYSTEM && (gint) p->gpu_id !=
      element_gpu (e)) {
    why = g_strdup_printf ("its %s surface is on GPU %u and this element "
        "works on GPU %d: set the element's device-id=%u, or have the "
        "producer make its surfaces on GPU %d (gpu-id)",
        gst_co_nvmm_mem_type_name (p->mem_type), p->gpu_id, element_gpu (e),
        p->gpu_id, element_gpu (e));
    goto failed;
  }
  if (p->access == GST_CO_NVMM_UNMAPPED && !map_surface_array (e, s,
          on_device, &why))
    goto failed;
  if (p->access == GST_CO_NVMM_DIRECT && !p->host_visible &&
      !(on_device && gst_co_nvmm_device_visible (p->mem_type))) {
    why = g_strdup_printf ("%s is device memory, which the CPU backend "
        "cannot read: use the CUDA backend, or have the producer give "
        "CUDA_PINNED, CUDA_UNIFIED or system memory (nvvideoconvert "
        "nvbuf-memory-type)", gst_co_nvmm_mem_type_name (p->mem_type));
    goto failed;
  }
  memset (&s->nvmm_host, 0, sizeof (s->nvmm_host));
  s->nvmm_host.format = s->vinfo->format;
  s->nvmm_host.width = GST_VIDEO_INFO_WIDTH (info);
  s->nvmm_host.height = GST_VIDEO_INFO_HEIGHT (info);
  s->nvmm_array = p->array[0] != NULL;
  for (i = 0; i < p->n_planes && i < CO_MAX_PLANES; i++) {
    s->nvmm_host.data[i] = p->data[i];
    /* arrays have no pitch: their staging frame's rows are aligned */
    s->nvmm_host.pitch[i] = s->nvmm_array ?
        GST_ROUND_UP_N (GST_VIDEO_INFO_COMP_WIDTH (info, i) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, i), 256) : p->pitch[i];
  }
  s->nvmm_device = on_device && (p->access == GST_CO_NVMM_EGL ?
      !s->nvmm_array : gst_co_nvmm_device_visible (p->mem_type));
  s->nvmm = TRUE;
  GST_LOG_OBJECT (e->element, "%s: %s surface (access %d%s), pitch %d, "
      "offsets %u %u", s->what, gst_co_nvmm_mem_type_name (p->mem_type),
      p->access, s->nvmm_array ? ", arrays" : "", p->pitch[0], p->offset[0],
      p->offset[1]);
  return TRUE;

failed:
  gst_co_nvmm_release (p, FALSE);
  gst_buffer_unmap (s->buf, &s->nvmm_map);
  return refuse (e, s, why);
}

void
co_engine_unmap_nvmm (GstCoEngine * e, GstCoSide * s)
{
  if (!s->nvmm)
    return;
  gst_co_nvmm_release (&s->nvmm_planes, (s->flags & GST_MAP_WRITE) != 0);
  gst_buffer_unmap (s->buf, &s->nvmm_map);
  s->nvmm = FALSE;
}
