/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:gstcobaseaggregator
 * @title: GstCoBaseAggregator
 * @short_description: Base class of the cudaoptics elements with several
 * inputs
 *
 * The device layer and settings of #GstCoBaseFilter on #GstAggregator:
 * request pads `sink_%u`, frames matched by running time
 * (#GstCoBaseAggregator:max-skew), run through the engine's frame runner
 * as the filters' frames are, outputs stamped in the output segment.  The
 * host waits for an output's device work once the next instant's is
 * queued when its frames are already there, else at once.
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
  /* pads released while streaming, under the object lock: their staging
   * frames are freed by the streaming thread, which may be mapping one */
  GList *released;
  gboolean pushed;              /* a buffer left since the last flush */
  gboolean started;             /* under the object lock */
  /* the output whose device work runs while the next instant's is queued
   * (streaming thread; flush and stop, with the streaming thread idle) */
  struct _Output *pending;
  struct _Output *running;      /* in process */
  guint64 outputs, overlapped;  /* since start: how many were deferred */
  /* what the streaming thread waits for between outputs: the device's
   * end of the last mark (engine.on_done), a frame arriving on any pad */
  GMutex wake_lock;
  GCond wake;
  guint64 marked, done;         /* marks made, marks done */
};

/* One output from process to its push: the inputs stay referenced (out
 * of their pools) until the device has read them */
typedef struct _Output
{
  GstBuffer *outbuf;
  GstBuffer **bufs;
  guint n;
  gpointer data;                /* the subclass's, for finish */
  gpointer mark;                /* the end of its device work */
} Output;

static GstFlowReturn complete_pending (GstCoBaseAggregator * self,
    gboolean push);

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
    GstCaps * caps, GType pad_type)
{
  /* the base casts every sink pad to GstCoAggregatorPad */
  g_return_if_fail (g_type_is_a (pad_type, GST_TYPE_CO_AGGREGATOR_PAD));
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new_with_gtype ("sink_%u", GST_PAD_SINK,
          GST_PAD_REQUEST, caps, pad_type));
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
  const GstCoSettingsHooks hooks = { .changed = hook_changed,
    .mark_dirty = hook_dirty, .renegotiate = hook_renegotiate
  };

  gst_co_settings_install (G_OBJECT_CLASS (klass), instance_offset, size,
      settings, n, &hooks);
}

/* A pad's setting: its element, when it has one, rebuilds */
static void
hook_parent_dirty (GObject * object)
{
  GstObject *parent = gst_object_get_parent (GST_OBJECT (object));

  if (parent && GST_IS_CO_BASE_AGGREGATOR (parent)) {
    GST_OBJECT_LOCK (parent);
    gst_co_base_aggregator_mark_dirty (GST_CO_BASE_AGGREGATOR (parent));
    GST_OBJECT_UNLOCK (parent);
  }
  if (parent)
    gst_object_unref (parent);
}

