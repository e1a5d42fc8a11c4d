/* cudaoptics — LGPL-2.1-or-later
 *
 * C reference of the generic remap (remap.h): the CPU backend of every
 * geometric element and the oracle of the CUDA side.
 */
#include <math.h>
#include <string.h>
#include "remap.h"

void
co_lut_layout_full (CoLut * lut, CoLutMode mode, CoInterp interp, CoEdge edge,
    CoFormat format, int dst_w, int dst_h, int src_w, int src_h)
{
  int g;

  memset (lut, 0, sizeof (*lut));
  lut->mode = mode;
  lut->interp = interp;
  lut->edge = edge;
  lut->format = format;
  lut->n_geometries = co_format_n_planes (format) > 1 ? 2 : 1;
  for (g = 0; g < lut->n_geometries; g++) {
    CoLutPlane *pl = &lut->plane[g];
    co_plane_size (dst_w, dst_h, g, &pl->width, &pl->height);
    co_plane_size (src_w, src_h, g, &pl->src_width, &pl->src_height);
    pl->pitch = (pl->width + 3) & ~3;
    /* entries address the source */
    lut->frac[g] = interp == CO_INTERP_NEAREST ? 0 :
        co_lut_frac_bits (pl->src_width, pl->src_height);
  }
}

void
co_lut_layout (CoLut * lut, CoLutMode mode, CoInterp interp, CoFormat format,
    int width, int height)
{
  co_lut_layout_full (lut, mode, interp, CO_EDGE_BORDER, format, width,
      height, width, height);
}

int
co_lut_set_chroma (CoLut * lut)
{
  int rc = co_format_red_channel (lut->format);

  if (rc < 0)
    return 0;
  lut->chroma = 1;
  lut->red_channel = rc;
  lut->plane[CO_LUT_RED] = lut->plane[CO_LUT_BLUE] = lut->plane[0];
  lut->plane[CO_LUT_RED].packed = lut->plane[CO_LUT_BLUE].packed = NULL;
  lut->plane[CO_LUT_RED].x = lut->plane[CO_LUT_BLUE].x = NULL;
  lut->plane[CO_LUT_RED].y = lut->plane[CO_LUT_BLUE].y = NULL;
  lut->frac[CO_LUT_RED] = lut->frac[CO_LUT_BLUE] = lut->frac[0];
  return 1;
}

size_t
co_lut_table_bytes (const CoLut * lut, int g)
{
  if (lut->mode == CO_LUT_COMPUTE || g < 0 || g >= CO_LUT_MAX_GEOMETRIES ||
      !co_lut_has_geometry (lut, g))
    return 0;
  return (size_t) lut->plane[g].pitch * lut->plane[g].height * 4;
}

void
co_lut_from_map_cpu (const CoLut * lut, int g, const float *x,
    const float *y, int map_pitch)
{
  const CoLutPlane *pl = &lut->plane[g];
  int r;

  if (lut->mode == CO_LUT_COMPUTE)
    return;
#pragma omp parallel for schedule(static) \
    if ((int64_t) pl->width * pl->height >= CO_PARALLEL_MIN_PIXELS)
  for (r = 0; r < pl->height; r++) {
    size_t row = (size_t) r * pl->pitch, mrow = (size_t) map_pitch *r;
    int c;
    for (c = 0; c < pl->pitch; c++) {
      float sx = c < pl->width ? x[mrow + c] : NAN;
      float sy = c < pl->width ? y[mrow + c] : NAN;
      if (lut->mode == CO_LUT_COMPRESSED) {
        pl->packed[row + c] = co_lut_encode (lut->interp, lut->edge, sx, sy,
            pl->src_width, pl->src_height, lut->frac[g]);
      } else {
        pl->x[row + c] = sx;
        pl->y[row + c] = sy;
      }
    }
  }
}

/* The entry of output pixel @x of row @row in geometry @g's table */
static inline uint32_t
entry_at (const CoLut * lut, int g, size_t row, int x)
{
  const CoLutPlane *pl = &lut->plane[g];

  if (lut->mode == CO_LUT_COMPRESSED)
    return pl->packed[row + x];
  return co_lut_encode (lut->interp, lut->edge, pl->x[row + x],
      pl->y[row + x], pl->src_width, pl->src_height, lut->frac[g]);
}

void
co_remap_cpu (const CoLut * lut, const CoFrame * in, CoFrame * out,
    const uint32_t border[CO_MAX_PLANES])
{
  int pi;

  if (lut->mode == CO_LUT_COMPUTE)
    return;
  for (pi = 0; pi < co_format_n_planes (lut->format); pi++) {
    int g = pi > 0 ? 1 : 0;
    CoPixKind kind = co_format_plane_kind (lut->format, pi);
    int bpp = co_pix_bpp (kind);
    const CoLutPlane *pl = &lut->plane[g];
    CoSrcPlane s = { in->data[pi], in->pitch[pi], pl->src_width,
      pl->src_height, lut->edge == CO_EDGE_WRAP
    };
    int y;
#pragma omp parallel for schedule(static) \
    if ((int64_t) pl->width * pl->height >= CO_PARALLEL_MIN_PIXELS)
    for (y = 0; y < pl->height; y++) {
      uint8_t *d = out->data[pi] + (size_t) y * out->pitch[pi];
      size_t row = (size_t) y * pl->pitch;
      int x;
      for (x = 0; x < pl->width; x++) {
        uint32_t e = entry_at (lut, g, row, x), v;
        if (lut->chroma && g == 0)
          v = co_sample_rgb (&s, kind, lut->interp, lut->frac[0], e,
              entry_at (lut, CO_LUT_RED, row, x), entry_at (lut, CO_LUT_BLUE,
                  row, x), lut->red_channel, border[pi]);
        else
          v = co_sample (&s, kind, lut->interp, lut->frac[g], e, border[pi]);
        co_pix_store (d + (size_t) x * bpp, kind, v);
      }
    }
  }
}
