/* cudaoptics — LGPL-2.1-or-later
 *
 * Phase correlation of two tiles in the CLT domain (kernels/clt_math.h),
 * the tile processor's next step (Filippov 2018): written once for the C
 * reference and, later, the CUDA kernels, with the same float operations
 * in the same order and no libm call (a fixed polynomial for the one
 * arctangent), so that both backends can give the same bits.
 *
 * A tile's four layers are the bicomplex spectrum Z = CC + i SC + j CS +
 * ij SS (i across, j down), at the half-integer frequencies
 * pi (k + 0.5) / 8.  If tile b shows tile a's content moved by (dx, dy),
 * Z_b = Z_a exp(i phi_x) exp(j phi_y), phi = pi d (k + 0.5) / 8, so the
 * cross-power P = Z_a conj(Z_b) (conj negating i and j), normalised
 * (co_clt_corr_cross), is exp(-i phi_x) exp(-j phi_y).
 * Back in pixels, c(sx, sy) = Re[P exp(i pi sx (k + 0.5) / 8)
 * exp(j pi sy (l + 0.5) / 8)] summed over the 64 frequencies, for shifts
 * -7..7: a 15x15 tile that for a pure shift is the product of two
 * Dirichlet kernels D(s - d) = sin (pi (s - d)) / (16 sin (pi (s - d) / 16))
 * (scaled so that a perfect match peaks at 1).
 *
 * A parabola through such a peak locks to whole pixels (a tenth of a
 * pixel reads as 0.046 on textured tiles); fitting D to the peak and its
 * larger neighbour does not (tests/ref/clt-correlate.py measures both).
 * The fixed window still pulls larger shifts towards zero (about 10% at
 * one pixel): moving tile b's window by an estimate (co_clt_forward_cpu's
 * dx, dy) and correlating again measures what is left.
 */
#ifndef CO_CLT_CORR_MATH_H
#define CO_CLT_CORR_MATH_H

#include <math.h>
#include "clt_math.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CO_CLT_CORR 15          /* correlation tile side: shifts -7..7 */
#define CO_CLT_CORR_C 7         /* the zero shift's index */

typedef enum
{
  CO_CLT_PEAK_DIRICHLET = 0,    /* the correlation's own kernel fitted */
  CO_CLT_PEAK_PARABOLA = 1,     /* a parabola per axis through 3 samples */
  CO_CLT_PEAK_CENTROID = 2,     /* centroid of the 3x3 positive part */
  CO_CLT_PEAK_NEWTON = 3,       /* Newton's step on the continuous correlation */
  /* the Dirichlet fit less the peak's symmetric part (co_clt_peak_1d):
   * what the Dirichlet fit becomes under a noise floor (co_clt_corr_method) */
  CO_CLT_PEAK_DIRICHLET_FLOOR = 4,
} CoCltPeak;

/* Raw sample (x, y) of a GRAY8 or GRAY16_LE mosaic, 0..1, mirrored about
 * the edge pixels (x = -1 reads 1: the colour of a site keeps its parity) */
CO_HD float
co_clt_corr_raw (const CoFrame * f, int x, int y)
{
  const int xx = x < 0 ? -x : x >= f->width ? 2 * f->width - 2 - x : x;
  const int yy = y < 0 ? -y : y >= f->height ? 2 * f->height - 2 - y : y;
  const uint8_t *row = f->data[0] + (size_t) yy * f->pitch[0];

  return f->format == CO_FORMAT_GRAY16_LE ?
      (float) (row[2 * xx] | row[2 * xx + 1] << 8) * (1.0f / 65535.0f) :
      (float) row[xx] * (1.0f / 255.0f);
}

/* The luma of a Bayer mosaic at (x, y): the 3x3 filter [1 2 1] x [1 2 1] /
 * 16, whose zeros at the frequencies (pi, 0), (0, pi) and (pi, pi) take out
 * the colour carriers of any of the four patterns, leaving (R + 2G + B) / 4
 * low-passed, in the place of the site itself: no demosaicing, no colour
 * phase that would move with the pattern. */