void
gst_co_aggregator_pad_class_install_settings (GstCoAggregatorPadClass *
    klass, gsize instance_offset, gsize size, const GstCoSetting * settings,
    guint n)
{
  const GstCoSettingsHooks hooks = { .parent_dirty = hook_parent_dirty };

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

/* ---- what wakes the streaming thread ---- */

/* The device's work for the output just queued ended (a CUDA thread) */
static void
device_done (gpointer data)
{
  GstCoBaseAggregatorPrivate *priv = data;

  g_mutex_lock (&priv->wake_lock);
  priv->done++;
  g_cond_broadcast (&priv->wake);
  g_mutex_unlock (&priv->wake_lock);
}

/* A frame about to be queued on @pad (a probe runs before the queue, so
 * the flag says what a peek may not see yet) */
static GstPadProbeReturn
frame_arrived (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstCoBaseAggregatorPrivate *priv = data;

  g_mutex_lock (&priv->wake_lock);
  GST_CO_AGGREGATOR_PAD (pad)->arrived = TRUE;
  g_cond_broadcast (&priv->wake);
  g_mutex_unlock (&priv->wake_lock);
  return GST_PAD_PROBE_OK;
}

/* ---- pads, request and release ---- */

static GstPad *
gst_co_base_aggregator_request_new_pad (GstElement * element,
    GstPadTemplate * templ, const gchar * name, const GstCaps * caps)
{
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (element);
  GstPad *pad;

  /* a refusal is the request's answer (NULL), not the stream's end */
  if (klass->max_pads && element->numsinkpads >= klass->max_pads) {
    GST_ELEMENT_WARNING (element, CORE, PAD, ("%s takes at most %u inputs: "
            "no sink_%u", GST_ELEMENT_NAME (element), klass->max_pads,
            element->numsinkpads), (NULL));
    return NULL;
  }
  pad = GST_ELEMENT_CLASS (parent_class)->request_new_pad (element, templ,
      name, caps);
  if (pad) {
    const gchar *n = GST_PAD_NAME (pad);
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, frame_arrived,
        GST_CO_BASE_AGGREGATOR (element)->priv, NULL);
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

  /* stopped (dispose releases every pad), stop has freed the staging
   * frames already */
  GST_OBJECT_LOCK (self);
  if (self->priv->started)
    self->priv->released = g_list_prepend (self->priv->released,
        gst_object_ref (pad));
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

/* The staging frames of released pads (streaming thread, or stopped) */
static void
free_released (GstCoBaseAggregator * self)
{
  GList *l, *released;

  GST_OBJECT_LOCK (self);
  released = self->priv->released;
  self->priv->released = NULL;
  GST_OBJECT_UNLOCK (self);
  for (l = released; l; l = l->next)
    gst_co_stage_free (&self->engine, &GST_CO_AGGREGATOR_PAD (l->data)->stage);
  g_list_free_full (released, gst_object_unref);
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

/* Whether @pad can take @caps, parsed into @in; *@why when not.  No side
 * effect: an ACCEPT_CAPS query asks it too. */
static gboolean
check_caps (GstCoBaseAggregator * self, GstCoAggregatorPad * pad,
    GstCaps * caps, GstCoVideoInfo * in, gchar ** why)
{
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (self);

  if (!gst_co_video_info_from_caps (in, caps)) {
    *why = g_strdup ("the caps are not a video format this element reads");
    return FALSE;
  }
  return !klass->check_info || klass->check_info (self, pad, &in->info,
      in->bayer, why);
}

static gboolean
set_pad_caps (GstCoBaseAggregator * self, GstCoAggregatorPad * pad,
    GstCaps * caps)
{
  GstCoVideoInfo in;
  gchar *why = NULL;

  if (!check_caps (self, pad, caps, &in, &why)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: %s", GST_PAD_NAME (pad),
            why), ("caps %" GST_PTR_FORMAT, caps));
    g_free (why);
    pad->configured = FALSE;
    return FALSE;
  }
  pad->in = in;
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

  /* an output of the caps in force leaves before new ones are sent */
  if (complete_pending (GST_CO_BASE_AGGREGATOR (agg), TRUE) != GST_FLOW_OK)
    GST_DEBUG_OBJECT (agg, "the last output of the old caps failed");
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
    /* GstAggregator would wait for a reconfigure that never comes: an
     * error, as a filter's not-negotiated is */
    GST_ELEMENT_ERROR (agg, CORE, NEGOTIATION, ("Downstream takes none of "
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
  /* Each input is offered the filters' pool: pinned memory on the CUDA
   * backend (copied by DMA at the bus's full rate, read in place on
   * integrated GPUs), our context's CUDA memory for CUDA caps.  Answered
   * here because GstAggregator answers only once its output is
   * negotiated, which needs every input's first frame: a camera asks
   * before its first. */
  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION)
    return gst_co_engine_propose_pool (&self->engine, query, TRUE);
  /* refused caps fail in upstream's thread (the answer only: the reason
   * is logged here and posted when such caps are set anyway) */
  if (GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS) {
    GstCaps *caps;
    GstCoVideoInfo in;
    gchar *why = NULL;
    gboolean ok;
    gst_query_parse_accept_caps (query, &caps);
    ok = gst_pad_query_default (GST_PAD (pad), GST_OBJECT (self), query);
    if (ok) {
      gst_query_parse_accept_caps_result (query, &ok);
      if (ok && !check_caps (self, GST_CO_AGGREGATOR_PAD (pad), caps, &in,
              &why)) {
        GST_DEBUG_OBJECT (pad, "not accepting %" GST_PTR_FORMAT ": %s", caps,
            why);
        g_free (why);
        gst_query_set_accept_caps_result (query, FALSE);
      }
    }
    return TRUE;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_query (agg, pad, query);
}

/* What the element allocates itself (output=map's pictures).  Output
 * that passes an input's buffers on (CUDA caps on the CPU backend, which
 * has no CUDA pool) allocates nothing: no pool is no failure;
 * gst_co_base_aggregator_alloc says so if one is ever wanted. */
static gboolean
gst_co_base_aggregator_decide_allocation (GstAggregator * agg,
    GstQuery * query)
{
  if (!gst_co_engine_decide_pool (&GST_CO_BASE_AGGREGATOR (agg)->engine,
          query))
    GST_DEBUG_OBJECT (agg, "no output pool decided");
  return TRUE;
}

GstFlowReturn
gst_co_base_aggregator_alloc (GstCoBaseAggregator * self, GstBuffer ** buf)
{
  GstBufferPool *pool = gst_aggregator_get_buffer_pool (GST_AGGREGATOR (self));
  GstFlowReturn ret = GST_FLOW_ERROR;

  *buf = NULL;
  if (pool) {
    if (!gst_buffer_pool_is_active (pool))
      gst_buffer_pool_set_active (pool, TRUE);
    ret = gst_buffer_pool_acquire_buffer (pool, buf, NULL);
    gst_object_unref (pool);
  }
  /* a seek's flush is no error */
  if (ret != GST_FLOW_OK && ret != GST_FLOW_FLUSHING)
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate "
            "an output frame (%s)", pool ? gst_flow_get_name (ret) :
            "no pool negotiated"), (NULL));
  return ret;
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
  self->priv->pushed = FALSE;
  self->priv->outputs = self->priv->overlapped = 0;
  self->priv->marked = self->priv->done = 0;
  GST_OBJECT_LOCK (self);
  self->priv->started = TRUE;
  GST_OBJECT_UNLOCK (self);
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
  guint i;

  complete_pending (self, FALSE);
  /* the pads referenced, so that one released meanwhile stays valid; a
   * release from now on frees nothing of ours */
  collect_pads (self);
  GST_OBJECT_LOCK (self);
  self->priv->started = FALSE;
  GST_OBJECT_UNLOCK (self);
  for (i = 0; i < self->n_pads; i++)
    gst_co_stage_free (&self->engine, &self->pads[i]->stage);
  clear_pads (self);
  free_released (self);
  gst_co_engine_close (&self->engine,
      GST_CO_BASE_AGGREGATOR_GET_CLASS (self)->release ? release : NULL,
      self);
  gst_co_engine_drop_context (&self->engine);
  if (self->priv->unmatched)
    GST_INFO_OBJECT (self, "%" G_GUINT64_FORMAT " frames had no partner",
        self->priv->unmatched);
  GST_INFO_OBJECT (self, "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
      " outputs waited for behind the next one's work", self->priv->overlapped,
      self->priv->outputs);
  return TRUE;
}

/* ---- frames ---- */

static GstClockTime
running_time (GstCoAggregatorPad * pad, GstBuffer * buf)
{
  GstClockTime ts = GST_BUFFER_PTS (buf);

  if (!GST_CLOCK_TIME_IS_VALID (ts))
    return GST_CLOCK_TIME_NONE;
  return gst_segment_to_running_time (&GST_AGGREGATOR_PAD (pad)->segment,
      GST_FORMAT_TIME, ts);
}

/* How far apart the frames of one instant may be: max-skew, or by default
 * less than the shortest frame period of the inputs, so that cameras out
 * of phase still match their nearest frames (each has exactly one frame
 * in any window of one period) */
static GstClockTime
max_skew (GstCoBaseAggregator * self)
{
  GstClockTime skew, period = GST_CLOCK_TIME_NONE;
  guint i;

  GST_OBJECT_LOCK (self);
  skew = self->priv->max_skew;
  GST_OBJECT_UNLOCK (self);
  if (GST_CLOCK_TIME_IS_VALID (skew))
    return skew;
  for (i = 0; i < self->n_pads; i++) {
    const GstVideoInfo *info = &self->pads[i]->in.info;
    if (GST_VIDEO_INFO_FPS_N (info) > 0 && GST_VIDEO_INFO_FPS_D (info) > 0)
      period = MIN (period, gst_util_uint64_scale (GST_SECOND,
              GST_VIDEO_INFO_FPS_D (info), GST_VIDEO_INFO_FPS_N (info)));
  }
  if (GST_CLOCK_TIME_IS_VALID (period) && period > 1)
    return period - 1;
  return AUTO_SKEW_UNKNOWN_RATE;
}

static void
unmatched (GstCoBaseAggregator * self, GstCoAggregatorPad * pad,
    const gchar * why, GstClockTimeDiff apart)
{
  GstBuffer *buf = gst_aggregator_pad_pop_buffer (GST_AGGREGATOR_PAD (pad));

  self->priv->unmatched++;
  GST_DEBUG_OBJECT (pad, "frame %" GST_TIME_FORMAT " dropped: %s",
      GST_TIME_ARGS (buf ? GST_BUFFER_PTS (buf) : GST_CLOCK_TIME_NONE), why);
  if (!self->priv->warned_unmatched) {
    gchar *skew = g_strdup_printf ("%.3f ms", max_skew (self) / 1e6);
    if (apart > 0)
      GST_ELEMENT_WARNING (self, STREAM, FAILED, ("Frames of %s without a "
              "partner on every input are dropped (%s): the inputs' frames "
              "lie %.3f ms apart and max-skew allows %s; cameras that are "
              "not synchronised need max-skew of at least their offset "
              "(ns)", GST_PAD_NAME (pad), why, apart / 1e6, skew), (NULL));
    else
      GST_ELEMENT_WARNING (self, STREAM, FAILED, ("Frames of %s without a "
              "partner on every input are dropped (%s)", GST_PAD_NAME (pad),
              why), ("max-skew %s", skew));
    g_free (skew);
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
  const GstVideoInfo *a = &self->pads[0]->in.info;
  guint i;

  for (i = 1; i < self->n_pads; i++) {
    const GstVideoInfo *b = &self->pads[i]->in.info;
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

static gboolean
run_rebuild (gpointer owner, gboolean caps_changed)
{
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (owner);

  return !klass->rebuild || klass->rebuild (owner, caps_changed);
}

static GstFlowReturn
run_process (gpointer owner, GstCoSide * sides, guint n)
{
  GstCoBaseAggregator *self = owner;
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (self);
  Output *o = self->priv->running;
  CoFrame *frames = g_newa (CoFrame, n);
  guint i;

  for (i = 0; i < n; i++)
    frames[i] = sides[i].frame;
  return klass->process (self, o->bufs, frames, n, &o->outbuf, &o->data);
}

static const GstCoRunOps run_ops = { run_rebuild, run_process };

/* The instant's frames (@o->bufs, one per pad) through the engine's frame
 * runner: no host wait there, the output's mark says when its device work
 * is done. */
static GstFlowReturn
process_matched (GstCoBaseAggregator * self, Output * o)
{
  const guint n = self->n_pads;
  GstCoSide *sides;
  GstBuffer **views;
  GstFlowReturn ret;
  guint i;

  if (!same_sizes (self))
    return GST_FLOW_ERROR;
  sides = g_new0 (GstCoSide, n);
  views = g_new0 (GstBuffer *, n);
  for (i = 0; i < n; i++) {
    GstCoAggregatorPad *pad = self->pads[i];
    views[i] = gst_co_bayer_view (GST_ELEMENT (self), o->bufs[i],
        &pad->in);
    sides[i].buf = views[i] ? views[i] : o->bufs[i];
    sides[i].vinfo = &pad->in;
    sides[i].flags = GST_MAP_READ;
    sides[i].what = GST_PAD_NAME (pad);
    sides[i].stage = &pad->stage;
    sides[i].warned = &pad->warned_context;
  }
  self->priv->running = o;
  ret = gst_co_engine_run (&self->engine, &self->priv->rebuild, &run_ops,
      self, sides, n, &o->mark);
  self->priv->running = NULL;
  if (o->mark) {
    g_mutex_lock (&self->priv->wake_lock);
    self->priv->marked++;
    g_mutex_unlock (&self->priv->wake_lock);
  }
  for (i = 0; i < n; i++)
    gst_clear_buffer (&views[i]);
  g_free (views);
  g_free (sides);
  return ret;
}

static void
output_free (GstCoBaseAggregator * self, Output * o)
{
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (self);
  guint i;

  if (o->data && klass->drop_output)
    klass->drop_output (self, o->data);
  gst_clear_buffer (&o->outbuf);
  for (i = 0; i < o->n; i++)
    gst_clear_buffer (&o->bufs[i]);
  g_free (o->bufs);
  g_free (o);
}

/* The host's wait for @o's device work, then (with @push) finish and the
 * push; else the output goes (a flush, a stop).  The inputs go back to
 * their pools after the wait. */
static GstFlowReturn
output_complete (GstCoBaseAggregator * self, Output * o, gboolean push)
{
  GstCoBaseAggregatorClass *klass = GST_CO_BASE_AGGREGATOR_GET_CLASS (self);
  GstCoEngine *e = &self->engine;
  GstFlowReturn ret = GST_FLOW_OK;

  if (o->mark) {
    gboolean ok = FALSE;
    if (gst_co_device_push (e->device)) {
      ok = gst_co_engine_wait_mark (e, o->mark);
      gst_co_device_pop (e->device);
    } else {
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
          ("Could not make the CUDA context current"), (NULL));
    }
    o->mark = NULL;
    if (!ok)
      ret = GST_FLOW_ERROR;
  }
  if (push && ret == GST_FLOW_OK && o->outbuf) {
    if (klass->finish) {
      ret = klass->finish (self, o->outbuf, o->data);
      o->data = NULL;
    }
    if (ret == GST_FLOW_OK) {
      ret = gst_aggregator_finish_buffer (GST_AGGREGATOR (self), o->outbuf);
      o->outbuf = NULL;
      self->priv->pushed = TRUE;
    }
  }
  output_free (self, o);
  return ret;
}

/* The output left pending, pushed (or, without @push, dropped) before
 * anything else leaves or changes under it */
static GstFlowReturn
complete_pending (GstCoBaseAggregator * self, gboolean push)
{
  Output *o = self->priv->pending;

  self->priv->pending = NULL;
  return o ? output_complete (self, o, push) : GST_FLOW_OK;
}

/* Whether every pad holds its next frame, or is about to (wake_lock held) */
static gboolean
next_ready (GstCoBaseAggregator * self)
{
  guint i;

  for (i = 0; i < self->n_pads; i++) {
    GstBuffer *b;
    if (self->pads[i]->arrived)
      continue;
    if (!(b = gst_aggregator_pad_peek_buffer (GST_AGGREGATOR_PAD
                (self->pads[i]))))
      return FALSE;
    gst_buffer_unref (b);
  }
  return TRUE;
}

/* The instant's frames leave their pads; what arrives from now on is the
 * next instant's */
static void
drop_frames (GstCoBaseAggregator * self)
{
  guint i;

  g_mutex_lock (&self->priv->wake_lock);
  for (i = 0; i < self->n_pads; i++)
    self->pads[i]->arrived = FALSE;
  g_mutex_unlock (&self->priv->wake_lock);
  for (i = 0; i < self->n_pads; i++)
    gst_aggregator_pad_drop_buffer (GST_AGGREGATOR_PAD (self->pads[i]));
}

/* Every input's CUDA memory is of one context other than ours (the
 * decoders' own, another pipeline's): the element takes it, as the
 * filters do (gst_co_engine_foreign_context), and rebuilds on it.  Inputs
 * of different contexts are left as they are (mapping warns once and
 * copies through the host): taking one would only move the copies to the
 * others. */
static void
adopt_context (GstCoBaseAggregator * self, GstBuffer ** bufs)
{
#ifdef HAVE_GST_CUDA
  GstCoEngine *e = &self->engine;
  GstCudaContext *ctx = NULL;
  gint dev_id = -1;
  guint i;

  for (i = 0; i < self->n_pads; i++) {
    GstMemory *mem = gst_buffer_n_memory (bufs[i]) ?
        gst_buffer_peek_memory (bufs[i], 0) : NULL;
    if (!mem || !gst_is_cuda_memory (mem))
      continue;
    if (!ctx) {
      if (!(ctx = gst_co_engine_foreign_context (e, bufs[i], &dev_id)))
        return;
    } else if (GST_CUDA_MEMORY_CAST (mem)->context != ctx) {
      gst_object_unref (ctx);
      return;
    }
  }
  if (!ctx)
    return;
  GST_INFO_OBJECT (self, "adopting the CUDA context %" GST_PTR_FORMAT
      " (device %d) of the inputs", ctx, dev_id);
  if (complete_pending (self, TRUE) != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "the last output before the adoption failed");
  for (i = 0; i < self->n_pads; i++)
    gst_co_stage_free (e, &self->pads[i]->stage);
  free_released (self);
  gst_co_engine_close (e, GST_CO_BASE_AGGREGATOR_GET_CLASS (self)->release ?
      release : NULL, self);
  gst_co_rebuild_invalidate (&self->priv->rebuild);
  if (gst_co_engine_adopt (e, ctx, dev_id))
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (self));
  gst_object_unref (ctx);
#else
  (void) self;
  (void) bufs;
#endif
}

/* A GAP event (a lost frame) as GstAggregator queues it */
static gboolean
is_gap (GstBuffer * buf)
{
  return GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP) &&
      gst_buffer_get_size (buf) == 0;
}

/* Frames at running time @rt leave stamped at the position of the output
 * segment that runs at @rt (as GstVideoAggregator stamps: after a seek to
 * 2 s the first output is at 2 s, not 0); *@stream: its stream time, at
 * which controlled properties take their values, as in the filters.  The
 * segment is the aggregator's, written under its object lock by seeks. */
static GstClockTime
output_time (GstCoBaseAggregator * self, GstClockTime rt,
    GstClockTime * stream)
{
  GstSegment *seg = &GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD (self))->segment;
  GstClockTime pts = GST_CLOCK_TIME_NONE;

  *stream = GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (self);
  if (GST_CLOCK_TIME_IS_VALID (rt) && seg->format == GST_FORMAT_TIME)
    pts = gst_segment_position_from_running_time (seg, GST_FORMAT_TIME, rt);
  if (GST_CLOCK_TIME_IS_VALID (pts))
    *stream = gst_segment_to_stream_time (seg, GST_FORMAT_TIME, pts);
  GST_OBJECT_UNLOCK (self);
  return pts;
}

