/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoEngine (gstcoengine.h): backend, device, context, stream, memory
 * and CUDA errors of one element, for the family's base classes.
 */
#include "gstcocompat.h"
#include "gstcoengine-private.h"
#include "gstconvmm.h"
#include "gstcohostmemory.h"

#include <string.h>

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

GST_DEBUG_CATEGORY (gst_co_engine_debug);
#define GST_CAT_DEFAULT gst_co_engine_debug

#define DEFAULT_BACKEND GST_CO_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1

GST_CO_ENUM_TYPE (gst_co_backend_get_type, "GstCoBackend",
    {GST_CO_BACKEND_AUTO, "CUDA when a device is usable, else the CPU",
        "auto"},
    {GST_CO_BACKEND_CUDA, "CUDA (fail when no device is usable)", "cuda"},
    {GST_CO_BACKEND_CPU, "CPU reference implementation", "cpu"})

/* ---- properties ---- */

/* A row read by start (GST_PARAM_MUTABLE_READY): no rebuild, no file */
static GstCoSetting
engine_row (GParamSpec * pspec, gssize offset)
{
  GstCoSetting row = { pspec, offset, GST_CO_SETTING_FRAME, -1 };

  return row;
}

void
gst_co_engine_settings (GstCoSetting * rows, gssize engine_offset)
{
  /**
   * GstCoBaseFilter:backend:
   *
   * Where frames are processed.  `auto` takes CUDA when a device is usable
   * and otherwise the CPU reference (with one element warning); `cuda`
   * fails to start without a device.  Both give the same results.
   */
  rows[0] = engine_row (g_param_spec_enum ("backend", "Backend",
          "Processing backend: auto (CUDA if usable, else CPU), cuda or cpu",
          GST_TYPE_CO_BACKEND, DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY),
      engine_offset + G_STRUCT_OFFSET (GstCoEngine, backend));
  /**
   * GstCoBaseFilter:device-id:
   *
   * -1 shares the pipeline's CUDA context (and takes the context of
   * incoming CUDA memory, whatever its device); a device number pins the
   * element to that device, frames from another crossing the host.
   */
  rows[1] = engine_row (g_param_spec_int ("device-id", "Device ID",
          "CUDA device to use (-1 = the pipeline's shared context, else "
          "device 0)", -1, G_MAXINT16, DEFAULT_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY),
      engine_offset + G_STRUCT_OFFSET (GstCoEngine, device_id));
  /**
   * GstCoBaseFilter:active-backend:
   *
   * The backend the element chose when it started, `cuda` or `cpu`; `auto`
   * while it has not chosen (before it first starts, or when a start
   * failed), so that a read before PLAYING never passes for the CPU.
   */
  /* read-only: start writes it (under the object lock) */
  rows[2] = engine_row (g_param_spec_enum ("active-backend",
          "Active backend", "The backend the element chose when it "
          "started: cuda or cpu (auto until it has chosen)",
          GST_TYPE_CO_BACKEND, GST_CO_BACKEND_AUTO,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS),
      engine_offset + G_STRUCT_OFFSET (GstCoEngine, active_backend));
  /**
   * GstCoBaseFilter:nvmm-memory-type:
   *
   * The memory of the surfaces the element writes when its source pad
   * carries memory:NVMM (NVIDIA's libnvbufsurface present).  `default`
   * lets the library choose the platform's: CUDA device memory on dGPU
   * (what nvv4l2h264enc and DeepStream take there), surface arrays on
   * Jetson; on the CPU backend it is CUDA unified memory, which the CPU
   * can write.
   */
  rows[3] = engine_row (g_param_spec_enum ("nvmm-memory-type",
          "NVMM memory type", "Memory of the memory:NVMM surfaces written "
          "(default: the platform's, CUDA device memory on dGPU; unified on the "
          "CPU backend)",
          GST_TYPE_CO_NVMM_MEM_TYPE, CO_NVBUF_MEM_DEFAULT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY),
      engine_offset + G_STRUCT_OFFSET (GstCoEngine, nvmm_mem_type));
  /**
   * GstCoBaseFilter:host-copies:
   *
   * How many frames (one picture each way) the element has copied between
   * host and device memory since it was made: 0 on the CPU backend and in
   * a chain whose memory stays on the device (memory:CUDAMemory, device
   * or unified memory:NVMM surfaces, surface arrays through EGL).  Read it
   * to see that a pipeline keeps its frames on the GPU.
   */
  rows[4] = engine_row (g_param_spec_uint64 ("host-copies", "Host copies",
          "Frames copied between host and device memory so far (0: the "
          "frames stay where the backend works)", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS),
      engine_offset + G_STRUCT_OFFSET (GstCoEngine, host_copies));
}

