/* cudaoptics — LGPL-2.1-or-later */
#include <math.h>
#include <string.h>
#include "gstcudacltcorrelate-map.h"

/* A scale from blue through cyan, green and yellow to red, t in 0..1 */
static void
scale_colour (gdouble t, gdouble rgb[3])
{
  rgb[0] = CLAMP (1.5 - fabs (4 * t - 3), 0, 1);
  rgb[1] = CLAMP (1.5 - fabs (4 * t - 2), 0, 1);
  rgb[2] = CLAMP (1.5 - fabs (4 * t - 1), 0, 1);
}

/* Hue @h (0..1 round the circle), saturation @s, value 1 */
static void
wheel_colour (gdouble h, gdouble s, gdouble rgb[3])
{
  const gdouble k[3] = { 5, 3, 1 };
  gint c;

  for (c = 0; c < 3; c++) {
    const gdouble m = fmod (k[c] + 6 * h, 6);
    const gdouble f = CLAMP (MIN (m, 4 - m), 0, 1);
    rgb[c] = 1 - s * f;
  }
}

void
gst_co_corr_map_render (guint8 * rgba, gint w, gint h, gint stride,
    gint tiles_x, gint tiles_y, const gfloat * disparity, const gfloat * dx,
    const gfloat * dy, const gfloat * weight, gdouble range)
{
  const gint n = tiles_x * tiles_y;
  guint32 *colours = g_new (guint32, n);
  gint i, x, y;

  for (i = 0; i < n; i++) {
    gdouble rgb[3], dim;
    guint8 px[4];
    gint c;
    if (disparity) {
      scale_colour (CLAMP ((disparity[i] / range + 1) / 2, 0, 1), rgb);
    } else {
      const gdouble len = sqrt ((gdouble) dx[i] * dx[i] +
          (gdouble) dy[i] * dy[i]);
      wheel_colour (atan2 (dy[i], dx[i]) / (2 * G_PI) + 0.5,
          MIN (len / range, 1), rgb);
    }
    /* NaN or negative strength: black */
    dim = weight[i] > 0 ? MIN (weight[i] / 0.5, 1.0) : 0.0;
    for (c = 0; c < 3; c++)
      px[c] = (guint8) lrint (255 * rgb[c] * dim);
    px[3] = 255;
    memcpy (&colours[i], px, 4);
  }
  for (y = 0; y < h; y++) {
    guint32 *row = (guint32 *) (rgba + (gsize) y * stride);
    const guint32 *trow = colours + (gsize) MIN ((y + 4) / 8, tiles_y - 1) *
        tiles_x;
    for (x = 0; x < w; x++)
      row[x] = trow[MIN ((x + 4) / 8, tiles_x - 1)];
  }
  g_free (colours);
}

void
gst_co_corr_disparity_render (guint8 * pix, gint w, gint h, gint stride,
    gint tiles_x, gint tiles_y, const gfloat * d, gfloat sign,
    const gfloat * weight, gfloat min_weight, gboolean big_endian)
{
  const gint n = tiles_x * tiles_y;
  guint16 *values = g_new (guint16, n);
  gint i, x, y;

  for (i = 0; i < n; i++) {
    const gfloat v = sign * d[i];
    guint16 q = 0;
    /* NaN fails every comparison: no answer */
    if (weight[i] >= min_weight && v > 0 && v < 65536.0f / 256)
      q = (guint16) CLAMP (lrintf (v * 256), 1, 65535);
    values[i] = big_endian ? GUINT16_TO_BE (q) : GUINT16_TO_LE (q);
  }
  for (y = 0; y < h; y++) {
    guint16 *row = (guint16 *) (pix + (gsize) y * stride);
    const guint16 *trow = values + (gsize) MIN ((y + 4) / 8, tiles_y - 1) *
        tiles_x;
    for (x = 0; x < w; x++)
      row[x] = trow[MIN ((x + 4) / 8, tiles_x - 1)];
  }
  g_free (values);
}

/* the k-th smallest of @v[0..n) (reordered), by Hoare's selection */
static gfloat
select_kth (gfloat * v, gint n, gint k)
{
  gint lo = 0, hi = n - 1;

  while (lo < hi) {
    const gfloat pivot = v[(lo + hi) / 2];
    gint i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot)
        i++;
      while (v[j] > pivot)
        j--;
      if (i <= j) {
        const gfloat t = v[i];
        v[i++] = v[j];
        v[j--] = t;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      break;
  }
  return v[k];
}

gfloat
gst_co_corr_median (const gfloat * v, const gfloat * weight, gint n,
    gfloat min_weight, gfloat * scratch, gint * count)
{
  gint i, m = 0;

  for (i = 0; i < n; i++)
    if (weight[i] >= min_weight && isfinite (v[i]))
      scratch[m++] = v[i];
  *count = m;
  if (m == 0)
    return NAN;
  /* the lower median of an even count: one value the tiles measured */
  return select_kth (scratch, m, (m - 1) / 2);
}
