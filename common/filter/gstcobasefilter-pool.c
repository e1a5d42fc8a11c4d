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
  return gst_co_engine_decide_pool (&self->engine, query);
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