void
gst_co_engine_init (GstCoEngine * e, GstElement * element)
{
  static gsize cat = 0;

  if (g_once_init_enter (&cat)) {
    GST_DEBUG_CATEGORY_INIT (gst_co_engine_debug, "coengine", 0,
        "cudaoptics device layer");
    g_once_init_leave (&cat, 1);
  }
  memset (e, 0, sizeof (*e));
  e->element = element;
  e->backend = DEFAULT_BACKEND;
  e->device_id = DEFAULT_DEVICE_ID;
  e->active_backend = GST_CO_BACKEND_AUTO;
}

void
gst_co_engine_clear (GstCoEngine * e)
{
  gst_co_engine_drop_context (e);
  g_clear_pointer (&e->fault_step, g_free);
}

/* ---- test-only fault injection ----
 *
 * CO_FAULT_INJECT="STEP:N" makes the N-th (1-based, default 1) occurrence of
 * STEP in each element started while it is set fail as if the GPU had
 * failed: STEP is "alloc" (the engine's allocations, as an out-of-memory
 * cudaMalloc or malloc), "creating a CUDA event" (when the CUDA backend
 * starts) or the @what of a gst_co_engine_cuda_ok check (e.g. "building
 * the LUT", "remapping").  Read when an element starts, so a test can arm
 * it for one pipeline; inert (one NULL check) when unset. */

static void
fault_arm (GstCoEngine * e)
{
  const gchar *spec = g_getenv ("CO_FAULT_INJECT");
  const gchar *colon;

  g_clear_pointer (&e->fault_step, g_free);
  e->fault_nth = e->fault_seen = 0;
  if (!spec || !*spec)
    return;
  colon = strrchr (spec, ':');
  if (colon && colon[1] && strspn (colon + 1, "0123456789") ==
      strlen (colon + 1)) {
    e->fault_step = g_strndup (spec, colon - spec);
    e->fault_nth = (gint) CLAMP (g_ascii_strtoull (colon + 1, NULL, 10),
        1, G_MAXINT);
  } else {
    e->fault_step = g_strdup (spec);
    e->fault_nth = 1;
  }
  GST_WARNING_OBJECT (e->element, "fault injection armed: occurrence %d of "
      "\"%s\" will fail", e->fault_nth, e->fault_step);
}

/* TRUE when this occurrence of @step is the one to fail. */
static gboolean
fault_hit (GstCoEngine * e, const gchar * step)
{
  if (G_LIKELY (e->fault_step == NULL) || g_strcmp0 (step,
          e->fault_step) != 0)
    return FALSE;
  if (++e->fault_seen != e->fault_nth)
    return FALSE;
  GST_WARNING_OBJECT (e->element, "injecting a failure of \"%s\"", step);
  return TRUE;
}

/* ---- start ---- */

