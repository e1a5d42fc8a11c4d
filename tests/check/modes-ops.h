/* cudaoptics — LGPL-2.1-or-later
 *
 * The maths of the test-only subclasses of tests/check/modes.c, written once
 * for their C and CUDA paths, as the elements' kernels are.
 */
#ifndef MODES_OPS_H
#define MODES_OPS_H

#include "co_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Nearest-neighbour scaling of a one-plane frame, any output size. */
CO_HD void
mo_scale_px (const CoFrame * in, const CoFrame * out, int x, int y)
{
  int bpp = co_pix_bpp (co_format_plane_kind (in->format, 0)), i;
  int sx = (int) ((int64_t) x * in->width / out->width);
  int sy = (int) ((int64_t) y * in->height / out->height);
  const uint8_t *s = in->data[0] + (size_t) sy * in->pitch[0] +
      (size_t) sx * bpp;
  uint8_t *d = out->data[0] + (size_t) y * out->pitch[0] + (size_t) x * bpp;

  for (i = 0; i < bpp; i++)
    d[i] = s[i];
}

/* GRAY8 to RGBA (or RGBA64_LE), or an 8-bit Bayer mosaic likewise by 2x2 cells (each pixel
 * of a cell gets the cell's red, mean green and blue; an edge cell cut by
 * an odd size repeats its last row or column). */
CO_HD void
mo_to_rgba_px (const CoFrame * in, const CoFrame * out, int x, int y)
{
  uint8_t *d = out->data[0] + (size_t) y * out->pitch[0] + (size_t) x * 4;
  uint32_t r, g, b;

  if (in->bayer == CO_BAYER_NONE) {
    r = g = b = in->data[0][(size_t) y * in->pitch[0] + x];
  } else {
    int cx = x & ~1, cy = y & ~1;
    int x1 = cx + 1 < in->width ? cx + 1 : cx;
    int y1 = cy + 1 < in->height ? cy + 1 : cy;
    uint32_t p00 = in->data[0][(size_t) cy * in->pitch[0] + cx];
    uint32_t p01 = in->data[0][(size_t) cy * in->pitch[0] + x1];
    uint32_t p10 = in->data[0][(size_t) y1 * in->pitch[0] + cx];
    uint32_t p11 = in->data[0][(size_t) y1 * in->pitch[0] + x1];
    switch (in->bayer) {
      case CO_BAYER_RGGB:
        r = p00, g = (p01 + p10 + 1) >> 1, b = p11;
        break;
      case CO_BAYER_BGGR:
        b = p00, g = (p01 + p10 + 1) >> 1, r = p11;
        break;
      case CO_BAYER_GRBG:
        r = p01, g = (p00 + p11 + 1) >> 1, b = p10;
        break;
      default:                 /* GBRG */
        b = p01, g = (p00 + p11 + 1) >> 1, r = p10;
        break;
    }
  }
  if (out->format == CO_FORMAT_RGBA64_LE) {
    /* 8 to 16 bits by x257, little-endian */
    uint8_t *d16 = out->data[0] + (size_t) y * out->pitch[0] + (size_t) x * 8;
    d16[0] = d16[1] = (uint8_t) r;
    d16[2] = d16[3] = (uint8_t) g;
    d16[4] = d16[5] = (uint8_t) b;
    d16[6] = d16[7] = 255;
    return;
  }
  d[0] = (uint8_t) r;
  d[1] = (uint8_t) g;
  d[2] = (uint8_t) b;
  d[3] = 255;
}

/* The sum of one row's bytes of plane 0. */
CO_HD uint64_t
mo_row_sum (const CoFrame * in, int y)
{
  int n = in->width * co_pix_bpp (co_format_plane_kind (in->format, 0)), i;
  const uint8_t *s = in->data[0] + (size_t) y * in->pitch[0];
  uint64_t sum = 0;

  for (i = 0; i < n; i++)
    sum += s[i];
  return sum;
}

/* CUDA launchers (modes-ops.cu), on @stream, returning a cudaError_t. */
int mo_scale_cuda (const CoFrame * in, const CoFrame * out, void *stream);
int mo_to_rgba_cuda (const CoFrame * in, const CoFrame * out, void *stream);
/* Adds the frame's byte sum to *dev_sum (device memory). */
int mo_sum_cuda (const CoFrame * in, unsigned long long *dev_sum,
    void *stream);

#ifdef __cplusplus
}
#endif
#endif
