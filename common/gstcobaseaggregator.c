/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:gstcobaseaggregator
 * @title: GstCoBaseAggregator
 * @short_description: Base class of the cudaoptics elements with several
 * inputs
 *
 * The device layer and settings of #GstCoBaseFilter on #GstAggregator:
 * request pads `sink_%u`, frames matched by running time
 * (#GstCoBaseAggregator:max-skew), each mapped where the backend reads
 * it, and one host wait per output.
 */
#include "gstcocompat.h"
#include "gstcobaseaggregator.h"

#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_co_base_aggregator_debug);
#define GST_CAT_DEFAULT gst_co_base_aggregator_debug

enum
{
  PROP_0,
  PROP_MAX_SKEW,
  PROP_ENGINE,                  /* backend, device-id, active-backend */
};

#define DEFAULT_MAX_SKEW GST_CLOCK_TIME_NONE
#define AUTO_SKEW_UNKNOWN_RATE (10 * GST_MSECOND)

struct _GstCoBaseAggregatorPrivate
{
  GstClockTime max_skew;        /* property, under the object lock */
  GstCoRebuild rebuild;
  guint64 unmatched;            /* frames dropped without partners */
  gboolean warned_unmatched;
};

/* ---- the class ---- */

#define gst_co_base_aggregator_parent_class parent_class
static void gst_co_base_aggregator_child_proxy_init (gpointer g_iface,
    gpointer iface_data);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstCoBaseAggregator,
    gst_co_base_aggregator, GST_TYPE_AGGREGATOR,
    G_ADD_PRIVATE (GstCoBaseAggregator)
    G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY,
        gst_co_base_aggregator_child_proxy_init)
    GST_DEBUG_CATEGORY_INIT (gst_co_base_aggregator_debug, "cobaseaggregator",
        0, "cudaoptics base aggregator"));

void
gst_co_base_aggregator_class_add_sink_template (GstElementClass * klass,
    GstCaps * caps)
{
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new_with_gtype ("sink_%u", GST_PAD_SINK,
          GST_PAD_REQUEST, caps, GST_TYPE_CO_AGGREGATOR_PAD));
}

void
gst_co_base_aggregator_mark_dirty (GstCoBaseAggregator * self)
{
  self->priv->rebuild.dirty = TRUE;
}

static void
hook_changed (GObject * object, guint prop_id)
{
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (object);

  if (klass->setting_changed)
    klass->setting_changed (GST_CO_BASE_AGGREGATOR (object), prop_id);
}

static void
hook_dirty (GObject * object)
{
  gst_co_base_aggregator_mark_dirty (GST_CO_BASE_AGGREGATOR (object));
}

static void
hook_renegotiate (GObject * object)
{
  gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (object));
}

void
gst_co_base_aggregator_class_install_settings (GstCoBaseAggregatorClass *
    klass, gsize instance_offset, gsize size, const GstCoSetting * settings,
    guint n)
{
  const GstCoSettingsHooks hooks = { hook_changed, hook_dirty,
    hook_renegotiate
  };

  gst_co_settings_install (G_OBJECT_CLASS (klass), instance_offset, size,
      settings, n, &hooks);
}

void
gst_co_base_aggregator_snapshot (GstCoBaseAggregator * self, gpointer dst)
{
  gst_co_settings_snapshot (G_OBJECT (self), dst);
}

void
gst_co_base_aggregator_snapshot_clear (GstCoBaseAggregator * self,
    gpointer snap)
{
  gst_co_settings_snapshot_clear (G_OBJECT (self), snap);
}

/* ---- properties ---- */

