/* cudaoptics — LGPL-2.1-or-later
 *
 * Backward-mapping remap core shared by every geometric element: the
 * compressed 32-bit LUT entry (Kim et al. 2022, Eq. 2/3, extended with
 * sub-pixel positions for bilinear sampling) and the samplers.  The CPU
 * references and the CUDA kernels include this one file, so both backends
 * compute the same integers.
 *
 * Entry layout, one uint32_t per output pixel:
 *   nearest:  x | y << 16, the source pixel itself.
 *   bilinear: qx | qy << 16 with q = round ((s + 1) * 2^F): the source
 *             coordinate offset by one pixel (so that samples in (-1, 0)
 *             whose right/lower tap is still inside stay representable) in
 *             fixed point with F fractional bits.  F is the largest value
 *             <= CO_LUT_MAX_FRAC_BITS for which (size + 1) << F fits in 16
 *             bits: 5 bits (1/32 px, OpenCV's remap precision) up to 2046
 *             pixels, 4 bits up to 4094, 3 bits up to 8190, 1 bit at 16384.
 *   CO_LUT_UNMAPPED (all ones) marks "no source pixel": the output takes the
 *   border colour.  No valid entry can equal it since sizes stay < 32768.
 *
 * Coordinates address the SOURCE plane, whose size may differ from the
 * output's (the table has one entry per output pixel): F follows the source
 * size.
 *
 * Off-edge modes (CoEdge), for finite positions outside the source (a NaN
 * position, or a map that says "no source pixel", always takes the border
 * colour):
 *   border: the border colour, and bilinear taps outside blend with it
 *           (cv::remap BORDER_CONSTANT; the default).
 *   clamp:  the position is clamped into [0, w-1] x [0, h-1], i.e. the edge
 *           pixel (BORDER_REPLICATE).
 *   wrap:   x modulo the source width, y clamped: what the seam of a
 *           360-degree (polar, cylindrical) panorama needs.  A bilinear
 *           sample in the last column blends with column 0.  In a subsampled
 *           plane of an odd-width frame the chroma period is rounded up, so
 *           the seam is exact in luma only.
 * The edge mode is applied when the entry is encoded, so all three `lut`
 * strategies give the same entries; the samplers only wrap a tap in x.
 */
#ifndef CO_REMAP_H
#define CO_REMAP_H

#include "co_frame.h"
#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CO_LUT_UNMAPPED 0xffffffffu
#define CO_LUT_MAX_FRAC_BITS 7  /* keeps 65535 * 2^(2F) inside 32 bits */
#define CO_REMAP_MAX_SIZE 16384

typedef enum
{
  CO_INTERP_NEAREST = 0,
  CO_INTERP_BILINEAR = 1,
} CoInterp;

typedef enum
{
  CO_EDGE_BORDER = 0,
  CO_EDGE_CLAMP = 1,
  CO_EDGE_WRAP = 2,
} CoEdge;

typedef enum
{
  CO_LUT_COMPRESSED = 0,        /* one 32-bit entry per output pixel */
  CO_LUT_TWO_TABLE = 1,         /* float x and y tables (the paper's GPU_LUT) */
  CO_LUT_COMPUTE = 2,           /* no table: the map per pixel (GPU_naive) */
} CoLutMode;

/* One table geometry: width x height output pixels (pitch in entries, a
 * multiple of 4) addressing a src_width x src_height source plane. */
typedef struct
{
  int32_t width, height, pitch;
  int32_t src_width, src_height;
  uint32_t *packed;             /* CO_LUT_COMPRESSED */
  float *x, *y;                 /* CO_LUT_TWO_TABLE; NaN where unmapped */
} CoLutPlane;

/* Table geometries: plane[0] serves plane 0 of the frame, plane[1] every
 * subsampled plane.  A chromatic table (lateral chromatic aberration, packed
 * RGB only) adds plane[CO_LUT_RED] and plane[CO_LUT_BLUE]: plane 0's
 * geometry, whose entries place the red and the blue channel while
 * plane[0]'s place green (and alpha). */
