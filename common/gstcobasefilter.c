/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:gstcobasefilter
 * @title: GstCoBaseFilter
 * @short_description: Base class of the cudaoptics elements
 *
 * Backend choice (#GstCoBaseFilter:backend), device and context sharing
 * (#GstCoBaseFilter:device-id, GstContext), buffer pools and the
 * upload/download of system-memory frames.  Subclasses implement set_info,
 * process and release.
 *
 * Memory paths with the CUDA backend, per pad:
 * - memory:CUDAMemory caps: GstCudaMemory of the shared context, used in
 *   place (mapped with GST_MAP_CUDA).
 * - system memory caps, buffer from our pool: pinned memory, copied
 *   asynchronously on the element's stream (discrete GPUs) or read in place
 *   through its device alias (integrated GPUs).
 * - system memory caps, any other buffer: copied once through a device
 *   staging frame.
 */
#include "gstcobasefilter.h"
#include "gstcohostmemory.h"

#include <string.h>

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_co_base_filter_debug);
#define GST_CAT_DEFAULT gst_co_base_filter_debug

enum
{
  PROP_0,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_ACTIVE_BACKEND,
};

#define DEFAULT_BACKEND GST_CO_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1

typedef enum
{
  SIDE_CUDA,                    /* GstCudaMemory, used in place */
  SIDE_MAPPED,                  /* our host memory, device alias */
  SIDE_STAGED,                  /* copied through a device staging frame */
} SideKind;

struct _GstCoBaseFilterPrivate
{
  GstCoBackend backend;
  gint device_id;

  gpointer cuda_context;        /* GstCudaContext * */
  GstAllocator *host_alloc;
  gboolean started;             /* under the object lock */

  CoFrame stage[2];             /* device frames for staged input, output */
  gpointer stage_mem[2];
  gsize stage_size[2];
  gboolean warned_context;

  /* test-only fault injection (CO_FAULT_INJECT), armed at start */
  gchar *fault_step;
  gint fault_nth, fault_seen;
};

#define gst_co_base_filter_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstCoBaseFilter, gst_co_base_filter,
    GST_TYPE_BASE_TRANSFORM, G_ADD_PRIVATE (GstCoBaseFilter)
    GST_DEBUG_CATEGORY_INIT (gst_co_base_filter_debug, "cobasefilter", 0,
        "cudaoptics base filter"));

GType
gst_co_backend_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CO_BACKEND_AUTO, "CUDA when a device is usable, else the CPU",
        "auto"},
    {GST_CO_BACKEND_CUDA, "CUDA (fail when no device is usable)", "cuda"},
    {GST_CO_BACKEND_CPU, "CPU reference implementation", "cpu"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCoBackend", values);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

CoFormat
gst_co_format_from_video (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
      return CO_FORMAT_RGBA;
    case GST_VIDEO_FORMAT_BGRA:
      return CO_FORMAT_BGRA;
    case GST_VIDEO_FORMAT_RGBx:
      return CO_FORMAT_RGBX;
    case GST_VIDEO_FORMAT_BGRx:
      return CO_FORMAT_BGRX;
    case GST_VIDEO_FORMAT_RGB:
      return CO_FORMAT_RGB;
    case GST_VIDEO_FORMAT_GRAY8:
      return CO_FORMAT_GRAY8;
    case GST_VIDEO_FORMAT_GRAY16_LE:
      return CO_FORMAT_GRAY16_LE;
    case GST_VIDEO_FORMAT_NV12:
      return CO_FORMAT_NV12;
    case GST_VIDEO_FORMAT_I420:
      return CO_FORMAT_I420;
    default:
      return CO_FORMAT_UNKNOWN;
  }
}

void
gst_co_base_filter_class_add_video_templates (GstElementClass * klass,
    const gchar * formats, gint max_size)
{
  GstCaps *caps = gst_caps_new_empty ();
  gchar *tail = g_strdup_printf ("format=(string)%s, width=(int)[1, %d], "
      "height=(int)[1, %d], framerate=(fraction)[0/1, 2147483647/1]",
      formats, max_size, max_size);
  gchar *str;

#ifdef HAVE_GST_CUDA
  str = g_strdup_printf ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY
      "), %s", tail);
  gst_caps_append (caps, gst_caps_from_string (str));
  g_free (str);
#endif
  str = g_strdup_printf ("video/x-raw, %s", tail);
  gst_caps_append (caps, gst_caps_from_string (str));
  g_free (str);
  g_free (tail);

  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