gboolean
gst_co_engine_start (GstCoEngine * e, gboolean host_only)
{
  GstCoBackend backend, chosen = GST_CO_BACKEND_CPU;
  gint device_id;
  gchar *why = NULL;

  /* undecided until this start has chosen: a start that fails chose
   * nothing, whatever the last one did */
  GST_OBJECT_LOCK (e->element);
  backend = e->backend;
  device_id = e->device_id;
  e->active_backend = GST_CO_BACKEND_AUTO;
  GST_OBJECT_UNLOCK (e->element);
  fault_arm (e);
  e->unusable = FALSE;
  e->always_sync = g_getenv ("CO_SYNC_EVERY_FRAME") != NULL;

  if (host_only) {
    if (backend == GST_CO_BACKEND_CUDA) {
      GST_ELEMENT_ERROR (e->element, CORE, NOT_IMPLEMENTED,
          ("backend=cuda was requested but %s has no CUDA path yet: use "
              "backend=cpu or auto", G_OBJECT_TYPE_NAME (e->element)),
          (NULL));
      return FALSE;
    }
    backend = GST_CO_BACKEND_CPU;
  }
  if (backend != GST_CO_BACKEND_CPU) {
    if (gst_co_engine_open (e, device_id, &why)) {
      chosen = GST_CO_BACKEND_CUDA;
      GST_INFO_OBJECT (e->element, "CUDA backend on device %d (%s)",
          e->device->device_id, GST_STR_NULL (e->device->name));
    } else if (backend == GST_CO_BACKEND_CUDA) {
      GST_ELEMENT_ERROR (e->element, RESOURCE, NOT_FOUND,
          ("backend=cuda was requested but no CUDA device is usable: %s",
              why), (NULL));
      g_free (why);
      gst_co_engine_drop_context (e);
      return FALSE;
    } else {
      GST_ELEMENT_WARNING (e->element, RESOURCE, NOT_FOUND,
          ("No usable CUDA device (%s): using the CPU backend", why), (NULL));
      gst_co_engine_drop_context (e);
    }
    g_free (why);
  }
  GST_OBJECT_LOCK (e->element);
  e->active_backend = chosen;
  GST_OBJECT_UNLOCK (e->element);
  g_object_notify (G_OBJECT (e->element), "active-backend");
  return TRUE;
}

/* ---- memory ---- */

gboolean
gst_co_engine_cuda_ok (GstCoEngine * e, int err, const gchar * what)
{
  gboolean injected = err == 0 && fault_hit (e, what);

  if (G_LIKELY (err == 0 && !injected))
    return TRUE;
  if (injected)
    err = 999;                  /* cudaErrorUnknown */
  GST_ELEMENT_ERROR (e->element, LIBRARY, FAILED, ("CUDA error in %s: %s",
          what, gst_co_cuda_error_text (err)), ("status %d%s", err,
          injected ? " (injected by CO_FAULT_INJECT)" : ""));
  return FALSE;
}

/* Device memory, or pinned host memory (@pinned) on the CUDA backend; host
 * memory on the CPU backend either way. */
static gpointer
alloc_mem (GstCoEngine * e, gsize size, gboolean pinned)
{
  gpointer mem = NULL;
  gboolean injected = fault_hit (e, "alloc");

  if (!e->device) {
    mem = injected ? NULL : g_try_malloc0 (size);
    if (!mem)
      GST_ELEMENT_ERROR (e->element, RESOURCE, NO_SPACE_LEFT,
          ("Out of memory (%" G_GSIZE_FORMAT " bytes)", size), (NULL));
    return mem;
  }
#ifdef HAVE_CUDA
  if (gst_co_device_push (e->device)) {
    cudaError_t err = injected ? cudaErrorMemoryAllocation : pinned ?
        cudaHostAlloc (&mem, size, cudaHostAllocDefault) :
        cudaMalloc (&mem, size);
    gst_co_device_pop (e->device);
    if (err != cudaSuccess) {
      mem = NULL;
      cudaGetLastError ();
      GST_ELEMENT_ERROR (e->element, RESOURCE, NO_SPACE_LEFT,
          ("Out of %s memory: %" G_GSIZE_FORMAT " bytes could not be "
              "allocated for CUDA device %d", pinned ? "pinned host" : "GPU",
              size, e->device->device_id), ("%s: %s", pinned ?
              "cudaHostAlloc" : "cudaMalloc", cudaGetErrorString (err)));
    } else if (pinned) {
      memset (mem, 0, size);
    }
  } else {
    GST_ELEMENT_ERROR (e->element, LIBRARY, FAILED,
        ("Could not make the CUDA context current"), (NULL));
  }
#endif
  return mem;
}

