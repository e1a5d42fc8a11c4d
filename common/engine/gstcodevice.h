/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoDevice: the CUDA device an element works on, with the context it
 * shares with its neighbours.  With GStreamer's CUDA library that context is
 * the GstCudaContext of cudaupload, nvh264dec and friends; without it, the
 * device's primary context.  Everything that allocates or frees CUDA memory
 * holds a reference, so memory outliving its element is still freed under
 * the right context.
 */
#ifndef __GST_CO_DEVICE_H__
#define __GST_CO_DEVICE_H__

#include "gstcocompat.h"

G_BEGIN_DECLS

#define GST_TYPE_CO_DEVICE (gst_co_device_get_type ())
G_DECLARE_FINAL_TYPE (GstCoDevice, gst_co_device, GST, CO_DEVICE, GstObject)

struct _GstCoDevice
{
  GstObject parent;

  gint device_id;
  gboolean integrated;          /* Jetson: host memory is device memory */
  gchar *name;
  gpointer cuda_context;        /* GstCudaContext *, or NULL */
};

/* TRUE when CUDA can run on @device_id (-1: any).  Otherwise *why says why. */
gboolean      gst_co_cuda_probe      (gint device_id, gchar ** why);
/* Takes a ref on @cuda_context (a GstCudaContext, may be NULL). */
GstCoDevice * gst_co_device_new      (gint device_id, gpointer cuda_context);
gboolean      gst_co_device_push     (GstCoDevice * dev);
void          gst_co_device_pop      (GstCoDevice * dev);

/* Logs a failed CUDA runtime status (as returned by kernels/ launchers) with
 * its name, text and the call site; TRUE when @err is 0. */
gboolean      gst_co_cuda_check      (GstObject * obj, int err,
                                      const gchar * what, const gchar * file,
                                      gint line);
const gchar * gst_co_cuda_error_text (int err);
#define GST_CO_CUDA_OK(obj, expr) \
  gst_co_cuda_check (GST_OBJECT_CAST (obj), (int) (expr), #expr, __FILE__, __LINE__)

G_END_DECLS
#endif
