/* cudaoptics — LGPL-2.1-or-later
 *
 * C reference of the tile transform over planes (clt.h).
 */
#include <math.h>
#include <string.h>
#include "clt.h"
#include "remap.h"              /* CO_PARALLEL_MIN_PIXELS */

void
co_clt_tiles (int w, int h, int *tiles_x, int *tiles_y)
{
  *tiles_x = (w + 7) / 8 + 1;
  *tiles_y = (h + 7) / 8 + 1;
}

void
co_clt_forward_cpu (const float *img, int w, int h, int pitch,
    const float *dx, const float *dy, float *clt)
{
  co_clt_forward_some_cpu (img, w, h, pitch, dx, dy, NULL, clt);
}

void
co_clt_forward_some_cpu (const float *img, int w, int h, int pitch,
    const float *dx, const float *dy, const float *on, float *clt)
{
  int tx_n, ty_n, i;

  co_clt_tiles (w, h, &tx_n, &ty_n);
#pragma omp parallel for schedule(static) \
    if ((int64_t) w * h >= CO_PARALLEL_MIN_PIXELS)
  for (i = 0; i < tx_n * ty_n; i++) {
    if (on && on[i] == 0.0f)
      continue;
    const int tx = i % tx_n, ty = i / tx_n;
    const float px = (float) (8 * tx - 8) + (dx ? dx[i] : 0.0f);
    const float py = (float) (8 * ty - 8) + (dy ? dy[i] : 0.0f);
    /* the integer corner, and what is left of the shift */
    const float fx = floorf (px + 0.5f), fy = floorf (py + 0.5f);
    const int ix = (int) fx, iy = (int) fy;
    float tile[CO_CLT_TILE * CO_CLT_TILE], *z = clt + (size_t) i *
        CO_CLT_COEFFS;
    int x, y;

    for (y = 0; y < 16; y++)
      for (x = 0; x < 16; x++) {
        const int sx = co_clt_source (ix + x, w), sy = co_clt_source (iy + y,
            h);
        tile[y * 16 + x] = sx >= 0 && sy >= 0 ?
            img[(size_t) sy * pitch + sx] : 0.0f;
      }
    /* sample ix + t lies at t + (ix - px) from where the tile should
     * start: the window is evaluated there, the phases moved back */
    co_clt_forward_tile (tile, 16, fx - px, fy - py, z);
    co_clt_rotate (z, fx - px, fy - py);
  }
}

void
co_clt_bayer_sites (CoBayer bayer, int *rx, int *ry, int *bx, int *by,
    int *g)
{
  switch (bayer) {
    case CO_BAYER_BGGR:        /* B G / G R */
      *rx = *ry = 1;
      *bx = *by = 0;
      *g = 1;
      break;
    case CO_BAYER_GRBG:        /* G R / B G */
      *rx = 1;
      *ry = 0;
      *bx = 0;
      *by = 1;
      *g = 0;
      break;
    case CO_BAYER_GBRG:        /* G B / R G */
      *rx = 0;
      *ry = 1;
      *bx = 1;
      *by = 0;
      *g = 0;
      break;
    default:                   /* R G / G B */
      *rx = *ry = 0;
      *bx = *by = 1;
      *g = 1;
      break;
  }
}

