/* cudaoptics — LGPL-2.1-or-later
 *
 * cudaaberration's transform: the small-tile complex lapped transform (CLT)
 * of Elphel's tile processor (Filippov 2018), written once for the C
 * reference and the CUDA kernels.
 *
 * One tile is 16x16 pixels at a stride of 8.  Along each axis the 16
 * samples are windowed by the half sine w[t] = sin(pi (t + 0.5) / 16)
 * (w[t]^2 + w[t + 8]^2 = 1, Princen-Bradley), folded into 8 and transformed
 * by an 8-point DCT-IV (the cosine branch) and a DST-IV (the sine branch).
 * Per tile that gives four 8x8 layers, [q][kv][kh]:
 *   q = 0 CC: DCT-IV across, DCT-IV down;  1 SC: DST-IV across, DCT-IV down;
 *   q = 2 CS: DCT-IV across, DST-IV down;  3 SS: DST-IV across and down.
 * In closed form, per axis,
 *   C[k] + i S[k] = 0.5 sum_t w[t] x[t] exp(i pi (t + 4.5) (k + 0.5) / 8),
 * so the layers are the real parts of a bicomplex spectrum
 * Z = CC + i SC + j CS + i j SS; a convolution is a product with the
 * kernel's Z, a sub-pixel shift a product with exp(i phi_x) exp(j phi_y).
 *
 * Both 8-point transforms are orthonormal (scale sqrt(2/8) = 0.5) and their
 * own inverses.  The inverse unfolds each layer with the same sign table,
 * windows it again and overlap-adds a quarter of the four layers' sum.
 *
 * Bit-exactness between the backends rests on the same float operations in
 * the same order (-fmad=false, -ffp-contract=off) and on no libm call:
 * the sines and cosines of the shifts come from co_clt_sincos.
 */
#ifndef CO_CLT_MATH_H
#define CO_CLT_MATH_H

#include "co_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CO_CLT_N 8              /* coefficients per axis */
#define CO_CLT_TILE 16          /* pixels per axis of one tile */
#define CO_CLT_LAYER 64         /* coefficients of one layer */
#define CO_CLT_COEFFS 256       /* of one tile, 4 layers */
#define CO_CLT_MIRROR 16        /* pixels reflected past a plane's edge */

/* The plane sample a tile reads for coordinate @x of @n: inside, itself;
 * up to CO_CLT_MIRROR pixels outside, its reflection about the edge pixel
 * (x -> -x, n - 1 + d -> n - 1 - d), which keeps a Bayer site's colour and
 * spares the border the dark rim zeros would leave under interpolation and
 * deconvolution kernels; farther out (a tile moved off the frame), -1:
 * the sample is zero. */
CO_HD int
co_clt_source (int x, int n)
{
  if (x < -CO_CLT_MIRROR || x >= n + CO_CLT_MIRROR)
    return -1;
  x = x < 0 ? -x : x >= n ? 2 * n - 2 - x : x;
  return x >= 0 && x < n ? x : -1;
}

/* The eight magnitudes 0.5 cos (pi (2 j + 1) / 32) as literals: with
 * three more below, the transforms' only constants.  Two earlier forms of
 * the matrix product, a local constant table indexed through nested
 * conditionals and a switch on a computed index, gave wrong matrix
 * entries on the device (nvcc 13, sm_90; the same source was right on the
 * host).  The cause was not found; no index is computed at run time here,
 * and the host's bits come out. */
#define CO_CLT_C0 4.975923633e-01f
#define CO_CLT_C1 4.784701679e-01f
#define CO_CLT_C2 4.409606322e-01f
#define CO_CLT_C3 3.865052267e-01f
#define CO_CLT_C4 3.171966421e-01f
#define CO_CLT_C5 2.356983684e-01f
#define CO_CLT_C6 1.451423386e-01f
#define CO_CLT_C7 4.900857016e-02f

