/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter, device: the CUDA device and the GstCudaContext shared
 * with the pipeline (set, queried, adopted from incoming frames), the
 * element's stream, memory for subclasses, CUDA errors as element errors,
 * and the test-only fault injection that proves those error paths.
 */
#include "gstcobasefilter-private.h"

#include <string.h>

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define GST_CAT_DEFAULT gst_co_base_filter_debug

/* ---- test-only fault injection ----
 *
 * CO_FAULT_INJECT="STEP:N" makes the N-th (1-based, default 1) occurrence of
 * STEP in each element started while it is set fail as if the GPU had
 * failed: STEP is "alloc" (gst_co_base_filter_alloc and _alloc_host, as an
 * out-of-memory cudaMalloc or malloc) or the @what of a
 * gst_co_base_filter_cuda_ok check (e.g. "building the LUT", "remapping").
 * Read when an element starts, so a test can arm it for one pipeline; inert
 * (one NULL check) when unset. */

void
co_fault_arm (GstCoBaseFilter * self)
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

/* Device memory, or pinned host memory (@pinned) on the CUDA backend; host
 * memory on the CPU backend either way. */
static gpointer
alloc_mem (GstCoBaseFilter * self, gsize size, gboolean pinned)
{
  gpointer mem = NULL;
  gboolean injected = fault_hit (self, "alloc");

  if (!self->device) {
    mem = injected ? NULL : g_try_malloc0 (size);
    if (!mem)
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Out of memory (%" G_GSIZE_FORMAT " bytes)", size), (NULL));
    return mem;
  }
#ifdef HAVE_CUDA
  if (gst_co_device_push (self->device)) {
    cudaError_t err = injected ? cudaErrorMemoryAllocation : pinned ?
        cudaHostAlloc (&mem, size, cudaHostAllocDefault) :
        cudaMalloc (&mem, size);
    gst_co_device_pop (self->device);
    if (err != cudaSuccess) {
      mem = NULL;
      cudaGetLastError ();
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Out of %s memory: %" G_GSIZE_FORMAT " bytes could not be "
              "allocated for CUDA device %d", pinned ? "pinned host" : "GPU",
              size, self->device->device_id), ("%s: %s", pinned ?
              "cudaHostAlloc" : "cudaMalloc", cudaGetErrorString (err)));
    } else if (pinned) {
      memset (mem, 0, size);
    }
  } else {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Could not make the CUDA context current"), (NULL));
  }
#endif
  return mem;
}

static void
free_mem (GstCoBaseFilter * self, gpointer mem, gboolean pinned)
{
  if (!mem)
    return;
  if (!self->device) {
    g_free (mem);
    return;
  }
#ifdef HAVE_CUDA
  if (gst_co_device_push (self->device)) {
    GST_CO_CUDA_OK (self, pinned ? cudaFreeHost (mem) : cudaFree (mem));
    gst_co_device_pop (self->device);
  }
#endif
}

gpointer
gst_co_base_filter_alloc (GstCoBaseFilter * self, gsize size)
{
  return alloc_mem (self, size, FALSE);
}

void
gst_co_base_filter_free (GstCoBaseFilter * self, gpointer mem)
{
  free_mem (self, mem, FALSE);
}

gpointer
gst_co_base_filter_alloc_host (GstCoBaseFilter * self, gsize size)
{
  return alloc_mem (self, size, TRUE);
}

GstMemory *
gst_co_base_filter_alloc_results (GstCoBaseFilter * self, gsize size)
{
  GstMemory *mem = NULL;

  if (!fault_hit (self, "alloc"))
    mem = gst_allocator_alloc (self->device ? self->priv->host_alloc : NULL,
        size, NULL);
  if (!mem)
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of %s memory: %" G_GSIZE_FORMAT " bytes of results could not "
            "be allocated", self->device ? "pinned host" : "host", size),
        (NULL));
  return mem;
}

