/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter, frames: each buffer mapped where the active backend can
 * read it (gst_co_engine_map_frame says how), the subclass's process on
 * the two frames (or on the one frame of an analysing element), the copy
 * back to host memory where needed, the host's wait for the device where
 * the frame's memory needs one (at most one per frame), and the finish
 * step after it.
 */
#include "gstcobasefilter-private.h"

#include <string.h>

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define GST_CAT_DEFAULT gst_co_base_filter_debug

void
co_free_stages (GstCoBaseFilter * self)
{
  int i;

  for (i = 0; i < 2; i++)
    gst_co_stage_free (&self->engine, &self->priv->stage[i]);
}

static gboolean
map_failed (GstCoBaseFilter * self, int side, const gchar * what)
{
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not %s the %s frame",
          what, side ? "output" : "input"), (NULL));
  return FALSE;
}

/* Everything built from the settings and the caps is marked for a
 * rebuild (new caps, a new context, a release). */
void
co_invalidate (GstCoBaseFilter * self)
{
  gst_co_rebuild_invalidate (&self->priv->rebuild);
}

/* The rebuild contract: the subclass's rebuild before a frame when the
 * caps or the settings changed, with the device current.  ready is
 * cleared first, so nothing half built is ever used. */
static gboolean
ensure_built (GstCoBaseFilter * self)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstCoRebuild *r = &self->priv->rebuild;

  if (!gst_co_rebuild_needed (GST_OBJECT (self), r))
    return TRUE;
  if (klass->rebuild && !klass->rebuild (self, r->caps_changed)) {
    GST_DEBUG_OBJECT (self, "rebuild failed");
    return FALSE;
  }
  gst_co_rebuild_done (r);
  GST_TRACE_OBJECT (self, "rebuilt");
  return TRUE;
}

/* The CPU backend: both frames mapped on the host. */
static GstFlowReturn
process_cpu (GstCoBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf,
    gboolean analyse, gboolean writes)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstVideoFrame in, out;
  CoFrame fin, fout;
  GstFlowReturn ret;

  if (!ensure_built (self))
    return GST_FLOW_ERROR;
  if (!gst_video_frame_map (&in, &self->in_info, inbuf,
          writes ? GST_MAP_READWRITE : GST_MAP_READ)) {
    map_failed (self, 0, "map");
    return GST_FLOW_ERROR;
  }
  gst_co_frame_from_video (&in, self->in_format, self->in_bayer, &fin);
  if (analyse) {
    ret = klass->process (self, &fin, writes ? &fin : NULL);
    gst_video_frame_unmap (&in);
    return ret;
  }
  if (!gst_video_frame_map (&out, &self->out_info, outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in);
    map_failed (self, 1, "map");
    return GST_FLOW_ERROR;
  }
  gst_co_frame_from_video (&out, self->out_format, self->out_bayer, &fout);
  ret = klass->process (self, &fin, &fout);
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  return ret;
}

#ifdef HAVE_CUDA
/* An input without a stream, into an output that carries ours: the output
 * needs no host wait, the input only to stay out of its pool until the
 * device has read it (gstcobasefilter-retire.c).  FALSE: wait instead. */
static gboolean
hold_input (GstCoBaseFilter * self, GstBuffer * inbuf)
{
#ifdef CO_CUDA_STREAMS
  if (self->priv->retire && co_retire_push (self->priv->retire, inbuf,
          self->engine.stream)) {
    GST_TRACE_OBJECT (self, "input held");
    return TRUE;
  }
#else
  (void) self;
  (void) inbuf;
#endif
  return FALSE;
}