CO_HD float
co_clt_corr_bayer_luma (const CoFrame * f, int x, int y)
{
  const float up = co_clt_corr_raw (f, x - 1, y - 1) +
      2.0f * co_clt_corr_raw (f, x, y - 1) + co_clt_corr_raw (f, x + 1, y - 1);
  const float mid = co_clt_corr_raw (f, x - 1, y) +
      2.0f * co_clt_corr_raw (f, x, y) + co_clt_corr_raw (f, x + 1, y);
  const float down = co_clt_corr_raw (f, x - 1, y + 1) +
      2.0f * co_clt_corr_raw (f, x, y + 1) + co_clt_corr_raw (f, x + 1, y + 1);

  return (up + 2.0f * mid + down) * (1.0f / 16.0f);
}

/* The grey value of pixel (x, y) of a frame, 0..1: the plane the
 * correlation's transforms read.  GRAY8, GRAY16_LE, the luma plane of NV12
 * and I420 (what decoders give in CUDA memory), the luma (BT.601
 * weights) of RGBA, BGRA, RGBx, BGRx, and a Bayer mosaic's luma
 * (co_clt_corr_bayer_luma). */
CO_HD float
co_clt_corr_sample (const CoFrame * f, int x, int y)
{
  const uint8_t *row = f->data[0] + (size_t) y * f->pitch[0];

  if (f->bayer != CO_BAYER_NONE)
    return co_clt_corr_bayer_luma (f, x, y);
  switch (f->format) {
    case CO_FORMAT_GRAY16_LE:
      return (float) (row[2 * x] | row[2 * x + 1] << 8) *
          (1.0f / 65535.0f);
    case CO_FORMAT_RGBA:
    case CO_FORMAT_RGBX:
      return (0.299f * (float) row[4 * x] + 0.587f * (float) row[4 * x + 1] +
          0.114f * (float) row[4 * x + 2]) * (1.0f / 255.0f);
    case CO_FORMAT_BGRA:
    case CO_FORMAT_BGRX:
      return (0.299f * (float) row[4 * x + 2] + 0.587f * (float) row[4 * x +
              1] + 0.114f * (float) row[4 * x]) * (1.0f / 255.0f);
    default:
      return (float) row[x] * (1.0f / 255.0f);
  }
}

/* cos (pi m / 16), m = 0..8, as literals */
CO_HD float
co_clt_cos16_first (int m)
{
  return m == 0 ? 1.0f : m == 1 ? 9.807852804e-01f :
      m == 2 ? 9.238795325e-01f : m == 3 ? 8.314696123e-01f :
      m == 4 ? 7.071067812e-01f : m == 5 ? 5.555702330e-01f :
      m == 6 ? 3.826834324e-01f : m == 7 ? 1.950903220e-01f : 0.0f;
}

/* cos (pi n / 16) for any integer n */
CO_HD float
co_clt_cos16 (int n)
{
  const int r = n & 31;          /* two's complement: n mod 32 */

  return r <= 8 ? co_clt_cos16_first (r) :
      r <= 16 ? -co_clt_cos16_first (16 - r) :
      r <= 24 ? -co_clt_cos16_first (r - 16) : co_clt_cos16_first (32 - r);
}

/* How a cross-power is normalised (co_clt_corr_params_init fills one):
 * @fat_zero and @noise_floor as co_clt_corr_norm_at; @lpf a weight per frequency
 * ([kv][kh]) applied to the normalised cross-power: a Gaussian low-pass
 * of the correlation, times a raw mosaic's weight, scaled so that
 * identical tiles still peak at 1 (1 everywhere: none); @weighted not 0
 * where the frequencies are not all weighed alike (a low-pass, a mosaic's
 * weight or a fat zero). */
typedef struct
{
  float fat_zero;
  float noise_floor;
  int32_t weighted;
  float lpf[CO_CLT_LAYER];
} CoCltCorrParams;

/* The cross-power of tiles @za and @zb (CO_CLT_COEFFS floats,
 * [q][kv][kh]) at frequency @n into @p, unnormalised; returns the sum of
 * its two moduli.  Bicomplex numbers split into two complex ones through
 * the idempotents (1 +- ij) / 2: Z = r + i a + j b + ij c is
 * z1 = (r + c) + i (a - b) (where j = -i) and z2 = (r - c) + i (a + b)
 * (where j = i), the spectrum at (kx, -ky) and at (kx, ky).  Products and
 * conjugates act on each alone. */