static void
advance (GstCoBaseAggregator * self, GstClockTime pts, GstClockTime dur)
{
  GstSegment *seg = &GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD (self))->segment;

  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return;
  GST_OBJECT_LOCK (self);
  seg->position = pts + (GST_CLOCK_TIME_IS_VALID (dur) ? dur : 0);
  GST_OBJECT_UNLOCK (self);
}

/* An instant some input has no frame for (a GAP event upstream): nothing
 * to correlate; downstream hears of the gap once it has the stream's caps
 * and segment (before that, the instant is dropped). */
static GstFlowReturn
push_gap (GstCoBaseAggregator * self, GstClockTime pts, GstClockTime dur)
{
  GstPad *src = GST_AGGREGATOR_SRC_PAD (self);

  GST_DEBUG_OBJECT (self, "gap at %" GST_TIME_FORMAT, GST_TIME_ARGS (pts));
  if (!GST_CLOCK_TIME_IS_VALID (pts) || !self->priv->pushed)
    return GST_FLOW_OK;
  advance (self, pts, dur);
  gst_pad_push_event (src, gst_event_new_gap (pts, dur));
  return GST_FLOW_OK;
}

/* Whether the next instant's frames are all there before the device ends
 * the output just queued.  Then that output waits until the next one's
 * work is queued too (the next aggregate), so the device never idles while
 * the host finishes, pushes and maps; otherwise it leaves as soon as its
 * work is done, and a live input never waits for a frame not yet there.
 * Woken by a frame (frame_arrived) or the device's end (device_done); a
 * device that never reports its end (a fault stops its host functions)
 * costs at most a second here, then the output's own wait says why. */
