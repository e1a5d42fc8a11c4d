/* cudaoptics — LGPL-2.1-or-later
 *
 * An independent evaluation of cudalensdistort's models for the tests: double
 * precision, written from the documented formulas (and OpenCV's
 * initUndistortRectifyMap with an explicit inverse of the new camera matrix),
 * sharing no code with kernels/.  It answers "where should output pixel
 * (x, y) of a plane sample the input", and compares a produced frame against
 * that answer.
 */
#ifndef LENS_REFERENCE_H
#define LENS_REFERENCE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct
{
  int camera, width, height, stereo;
  double k1, k2, k3, p1, p2, center_x, center_y;
  double fx, fy, cx, cy, nfx, nfy, ncx, ncy;
} RefLens;

/* Source position in plane coordinates; 0 when the model gives none, -1
 * when float rounding may decide either way. */
static inline int
ref_lens_source (const RefLens * r, int shift, int px, int py, double *sx,
    double *sy)
{
  double s = (double) (1 << shift), off = (s - 1.0) / 2.0;
  double X = px * s + off, Y = py * s + off, SX = 0, SY = 0;

  if (!r->camera) {
    int left_w = r->stereo ? r->width / 2 : r->width;
    int right = r->stereo && X >= left_w;
    double ex0 = right ? left_w : 0, ew = right ? r->width - left_w : left_w;
    double c_x = right ? ex0 + (1.0 - r->center_x) * ew - 0.5 :
        r->center_x * ew - 0.5;
    double c_y = r->center_y * r->height - 0.5;
    double R = hypot (left_w / 2.0, r->height / 2.0);
    double u = hypot (X - c_x, Y - c_y) / R;
    double den = 1.0 + r->k1 * u * u + r->k2 * pow (u, 4);
    if (den <= 1e-6)
      return 0;
    SX = c_x + (X - c_x) / den;
    SY = c_y + (Y - c_y) / den;
    /* a subsampled pixel may straddle the seam by half its footprint */
    if (r->stereo && (fabs (SX - (ex0 - off)) < 1e-3
            || fabs (SX - (ex0 + ew - 1.0 + off)) < 1e-3))
      return -1;                /* on the eye's edge: either answer */
    if (r->stereo && (SX < ex0 - off || SX > ex0 + ew - 1.0 + off))
      return 0;
  } else {
    /* inverse of [nfx 0 ncx; 0 nfy ncy; 0 0 1] applied to (X, Y, 1) */
    double x = (X - r->ncx) / r->nfx, y = (Y - r->ncy) / r->nfy;
    double rr = x * x + y * y;
    double radial = 1 + r->k1 * rr + r->k2 * rr * rr + r->k3 * rr * rr * rr;
    double xd = x * radial + 2 * r->p1 * x * y + r->p2 * (rr + 2 * x * x);
    double yd = y * radial + r->p1 * (rr + 2 * y * y) + 2 * r->p2 * x * y;
    SX = r->fx * xd + r->cx;
    SY = r->fy * yd + r->cy;
  }
  *sx = (SX - off) / s;
  *sy = (SY - off) / s;
  return 1;
}

/* Distance of v to the nearest half-integer: small means "a rounding tie". */
static inline double
ref_tie (double v)
{
  double f = v - floor (v);
  return fabs (f - 0.5);
}

static inline uint32_t
ref_channel (const uint8_t * plane, int stride, int bpp, int ch16, int w,
    int h, int x, int y, int c, uint32_t border_c)
{
  const uint8_t *p;
  if (x < 0 || y < 0 || x >= w || y >= h)
    return border_c;
  p = plane + (size_t) y * stride + (size_t) x * bpp;
  return ch16 ? (uint32_t) (p[0] | (p[1] << 8)) : p[c];
}

/* Checks one plane of @out against the reference sampling of @in.  nearest:
 * exact except at rounding ties; bilinear: within the error that the
 * quantised position (1/2^frac px) can cause on the local gradient.
 * Returns the number of pixels outside tolerance; *checked counts the rest. */
static inline long
ref_check_plane (const RefLens * r, int shift, int nearest, int frac,
    const uint8_t * in, int in_stride, const uint8_t * out, int out_stride,
    int w, int h, int bpp, int ch16, const uint32_t * border_c, long *checked)
{
  const double eps = 2e-3;
  int nch = ch16 ? 1 : bpp, x, y, c;
  long bad = 0;

  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      const uint8_t *o = out + (size_t) y * out_stride + (size_t) x * bpp;
      double sx = 0, sy = 0;
      int mapped = ref_lens_source (r, shift, x, y, &sx, &sy);
      if (nearest) {
        double rx = floor (sx + 0.5), ry = floor (sy + 0.5);
        int inside;
        if (mapped < 0 || (mapped && (ref_tie (sx) < eps
                    || ref_tie (sy) < eps)))
          continue;
        inside = mapped && rx >= 0 && ry >= 0 && rx <= w - 1 && ry <= h - 1;
        for (c = 0; c < nch; c++) {
          uint32_t want = inside ? ref_channel (in, in_stride, bpp, ch16, w, h,
              (int) rx, (int) ry, c, 0) : border_c[c];
          uint32_t got = ch16 ? (uint32_t) (o[0] | (o[1] << 8)) : o[c];
          if (got != want) {
            bad++;
            break;
          }
        }
      } else {
        int x0, y0;
        double fx, fy, q = 0.5 / (1 << frac) + eps;
        if (mapped < 0)
          continue;
        if (!mapped) {
          for (c = 0; c < nch; c++)
            if ((ch16 ? (uint32_t) (o[0] | (o[1] << 8)) : o[c]) != border_c[c])
              break;
          bad += c < nch;
          (*checked)++;
          continue;
        }
        /* near the edge of the representable range, either answer is right */
        if (sx <= -1 + q || sy <= -1 + q || sx >= w - q || sy >= h - q)
          continue;
        x0 = (int) floor (sx);
        y0 = (int) floor (sy);
        fx = sx - x0;
        fy = sy - y0;
        for (c = 0; c < nch; c++) {
          double t00 = ref_channel (in, in_stride, bpp, ch16, w, h, x0, y0, c,
              border_c[c]);
          double t01 = ref_channel (in, in_stride, bpp, ch16, w, h, x0 + 1, y0,
              c, border_c[c]);
          double t10 = ref_channel (in, in_stride, bpp, ch16, w, h, x0, y0 + 1,
              c, border_c[c]);
          double t11 = ref_channel (in, in_stride, bpp, ch16, w, h, x0 + 1,
              y0 + 1, c, border_c[c]);
          double want = (t00 * (1 - fx) + t01 * fx) * (1 - fy) +
              (t10 * (1 - fx) + t11 * fx) * fy;
          double spread = fmax (fmax (t00, t01), fmax (t10, t11)) -
              fmin (fmin (t00, t01), fmin (t10, t11));
          double got = ch16 ? (o[0] | (o[1] << 8)) : o[c];
          if (fabs (got - want) > 1.0 + 2.0 * spread * q) {
            bad++;
            break;
          }
        }
      }
      (*checked)++;
    }
  }
  return bad;
}

#endif