static void
gst_co_base_aggregator_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCoBaseAggregator *self = GST_CO_BASE_AGGREGATOR (object);

  if (prop_id == PROP_MAX_SKEW) {
    GST_OBJECT_LOCK (self);
    self->priv->max_skew = g_value_get_uint64 (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id < PROP_ENGINE ||
      !gst_co_engine_set_property (&self->engine, prop_id - PROP_ENGINE,
          value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_co_base_aggregator_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCoBaseAggregator *self = GST_CO_BASE_AGGREGATOR (object);

  if (prop_id == PROP_MAX_SKEW) {
    GST_OBJECT_LOCK (self);
    g_value_set_uint64 (value, self->priv->max_skew);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id < PROP_ENGINE ||
      !gst_co_engine_get_property (&self->engine, prop_id - PROP_ENGINE,
          value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

/* ---- pads, request and release ---- */

static GstPad *
gst_co_base_aggregator_request_new_pad (GstElement * element,
    GstPadTemplate * templ, const gchar * name, const GstCaps * caps)
{
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (element);
  GstPad *pad;

  if (klass->max_pads && element->numsinkpads >= klass->max_pads) {
    GST_ELEMENT_ERROR (element, CORE, PAD, ("%s takes at most %u inputs",
            G_OBJECT_TYPE_NAME (element), klass->max_pads), (NULL));
    return NULL;
  }
  pad = GST_ELEMENT_CLASS (parent_class)->request_new_pad (element, templ,
      name, caps);
  if (pad) {
    const gchar *n = GST_PAD_NAME (pad);
    GST_CO_AGGREGATOR_PAD (pad)->index = g_str_has_prefix (n, "sink_") ?
        (guint) atoi (n + 5) : 0;
    /* a launch line's sink_N::property is set now */
    gst_child_proxy_child_added (GST_CHILD_PROXY (element), G_OBJECT (pad),
        GST_OBJECT_NAME (pad));
  }
  return pad;
}

/* The sink pads as children (GstChildProxy), so that a launch line or an
 * application sets a pad's properties as sink_N::name, as compositor's */
static GObject *
gst_co_base_aggregator_child_by_index (GstChildProxy * proxy, guint index)
{
  GstElement *element = GST_ELEMENT (proxy);
  GObject *obj = NULL;

  GST_OBJECT_LOCK (element);
  obj = g_list_nth_data (element->sinkpads, index);
  if (obj)
    gst_object_ref (obj);
  GST_OBJECT_UNLOCK (element);
  return obj;
}

static guint
gst_co_base_aggregator_children_count (GstChildProxy * proxy)
{
  GstElement *element = GST_ELEMENT (proxy);
  guint n;

  GST_OBJECT_LOCK (element);
  n = element->numsinkpads;
  GST_OBJECT_UNLOCK (element);
  return n;
}

static void
gst_co_base_aggregator_child_proxy_init (gpointer g_iface,
    gpointer iface_data)
{
  GstChildProxyInterface *iface = g_iface;

  iface->get_child_by_index = gst_co_base_aggregator_child_by_index;
  iface->get_children_count = gst_co_base_aggregator_children_count;
}

static void
gst_co_base_aggregator_release_pad (GstElement * element, GstPad * pad)
{
  GstCoBaseAggregator *self = GST_CO_BASE_AGGREGATOR (element);

  gst_co_stage_free (&self->engine, &GST_CO_AGGREGATOR_PAD (pad)->stage);
  GST_OBJECT_LOCK (self);
  gst_co_rebuild_invalidate (&self->priv->rebuild);
  GST_OBJECT_UNLOCK (self);
  gst_child_proxy_child_removed (GST_CHILD_PROXY (element), G_OBJECT (pad),
      GST_OBJECT_NAME (pad));
  GST_ELEMENT_CLASS (parent_class)->release_pad (element, pad);
}

static gint
by_index (gconstpointer a, gconstpointer b)
{
  const GstCoAggregatorPad *pa = *(GstCoAggregatorPad * const *) a;
  const GstCoAggregatorPad *pb = *(GstCoAggregatorPad * const *) b;

  return pa->index < pb->index ? -1 : pa->index > pb->index;
}

/* self->pads: every sink pad, referenced, by index */
static void
collect_pads (GstCoBaseAggregator * self)
{
  GList *l;
  guint i = 0;

  GST_OBJECT_LOCK (self);
  self->pads = g_new0 (GstCoAggregatorPad *, GST_ELEMENT (self)->numsinkpads
      + 1);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    self->pads[i++] = gst_object_ref (l->data);
  self->n_pads = i;
  GST_OBJECT_UNLOCK (self);
  qsort (self->pads, self->n_pads, sizeof (gpointer), by_index);
}

static void
clear_pads (GstCoBaseAggregator * self)
{
  guint i;

  for (i = 0; i < self->n_pads; i++)
    gst_object_unref (self->pads[i]);
  g_clear_pointer (&self->pads, g_free);
  self->n_pads = 0;
}

/* ---- caps ---- */

static gboolean
set_pad_caps (GstCoBaseAggregator * self, GstCoAggregatorPad * pad,
    GstCaps * caps)
{
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (self);
  GstVideoInfo info;
  CoBayer bayer;
  gboolean ok = TRUE;

  if (!gst_co_info_from_caps (&info, &bayer, caps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: caps %" GST_PTR_FORMAT
            " are not a video format this element reads", GST_PAD_NAME (pad),
            caps), (NULL));
    return FALSE;
  }
  if (klass->check_info)
    ok = klass->check_info (self, pad, &info, bayer);
  if (!ok) {
    pad->configured = FALSE;
    return FALSE;
  }
  pad->info = info;
  pad->bayer = bayer;
  pad->format = gst_co_format_from_video (GST_VIDEO_INFO_FORMAT (&info));
  pad->configured = TRUE;
  gst_co_rebuild_invalidate (&self->priv->rebuild);
  gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (self));
  return TRUE;
}

static gboolean
gst_co_base_aggregator_sink_event (GstAggregator * agg,
    GstAggregatorPad * apad, GstEvent * event)
{
  GstCoBaseAggregator *self = GST_CO_BASE_AGGREGATOR (agg);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;
    gst_event_parse_caps (event, &caps);
    if (!set_pad_caps (self, GST_CO_AGGREGATOR_PAD (apad), caps)) {
      gst_event_unref (event);
      return FALSE;
    }
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, apad, event);
}

static GstFlowReturn
gst_co_base_aggregator_update_src_caps (GstAggregator * agg, GstCaps * caps,
    GstCaps ** ret)
{
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (agg);
  GList *l;

  GST_OBJECT_LOCK (agg);
  for (l = GST_ELEMENT (agg)->sinkpads; l; l = l->next)
    if (!GST_CO_AGGREGATOR_PAD (l->data)->configured) {
      GST_OBJECT_UNLOCK (agg);
      return GST_AGGREGATOR_FLOW_NEED_DATA;
    }
  GST_OBJECT_UNLOCK (agg);
  *ret = klass->src_caps ? klass->src_caps (GST_CO_BASE_AGGREGATOR (agg),
      caps) : NULL;
  if (!*ret)
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  if (gst_caps_is_empty (*ret)) {
    gchar *down = caps ? gst_caps_to_string (caps) : g_strdup ("none");
    GST_ELEMENT_WARNING (agg, CORE, NEGOTIATION, ("Downstream takes none of "
            "the output caps the inputs give (downstream: %s)", down),
        (NULL));
    g_free (down);
    gst_clear_caps (ret);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  return GST_FLOW_OK;
}

/* ---- queries and context ---- */

static gboolean
gst_co_base_aggregator_sink_query (GstAggregator * agg,
    GstAggregatorPad * pad, GstQuery * query)
{
  GstCoBaseAggregator *self = GST_CO_BASE_AGGREGATOR (agg);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_co_engine_query_context (&self->engine, query))
    return TRUE;
  /* refused caps fail in upstream's thread, with the element's reason */
  if (GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS &&
      GST_CO_BASE_AGGREGATOR_GET_CLASS (self)->check_info) {
    GstCaps *caps;
    GstVideoInfo info;
    CoBayer bayer;
    gboolean ok;
    gst_query_parse_accept_caps (query, &caps);
    ok = gst_pad_query_default (GST_PAD (pad), GST_OBJECT (self), query);
    if (ok) {
      gst_query_parse_accept_caps_result (query, &ok);
      if (ok && gst_co_info_from_caps (&info, &bayer, caps))
        gst_query_set_accept_caps_result (query,
            GST_CO_BASE_AGGREGATOR_GET_CLASS (self)->check_info (self,
                GST_CO_AGGREGATOR_PAD (pad), &info, bayer));
    }
    return TRUE;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_query (agg, pad, query);
}

static gboolean
gst_co_base_aggregator_src_query (GstAggregator * agg, GstQuery * query)
{
  GstCoBaseAggregator *self = GST_CO_BASE_AGGREGATOR (agg);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_co_engine_query_context (&self->engine, query))
    return TRUE;
  return GST_AGGREGATOR_CLASS (parent_class)->src_query (agg, query);
}

static void
gst_co_base_aggregator_set_context (GstElement * element, GstContext * context)
{
  gst_co_engine_set_context (&GST_CO_BASE_AGGREGATOR (element)->engine,
      context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* ---- start / stop ---- */

static gboolean
gst_co_base_aggregator_start (GstAggregator * agg)
{
  GstCoBaseAggregator *self = GST_CO_BASE_AGGREGATOR (agg);

  gst_co_rebuild_invalidate (&self->priv->rebuild);
  self->priv->unmatched = 0;
  self->priv->warned_unmatched = FALSE;
  return gst_co_engine_start (&self->engine,
      GST_CO_BASE_AGGREGATOR_GET_CLASS (self)->host_only);
}

static void
release (gpointer data)
{
  GstCoBaseAggregator *self = data;

  GST_CO_BASE_AGGREGATOR_GET_CLASS (self)->release (self);
}

static gboolean
gst_co_base_aggregator_stop (GstAggregator * agg)
{
  GstCoBaseAggregator *self = GST_CO_BASE_AGGREGATOR (agg);
  GList *l;

  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next) {
    GstCoAggregatorPad *pad = l->data;
    GstCoStage stage = pad->stage;
    memset (&pad->stage, 0, sizeof (pad->stage));
    GST_OBJECT_UNLOCK (self);
    gst_co_stage_free (&self->engine, &stage);
    GST_OBJECT_LOCK (self);
  }
  GST_OBJECT_UNLOCK (self);
  gst_co_engine_close (&self->engine,
      GST_CO_BASE_AGGREGATOR_GET_CLASS (self)->release ? release : NULL,
      self);
  gst_co_engine_drop_context (&self->engine);
  if (self->priv->unmatched)
    GST_INFO_OBJECT (self, "%" G_GUINT64_FORMAT " frames had no partner",
        self->priv->unmatched);
  return TRUE;
}

/* ---- frames ---- */

static gboolean
ensure_built (GstCoBaseAggregator * self)
{
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (self);
  GstCoRebuild *r = &self->priv->rebuild;

  if (!gst_co_rebuild_needed (GST_OBJECT (self), r))
    return TRUE;
  if (klass->rebuild && !klass->rebuild (self, r->caps_changed))
    return FALSE;
  gst_co_rebuild_done (r);
  return TRUE;
}

static GstClockTime
running_time (GstCoAggregatorPad * pad, GstBuffer * buf)
{
  GstClockTime ts = GST_BUFFER_PTS (buf);

  if (!GST_CLOCK_TIME_IS_VALID (ts))
    return GST_CLOCK_TIME_NONE;
  return gst_segment_to_running_time (&GST_AGGREGATOR_PAD (pad)->segment,
      GST_FORMAT_TIME, ts);
}

/* How far apart frames of one instant may be */
static GstClockTime
max_skew (GstCoBaseAggregator * self)
{
  GstClockTime skew;

  GST_OBJECT_LOCK (self);
  skew = self->priv->max_skew;
  GST_OBJECT_UNLOCK (self);
  if (GST_CLOCK_TIME_IS_VALID (skew))
    return skew;
  /* half the first input's frame period */
  if (self->n_pads && GST_VIDEO_INFO_FPS_N (&self->pads[0]->info) > 0)
    return gst_util_uint64_scale (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&self->pads[0]->info),
        2 * (guint64) GST_VIDEO_INFO_FPS_N (&self->pads[0]->info));
  return AUTO_SKEW_UNKNOWN_RATE;
}

static void
unmatched (GstCoBaseAggregator * self, GstCoAggregatorPad * pad,
    const gchar * why)
{
  GstBuffer *buf = gst_aggregator_pad_pop_buffer (GST_AGGREGATOR_PAD (pad));

  self->priv->unmatched++;
  GST_DEBUG_OBJECT (pad, "frame %" GST_TIME_FORMAT " dropped: %s",
      GST_TIME_ARGS (buf ? GST_BUFFER_PTS (buf) : GST_CLOCK_TIME_NONE), why);
  if (!self->priv->warned_unmatched) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED, ("Frames of %s without a "
            "partner on every input are dropped (%s)", GST_PAD_NAME (pad),
            why), ("max-skew %" GST_TIME_FORMAT, GST_TIME_ARGS (max_skew
                (self))));
    self->priv->warned_unmatched = TRUE;
  }
  gst_clear_buffer (&buf);
}