static GstFlowReturn
process_cuda (GstCoBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf,
    gboolean analyse, gboolean writes)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstVideoFrame in, out;
  CoFrame din, dout;
  GstCoSideKind kin, kout = GST_CO_SIDE_CUDA;
  GstFlowReturn ret = GST_FLOW_ERROR;
  gboolean in_mapped = FALSE, out_mapped = FALSE;
  gboolean in_ordered = FALSE, out_ordered = FALSE;
  gpointer in_foreign = NULL, out_foreign = NULL;
  cudaError_t err = cudaSuccess;

  if (!gst_co_device_push (self->engine.device)) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Could not make the CUDA context current"), (NULL));
    return GST_FLOW_ERROR;
  }
  GST_TRACE_OBJECT (self, "context current");
  self->engine.downloaded = FALSE;
  if (!ensure_built (self))
    goto done;
  in_mapped = gst_co_engine_map_frame (&self->engine, &self->priv->stage[0],
      inbuf, &self->in_info, self->in_format, self->in_bayer,
      writes ? GST_MAP_READWRITE : GST_MAP_READ, "input",
      &self->priv->warned_context, &in, &din, &kin, &in_ordered, &in_foreign);
  if (!in_mapped)
    goto done;
  /* TRACE marks the frame's stages with GStreamer's timestamps (latency
   * work: GST_DEBUG=cobasefilter:7) */
  GST_TRACE_OBJECT (self, "input mapped (%d)", kin);
  if (analyse) {
    GST_LOG_OBJECT (self, "analysing %d%s", kin, writes ? ", writing" : "");
    out_ordered = in_ordered;
    ret = klass->process (self, &din, writes ? &din : NULL);
    if (ret == GST_FLOW_OK && writes && kin == GST_CO_SIDE_STAGED &&
        !gst_co_engine_download_frame (&self->engine, &in, self->in_format, &din))
      ret = GST_FLOW_ERROR;
    goto done;
  }
  /* an output buffer from the pool of a context just given up is
   * expected once after an adoption: no warning for it */
  out_mapped = gst_co_engine_map_frame (&self->engine, &self->priv->stage[1],
      outbuf, &self->out_info, self->out_format, self->out_bayer,
      GST_MAP_WRITE, "output", NULL, &out, &dout, &kout, &out_ordered,
      &out_foreign);
  if (!out_mapped)
    goto done;
  GST_LOG_OBJECT (self, "in %d out %d", kin, kout);
  ret = klass->process (self, &din, &dout);
  if (ret == GST_FLOW_OK && kout == GST_CO_SIDE_STAGED &&
      !gst_co_engine_download_frame (&self->engine, &out, self->out_format,
          &dout))
    ret = GST_FLOW_ERROR;

done:
#ifdef CO_CUDA_STREAMS
  /* whoever uses these frames next on their own streams comes after us */
  if (in_foreign && !gst_co_engine_stream_wait (&self->engine,
          self->engine.stream, in_foreign))
    ret = GST_FLOW_ERROR;
  if (out_foreign && !gst_co_engine_stream_wait (&self->engine,
          self->engine.stream, out_foreign))
    ret = GST_FLOW_ERROR;
#endif
  /* A frame leaves complete unless both its memories carry a stream (1.24+
   * CUDA memory), which orders every later user after our work on the
   * device.  Otherwise (1.22's CUDA memory, host memory) the host waits:
   * no copy may still read a buffer that goes back to its pool.  Results
   * read back (gst_co_base_filter_download) are complete before finish;
   * values attached on the host need no wait.  An error path always
   * waits. */
  GST_TRACE_OBJECT (self, "queued");
  if (!out_ordered || self->engine.downloaded || ret != GST_FLOW_OK ||
      self->priv->always_sync || (!in_ordered && !hold_input (self, inbuf)))
    err = cudaStreamSynchronize ((cudaStream_t) self->engine.stream);
  else
    err = cudaGetLastError ();
  GST_TRACE_OBJECT (self, "synchronised");
  if (err != cudaSuccess && ret != GST_FLOW_ERROR) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("CUDA error while processing "
            "a frame: %s", cudaGetErrorString (err)), ("%s",
            cudaGetErrorName (err)));
    ret = GST_FLOW_ERROR;
  }
  if (out_mapped)
    gst_video_frame_unmap (&out);
  if (in_mapped)
    gst_video_frame_unmap (&in);
  gst_co_device_pop (self->engine.device);
  return ret;
}
#endif