static void
free_mem (GstCoEngine * e, gpointer mem, gboolean pinned)
{
  if (!mem)
    return;
  if (!e->device) {
    g_free (mem);
    return;
  }
#ifdef HAVE_CUDA
  if (gst_co_device_push (e->device)) {
    GST_CO_CUDA_OK (e->element, pinned ? cudaFreeHost (mem) : cudaFree (mem));
    gst_co_device_pop (e->device);
  }
#endif
}

gpointer
gst_co_engine_alloc (GstCoEngine * e, gsize size)
{
  return alloc_mem (e, size, FALSE);
}

void
gst_co_engine_free (GstCoEngine * e, gpointer mem)
{
  free_mem (e, mem, FALSE);
}

gpointer
gst_co_engine_alloc_host (GstCoEngine * e, gsize size)
{
  return alloc_mem (e, size, TRUE);
}

void
gst_co_engine_free_host (GstCoEngine * e, gpointer mem)
{
  free_mem (e, mem, TRUE);
}

GstMemory *
gst_co_engine_alloc_results (GstCoEngine * e, gsize size)
{
  GstMemory *mem = NULL;

  if (!fault_hit (e, "alloc"))
    mem = gst_allocator_alloc (e->device ? e->host_alloc : NULL, size, NULL);
  if (!mem)
    GST_ELEMENT_ERROR (e->element, RESOURCE, NO_SPACE_LEFT,
        ("Out of %s memory: %" G_GSIZE_FORMAT " bytes of results could not "
            "be allocated", e->device ? "pinned host" : "host", size),
        (NULL));
  return mem;
}

gboolean
gst_co_engine_ensure (GstCoEngine * e, gpointer * mem, gsize * cur_size,
    gsize size)
{
  if (*mem && *cur_size >= size)
    return TRUE;
  gst_co_engine_free (e, *mem);
  *cur_size = 0;
  *mem = gst_co_engine_alloc (e, size);
  if (!*mem)
    return FALSE;
  *cur_size = size;
  return TRUE;
}

/* Asynchronous on the stream with the CUDA backend: a host source must
 * stay untouched until the frame's synchronisation (pinned or not), and a
 * host destination (gst_co_engine_alloc_host) is complete after it.  A
 * plain copy on the CPU backend. */
static gboolean
copy_mem (GstCoEngine * e, gpointer dst, gconstpointer src, gsize size,
    gboolean to_device, const gchar * what)
{
  if (size == 0)
    return TRUE;
  if (!e->device) {
    memcpy (dst, src, size);
    return TRUE;
  }
#ifdef HAVE_CUDA
  return gst_co_engine_cuda_ok (e, (int) cudaMemcpyAsync (dst, src, size,
          to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
          (cudaStream_t) e->stream), what);
#else
  return FALSE;
#endif
}

gboolean
gst_co_engine_upload (GstCoEngine * e, gpointer dst, gconstpointer src,
    gsize size, const gchar * what)
{
  return copy_mem (e, dst, src, size, TRUE, what);
}

gboolean
gst_co_engine_download (GstCoEngine * e, gpointer dst, gconstpointer src,
    gsize size, const gchar * what)
{
  /* results are read after the frame's one synchronisation */
  e->downloaded = TRUE;
  return copy_mem (e, dst, src, size, FALSE, what);
}