CO_HD float
co_clt_corr_cross_at (const float *za, const float *zb, int n, float *p)
{
  const float a1r = za[n] + za[192 + n], a1i = za[64 + n] - za[128 + n];
  const float a2r = za[n] - za[192 + n], a2i = za[64 + n] + za[128 + n];
  const float b1r = zb[n] + zb[192 + n], b1i = zb[64 + n] - zb[128 + n];
  const float b2r = zb[n] - zb[192 + n], b2i = zb[64 + n] + zb[128 + n];
  /* z_a conj (z_b) for each */
  const float x1r = a1r * b1r + a1i * b1i, x1i = a1i * b1r - a1r * b1i;
  const float x2r = a2r * b2r + a2i * b2i, x2i = a2i * b2r - a2r * b2i;

  p[n] = x1r;
  p[64 + n] = x1i;
  p[128 + n] = x2r;
  p[192 + n] = x2i;
  return sqrtf (x1r * x1r + x1i * x1i) + sqrtf (x2r * x2r + x2i * x2i);
}

/* The tile processor's colour tiles of a camera as one picture's: the
 * three colours' coefficients (@clt, @clt + @stride, @clt + 2 @stride,
 * each through its own kernel) summed with the weights of a Bayer cell's
 * sites, red 1/4, green 1/2, blue 1/4, at coefficient @j, into @out.
 * Summing the spectra before the cross-power, rather than the colours'
 * cross-powers, lets the colours' aliases of a grey-ish scene cancel as
 * they do in the raw mosaic (through two lenses, 0.22 against 0.28 px:
 * docs/cudacltcorrelate.md). */
CO_HD float
co_clt_corr_mix3 (float r, float g, float b)
{
  return 0.25f * r + 0.5f * g + 0.25f * b;
}

CO_HD void
co_clt_corr_mix_at (const float *clt, size_t stride, size_t j, float *out)
{
  out[j] = co_clt_corr_mix3 (clt[j], clt[stride + j], clt[2 * stride + j]);
}

/* Frequency @n of cross-power @p divided, part by part, by its modulus
 * plus @cp's fat zero times @mean (the tile's mean modulus: 0 is pure
 * phase, larger values weigh strong frequencies more, for noisy tiles)
 * plus its noise floor (an absolute modulus: the cross-power that the
 * pixels' noise alone gives, so that frequencies at or below the noise
 * weigh little and a flat or noise-only tile's correlation stays near 0
 * where pure phase would whiten its noise, even float rounding, to a
 * peak), times the low-pass, and put back together as r, i, j, ij.  No
 * energy gives zeros. */
CO_HD void
co_clt_corr_norm_at (float *p, int n, const CoCltCorrParams * cp, float mean)
{
  const float x1r = p[n], x1i = p[64 + n], x2r = p[128 + n],
      x2i = p[192 + n];
  const float d1 = sqrtf (x1r * x1r + x1i * x1i) + cp->fat_zero * mean +
      cp->noise_floor;
  const float d2 = sqrtf (x2r * x2r + x2i * x2i) + cp->fat_zero * mean +
      cp->noise_floor;
  const float s1 = d1 > 0.0f ? cp->lpf[n] / d1 : 0.0f;
  const float s2 = d2 > 0.0f ? cp->lpf[n] / d2 : 0.0f;
  const float p1r = x1r * s1, p1i = x1i * s1, p2r = x2r * s2,
      p2i = x2i * s2;

  p[n] = 0.5f * (p1r + p2r);
  p[64 + n] = 0.5f * (p1i + p2i);
  p[128 + n] = 0.5f * (p2i - p1i);
  p[192 + n] = 0.5f * (p1r - p2r);
}

/* The sum of @m[0..63] as a tree (m[i] += m[i + s], s = 32, 16, ... 1),
 * the order a warp's shuffles add in; @m is overwritten. */
CO_HD float
co_clt_sum64 (float *m)
{
  int s, i;

  for (s = 32; s >= 1; s /= 2)
    for (i = 0; i < s; i++)
      m[i] += m[i + s];
  return m[0];
}

