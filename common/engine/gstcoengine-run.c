/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoEngine, one frame's work for every base class: the filter's one
 * input and one output, an analysing filter's frame read (or written) in
 * place, the aggregator's N inputs.  The runner owns the order a frame's
 * work needs on the device (context current, rebuild, map, process, copy
 * back, foreign streams, unmap) and the one decision that costs time: when
 * the host waits for the device.
 */
#include "gstcocompat.h"
#include "gstcoengine-private.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define GST_CAT_DEFAULT gst_co_engine_debug

static gboolean
rebuild (GstCoEngine * e, GstCoRebuild * r, const GstCoRunOps * ops,
    gpointer owner)
{
  if (!r || !gst_co_rebuild_needed (GST_OBJECT (e->element), r))
    return TRUE;
  if (ops->rebuild && !ops->rebuild (owner, r->caps_changed)) {
    GST_DEBUG_OBJECT (e->element, "rebuild failed");
    return FALSE;
  }
  gst_co_rebuild_done (r);
  GST_TRACE_OBJECT (e->element, "rebuilt");
  return TRUE;
}

static GstFlowReturn
run_cpu (GstCoEngine * e, GstCoRebuild * r, const GstCoRunOps * ops,
    gpointer owner, GstCoSide * sides, guint n)
{
  GstFlowReturn ret = GST_FLOW_ERROR;
  guint i;

  if (!rebuild (e, r, ops, owner))
    return GST_FLOW_ERROR;
  for (i = 0; i < n; i++) {
    GstCoSide *s = &sides[i];
    if (s->vinfo->nvmm) {
      /* the surface's planes, in place (its error posted) */
      if (!co_engine_map_nvmm (e, s, FALSE))
        goto done;
      s->frame = s->nvmm_host;
      continue;
    }
    s->mapped = gst_video_frame_map (&s->vf, &s->vinfo->info, s->buf,
        s->flags);
    if (!s->mapped) {
      GST_ELEMENT_ERROR (e->element, STREAM, FAILED, ("Could not map the %s "
              "frame", s->what), (NULL));
      goto done;
    }
    gst_co_frame_from_video (&s->vf, s->vinfo->format, s->vinfo->bayer,
        &s->frame);
  }
  ret = ops->process (owner, sides, n);
done:
  for (i = 0; i < n; i++) {
    if (sides[i].mapped)
      gst_video_frame_unmap (&sides[i].vf);
    co_engine_unmap_nvmm (e, &sides[i]);
  }
  return ret;
}

#ifdef HAVE_CUDA
/* A memory:NVMM side on the device: device and unified surfaces and
 * pitch-linear surface arrays in place (the kernels get the surface's
 * pointers; nothing orders a foreign stream, so the frame waits as for
 * memory without one), host ones and block-linear arrays through the
 * staging frame.  FALSE after an element error. */
static gboolean
map_nvmm_cuda (GstCoEngine * e, GstCoSide * s)
{
  if (!co_engine_map_nvmm (e, s, TRUE))
    return FALSE;
  if (s->nvmm_device) {
    s->frame = s->nvmm_host;
    s->kind = GST_CO_SIDE_CUDA;
    return TRUE;
  }
  s->kind = GST_CO_SIDE_STAGED;
  if (co_engine_ensure_stage (e, s->stage, &s->nvmm_host)) {
    s->frame = s->stage->frame;
    if (!(s->flags & GST_MAP_READ) || (s->nvmm_array ?
            co_engine_copy_arrays (e, &s->frame, s->nvmm_planes.array,
                FALSE) : co_engine_copy_planes (e, &s->frame, &s->nvmm_host,
                cudaMemcpyHostToDevice)))
      return TRUE;
    GST_ELEMENT_ERROR (e->element, STREAM, FAILED, ("Could not upload the "
            "%s frame", s->what), (NULL));
  }
  co_engine_unmap_nvmm (e, s);
  return FALSE;
}

/* A staged side written back to where it came from */
static gboolean
download_side (GstCoEngine * e, GstCoSide * s)
{
  if (s->nvmm && s->nvmm_array)
    return co_engine_copy_arrays (e, &s->frame, s->nvmm_planes.array, TRUE);
  if (s->nvmm)
    return co_engine_copy_planes (e, &s->nvmm_host, &s->frame,
        cudaMemcpyDeviceToHost);
  return gst_co_engine_download_frame (e, &s->vf, s->vinfo->format,
      &s->frame);
}
#endif

