/* cudaoptics — LGPL-2.1-or-later
 *
 * The C reference of cudafoveate's block-wise blur (foveate_math.h), and
 * the host side of its filter table.  Each fragment is blurred with the
 * Gaussian of its centre's eccentricity: a horizontal pass into floats over
 * the fragment's rows and r more above and below, then a vertical pass,
 * the same sums in the same order as kernels/foveate.cu.
 */
#include "foveate_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
co_fovea_level_range (const CoFovea * f, CoFormat format, int width,
    int height, int *lo, int *hi)
{
  int p;

  *lo = 1 << 30;
  *hi = -1;
  for (p = 0; p < co_format_n_planes (format); p++) {
    int shift = co_format_plane_shift (format, p), w, h, F, sx, sy, nx, ny;
    int i, j;

    co_plane_size (width, height, shift, &w, &h);
    co_fovea_tiling (f, shift, w, h, &F, &sx, &sy, &nx, &ny);
    for (j = 0; j < ny; j++)
      for (i = 0; i < nx; i++) {
        int l = co_fovea_level (f, shift, F, sx + i * F, sy + j * F);
        if (l < 0)
          continue;
        *lo = l < *lo ? l : *lo;
        *hi = l > *hi ? l : *hi;
      }
  }
}

int
co_fovea_table_size (int lo, int n)
{
  int l, taps = 0;

  for (l = lo; l < lo + n; l++)
    taps += co_fovea_radius ((float) l / CO_FOVEA_Q) + 1;
  return taps;
}

void
co_fovea_table (int lo, int n, int32_t * off, float *w)
{
  int l, k;

  off[0] = 0;
  for (l = lo; l < lo + n; l++) {
    double sigma = (double) l / CO_FOVEA_Q, sum = 0.0;
    int r = co_fovea_radius ((float) sigma), o = off[l - lo];

    for (k = 0; k <= r; k++) {
      double v = sigma > 0.0 ? exp (-(double) k * k / (2.0 * sigma * sigma)) :
          (k == 0);
      w[o + k] = (float) v;
      sum += k ? 2.0 * v : v;
    }
    for (k = 0; k <= r; k++)
      w[o + k] = (float) (w[o + k] / sum);
    off[l - lo + 1] = o + r + 1;
  }
}

/* Offsets first, then the taps, 16-byte aligned. */
static size_t
taps_at (int n)
{
  return ((size_t) (n + 1) * sizeof (int32_t) + 15) & ~(size_t) 15;
}

float
co_fovea_plan (CoFovea * f, const CoFoveaModel * m, CoFormat format,
    int width, int height, double fix_x, double fix_y, int fragment)
{
  int lo, hi, shift;
  float dx, dy, smin, sig_hi;

  memset (f, 0, sizeof *f);
  f->m = *m;
  f->ln_ct = logf (1.0f / m->ct0);
  f->fx = (float) (fix_x * width - 0.5);
  f->fy = (float) (fix_y * height - 0.5);
  f->d_corner = 0.5f * sqrtf ((float) width * width + (float) height *
      height);
  f->d_corner_x = 0.5f * width;
  f->d_corner_y = 0.5f * height;
  f->fragment = fragment;
  /* co_fovea_level's constants: co_fovea_eccentricity and co_fovea_sigma
   * as a product, sigma floored where f_px is capped at Nyquist */
  f->ecc_per_px = m->ppd > 0.0f ? 1.0f / m->ppd : m->e_corner / f->d_corner;
  if (m->ppd > 0.0f) {
    f->sig_per_e = m->strength * m->alpha * m->ppd / (2.0f * CO_FOVEA_PI *
        m->e2 * f->ln_ct);
    f->sig_min = m->strength / CO_FOVEA_PI;
  } else {
    f->sig_per_e = m->strength / (CO_FOVEA_PI * m->e2);
    f->sig_min = 0.0f;
  }
  f->map_per_px_x = 1.0f / (4.0f * f->d_corner_x);
  f->map_per_px_y = 1.0f / (4.0f * f->d_corner_y);
  /* every level a fragment centre can take: from the fixation in the most
   * subsampled plane to beyond the farthest corner (fragment centres lie at
   * most half a fragment outside the frame) */
  shift = co_format_n_planes (format) > 1 ? 1 : 0;
  smin = co_fovea_sigma (m, 0.0f, f->ln_ct) / (float) (1 << shift);
  dx = fmaxf (f->fx + 0.5f, width - 0.5f - f->fx) + 0.5f * fragment + 1.0f;
  dy = fmaxf (f->fy + 0.5f, height - 0.5f - f->fy) + 0.5f * fragment + 1.0f;
  sig_hi = co_fovea_sigma (m, co_fovea_eccentricity (m, sqrtf (dx * dx +
              dy * dy), f->d_corner), f->ln_ct);
  if (!(sig_hi <= CO_FOVEA_MAX_SIGMA))
    return sig_hi;
  lo = (int) floorf (smin * CO_FOVEA_Q + 0.5f) - 1;
  /* sigma >= min-sigma rounds to this level or above */
  hi = (int) floorf (m->min_sigma * CO_FOVEA_Q + 0.5f);
  lo = lo > hi ? lo : hi;
  lo = lo > 0 ? lo : 0;
  hi = (int) floorf (sig_hi * CO_FOVEA_Q + 0.5f) + 1;
  f->lo = lo;
  f->n = hi - lo + 1 > 0 ? hi - lo + 1 : 0;
  f->rmax = co_fovea_radius ((float) (lo + f->n - 1) / CO_FOVEA_Q);
  return sig_hi;
}

