/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoRemapFilter: the abstract GstCoBaseFilter of every element that moves
 * pixels by backward mapping (each output pixel samples the input at a
 * position a map gives), in the spirit of gst-plugins-bad's
 * GstGeometricTransform.  It owns the look-up table on the active backend,
 * its encodings and samplers (kernels/remap.h) and their properties: `lut`,
 * `interpolation`, `border-color` and `off-edge`.  The table has the
 * negotiated output's size (self->out.info) and addresses the input
 * (self->in.info), so a RESIZE element gets other sizes for free.
 *
 * A subclass supplies only the map: map_cpu fills float source positions
 * (and map_cuda, optionally, does it on the device); or build_lut writes the
 * tables directly (an element whose maths runs inside the table builder).
 * Its property setters call gst_co_remap_filter_mark_dirty() under the
 * object lock; the table is then rebuilt at the start of the next frame,
 * in the streaming thread and outside the lock, after prepare has taken a
 * snapshot of the subclass's properties.  No frame mixes two geometries.
 */
#ifndef __GST_CO_REMAP_FILTER_H__
#define __GST_CO_REMAP_FILTER_H__

#include "gstcobasefilter.h"
#include "remap.h"

G_BEGIN_DECLS

#define GST_TYPE_CO_REMAP_FILTER            (gst_co_remap_filter_get_type ())
#define GST_CO_REMAP_FILTER(obj)            (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_CO_REMAP_FILTER, GstCoRemapFilter))
#define GST_CO_REMAP_FILTER_CLASS(klass)    (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_CO_REMAP_FILTER, GstCoRemapFilterClass))
#define GST_CO_REMAP_FILTER_GET_CLASS(obj)  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_CO_REMAP_FILTER, GstCoRemapFilterClass))
#define GST_IS_CO_REMAP_FILTER(obj)         (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_CO_REMAP_FILTER))

#define GST_TYPE_CO_LUT_MODE (gst_co_lut_mode_get_type ())
GType gst_co_lut_mode_get_type (void);
#define GST_TYPE_CO_INTERPOLATION (gst_co_interpolation_get_type ())
GType gst_co_interpolation_get_type (void);
#define GST_TYPE_CO_OFF_EDGE (gst_co_off_edge_get_type ())
GType gst_co_off_edge_get_type (void);

typedef struct _GstCoRemapFilter GstCoRemapFilter;
typedef struct _GstCoRemapFilterClass GstCoRemapFilterClass;
typedef struct _GstCoRemapFilterPrivate GstCoRemapFilterPrivate;

struct _GstCoRemapFilter
{
  GstCoBaseFilter parent;

  /*< private >*/
  GstCoRemapFilterPrivate *priv;
};

/**
 * GstCoRemapFilterClass:
 * @prepare: streaming thread, first thing of every rebuild: take a snapshot
 *   of the subclass's properties (under the object lock) and derive what
 *   the map needs (outside it).  @lut has its final layout (sizes, mode,
 *   interpolation, off-edge mode, fractional bits) and no tables yet;
 *   prepare may make it chromatic (co_lut_set_chroma: separate red and blue
 *   geometries, which the map functions and build_lut are then asked for
 *   too).  @caps_changed is TRUE on the first rebuild after (re)negotiation
 *   FALSE posts nothing: post an error first.  Optional.
 * @map_cpu: host memory: the source position of every output pixel of
 *   geometry @g (0: plane 0, 1: the subsampled planes, CO_LUT_RED/BLUE: the
 *   colours of a chromatic table; sizes in lut->plane[g]), @pitch floats from one row to the next, NaN where there
 *   is no source pixel.  Pixel centres on integers.  Required unless
 *   build_lut is set.
 * @map_cuda: the same in device memory, on the element's stream.  Optional:
 *   without it the CUDA backend runs map_cpu and uploads the map.
 * @build_lut: writes @lut's tables itself, on the active backend.  Optional;
 *   replaces map_cpu/map_cuda.
 * @remap: `lut=none`: remaps @in into @out evaluating the map per pixel, on
 *   the active backend (border colours as co_format_border gives for
 *   @border).  Optional: without it `none` builds float tables (two-table).
 */
struct _GstCoRemapFilterClass
{
  GstCoBaseFilterClass parent_class;

  gboolean      (*prepare)   (GstCoRemapFilter * self, CoLut * lut,
                              gboolean caps_changed);
  gboolean      (*map_cpu)   (GstCoRemapFilter * self, const CoLut * lut,
                              gint g, gfloat * x, gfloat * y, gint pitch);
  gboolean      (*map_cuda)  (GstCoRemapFilter * self, const CoLut * lut,
                              gint g, gfloat * x, gfloat * y, gint pitch);
  gboolean      (*build_lut) (GstCoRemapFilter * self, const CoLut * lut);
  GstFlowReturn (*remap)     (GstCoRemapFilter * self, const CoLut * lut,
                              const CoFrame * in, CoFrame * out,
                              const guint32 border[CO_MAX_PLANES]);

  gpointer _reserved[GST_PADDING];
};

GType gst_co_remap_filter_get_type (void);

/* The map changed: rebuild before the next frame.  Call with the object
 * lock held (from a property setter). */
void gst_co_remap_filter_mark_dirty (GstCoRemapFilter * self);
/* The subclass's map cannot be evaluated per pixel just now (a map read
 * from a file): lut=none builds float tables instead.  Object lock held. */
void gst_co_remap_filter_set_table_only (GstCoRemapFilter * self,
    gboolean table_only);
/* From build_lut: the tables from map_cpu (map_cuda on CUDA when set), as
 * when build_lut is not set. */
gboolean gst_co_remap_filter_build_from_maps (GstCoRemapFilter * self,
    const CoLut * lut);

/* A map file (the CO-MAP1 format, gstcomapfile.h: any geometry) in place
 * of the subclass's map, read once per setting @gen of @path (NULL or "":
 * none).  Before anything was built (@keep FALSE: at start, which forgets
 * the previous file) one that cannot be used is an error on the bus and
 * FALSE; later a warning, once per setting, and the map in use (or the
 * model) stays.  While a file's map is in use and the table is not
 * lut=none, the tables are built from it: build_lut and map_cpu are not
 * called.  From start or prepare. */
gboolean gst_co_remap_filter_use_map_file (GstCoRemapFilter * self,
    const gchar * path, guint gen, gboolean keep);
/* Whether @lut will be built from the map file (from prepare). */
gboolean gst_co_remap_filter_mapped (GstCoRemapFilter * self,
    const CoLut * lut);
/* For get_output_size: the size of the map file @path, or of the one in
 * use when it cannot be read (the warning says why); FALSE with no map. */
gboolean gst_co_remap_filter_map_file_size (GstCoRemapFilter * self,
    const gchar * path, gint * width, gint * height);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCoRemapFilter, gst_object_unref)

G_END_DECLS
#endif
