/* cudaoptics — LGPL-2.1-or-later
 *
 * The coarse-to-fine search of cudacltcorrelate (max-shift): one
 * correlation sees shifts of -7..7 pixels, so larger ones are found on a
 * pyramid of the grey planes, each level half the one below (a 2x2 mean),
 * written once for the C reference and the CUDA kernels.
 *
 * Level l + 1's pixel u is level l's 2 u + 0.5 (the centre of the four it
 * averages), so its tile T (centred at 8 T - 0.5) sits where level l's
 * tile 2 T does, and a shift there is twice as many pixels here.  On the
 * coarsest level every tile tries a grid of start shifts 8 pixels apart
 * (a sweep: each correlation's -7..7 overlaps the next's); on each finer
 * level a tile tries its nearest parents' answers, doubled (its own
 * parent's and its neighbours', so that a tile on a depth edge can take
 * the answer of the side it belongs to).  Of a tile's tries the one whose
 * correlation peaks highest wins: the start plus the shift it measured.
 * Where the direction is known (a rectified pair's rows, a rig's
 * baselines) the starts lie on that line: fewer tries, and no match
 * across it.
 */
#ifndef CO_CLT_SEARCH_MATH_H
#define CO_CLT_SEARCH_MATH_H

#include <math.h>
#include "clt_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* shifts a level's correlation is trusted with: a try's start is this far
 * from the next (the sweep's grid) */
#define CO_CLT_SEARCH_STEP 8
/* a finer level's tries: the 3 x 3 parents around a tile's own */
#define CO_CLT_SEARCH_PARENTS 9
/* a try whose start lies within this many pixels (each way) of an
 * earlier one's would measure the same: it is left out */
#define CO_CLT_SEARCH_SAME 0.5f

/* Pixel (@x, @y) of the level above a @w x @h plane: the mean of the 2x2
 * pixels under it, those past the last row or column counted as the last
 * (its size is (w + 1) / 2 x (h + 1) / 2) */
CO_HD float
co_clt_search_half_at (const float *src, int w, int h, int x, int y)
{
  const int x0 = 2 * x, y0 = 2 * y;
  const int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;

  return ((src[(size_t) y0 * w + x0] + src[(size_t) y0 * w + x1]) +
      (src[(size_t) y1 * w + x0] + src[(size_t) y1 * w + x1])) * 0.25f;
}

/* A search along a line (a rectified pair's rows, a rig's baseline): the
 * unit vector (ux, uy); any direction: along 0 */
typedef struct
{
  int along;
  float ux, uy;
} CoCltSearchLine;

/* Try @k of the sweep of @reach pixels (a multiple of the step): start
 * shifts on a grid from -reach to reach, along @line ((2 reach / step +
 * 1) tries) or on a square, row after row ((2 reach / step + 1)^2) */
CO_HD void
co_clt_search_sweep_at (int k, int reach, CoCltSearchLine line, float *sx,
    float *sy)
{
  const int side = 2 * reach / CO_CLT_SEARCH_STEP + 1;

  if (line.along) {
    const float t = (float) (k * CO_CLT_SEARCH_STEP - reach);
    *sx = t * line.ux;
    *sy = t * line.uy;
    return;
  }
  *sx = (float) ((k % side) * CO_CLT_SEARCH_STEP - reach);
  *sy = (float) ((k / side) * CO_CLT_SEARCH_STEP - reach);
}

/* Parent @k (0..CO_CLT_SEARCH_PARENTS - 1) of tile @i of a level of
 * @tx_n tiles a row: the index of the level above's tile (@ptx_n x
 * @pty_n) @k steps around tile i's own, clamped to that level */
CO_HD size_t
co_clt_search_parent_index (int i, int k, int tx_n, int ptx_n, int pty_n)
{
  const int tx = i % tx_n, ty = i / tx_n;
  int px = tx / 2 + k % 3 - 1, py = ty / 2 + k / 3 - 1;

  px = px < 0 ? 0 : px >= ptx_n ? ptx_n - 1 : px;
  py = py < 0 ? 0 : py >= pty_n ? pty_n - 1 : py;
  return (size_t) py * ptx_n + px;
}

/* The start parent answer (@pdx, @pdy)[j] gives: doubled (along @line:
 * its part along it) */
CO_HD void
co_clt_search_parent_start (const float *pdx, const float *pdy, size_t j,
    CoCltSearchLine line, float *sx, float *sy)
{
  if (line.along) {
    const float t = 2.0f * (pdx[j] * line.ux + pdy[j] * line.uy);
    *sx = t * line.ux;
    *sy = t * line.uy;
    return;
  }
  *sx = 2.0f * pdx[j];
  *sy = 2.0f * pdy[j];
}

/* Try @k of tile @i from the answers of the level above: its start
 * (@sx, @sy) and whether it is worth a correlation (@on 1; 0: an earlier
 * try's start is within CO_CLT_SEARCH_SAME, as on smooth surfaces, where
 * the nine parents mostly agree) */
CO_HD void
co_clt_search_parent_at (int i, int k, int tx_n, int ptx_n, int pty_n,
    const float *pdx, const float *pdy, CoCltSearchLine line, float *sx,
    float *sy, float *on)
{
  float x, y, ex, ey;
  int e, fresh = 1;

  co_clt_search_parent_start (pdx, pdy, co_clt_search_parent_index (i, k,
          tx_n, ptx_n, pty_n), line, &x, &y);
  for (e = 0; e < k && fresh; e++) {
    co_clt_search_parent_start (pdx, pdy, co_clt_search_parent_index (i, e,
            tx_n, ptx_n, pty_n), line, &ex, &ey);
    fresh = fabsf (ex - x) > CO_CLT_SEARCH_SAME ||
        fabsf (ey - y) > CO_CLT_SEARCH_SAME;
  }
  *sx = x;
  *sy = y;
  *on = fresh ? 1.0f : 0.0f;
}

/* Tile @i's try from the start (@sx, @sy)[i], which measured (@rdx, @rdy)
 * with strength @rs (if @on[i]; NULL: every tile tried): kept in (@dx,
 * @dy, @strength) if it peaks higher than the tries before (@first: the
 * first try, kept whatever it is) */
CO_HD void
co_clt_search_keep_at (int i, int first, const float *sx, const float *sy,
    const float *on, const float *rdx, const float *rdy, const float *rs,
    float *dx, float *dy, float *strength)
{
  if (on && on[i] == 0.0f)
    return;
  if (first || rs[i] > strength[i]) {
    dx[i] = sx[i] + rdx[i];
    dy[i] = sy[i] + rdy[i];
    strength[i] = rs[i];
  }
}

/* Tile @i's shift (@dx, @dy) as a disparity along @line, times @scale
 * (a rig's pre-shift: the reference pair's pixels) into @d */
CO_HD void
co_clt_search_along_at (int i, const float *dx, const float *dy,
    CoCltSearchLine line, float scale, float *d)
{
  d[i] = (dx[i] * line.ux + dy[i] * line.uy) * scale;
}

#ifdef __cplusplus
}
#endif
#endif