/* ---- test-only fault injection ----
 *
 * CO_FAULT_INJECT="STEP:N" makes the N-th (1-based, default 1) occurrence of
 * STEP in each element started while it is set fail as if the GPU had
 * failed: STEP is "alloc" (gst_co_base_filter_alloc, as an out-of-memory
 * cudaMalloc or malloc) or the @what of a gst_co_base_filter_cuda_ok check
 * (e.g. "building the LUT", "remapping").  Read when an element starts, so a
 * test can arm it for one pipeline; inert (one NULL check) when unset. */

static void
fault_arm (GstCoBaseFilter * self)
{
  GstCoBaseFilterPrivate *priv = self->priv;
  const gchar *spec = g_getenv ("CO_FAULT_INJECT");
  const gchar *colon;

  g_clear_pointer (&priv->fault_step, g_free);
  priv->fault_nth = priv->fault_seen = 0;
  if (!spec || !*spec)
    return;
  colon = strrchr (spec, ':');
  if (colon && colon[1] && strspn (colon + 1, "0123456789") ==
      strlen (colon + 1)) {
    priv->fault_step = g_strndup (spec, colon - spec);
    priv->fault_nth = (gint) CLAMP (g_ascii_strtoull (colon + 1, NULL, 10),
        1, G_MAXINT);
  } else {
    priv->fault_step = g_strdup (spec);
    priv->fault_nth = 1;
  }
  GST_WARNING_OBJECT (self, "fault injection armed: occurrence %d of \"%s\" "
      "will fail", priv->fault_nth, priv->fault_step);
}

/* TRUE when this occurrence of @step is the one to fail. */
static gboolean
fault_hit (GstCoBaseFilter * self, const gchar * step)
{
  GstCoBaseFilterPrivate *priv = self->priv;

  if (G_LIKELY (priv->fault_step == NULL) || g_strcmp0 (step,
          priv->fault_step) != 0)
    return FALSE;
  if (++priv->fault_seen != priv->fault_nth)
    return FALSE;
  GST_WARNING_OBJECT (self, "injecting a failure of \"%s\"", step);
  return TRUE;
}

/* ---- memory helpers for subclasses ---- */

gboolean
gst_co_base_filter_cuda_ok (GstCoBaseFilter * self, int err, const gchar * what)
{
  gboolean injected = err == 0 && fault_hit (self, what);

  if (G_LIKELY (err == 0 && !injected))
    return TRUE;
  if (injected)
    err = 999;                  /* cudaErrorUnknown */
  GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("CUDA error in %s: %s", what,
          gst_co_cuda_error_text (err)), ("status %d%s", err,
          injected ? " (injected by CO_FAULT_INJECT)" : ""));
  return FALSE;
}

gpointer
gst_co_base_filter_alloc (GstCoBaseFilter * self, gsize size)
{
  gpointer mem = NULL;
  gboolean injected = fault_hit (self, "alloc");

  if (!self->device) {
    mem = injected ? NULL : g_try_malloc (size);
    if (!mem)
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Out of memory (%" G_GSIZE_FORMAT " bytes)", size), (NULL));
    return mem;
  }
#ifdef HAVE_CUDA
  if (gst_co_device_push (self->device)) {
    cudaError_t err = injected ? cudaErrorMemoryAllocation :
        cudaMalloc (&mem, size);
    gst_co_device_pop (self->device);
    if (err != cudaSuccess) {
      mem = NULL;
      cudaGetLastError ();
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Out of GPU memory: %" G_GSIZE_FORMAT " bytes could not be "
              "allocated on CUDA device %d", size, self->device->device_id),
          ("cudaMalloc: %s", cudaGetErrorString (err)));
    }
  } else {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Could not make the CUDA context current"), (NULL));
  }
#endif
  return mem;
}

void
gst_co_base_filter_free (GstCoBaseFilter * self, gpointer mem)
{
  if (!mem)
    return;
  if (!self->device) {
    g_free (mem);
    return;
  }
#ifdef HAVE_CUDA
  if (gst_co_device_push (self->device)) {
    GST_CO_CUDA_OK (self, cudaFree (mem));
    gst_co_device_pop (self->device);
  }
#endif
}

gboolean
gst_co_base_filter_ensure (GstCoBaseFilter * self, gpointer * mem,
    gsize * cur_size, gsize size)
{
  if (*mem && *cur_size >= size)
    return TRUE;
  gst_co_base_filter_free (self, *mem);
  *cur_size = 0;
  *mem = gst_co_base_filter_alloc (self, size);
  if (!*mem)
    return FALSE;
  *cur_size = size;
  return TRUE;
}