/* The cameras of one rig: every frame of the instant of one size.  Checked
 * here, where each pad's caps are those of its frame: a rig that changes
 * size sends new caps on each pad, one after the other. */
static gboolean
same_sizes (GstCoBaseAggregator * self)
{
  const GstVideoInfo *a = &self->pads[0]->info;
  guint i;

  for (i = 1; i < self->n_pads; i++) {
    const GstVideoInfo *b = &self->pads[i]->info;
    if (GST_VIDEO_INFO_WIDTH (a) != GST_VIDEO_INFO_WIDTH (b) ||
        GST_VIDEO_INFO_HEIGHT (a) != GST_VIDEO_INFO_HEIGHT (b)) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s is %dx%d but %s is "
              "%dx%d: every input must have the same size",
              GST_PAD_NAME (self->pads[i]), GST_VIDEO_INFO_WIDTH (b),
              GST_VIDEO_INFO_HEIGHT (b), GST_PAD_NAME (self->pads[0]),
              GST_VIDEO_INFO_WIDTH (a), GST_VIDEO_INFO_HEIGHT (a)), (NULL));
      return FALSE;
    }
  }
  return TRUE;
}

static GstFlowReturn
process_matched (GstCoBaseAggregator * self, GstBuffer ** bufs,
    GstBuffer ** outbuf)
{
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (self);
  const guint n = self->n_pads;
  GstVideoFrame *vf = g_new0 (GstVideoFrame, n);
  CoFrame *frames = g_new0 (CoFrame, n);
  gboolean *mapped = g_new0 (gboolean, n);
  gpointer *foreign = g_new0 (gpointer, n);
  GstFlowReturn ret = GST_FLOW_ERROR;
  gboolean pushed = FALSE;
  guint i;

  if (!same_sizes (self))
    goto done;
  if (self->engine.device) {
    if (!(pushed = gst_co_device_push (self->engine.device))) {
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
          ("Could not make the CUDA context current"), (NULL));
      goto done;
    }
    self->engine.downloaded = FALSE;
  }
  if (!ensure_built (self))
    goto done;
  for (i = 0; i < n; i++) {
    GstCoAggregatorPad *pad = self->pads[i];
    if (self->engine.device) {
      GstCoSideKind kind;
      gboolean ordered;
      mapped[i] = gst_co_engine_map_frame (&self->engine, &pad->stage,
          bufs[i], &pad->info, pad->format, pad->bayer, GST_MAP_READ,
          GST_PAD_NAME (pad), &pad->warned_context, &vf[i], &frames[i], &kind,
          &ordered, &foreign[i]);
    } else {
      mapped[i] = gst_video_frame_map (&vf[i], &pad->info, bufs[i],
          GST_MAP_READ);
      if (mapped[i])
        gst_co_frame_from_video (&vf[i], pad->format, pad->bayer, &frames[i]);
      else
        GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the %s "
                "frame", GST_PAD_NAME (pad)), (NULL));
    }
    if (!mapped[i])
      goto done;
  }
  ret = klass->process (self, bufs, frames, n, outbuf);