#define CO_LUT_RED 2
#define CO_LUT_BLUE 3
#define CO_LUT_MAX_GEOMETRIES 4

typedef struct
{
  CoLutMode mode;
  CoInterp interp;
  CoEdge edge;
  CoFormat format;
  int32_t n_geometries;         /* of the planes: 1 or 2 */
  int32_t chroma;               /* plane[CO_LUT_RED/BLUE] are in use */
  int32_t red_channel;          /* the byte of red in a pixel when chroma */
  int32_t frac[CO_LUT_MAX_GEOMETRIES];
  CoLutPlane plane[CO_LUT_MAX_GEOMETRIES];
} CoLut;

/* Whether geometry @g has a table in @lut. */
CO_HD int
co_lut_has_geometry (const CoLut * lut, int g)
{
  return g < lut->n_geometries || (lut->chroma && (g == CO_LUT_RED
          || g == CO_LUT_BLUE));
}

/* log2 of the subsampling of the planes geometry @g serves */
CO_HD int
co_lut_geometry_shift (int g)
{
  return g == 1 ? 1 : 0;
}

/* The colour geometry @g places: 0 every channel (or green and alpha in a
 * chromatic table), 1 red, 2 blue. */
CO_HD int
co_lut_geometry_channel (int g)
{
  return g == CO_LUT_RED ? 1 : g == CO_LUT_BLUE ? 2 : 0;
}

CO_HD int
co_lut_frac_bits (int src_w, int src_h)
{
  int m = (src_w > src_h ? src_w : src_h) + 1;
  int f = CO_LUT_MAX_FRAC_BITS;
  while (f > 0 && (m << f) > 65534)
    f--;
  return f;
}

/* Comparisons are written so that NaN lands on the unmapped side. */
CO_HD uint32_t
co_lut_encode_nearest (float sx, float sy, int src_w, int src_h)
{
  float rx = floorf (sx + 0.5f), ry = floorf (sy + 0.5f);
  if (!(rx >= 0.0f && rx <= (float) (src_w - 1) && ry >= 0.0f
          && ry <= (float) (src_h - 1)))
    return CO_LUT_UNMAPPED;
  return (uint32_t) rx | ((uint32_t) ry << 16);
}

CO_HD void
co_lut_decode_nearest (uint32_t e, int *x, int *y)
{
  *x = (int) (e & 0xffff);
  *y = (int) (e >> 16);
}

CO_HD uint32_t
co_lut_encode_bilinear (float sx, float sy, int src_w, int src_h, int frac)
{
  float s = (float) (1 << frac);
  float fx = (sx + 1.0f) * s, fy = (sy + 1.0f) * s;
  if (!(fx > 0.0f && fx < (float) ((src_w + 1) << frac) && fy > 0.0f
          && fy < (float) ((src_h + 1) << frac)))
    return CO_LUT_UNMAPPED;
  return (uint32_t) (fx + 0.5f) | ((uint32_t) (fy + 0.5f) << 16);
}

CO_HD void
co_lut_decode_bilinear (uint32_t e, int frac, int *x0, int *y0, int *wx,
    int *wy)
{
  uint32_t qx = e & 0xffff, qy = e >> 16, m = (1u << frac) - 1;
  *x0 = (int) (qx >> frac) - 1;
  *y0 = (int) (qy >> frac) - 1;
  *wx = (int) (qx & m);
  *wy = (int) (qy & m);
}