static void
frame_from_video (const GstVideoFrame * vf, CoFormat format, CoFrame * f)
{
  guint i;

  memset (f, 0, sizeof (*f));
  f->format = format;
  f->width = GST_VIDEO_FRAME_WIDTH (vf);
  f->height = GST_VIDEO_FRAME_HEIGHT (vf);
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (vf) && i < CO_MAX_PLANES; i++) {
    f->data[i] = GST_VIDEO_FRAME_PLANE_DATA (vf, i);
    f->pitch[i] = GST_VIDEO_FRAME_PLANE_STRIDE (vf, i);
  }
}

/* ---- properties ---- */

static void
gst_co_base_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      self->priv->backend = g_value_get_enum (value);
      break;
    case PROP_DEVICE_ID:
      self->priv->device_id = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_co_base_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, self->priv->backend);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, self->priv->device_id);
      break;
    case PROP_ACTIVE_BACKEND:
      g_value_set_enum (value, self->active_backend);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- context sharing ---- */

static void
gst_co_base_filter_set_context (GstElement * element, GstContext * context)
{
#ifdef HAVE_GST_CUDA
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (element);
  gint device_id;

  if (gst_cuda_load_library ()) {
    GST_OBJECT_LOCK (self);
    device_id = self->priv->device_id;
    gst_cuda_handle_set_context (element, context, device_id,
        (GstCudaContext **) & self->priv->cuda_context);
    GST_OBJECT_UNLOCK (self);
  }
#endif
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

#ifdef HAVE_GST_CUDA
static gboolean caps_is_cuda (GstCaps * caps, guint i);

/* The same caps, CUDA-memory structures first. */
static GstCaps *
cuda_structures_first (GstCaps * caps)
{
  GstCaps *ret = gst_caps_new_empty ();
  gint pass;
  guint i;

  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < gst_caps_get_size (caps); i++)
      if (caps_is_cuda (caps, i) == (pass == 0))
        gst_caps_append_structure_full (ret,
            gst_structure_copy (gst_caps_get_structure (caps, i)),
            gst_caps_features_copy (gst_caps_get_features (caps, i)));
  return ret;
}
#endif

/* Whether only the CPU backend can run: the one in use once started, the
 * property's choice before (so that in READY a backend=cpu element offers no
 * CUDA memory).  Read from the pads' threads: under the object lock. */
static gboolean
cpu_only (GstCoBaseFilter * self)
{
  gboolean r;

  GST_OBJECT_LOCK (self);
  r = self->priv->started ? self->active_backend == GST_CO_BACKEND_CPU :
      self->priv->backend == GST_CO_BACKEND_CPU;
  GST_OBJECT_UNLOCK (self);
  return r;
}

static gboolean
gst_co_base_filter_query (GstBaseTransform * bt, GstPadDirection direction,
    GstQuery * query)
{
#ifdef HAVE_GST_CUDA
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    GstCudaContext *ctx = NULL;
    gboolean ret = FALSE;
    GST_OBJECT_LOCK (self);
    if (self->priv->cuda_context)
      ctx = gst_object_ref (self->priv->cuda_context);
    GST_OBJECT_UNLOCK (self);
    if (ctx) {
      ret = gst_cuda_handle_context_query (GST_ELEMENT (bt), query, ctx);
      gst_object_unref (ctx);
    }
    if (ret)
      return TRUE;
  }
  /* GstBaseTransform orders its answer by the asking peer's filter, and
   * cudaupload lists its passthrough (system memory) first: state our own
   * preference so that CUDA producers hand over device memory */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS && direction == GST_PAD_SINK
      && !cpu_only (self)) {
    GstCaps *caps = NULL, *sorted;
    if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (bt, direction, query))
      return FALSE;
    gst_query_parse_caps_result (query, &caps);
    if (caps) {
      sorted = cuda_structures_first (caps);
      gst_query_set_caps_result (query, sorted);
      gst_caps_unref (sorted);
    }
    return TRUE;
  }
#endif
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (bt, direction, query);
}

/* ---- start / stop ---- */

