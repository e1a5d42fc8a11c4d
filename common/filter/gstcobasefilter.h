/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter: the abstract GstBaseTransform every cudaoptics element
 * derives from.  It owns the backend choice (CUDA or the C reference), the
 * device and the context shared with the pipeline, the element's CUDA
 * stream, buffer pools on both pads, and the journey of each frame to and
 * from memory the device can read.  A subclass sees two CoFrames that are
 * both on the device (CUDA backend) or both on the host (CPU backend) and
 * does its maths on them.
 *
 * What the pads may do differs by element and is said once, by the class's
 * mode (GstCoFilterMode); "Writing an element" in docs/architecture.md walks through
 * each.
 */
#ifndef __GST_CO_BASE_FILTER_H__
#define __GST_CO_BASE_FILTER_H__

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include "gstcocaps.h"
#include "gstcoengine.h"
#include "gstcoelement.h"
#include "gstcosettings.h"
#include "co_frame.h"

G_BEGIN_DECLS

/**
 * GstCoFilterMode:
 * @GST_CO_FILTER_SAME: same format and size on both pads, a new output
 *   buffer per frame (cudalensdistort)
 * @GST_CO_FILTER_RESIZE: the output size is free: the class's
 *   get_output_size gives it unless downstream fixes one
 * @GST_CO_FILTER_CONVERT: the pads carry different formats, those of their
 *   templates (video/x-bayer in, RGBA out...); may be or'ed with RESIZE
 * @GST_CO_FILTER_ANALYSE: frames pass through in place, pixels untouched
 *   (or written once gst_co_base_filter_set_writes() asked for it), caps
 *   and memory unchanged; process gets @out NULL, or the input frame itself
 *   when writing; finish may attach metas (the buffer is writable)
 */
typedef enum
{
  GST_CO_FILTER_SAME = 0,
  GST_CO_FILTER_RESIZE = 1 << 0,
  GST_CO_FILTER_CONVERT = 1 << 1,
  GST_CO_FILTER_ANALYSE = 1 << 2,
} GstCoFilterMode;

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
  GstCoVideoInfo in, out;       /* what each pad carries (gstcocaps.h) */
  /* engine.active_backend (CUDA or CPU once started), engine.device (NULL
   * on the CPU backend), engine.stream (the cudaStream_t of this element) */
  GstCoEngine engine;

  /*< private >*/
  GstCoBaseFilterPrivate *priv;
};

struct _GstCoBaseFilterClass
{
  GstBaseTransformClass parent_class;

  /* set in class_init; read by the base class from instance init on */
  GstCoFilterMode mode;
  /* No CUDA path (yet): backend=auto takes the CPU without a warning,
   * backend=cuda is an error at start. */
  gboolean host_only;

  /* Both infos parsed and supported: refuse what the element cannot
   * work on (a clear error), or note what the caps alone say.  Called from
   * set_caps, with the infos already stored in the instance and the device
   * current; again on every renegotiation.  What is built from the caps
   * belongs in rebuild, which the base calls after every renegotiation.
   * The caps are there for what an info does not hold (a Bayer order is
   * in self->in.bayer).  Optional. */
  gboolean      (*set_info) (GstCoBaseFilter * self,
                             GstCaps * incaps, const GstVideoInfo * in_info,
                             GstCaps * outcaps, const GstVideoInfo * out_info);
  /* Everything the frames need that is built from the settings and the
   * negotiated caps (tables, plans, files), in the streaming thread,
   * outside the object lock, with the device current and the infos of
   * the caps in the instance.  The base calls it before the first frame,
   * after every renegotiation, context adoption or release (@caps_changed
   * TRUE), and before the next frame whenever
   * gst_co_base_filter_mark_dirty() was called.  Take the snapshot of the
   * settings under the object lock at its start.  Until it returns TRUE
   * no frame is processed (ready is cleared before the call, so a build
   * that fails half way is never used, and is tried again next frame).
   * FALSE: an error was posted.  A file that fails while PLAYING is a
   * warning and a TRUE return that keeps the last good state. */
  gboolean      (*rebuild)  (GstCoBaseFilter * self, gboolean caps_changed);
  /* One frame.  With the CUDA backend, the device is pushed, both frames are
   * device memory and work goes on self->engine.stream (the base class syncs).
   * With the CPU backend both are mapped host memory.  ANALYSE: @out is
   * NULL, or @in itself once the element asked to write. */
  GstFlowReturn (*process)  (GstCoBaseFilter * self, const CoFrame * in,
                             CoFrame * out);
  /* Free everything allocated for the active backend (device pushed). */
  void          (*release)  (GstCoBaseFilter * self);