float
co_fovea_plan_map (CoFovea * f)
{
  float sig = co_fovea_sigma (&f->m, f->m.e_corner, f->ln_ct);
  int hi = (int) floorf (sig * CO_FOVEA_Q + 0.5f) + 1;

  if (!(sig <= CO_FOVEA_MAX_SIGMA))
    return sig;
  if (hi > f->lo + f->n - 1) {
    f->n = hi - f->lo + 1;
    f->rmax = co_fovea_radius ((float) (f->lo + f->n - 1) / CO_FOVEA_Q);
  }
  return (float) (f->lo + f->n - 1) / CO_FOVEA_Q;
}

size_t
co_fovea_table_bytes (const CoFovea * f)
{
  return taps_at (f->n) + sizeof (float) * (size_t) co_fovea_table_size (f->lo,
      f->n);
}

void
co_fovea_fill_table (const CoFovea * f, void *table)
{
  co_fovea_table (f->lo, f->n, (int32_t *) table, (float *) ((uint8_t *)
          table + taps_at (f->n)));
}

void
co_fovea_bind_table (CoFovea * f, const void *table)
{
  f->off = (const int32_t *) table;
  f->w = (const float *) ((const uint8_t *) table + taps_at (f->n));
}

/* One fragment of one plane; @h holds size x (size + 2 rmax) floats. */
/* On x86-64 a clone of the loop for CPUs with FMA, where fmaf is one
 * instruction; the default clone calls the library's fmaf, as exact. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
__attribute__((target_clones ("fma", "default")))
#endif
#endif
static void
fovea_fragment (const CoFovea * f, const uint8_t * src, int spitch, uint8_t * dst,
    int dpitch, int bpp, int width, int height, int shift, int size, int x0,
    int y0, float *h)
{
  int level = co_fovea_level (f, shift, size, x0, y0);
  int xa = x0 < 0 ? 0 : x0, ya = y0 < 0 ? 0 : y0;
  int xb = x0 + size > width ? width : x0 + size;
  int yb = y0 + size > height ? height : y0 + size;
  int x, y, c, r;
  const float *w;

  if (level < 0) {
    for (y = ya; y < yb; y++)
      memcpy (dst + (size_t) y * dpitch + (size_t) xa * bpp,
          src + (size_t) y * spitch + (size_t) xa * bpp,
          (size_t) (xb - xa) * bpp);
    return;
  }
  w = f->w + f->off[level - f->lo];
  r = f->off[level - f->lo + 1] - f->off[level - f->lo] - 1;
  for (c = 0; c < bpp; c++) {
    /* h[(row - (ya - r)) * size + (x - xa)] */
    for (y = ya - r; y < yb + r; y++) {
      const uint8_t *row = src + (size_t) co_fovea_clampi (y, height - 1) *
          spitch;
      for (x = xa; x < xb; x++)
        h[(y - (ya - r)) * size + (x - xa)] = co_fovea_hsum (row, bpp, width,
            x, c, w, r);
    }
    for (y = ya; y < yb; y++)
      for (x = xa; x < xb; x++)
        dst[(size_t) y * dpitch + (size_t) x * bpp + c] =
            co_fovea_vsum (&h[(y - ya) * size + (x - xa)], size, w, r);
  }
}

/* show-map: the fragments' borders in their level's colour. */
static void
show_map (const CoFovea * f, CoFrame * out)
{
  int p, x, y;

  for (p = 0; p < co_format_n_planes (out->format); p++) {
    int shift = co_format_plane_shift (out->format, p), w, h;
    CoPixKind kind = co_format_plane_kind (out->format, p);
    int bpp = co_pix_bpp (kind);

    co_plane_size (out->width, out->height, shift, &w, &h);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        int l = co_fovea_border_level (f, shift, w, h, x, y);
        uint32_t c[CO_MAX_PLANES];
        if (l == -2)
          continue;
        co_format_border (out->format, co_fovea_level_argb (f, l), c);
        co_pix_store (out->data[p] + (size_t) y * out->pitch[p] +
            (size_t) x * bpp, kind, c[p]);
      }
  }
}

int
co_fovea_cpu (const CoFovea * f, const CoFrame * in, CoFrame * out)
{
  int p, failed = 0;

  for (p = 0; p < co_format_n_planes (in->format); p++) {
    int shift = co_format_plane_shift (in->format, p);
    int bpp = co_pix_bpp (co_format_plane_kind (in->format, p));
    int w, h, F, sx, sy, nx, ny, i, j;
    /* the rows of horizontal sums beyond the fragment's own */
    size_t rows = 2 * (size_t) f->rmax;

    co_plane_size (in->width, in->height, shift, &w, &h);
    co_fovea_tiling (f, shift, w, h, &F, &sx, &sy, &nx, &ny);
#pragma omp parallel for private(i) schedule(dynamic)
    for (j = 0; j < ny; j++) {
      float *hbuf = malloc (sizeof (float) * (size_t) F * (F + rows));
      if (!hbuf) {
#pragma omp atomic write
        failed = 1;
        continue;
      }
      for (i = 0; i < nx; i++)
        fovea_fragment (f, in->data[p], in->pitch[p], out->data[p], out->pitch[p],
            bpp, w, h, shift, F, sx + i * F, sy + j * F, hbuf);
      free (hbuf);
    }
  }
  if (f->show)
    show_map (f, out);
  return failed ? -1 : 0;
}