#ifdef HAVE_CUDA
/* Whether the frame may leave without the host's wait: what it wrote
 * carries a stream (1.24+ CUDA memory orders every later user after our
 * work), or, writing nothing, what it read does; no result read back; and
 * every input without a stream held until the device has read it. */
static gboolean
may_leave (GstCoEngine * e, GstCoSide * sides, guint n)
{
  gboolean wrote = FALSE, ordered = TRUE, read_ordered = TRUE;
  guint i;

  if (e->downloaded || e->always_sync)
    return FALSE;
  for (i = 0; i < n; i++) {
    if (sides[i].flags & GST_MAP_WRITE) {
      wrote = TRUE;
      ordered &= sides[i].ordered;
    } else {
      read_ordered &= sides[i].ordered;
    }
  }
  if (!(wrote ? ordered : read_ordered))
    return FALSE;
  for (i = 0; i < n; i++)
    if (!(sides[i].flags & GST_MAP_WRITE) && !sides[i].ordered &&
        !gst_co_engine_hold (e, sides[i].buf))
      return FALSE;
  return TRUE;
}

/* Whether a side is an EGL mapping, which is undone at the frame's end:
 * the device must be done with it first */
static gboolean
holds_egl (GstCoSide * sides, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    if (sides[i].nvmm && sides[i].nvmm_planes.access == GST_CO_NVMM_EGL)
      return TRUE;
  return FALSE;
}

static GstFlowReturn
run_cuda (GstCoEngine * e, GstCoRebuild * r, const GstCoRunOps * ops,
    gpointer owner, GstCoSide * sides, guint n, gpointer * mark)
{
  GstFlowReturn ret = GST_FLOW_ERROR;
  cudaError_t err = cudaSuccess;
  gboolean wait;
  guint i;

  if (!gst_co_device_push (e->device)) {
    GST_ELEMENT_ERROR (e->element, LIBRARY, FAILED,
        ("Could not make the CUDA context current"), (NULL));
    return GST_FLOW_ERROR;
  }
  /* TRACE marks the frame's stages with GStreamer's timestamps (latency
   * work: GST_DEBUG=coengine:7) */
  GST_TRACE_OBJECT (e->element, "context current");
  e->downloaded = FALSE;
  if (!rebuild (e, r, ops, owner))
    goto done;
  for (i = 0; i < n; i++) {
    GstCoSide *s = &sides[i];
    if (s->vinfo->nvmm) {
      if (!map_nvmm_cuda (e, s))
        goto done;
      GST_LOG_OBJECT (e->element, "%s mapped (NVMM, %d)", s->what, s->kind);
      continue;
    }
    s->mapped = gst_co_engine_map_frame (e, s->stage, s->buf, s->vinfo,
        s->flags, s->what, s->warned, &s->vf, &s->frame, &s->kind,
        &s->ordered, &s->foreign);
    if (!s->mapped)
      goto done;
    GST_LOG_OBJECT (e->element, "%s mapped (%d)", s->what, s->kind);
  }
  ret = ops->process (owner, sides, n);
  for (i = 0; ret == GST_FLOW_OK && i < n; i++)
    if ((sides[i].flags & GST_MAP_WRITE) && sides[i].kind ==
        GST_CO_SIDE_STAGED && !download_side (e, &sides[i]))
      ret = GST_FLOW_ERROR;

done:
#ifdef CO_CUDA_STREAMS
  /* whoever uses these frames next on their own streams comes after us */
  for (i = 0; i < n; i++)
    if (sides[i].foreign && !gst_co_engine_stream_wait (e, e->stream,
            sides[i].foreign))
      ret = GST_FLOW_ERROR;
#endif
  GST_TRACE_OBJECT (e->element, "queued");
  /* CO_SYNC_EVERY_FRAME: no mark, the host waits here as 1.22 does */
  wait = e->always_sync || holds_egl (sides, n);
  if (ret == GST_FLOW_OK && mark && !wait) {
    *mark = gst_co_engine_mark (e);
    if (!*mark)
      ret = GST_FLOW_ERROR;
  } else if (ret != GST_FLOW_OK || wait || !may_leave (e, sides, n)) {
    /* an error path always waits: nothing of it may still run */
    err = cudaStreamSynchronize ((cudaStream_t) e->stream);
    if (e->copying) {
      cudaError_t cerr = cudaStreamSynchronize ((cudaStream_t) e->copy_stream);
      err = err != cudaSuccess ? err : cerr;
      e->copying = FALSE;
    }
    GST_TRACE_OBJECT (e->element, "synchronised");
  } else {
    err = cudaGetLastError ();
  }
  if (err != cudaSuccess && ret != GST_FLOW_ERROR) {
    GST_ELEMENT_ERROR (e->element, LIBRARY, FAILED, ("CUDA error while "
            "processing a frame: %s", cudaGetErrorString (err)), ("%s",
            cudaGetErrorName (err)));
    ret = GST_FLOW_ERROR;
  }
  for (i = 0; i < n; i++) {
    if (sides[i].mapped)
      gst_video_frame_unmap (&sides[i].vf);
    co_engine_unmap_nvmm (e, &sides[i]);
  }
  gst_co_device_pop (e->device);
  return ret;
}
#endif

