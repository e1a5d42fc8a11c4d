/* cudaoptics — LGPL-2.1-or-later
 *
 * The views of cudaomniunwrap, shared by the C reference and CUDA (written
 * once, __host__ __device__).  Coordinates: pixel centres on integers, the
 * source image's x to the right and y down, angles measured that way (90
 * degrees is below the centre).
 *
 * The output is a grid of panels (the `layout`: one, two stacked halves,
 * four views), each showing the k-th of n equal sectors of the 360 degrees,
 * magnified by `zoom` about its centre.  Inside a panel, s (across) and t
 * (down) run over [0, 1] where the panel shows the viewing window at zoom 1;
 * outside that range there is no source pixel.  For the panoramas the
 * sector's fraction a = (k + s) / n of the turn is the azimuth
 *   theta = start - dir 2 pi a
 * (dir +1: counter-clockwise on screen) and t the height in the window
 * (0: its top, the rim of the donut).  `polar` samples the image radius
 *   r = r_out - (r_out - r_in) t      at (cx + r cos theta, cy + r sin theta).
 * The mirror projections take r from the mirror model (omni_mirror.h).
 */
#ifndef CO_OMNI_MATH_H
#define CO_OMNI_MATH_H

#include "co_frame.h"
#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CO_OMNI_MAX_PANELS 4

typedef struct
{
  float cx, cy;                 /* the donut's or mirror's centre, source px */
  float r_in, r_out;            /* polar: radii, source pixels, r_in < r_out */
  float start;                  /* azimuth of the seam, radians */
  float dir;                    /* +1 counter-clockwise on screen, -1 not */
  int32_t cols, rows;           /* the panels */
  float pw, ph;                 /* a panel, full-resolution output pixels */
  float zoom;
  /* ground: image-axis directions of a panel's right (+s) and down (+t),
   * and where the axis is in it (t of the anchor: 0.5 one view, 1 the
   * panels' bottom edge) */
  float right[CO_OMNI_MAX_PANELS][2], down[CO_OMNI_MAX_PANELS][2];
  float anchor_t;
} CoOmniView;

CO_HD int
co_omni_clampi (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* The panel row of full-resolution output row v, and t in it. */
CO_HD float
co_omni_t (const CoOmniView * w, float v, int *pr)
{
  int r = co_omni_clampi ((int) floorf ((v + 0.5f) / w->ph), 0, w->rows - 1);

  *pr = r;
  return 0.5f + (((v + 0.5f) - (float) r * w->ph) / w->ph - 0.5f) / w->zoom;
}

/* The panel of column u in panel row @pr, and s in it. */
CO_HD float
co_omni_s (const CoOmniView * w, float u, int pr, int *k)
{
  int c = co_omni_clampi ((int) floorf ((u + 0.5f) / w->pw), 0, w->cols - 1);

  *k = pr * w->cols + c;
  return 0.5f + (((u + 0.5f) - (float) c * w->pw) / w->pw - 0.5f) / w->zoom;
}

/* Whether t (or s) is inside the window. */
CO_HD int
co_omni_inside (float t)
{
  return t >= 0.0f && t <= 1.0f;
}

/* One map entry from its row's image radius @rho and its column's
 * (cos, sin): the fill both backends run on the same tables (the
 * trigonometry is computed once, on the host, so they agree to the bit). */
CO_HD void
co_omni_entry (const CoOmniView * p, float rho, float ct, float st,
    float scale, float *x, float *y)
{
  *x = (p->cx + rho * ct + 0.5f) / scale - 0.5f;
  *y = (p->cy + rho * st + 0.5f) / scale - 0.5f;
}

/* Fills a panorama plane's map (CUDA, on @stream; kernels/omni.cu) from a
 * table of image radii, @n_rho per output row, and the (cos, sin, entry)
 * of each column in each panel row, @width per panel row, in @trig (the
 * column takes radius number `entry` of its row).  Returns a cudaError_t. */
int co_omni_fill_cuda (const CoOmniView * p, const float *rho, int n_rho,
    const float *trig, int width, int height, float scale, float *x,
    float *y, int pitch, void *stream);

/* The host twin of co_omni_fill_cuda: entry (c, r). */
CO_HD void
co_omni_fill_px (const CoOmniView * p, const float *rho, int n_rho,
    const float *trig, int width, int c, int r, float scale, float *x,
    float *y, int pitch)
{
  int pr;
  const float *col;

  co_omni_t (p, ((float) r + 0.5f) * scale - 0.5f, &pr);
  col = trig + 3 * ((size_t) pr * width + c);
  co_omni_entry (p, rho[(size_t) r * n_rho + (int) col[2]], col[0], col[1],
      scale, &x[(size_t) r * pitch + c], &y[(size_t) r * pitch + c]);
}

/* polar: the image radius at t, NaN outside the donut. */
CO_HD float
co_omni_polar_radius (const CoOmniView * p, float t)
{
  return co_omni_inside (t) ? p->r_out - (p->r_out - p->r_in) * t : NAN;
}

/* The strip's natural size: as many columns as the mid-radius circle has
 * pixels, as many rows as the donut is thick (at least 1 each). */
CO_HD void
co_omni_polar_size (float r_in, float r_out, int *w, int *h)
{
  float mid = 0.5f * (r_in + r_out);
  float ww = 6.28318530717958647692f * mid + 0.5f;
  float hh = r_out - r_in + 0.5f;
  /* clamped before the conversion: radii near FLT_MAX are legal settings,
   * and a float beyond int's range converts to anything */
  *w = !(ww >= 1.0f) ? 1 : ww > 1073741824.0f ? 1073741824 : (int) ww;
  *h = !(hh >= 1.0f) ? 1 : hh > 1073741824.0f ? 1073741824 : (int) hh;
}

#ifdef __cplusplus
}
#endif
#endif