void
co_clt_forward_bayer_cpu (const uint8_t * raw, int w, int h, int pitch,
    int bps, float scale, CoBayer bayer, const int *roi, const float *dx,
    const float *dy, float *const clt[3])
{
  const int x0 = roi ? roi[0] : 0, y0 = roi ? roi[1] : 0;
  int tx_n, ty_n, i, rx, ry, bx, by, g;

  co_clt_tiles (roi ? roi[2] : w, roi ? roi[3] : h, &tx_n, &ty_n);
  co_clt_bayer_sites (bayer, &rx, &ry, &bx, &by, &g);
#pragma omp parallel for schedule(static) \
    if ((int64_t) w * h >= CO_PARALLEL_MIN_PIXELS)
  for (i = 0; i < tx_n * ty_n; i++) {
    const int tx = i % tx_n, ty = i / tx_n;
    float tile[CO_CLT_TILE * CO_CLT_TILE];
    int c;

    for (c = 0; c < 3; c++) {
      const float px = (float) (x0 + 8 * tx - 8) + (dx ? dx[3 * i + c] :
          0.0f);
      const float py = (float) (y0 + 8 * ty - 8) + (dy ? dy[3 * i + c] :
          0.0f);
      const float fx = floorf (px + 0.5f), fy = floorf (py + 0.5f);
      const int ix = (int) fx, iy = (int) fy;
      float *z = clt[c] + (size_t) i * CO_CLT_COEFFS;
      int x, y, qx, qy;

      for (y = 0; y < 16; y++)
        for (x = 0; x < 16; x++) {
          const int sx = co_clt_source (ix + x, w);
          const int sy = co_clt_source (iy + y, h);
          float v = 0.0f;
          if (sx >= 0 && sy >= 0) {
            const uint8_t *p = raw + (size_t) sy * pitch + (size_t) sx * bps;
            v = scale * (float) (bps == 2 ? (p[0] | p[1] << 8) : p[0]);
          }
          tile[y * 16 + x] = v;
        }
      /* the colour's sites in the tile's own coordinates */
      if (c == 1) {
        qx = (g + ix + iy) & 1;
        qy = 0;
      } else {
        qx = ((c == 0 ? rx : bx) + ix) & 1;
        qy = ((c == 0 ? ry : by) + iy) & 1;
      }
      co_clt_forward_tile_bayer (tile, 16, c == 1, qx, qy, fx - px, fy - py,
          z);
      co_clt_rotate (z, fx - px, fy - py);
    }
  }
}

void
co_clt_tile_shifts (const float *nodes, int gw, int gh, int stride,
    int colours, int x0, int y0, int w, int h, float *dx, float *dy)
{
  int tx_n, ty_n, i, c;

  co_clt_tiles (w, h, &tx_n, &ty_n);
  for (i = 0; i < tx_n * ty_n; i++) {
    /* the nodes' offsets interpolated bilinearly at the tile's centre
     * (x0 + 8 tx - 0.5), not the nearest node's: a node serves 2 x 2 tiles
     * at stride 16, and lateral colour or distortion changes across them */
    const double u = fmin (fmax ((x0 + 8.0 * (i % tx_n) - 0.5) / stride, 0.0),
        gw - 1.0);
    const double v = fmin (fmax ((y0 + 8.0 * (i / tx_n) - 0.5) / stride, 0.0),
        gh - 1.0);
    const int i0 = (int) u, j0 = (int) v;
    const int i1 = i0 + 1 < gw ? i0 + 1 : i0, j1 = j0 + 1 < gh ? j0 + 1 : j0;
    const double fu = u - i0, fv = v - j0;
    for (c = 0; c < 3; c++) {
      const size_t cc = colours > 1 ? c : 0, nf = CO_CLT_COEFFS + 2;
      const float *k00 = nodes + ((size_t) (j0 * gw + i0) * colours + cc) * nf;
      const float *k10 = nodes + ((size_t) (j0 * gw + i1) * colours + cc) * nf;
      const float *k01 = nodes + ((size_t) (j1 * gw + i0) * colours + cc) * nf;
      const float *k11 = nodes + ((size_t) (j1 * gw + i1) * colours + cc) * nf;
      int a;
      for (a = 0; a < 2; a++) {
        const double val = (1 - fv) * ((1 - fu) * k00[a] + fu * k10[a]) +
            fv * ((1 - fu) * k01[a] + fu * k11[a]);
        (a ? dy : dx)[3 * i + c] = (float) val;
      }
    }
  }
}