GstFlowReturn
gst_co_engine_run (GstCoEngine * e, GstCoRebuild * r, const GstCoRunOps * ops,
    gpointer owner, GstCoSide * sides, guint n, gpointer * mark)
{
  guint i;

  if (mark)
    *mark = NULL;
  for (i = 0; i < n; i++)
    sides[i].mapped = sides[i].ordered = sides[i].nvmm = FALSE,
        sides[i].foreign = NULL;
  /* a context adoption failed (its error posted): no backend to run on */
  if (e->unusable)
    return GST_FLOW_ERROR;
#ifdef HAVE_CUDA
  if (e->device)
    return run_cuda (e, r, ops, owner, sides, n, mark);
#endif
  return run_cpu (e, r, ops, owner, sides, n);
}

/* ---- waits ---- */

gboolean
gst_co_engine_hold (GstCoEngine * e, GstBuffer * buf)
{
#ifdef CO_CUDA_STREAMS
  if (e->retire && co_retire_push (e->retire, buf, e->stream)) {
    GST_TRACE_OBJECT (e->element, "input held");
    return TRUE;
  }
#else
  (void) e;
  (void) buf;
#endif
  return FALSE;
}

gpointer
gst_co_engine_mark (GstCoEngine * e)
{
#ifdef HAVE_CUDA
  cudaEvent_t ev = NULL;
  cudaError_t err = cudaSuccess;

  if (e->marks) {
    ev = e->marks->data;
    e->marks = g_slist_delete_link (e->marks, e->marks);
  } else {
    err = cudaEventCreateWithFlags (&ev, cudaEventDisableTiming);
  }
  /* after the downloads behind too: the copy stream waits for ours */
  if (err == cudaSuccess && e->copying) {
    err = cudaEventRecord ((cudaEvent_t) e->copy_from,
        (cudaStream_t) e->stream);
    if (err == cudaSuccess)
      err = cudaStreamWaitEvent ((cudaStream_t) e->copy_stream,
          (cudaEvent_t) e->copy_from, 0);
  }
  if (err == cudaSuccess && e->on_done)
    err = cudaLaunchHostFunc ((cudaStream_t) (e->copying ? e->copy_stream :
            e->stream), e->on_done, e->on_done_data);
  if (err == cudaSuccess)
    err = cudaEventRecord (ev, (cudaStream_t) (e->copying ? e->copy_stream :
            e->stream));
  if (err == cudaSuccess)
    return ev;
  if (ev)
    cudaEventDestroy (ev);
  gst_co_engine_cuda_ok (e, err, "recording a frame's end");
#else
  (void) e;
#endif
  return NULL;
}