static gboolean
open_device (GstCoBaseFilter * self, gint device_id, gchar ** why)
{
  GstCoBaseFilterPrivate *priv = self->priv;

  if (!gst_co_cuda_probe (device_id, why))
    return FALSE;
#ifdef HAVE_GST_CUDA
  if (!gst_cuda_load_library ()) {
    *why = g_strdup ("GStreamer's CUDA library could not load libcuda");
    return FALSE;
  }
  gst_cuda_memory_init_once ();
  if (!gst_cuda_ensure_element_context (GST_ELEMENT (self), device_id,
          (GstCudaContext **) & priv->cuda_context)) {
    *why = g_strdup_printf ("no CUDA context could be shared or created for "
        "device %d", device_id);
    return FALSE;
  }
#endif
  self->device = gst_co_device_new (device_id, priv->cuda_context);
#ifdef HAVE_CUDA
  if (gst_co_device_push (self->device)) {
    cudaStream_t s = NULL;
    cudaError_t err = cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
    gst_co_device_pop (self->device);
    if (err == cudaSuccess) {
      self->stream = s;
      return TRUE;
    }
    *why = g_strdup_printf ("cudaStreamCreate: %s", cudaGetErrorString (err));
  } else {
    *why = g_strdup ("the CUDA context could not be made current");
  }
#endif
  gst_clear_object (&self->device);
  return FALSE;
}

static void
free_stages (GstCoBaseFilter * self)
{
  int i;

  for (i = 0; i < 2; i++) {
    gst_co_base_filter_free (self, self->priv->stage_mem[i]);
    self->priv->stage_mem[i] = NULL;
    self->priv->stage_size[i] = 0;
  }
}

static gboolean
gst_co_base_filter_start (GstBaseTransform * bt)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  GstCoBaseFilterPrivate *priv = self->priv;
  GstCoBackend backend;
  gint device_id;
  gchar *why = NULL;

  GST_OBJECT_LOCK (self);
  backend = priv->backend;
  device_id = priv->device_id;
  self->active_backend = GST_CO_BACKEND_CPU;
  GST_OBJECT_UNLOCK (self);
  fault_arm (self);

  if (backend != GST_CO_BACKEND_CPU) {
    if (open_device (self, device_id, &why)) {
      GST_OBJECT_LOCK (self);
      self->active_backend = GST_CO_BACKEND_CUDA;
      GST_OBJECT_UNLOCK (self);
      priv->host_alloc = gst_co_host_allocator_new (self->device);
      GST_INFO_OBJECT (self, "CUDA backend on device %d (%s)",
          self->device->device_id, GST_STR_NULL (self->device->name));
    } else if (backend == GST_CO_BACKEND_CUDA) {
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("backend=cuda was requested but no CUDA device is usable: %s",
              why), (NULL));
      g_free (why);
#ifdef HAVE_GST_CUDA
      gst_clear_object ((GstCudaContext **) & priv->cuda_context);
#endif
      return FALSE;
    } else {
      GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
          ("No usable CUDA device (%s): using the CPU backend", why), (NULL));
      /* a CPU element must not answer its neighbours' context queries */
#ifdef HAVE_GST_CUDA
      GST_OBJECT_LOCK (self);
      gst_clear_object ((GstCudaContext **) & priv->cuda_context);
      GST_OBJECT_UNLOCK (self);
#endif
    }
    g_free (why);
  }
  GST_OBJECT_LOCK (self);
  priv->started = TRUE;
  GST_OBJECT_UNLOCK (self);
  priv->warned_context = FALSE;
  g_object_notify (G_OBJECT (self), "active-backend");
  return TRUE;
}

static gboolean
gst_co_base_filter_stop (GstBaseTransform * bt)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstCoBaseFilterPrivate *priv = self->priv;

  if (klass->release) {
    if (self->device && gst_co_device_push (self->device)) {
      klass->release (self);
      gst_co_device_pop (self->device);
    } else {
      klass->release (self);
    }
  }
  free_stages (self);
#ifdef HAVE_CUDA
  if (self->stream && gst_co_device_push (self->device)) {
    GST_CO_CUDA_OK (self, cudaStreamDestroy ((cudaStream_t) self->stream));
    gst_co_device_pop (self->device);
  }
#endif
  self->stream = NULL;
  gst_clear_object (&priv->host_alloc);
  gst_clear_object (&self->device);
#ifdef HAVE_GST_CUDA
  GST_OBJECT_LOCK (self);
  gst_clear_object ((GstCudaContext **) & priv->cuda_context);
  GST_OBJECT_UNLOCK (self);
#endif
  GST_OBJECT_LOCK (self);
  priv->started = FALSE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* A context set on an element that never started is still ours to drop. */