void
co_clt_convolve_grid_cpu (float *clt, int x0, int y0, int w, int h,
    const float *nodes, int gw, int gh, int stride, int colours, int c)
{
  int tx_n, ty_n, i;

  co_clt_tiles (w, h, &tx_n, &ty_n);
#pragma omp parallel for schedule(static) \
    if ((int64_t) w * h >= CO_PARALLEL_MIN_PIXELS)
  for (i = 0; i < tx_n * ty_n; i++) {
    const int node = co_clt_tile_node (i % tx_n, i / tx_n, x0, y0, stride, gw,
        gh);
    co_clt_convolve (clt + (size_t) i * CO_CLT_COEFFS, nodes + ((size_t) node
            * colours + (colours > 1 ? c : 0)) * (CO_CLT_COEFFS + 2) + 2);
  }
}

void
co_clt_convolve_cpu (float *clt, int n_tiles, const float *kernel)
{
  int i;
  for (i = 0; i < n_tiles; i++)
    co_clt_convolve (clt + (size_t) i * CO_CLT_COEFFS, kernel);
}

void
co_clt_inverse_cpu (const float *clt, int w, int h, float *out, int pitch)
{
  int tx_n, ty_n, pass, y;

  co_clt_tiles (w, h, &tx_n, &ty_n);
  for (y = 0; y < h; y++)
    memset (out + (size_t) y * pitch, 0, sizeof (float) * w);
  for (pass = 0; pass < 4; pass++) {
    /* tiles of one parity are 16 pixels apart: no two write one pixel */
    const int ox = pass & 1, oy = pass >> 1;
    int n = ((tx_n - ox + 1) / 2) * ((ty_n - oy + 1) / 2), j;
#pragma omp parallel for schedule(static) \
    if ((int64_t) w * h >= CO_PARALLEL_MIN_PIXELS)
    for (j = 0; j < n; j++) {
      const int per_row = (tx_n - ox + 1) / 2;
      const int tx = ox + 2 * (j % per_row), ty = oy + 2 * (j / per_row);
      float z[CO_CLT_COEFFS], pix[CO_CLT_TILE * CO_CLT_TILE];
      int x, yy;

      memcpy (z, clt + ((size_t) ty * tx_n + tx) * CO_CLT_COEFFS, sizeof z);
      co_clt_inverse_tile (z, pix);
      for (yy = 0; yy < 16; yy++)
        for (x = 0; x < 16; x++) {
          const int ox_ = 8 * tx - 8 + x, oy_ = 8 * ty - 8 + yy;
          if (ox_ >= 0 && ox_ < w && oy_ >= 0 && oy_ < h)
            out[(size_t) oy_ * pitch + ox_] += pix[yy * 16 + x];
        }
    }
  }
}

void
co_clt_pack_cpu (const float *const planes[3], int fpitch, const int *roi,
    const CoFrame * out)
{
  const int bpp = co_pix_bpp (co_format_plane_kind (out->format, 0));
  const int x0 = roi ? roi[0] : 0, y0 = roi ? roi[1] : 0;
  const int x1 = roi ? x0 + roi[2] : out->width;
  const int y1 = roi ? y0 + roi[3] : out->height;
  int y;

#pragma omp parallel for schedule(static) \
    if ((int64_t) out->width * out->height >= CO_PARALLEL_MIN_PIXELS)
  for (y = 0; y < out->height; y++) {
    const int in_y = y >= y0 && y < y1;
    const size_t row = (size_t) (y - y0) * fpitch - x0;
    uint8_t *p = out->data[0] + (size_t) y * out->pitch[0];
    int x;
    for (x = 0; x < out->width; x++, p += bpp)
      if (in_y && x >= x0 && x < x1)
        co_clt_pack_pixel (p, out->format, planes[0][row + x],
            planes[1][row + x], planes[2][row + x]);
      else
        co_clt_pack_pixel (p, out->format, 0.0f, 0.0f, 0.0f);
  }
}