done:
#ifdef HAVE_CUDA
  if (pushed) {
    cudaError_t err;
    for (i = 0; i < n; i++)
      if (foreign[i] && !gst_co_engine_stream_wait (&self->engine,
              self->engine.stream, foreign[i]))
        ret = GST_FLOW_ERROR;
    /* one wait per output: the inputs go back to their pools after it and
     * the results read back are complete */
    err = cudaStreamSynchronize ((cudaStream_t) self->engine.stream);
    if (err != cudaSuccess && ret != GST_FLOW_ERROR) {
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("CUDA error while "
              "processing frames: %s", cudaGetErrorString (err)), ("%s",
              cudaGetErrorName (err)));
      ret = GST_FLOW_ERROR;
    }
  }
#endif
  for (i = 0; i < n; i++)
    if (mapped[i])
      gst_video_frame_unmap (&vf[i]);
  if (pushed)
    gst_co_device_pop (self->engine.device);
  g_free (vf);
  g_free (frames);
  g_free (mapped);
  g_free (foreign);
  return ret;
}

static GstFlowReturn
gst_co_base_aggregator_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstCoBaseAggregator *self = GST_CO_BASE_AGGREGATOR (agg);
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (self);
  GstBuffer **bufs = NULL, *outbuf = NULL;
  GstClockTime *rt = NULL, latest = 0, skew;
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean missing = FALSE, ended = FALSE;
  guint i;

  collect_pads (self);
  if (self->n_pads == 0) {
    ret = GST_AGGREGATOR_FLOW_NEED_DATA;
    goto out;
  }
  bufs = g_new0 (GstBuffer *, self->n_pads);
  rt = g_new0 (GstClockTime, self->n_pads);
  for (i = 0; i < self->n_pads; i++) {
    GstAggregatorPad *pad = GST_AGGREGATOR_PAD (self->pads[i]);
    bufs[i] = gst_aggregator_pad_peek_buffer (pad);
    if (!bufs[i]) {
      missing = TRUE;
      ended |= gst_aggregator_pad_is_eos (pad);
      continue;
    }
    rt[i] = running_time (self->pads[i], bufs[i]);
    if (GST_CLOCK_TIME_IS_VALID (rt[i]) && rt[i] > latest)
      latest = rt[i];
  }
  /* an input that ended can match nothing more: the stream ends */
  if (ended) {
    ret = GST_FLOW_EOS;
    goto out;
  }
  if (missing) {
    if (timeout)                /* live: a camera late past the latency */
      for (i = 0; i < self->n_pads; i++)
        if (bufs[i])
          unmatched (self, self->pads[i], "another input had no frame in "
              "time");
    ret = timeout ? GST_FLOW_OK : GST_AGGREGATOR_FLOW_NEED_DATA;
    goto out;
  }
  skew = max_skew (self);
