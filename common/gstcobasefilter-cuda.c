/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter, device: the class's memory and copy API over its
 * engine (gstcoengine.h), and the device opened and closed.
 */
#include "gstcobasefilter-private.h"

#define GST_CAT_DEFAULT gst_co_base_filter_debug

gboolean
gst_co_base_filter_cuda_ok (GstCoBaseFilter * self, int err, const gchar * what)
{
  return gst_co_engine_cuda_ok (&self->engine, err, what);
}

gpointer
gst_co_base_filter_alloc (GstCoBaseFilter * self, gsize size)
{
  return gst_co_engine_alloc (&self->engine, size);
}

void
gst_co_base_filter_free (GstCoBaseFilter * self, gpointer mem)
{
  gst_co_engine_free (&self->engine, mem);
}

gpointer
gst_co_base_filter_alloc_host (GstCoBaseFilter * self, gsize size)
{
  return gst_co_engine_alloc_host (&self->engine, size);
}

GstMemory *
gst_co_base_filter_alloc_results (GstCoBaseFilter * self, gsize size)
{
  return gst_co_engine_alloc_results (&self->engine, size);
}

void
gst_co_base_filter_free_host (GstCoBaseFilter * self, gpointer mem)
{
  gst_co_engine_free_host (&self->engine, mem);
}

gboolean
gst_co_base_filter_ensure (GstCoBaseFilter * self, gpointer * mem,
    gsize * cur_size, gsize size)
{
  return gst_co_engine_ensure (&self->engine, mem, cur_size, size);
}

gboolean
gst_co_base_filter_upload (GstCoBaseFilter * self, gpointer dst,
    gconstpointer src, gsize size, const gchar * what)
{
  return gst_co_engine_upload (&self->engine, dst, src, size, what);
}

gboolean
gst_co_base_filter_download (GstCoBaseFilter * self, gpointer dst,
    gconstpointer src, gsize size, const gchar * what)
{
  /* finish reads it: the frame's one synchronisation comes before */
  return gst_co_engine_download (&self->engine, dst, src, size, what);
}

gboolean
gst_co_base_filter_sync (GstCoBaseFilter * self, const gchar * what)
{
  return gst_co_engine_sync (&self->engine, what);
}

gboolean
gst_co_base_filter_on_cuda (GstCoBaseFilter * self)
{
  return self->engine.device != NULL;
}

/* ---- the device ---- */

gboolean
co_open_device (GstCoBaseFilter * self, gint device_id, gchar ** why)
{
  return gst_co_engine_open (&self->engine, device_id, why);
}

static void
release (gpointer data)
{
  GstCoBaseFilter *self = data;

  GST_CO_BASE_FILTER_GET_CLASS (self)->release (self);
}

/* Everything co_open_device made (the inputs held for it first), and what
 * the subclass allocated on it; the context stays (the caller drops it or
 * keeps it for a restart).  The staging frames are the frame file's: it
 * frees them first. */
void
co_close_device (GstCoBaseFilter * self)
{
  gst_co_engine_close (&self->engine,
      GST_CO_BASE_FILTER_GET_CLASS (self)->release ? release : NULL, self);
}