/* w[t] = sin (pi (t + 0.5) / 16) = 2 cos (pi (15 - 2 t) / 32), t = 0..15 */
CO_HD float
co_clt_w (int t)
{
  const int u = t < 8 ? t : 15 - t;
  return u == 0 ? 2.0f * CO_CLT_C7 : u == 1 ? 2.0f * CO_CLT_C6 :
      u == 2 ? 2.0f * CO_CLT_C5 : u == 3 ? 2.0f * CO_CLT_C4 :
      u == 4 ? 2.0f * CO_CLT_C3 : u == 5 ? 2.0f * CO_CLT_C2 :
      u == 6 ? 2.0f * CO_CLT_C1 : 2.0f * CO_CLT_C0;
}

#define CO_CLT_P1 9.238795325e-01f    /* cos (pi / 8) */
#define CO_CLT_P2 7.071067812e-01f    /* cos (pi / 4) */
#define CO_CLT_P3 3.826834324e-01f    /* sin (pi / 8) */

/* The orthonormal 8-point DCT-IV of x0..x7 into y[k ys], through a
 * 4-point complex DFT: z_n = (x_2n + i x_7-2n) 0.5 e^(-i pi (4n + 1) / 32),
 * Z = DFT4 (z), Y_k = Z_k e^(-i pi k / 8); then y_2k = Re Y_k and
 * y_7-2k = -Im Y_k.  56 operations against the matrix's 120, in an order
 * fixed here (no contraction on either side), so C and CUDA agree. */
CO_HD void
co_clt_dct4_core (float x0, float x1, float x2, float x3, float x4, float x5,
    float x6, float x7, float *y, int ys)
{
  /* the pre-twiddled pairs: (a + i b)(c - i s) */
  const float zr0 = CO_CLT_C0 * x0 + CO_CLT_C7 * x7;
  const float zi0 = CO_CLT_C0 * x7 - CO_CLT_C7 * x0;
  const float zr1 = CO_CLT_C2 * x2 + CO_CLT_C5 * x5;
  const float zi1 = CO_CLT_C2 * x5 - CO_CLT_C5 * x2;
  const float zr2 = CO_CLT_C4 * x4 + CO_CLT_C3 * x3;
  const float zi2 = CO_CLT_C4 * x3 - CO_CLT_C3 * x4;
  const float zr3 = CO_CLT_C6 * x6 + CO_CLT_C1 * x1;
  const float zi3 = CO_CLT_C6 * x1 - CO_CLT_C1 * x6;
  /* the 4-point DFT */
  const float sr02 = zr0 + zr2, si02 = zi0 + zi2;
  const float dr02 = zr0 - zr2, di02 = zi0 - zi2;
  const float sr13 = zr1 + zr3, si13 = zi1 + zi3;
  const float dr13 = zr1 - zr3, di13 = zi1 - zi3;
  const float r1 = dr02 + di13, i1 = di02 - dr13;
  const float r2 = sr02 - sr13, i2 = si02 - si13;
  const float r3 = dr02 - di13, i3 = di02 + dr13;
  /* the post-twiddles e^(-i pi k / 8) */
  y[0] = sr02 + sr13;
  y[7 * ys] = -(si02 + si13);
  y[2 * ys] = r1 * CO_CLT_P1 + i1 * CO_CLT_P3;
  y[5 * ys] = -(i1 * CO_CLT_P1 - r1 * CO_CLT_P3);
  y[4 * ys] = (r2 + i2) * CO_CLT_P2;
  y[3 * ys] = -((i2 - r2) * CO_CLT_P2);
  y[6 * ys] = r3 * CO_CLT_P3 + i3 * CO_CLT_P1;
  y[1 * ys] = -(i3 * CO_CLT_P3 - r3 * CO_CLT_P1);
}

/* the orthonormal 8-point DCT-IV, y[k ys] from x[n xs] */
CO_HD void
co_clt_dct4_8 (const float *x, int xs, float *y, int ys)
{
  co_clt_dct4_core (x[0], x[xs], x[2 * xs], x[3 * xs], x[4 * xs], x[5 * xs],
      x[6 * xs], x[7 * xs], y, ys);
}

/* the orthonormal 8-point DST-IV, y[k ys] from x[n xs]: the DCT-IV of x
 * reversed, odd outputs negated */