static void
gst_co_base_filter_dispose (GObject * object)
{
#ifdef HAVE_GST_CUDA
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (object);

  GST_OBJECT_LOCK (self);
  gst_clear_object ((GstCudaContext **) & self->priv->cuda_context);
  GST_OBJECT_UNLOCK (self);
#endif
  g_clear_pointer (&GST_CO_BASE_FILTER (object)->priv->fault_step, g_free);
  G_OBJECT_CLASS (parent_class)->dispose (object);
}

/* ---- caps ---- */

static gboolean
caps_is_cuda (GstCaps * caps, guint i)
{
#ifdef HAVE_GST_CUDA
  GstCapsFeatures *f = gst_caps_get_features (caps, i);
  return f && !gst_caps_features_is_any (f) &&
      gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
#else
  return FALSE;
#endif
}

static GstCaps *
append_in (GstCaps * caps, const GstStructure * s, gboolean cuda)
{
  const gchar *feature = GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY;
#ifdef HAVE_GST_CUDA
  if (cuda)
    feature = GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY;
#endif
  return gst_caps_merge_structure_full (caps, gst_structure_copy (s),
      gst_caps_features_new (feature, NULL));
}

/* Same format and size on both pads, in either memory domain.  The sink pad
 * asks for CUDA memory first, so that a CUDA producer (cudaupload, nvh264dec,
 * another of ours) hands over device memory even without caps filters; the
 * source pad offers the input's domain first, so that a chain stays where it
 * is and `videotestsrc ! cudalensdistort ! appsink` stays in system memory. */
static GstCaps *
gst_co_base_filter_transform_caps (GstBaseTransform * bt,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  GstCaps *ret = gst_caps_new_empty ();
  /* the CPU backend has no context for a CUDA pool on its source pad */
  gboolean cpu = cpu_only (self);
  gboolean cuda_ok = !(direction == GST_PAD_SINK && cpu);
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    gboolean cuda_first = caps_is_cuda (caps, i) ||
        (direction == GST_PAD_SRC && !cpu);
#ifdef HAVE_GST_CUDA
    if (cuda_first && cuda_ok)
      ret = append_in (ret, s, TRUE);
    ret = append_in (ret, s, FALSE);
    if (!cuda_first && cuda_ok)
      ret = append_in (ret, s, TRUE);
#else
    (void) cuda_first;
    (void) cuda_ok;
    ret = append_in (ret, s, FALSE);
#endif
  }
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  GST_DEBUG_OBJECT (self, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, ret);
  return ret;
}

