/* cudaoptics — LGPL-2.1-or-later
 *
 * The lens models of cudalensdistort (the camera's maths live in
 * co_camera.h, shared with every element that maps through a lens),
 * written once for the CPU reference,
 * the LUT builders and the per-pixel ("none") kernels.  Coordinates are
 * pixel indices (pixel centres on integers, OpenCV's convention).  Each
 * function maps an OUTPUT pixel to the SOURCE position it samples (backward
 * mapping).
 *
 * Bit-exactness between backends rests on plain IEEE float arithmetic: the
 * CUDA side is built with -fmad=false and the C side with
 * -ffp-contract=off, and nothing here calls a transcendental function.
 */
#ifndef CO_LENSDISTORT_MATH_H
#define CO_LENSDISTORT_MATH_H

#include "co_remap.h"
#include "co_camera.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cudalensdistort's models: a headset lens or a camera (co_camera.h). */
typedef enum
{
  CO_LENS_HMD = CO_CAMERA_HMD,
  CO_LENS_CAMERA = CO_CAMERA_PINHOLE,
  CO_LENS_FISHEYE = CO_CAMERA_FISHEYE,
} CoLensModel;

/* Derived, ready-to-use parameters; co_lens_params_init_*() fill them so
 * that both backends see the very same floats. */
typedef struct
{
  int32_t model, width, height;
  /* hmd: per eye (two when stereo) centre in pixels, 1/R^2; per colour
   * (0 green, or every channel; 1 red; 2 blue) coefficients and scale */
  int32_t stereo, eye_w;
  float ecx0, ecx1, ecy, inv_r2;
  float k1[3], k2[3], scale[3];
  /* hmd on a source of another size: output pixels to source pixels */
  int32_t rescale;
  float src_sx, src_sy;
  /* camera */
  CoCameraParams cam;
} CoLensParams;

/* HMD pre-distortion (the paper's model), per colour c:
 *   x_s = c + s_c (x_o - c) / (1 + k1_c r^2 + k2_c r^4),  r = |x_o - c| / R
 * with c the lens centre of the eye and R the eye's half-diagonal, so r is 1
 * in the eye's corners whatever the resolution, and s_c a magnification
 * (1 by default; red's and blue's differ from green's to pre-compensate the
 * lens's lateral chromatic aberration, as VR runtimes do).  Where the
 * denominator is not positive, or the source falls outside the eye's half in
 * stereo, there is no source pixel. */
CO_HD int
co_lens_map_hmd (const CoLensParams * p, int ch, float x, float y,
    float slack, float *sx, float *sy)
{
  /* selects, not array indices, so that the device keeps p in registers */
  int eye = (p->stereo && x >= (float) p->eye_w) ? 1 : 0;
  float ecx = eye ? p->ecx1 : p->ecx0;
  float k1 = ch == 1 ? p->k1[1] : ch == 2 ? p->k1[2] : p->k1[0];
  float k2 = ch == 1 ? p->k2[1] : ch == 2 ? p->k2[2] : p->k2[0];
  float s = ch == 1 ? p->scale[1] : ch == 2 ? p->scale[2] : p->scale[0];
  float dx = x - ecx, dy = y - p->ecy;
  float r2 = (dx * dx + dy * dy) * p->inv_r2;
  float d = 1.0f + r2 * (k1 + r2 * k2);
  if (!(d > 1e-6f))
    return 0;
  /* with s = 1 the same floats as without it */
  *sx = ecx + dx / d * s;
  *sy = p->ecy + dy / d * s;
  if (p->stereo) {
    /* all taps with a non-zero weight stay inside the eye; a subsampled
     * plane's pixel may straddle the seam by its own half-footprint */
    float x0 = (float) (eye * p->eye_w) - slack;
    float x1 = (float) (eye ? p->width : p->eye_w) - 1.0f + slack;
    if (!(*sx >= x0 && *sx <= x1))
      return 0;
  }
  if (p->rescale) {
    *sx = (*sx + 0.5f) * p->src_sx - 0.5f;
    *sy = (*sy + 0.5f) * p->src_sy - 0.5f;
  }
  return 1;
}

/* @ch: the colour (co_lut_geometry_channel); the camera models have one
 * geometry for all. */
CO_HD int
co_lens_map (const CoLensParams * p, int ch, float x, float y, float slack,
    float *sx, float *sy)
{
  return p->model == CO_LENS_HMD ? co_lens_map_hmd (p, ch, x, y, slack, sx,
      sy) : co_camera_map (&p->cam, x, y, sx, sy);
}

/* Map pixel (px, py) of a plane subsampled by 2^@shift, colour @ch: its
 * centre goes to frame coordinates (centre-sited chroma), through the
 * model, and back.  The per-pixel kernels call it with a constant @ch, so
 * the colour's selects fold away. */
CO_HD int
co_lens_map_sc (const CoLensParams * p, int shift, int ch, int px, int py,
    float *sx, float *sy)
{
  float s, o, fx, fy;
  if (shift == 0)
    return co_lens_map (p, ch, (float) px, (float) py, 0.0f, sx, sy);
  s = (float) (1 << shift);
  o = 0.5f * (s - 1.0f);
  if (!co_lens_map (p, ch, (float) px * s + o, (float) py * s + o, o, &fx,
          &fy))
    return 0;
  *sx = (fx - o) / s;
  *sy = (fy - o) / s;
  return 1;
}

/* The same for table geometry @g (co_remap.h: a subsampled plane, or a
 * colour). */
CO_HD int
co_lens_map_plane (const CoLensParams * p, int g, int px, int py,
    float *sx, float *sy)
{
  return co_lens_map_sc (p, co_lut_geometry_shift (g),
      co_lut_geometry_channel (g), px, py, sx, sy);
}

/* The compressed LUT entry of one output pixel (plane shift @shift, colour
 * @ch); src_w/src_h are the source plane's. */
CO_HD uint32_t
co_lens_entry_sc (const CoLensParams * p, int shift, int ch, int px, int py,
    CoInterp interp, CoEdge edge, int frac, int src_w, int src_h)
{
  float sx, sy;
  if (!co_lens_map_sc (p, shift, ch, px, py, &sx, &sy))
    return CO_LUT_UNMAPPED;
  return co_lut_encode (interp, edge, sx, sy, src_w, src_h, frac);
}

/* ... of geometry @g */
CO_HD uint32_t
co_lens_entry (const CoLensParams * p, int g, int px, int py,
    CoInterp interp, CoEdge edge, int frac, int src_w, int src_h)
{
  return co_lens_entry_sc (p, co_lut_geometry_shift (g),
      co_lut_geometry_channel (g), px, py, interp, edge, frac, src_w, src_h);
}

#ifdef __cplusplus
}
#endif
#endif /* CO_LENSDISTORT_MATH_H */