/* CUDA memory from a context other than ours (a decoder that made its own,
 * a second pipeline's): take that context, as GstCudaBaseTransform does,
 * when the device-id property allows its device, so that frames stay on
 * the device instead of crossing the host.  Everything made on the old
 * context is rebuilt on the new one (set_info again), and the source pad
 * renegotiates its pool. */
void
co_adopt_context (GstCoBaseFilter * self, GstBuffer * buf)
{
#ifdef HAVE_GST_CUDA
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstBaseTransform *bt = GST_BASE_TRANSFORM (self);
  GstCudaContext *ctx;
  GstCaps *incaps, *outcaps;
  gint dev_id = -1;
  gboolean ok;

  ctx = gst_co_engine_foreign_context (&self->engine, buf, &dev_id);
  if (!ctx)
    return;

  GST_INFO_OBJECT (self, "adopting the CUDA context %" GST_PTR_FORMAT
      " (device %d) of incoming frames", ctx, dev_id);
  co_free_stages (self);
  co_close_device (self);
  co_invalidate (self);
  ok = gst_co_engine_adopt (&self->engine, ctx, dev_id);
  gst_object_unref (ctx);
  if (!ok) {
    self->priv->unusable = TRUE;
    return;
  }
  co_hold_inputs_start (self);
  incaps = gst_pad_get_current_caps (bt->sinkpad);
  outcaps = gst_pad_get_current_caps (bt->srcpad);
  ok = TRUE;
  if (klass->set_info && incaps && outcaps && gst_co_device_push (self->engine.device)) {
    ok = klass->set_info (self, incaps, &self->in_info, outcaps,
        &self->out_info);
    gst_co_device_pop (self->engine.device);
  }
  gst_clear_caps (&incaps);
  gst_clear_caps (&outcaps);
  if (!ok) {
    self->priv->unusable = TRUE;
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Could not set up on the "
            "CUDA context of the incoming frames"), (NULL));
  }
  gst_base_transform_reconfigure_src (bt);
#endif
}

static GstFlowReturn
run_frame (GstCoBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf,
    gboolean analyse, gboolean writes)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstBuffer *view;
  GstFlowReturn ret;

  /* a context adoption failed (its error posted): no backend to run on */
  if (self->priv->unusable)
    return GST_FLOW_ERROR;
  view = analyse ? NULL : gst_co_bayer_view (self->engine.element, inbuf,
      &self->in_info, self->in_bayer);
#ifdef HAVE_CUDA
  if (self->engine.device)
    ret = process_cuda (self, view ? view : inbuf, outbuf, analyse, writes);
  else
#endif
    ret = process_cpu (self, view ? view : inbuf, outbuf, analyse, writes);
  if (view)
    gst_buffer_unref (view);
  if (ret != GST_FLOW_OK) {
    if (ret != GST_BASE_TRANSFORM_FLOW_DROPPED)
      GST_DEBUG_OBJECT (self, "process returned %s", gst_flow_get_name (ret));
    return ret;
  }
  GST_TRACE_OBJECT (self, "processed");
  if (klass->finish) {
    ret = klass->finish (self, inbuf, outbuf);
    GST_TRACE_OBJECT (self, "finished");
  }
  return ret;
}

GstFlowReturn
co_transform (GstBaseTransform * bt, GstBuffer * inbuf, GstBuffer * outbuf)
{
  return run_frame (GST_CO_BASE_FILTER (bt), inbuf, outbuf, FALSE, FALSE);
}

/* ANALYSE only: the frame read, or read and written in place. */
GstFlowReturn
co_transform_ip (GstBaseTransform * bt, GstBuffer * buf)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  gboolean writes;

  GST_OBJECT_LOCK (self);
  writes = self->priv->writes;
  GST_OBJECT_UNLOCK (self);
  return run_frame (self, buf, buf, TRUE, writes);
}