static gboolean
gst_co_base_filter_set_caps (GstBaseTransform * bt, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstVideoInfo in, out;
  CoFormat in_format, out_format;

  if (!gst_video_info_from_caps (&in, incaps) ||
      !gst_video_info_from_caps (&out, outcaps)) {
    GST_ERROR_OBJECT (self, "invalid caps %" GST_PTR_FORMAT " / %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  in_format = gst_co_format_from_video (GST_VIDEO_INFO_FORMAT (&in));
  out_format = gst_co_format_from_video (GST_VIDEO_INFO_FORMAT (&out));
  if (in_format == CO_FORMAT_UNKNOWN || out_format == CO_FORMAT_UNKNOWN) {
    GST_ERROR_OBJECT (self, "unsupported format in %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  /* the staging frames are kept: they only ever grow (ensure_stage), and a
   * cudaFree per renegotiation would wait for the device each time caps
   * change.  The new infos are in place before set_info, which may read
   * them, and set_info runs with the device current, as release does. */
  {
    GstVideoInfo old_in = self->in_info, old_out = self->out_info;
    CoFormat old_in_format = self->in_format, old_out_format = self->out_format;
    gboolean pushed, ok = TRUE;

    self->in_info = in;
    self->out_info = out;
    self->in_format = in_format;
    self->out_format = out_format;
    if (klass->set_info) {
      pushed = self->device && gst_co_device_push (self->device);
      ok = klass->set_info (self, &in, &out);
      if (pushed)
        gst_co_device_pop (self->device);
    }
    if (!ok) {
      self->in_info = old_in;
      self->out_info = old_out;
      self->in_format = old_in_format;
      self->out_format = old_out_format;
    }
    return ok;
  }
}

/* ---- allocation ---- */

/* A pool for @caps: GstCudaMemory for CUDA caps, else a video pool, of our
 * pinned/mapped host memory when the CUDA backend runs. */
static GstBufferPool *
make_pool (GstCoBaseFilter * self, GstCaps * caps, guint * size, guint min,
    guint max)
{
  GstBufferPool *pool = NULL;
  GstStructure *config;

#ifdef HAVE_GST_CUDA
  if (caps_is_cuda (caps, 0)) {
    if (!self->priv->cuda_context)
      return NULL;
    pool = gst_cuda_buffer_pool_new (self->priv->cuda_context);
  }
#endif
  if (!pool)
    pool = gst_video_buffer_pool_new ();

  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, *size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!caps_is_cuda (caps, 0) && self->priv->host_alloc) {
    GstAllocationParams params;
    gst_allocation_params_init (&params);
    gst_buffer_pool_config_set_allocator (config, self->priv->host_alloc,
        &params);
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

static gboolean
gst_co_base_filter_propose_allocation (GstBaseTransform * bt,
    GstQuery * decide_query, GstQuery * query)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  GstVideoInfo info;
  GstCaps *caps;
  guint size;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (bt,
          decide_query, query))
    return FALSE;
  if (!decide_query)            /* passthrough */
    return TRUE;
  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (gst_query_get_n_allocation_pools (query) == 0) {
    GstBufferPool *pool;
    size = (guint) info.size;
    pool = make_pool (self, caps, &size, 0, 0);
    if (pool) {
      gst_query_add_allocation_pool (query, pool, size, 0, 0);
      gst_object_unref (pool);
    }
  }
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
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

static gboolean
gst_co_base_filter_transform_meta (GstBaseTransform * bt, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  return meta_survives_remap (meta->info->api);
}

static gboolean
gst_co_base_filter_decide_allocation (GstBaseTransform * bt, GstQuery * query)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  GstCaps *caps;
  guint size = 0, min = 0, max = 0;
  gboolean update = gst_query_get_n_allocation_pools (query) > 0;
  gboolean keep = FALSE;
  guint i;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
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
  if (pool && caps_is_cuda (caps, 0) && GST_IS_CUDA_BUFFER_POOL (pool) &&
      GST_CUDA_BUFFER_POOL (pool)->context == self->priv->cuda_context)
    keep = TRUE;
#endif
  /* a plain pool is fine for the CPU backend; the CUDA backend wants pinned
   * memory to download into */
  if (pool && !caps_is_cuda (caps, 0) && !self->priv->host_alloc)
    keep = TRUE;

  if (!keep) {
    gst_clear_object (&pool);
    pool = make_pool (self, caps, &size, min, max);
    if (!pool) {
      GST_ERROR_OBJECT (self, "no buffer pool for %" GST_PTR_FORMAT, caps);
      return FALSE;
    }
  } else {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    if (gst_buffer_pool_has_option (pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
    /* a pool that will not take our frame size is no use to us */
    if (!gst_buffer_pool_set_config (pool, config)) {
      GST_DEBUG_OBJECT (self, "downstream pool refused its config");
      gst_clear_object (&pool);
      keep = FALSE;
      pool = make_pool (self, caps, &size, min, max);
      if (!pool)
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

/* ---- per frame ---- */

static void
gst_co_base_filter_before_transform (GstBaseTransform * bt, GstBuffer * buf)
{
  GstClockTime ts = gst_segment_to_stream_time (&bt->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (buf));

  /* makes GST_PARAM_CONTROLLABLE properties follow their control sources */
  if (GST_CLOCK_TIME_IS_VALID (ts))
    gst_object_sync_values (GST_OBJECT (bt), ts);
}

static GstFlowReturn
transform_cpu (GstCoBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstVideoFrame in, out;
  CoFrame fin, fout;
  GstFlowReturn ret;

  if (!gst_video_frame_map (&in, &self->in_info, inbuf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map input frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_video_frame_map (&out, &self->out_info, outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map output frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  frame_from_video (&in, self->in_format, &fin);
  frame_from_video (&out, self->out_format, &fout);
  ret = klass->process (self, &fin, &fout);
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  return ret;
}

#ifdef HAVE_CUDA
/* Lays out a device staging frame for @format, one allocation, rows aligned
 * to 256 bytes as cudaMallocPitch would. */
static gboolean
ensure_stage (GstCoBaseFilter * self, int side, CoFormat format, int w, int h)
{
  GstCoBaseFilterPrivate *priv = self->priv;
  CoFrame *f = &priv->stage[side];
  gsize offsets[CO_MAX_PLANES], total = 0;
  int i;

  for (i = 0; i < co_format_n_planes (format); i++) {
    int pw, ph;
    co_plane_size (w, h, co_format_plane_shift (format, i), &pw, &ph);
    f->pitch[i] = GST_ROUND_UP_N (pw * co_pix_bpp (co_format_plane_kind
            (format, i)), 256);
    offsets[i] = total;
    total += GST_ROUND_UP_N ((gsize) f->pitch[i] * ph, 256);
  }
  if (!gst_co_base_filter_ensure (self, &priv->stage_mem[side],
          &priv->stage_size[side], total))
    return FALSE;
  for (i = 0; i < co_format_n_planes (format); i++)
    f->data[i] = (uint8_t *) priv->stage_mem[side] + offsets[i];
  f->width = w;
  f->height = h;
  f->format = format;
  return TRUE;
}

static gboolean
copy_planes (GstCoBaseFilter * self, const CoFrame * dst, const CoFrame * src,
    enum cudaMemcpyKind kind)
{
  int i;

  for (i = 0; i < co_format_n_planes (src->format); i++) {
    int pw, ph;
    co_plane_size (src->width, src->height,
        co_format_plane_shift (src->format, i), &pw, &ph);
    if (!GST_CO_CUDA_OK (self, cudaMemcpy2DAsync (dst->data[i],
                dst->pitch[i], src->data[i], src->pitch[i],
                (size_t) pw * co_pix_bpp (co_format_plane_kind (src->format,
                        i)), ph, kind, (cudaStream_t) self->stream)))
      return FALSE;
  }
  return TRUE;
}

static gboolean
side_failed (GstCoBaseFilter * self, int side, const gchar * what)
{
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not %s the %s frame for "
          "CUDA", what, side ? "output" : "input"), (NULL));
  return FALSE;
}

/* Maps one side and gives the frame the kernels will use; every failure
 * has posted its element error. */
static gboolean
map_side (GstCoBaseFilter * self, int side, GstBuffer * buf,
    GstVideoInfo * info, CoFormat format, GstVideoFrame * vf, CoFrame * dev,
    SideKind * kind)
{
  GstMapFlags flags = side ? GST_MAP_WRITE : GST_MAP_READ;
  GstMemory *mem = gst_buffer_n_memory (buf) == 1 ?
      gst_buffer_peek_memory (buf, 0) : NULL;
  CoFrame host;
  int i;

#ifdef HAVE_GST_CUDA
  if (mem && gst_is_cuda_memory (mem)) {
    if (GST_CUDA_MEMORY_CAST (mem)->context == self->priv->cuda_context) {
      if (!side)
        gst_co_cuda_memory_sync (mem);
      if (!gst_video_frame_map (vf, info, buf, flags | GST_MAP_CUDA))
        return side_failed (self, side, "map");
      frame_from_video (vf, format, dev);
      *kind = SIDE_CUDA;
      return TRUE;
    }
    if (!self->priv->warned_context) {
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("CUDA memory from another CUDA context: frames go through host "
              "memory (slow)"), ("share one context, or one device-id"));
      self->priv->warned_context = TRUE;
    }
  }
#endif
  if (!gst_video_frame_map (vf, info, buf, flags))
    return side_failed (self, side, "map");
  frame_from_video (vf, format, &host);
  if (mem && gst_co_host_memory_device_ptr (mem, host.data[0])) {
    *dev = host;
    for (i = 0; i < co_format_n_planes (format); i++)
      dev->data[i] = gst_co_host_memory_device_ptr (mem, host.data[i]);
    *kind = SIDE_MAPPED;
    return TRUE;
  }
  *kind = SIDE_STAGED;
  /* an allocation failure has posted its own error */
  if (ensure_stage (self, side, format, host.width, host.height)) {
    *dev = self->priv->stage[side];
    if (side || copy_planes (self, dev, &host, cudaMemcpyHostToDevice))
      return TRUE;
    side_failed (self, side, "upload");
  }
  gst_video_frame_unmap (vf);
  return FALSE;
}

static GstFlowReturn
transform_cuda (GstCoBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstVideoFrame in, out;
  CoFrame din, dout, hout;
  SideKind kin, kout;
  GstFlowReturn ret = GST_FLOW_ERROR;
  gboolean in_mapped = FALSE, out_mapped = FALSE;
  cudaError_t err;

  if (!gst_co_device_push (self->device)) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Could not make the CUDA context current"), (NULL));
    return GST_FLOW_ERROR;
  }
  in_mapped = map_side (self, 0, inbuf, &self->in_info, self->in_format, &in,
      &din, &kin);
  if (in_mapped)
    out_mapped = map_side (self, 1, outbuf, &self->out_info,
        self->out_format, &out, &dout, &kout);
  if (!in_mapped || !out_mapped) {
    ret = GST_FLOW_ERROR;
    goto done;
  }
  GST_LOG_OBJECT (self, "in %d out %d", kin, kout);
  ret = klass->process (self, &din, &dout);
  if (ret == GST_FLOW_OK && kout == SIDE_STAGED) {
    frame_from_video (&out, self->out_format, &hout);
    if (!copy_planes (self, &hout, &dout, cudaMemcpyDeviceToHost))
      ret = GST_FLOW_ERROR;
  }

done:
  /* 1.22's GstCudaMemory has no stream of its own: the frame must be
   * complete before it leaves, and on an error path no copy may still read
   * a buffer that goes back to its pool */
  err = cudaStreamSynchronize ((cudaStream_t) self->stream);
  if (err != cudaSuccess && ret != GST_FLOW_ERROR) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("CUDA error while processing "
            "a frame: %s", cudaGetErrorString (err)), ("%s",
            cudaGetErrorName (err)));
    ret = GST_FLOW_ERROR;
  } else if (ret != GST_FLOW_OK && ret != GST_BASE_TRANSFORM_FLOW_DROPPED) {
    GST_DEBUG_OBJECT (self, "process returned %s", gst_flow_get_name (ret));
  }
  if (out_mapped)
    gst_video_frame_unmap (&out);
  if (in_mapped)
    gst_video_frame_unmap (&in);
  gst_co_device_pop (self->device);
  return ret;
}
#endif

static GstFlowReturn
gst_co_base_filter_transform (GstBaseTransform * bt, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);

#ifdef HAVE_CUDA
  if (self->device)
    return transform_cuda (self, inbuf, outbuf);
#endif
  return transform_cpu (self, inbuf, outbuf);
}

/* ---- GObject ---- */

static void
gst_co_base_filter_class_init (GstCoBaseFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *bt_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_co_base_filter_set_property;
  gobject_class->get_property = gst_co_base_filter_get_property;
  gobject_class->dispose = gst_co_base_filter_dispose;

  /**
   * GstCoBaseFilter:backend:
   *
   * Where frames are processed.  `auto` takes CUDA when a device is usable
   * and otherwise the CPU reference (with one element warning); `cuda`
   * fails to start without a device.  Both give the same pixels.
   */
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Processing backend: auto (CUDA if usable, else CPU), cuda or cpu",
          GST_TYPE_CO_BACKEND, DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "CUDA device to use (-1 = the pipeline's shared context, else "
          "device 0)", -1, G_MAXINT16, DEFAULT_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_ACTIVE_BACKEND,
      g_param_spec_enum ("active-backend", "Active backend",
          "The backend in use once started (cuda or cpu)",
          GST_TYPE_CO_BACKEND, GST_CO_BACKEND_CPU,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_co_base_filter_set_context);

  bt_class->passthrough_on_same_caps = FALSE;
  bt_class->start = GST_DEBUG_FUNCPTR (gst_co_base_filter_start);
  bt_class->stop = GST_DEBUG_FUNCPTR (gst_co_base_filter_stop);
  bt_class->query = GST_DEBUG_FUNCPTR (gst_co_base_filter_query);
  bt_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_co_base_filter_transform_caps);
  bt_class->set_caps = GST_DEBUG_FUNCPTR (gst_co_base_filter_set_caps);
  bt_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_co_base_filter_propose_allocation);
  bt_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_co_base_filter_decide_allocation);
  bt_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_co_base_filter_transform_meta);
  bt_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_co_base_filter_before_transform);
  bt_class->transform = GST_DEBUG_FUNCPTR (gst_co_base_filter_transform);

  gst_type_mark_as_plugin_api (GST_TYPE_CO_BASE_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CO_BACKEND, 0);
}

static void
gst_co_base_filter_init (GstCoBaseFilter * self)
{
  self->priv = gst_co_base_filter_get_instance_private (self);
  self->priv->backend = DEFAULT_BACKEND;
  self->priv->device_id = DEFAULT_DEVICE_ID;
  self->active_backend = GST_CO_BACKEND_CPU;
  /* late frames are dropped, as GstVideoFilter does */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}