/* NaN passes through (both comparisons are false). */
CO_HD float
co_clampf (float v, float lo, float hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

/* v modulo n in [0, n); NaN and infinities give NaN. */
CO_HD float
co_wrapf (float v, int n)
{
  float fn = (float) n;
  float r = v - floorf (v / fn) * fn;
  if (r < 0.0f)
    r = r + fn;
  if (r >= fn)
    r = r - fn;
  return r;
}

/* The clamp and wrap entries: the position folded into the source first.
 * Bilinear keeps q inside [2^F, (w + 1) 2^F]: wrap may reach column w,
 * which the sampler reads as column 0. */
CO_HD uint32_t
co_lut_encode_folded (CoInterp interp, CoEdge edge, float sx, float sy,
    int src_w, int src_h, int frac)
{
  float s, fx, fy;
  if (interp == CO_INTERP_NEAREST) {
    float rx = floorf (sx + 0.5f), ry = floorf (sy + 0.5f);
    rx = edge == CO_EDGE_WRAP ? co_wrapf (rx, src_w) :
        co_clampf (rx, 0.0f, (float) (src_w - 1));
    ry = co_clampf (ry, 0.0f, (float) (src_h - 1));
    return co_lut_encode_nearest (rx, ry, src_w, src_h);
  }
  sx = edge == CO_EDGE_WRAP ? co_wrapf (sx, src_w) :
      co_clampf (sx, 0.0f, (float) (src_w - 1));
  sy = co_clampf (sy, 0.0f, (float) (src_h - 1));
  s = (float) (1 << frac);
  fx = (sx + 1.0f) * s;
  fy = (sy + 1.0f) * s;
  if (!(fx >= s && fx <= (float) ((src_w + 1) << frac) && fy >= s
          && fy <= (float) (src_h << frac)))
    return CO_LUT_UNMAPPED;
  return (uint32_t) (fx + 0.5f) | ((uint32_t) (fy + 0.5f) << 16);
}

CO_HD uint32_t
co_lut_encode (CoInterp interp, CoEdge edge, float sx, float sy, int src_w,
    int src_h, int frac)
{
  if (edge != CO_EDGE_BORDER)
    return co_lut_encode_folded (interp, edge, sx, sy, src_w, src_h, frac);
  return interp == CO_INTERP_NEAREST ?
      co_lut_encode_nearest (sx, sy, src_w, src_h) :
      co_lut_encode_bilinear (sx, sy, src_w, src_h, frac);
}

/* One source plane as the samplers see it; wrap_x for CO_EDGE_WRAP. */
typedef struct
{
  const uint8_t *data;
  int32_t pitch, width, height;
  int32_t wrap_x;
} CoSrcPlane;

CO_HD uint32_t
co_tap (const CoSrcPlane * s, CoPixKind k, int x, int y, uint32_t border)
{
  if (s->wrap_x && x >= s->width)
    x -= s->width;
  if (x < 0 || y < 0 || x >= s->width || y >= s->height)
    return border;
  return co_pix_load (s->data + (size_t) y * s->pitch +
      (size_t) x * co_pix_bpp (k), k);
}

/* Bilinear RGBA-like pixels with every tap inside: the same integers as the
 * generic path below, two 8-bit channels per 32-bit word in the horizontal
 * stage (255 * 2^F <= 32640 fits a 16-bit lane), so half the multiplies. */
CO_HD uint32_t
co_bilinear_u8x4_inside (const uint8_t * p, int pitch, int wx, int wy,
    int frac)
{
  const uint32_t one = 1u << frac, m = 0x00ff00ffu;
  const uint32_t half = (1u << (2 * frac)) >> 1;
  uint32_t t00 = co_pix_load (p, CO_PIX_U8X4);
  uint32_t t01 = co_pix_load (p + 4, CO_PIX_U8X4);
  uint32_t t10 = co_pix_load (p + pitch, CO_PIX_U8X4);
  uint32_t t11 = co_pix_load (p + pitch + 4, CO_PIX_U8X4);
  /* channels 0 and 2 (even), 1 and 3 (odd), each lane a horizontal blend */
  uint32_t te = (t00 & m) * (one - wx) + (t01 & m) * wx;
  uint32_t to = ((t00 >> 8) & m) * (one - wx) + ((t01 >> 8) & m) * wx;
  uint32_t be = (t10 & m) * (one - wx) + (t11 & m) * wx;
  uint32_t bo = ((t10 >> 8) & m) * (one - wx) + ((t11 >> 8) & m) * wx;
  uint32_t c0 = ((te & 0xffff) * (one - wy) + (be & 0xffff) * wy + half)
      >> (2 * frac);
  uint32_t c1 = ((to & 0xffff) * (one - wy) + (bo & 0xffff) * wy + half)
      >> (2 * frac);
  uint32_t c2 = ((te >> 16) * (one - wy) + (be >> 16) * wy + half)
      >> (2 * frac);
  uint32_t c3 = ((to >> 16) * (one - wy) + (bo >> 16) * wy + half)
      >> (2 * frac);
  return c0 | (c1 << 8) | (c2 << 16) | (c3 << 24);
}

/* Out-of-frame taps take the border value, as OpenCV's BORDER_CONSTANT. */
CO_HD uint32_t
co_sample_generic (const CoSrcPlane * s, CoPixKind k, CoInterp interp,
    int frac, uint32_t e, uint32_t border)
{
  int x0, y0, wx, wy, c;
  uint32_t t00, t01, t10, t11, out = 0, one, half;

  if (e == CO_LUT_UNMAPPED)
    return border;
  if (interp == CO_INTERP_NEAREST) {
    co_lut_decode_nearest (e, &x0, &y0);
    return co_pix_load (s->data + (size_t) y0 * s->pitch +
        (size_t) x0 * co_pix_bpp (k), k);
  }
  co_lut_decode_bilinear (e, frac, &x0, &y0, &wx, &wy);
  t00 = co_tap (s, k, x0, y0, border);
  t01 = co_tap (s, k, x0 + 1, y0, border);
  t10 = co_tap (s, k, x0, y0 + 1, border);
  t11 = co_tap (s, k, x0 + 1, y0 + 1, border);
  one = 1u << frac;
  half = (1u << (2 * frac)) >> 1;
  for (c = 0; c < co_pix_channels (k); c++) {
    uint32_t top = co_pix_channel (t00, k, c) * (one - wx) +
        co_pix_channel (t01, k, c) * wx;
    uint32_t bot = co_pix_channel (t10, k, c) * (one - wx) +
        co_pix_channel (t11, k, c) * wx;
    uint32_t v = (top * (one - wy) + bot * wy + half) >> (2 * frac);
    out = co_pix_set_channel (out, k, c, v);
  }
  return out;
}

CO_HD uint32_t
co_sample (const CoSrcPlane * s, CoPixKind k, CoInterp interp, int frac,
    uint32_t e, uint32_t border)
{
  if (k == CO_PIX_U8X4 && interp == CO_INTERP_BILINEAR
      && e != CO_LUT_UNMAPPED) {
    int x0, y0, wx, wy;
    co_lut_decode_bilinear (e, frac, &x0, &y0, &wx, &wy);
    if (x0 >= 0 && y0 >= 0 && x0 + 1 < s->width && y0 + 1 < s->height)
      return co_bilinear_u8x4_inside (s->data + (size_t) y0 * s->pitch +
          (size_t) x0 * 4, s->pitch, wx, wy, frac);
  }
  return co_sample_generic (s, k, interp, frac, e, border);
}

/* A chromatic sample: green's entry @eg for every channel, then red and
 * blue replaced by their samples at @er and @eb (@rc: red's byte).  Each
 * channel is what co_sample gives at that channel's own entry, so a channel
 * equals the plain remap of a table built for it alone. */
CO_HD uint32_t
co_sample_rgb (const CoSrcPlane * s, CoPixKind k, CoInterp interp, int frac,
    uint32_t eg, uint32_t er, uint32_t eb, int rc, uint32_t border)
{
  const int bc = 2 - rc;
  const uint32_t rm = 0xffu << (8 * rc), bm = 0xffu << (8 * bc);
  uint32_t v = co_sample (s, k, interp, frac, eg, border);
  uint32_t r = er == eg ? v : co_sample (s, k, interp, frac, er, border);
  uint32_t b = eb == eg ? v : co_sample (s, k, interp, frac, eb, border);
  return (v & ~(rm | bm)) | (r & rm) | (b & bm);
}

#ifdef __cplusplus
}
#endif
#endif /* CO_REMAP_H */
