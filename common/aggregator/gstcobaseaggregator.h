/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseAggregator: the family's base for elements with several inputs
 * (cudacltcorrelate: one camera per pad), on GstAggregator.  It embeds the
 * same device layer as GstCoBaseFilter (GstCoEngine: backend, device,
 * context, stream, memory, errors) and the same settings table
 * (gstcosettings.h), and owns what is its own: request sink pads
 * (GstCoAggregatorPad, or the element's subclass of it) whose caps are
 * parsed and checked against each other, frames of one instant matched
 * by running time, every pad's frame run through the engine's frame
 * runner (gstcoengine.h) as the filters' frames are, and the host's wait
 * for an output deferred while the next instant's frames are already
 * there.  A subclass sees the matched frames, all on the device (CUDA) or
 * all on the host (CPU), and gives the buffer to push.
 */
#ifndef __GST_CO_BASE_AGGREGATOR_H__
#define __GST_CO_BASE_AGGREGATOR_H__

#include <gst/base/gstaggregator.h>
#include "gstcocaps.h"
#include "gstcoengine.h"
#include "gstcoelement.h"
#include "gstcosettings.h"

G_BEGIN_DECLS

/* What the base needs of an input; an element whose inputs carry more
 * (cudacltcorrelate: each camera's files) subclasses it and passes its
 * type to gst_co_base_aggregator_class_add_sink_template.  Written out
 * rather than G_DECLARE_DERIVABLE_TYPE, whose instance struct holds only
 * the parent: the element reads these fields. */
#define GST_TYPE_CO_AGGREGATOR_PAD            (gst_co_aggregator_pad_get_type ())
#define GST_CO_AGGREGATOR_PAD(obj)            (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_CO_AGGREGATOR_PAD, GstCoAggregatorPad))
#define GST_CO_AGGREGATOR_PAD_CLASS(klass)    (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_CO_AGGREGATOR_PAD, GstCoAggregatorPadClass))
#define GST_CO_AGGREGATOR_PAD_GET_CLASS(obj)  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_CO_AGGREGATOR_PAD, GstCoAggregatorPadClass))
#define GST_IS_CO_AGGREGATOR_PAD(obj)         (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_CO_AGGREGATOR_PAD))

typedef struct _GstCoAggregatorPad GstCoAggregatorPad;
typedef struct _GstCoAggregatorPadClass GstCoAggregatorPadClass;

struct _GstCoAggregatorPad
{
  GstAggregatorPad parent;

  /*< public: read-only, valid while streaming >*/
  gboolean configured;          /* caps received and accepted */
  GstCoVideoInfo in;            /* what it carries (gstcocaps.h) */
  guint index;                  /* N of sink_N */

  /*< private >*/
  GstCoStage stage;
  gboolean warned_context;
  gboolean arrived;             /* a frame since the last drop (wake_lock) */
};

struct _GstCoAggregatorPadClass
{
  GstAggregatorPadClass parent_class;

  gpointer _reserved[GST_PADDING];
};

GType gst_co_aggregator_pad_get_type (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCoAggregatorPad, gst_object_unref)

#define GST_TYPE_CO_BASE_AGGREGATOR            (gst_co_base_aggregator_get_type ())
#define GST_CO_BASE_AGGREGATOR(obj)            (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_CO_BASE_AGGREGATOR, GstCoBaseAggregator))
#define GST_CO_BASE_AGGREGATOR_CLASS(klass)    (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_CO_BASE_AGGREGATOR, GstCoBaseAggregatorClass))
#define GST_CO_BASE_AGGREGATOR_GET_CLASS(obj)  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_CO_BASE_AGGREGATOR, GstCoBaseAggregatorClass))
#define GST_IS_CO_BASE_AGGREGATOR(obj)         (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_CO_BASE_AGGREGATOR))

typedef struct _GstCoBaseAggregator GstCoBaseAggregator;
typedef struct _GstCoBaseAggregatorClass GstCoBaseAggregatorClass;
typedef struct _GstCoBaseAggregatorPrivate GstCoBaseAggregatorPrivate;

struct _GstCoBaseAggregator
{
  GstAggregator parent;

  /*< protected: read-only for subclasses, valid while streaming >*/
  GstCoEngine engine;
  /* the pads of the instant being processed, by index (process, finish) */
  GstCoAggregatorPad **pads;
  guint n_pads;

  /*< private >*/
  GstCoBaseAggregatorPrivate *priv;
};

struct _GstCoBaseAggregatorClass
{
  GstAggregatorClass parent_class;

  /* set in class_init */
  gboolean host_only;           /* no CUDA path (yet) */
  guint max_pads;               /* 0: any number */

  /* Caps offered to @pad, parsed (@info, @bayer): FALSE and *@why (a
   * sentence without the pad's name) for what the element cannot work on.
   * Called for upstream's ACCEPT_CAPS query (no side effect: the answer
   * is no) and for the CAPS event (an element error that says why).  That
   * every frame of an instant has one size is the base's check, before
   * process.  Optional. */
  gboolean      (*check_info) (GstCoBaseAggregator * self,
                               GstCoAggregatorPad * pad,
                               const GstVideoInfo * info, CoBayer bayer,
                               gchar ** why);
  /* The output caps once every pad is configured (@downstream: what the
   * peer accepts, to intersect with); NULL: not yet. */
  GstCaps *     (*src_caps)  (GstCoBaseAggregator * self,
                              GstCaps * downstream);
  /* As GstCoBaseFilter's: what the frames need, built from the settings
   * and every pad's caps, before the first frame, after any pad's caps
   * changed (@caps_changed) and after gst_co_base_aggregator_mark_dirty. */
  gboolean      (*rebuild)   (GstCoBaseAggregator * self,
                              gboolean caps_changed);
  /* The matched frames of one instant: @frames[i] and @inbufs[i] of
   * self->pads[i], on the device (work on self->engine.stream) or mapped
   * on the host.  *@outbuf: the buffer to push (its timestamps are set by
   * the base; gst_co_base_aggregator_alloc gives one of the negotiated
   * output caps), or NULL for none this time.  *@output: what finish needs
   * of this output (results, the settings it was made with): finish may
   * run after the next instant's process, once this output's device work
   * is done. */
  GstFlowReturn (*process)   (GstCoBaseAggregator * self,
                              GstBuffer * const *inbufs,
                              const CoFrame * frames, guint n,
                              GstBuffer ** outbuf, gpointer * output);
  /* After the output's device work: results read back are readable;
   * attach metas, post messages.  Takes @output.  Optional. */
  GstFlowReturn (*finish)    (GstCoBaseAggregator * self,
                              GstBuffer * outbuf, gpointer output);
  /* An @output that never reaches finish (a flush, a stop, an error) */
  void          (*drop_output) (GstCoBaseAggregator * self,
                                gpointer output);
  /* Free everything allocated for the active backend (device pushed) */
  void          (*release)   (GstCoBaseAggregator * self);
  /* After a setting of the table was written (object lock held) */
  void          (*setting_changed) (GstCoBaseAggregator * self,
                                    guint prop_id);

  gpointer _reserved[GST_PADDING];
};

GType gst_co_base_aggregator_get_type (void);

/* The request sink pad template (sink_%u) of the given caps
 * (gst_co_template_caps) whose pads are @pad_type: GST_TYPE_CO_AGGREGATOR_PAD
 * or a subclass of it */
void     gst_co_base_aggregator_class_add_sink_template (GstElementClass *
    klass, GstCaps * caps, GType pad_type);
/* The element's settings table (gstcosettings.h): a rebuild row marks a
 * rebuild before the next frame, a resize row renegotiates the source pad */
void     gst_co_base_aggregator_class_install_settings (
    GstCoBaseAggregatorClass * klass, gsize instance_offset, gsize size,
    const GstCoSetting * settings, guint n);
/* A pad subclass's settings table: a rebuild row makes the pad's element
 * rebuild before its next frame.  The pad calls gst_co_settings_init_instance
 * and gst_co_settings_finalize. */
void     gst_co_aggregator_pad_class_install_settings (
    GstCoAggregatorPadClass * klass, gsize instance_offset, gsize size,
    const GstCoSetting * settings, guint n);
/* The calls every element and pad make: the array @settings for the
 * settings struct that is the member @member of the instance struct
 * @type, whose offset and size follow from them (as
 * GST_CO_BASE_FILTER_CLASS_INSTALL). */
#define GST_CO_BASE_AGGREGATOR_CLASS_INSTALL(klass, type, member, settings) \
  gst_co_base_aggregator_class_install_settings (klass,                     \
      G_STRUCT_OFFSET (type, member), sizeof (((type *) 0)->member),        \
      settings, G_N_ELEMENTS (settings))
#define GST_CO_AGGREGATOR_PAD_CLASS_INSTALL(klass, type, member, settings)  \
  gst_co_aggregator_pad_class_install_settings (klass,                      \
      G_STRUCT_OFFSET (type, member), sizeof (((type *) 0)->member),        \
      settings, G_N_ELEMENTS (settings))
void     gst_co_base_aggregator_snapshot (GstCoBaseAggregator * self,
    gpointer dst);
void     gst_co_base_aggregator_snapshot_clear (GstCoBaseAggregator * self,
    gpointer snap);
/* Call with the object lock held (a property setter) */
void     gst_co_base_aggregator_mark_dirty (GstCoBaseAggregator * self);
/* *@buf: an output buffer of the negotiated caps from the pool decided
 * with downstream (ours, pinned on the CUDA backend, when downstream
 * offered none).  Anything but OK leaves it NULL: FLUSHING during a seek,
 * else after an element error. */
GstFlowReturn gst_co_base_aggregator_alloc (GstCoBaseAggregator * self,
    GstBuffer ** buf);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCoBaseAggregator, gst_object_unref)

G_END_DECLS
#endif
