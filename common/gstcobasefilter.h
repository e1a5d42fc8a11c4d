/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter: the abstract GstBaseTransform every cudaoptics element
 * derives from.  It owns the backend choice (CUDA or the C reference), the
 * device and the context shared with the pipeline, the element's CUDA
 * stream, buffer pools on both pads, and the journey of each frame to and
 * from memory the device can read.  A subclass sees two CoFrames that are
 * both on the device (CUDA backend) or both on the host (CPU backend) and
 * does its maths on them.
 */
#ifndef __GST_CO_BASE_FILTER_H__
#define __GST_CO_BASE_FILTER_H__

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include "gstcodevice.h"
#include "co_frame.h"

G_BEGIN_DECLS

typedef enum
{
  GST_CO_BACKEND_AUTO = 0,
  GST_CO_BACKEND_CUDA = 1,
  GST_CO_BACKEND_CPU = 2,
} GstCoBackend;

#define GST_TYPE_CO_BACKEND (gst_co_backend_get_type ())
GType gst_co_backend_get_type (void);

#define GST_TYPE_CO_BASE_FILTER            (gst_co_base_filter_get_type ())
#define GST_CO_BASE_FILTER(obj)            (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_CO_BASE_FILTER, GstCoBaseFilter))
#define GST_CO_BASE_FILTER_CLASS(klass)    (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_CO_BASE_FILTER, GstCoBaseFilterClass))
#define GST_CO_BASE_FILTER_GET_CLASS(obj)  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_CO_BASE_FILTER, GstCoBaseFilterClass))
#define GST_IS_CO_BASE_FILTER(obj)         (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_CO_BASE_FILTER))

typedef struct _GstCoBaseFilter GstCoBaseFilter;
typedef struct _GstCoBaseFilterClass GstCoBaseFilterClass;
typedef struct _GstCoBaseFilterPrivate GstCoBaseFilterPrivate;

struct _GstCoBaseFilter
{
  GstBaseTransform parent;

  /*< protected: read-only for subclasses, valid while streaming >*/
  GstVideoInfo in_info, out_info;
  CoFormat in_format, out_format;
  GstCoBackend active_backend;  /* CUDA or CPU once started */
  GstCoDevice *device;          /* NULL on the CPU backend */
  gpointer stream;              /* cudaStream_t of this element */

  /*< private >*/
  GstCoBaseFilterPrivate *priv;
};

struct _GstCoBaseFilterClass
{
  GstBaseTransformClass parent_class;

  /* Both infos parsed and supported; set up what depends on the geometry.
   * Called from set_caps, also again on renegotiation. */
  gboolean      (*set_info) (GstCoBaseFilter * self,
                             const GstVideoInfo * in_info,
                             const GstVideoInfo * out_info);
  /* One frame.  With the CUDA backend, the device is pushed, both frames are
   * device memory and work goes on self->stream (the base class syncs).
   * With the CPU backend both are mapped host memory. */
  GstFlowReturn (*process)  (GstCoBaseFilter * self, const CoFrame * in,
                             CoFrame * out);
  /* Free everything allocated for the active backend (device pushed). */
  void          (*release)  (GstCoBaseFilter * self);
};

GType gst_co_base_filter_get_type (void);

/* Pad templates for same-size video in both memory domains. */
void     gst_co_base_filter_class_add_video_templates (GstElementClass * klass,
                                                       const gchar * formats,
                                                       gint max_size);

/* Memory for the active backend: device memory for CUDA, host for CPU.
 * Posts an element error and returns NULL when it cannot be had. */
gpointer gst_co_base_filter_alloc  (GstCoBaseFilter * self, gsize size);
void     gst_co_base_filter_free   (GstCoBaseFilter * self, gpointer mem);
/* Grows *mem to at least @size (contents are not kept). */
gboolean gst_co_base_filter_ensure (GstCoBaseFilter * self, gpointer * mem,
                                    gsize * cur_size, gsize size);
/* For subclasses checking kernel launches: posts an element error. */
gboolean gst_co_base_filter_cuda_ok (GstCoBaseFilter * self, int err,
                                     const gchar * what);

CoFormat gst_co_format_from_video (GstVideoFormat format);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCoBaseFilter, gst_object_unref)

G_END_DECLS
#endif