/* The mean modulus from the sum co_clt_sum64 gave */
CO_HD float
co_clt_corr_mean (float sum)
{
  return sum * (0.5f / CO_CLT_LAYER);
}

/* The normalised cross-power of tiles @za and @zb into @p
 * (co_clt_corr_cross_at, then co_clt_corr_norm_at at every frequency). */
CO_HD void
co_clt_corr_cross (const float *za, const float *zb,
    const CoCltCorrParams * cp, float *p)
{
  float m[CO_CLT_LAYER], mean;
  int n;

  for (n = 0; n < CO_CLT_LAYER; n++)
    m[n] = co_clt_corr_cross_at (za, zb, n, p);
  mean = co_clt_corr_mean (co_clt_sum64 (m));
  for (n = 0; n < CO_CLT_LAYER; n++)
    co_clt_corr_norm_at (p, n, cp, mean);
}

/* The basis of the way back to pixels, the same across and down:
 * entry [s][k] (CO_CLT_CORR x CO_CLT_N) of @cs is cos (pi (s - 7) (k + 0.5)
 * / 8) and of @sn its sine, from co_clt_cos16.  Built once (a block's
 * threads share it on the device) rather than per sample. */
CO_HD void
co_clt_corr_basis_at (int j, float *cs, float *sn)
{
  const int n = (j / CO_CLT_N - CO_CLT_CORR_C) * (2 * (j % CO_CLT_N) + 1);

  cs[j] = co_clt_cos16 (n);
  sn[j] = co_clt_cos16 (n - 8);
}

#define CO_CLT_BASIS (CO_CLT_CORR * CO_CLT_N)

CO_HD void
co_clt_corr_basis (float *cs, float *sn)
{
  int j;

  for (j = 0; j < CO_CLT_BASIS; j++)
    co_clt_corr_basis_at (j, cs, sn);
}

/* The pixel-domain correlation of cross-power @p, across then down.
 * Across, for row @kv and shift @sx (0..14, -7..7): *ta = sum_kh (P_r cos -
 * P_i sin), *tb = sum_kh (P_j cos - P_ij sin). */
CO_HD void
co_clt_corr_across (const float *p, const float *cs, const float *sn,
    int kv, int sx, float *ta, float *tb)
{
  float a = 0.0f, b = 0.0f;
  int kh;

  for (kh = 0; kh < CO_CLT_N; kh++) {
    const float c = cs[sx * CO_CLT_N + kh], s = sn[sx * CO_CLT_N + kh];
    const int e = kv * CO_CLT_N + kh;
    a += p[e] * c - p[64 + e] * s;
    b += p[128 + e] * c - p[192 + e] * s;
  }
  *ta = a;
  *tb = b;
}

/* ... and down: c(sx, sy) = sum_kv (A cos - B sin) / 64, from the across
 * sums @a and @b ([kv][sx], CO_CLT_CORR floats a row). */
CO_HD float
co_clt_corr_down (const float *a, const float *b, const float *cs,
    const float *sn, int sx, int sy)
{
  float t = 0.0f;
  int kv;

  for (kv = 0; kv < CO_CLT_N; kv++)
    t += a[kv * CO_CLT_CORR + sx] * cs[sy * CO_CLT_N + kv] -
        b[kv * CO_CLT_CORR + sx] * sn[sy * CO_CLT_N + kv];
  return t * (1.0f / CO_CLT_LAYER);
}

/* The pixel-domain correlation of cross-power @p into @c (CO_CLT_CORR^2
 * floats, [sy + 7][sx + 7]), with the basis co_clt_corr_basis built. */
CO_HD void
co_clt_corr_pixels (const float *p, const float *cs, const float *sn,
    float *c)
{
  float a[CO_CLT_N * CO_CLT_CORR], b[CO_CLT_N * CO_CLT_CORR];
  int kv, sx, sy;

  for (kv = 0; kv < CO_CLT_N; kv++)
    for (sx = 0; sx < CO_CLT_CORR; sx++)
      co_clt_corr_across (p, cs, sn, kv, sx, &a[kv * CO_CLT_CORR + sx],
          &b[kv * CO_CLT_CORR + sx]);
  for (sy = 0; sy < CO_CLT_CORR; sy++)
    for (sx = 0; sx < CO_CLT_CORR; sx++)
      c[sy * CO_CLT_CORR + sx] = co_clt_corr_down (a, b, cs, sn, sx, sy);
}

