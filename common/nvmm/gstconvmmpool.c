/* cudaoptics — LGPL-2.1-or-later
 *
 * memory:NVMM, writing: a buffer pool whose buffers each hold one memory
 * mapping to an NvBufSurface made with NvBufSurfaceCreate (gstconvmmpool.h).
 */
#include "gstcocompat.h"
#include "gstconvmmpool.h"

GST_DEBUG_CATEGORY_STATIC (co_nvmm_pool_debug);
#define GST_CAT_DEFAULT co_nvmm_pool_debug

struct _GstCoNvmmPool
{
  GstBufferPool parent;
  GstVideoInfo info;
  guint32 mem_type;
  guint32 gpu_id;
};

G_DEFINE_TYPE_WITH_CODE (GstCoNvmmPool, gst_co_nvmm_pool,
    GST_TYPE_BUFFER_POOL, GST_DEBUG_CATEGORY_INIT (co_nvmm_pool_debug,
        "convmmpool", 0, "cudaoptics NvBufSurface pool"));

static gboolean
pool_set_config (GstBufferPool * bp, GstStructure * config)
{
  GstCoNvmmPool *self = GST_CO_NVMM_POOL (bp);
  GstCaps *caps = NULL;
  guint size, min, max;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || !caps || !gst_video_info_from_caps (&self->info, caps) ||
      !gst_co_nvmm_format (GST_VIDEO_INFO_FORMAT (&self->info), NULL)) {
    GST_WARNING_OBJECT (self, "no NVMM surface for %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  /* what a buffer holds is the struct, whatever size was asked */
  gst_buffer_pool_config_set_params (config, caps,
      (guint) gst_co_nvmm_surface_size (), min, max);
  return GST_BUFFER_POOL_CLASS (gst_co_nvmm_pool_parent_class)->set_config
      (bp, config);
}

static GstFlowReturn
pool_alloc_buffer (GstBufferPool * bp, GstBuffer ** buf,
    GstBufferPoolAcquireParams * params)
{
  GstCoNvmmPool *self = GST_CO_NVMM_POOL (bp);
  gchar *why = NULL;
  gpointer surf = gst_co_nvmm_surface_new (&self->info, self->mem_type,
      self->gpu_id, &why);

  if (!surf) {
    GST_ERROR_OBJECT (self, "%s", why);
    g_free (why);
    return GST_FLOW_ERROR;
  }
  *buf = gst_co_nvmm_buffer_wrap (surf);
  return GST_FLOW_OK;
}

static void
gst_co_nvmm_pool_class_init (GstCoNvmmPoolClass * klass)
{
  GstBufferPoolClass *pc = GST_BUFFER_POOL_CLASS (klass);

  pc->set_config = pool_set_config;
  pc->alloc_buffer = pool_alloc_buffer;
}

static void
gst_co_nvmm_pool_init (GstCoNvmmPool * self)
{
  gst_video_info_init (&self->info);
}

GstBufferPool *
gst_co_nvmm_pool_new (guint32 mem_type, guint32 gpu_id)
{
  GstCoNvmmPool *self = g_object_new (GST_TYPE_CO_NVMM_POOL, NULL);

  gst_object_ref_sink (self);
  self->mem_type = mem_type;
  self->gpu_id = gpu_id;
  return GST_BUFFER_POOL (self);
}