static gboolean
next_before_done (GstCoBaseAggregator * self)
{
  GstCoBaseAggregatorPrivate *priv = self->priv;
  gint64 until = g_get_monotonic_time () + G_TIME_SPAN_SECOND;
  gboolean ready = FALSE;

  g_mutex_lock (&priv->wake_lock);
  while (priv->done < priv->marked && !(ready = next_ready (self)))
    if (!g_cond_wait_until (&priv->wake, &priv->wake_lock, until))
      break;
  g_mutex_unlock (&priv->wake_lock);
  return ready;
}

static GstFlowReturn
gst_co_base_aggregator_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstCoBaseAggregator *self = GST_CO_BASE_AGGREGATOR (agg);
  GstBuffer **bufs = NULL;
  GstClockTime *rt = NULL, latest = 0, oldest = GST_CLOCK_TIME_NONE, skew;
  GstClockTime pts, stream, dur;
  GstFlowReturn ret = GST_FLOW_OK, done;
  gboolean missing = FALSE, ended = FALSE, gap = FALSE;
  Output *o;
  guint i;

  free_released (self);
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
    gap |= is_gap (bufs[i]);
    if (!self->pads[i]->configured && !is_gap (bufs[i])) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: a frame came before "
              "its caps (every input needs its caps event first)",
              GST_PAD_NAME (pad)), (NULL));
      ret = GST_FLOW_NOT_NEGOTIATED;
      goto out;
    }
    rt[i] = running_time (self->pads[i], bufs[i]);
    if (GST_CLOCK_TIME_IS_VALID (rt[i])) {
      latest = MAX (latest, rt[i]);
      oldest = MIN (oldest, rt[i]);
    }
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
              "time", 0);
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
            "inputs'", (GstClockTimeDiff) (latest - oldest));
    goto out;
  }
