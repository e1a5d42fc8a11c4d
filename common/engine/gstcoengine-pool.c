/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoEngine, pools: the buffer pool an element of either base offers
 * upstream and uses for what it allocates itself, for caps in CUDA memory
 * (GstCudaMemory of the element's context, carrying its stream on 1.24+)
 * or in system memory (the device's pinned memory once the CUDA backend
 * runs: frames cross the bus by DMA at its full rate, and an integrated
 * GPU reads them in place), or in memory:NVMM (NvBufSurfaces of NVIDIA's
 * library, gstconvmmpool.h).
 */
#include "gstcocompat.h"
#include "gstcoengine.h"
#include "gstcocaps.h"
#include "gstconvmmpool.h"

gboolean
gst_co_caps_is_cuda (GstCaps * caps, guint i)
{
#ifdef HAVE_GST_CUDA
  GstCapsFeatures *f = caps ? gst_caps_get_features (caps, i) : NULL;
  return f && !gst_caps_features_is_any (f) &&
      gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
#else
  (void) caps;
  (void) i;
  return FALSE;
#endif
}

/* The caps a pool is configured with: a Bayer frame is carried as the
 * GRAY8/GRAY16_LE frame of the same layout, which video and CUDA pools
 * know how to lay out (and video meta describes). */
static GstCaps *
pool_caps (GstCaps * caps)
{
  GstVideoInfo info;
  CoBayer bayer;
  GstCaps *ret;

  if (!gst_co_info_from_caps (&info, &bayer, caps) || bayer == CO_BAYER_NONE)
    return gst_caps_ref (caps);
  ret = gst_video_info_to_caps (&info);
  gst_caps_set_features (ret, 0,
      gst_caps_features_copy (gst_caps_get_features (caps, 0)));
  return ret;
}

/* Surfaces of the nvmm-memory-type property on the element's GPU (the
 * device opened, else the device-id property, else the first).  On the
 * CPU backend `default` is CUDA unified memory: the platform's default
 * (device memory on dGPU, surface arrays on Jetson) is what the CPU
 * cannot write. */
static GstBufferPool *
make_nvmm_pool (GstCoEngine * e, GstCaps * caps, guint * size, guint min,
    guint max)
{
  GstBufferPool *pool;
  GstStructure *config;
  gint mem_type, gpu;

  GST_OBJECT_LOCK (e->element);
  mem_type = e->nvmm_mem_type;
  gpu = e->device ? e->device->device_id : MAX (e->device_id, 0);
  if (mem_type == CO_NVBUF_MEM_DEFAULT && (e->active_backend ==
          GST_CO_BACKEND_CPU || (e->active_backend == GST_CO_BACKEND_AUTO &&
              e->backend == GST_CO_BACKEND_CPU)))
    mem_type = CO_NVBUF_MEM_CUDA_UNIFIED;
  GST_OBJECT_UNLOCK (e->element);
  pool = gst_co_nvmm_pool_new ((guint32) mem_type, (guint32) gpu);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps,
      (guint) gst_co_nvmm_surface_size (), min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  *size = (guint) gst_co_nvmm_surface_size ();
  return pool;
}

GstBufferPool *
gst_co_engine_make_pool (GstCoEngine * e, GstCaps * caps, guint * size,
    guint min, guint max)
{
  const gboolean cuda = gst_co_caps_is_cuda (caps, 0);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstCaps *pcaps;

  if (gst_co_caps_is_nvmm (caps, 0))
    return make_nvmm_pool (e, caps, size, min, max);

#ifdef HAVE_GST_CUDA
  if (cuda) {
    if (!e->cuda_context)
      return NULL;
    pool = gst_cuda_buffer_pool_new (e->cuda_context);
  }
#endif
  if (!pool)
    pool = gst_video_buffer_pool_new ();

  pcaps = pool_caps (caps);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, pcaps, *size, min, max);
  gst_caps_unref (pcaps);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
#ifdef CO_CUDA_STREAMS
  if (cuda && e->gst_stream)
    gst_buffer_pool_config_set_cuda_stream (config, e->gst_stream);
#endif
  if (!cuda && e->host_alloc) {
    GstAllocationParams params;
    gst_allocation_params_init (&params);
    gst_buffer_pool_config_set_allocator (config, e->host_alloc, &params);
  }
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  /* the CUDA pool pads rows to its pitch: take the size it settled on */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

gboolean
gst_co_engine_propose_pool (GstCoEngine * e, GstQuery * query,
    gboolean with_pool)
{
  GstVideoInfo info;
  CoBayer bayer;
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_co_info_from_caps (&info, &bayer, caps))
    return FALSE;
  if (with_pool && gst_query_get_n_allocation_pools (query) == 0) {
    guint size = (guint) info.size;
    GstBufferPool *pool = gst_co_engine_make_pool (e, caps, &size, 0, 0);
    if (pool) {
      gst_query_add_allocation_pool (query, pool, size, 0, 0);
      gst_object_unref (pool);
    }
    /* the allocator too: GstBaseSrc's decide_allocation sets the pool's
     * allocator to the query's first one, and without it the pool falls
     * back to system memory */
    if (pool && e->host_alloc && !gst_co_caps_is_cuda (caps, 0) &&
        !gst_co_caps_is_nvmm (caps, 0) &&
        gst_query_get_n_allocation_params (query) == 0) {
      GstAllocationParams params;
      gst_allocation_params_init (&params);
      gst_query_add_allocation_param (query, e->host_alloc, &params);
    }
  }
  if (!gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

gboolean
gst_co_engine_decide_pool (GstCoEngine * e, GstQuery * query)
{
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  CoBayer bayer;
  GstCaps *caps;
  guint size = 0, min = 0, max = 0;
  const gboolean update = gst_query_get_n_allocation_pools (query) > 0;
  gboolean keep = FALSE;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_co_info_from_caps (&info, &bayer, caps))
    return FALSE;
  if (update)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  size = MAX (size, (guint) info.size);
  /* our surfaces: a pool downstream knows nothing of our library's */
  if (gst_co_caps_is_nvmm (caps, 0))
    gst_clear_object (&pool);
#ifdef HAVE_GST_CUDA
  /* a CUDA pool downstream is fine when it lives in our context */
  if (pool && gst_co_caps_is_cuda (caps, 0) && GST_IS_CUDA_BUFFER_POOL (pool)
      && GST_CUDA_BUFFER_POOL (pool)->context == e->cuda_context)
    keep = TRUE;
#endif
  /* a plain pool is fine for the CPU backend; the CUDA backend wants pinned
   * memory to download into */
  if (pool && !gst_co_caps_is_cuda (caps, 0) && !e->host_alloc)
    keep = TRUE;
  if (keep) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    if (gst_buffer_pool_has_option (pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
    /* a pool that will not take our frame size is no use to us */
    if (!gst_buffer_pool_set_config (pool, config)) {
      GST_DEBUG_OBJECT (e->element, "downstream pool refused its config");
      keep = FALSE;
    }
  }
  if (!keep) {
    gst_clear_object (&pool);
    pool = gst_co_engine_make_pool (e, caps, &size, min, max);
    if (!pool) {
      GST_ERROR_OBJECT (e->element, "no buffer pool for %" GST_PTR_FORMAT,
          caps);
      return FALSE;
    }
  }
  GST_DEBUG_OBJECT (e->element, "output pool %" GST_PTR_FORMAT " (%s)", pool,
      keep ? "downstream's" : "ours");
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}