CO_HD void
co_clt_dst4_8 (const float *x, int xs, float *y, int ys)
{
  co_clt_dct4_core (x[7 * xs], x[6 * xs], x[5 * xs], x[4 * xs], x[3 * xs],
      x[2 * xs], x[xs], x[0], y, ys);
  y[ys] = -y[ys];
  y[3 * ys] = -y[3 * ys];
  y[5 * ys] = -y[5 * ys];
  y[7 * ys] = -y[7 * ys];
}

/* the (k, n) entry of the DCT-IV (sine = 0) or DST-IV (sine = 1) matrix,
 * for the tests: the transform of a unit vector */
CO_HD float
co_clt_entry (int sine, int k, int n)
{
  float x[8] = { 0, 0, 0, 0, 0, 0, 0, 0 }, y[8];
  x[n & 7] = 1.0f;
  if (sine)
    co_clt_dst4_8 (x, 1, y, 1);
  else
    co_clt_dct4_8 (x, 1, y, 1);
  return y[k & 7];
}

/* y = DCT-IV (sine = 0) or DST-IV (sine = 1) of x, orthonormal; y may not
 * alias x. */
CO_HD void
co_clt_dtt8 (int sine, const float *x, int xs, float *y, int ys)
{
  if (sine)
    co_clt_dst4_8 (x, xs, y, ys);
  else
    co_clt_dct4_8 (x, xs, y, ys);
}

/* Where sample t of 16 lands in the folded 8, and its sign in the cosine
 * and the sine branch: fold and unfold share this table. */
CO_HD int
co_clt_fold_index (int t)
{
  return t < 4 ? t + 4 : t < 12 ? 11 - t : t - 12;
}

CO_HD float
co_clt_fold_sign (int sine, int t)
{
  if (t < 4)
    return 1.0f;
  if (t < 12)
    return sine ? 1.0f : -1.0f;
  return -1.0f;
}

/* sin and cos of x, |x| <= 2, from + - * alone (Taylor to x^13 / x^14,
 * about a float's precision there), so both backends get the same bits. */
CO_HD void
co_clt_sincos (float x, float *s, float *c)
{
  const float x2 = x * x;
  float ps = 1.0f / 6227020800.0f;
  float pc = 1.0f / 87178291200.0f;
  ps = 1.0f / 39916800.0f - x2 * ps;
  ps = 1.0f / 362880.0f - x2 * ps;
  ps = 1.0f / 5040.0f - x2 * ps;
  ps = 1.0f / 120.0f - x2 * ps;
  ps = 1.0f / 6.0f - x2 * ps;
  *s = x - x * x2 * ps;
  pc = 1.0f / 479001600.0f - x2 * pc;
  pc = 1.0f / 3628800.0f - x2 * pc;
  pc = 1.0f / 40320.0f - x2 * pc;
  pc = 1.0f / 720.0f - x2 * pc;
  pc = 1.0f / 24.0f - x2 * pc;
  pc = 0.5f - x2 * pc;
  *c = 1.0f - x2 * pc;
}

/* The 16 window weights along one axis, shifted by @s pixels (|s| <= 0.5):
 * w[t] = sin (pi (t + 0.5 + s) / 16), as sin (a + b) from the table. */
CO_HD void
co_clt_window (float s, float w[16])
{
  float sa, ca;
  int t;
  co_clt_sincos (3.14159265358979f / 16.0f * s, &sa, &ca);
  for (t = 0; t < 16; t++) {
    /* sin (pi (t + 0.5) / 16) and its cosine, by symmetry */
    float sw = co_clt_w (t);
    float cw = t < 8 ? co_clt_w (7 - t) : -co_clt_w (t - 8);
    w[t] = s == 0.0f ? sw : sw * ca + cw * sa;
  }
}

/* Folds 16 samples (stride @xs) windowed by @w into the cosine branch
 * @c[8] and the sine branch @s[8]. */
CO_HD void
co_clt_fold (const float *x, int xs, const float w[16], float c[8], float s[8])
{
  int t;
  for (t = 0; t < 8; t++)
    c[t] = s[t] = 0.0f;
  for (t = 0; t < 16; t++) {
    const int k = co_clt_fold_index (t);
    const float u = w[t] * x[t * xs];
    c[k] = c[k] + co_clt_fold_sign (0, t) * u;
    s[k] = s[k] + co_clt_fold_sign (1, t) * u;
  }
}