/* atan (x) for |x| <= 1 by a fixed odd polynomial (error below 2e-5 rad):
 * the same bits on the host and the device, where atanf may differ */
CO_HD float
co_clt_atan1 (float x)
{
  const float x2 = x * x;

  return x * (9.9997726e-01f + x2 * (-3.3262347e-01f + x2 * (1.9354346e-01f +
              x2 * (-1.1643287e-01f + x2 * (5.2653320e-02f +
                      x2 * -1.1721200e-02f)))));
}

/* The offset from sample 0 of a peak c0 whose neighbours are cm (at -1)
 * and cp (at +1), by @method along one axis (-0.5..0.5 for a peak between
 * samples). */
CO_HD float
co_clt_peak_1d (float cm, float c0, float cp, CoCltPeak method)
{
  if (method == CO_CLT_PEAK_PARABOLA) {
    const float d = cm - 2.0f * c0 + cp;
    return d < 0.0f ? 0.5f * (cm - cp) / d : 0.0f;
  } else {
    /* D(u) = sin (pi u) / (16 sin (pi u / 16)): for samples at 0 and 1,
     * c1 / c0 = -sin (b u0) / sin (b (u0 + 1)) with u0 = -d, b = pi / 16,
     * so tan (b d) = r sin b / (1 + r cos b) */
    const float sb = 1.950903220e-01f, cb = 9.807852804e-01f;
    const float b = 1.963495408e-01f;     /* pi / 16 */
    const int right = cp >= cm;
    /* under a noise floor, a peak broader than D on both sides (both
     * neighbours positive, which D's far side never is) is mostly the
     * symmetric peak of a flat tile's few strong frequencies, centred:
     * the smaller neighbour's part is taken off both, so that it reads
     * 0 rather than up to half a pixel towards the larger one */
    const float lo = method == CO_CLT_PEAK_DIRICHLET_FLOOR ?
        (right ? cm : cp) : 0.0f;
    const float base = lo > 0.0f ? lo : 0.0f;
    float r = c0 - base != 0.0f ? ((right ? cp : cm) - base) / (c0 - base) :
        0.0f;
    float d;
    /* the kernel's ratio lies in 0..1 (d 0..0.5); a negative neighbour
     * (a peak narrower than D) reads as d = 0, and co_clt_atan1's argument
     * stays within its range (r = -1 gave ten times it: shifts of 1e9) */
    r = r > 1.0f ? 1.0f : r < 0.0f ? 0.0f : r;
    d = co_clt_atan1 (r * sb / (1.0f + r * cb)) / b;
    return right ? d : -d;
  }
}

/* Newton's step to the peak of the correlation as the continuous
 * function the cross-power @p defines (co_clt_corr_across and _down at
 * any real shift), from its best sample @best: the gradient and Hessian
 * there are sums over the 64 frequencies, whose terms for frequency @n
 * this gives in @t (CO_CLT_NEWTON floats; gx, gy, hxx, hyy, hxy, in
 * units of pi / 16 per pixel and without the 1 / 64).  For a pure shift
 * of whitened tiles the continuous correlation is symmetric about the
 * shift whatever the weights (lpf-sigma, a mosaic's, a fat zero), so the
 * step reads the shift itself, where the centroid of a broad peak reads
 * only a part of it and the Dirichlet fit assumes flat weights. */
#define CO_CLT_NEWTON 5

CO_HD void
co_clt_corr_newton_at (const float *p, const float *cs, const float *sn,
    int best, int n, float *t)
{
  const int ix = best % CO_CLT_CORR, iy = best / CO_CLT_CORR;
  const int kh = n % CO_CLT_N, kv = n / CO_CLT_N;
  const float qh = (float) (2 * kh + 1), qv = (float) (2 * kv + 1);
  const float ch = cs[ix * CO_CLT_N + kh], sh = sn[ix * CO_CLT_N + kh];
  const float cv = cs[iy * CO_CLT_N + kv], sv = sn[iy * CO_CLT_N + kv];
  const float pr = p[n], pi = p[64 + n], pj = p[128 + n], pij = p[192 + n];
  /* the correlation across (A, B) and its derivative over qh (A1, B1) */
  const float a = pr * ch - pi * sh, b = pj * ch - pij * sh;
  const float a1 = -(pr * sh + pi * ch), b1 = -(pj * sh + pij * ch);
  const float v = a * cv - b * sv;

  t[0] = qh * (a1 * cv - b1 * sv);
  t[1] = -qv * (a * sv + b * cv);
  t[2] = -qh * qh * v;
  t[3] = -qv * qv * v;
  t[4] = -qh * qv * (a1 * sv + b1 * cv);
}

