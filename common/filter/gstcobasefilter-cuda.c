/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter, device: the device opened and closed (the memory and
 * copy calls elements make are gstcoelement.h's, for either base).
 */
#include "gstcobasefilter-private.h"

#define GST_CAT_DEFAULT gst_co_base_filter_debug

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
