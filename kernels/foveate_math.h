/* cudaoptics — LGPL-2.1-or-later
 *
 * The foveation model of cudafoveate (after Malkin, Deza and Poggio,
 * "CUDA-Optimized real-time rendering of a Foveated Visual System", 2020,
 * on Geisler and Perry's contrast threshold), shared by the C reference and
 * CUDA (written once, __host__ __device__, float arithmetic that both round
 * the same way: no contraction, no transcendental the two libraries could
 * round apart on the device side).
 *
 * A pixel at distance d (pixels) from the fixation point has eccentricity
 *   e = d / d_corner * e_corner            (degrees; d_corner: half the
 *                                           frame's diagonal)
 * or, when pixels-per-degree is set, e = d / ppd.  Geisler and Perry's
 * cut-off frequency (cycles per degree) is
 *   f_c(e) = e2 / (alpha (e + e2)) ln(1 / CT0).
 * The paper normalises by f_max = f_c(0) and takes half of it as cycles per
 * pixel, f_px = 0.5 f_c / f_max = 0.5 e2 / (e + e2): CT0 and alpha cancel,
 *   sigma = 1 / (2 pi f_px) = (e + e2) / (pi e2)       (pixels).
 * With pixels-per-degree the display enters as in Geisler and Perry:
 * f_px = min (f_c / ppd, 0.5) (Nyquist), sigma = 1 / (2 pi f_px).  Either
 * sigma is multiplied by `strength`; below `min-sigma` the pixel is copied
 * (the fovea).  A kernel spans ceil (6 sigma) taps, rounded up to odd.
 */
#ifndef CO_FOVEATE_MATH_H
#define CO_FOVEATE_MATH_H

#include "co_frame.h"
#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  float e_corner;               /* degrees at the frame's corner (ppd 0) */
  float ct0, alpha, e2;         /* Geisler and Perry's constants */
  float ppd;                    /* pixels per degree; 0: the paper's
                                 * normalisation */
  float strength;               /* scales sigma */
  float min_sigma;              /* below it no blur */
} CoFoveaModel;

#define CO_FOVEA_PI 3.14159265358979323846f

/* Eccentricity in degrees at @d pixels from the fixation point in a frame
 * whose half diagonal is @d_corner pixels. */
CO_HD float
co_fovea_eccentricity (const CoFoveaModel * m, float d, float d_corner)
{
  return m->ppd > 0.0f ? d / m->ppd : d / d_corner * m->e_corner;
}

/* The blur's sigma in pixels at eccentricity @e (before min-sigma), with
 * @ln_ct the host's ln (1 / CT0) (a logarithm the device never computes). */
CO_HD float
co_fovea_sigma (const CoFoveaModel * m, float e, float ln_ct)
{
  float f_px;

  if (m->ppd > 0.0f) {
    /* cycles per degree to cycles per pixel, no finer than Nyquist */
    f_px = m->e2 / (m->alpha * (e + m->e2)) * ln_ct / m->ppd;
    if (f_px > 0.5f)
      f_px = 0.5f;
  } else {
    f_px = 0.5f * m->e2 / (e + m->e2);
  }
  return m->strength / (2.0f * CO_FOVEA_PI * f_px);
}

/* A kernel's radius in taps: ceil (6 sigma) taps rounded up to odd. */
CO_HD int
co_fovea_radius (float sigma)
{
  int taps = (int) ceilf (6.0f * sigma);

  return taps < 1 ? 0 : taps / 2;
}

#ifdef __cplusplus
}
#endif
#endif
