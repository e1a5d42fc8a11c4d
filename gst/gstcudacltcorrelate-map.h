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

G_END_DECLS
#endif