/* The CLT of one 16x16 tile whose top-left sample is @x (@pitch floats a
 * row), its window shifted by (@sx, @sy) pixels: out[q * 64 + kv * 8 + kh].
 * Rows first, then columns. */
CO_HD void
co_clt_forward_tile (const float *x, int pitch, float sx, float sy,
    float out[CO_CLT_COEFFS])
{
  float wx[16], wy[16], fc[8], fs[8];
  float h[2][16][8];            /* per row: DCT-IV and DST-IV across */
  int y, k, b;

  co_clt_window (sx, wx);
  co_clt_window (sy, wy);
  for (y = 0; y < 16; y++) {
    co_clt_fold (x + (size_t) y * pitch, 1, wx, fc, fs);
    co_clt_dtt8 (0, fc, 1, h[0][y], 1);
    co_clt_dtt8 (1, fs, 1, h[1][y], 1);
  }
  for (b = 0; b < 2; b++)       /* the horizontal branch: C or S */
    for (k = 0; k < 8; k++) {
      co_clt_fold (&h[b][0][k], 8, wy, fc, fs);
      /* q: bit 0 horizontal sine, bit 1 vertical sine */
      co_clt_dtt8 (0, fc, 1, &out[b * CO_CLT_LAYER + k], 8);
      co_clt_dtt8 (1, fs, 1, &out[(2 + b) * CO_CLT_LAYER + k], 8);
    }
}

/* The layers a Bayer colour's transform leaves out, at coefficient
 * position @m (kv * 8 + kh), read back from those it computed
 * (co_clt_forward_tile_bayer says how). */
CO_HD void
co_clt_bayer_restore (float out[CO_CLT_COEFFS], int m, int quincunx, int px,
    int py)
{
  const int kv = m / 8, kh = m % 8;
  const int fh = kv * 8 + 7 - kh, fv = (7 - kv) * 8 + kh;
  const int fd = (7 - kv) * 8 + 7 - kh;
  if (quincunx) {
    const float sg = (px & 1) ? -1.0f : 1.0f;
    out[2 * CO_CLT_LAYER + m] = sg * out[CO_CLT_LAYER + fd];
    out[3 * CO_CLT_LAYER + m] = sg * out[fd];
  } else {
    out[CO_CLT_LAYER + m] = ((px & 1) ? -1.0f : 1.0f) * out[fh];
    out[2 * CO_CLT_LAYER + m] = ((py & 1) ? -1.0f : 1.0f) * out[fv];
    out[3 * CO_CLT_LAYER + m] = (((px + py) & 1) ? -1.0f : 1.0f) * out[fd];
  }
}

/* The CLT of one colour of a Bayer tile, from the raw mosaic @x: only the
 * colour's samples are read (the others count as zero), and of the 12
 * two-dimensional transforms of a tile's three colours only 4 are computed
 * (Filippov 2018).  A colour with one pixel of the 2x2 cell (red, blue) at
 * tile-local parities (@px, @py) needs only CC; its other layers are CC
 * read backwards:
 *   SC[v][h] = (-1)^px CC[v][7-h],  CS[v][h] = (-1)^py CC[7-v][h],
 *   SS[v][h] = (-1)^(px+py) CC[7-v][7-h].
 * Green (@quincunx, on the pixels where x + y has the parity of @px) needs
 * CC and SC: CS[v][h] = (-1)^px SC[7-v][7-h], SS[v][h] = (-1)^px
 * CC[7-v][7-h].  Both follow from S[k] = (-1)^p C[7-k] for samples of one
 * parity p, whatever their window weights. */