void
gst_co_base_filter_free_host (GstCoBaseFilter * self, gpointer mem)
{
  free_mem (self, mem, TRUE);
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

/* Asynchronous on self->stream with the CUDA backend: a host source must
 * stay untouched until the frame's synchronisation (pinned or not), and a
 * host destination (gst_co_base_filter_alloc_host) is complete when finish
 * runs.  A plain copy on the CPU backend. */
static gboolean
copy_mem (GstCoBaseFilter * self, gpointer dst, gconstpointer src, gsize size,
    gboolean to_device, const gchar * what)
{
  if (size == 0)
    return TRUE;
  if (!self->device) {
    memcpy (dst, src, size);
    return TRUE;
  }
#ifdef HAVE_CUDA
  return gst_co_base_filter_cuda_ok (self, (int) cudaMemcpyAsync (dst, src,
          size, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
          (cudaStream_t) self->stream), what);
#else
  return FALSE;
#endif
}

gboolean
gst_co_base_filter_upload (GstCoBaseFilter * self, gpointer dst,
    gconstpointer src, gsize size, const gchar * what)
{
  return copy_mem (self, dst, src, size, TRUE, what);
}

gboolean
gst_co_base_filter_download (GstCoBaseFilter * self, gpointer dst,
    gconstpointer src, gsize size, const gchar * what)
{
  /* finish reads it: the frame's one synchronisation comes before */
  self->priv->downloaded = TRUE;
  return copy_mem (self, dst, src, size, FALSE, what);
}

gboolean
gst_co_base_filter_sync (GstCoBaseFilter * self, const gchar * what)
{
  if (!self->device)
    return TRUE;
#ifdef HAVE_CUDA
  return gst_co_base_filter_cuda_ok (self,
      (int) cudaStreamSynchronize ((cudaStream_t) self->stream), what);
#else
  return FALSE;
#endif
}

gboolean
gst_co_base_filter_on_cuda (GstCoBaseFilter * self)
{
  return self->device != NULL;
}

void
gst_co_base_filter_mark_dirty (GstCoBaseFilter * self)
{
  self->priv->dirty = TRUE;
}

/* ---- context sharing ---- */

void
co_set_context (GstElement * element, GstContext * context)
{
#ifdef HAVE_GST_CUDA
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (element);

  if (gst_cuda_load_library ()) {
    GST_OBJECT_LOCK (self);
    gst_cuda_handle_set_context (element, context, self->priv->device_id,
        (GstCudaContext **) & self->priv->cuda_context);
    GST_OBJECT_UNLOCK (self);
  }
#endif
}

gboolean
co_query_context (GstCoBaseFilter * self, GstQuery * query)
{
  gboolean ret = FALSE;
#ifdef HAVE_GST_CUDA
  GstCudaContext *ctx = NULL;

  GST_OBJECT_LOCK (self);
  if (self->priv->cuda_context)
    ctx = gst_object_ref (self->priv->cuda_context);
  GST_OBJECT_UNLOCK (self);
  if (ctx) {
    ret = gst_cuda_handle_context_query (GST_ELEMENT (self), query, ctx);
    gst_object_unref (ctx);
  }
#endif
  return ret;
}

/* A CPU element must not answer its neighbours' context queries. */
void
co_drop_context (GstCoBaseFilter * self)
{
#ifdef HAVE_GST_CUDA
  GST_OBJECT_LOCK (self);
  gst_clear_object ((GstCudaContext **) & self->priv->cuda_context);
  GST_OBJECT_UNLOCK (self);
#endif
}

/* ---- the device ---- */

/* Device, context (shared, or made) and stream; the host allocator. */
gboolean
co_open_device (GstCoBaseFilter * self, gint device_id, gchar ** why)
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
    cudaEvent_t ev = NULL;
    cudaError_t err = cudaSuccess;
#ifdef CO_CUDA_STREAMS
    /* a GstCudaStream, so that memory of our pools carries it and
     * neighbours order their work after ours without a host wait */
    priv->gst_stream = gst_cuda_stream_new (priv->cuda_context);
    if (priv->gst_stream)
      s = (cudaStream_t) gst_cuda_stream_get_handle (priv->gst_stream);
    else
#endif
      err = cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
    if (err == cudaSuccess)
      err = cudaEventCreateWithFlags (&ev, cudaEventDisableTiming);
    gst_co_device_pop (self->device);
    if (err == cudaSuccess) {
      self->stream = s;
      priv->event = ev;
#ifdef CO_CUDA_STREAMS
      /* without it (CO_RETIRE=0, or no thread) the host waits every frame
       * whose input carries no stream */
      if (priv->gst_stream && g_strcmp0 (g_getenv ("CO_RETIRE"), "0") &&
          gst_co_device_push (self->device)) {
        priv->retire = co_retire_new (self);
        gst_co_device_pop (self->device);
      }
#endif
      priv->host_alloc = gst_co_host_allocator_new (self->device);
      return TRUE;
    }
    *why = g_strdup_printf ("creating a CUDA stream: %s",
        cudaGetErrorString (err));
  } else {
    *why = g_strdup ("the CUDA context could not be made current");
  }
#endif
  gst_clear_object (&self->device);
  return FALSE;
}

/* Everything co_open_device made, and what the subclass allocated on it;
 * the context stays (the caller drops it or keeps it for a restart).  The
 * staging frames are the frame file's: it frees them first. */
void
co_close_device (GstCoBaseFilter * self)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstCoBaseFilterPrivate *priv = self->priv;

#ifdef CO_CUDA_STREAMS
  /* the held inputs go back to their pools before anything is freed */
  if (priv->retire) {
    gboolean pushed = gst_co_device_push (self->device);
    co_retire_free (priv->retire);
    priv->retire = NULL;
    if (pushed)
      gst_co_device_pop (self->device);
  }
#endif
  if (klass->release) {
    if (self->device && gst_co_device_push (self->device)) {
      klass->release (self);
      gst_co_device_pop (self->device);
    } else {
      klass->release (self);
    }
  }
#ifdef HAVE_CUDA
  if (self->stream && gst_co_device_push (self->device)) {
    if (priv->event)
      GST_CO_CUDA_OK (self, cudaEventDestroy ((cudaEvent_t) priv->event));
    if (!priv->gst_stream)
      GST_CO_CUDA_OK (self, cudaStreamDestroy ((cudaStream_t) self->stream));
    gst_co_device_pop (self->device);
  }
#endif
#ifdef CO_CUDA_STREAMS
  gst_clear_cuda_stream ((GstCudaStream **) & priv->gst_stream);
#endif
  priv->event = NULL;
  self->stream = NULL;
  gst_clear_object (&priv->host_alloc);
  gst_clear_object (&self->device);
}

