/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter, frames: the input and output (or the one frame of an
 * analysing element) as the engine's frame runner takes them
 * (gst_co_engine_run: mapping, rebuild, the host's wait where the memory
 * needs one), the subclass's process on them, the finish step after, and
 * the adoption of a foreign CUDA context.
 */
#include "gstcobasefilter-private.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_co_base_filter_debug

void
co_free_stages (GstCoBaseFilter * self)
{
  int i;

  for (i = 0; i < 2; i++)
    gst_co_stage_free (&self->engine, &self->priv->stage[i]);
}

static gboolean
run_rebuild (gpointer owner, gboolean caps_changed)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (owner);

  return !klass->rebuild || klass->rebuild (owner, caps_changed);
}

/* one side: the frame read (or written) in place; two: input, output */
static GstFlowReturn
run_process (gpointer owner, GstCoSide * sides, guint n)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (owner);

  if (n == 1)
    return klass->process (owner, &sides[0].frame,
        (sides[0].flags & GST_MAP_WRITE) ? &sides[0].frame : NULL);
  return klass->process (owner, &sides[0].frame, &sides[1].frame);
}

static const GstCoRunOps run_ops = { run_rebuild, run_process };

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
  gst_co_rebuild_invalidate (&self->priv->rebuild);
  ok = gst_co_engine_adopt (&self->engine, ctx, dev_id);
  gst_object_unref (ctx);
  if (!ok)
    return;
  incaps = gst_pad_get_current_caps (bt->sinkpad);
  outcaps = gst_pad_get_current_caps (bt->srcpad);
  ok = TRUE;
  if (klass->set_info && incaps && outcaps && gst_co_device_push (self->engine.device)) {
    ok = klass->set_info (self, incaps, &self->in.info, outcaps,
        &self->out.info);
    gst_co_device_pop (self->engine.device);
  }
  gst_clear_caps (&incaps);
  gst_clear_caps (&outcaps);
  if (!ok) {
    self->engine.unusable = TRUE;
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
  GstCoBaseFilterPrivate *priv = self->priv;
  GstBuffer *view;
  GstFlowReturn ret;
  /* an output buffer from the pool of a context just given up is
   * expected once after an adoption: no warning for it */
  GstCoSide sides[2] = {
    {.buf = inbuf, .vinfo = &self->in, .flags = writes ? GST_MAP_READWRITE :
          GST_MAP_READ, .what = "input", .stage = &priv->stage[0],
        .warned = &priv->warned_context},
    {.buf = outbuf, .vinfo = &self->out, .flags = GST_MAP_WRITE,
        .what = "output", .stage = &priv->stage[1]},
  };

  view = analyse ? NULL : gst_co_bayer_view (self->engine.element, inbuf,
      &self->in);
  if (view)
    sides[0].buf = view;
  ret = gst_co_engine_run (&self->engine, &priv->rebuild, &run_ops, self,
      sides, analyse ? 1 : 2, NULL);
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
