/* cudaoptics — LGPL-2.1-or-later
 *
 * Input buffers the device may still read after the frame's function
 * returns (GStreamer 1.24+).  When the output memory carries our stream but
 * the input does not (appsrc's host frames, 1.22-style CUDA memory from a
 * peer without a stream), nothing downstream needs the host to wait: only
 * the input buffer must not go back to its pool, where its producer would
 * write it again, before our copies and kernels have read it.  Instead of a
 * host synchronisation per frame (which serialises the host's per-buffer
 * work with the kernel), the buffer is kept with an event recorded after
 * the frame's work, and a thread of the element's own lets it go once the
 * event completes.  The release never waits for a later frame, so a source
 * with a pool of one or two buffers cannot stall on us.
 *
 * At most CO_RETIRE_DEPTH frames are held; a frame that finds them all
 * held waits for the oldest (the device is then CO_RETIRE_DEPTH frames
 * behind the host).  Drained before the stream it recorded on goes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcoengine-private.h"

#ifdef CO_CUDA_STREAMS
#include <cuda_runtime_api.h>

#define GST_CAT_DEFAULT gst_co_engine_debug

#define CO_RETIRE_DEPTH 4

struct _CoRetire
{
  GstCoEngine *owner;           /* its close frees us first */
  GMutex lock;
  GCond cond;
  GstBuffer *buf[CO_RETIRE_DEPTH];
  cudaEvent_t ev[CO_RETIRE_DEPTH];
  guint head, count;            /* next slot to fill; slots held */
  gboolean quit;
  GThread *thread;
};

static gpointer
retire_thread (gpointer data)
{
  CoRetire *r = data;
  GstCoEngine *e = r->owner;
  gboolean pushed = gst_co_device_push (e->device);

  g_mutex_lock (&r->lock);
  for (;;) {
    guint i;
    GstBuffer *buf;
    cudaError_t err;

    while (!r->count && !r->quit)
      g_cond_wait (&r->cond, &r->lock);
    if (!r->count)
      break;
    i = (r->head + CO_RETIRE_DEPTH - r->count) % CO_RETIRE_DEPTH;
    buf = r->buf[i];
    g_mutex_unlock (&r->lock);
    /* an error here was (or will be) the stream's, which the next frame's
     * own calls report as an element error; the buffer goes either way */
    err = pushed ? cudaEventSynchronize (r->ev[i]) : cudaErrorUnknown;
    if (err != cudaSuccess)
      GST_WARNING_OBJECT (e->element, "waiting for a frame's input: %s",
          cudaGetErrorString (err));
    gst_buffer_unref (buf);
    g_mutex_lock (&r->lock);
    r->buf[i] = NULL;
    r->count--;
    g_cond_broadcast (&r->cond);
  }
  g_mutex_unlock (&r->lock);
  if (pushed)
    gst_co_device_pop (e->device);
  return NULL;
}

/* Events and the thread, on the device's context (current). */
CoRetire *
co_retire_new (GstCoEngine * e)
{
  CoRetire *r = g_new0 (CoRetire, 1);
  GError *error = NULL;
  guint i;

  r->owner = e;
  g_mutex_init (&r->lock);
  g_cond_init (&r->cond);
  /* waited on as the context schedules waits, like the per-frame stream
   * synchronisation this replaces: with cudaEventBlockingSync the thread
   * woke too late on the H100 and the host stalled on a full ring (5760x720
   * from 4K, 1.26: 1.90-2.94x the output copy, against 1.78-1.84) */
  for (i = 0; i < CO_RETIRE_DEPTH; i++) {
    if (cudaEventCreateWithFlags (&r->ev[i], cudaEventDisableTiming) !=
        cudaSuccess) {
      r->ev[i] = NULL;
      co_retire_free (r);
      return NULL;
    }
  }
  r->thread = g_thread_try_new ("co-retire", retire_thread, r, &error);
  if (!r->thread) {
    GST_WARNING_OBJECT (e->element, "no thread to release inputs: %s",
        error->message);
    g_error_free (error);
    co_retire_free (r);
    return NULL;
  }
  return r;
}

/* Keeps @buf until the work queued on @stream so far is done.  FALSE when
 * the event could not be recorded: the caller waits on the host instead. */
gboolean
co_retire_push (CoRetire * r, GstBuffer * buf, gpointer stream)
{
  guint i;

  g_mutex_lock (&r->lock);
  while (r->count == CO_RETIRE_DEPTH)
    g_cond_wait (&r->cond, &r->lock);
  i = r->head;
  g_mutex_unlock (&r->lock);
  /* slot i is free and only this (streaming) thread fills slots */
  if (cudaEventRecord (r->ev[i], (cudaStream_t) stream) != cudaSuccess)
    return FALSE;
  g_mutex_lock (&r->lock);
  r->buf[i] = gst_buffer_ref (buf);
  r->head = (i + 1) % CO_RETIRE_DEPTH;
  r->count++;
  g_cond_broadcast (&r->cond);
  g_mutex_unlock (&r->lock);
  return TRUE;
}


/* Drains, stops the thread, destroys the events (context current). */
void
co_retire_free (CoRetire * r)
{
  guint i;

  if (!r)
    return;
  if (r->thread) {
    g_mutex_lock (&r->lock);
    r->quit = TRUE;
    g_cond_broadcast (&r->cond);
    g_mutex_unlock (&r->lock);
    g_thread_join (r->thread);
  }
  for (i = 0; i < CO_RETIRE_DEPTH; i++)
    if (r->ev[i])
      cudaEventDestroy (r->ev[i]);
  g_cond_clear (&r->cond);
  g_mutex_clear (&r->lock);
  g_free (r);
}
#endif