  /* RESIZE: the output size the element's geometry gives for input @in.
   * Called while caps are fixated (any thread): read properties under the
   * object lock.  Unset: the input's size. */
  void          (*get_output_size) (GstCoBaseFilter * self,
                                    const GstVideoInfo * in,
                                    gint * width, gint * height);
  /* After process: attach metas, post messages.  When process read
   * results back (gst_co_element_download), the frame's one host
   * synchronisation comes first, so they are readable here; values the
   * element knows on the host (a fixation) cost no wait: on 1.24+ the
   * frame then stays ordered on the device by its stream.  @inbuf ==
   * @outbuf in ANALYSE mode. */
  GstFlowReturn (*finish)   (GstCoBaseFilter * self, GstBuffer * inbuf,
                             GstBuffer * outbuf);

  /* After a setting of the table was written, with the object lock held:
   * what else follows from it (a value that goes with it).  Optional. */
  void          (*setting_changed) (GstCoBaseFilter * self, guint prop_id);

  gpointer _reserved[GST_PADDING];
};

GType gst_co_base_filter_get_type (void);

/* Declares the element's properties once: installs every row's pspec (ids
 * 1..n), points GObject's set/get_property at the table (an element with
 * other properties sets its own after this call and gives the table's ids
 * to gst_co_base_filter_set_setting first), writes under the object lock,
 * marks a rebuild or renegotiates as each row's flags say, and sets the
 * defaults of the pspecs when an instance is made.  @instance_offset: of
 * the settings struct in the instance; @size: its size.  @settings is
 * copied. */
void     gst_co_base_filter_class_install_settings (GstCoBaseFilterClass *
    klass, gsize instance_offset, gsize size, const GstCoSetting * settings,
    guint n);
/* The call every element makes: the array @settings for the settings
 * struct that is the member @member of its instance struct @type, whose
 * offset and size follow from them. */
#define GST_CO_BASE_FILTER_CLASS_INSTALL(klass, type, member, settings)     \
  gst_co_base_filter_class_install_settings (klass,                         \
      G_STRUCT_OFFSET (type, member), sizeof (((type *) 0)->member),        \
      settings, G_N_ELEMENTS (settings))
/* For an element's own set/get_property: TRUE when @prop_id is the
 * table's, and done. */
gboolean gst_co_base_filter_set_setting (GObject * object, guint prop_id,
    const GValue * value);
gboolean gst_co_base_filter_get_setting (GObject * object, guint prop_id,
    GValue * value);
/* A copy of the settings struct taken under the object lock, its strings
 * duplicated; gst_co_base_filter_snapshot_clear frees them.  Streaming
 * thread (rebuild, process). */
void     gst_co_base_filter_snapshot (GstCoBaseFilter * self, gpointer dst);
void     gst_co_base_filter_snapshot_clear (GstCoBaseFilter * self,
    gpointer snap);

/* Pad templates (gst_co_template_caps): the same caps and size limit on
 * both pads, in both memory domains (SAME, RESIZE, ANALYSE). */
void     gst_co_base_filter_class_add_video_templates (GstElementClass * klass,
                                                       const gchar * formats,
                                                       gint max_size);
/* A filter whose two pads take the same formats, in one call: the family's
 * metadata (gst_co_element_class_set_metadata) and those templates. */
void     gst_co_base_filter_class_set_details (GstCoBaseFilterClass * klass,
                                               const gchar * longname,
                                               const gchar * classification,
                                               const gchar * description,
                                               const gchar * formats,
                                               gint max_size);
/* One pad's template (CONVERT): @media_type "video/x-raw" or
 * "video/x-bayer", @formats a caps format list, e.g. "{ RGBA, BGRx }". */
void     gst_co_base_filter_class_add_template (GstElementClass * klass,
                                                GstPadDirection direction,
                                                const gchar * media_type,
                                                const gchar * formats,
                                                gint max_size);
/* One pad's template of several media types, e.g. "video/x-bayer",
 * "{ rggb, bggr }", "video/x-raw", "GRAY16_LE", NULL. */
void     gst_co_base_filter_class_add_template_list (GstElementClass * klass,
                                                     GstPadDirection direction,
                                                     gint max_size,
                                                     const gchar * media_type,
                                                     const gchar * formats,
                                                     ...) G_GNUC_NULL_TERMINATED;

/* The settings changed so that rebuild must run before the next frame.
 * Call with the object lock held (from a property setter). */
void     gst_co_base_filter_mark_dirty (GstCoBaseFilter * self);
/* gst_co_base_filter_set_writes with the object lock already held (from
 * setting_changed). */
void     gst_co_base_filter_set_writes_locked (GstCoBaseFilter * self,
    gboolean writes);

/* ANALYSE: whether process may write the frame's pixels (an overlay).  Off:
 * the pixels are only read, never copied.  Any thread; from the next frame. */
void     gst_co_base_filter_set_writes (GstCoBaseFilter * self,
                                        gboolean writes);


G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCoBaseFilter, gst_object_unref)

G_END_DECLS
#endif