#undef TOO_OLD

  pts = output_time (self, rt[0], &stream);
  dur = GST_BUFFER_DURATION (bufs[0]);
  if (gap) {
    ret = complete_pending (self, TRUE);
    if (ret == GST_FLOW_OK)
      ret = push_gap (self, pts, dur);
    goto drop;
  }
  if (GST_CLOCK_TIME_IS_VALID (stream))
    gst_object_sync_values (GST_OBJECT (self), stream);
  adopt_context (self, bufs);
  o = g_new0 (Output, 1);
  o->bufs = bufs;
  o->n = self->n_pads;
  bufs = NULL;
  ret = process_matched (self, o);
  if (ret == GST_FLOW_OK && o->outbuf) {
    o->outbuf = gst_buffer_make_writable (o->outbuf);
    GST_BUFFER_PTS (o->outbuf) = pts;
    GST_BUFFER_DTS (o->outbuf) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION (o->outbuf) = dur;
    advance (self, pts, dur);
  }
  /* the pads take their next frames while the previous output leaves
   * (its device work done by now or soon: this one's is queued behind) */
  drop_frames (self);
  done = complete_pending (self, TRUE);
  if (ret == GST_FLOW_OK && done != GST_FLOW_OK)
    ret = done;
  self->priv->outputs++;
  if (ret == GST_FLOW_OK && o->mark && next_before_done (self)) {
    self->priv->pending = o;
    self->priv->overlapped++;
  } else {
    done = output_complete (self, o, ret == GST_FLOW_OK);
    if (ret == GST_FLOW_OK)
      ret = done;
  }
  goto out;

