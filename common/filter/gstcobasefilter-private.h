/* cudaoptics — LGPL-2.1-or-later
 *
 * What the files of GstCoBaseFilter share and nothing else sees.  The class
 * is split by duty:
 *   gstcobasefilter.c           GObject, properties, start/stop, dispatch
 *   gstcobasefilter-caps.c      the filter's negotiation: templates, caps
 *                               transform and fixation, caps query order,
 *                               set_caps (the family's caps: gstcocaps.c)
 *   gstcobasefilter-pool.c      pools, propose/decide allocation, metas
 *                               that survive, unit size
 *   gstcobasefilter-settings.c  the element's settings table: properties
 *                               declared once, written under the lock,
 *                               snapshots, the dirty mark
 *   gstcobasefilter-frame.c     the frame as the engine's runner takes it
 *                               (gstcoengine-run.c), context adoption
 *   gstcobasefilter-cuda.c      the engine (gstcoengine.h: device, context,
 *                               memory, CUDA errors) as the class's API
 * Calls go one way, down this list: gstcobasefilter.c calls the files
 * below it, the frame file calls the cuda file (the device closed for an
 * adoption), and the others call none of them.  What several touch, the
 * rebuild contract (priv's GstCoRebuild), is gstcosettings.h's: new caps,
 * a start or an adoption invalidate it there directly.
 */
#ifndef __GST_CO_BASE_FILTER_PRIVATE_H__
#define __GST_CO_BASE_FILTER_PRIVATE_H__

#include "gstcobasefilter.h"
#include "gstcohostmemory.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_co_base_filter_debug);

/* GstBaseTransform's class, for chaining up from any of the files */
#define CO_PARENT_CLASS \
  GST_BASE_TRANSFORM_CLASS (g_type_class_peek (GST_TYPE_BASE_TRANSFORM))

#define CO_MODE(self) (GST_CO_BASE_FILTER_GET_CLASS (self)->mode)

struct _GstCoBaseFilterPrivate
{
  gboolean started;             /* under the object lock and alloc_lock */
  GMutex alloc_lock;            /* an ALLOCATION query from upstream in
                                 * flight, against stop (gst_co_base_filter_query) */
  gboolean writes;              /* ANALYSE: process writes in place */

  /* the rebuild contract (gst_co_base_filter_mark_dirty,
   * gst_co_rebuild_invalidate) */
  GstCoRebuild rebuild;

  GstCoStage stage[2];          /* device frames for staged input, output */
  gboolean warned_context;
  gint warned_cuda_caps;         /* atomic: the CPU backend asked for CUDA memory */
};

/* caps */
gboolean  co_caps_is_cuda (GstCaps * caps, guint i);
gboolean  co_cpu_only (GstCoBaseFilter * self);
void      co_explain_empty_caps (GstCoBaseFilter * self, GstQuery * query);
GstCaps  *co_transform_caps (GstBaseTransform * bt, GstPadDirection direction,
                             GstCaps * caps, GstCaps * filter);
GstCaps  *co_fixate_caps (GstBaseTransform * bt, GstPadDirection direction,
                          GstCaps * caps, GstCaps * othercaps);
gboolean  co_set_caps (GstBaseTransform * bt, GstCaps * incaps,
                       GstCaps * outcaps);
gboolean  co_query_caps_sorted (GstBaseTransform * bt,
                                GstPadDirection direction, GstQuery * query);

/* pools and allocation */
gboolean  co_propose_allocation (GstBaseTransform * bt,
                                 GstQuery * decide_query, GstQuery * query);
gboolean  co_decide_allocation (GstBaseTransform * bt, GstQuery * query);
gboolean  co_transform_meta (GstBaseTransform * bt, GstBuffer * outbuf,
                             GstMeta * meta, GstBuffer * inbuf);
gboolean  co_get_unit_size (GstBaseTransform * bt, GstCaps * caps,
                            gsize * size);

/* device (the engine, and the inputs held for it) */
gboolean  co_open_device (GstCoBaseFilter * self, gint device_id,
                          gchar ** why);
void      co_close_device (GstCoBaseFilter * self);
void      co_adopt_context (GstCoBaseFilter * self, GstBuffer * buf);

/* frames */
GstFlowReturn co_transform (GstBaseTransform * bt, GstBuffer * inbuf,
                            GstBuffer * outbuf);
GstFlowReturn co_transform_ip (GstBaseTransform * bt, GstBuffer * buf);
void      co_free_stages (GstCoBaseFilter * self);

/* settings */
void      co_settings_init (GstCoBaseFilter * self);
void      co_settings_finalize (GstCoBaseFilter * self);

G_END_DECLS
#endif