#define TOO_OLD(t) (GST_CLOCK_TIME_IS_VALID (t) && latest - (t) > skew)
  for (i = 0; i < self->n_pads; i++)
    if (TOO_OLD (rt[i]))
      missing = TRUE;
  if (missing) {
    /* the older frames have no partner: drop them, wait for the rest */
    for (i = 0; i < self->n_pads; i++)
      if (TOO_OLD (rt[i]))
        unmatched (self, self->pads[i], "an earlier frame than the other "
            "inputs'");
    goto out;
  }
#undef TOO_OLD

  {
    GstClockTime ts = rt[0];
    if (GST_CLOCK_TIME_IS_VALID (ts))
      gst_object_sync_values (GST_OBJECT (self), ts);
  }
  ret = process_matched (self, bufs, &outbuf);
  if (ret == GST_FLOW_OK && outbuf) {
    GstAggregatorPad *srcpad = GST_AGGREGATOR_PAD (agg->srcpad);
    GstClockTime dur = GST_BUFFER_DURATION (bufs[0]);
    outbuf = gst_buffer_make_writable (outbuf);
    GST_BUFFER_PTS (outbuf) = rt[0];
    GST_BUFFER_DTS (outbuf) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION (outbuf) = dur;
    if (GST_CLOCK_TIME_IS_VALID (rt[0]))
      srcpad->segment.position = rt[0] + (GST_CLOCK_TIME_IS_VALID (dur) ?
          dur : 0);
    if (klass->finish)
      ret = klass->finish (self, outbuf);
  }
  for (i = 0; i < self->n_pads; i++)
    gst_aggregator_pad_drop_buffer (GST_AGGREGATOR_PAD (self->pads[i]));
  if (ret == GST_FLOW_OK && outbuf) {
    ret = gst_aggregator_finish_buffer (agg, outbuf);
    outbuf = NULL;
  }

