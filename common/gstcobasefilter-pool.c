/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter, allocation: the pools on each pad (pinned host memory
 * for system caps on the CUDA backend, GstCudaMemory of the shared context
 * for CUDA caps), what is proposed upstream and kept from downstream, the
 * metas that survive the element, and the size of a frame of given caps.
 */
#include "gstcobasefilter-private.h"

#define GST_CAT_DEFAULT gst_co_base_filter_debug

/* Upstream gets our pool when nobody offered one: pinned memory, which
 * crosses the bus by DMA at its full rate (read in place on integrated
 * GPUs).  In ANALYSE mode the query went downstream
 * first (passthrough), and ours is only added when downstream had none. */
gboolean
co_propose_allocation (GstBaseTransform * bt, GstQuery * decide_query,
    GstQuery * query)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  gboolean analyse = (CO_MODE (self) & GST_CO_FILTER_ANALYSE) != 0;

  /* in place, BaseTransform asks downstream, which may not answer
   * (fakesink): then nobody proposed anything, and ours is still good */
  if (!CO_PARENT_CLASS->propose_allocation (bt, decide_query, query) &&
      !analyse)
    return FALSE;
  if (!decide_query && !analyse)        /* passthrough */
    return TRUE;
  return gst_co_engine_propose_pool (&self->engine, query,
      !analyse || self->engine.device);
}

/* A meta that says nothing of where pixels are (no tags, or only "video")
 * survives a frame whose geometry the element changes; one tagged "size",
 * "orientation" or "memory" (crop, affine, GL texture...) does not. */
static gboolean
meta_survives_remap (GType api)
{
  const gchar *const *tags = gst_meta_api_type_get_tags (api);

  return tags == NULL || tags[0] == NULL || (tags[1] == NULL &&
      g_strcmp0 (tags[0], GST_META_TAG_VIDEO_STR) == 0);
}

gboolean
co_transform_meta (GstBaseTransform * bt, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  return meta_survives_remap (meta->info->api);
}

gboolean
co_decide_allocation (GstBaseTransform * bt, GstQuery * query)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  CoBayer bayer;
  GstCaps *caps;
  guint size = 0, min = 0, max = 0;
  gboolean update = gst_query_get_n_allocation_pools (query) > 0;
  gboolean keep = FALSE;
  guint i;

  /* Stopped (its sink pad deactivated): no allocation is decided any more.
   * GstBaseTransform (1.22) stores the query of a decision and frees it
   * only at the next one or at deactivation, and an ALLOCATION query from
   * upstream's streaming thread can reach it while the pad is being
   * deactivated; a decision made then was kept past deactivation and
   * leaked with its pool (check-churn under ASan, about one run in 60
   * locally).  Refused, the query is freed at once. */
  GST_OBJECT_LOCK (self);
  if (!self->priv->started) {
    GST_OBJECT_UNLOCK (self);
    GST_DEBUG_OBJECT (self, "stopped: no allocation decided");
    return FALSE;
  }
  GST_OBJECT_UNLOCK (self);
  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_co_info_from_caps (&info, &bayer, caps))
    return FALSE;
  /* what is left here is proposed upstream (propose_allocation): a crop
   * meta downstream takes must not make upstream skip cropping frames that
   * this element then remaps whole, as BaseTransform's own decide filters */
  for (i = 0; i < gst_query_get_n_allocation_metas (query);) {
    GType api = gst_query_parse_nth_allocation_meta (query, i, NULL);
    if (meta_survives_remap (api)) {
      i++;
    } else {
      GST_DEBUG_OBJECT (self, "not proposing %s upstream", g_type_name (api));
      gst_query_remove_nth_allocation_meta (query, i);
    }
  }
  if (update)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  size = MAX (size, (guint) info.size);

#ifdef HAVE_GST_CUDA
  /* a CUDA pool downstream is fine when it lives in our context */
  if (pool && co_caps_is_cuda (caps, 0) && GST_IS_CUDA_BUFFER_POOL (pool) &&
      GST_CUDA_BUFFER_POOL (pool)->context == self->engine.cuda_context)
    keep = TRUE;
#endif
  /* a plain pool is fine for the CPU backend; the CUDA backend wants pinned
   * memory to download into */
  if (pool && !co_caps_is_cuda (caps, 0) && !self->engine.host_alloc)
    keep = TRUE;

  if (keep) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    if (gst_buffer_pool_has_option (pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
    /* a pool that will not take our frame size is no use to us */
    if (!gst_buffer_pool_set_config (pool, config)) {
      GST_DEBUG_OBJECT (self, "downstream pool refused its config");
      keep = FALSE;
    }
  }
  if (!keep) {
    gst_clear_object (&pool);
    pool = gst_co_engine_make_pool (&self->engine, caps, &size, min,
        max);
    if (!pool) {
      GST_ERROR_OBJECT (self, "no buffer pool for %" GST_PTR_FORMAT, caps);
      return FALSE;
    }
  }
  GST_DEBUG_OBJECT (self, "output pool %" GST_PTR_FORMAT " (%s)", pool,
      keep ? "downstream's" : "ours");
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

/* As GstVideoFilter, with Bayer caps too: what the default transform_size
 * scales by when a buffer is allocated without a pool. */
gboolean
co_get_unit_size (GstBaseTransform * bt, GstCaps * caps, gsize * size)
{
  GstVideoInfo info;
  CoBayer bayer;

  if (!gst_co_info_from_caps (&info, &bayer, caps)) {
    GST_WARNING_OBJECT (bt, "no frame size for %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  *size = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}
