/* cudaoptics — LGPL-2.1-or-later
 *
 * cudacltcorrelate's picture of its results (output=map): each tile's
 * disparity or flow false-coloured, dimmed where the correlation is weak,
 * drawn over the frame's pixels, for display.
 */
#ifndef __GST_CUDA_CLT_CORRELATE_MAP_H__
#define __GST_CUDA_CLT_CORRELATE_MAP_H__

#include <glib.h>

G_BEGIN_DECLS

/* An RGBA picture @w x @h (@stride bytes a row) of one frame's results,
 * tile (tx, ty) covering pixels 8 tx - 4 .. 8 tx + 3 across and down.
 * With @disparity (a rig's: tiles_x x tiles_y floats) a colour scale from
 * -@range (blue) through 0 (green) to +@range (red); else the flow
 * (@dx, @dy) as a colour wheel, hue the direction, saturation the length
 * (full at @range).  @weight (strength or confidence) dims a tile below
 * 0.5 towards black. */
void gst_co_corr_map_render (guint8 * rgba, gint w, gint h, gint stride,
    gint tiles_x, gint tiles_y, const gfloat * disparity, const gfloat * dx,
    const gfloat * dy, const gfloat * weight, gdouble range);

/* output=disparity: a 16-bit picture @w x @h (@stride bytes a row) in
 * KITTI's convention, value = 256 x disparity, 0 = no answer: @sign x @d
 * of each tile (tiles as the map's) where @weight >= @min_weight and that
 * disparity is above 0 (at most 255.996 px); little-endian, or
 * @big_endian. */
void gst_co_corr_disparity_render (guint8 * pix, gint w, gint h, gint stride,
    gint tiles_x, gint tiles_y, const gfloat * d, gfloat sign,
    const gfloat * weight, gfloat min_weight, gboolean big_endian);

/* The median of the @n values of @v whose @weight is at least
 * @min_weight (NaN when none), and how many those are.  @scratch holds
 * @n floats. */
gfloat gst_co_corr_median (const gfloat * v, const gfloat * weight, gint n,
    gfloat min_weight, gfloat * scratch, gint * count);

G_END_DECLS
#endif