gboolean
gst_co_engine_sync (GstCoEngine * e, const gchar * what)
{
  if (!e->device)
    return TRUE;
#ifdef HAVE_CUDA
  if (e->copying && !gst_co_engine_cuda_ok (e,
          (int) cudaStreamSynchronize ((cudaStream_t) e->copy_stream), what))
    return FALSE;
  e->copying = FALSE;
  return gst_co_engine_cuda_ok (e,
      (int) cudaStreamSynchronize ((cudaStream_t) e->stream), what);
#else
  return FALSE;
#endif
}

/* ---- context sharing ---- */

void
gst_co_engine_set_context (GstCoEngine * e, GstContext * context)
{
#ifdef HAVE_GST_CUDA
  if (gst_cuda_load_library ()) {
    GST_OBJECT_LOCK (e->element);
    gst_cuda_handle_set_context (e->element, context, e->device_id,
        (GstCudaContext **) & e->cuda_context);
    GST_OBJECT_UNLOCK (e->element);
  }
#endif
}

gboolean
gst_co_engine_query_context (GstCoEngine * e, GstQuery * query)
{
  gboolean ret = FALSE;
#ifdef HAVE_GST_CUDA
  GstCudaContext *ctx = NULL;

  GST_OBJECT_LOCK (e->element);
  if (e->cuda_context)
    ctx = gst_object_ref (e->cuda_context);
  GST_OBJECT_UNLOCK (e->element);
  if (ctx) {
    ret = gst_cuda_handle_context_query (e->element, query, ctx);
    gst_object_unref (ctx);
  }
#endif
  return ret;
}

/* A CPU element must not answer its neighbours' context queries. */
void
gst_co_engine_drop_context (GstCoEngine * e)
{
#ifdef HAVE_GST_CUDA
  GST_OBJECT_LOCK (e->element);
  gst_clear_object ((GstCudaContext **) & e->cuda_context);
  GST_OBJECT_UNLOCK (e->element);
#endif
}

void
gst_co_engine_replace_context (GstCoEngine * e, gpointer ctx)
{
  GST_OBJECT_LOCK (e->element);
  gst_object_replace ((GstObject **) & e->cuda_context, GST_OBJECT (ctx));
  GST_OBJECT_UNLOCK (e->element);
}

gpointer
gst_co_engine_foreign_context (GstCoEngine * e, GstBuffer * buf,
    gint * dev_id)
{
#ifdef HAVE_GST_CUDA
  GstCudaContext *ctx;
  GstMemory *mem;
  gint want;

  if (!e->device || gst_buffer_n_memory (buf) < 1)
    return NULL;
  mem = gst_buffer_peek_memory (buf, 0);
  if (!gst_is_cuda_memory (mem) ||
      GST_CUDA_MEMORY_CAST (mem)->context == e->cuda_context)
    return NULL;
  ctx = GST_CUDA_MEMORY_CAST (mem)->context;
  *dev_id = -1;
  g_object_get (ctx, "cuda-device-id", dev_id, NULL);
  GST_OBJECT_LOCK (e->element);
  want = e->device_id;
  GST_OBJECT_UNLOCK (e->element);
  /* another device than the one asked for: mapping warns and crosses the
   * host */
  if (want >= 0 && want != *dev_id)
    return NULL;
  return gst_object_ref (ctx);
#else
  (void) e;
  (void) buf;
  (void) dev_id;
  return NULL;
#endif
}

gboolean
gst_co_engine_adopt (GstCoEngine * e, gpointer ctx, gint dev_id)
{
  gchar *why = NULL;

  gst_co_engine_replace_context (e, ctx);
  /* (tests: CO_FAULT_INJECT="adopting a context:1" fails it here, with
   * the old context already given up, as a real failure would) */
  if (!gst_co_engine_cuda_ok (e, 0, "adopting a context")) {
    e->unusable = TRUE;
    return FALSE;
  }
  if (!gst_co_engine_open (e, dev_id, &why)) {
    GST_ELEMENT_ERROR (e->element, RESOURCE, FAILED, ("Could not work on the "
            "CUDA context of the incoming frames: %s", why), (NULL));
    g_free (why);
    e->unusable = TRUE;
    return FALSE;
  }
  return TRUE;
}