CO_HD void
co_clt_forward_tile_bayer (const float *x, int pitch, int quincunx, int px,
    int py, float sx, float sy, float out[CO_CLT_COEFFS])
{
  float wx[16], wy[16], row[16], fc[8], fs[8];
  float h[2][16][8];            /* per row: DCT-IV (and green's DST-IV) */
  int y, t, k, m;

  co_clt_window (sx, wx);
  co_clt_window (sy, wy);
  for (y = 0; y < 16; y++) {
    /* the colour's samples of this row: every other one, or none */
    const int on = quincunx ? ((y + px) & 1) : px;
    if (!quincunx && ((y & 1) != py)) {
      for (k = 0; k < 8; k++)
        h[0][y][k] = h[1][y][k] = 0.0f;
      continue;
    }
    for (t = 0; t < 16; t++)
      row[t] = (t & 1) == on ? x[(size_t) y * pitch + t] : 0.0f;
    co_clt_fold (row, 1, wx, fc, fs);
    co_clt_dtt8 (0, fc, 1, h[0][y], 1);
    if (quincunx)
      co_clt_dtt8 (1, fs, 1, h[1][y], 1);
  }
  for (k = 0; k < 8; k++) {
    co_clt_fold (&h[0][0][k], 8, wy, fc, fs);
    co_clt_dtt8 (0, fc, 1, &out[k], 8);
    if (quincunx) {
      co_clt_fold (&h[1][0][k], 8, wy, fc, fs);
      co_clt_dtt8 (0, fc, 1, &out[CO_CLT_LAYER + k], 8);
    }
  }
  for (m = 0; m < 64; m++)
    co_clt_bayer_restore (out, m, quincunx, px, py);
}

/* One step of co_clt_rotate: the pairs (@a, @b) and (@c, @d) of the
 * coefficients at @i, @stride apart in layers, rotated by pi s (k + 0.5)/8.
 * Across (a column kh): (CC, SC) and (CS, SS); down (a row kv): (CC, CS)
 * and (SC, SS). */
CO_HD void
co_clt_rotate_line (float *z, int across, int k, float s)
{
  const int da = across ? 64 : 128, dc = across ? 128 : 64;
  float sn, cs;
  int m;
  co_clt_sincos (3.14159265358979f / 8.0f * s * ((float) k + 0.5f), &sn,
      &cs);
  for (m = 0; m < 8; m++) {
    const int i = across ? m * 8 + k : k * 8 + m;
    const float a = z[i], b = z[da + i], c = z[dc + i], d = z[192 + i];
    z[i] = a * cs - b * sn;
    z[da + i] = a * sn + b * cs;
    z[dc + i] = c * cs - d * sn;
    z[192 + i] = c * sn + d * cs;
  }
}

/* Rotates a tile's phases by (@sx, @sy) pixels: Z <- Z exp (i phi_x)
 * exp (j phi_y), phi = pi s (k + 0.5) / 8, every column across first, then
 * every row down.  With the window shifted by the same amounts this turns
 * the CLT of samples at integer positions into that of the samples @sx,
 * @sy further on. */
CO_HD void
co_clt_rotate (float z[CO_CLT_COEFFS], float sx, float sy)
{
  int k;
  for (k = 0; k < 8 && sx != 0.0f; k++)
    co_clt_rotate_line (z, 1, k, sx);
  for (k = 0; k < 8 && sy != 0.0f; k++)
    co_clt_rotate_line (z, 0, k, sy);
}

/* The kernel node a tile uses: the one nearest its centre (pixel
 * x0 + 8 t - 0.5 on each axis, t >= 0, for tiles laid from the region
 * origin x0, y0 >= 0), on a grid of @gw x @gh nodes @stride pixels apart:
 * floor ((x0 + 8 t - 0.5) / stride + 0.5) in integers. */
CO_HD int
co_clt_tile_node (int tx, int ty, int x0, int y0, int stride, int gw, int gh)
{
  int i = (16 * tx - 1 + 2 * x0 + stride) / (2 * stride);
  int j = (16 * ty - 1 + 2 * y0 + stride) / (2 * stride);
  i = i < gw ? i : gw - 1;
  j = j < gh ? j : gh - 1;
  return j * gw + i;
}

/* One coefficient position @m (all four layers) of a tile times a
 * kernel's: the bicomplex product Z K there. */