drop:
  drop_frames (self);

out:
  /* nothing new queued: the pending output leaves before any EOS, gap
   * or wait for data */
  if (self->priv->pending && (ret != GST_FLOW_OK || bufs)) {
    done = complete_pending (self, TRUE);
    if (ret == GST_FLOW_OK || ret == GST_AGGREGATOR_FLOW_NEED_DATA ||
        ret == GST_FLOW_EOS)
      ret = done == GST_FLOW_OK ? ret : done;
  }
  for (i = 0; bufs && i < self->n_pads; i++)
    gst_clear_buffer (&bufs[i]);
  g_free (bufs);
  g_free (rt);
  clear_pads (self);
  return ret;
}

/* A seek: the next output opens the new segment, before any gap */
static gboolean
gst_co_base_aggregator_flush (GstAggregator * agg)
{
  GstCoBaseAggregator *self = GST_CO_BASE_AGGREGATOR (agg);

  complete_pending (self, FALSE);
  self->priv->pushed = FALSE;
  return GST_AGGREGATOR_CLASS (parent_class)->flush ?
      GST_AGGREGATOR_CLASS (parent_class)->flush (agg) : TRUE;
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
  GstCoBaseAggregatorPrivate *priv = GST_CO_BASE_AGGREGATOR (object)->priv;

  g_list_free_full (priv->released, gst_object_unref);
  g_mutex_clear (&priv->wake_lock);
  g_cond_clear (&priv->wake);
  gst_co_settings_finalize (object);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_co_base_aggregator_class_init (GstCoBaseAggregatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  /**
   * GstCoBaseAggregator:max-skew:
   *
   * How far apart (running time, ns) the frames of one instant may be.
   * Frames older than the newest input's by more are dropped as having no
   * partner (one warning, then debug logs).  The default,
   * GST_CLOCK_TIME_NONE, is just under the shortest frame period of the
   * inputs (10 ms without a frame rate): synchronised cameras match frame
   * for frame, and cameras out of phase match their nearest frames.
   */
  GstCoSetting settings[PROP_ENGINE - 1 + GST_CO_ENGINE_N_PROPS] = {
    [PROP_MAX_SKEW - 1] = {g_param_spec_uint64 ("max-skew", "Maximum skew",
              "How far apart the frames of one instant may be (ns; "
              "18446744073709551615 = just under a frame period)", 0,
              G_MAXUINT64, DEFAULT_MAX_SKEW, GST_CO_PARAM_LIVE),
          GstCoBaseAggregator_private_offset +
          G_STRUCT_OFFSET (GstCoBaseAggregatorPrivate, max_skew),
        GST_CO_SETTING_FRAME, -1},
  };

  gobject_class->constructed = gst_co_base_aggregator_constructed;
  gobject_class->dispose = gst_co_base_aggregator_dispose;
  gobject_class->finalize = gst_co_base_aggregator_finalize;

  gst_co_engine_settings (&settings[PROP_ENGINE - 1],
      G_STRUCT_OFFSET (GstCoBaseAggregator, engine));
  /* the base's own table, its own ids (the element's start again at 1);
   * no settings struct: never snapshotted */
  gst_co_settings_install (gobject_class, 0, 0, settings,
      G_N_ELEMENTS (settings), NULL);

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
  agg_class->flush = GST_DEBUG_FUNCPTR (gst_co_base_aggregator_flush);
  agg_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_co_base_aggregator_decide_allocation);
  agg_class->get_next_time = gst_aggregator_simple_get_next_time;

  gst_type_mark_as_plugin_api (GST_TYPE_CO_BASE_AGGREGATOR, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CO_AGGREGATOR_PAD, 0);
}

static void
gst_co_base_aggregator_init (GstCoBaseAggregator * self)
{
  self->priv = gst_co_base_aggregator_get_instance_private (self);
  self->priv->max_skew = DEFAULT_MAX_SKEW;
  g_mutex_init (&self->priv->wake_lock);
  g_cond_init (&self->priv->wake);
  gst_co_engine_init (&self->engine, GST_ELEMENT (self));
  self->engine.on_done = device_done;
  self->engine.on_done_data = self->priv;
}
