/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoEngine: what a cudaoptics element owns to work on a device, whatever
 * its GStreamer base (GstCoBaseFilter for one input, GstCoBaseAggregator
 * for several): the backend choice and its properties, the device and the
 * GstCudaContext shared with the pipeline, the element's CUDA stream,
 * memory for the element's tables and results, CUDA errors as element
 * errors, and the test-only fault injection that proves those paths.  The
 * base classes embed one and wrap it; elements call their base's wrappers.
 */
#ifndef __GST_CO_ENGINE_H__
#define __GST_CO_ENGINE_H__

#include <gst/gst.h>
#include "gstcodevice.h"

G_BEGIN_DECLS

typedef enum
{
  GST_CO_BACKEND_AUTO = 0,
  GST_CO_BACKEND_CUDA = 1,
  GST_CO_BACKEND_CPU = 2,
} GstCoBackend;

#define GST_TYPE_CO_BACKEND (gst_co_backend_get_type ())
GType gst_co_backend_get_type (void);

typedef struct
{
  /*< public: read-only, valid while streaming >*/
  GstCoBackend active_backend;  /* CUDA or CPU once started */
  GstCoDevice *device;          /* NULL on the CPU backend */
  gpointer stream;              /* cudaStream_t of this element */

  /*< private >*/
  GstElement *element;          /* errors go there (not a reference) */
  GstCoBackend backend;         /* properties, under the object lock */
  gint device_id;
  gpointer cuda_context;        /* GstCudaContext *, under the object lock */
  GstAllocator *host_alloc;     /* pinned memory of the device */
  gpointer gst_stream;          /* GstCudaStream * wrapping stream (1.24+) */
  gpointer event;               /* cudaEvent_t ordering foreign streams */
  gboolean downloaded;          /* the frame read results back */
  gchar *fault_step;            /* CO_FAULT_INJECT, armed at start */
  gint fault_nth, fault_seen;
} GstCoEngine;

/* The three properties every element has, ids @first (backend),
 * @first + 1 (device-id) and @first + 2 (active-backend). */
#define GST_CO_ENGINE_N_PROPS 3
void     gst_co_engine_class_install_properties (GObjectClass * klass,
    guint first);
/* TRUE when @index (the property id less @first) was the engine's */
gboolean gst_co_engine_set_property (GstCoEngine * e, guint index,
    const GValue * value);
gboolean gst_co_engine_get_property (GstCoEngine * e, guint index,
    GValue * value);

void     gst_co_engine_init     (GstCoEngine * e, GstElement * element);
/* Drops the context and what start armed (dispose) */
void     gst_co_engine_clear    (GstCoEngine * e);

/* The backend the properties ask for, the device opened when it is CUDA
 * (a warning and the CPU for auto without a device); @host_only: no CUDA
 * path.  FALSE after posting an element error. */
gboolean gst_co_engine_start    (GstCoEngine * e, gboolean host_only);
/* Device, context (shared, or made) and stream on @device_id */
gboolean gst_co_engine_open     (GstCoEngine * e, gint device_id,
    gchar ** why);
/* Everything open made, @release first (with the device pushed) for what
 * the element allocated on it; the context stays. */
void     gst_co_engine_close    (GstCoEngine * e,
    void (*release) (gpointer data), gpointer data);

/* context sharing */
void     gst_co_engine_set_context (GstCoEngine * e, GstContext * context);
gboolean gst_co_engine_query_context (GstCoEngine * e, GstQuery * query);
void     gst_co_engine_drop_context (GstCoEngine * e);
/* Adopts @ctx (a GstCudaContext) as the element's */
void     gst_co_engine_replace_context (GstCoEngine * e, gpointer ctx);

/* memory and copies (gstcobasefilter.h's gst_co_base_filter_* say how) */
gboolean gst_co_engine_cuda_ok  (GstCoEngine * e, int err, const gchar * what);
gpointer gst_co_engine_alloc    (GstCoEngine * e, gsize size);
void     gst_co_engine_free     (GstCoEngine * e, gpointer mem);
gpointer gst_co_engine_alloc_host (GstCoEngine * e, gsize size);
void     gst_co_engine_free_host (GstCoEngine * e, gpointer mem);
GstMemory *gst_co_engine_alloc_results (GstCoEngine * e, gsize size);
gboolean gst_co_engine_ensure   (GstCoEngine * e, gpointer * mem,
    gsize * cur_size, gsize size);
gboolean gst_co_engine_upload   (GstCoEngine * e, gpointer dst,
    gconstpointer src, gsize size, const gchar * what);
gboolean gst_co_engine_download (GstCoEngine * e, gpointer dst,
    gconstpointer src, gsize size, const gchar * what);
gboolean gst_co_engine_sync     (GstCoEngine * e, const gchar * what);

G_END_DECLS
#endif