/* The step from sample @best given the summed terms @g: 0 with no
 * maximum there (the Hessian not negative definite) or a step of a pixel
 * or more (the sample was not the peak's), where the caller keeps its
 * other estimate */
CO_HD int
co_clt_corr_newton_step (const float *g, float *sx, float *sy)
{
  const float u = 1.963495408e-01f;     /* pi / 16 */
  const float det = g[2] * g[3] - g[4] * g[4];
  float x, y;

  if (!(g[2] < 0.0f && det > 0.0f))
    return 0;
  x = -(g[3] * g[0] - g[4] * g[1]) / (det * u);
  y = -(g[2] * g[1] - g[4] * g[0]) / (det * u);
  if (!(fabsf (x) < 1.0f && fabsf (y) < 1.0f))
    return 0;
  *sx = x;
  *sy = y;
  return 1;
}

/* The summed terms of co_clt_corr_newton_at into @g, each in
 * co_clt_sum64's order (the device's shuffles) */
CO_HD void
co_clt_corr_newton (const float *p, const float *cs, const float *sn,
    int best, float *g)
{
  float t[CO_CLT_LAYER][CO_CLT_NEWTON], m[CO_CLT_LAYER];
  int n, j;

  for (n = 0; n < CO_CLT_LAYER; n++)
    co_clt_corr_newton_at (p, cs, sn, best, n, t[n]);
  for (j = 0; j < CO_CLT_NEWTON; j++) {
    for (n = 0; n < CO_CLT_LAYER; n++)
      m[n] = t[n][j];
    g[j] = co_clt_sum64 (m);
  }
}

/* The estimator @method becomes under @cp's weights: the Dirichlet fit
 * with a noise floor takes its symmetric part off (co_clt_peak_1d) */
CO_HD CoCltPeak
co_clt_corr_method (const CoCltCorrParams * cp, CoCltPeak method)
{
  return method == CO_CLT_PEAK_DIRICHLET && cp->noise_floor > 0.0f ?
      CO_CLT_PEAK_DIRICHLET_FLOOR : method;
}

/* The largest sample of correlation @c, the first of equal ones */
CO_HD int
co_clt_corr_argmax (const float *c)
{
  int best = 0, n;

  for (n = 1; n < CO_CLT_CORR * CO_CLT_CORR; n++)
    if (c[n] > c[best])
      best = n;
  return best;
}

/* The sub-pixel peak of correlation @c around its largest sample @best:
 * (*dx, *dy) from the zero shift, *strength the peak's value (1 for
 * identical tiles).  No positive peak (tiles without energy, a black
 * border: every sample 0) says nothing: shift 0, strength 0, rather than
 * the first sample's -7 px, which refinements would add up. */
