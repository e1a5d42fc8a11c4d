/* cudaoptics — LGPL-2.1-or-later
 *
 * The maps of cudaomniunwrap, shared by the C reference and CUDA (written
 * once, __host__ __device__).  Coordinates: pixel centres on integers, the
 * source image's x to the right and y down.
 *
 * `polar`: the donut a 360-degree lens or mirror draws, unrolled into a
 * strip.  Output column u is the azimuth, row v the radius:
 *   theta = start - dir * 2 pi (u + 0.5) / W
 *   r     = r_out - (r_out - r_in) (v + 0.5) / H        (top row: outer edge)
 *   x     = cx + r cos theta,  y = cy + r sin theta
 * so the outer rim (the horizon of an upward-looking lens) is at the top
 * and the two ends of the strip meet at the seam `start`.
 */
#ifndef CO_OMNI_MATH_H
#define CO_OMNI_MATH_H

#include "co_frame.h"
#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  float cx, cy;                 /* the donut's centre, source pixels */
  float r_in, r_out;            /* its radii, source pixels, r_in < r_out */
  float start;                  /* azimuth of the seam, radians */
  float dir;                    /* +1 counter-clockwise on screen, -1 not */
  int32_t out_w, out_h;         /* the strip */
} CoOmniPolar;

/* One map entry from its row's image radius @rho and its column's
 * (cos, sin): the fill both backends run on the same tables (the
 * trigonometry is computed once, on the host, so they agree to the bit). */
CO_HD void
co_omni_entry (const CoOmniPolar * p, float rho, float ct, float st,
    float scale, float *x, float *y)
{
  *x = (p->cx + rho * ct + 0.5f) / scale - 0.5f;
  *y = (p->cy + rho * st + 0.5f) / scale - 0.5f;
}

/* The angle of output column u (full-resolution pixels). */
CO_HD float
co_omni_azimuth (const CoOmniPolar * p, float u)
{
  return p->start - p->dir * 6.28318530717958647692f * ((u + 0.5f) /
      (float) p->out_w);
}

/* Fills a plane's map (CUDA, on @stream; kernels/omni.cu) from a table of
 * image radii, @n_rho per row (column c takes entry trig[3c + 2] of its
 * row), and each column's (cos, sin, entry) in @trig.  Returns a
 * cudaError_t. */
int co_omni_fill_cuda (const CoOmniPolar * p, const float *rho, int n_rho,
    const float *trig, int width, int height, float scale, float *x,
    float *y, int pitch, void *stream);

/* The host twin of co_omni_fill_cuda. */
CO_HD void
co_omni_fill_px (const CoOmniPolar * p, const float *rho, int n_rho,
    const float *trig, int c, int r, float scale, float *x, float *y,
    int pitch)
{
  co_omni_entry (p, rho[(size_t) r * n_rho + (int) trig[3 * c + 2]],
      trig[3 * c], trig[3 * c + 1], scale, &x[(size_t) r * pitch + c],
      &y[(size_t) r * pitch + c]);
}

/* Host bytes to device memory on @stream.  Returns a cudaError_t. */
int co_omni_upload_cuda (void *dst, const void *src, size_t n, void *stream);

/* polar: the image radius of row v (full-resolution pixels), falling
 * linearly from the rim (top row) to the hole. */
CO_HD float
co_omni_polar_radius (const CoOmniPolar * p, float v)
{
  return p->r_out - (p->r_out - p->r_in) * ((v + 0.5f) / (float) p->out_h);
}

/* The strip's natural size: as many columns as the mid-radius circle has
 * pixels, as many rows as the donut is thick (at least 1 each). */
CO_HD void
co_omni_polar_size (float r_in, float r_out, int *w, int *h)
{
  float mid = 0.5f * (r_in + r_out);
  int ww = (int) (6.28318530717958647692f * mid + 0.5f);
  int hh = (int) (r_out - r_in + 0.5f);
  *w = ww < 1 ? 1 : ww;
  *h = hh < 1 ? 1 : hh;
}

#ifdef __cplusplus
}
#endif
#endif