gboolean
gst_co_engine_wait_mark (GstCoEngine * e, gpointer mark)
{
#ifdef HAVE_CUDA
  cudaError_t err;

  if (!mark)
    return TRUE;
  err = cudaEventSynchronize ((cudaEvent_t) mark);
  e->marks = g_slist_prepend (e->marks, mark);
  return gst_co_engine_cuda_ok (e, err, "waiting for a frame");
#else
  (void) e;
  (void) mark;
  return TRUE;
#endif
}

#ifdef HAVE_CUDA
/* The copy stream and its two events, all or none */
static cudaError_t
make_copy_stream (GstCoEngine * e)
{
  cudaStream_t s = NULL;
  cudaEvent_t a = NULL, b = NULL;
  cudaError_t err;

  err = cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&a, cudaEventDisableTiming);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&b, cudaEventDisableTiming);
  if (err != cudaSuccess) {
    if (b)
      cudaEventDestroy (b);
    if (a)
      cudaEventDestroy (a);
    if (s)
      cudaStreamDestroy (s);
    return err;
  }
  e->copy_stream = s;
  e->copy_from = a;
  e->copied = b;
  return cudaSuccess;
}
#endif

gboolean
gst_co_engine_download_behind (GstCoEngine * e, gpointer dst,
    gconstpointer src, gsize size, const gchar * what)
{
#ifdef HAVE_CUDA
  cudaError_t err = cudaSuccess;

  if (!e->device || size == 0)
    return gst_co_engine_download (e, dst, src, size, what);
  e->downloaded = TRUE;
  if (!e->copy_stream)
    err = make_copy_stream (e);
  if (err == cudaSuccess)
    err = cudaEventRecord ((cudaEvent_t) e->copy_from,
        (cudaStream_t) e->stream);
  if (err == cudaSuccess)
    err = cudaStreamWaitEvent ((cudaStream_t) e->copy_stream,
        (cudaEvent_t) e->copy_from, 0);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync (dst, src, size, cudaMemcpyDeviceToHost,
        (cudaStream_t) e->copy_stream);
  /* queued: the frame's wait (or a failure's) covers the copy stream */
  if (err == cudaSuccess)
    e->copying = TRUE;
  if (err == cudaSuccess)
    err = cudaEventRecord ((cudaEvent_t) e->copied,
        (cudaStream_t) e->copy_stream);
  return gst_co_engine_cuda_ok (e, err, what);
#else
  return gst_co_engine_download (e, dst, src, size, what);
#endif
}

gboolean
gst_co_engine_join_copies (GstCoEngine * e)
{
#ifdef HAVE_CUDA
  cudaError_t err;

  if (!e->device || !e->copying)
    return TRUE;
  e->copying = FALSE;
  err = cudaStreamWaitEvent ((cudaStream_t) e->stream,
      (cudaEvent_t) e->copied, 0);
  return gst_co_engine_cuda_ok (e, err, "ordering after a download");
#else
  (void) e;
  return TRUE;
#endif
}

/* With the device current, at close */
void
co_engine_free_waits (GstCoEngine * e)
{
#ifdef CO_CUDA_STREAMS
  co_retire_free (e->retire);
  e->retire = NULL;
#endif
  while (e->marks) {
#ifdef HAVE_CUDA
    cudaEventDestroy ((cudaEvent_t) e->marks->data);
#endif
    e->marks = g_slist_delete_link (e->marks, e->marks);
  }
#ifdef HAVE_CUDA
  if (e->copy_stream) {
    cudaStreamSynchronize ((cudaStream_t) e->copy_stream);
    cudaStreamDestroy ((cudaStream_t) e->copy_stream);
  }
  if (e->copy_from)
    cudaEventDestroy ((cudaEvent_t) e->copy_from);
  if (e->copied)
    cudaEventDestroy ((cudaEvent_t) e->copied);
#endif
  e->copy_stream = e->copy_from = e->copied = NULL;
  e->copying = FALSE;
}

/* With the device current, at open: inputs are held, not waited for (on
 * 1.24+; CO_RETIRE=0 or no thread: the host waits every frame whose input
 * carries no stream) */
void
co_engine_start_waits (GstCoEngine * e)
{
#ifdef CO_CUDA_STREAMS
  if (e->gst_stream && g_strcmp0 (g_getenv ("CO_RETIRE"), "0"))
    e->retire = co_retire_new (e);
#else
  (void) e;
#endif
}
