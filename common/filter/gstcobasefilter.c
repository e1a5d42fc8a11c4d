/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:gstcobasefilter
 * @title: GstCoBaseFilter
 * @short_description: Base class of the cudaoptics elements
 *
 * Backend choice (#GstCoBaseFilter:backend), device and context sharing
 * (#GstCoBaseFilter:device-id, GstContext), buffer pools and the
 * upload/download of system-memory frames.  Subclasses set a mode
 * (#GstCoFilterMode), declare their settings
 * (gst_co_base_filter_class_install_settings) and implement process,
 * rebuild (called by the base whenever what it built may be stale) and
 * release, and where they need them set_info, get_output_size and
 * finish; docs/architecture.md walks through it.
 *
 * This file holds the GObject, the properties, start/stop and the
 * dispatch to the files of each duty (gstcobasefilter-private.h).
 */
#include "gstcobasefilter-private.h"

GST_DEBUG_CATEGORY (gst_co_base_filter_debug);
#define GST_CAT_DEFAULT gst_co_base_filter_debug

enum
{
  PROP_0,
  PROP_ENGINE,                  /* backend, device-id, active-backend */
};

#define gst_co_base_filter_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstCoBaseFilter, gst_co_base_filter,
    GST_TYPE_BASE_TRANSFORM, G_ADD_PRIVATE (GstCoBaseFilter)
    GST_DEBUG_CATEGORY_INIT (gst_co_base_filter_debug, "cobasefilter", 0,
        "cudaoptics base filter"));

void
gst_co_base_filter_set_writes_locked (GstCoBaseFilter * self, gboolean writes)
{
  g_return_if_fail (CO_MODE (self) & GST_CO_FILTER_ANALYSE);
  self->priv->writes = writes;
}

void
gst_co_base_filter_set_writes (GstCoBaseFilter * self, gboolean writes)
{
  g_return_if_fail (CO_MODE (self) & GST_CO_FILTER_ANALYSE);
  GST_OBJECT_LOCK (self);
  self->priv->writes = writes;
  GST_OBJECT_UNLOCK (self);
}

/* ---- context and queries ---- */

static void
gst_co_base_filter_set_context (GstElement * element, GstContext * context)
{
  gst_co_engine_set_context (&GST_CO_BASE_FILTER (element)->engine, context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_co_base_filter_query (GstBaseTransform * bt, GstPadDirection direction,
    GstQuery * query)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_co_engine_query_context (&self->engine, query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS &&
      co_query_caps_sorted (bt, direction, query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS && direction == GST_PAD_SINK &&
      self->priv->started) {
    gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (bt,
        direction, query);
    if (ret)
      co_explain_empty_caps (self, query);
    return ret;
  }
  /* GstBaseTransform takes its stored allocation decision out while it
   * answers upstream's ALLOCATION query and puts it back after; answered
   * while the element stops (upstream's thread still runs), the decision
   * went back after stop had released it and leaked with its pool and caps
   * (check-conformance's caps churn under ASan, in CI).  Stop waits for
   * an answer in flight, and none is given once stopped. */
  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION &&
      direction == GST_PAD_SINK) {
    gboolean ret = FALSE;

    g_mutex_lock (&self->priv->alloc_lock);
    if (self->priv->started)
      ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (bt, direction,
          query);
    else
      GST_DEBUG_OBJECT (self, "stopped: no allocation proposed");
    g_mutex_unlock (&self->priv->alloc_lock);
    return ret;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (bt, direction, query);
}

/* ---- start / stop ---- */

static gboolean
gst_co_base_filter_start (GstBaseTransform * bt)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  GstCoBaseFilterPrivate *priv = self->priv;

  gst_co_rebuild_invalidate (&priv->rebuild);
  if (!gst_co_engine_start (&self->engine,
          GST_CO_BASE_FILTER_GET_CLASS (self)->host_only))
    return FALSE;
  g_mutex_lock (&priv->alloc_lock);
  GST_OBJECT_LOCK (self);
  priv->started = TRUE;
  GST_OBJECT_UNLOCK (self);
  g_mutex_unlock (&priv->alloc_lock);
  priv->warned_context = FALSE;
  g_atomic_int_set (&priv->warned_cuda_caps, 0);
  return TRUE;
}

static gboolean
gst_co_base_filter_stop (GstBaseTransform * bt)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);

  /* first: an allocation answer in flight still uses the context and the
   * pinned allocator freed below */
  g_mutex_lock (&self->priv->alloc_lock);
  GST_OBJECT_LOCK (self);
  self->priv->started = FALSE;
  GST_OBJECT_UNLOCK (self);
  g_mutex_unlock (&self->priv->alloc_lock);
  co_free_stages (self);
  co_close_device (self);
  gst_co_engine_drop_context (&self->engine);
  return TRUE;
}

/* A context set on an element that never started is still ours to drop. */
static void
gst_co_base_filter_dispose (GObject * object)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (object);

  gst_co_engine_clear (&self->engine);
  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
gst_co_base_filter_finalize (GObject * object)
{
  g_mutex_clear (&GST_CO_BASE_FILTER (object)->priv->alloc_lock);
  co_settings_finalize (GST_CO_BASE_FILTER (object));
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- per frame ---- */

static void
gst_co_base_filter_before_transform (GstBaseTransform * bt, GstBuffer * buf)
{
  /* a source in another format (appsrc's default: bytes) has no stream
   * time to follow */
  GstClockTime ts = bt->segment.format == GST_FORMAT_TIME ?
      gst_segment_to_stream_time (&bt->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf)) : GST_CLOCK_TIME_NONE;

  GST_TRACE_OBJECT (bt, "frame arrived");
  /* makes GST_PARAM_CONTROLLABLE properties follow their control sources */
  if (GST_CLOCK_TIME_IS_VALID (ts))
    gst_object_sync_values (GST_OBJECT (bt), ts);
  co_adopt_context (GST_CO_BASE_FILTER (bt), buf);
}

/* ---- GObject ---- */

static void gst_co_base_filter_constructed (GObject * object);

static void
gst_co_base_filter_class_init (GstCoBaseFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *bt_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCoSetting settings[GST_CO_ENGINE_N_PROPS];

  gobject_class->dispose = gst_co_base_filter_dispose;
  gobject_class->finalize = gst_co_base_filter_finalize;
  gobject_class->constructed = gst_co_base_filter_constructed;

  /* the base's own table, its own ids (the element's start again at 1);
   * no settings struct: never snapshotted */
  gst_co_engine_settings (&settings[PROP_ENGINE - 1],
      G_STRUCT_OFFSET (GstCoBaseFilter, engine));
  gst_co_settings_install (gobject_class, 0, 0, settings,
      G_N_ELEMENTS (settings), NULL);

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_co_base_filter_set_context);

  bt_class->passthrough_on_same_caps = FALSE;
  bt_class->start = GST_DEBUG_FUNCPTR (gst_co_base_filter_start);
  bt_class->stop = GST_DEBUG_FUNCPTR (gst_co_base_filter_stop);
  bt_class->query = GST_DEBUG_FUNCPTR (gst_co_base_filter_query);
  bt_class->transform_caps = GST_DEBUG_FUNCPTR (co_transform_caps);
  bt_class->fixate_caps = GST_DEBUG_FUNCPTR (co_fixate_caps);
  bt_class->set_caps = GST_DEBUG_FUNCPTR (co_set_caps);
  bt_class->get_unit_size = GST_DEBUG_FUNCPTR (co_get_unit_size);
  bt_class->propose_allocation = GST_DEBUG_FUNCPTR (co_propose_allocation);
  bt_class->decide_allocation = GST_DEBUG_FUNCPTR (co_decide_allocation);
  bt_class->transform_meta = GST_DEBUG_FUNCPTR (co_transform_meta);
  bt_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_co_base_filter_before_transform);
  bt_class->transform = GST_DEBUG_FUNCPTR (co_transform);
  /* used only in ANALYSE mode, which works in place */
  bt_class->transform_ip = GST_DEBUG_FUNCPTR (co_transform_ip);

  gst_type_mark_as_plugin_api (GST_TYPE_CO_BASE_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CO_BACKEND, 0);
}

/* The mode is the final class's: read it once the instance is built (in
 * instance init a parent type still sees its own class). */
static void
gst_co_base_filter_constructed (GObject * object)
{
  GstBaseTransform *bt = GST_BASE_TRANSFORM (object);
  gboolean analyse = (CO_MODE (object) & GST_CO_FILTER_ANALYSE) != 0;

  /* An analysing element works in place: BaseTransform then forwards the
   * allocation query and hands over each input buffer itself, made
   * writable for metas (a new GstBuffer only when shared, the memory is
   * not copied); pixels are mapped for writing only when the element asked
   * to draw.  It sees every frame; a filter drops late frames, as
   * GstVideoFilter does. */
  gst_base_transform_set_in_place (bt, analyse);
  gst_base_transform_set_qos_enabled (bt, !analyse);
  co_settings_init (GST_CO_BASE_FILTER (object));
  G_OBJECT_CLASS (parent_class)->constructed (object);
}

static void
gst_co_base_filter_init (GstCoBaseFilter * self)
{
  self->priv = gst_co_base_filter_get_instance_private (self);
  g_mutex_init (&self->priv->alloc_lock);
  gst_co_engine_init (&self->engine, GST_ELEMENT (self));
}
