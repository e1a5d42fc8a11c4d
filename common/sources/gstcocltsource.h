/* cudaoptics — LGPL-2.1-or-later
 *
 * The tile processor's lens for a frame, shared by cudaaberration and
 * cudacltcorrelate: the kernel file an element (or one of its pads) names,
 * read once per setting and cached with the memory of the last file that
 * could not be used (GstCoFileSetting, as every file setting); the
 * kernel nodes for a frame's size, the file's or the built-in Bayer
 * interpolation, with a low-pass folded in; and where each tile samples
 * the frame: the nodes' offsets plus a camera's undistortion (and
 * rectification) at the tile's centre.
 */
#ifndef __GST_CO_CLT_SOURCE_H__
#define __GST_CO_CLT_SOURCE_H__

#include <gst/gst.h>
#include "gstcocltkernels.h"
#include "gstcofilesetting.h"
#include "co_camera.h"

G_BEGIN_DECLS

typedef struct
{
  /*< private >*/
  GstCoCltKernels kernels;      /* the file in use; nodes NULL: none */
  gchar *path;                  /* what it was read for */
  GstCoFileSetting fs;          /* which setting was read, which failed */
  gint warned_w, warned_h;      /* the size warned of for these kernels */
} GstCoCltSource;

/* A frame's kernel nodes: @grid_w x @grid_h nodes @stride pixels apart,
 * @colours (1 or 3) of GST_CO_CLT_KERNELS_NODE_FLOATS floats each */
typedef struct
{
  gint grid_w, grid_h, stride, colours;
  gfloat *nodes;
} GstCoCltGrid;

/* The kernels of the file @path (NULL or empty: none) as setting @gen
 * (a counter the element bumps on every set): read again when set again.
 * A file that cannot be used (unreadable, or, @w > 0, a grid that does not
 * cover a @w x @h frame): with @keep (frames flowed), a warning on
 * @element's bus, once per setting, and the kernels in use stay; without,
 * FALSE with @error for the caller to post. */
gboolean gst_co_clt_source_update (GstCoCltSource * src, GstElement * element,
    const gchar * path, guint gen, int w, int h, gboolean keep,
    GError ** error);
/* Whether a file's kernels are in use */
gboolean gst_co_clt_source_has_file (const GstCoCltSource * src);
/* The nodes for a w x h frame into @grid (gst_co_clt_grid_clear): the
 * file's, or without one the built-in interpolation of each Bayer colour;
 * a Gaussian low-pass of @lpf_sigma pixels (0: none) folded in.  FALSE
 * with @error when the file's grid does not cover the frame; a warning on
 * @element (once per size) when it was made for another size. */
gboolean gst_co_clt_source_grid (GstCoCltSource * src, GstElement * element,
    gdouble lpf_sigma, int w, int h, GstCoCltGrid * grid, GError ** error);
/* Forgets everything: the next update reads the file again. */
void gst_co_clt_source_clear (GstCoCltSource * src);

/* Where each tile of the w x h frame's region @roi (x, y, width, height)
 * samples the frame, 3 floats a tile (red, green, blue) into @dx, @dy:
 * @grid's offsets, plus, with @cam, the camera's map at the tile's centre
 * (the corrected, rectified picture sampling the raw one). */
void gst_co_clt_grid_shifts (const GstCoCltGrid * grid, const CoCamera * cam,
    int w, int h, const gint roi[4], gfloat * dx, gfloat * dy);
/* The bytes of @grid's nodes */
gsize gst_co_clt_grid_bytes (const GstCoCltGrid * grid);
void gst_co_clt_grid_clear (GstCoCltGrid * grid);

G_END_DECLS
#endif