CO_HD void
co_clt_corr_fit (const float *c, int best, CoCltPeak method,
    const float *newton, float *dx, float *dy, float *strength)
{
  const int ix = best % CO_CLT_CORR, iy = best / CO_CLT_CORR;
  float fx = 0.0f, fy = 0.0f;

  if (!(c[best] > 0.0f)) {
    *dx = *dy = *strength = 0.0f;
    return;
  }

  if (method == CO_CLT_PEAK_NEWTON && newton &&
      co_clt_corr_newton_step (newton, &fx, &fy)) {
    /* fx, fy set */
  } else if (method == CO_CLT_PEAK_CENTROID || method == CO_CLT_PEAK_NEWTON) {
    float m = 0.0f, mx = 0.0f, my = 0.0f;
    int x, y;
    for (y = iy - 1; y <= iy + 1; y++)
      for (x = ix - 1; x <= ix + 1; x++)
        if (x >= 0 && y >= 0 && x < CO_CLT_CORR && y < CO_CLT_CORR &&
            c[y * CO_CLT_CORR + x] > 0.0f) {
          const float v = c[y * CO_CLT_CORR + x];
          m += v;
          mx += v * (float) (x - ix);
          my += v * (float) (y - iy);
        }
    if (m > 0.0f) {
      fx = mx / m;
      fy = my / m;
    }
  } else {
    if (ix > 0 && ix < CO_CLT_CORR - 1)
      fx = co_clt_peak_1d (c[best - 1], c[best], c[best + 1], method);
    if (iy > 0 && iy < CO_CLT_CORR - 1)
      fy = co_clt_peak_1d (c[best - CO_CLT_CORR], c[best],
          c[best + CO_CLT_CORR], method);
  }
  *dx = (float) (ix - CO_CLT_CORR_C) + fx;
  *dy = (float) (iy - CO_CLT_CORR_C) + fy;
  *strength = c[best];
}

/* One axis of refinement pass @pass: the residual @r measured after the
 * last step.  The estimator reads a residual r as g r, with a gain g below
 * 1 that depends on the peak's width (near 1 for a clean tile's sharp
 * peak, a fraction for a blurred one's broad peak), so adding r converges
 * only geometrically.  From the third pass on, the last step and what it
 * took off the residual give g (a secant): the step is r / g.  (The first
 * two passes stay plain steps: a gain read from the first, large one is
 * less reliable where the tile is not a pure shift, a zoom say.)  @prev
 * holds the last residual and step (*prev, *(prev + @n)). */
CO_HD float
co_clt_corr_step (float r, float *prev, size_t n, int pass)
{
  const float r0 = prev[0], s0 = prev[n];
  float step = r;

  if (pass >= 2 && fabsf (s0) > 0.02f) {
    const float g = (r0 - r) / s0;
    /* a gain outside (0.1, 1) is noise or an overshoot: a plain step */
    if (g > 0.1f && g < 1.0f)
      step = r / g;
  }
  prev[0] = r;
  prev[n] = step;
  return step;
}

/* Refinement pass @pass of tile @i of @n: the residual (@rdx, @rdy)
 * measured with tile b moved by the estimate (*@dx, *@dy) moves it on
 * (co_clt_corr_step; @hist: 4 floats a tile, the last residuals x, y,
 * then steps x, y), and the strength becomes the refined correlation's. */
CO_HD void
co_clt_corr_refine_at (int i, int n, int pass, float *dx, float *dy,
    float *strength, const float *rdx, const float *rdy, const float *rs,
    float *hist)
{
  dx[i] += co_clt_corr_step (rdx[i], hist + i, 2 * (size_t) n, pass);
  dy[i] += co_clt_corr_step (rdy[i], hist + n + i, 2 * (size_t) n, pass);
  strength[i] = rs[i];
}

/* Left-right consistency of tile @i of a @tiles_x x @tiles_y grid (tile
 * (tx, ty) centred on pixel corner (8 tx, 8 ty)): pair (a, b) measured
 * (@dx, @dy) there, and (b, a) measured (@rdx, @rdy) at the tile nearest
 * where the content went.  A match leaving the grid, or whose two
 * answers do not cancel within @limit pixels (NaN included), gets
 * strength 0: no answer.  The shift itself stays. */
CO_HD void
co_clt_corr_lr_at (int i, int tiles_x, int tiles_y, const float *dx,
    const float *dy, const float *rdx, const float *rdy, float limit,
    float *strength)
{
  const int tx = i % tiles_x, ty = i / tiles_x;
  /* tiles are 8 px apart: exact */
  const float fx = (float) tx + dx[i] * 0.125f;
  const float fy = (float) ty + dy[i] * 0.125f;
  int j;
  float ex, ey;

  if (!(fx > -0.5f && fx < (float) tiles_x - 0.5f && fy > -0.5f &&
          fy < (float) tiles_y - 0.5f)) {
    strength[i] = 0.0f;
    return;
  }
  j = (int) floorf (fy + 0.5f) * tiles_x + (int) floorf (fx + 0.5f);
  ex = dx[i] + rdx[j];
  ey = dy[i] + rdy[j];
  if (!(ex * ex + ey * ey <= limit * limit))
    strength[i] = 0.0f;
}