out:
  gst_clear_buffer (&outbuf);
  for (i = 0; bufs && i < self->n_pads; i++)
    gst_clear_buffer (&bufs[i]);
  g_free (bufs);
  g_free (rt);
  clear_pads (self);
  return ret;
}

/* ---- GObject ---- */

static void
gst_co_base_aggregator_constructed (GObject * object)
{
  gst_co_settings_init_instance (object);
  G_OBJECT_CLASS (parent_class)->constructed (object);
}

static void
gst_co_base_aggregator_dispose (GObject * object)
{
  gst_co_engine_clear (&GST_CO_BASE_AGGREGATOR (object)->engine);
  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
gst_co_base_aggregator_finalize (GObject * object)
{
  gst_co_settings_finalize (object);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_co_base_aggregator_class_init (GstCoBaseAggregatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  gobject_class->set_property = gst_co_base_aggregator_set_property;
  gobject_class->get_property = gst_co_base_aggregator_get_property;
  gobject_class->constructed = gst_co_base_aggregator_constructed;
  gobject_class->dispose = gst_co_base_aggregator_dispose;
  gobject_class->finalize = gst_co_base_aggregator_finalize;

  /**
   * GstCoBaseAggregator:max-skew:
   *
   * How far apart (running time, ns) the frames of one instant may be.
   * Frames older than the newest input's by more are dropped as having no
   * partner (one warning, then debug logs).  The default,
   * GST_CLOCK_TIME_NONE, is half the first input's frame period (10 ms
   * without a frame rate).
   */
  g_object_class_install_property (gobject_class, PROP_MAX_SKEW,
      g_param_spec_uint64 ("max-skew", "Maximum skew",
          "How far apart the frames of one instant may be (ns; "
          "18446744073709551615 = half a frame period)", 0, G_MAXUINT64,
          DEFAULT_MAX_SKEW, GST_CO_PARAM_LIVE));
  gst_co_engine_class_install_properties (gobject_class, PROP_ENGINE);

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_co_base_aggregator_set_context);
  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (gst_co_base_aggregator_request_new_pad);
  element_class->release_pad =
      GST_DEBUG_FUNCPTR (gst_co_base_aggregator_release_pad);

  agg_class->start = GST_DEBUG_FUNCPTR (gst_co_base_aggregator_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_co_base_aggregator_stop);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_co_base_aggregator_sink_event);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_co_base_aggregator_sink_query);
  agg_class->src_query = GST_DEBUG_FUNCPTR (gst_co_base_aggregator_src_query);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (gst_co_base_aggregator_update_src_caps);
  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_co_base_aggregator_aggregate);
  agg_class->get_next_time = gst_aggregator_simple_get_next_time;

  gst_type_mark_as_plugin_api (GST_TYPE_CO_BASE_AGGREGATOR, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CO_AGGREGATOR_PAD, 0);
}

static void
gst_co_base_aggregator_init (GstCoBaseAggregator * self)
{
  self->priv = gst_co_base_aggregator_get_instance_private (self);
  self->priv->max_skew = DEFAULT_MAX_SKEW;
  gst_co_engine_init (&self->engine, GST_ELEMENT (self));
}