CO_HD void
co_clt_convolve_at (float *z, const float *k, int m)
{
  const float t0 = z[m], t1 = z[64 + m], t2 = z[128 + m], t3 = z[192 + m];
  const float k0 = k[m], k1 = k[64 + m], k2 = k[128 + m], k3 = k[192 + m];
  z[m] = t0 * k0 - t1 * k1 - t2 * k2 + t3 * k3;
  z[64 + m] = t1 * k0 + t0 * k1 - t3 * k2 - t2 * k3;
  z[128 + m] = t2 * k0 - t3 * k1 + t0 * k2 - t1 * k3;
  z[192 + m] = t3 * k0 + t2 * k1 + t1 * k2 + t0 * k3;
}

/* Multiplies a tile by a kernel, both as four layers: the bicomplex
 * product Z K, which is the convolution of the tile's pixels with the
 * kernel's. */
CO_HD void
co_clt_convolve (float z[CO_CLT_COEFFS], const float k[CO_CLT_COEFFS])
{
  int i;
  for (i = 0; i < 64; i++)
    co_clt_convolve_at (z, k, i);
}

/* The 16x16 pixels one tile gives back (to be overlap-added at stride 8):
 * each layer transformed back, unfolded, windowed, a quarter of their sum.
 * @z is used as scratch. */
CO_HD void
co_clt_inverse_tile (float z[CO_CLT_COEFFS], float out[CO_CLT_TILE *
        CO_CLT_TILE])
{
  float col[8], v[4][16][8];    /* per layer: back down, 16 rows of 8 */
  int q, y, x, k;

  for (q = 0; q < 4; q++) {
    const int hs = q & 1, vs = q >> 1;
    for (k = 0; k < 8; k++) {
      co_clt_dtt8 (vs, &z[q * 64 + k], 8, col, 1);
      for (y = 0; y < 16; y++)
        v[q][y][k] = co_clt_fold_sign (vs, y) * col[co_clt_fold_index (y)];
    }
    for (y = 0; y < 16; y++) {
      float row[8];
      co_clt_dtt8 (hs, v[q][y], 1, row, 1);
      for (x = 0; x < 8; x++)
        v[q][y][x] = row[x];
    }
  }
  for (y = 0; y < 16; y++) {
    const float wy = co_clt_w (y);
    for (x = 0; x < 16; x++) {
      const float wx = co_clt_w (x);
      const int kx = co_clt_fold_index (x);
      float acc = 0.0f;
      for (q = 0; q < 4; q++)
        acc = acc + co_clt_fold_sign (q & 1, x) * v[q][y][kx];
      out[y * 16 + x] = 0.25f * (wy * wx) * acc;
    }
  }
}

/* A colour value (1 = full scale) as an output sample of @full (255 or
 * 65535): clamped, rounded half up; NaN gives 0. */
CO_HD uint32_t
co_clt_unit (float v, float full)
{
  v = v > 0.0f ? v : 0.0f;
  v = v < 1.0f ? v : 1.0f;
  return (uint32_t) (v * full + 0.5f);
}

/* One output pixel of @f (RGBA, BGRA, RGBx, BGRx, RGB or RGBA64_LE; alpha
 * and padding opaque) from its red, green and blue values. */
CO_HD void
co_clt_pack_pixel (uint8_t * p, CoFormat f, float r, float g, float b)
{
  if (f == CO_FORMAT_RGBA64_LE) {
    const uint32_t c[4] = { co_clt_unit (r, 65535.0f),
      co_clt_unit (g, 65535.0f), co_clt_unit (b, 65535.0f), 65535u
    };
    int i;
    for (i = 0; i < 4; i++) {
      p[2 * i] = (uint8_t) c[i];
      p[2 * i + 1] = (uint8_t) (c[i] >> 8);
    }
  } else {
    const int red = co_format_red_channel (f);
    p[red] = (uint8_t) co_clt_unit (r, 255.0f);
    p[1] = (uint8_t) co_clt_unit (g, 255.0f);
    p[2 - red] = (uint8_t) co_clt_unit (b, 255.0f);
    if (f != CO_FORMAT_RGB)
      p[3] = 255;
  }
}

#ifdef __cplusplus
}
#endif
#endif /* CO_CLT_MATH_H */