/* A rig: each pair's baseline as it shows in the images.  Camera k of a
 * rectified rig sees a point at depth z moved by o_k / z (o_k: the fourth
 * column of its projection P, pixels times the calibration's unit), so
 * pair (a, b) sees b's content moved by (o_b - o_a) / z: along the unit
 * vector (ux, uy), by a disparity that is the reference pair's (the
 * first) divided by @scale (= |o_ref| / |o_b - o_a|). */
#define CO_CLT_CORR_MAX_PAIRS 120       /* every pair of 16 inputs */

typedef struct
{
  float ux, uy;                 /* from a towards b, in the image */
  float scale;                  /* reference baseline / this one */
  float inv_scale;              /* 1 / scale, computed once on the host */
} CoCltCorrBaseline;

typedef struct
{
  int32_t n_pairs;
  CoCltCorrBaseline pair[CO_CLT_CORR_MAX_PAIRS];
} CoCltCorrRig;

/* Tile @i of @n: each pair's disparity along its baseline (@disp, pair
 * after pair) from the results @res (all pairs' dx, then dy, then
 * strength), and the rig's disparity in the reference pair's pixels
 * (@comb): the pairs' estimates scaled to the reference, weighted by
 * strength over scale squared (a longer baseline measures the same depth
 * more finely); @conf the pairs' mean strength (negative counted 0). */
CO_HD void
co_clt_corr_rig_at (int i, int n, const CoCltCorrRig * rig, const float *res,
    float *disp, float *comb, float *conf)
{
  const int np = rig->n_pairs;
  float sw = 0.0f, swd = 0.0f, ss = 0.0f;
  int p;

  for (p = 0; p < np; p++) {
    const CoCltCorrBaseline *b = &rig->pair[p];
    const float d = res[(size_t) p * n + i] * b->ux +
        res[(size_t) (np + p) * n + i] * b->uy;
    const float s0 = res[(size_t) (2 * np + p) * n + i];
    const float s = s0 > 0.0f ? s0 : 0.0f;
    const float w = s / (b->scale * b->scale);
    disp[(size_t) p * n + i] = d;
    sw += w;
    swd += w * (d * b->scale);
    ss += s;
  }
  comb[i] = sw > 0.0f ? swd / sw : 0.0f;
  conf[i] = np > 0 ? ss / (float) np : 0.0f;
}

/* Where tile @i of @n starts its search (the estimate the first pass
 * corrects): with @b (a rig), @prior holds one disparity a tile in the
 * reference pair's pixels, moved along b's baseline; without, the
 * shifts themselves, all x then all y. */
CO_HD void
co_clt_corr_prior_at (int i, int n, const float *prior,
    const CoCltCorrBaseline * b, float *dx, float *dy)
{
  if (b) {
    const float d = prior[i] * b->inv_scale;
    dx[i] = d * b->ux;
    dy[i] = d * b->uy;
  } else {
    dx[i] = prior[i];
    dy[i] = prior[(size_t) n + i];
  }
}

/* The colour path's tile shifts: tile @i's three colours (red, green,
 * blue) at the lens's own shifts @bdx, @bdy (3 floats a tile, where the
 * kernels and the camera's geometry sample the frame) moved by the
 * estimate (@dx, @dy)[i] (NULL: none), into @odx, @ody. */
CO_HD void
co_clt_corr_shifts_at (int i, const float *bdx, const float *bdy,
    const float *dx, const float *dy, float *odx, float *ody)
{
  const float ex = dx ? dx[i] : 0.0f, ey = dy ? dy[i] : 0.0f;
  int c;

  for (c = 0; c < 3; c++) {
    odx[3 * i + c] = bdx[3 * i + c] + ex;
    ody[3 * i + c] = bdy[3 * i + c] + ey;
  }
}

/* co_clt_corr_fit at co_clt_corr_argmax */
CO_HD void
co_clt_corr_peak (const float *c, CoCltPeak method, float *dx, float *dy,
    float *strength)
{
  co_clt_corr_fit (c, co_clt_corr_argmax (c), method, NULL, dx, dy,
      strength);
}

#ifdef __cplusplus
}
#endif
#endif