/* ---- the device ---- */

gboolean
gst_co_engine_open (GstCoEngine * e, gint device_id, gchar ** why)
{
  if (!gst_co_cuda_probe (device_id, why))
    return FALSE;
#ifdef HAVE_GST_CUDA
  if (!gst_cuda_load_library ()) {
    *why = g_strdup ("GStreamer's CUDA library could not load libcuda");
    return FALSE;
  }
  gst_cuda_memory_init_once ();
  if (!gst_cuda_ensure_element_context (e->element, device_id,
          (GstCudaContext **) & e->cuda_context)) {
    *why = g_strdup_printf ("no CUDA context could be shared or created for "
        "device %d", device_id);
    return FALSE;
  }
#endif
  e->device = gst_co_device_new (device_id, e->cuda_context);
#ifdef HAVE_CUDA
  if (gst_co_device_push (e->device)) {
    cudaStream_t s = NULL;
    cudaEvent_t ev = NULL;
    cudaError_t err = cudaSuccess;
    const gchar *what = "creating a CUDA stream";
    gboolean own_stream = FALSE;
#ifdef CO_CUDA_STREAMS
    /* a GstCudaStream, so that memory of our pools carries it and
     * neighbours order their work after ours without a host wait */
    e->gst_stream = gst_cuda_stream_new (e->cuda_context);
    if (e->gst_stream)
      s = (cudaStream_t) gst_cuda_stream_get_handle (e->gst_stream);
    else
#endif
    {
      err = cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
      own_stream = err == cudaSuccess;
    }
    if (err == cudaSuccess) {
      what = "creating a CUDA event";
      err = fault_hit (e, what) ? cudaErrorUnknown :
          cudaEventCreateWithFlags (&ev, cudaEventDisableTiming);
    }
    /* a GstCudaStream's handle is its own: cleared below */
    if (err != cudaSuccess && own_stream)
      cudaStreamDestroy (s);
    if (err == cudaSuccess) {
      e->stream = s;
      e->event = ev;
      co_engine_start_waits (e);
    }
    gst_co_device_pop (e->device);
    if (err == cudaSuccess) {
      e->host_alloc = gst_co_host_allocator_new (e->device);
      return TRUE;
    }
#ifdef CO_CUDA_STREAMS
    gst_clear_cuda_stream ((GstCudaStream **) & e->gst_stream);
#endif
    *why = g_strdup_printf ("%s: %s", what, cudaGetErrorString (err));
  } else {
    *why = g_strdup ("the CUDA context could not be made current");
  }
#endif
  gst_clear_object (&e->device);
  return FALSE;
}

void
gst_co_engine_close (GstCoEngine * e, void (*release) (gpointer data),
    gpointer data)
{
  /* the held inputs go back to their pools before anything is freed */
  if (e->device && gst_co_device_push (e->device)) {
    co_engine_free_waits (e);
    gst_co_device_pop (e->device);
  }
  if (release) {
    if (e->device && gst_co_device_push (e->device)) {
      release (data);
      gst_co_device_pop (e->device);
    } else {
      release (data);
    }
  }
#ifdef HAVE_CUDA
  if (e->stream && gst_co_device_push (e->device)) {
    if (e->event)
      GST_CO_CUDA_OK (e->element, cudaEventDestroy ((cudaEvent_t) e->event));
    if (!e->gst_stream)
      GST_CO_CUDA_OK (e->element,
          cudaStreamDestroy ((cudaStream_t) e->stream));
    gst_co_device_pop (e->device);
  }
#endif
#ifdef CO_CUDA_STREAMS
  gst_clear_cuda_stream ((GstCudaStream **) & e->gst_stream);
#endif
  e->event = NULL;
  e->stream = NULL;
  gst_clear_object (&e->host_alloc);
  gst_clear_object (&e->device);
}
