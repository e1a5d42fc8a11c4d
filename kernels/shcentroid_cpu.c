/* cudaoptics — LGPL-2.1-or-later
 *
 * The reference of cudashcentroid (shcentroid_math.h): every lenslet's
 * moments summed in double, pixel by pixel, as the paper's sequential
 * Algorithm 1 does, for every centroiding method.  Lenslets are
 * independent, so OpenMP takes rows of them.
 */
#include "shcentroid_math.h"

#include <stdlib.h>

typedef struct
{
  double v;
  int at;                       /* the pixel's place in the lenslet */
} Ranked;

/* larger first, ties to the earlier pixel */
static int
by_weight (const void *a, const void *b)
{
  const Ranked *p = a, *q = b;

  if (p->v != q->v)
    return p->v < q->v ? 1 : -1;
  return p->at - q->at;
}

/* One lenslet: its weights (TCOG: less the threshold, none below it;
 * BRIGHTEST: the N largest and every pixel tied with the N-th), then the
 * moments.  @buf holds a lenslet's pixels. */
static void
lenslet (const CoShGrid * g, const CoFrame * in, int i, int j, CoShResult * r,
    Ranked * buf)
{
  const int k = j * g->nx + i;
  const int x0 = g->bx[i] + g->margin, x1 = g->bx[i + 1] - g->margin;
  const int y0 = g->by[j] + g->margin, y1 = g->by[j + 1] - g->margin;
  double m00 = 0.0, m10 = 0.0, m01 = 0.0, t = 0.0, vmax = 0.0;
  int x, y, n = 0, q;

  r->cx[k] = r->cy[k] = r->m00[k] = 0.0f;
  if (!g->measure[k])
    return;                     /* the host set its flags */
  if (x1 <= x0 || y1 <= y0) {
    r->flags[k] = CO_SH_NO_LIGHT;
    return;
  }
  for (y = y0; y < y1; y++)
    for (x = x0; x < x1; x++, n++) {
      buf[n].v = co_sh_weight (g, co_sh_pixel (in, x, y));
      buf[n].at = n;
      vmax = buf[n].v > vmax ? buf[n].v : vmax;
    }
  if (g->method == CO_SH_TCOG)
    t = g->threshold_fraction ? (double) g->threshold * vmax : g->threshold;
  if (g->method == CO_SH_BRIGHTEST && g->brightest < n) {
    /* the N-th largest weight, then back in pixel order; every pixel tied
     * with it counts (on a saturated, flat-topped spot a pixel-order cut
     * would take the plateau's top rows: 1.5 px RMS at N = 9) */
    double cut;
    qsort (buf, n, sizeof *buf, by_weight);
    cut = buf[g->brightest - 1].v;
    for (q = 0; q < n; q++)
      while (buf[q].at != q) {
        Ranked swap = buf[buf[q].at];
        buf[buf[q].at] = buf[q];
        buf[q] = swap;
      }
    for (q = 0; q < n; q++)
      if (buf[q].v < cut)
        buf[q].v = 0.0;
  }
  n = 0;
  for (y = y0; y < y1; y++)
    for (x = x0; x < x1; x++) {
      double w = buf[n++].v - t;
      if (w <= 0.0)
        continue;
      m00 += w;
      m10 += w * ((double) x + 0.5);
      m01 += w * ((double) y + 0.5);
    }
  if (m00 <= 0.0) {
    r->flags[k] = CO_SH_NO_LIGHT;
    return;
  }
  r->cx[k] = (float) (m10 / m00);
  r->cy[k] = (float) (m01 / m00);
  r->m00[k] = (float) m00;
  r->flags[k] = CO_SH_VALID;
}

void
co_sh_plan (CoShGrid * g, int bytes_per_pixel)
{
  const int per = 4 / bytes_per_pixel;
  int i, j;

  g->span_words = g->span_rows = 0;
  for (i = 0; i < g->nx; i++) {
    int x0 = g->bx[i] + g->margin, x1 = g->bx[i + 1] - g->margin;
    if (x1 > x0 && (x1 - 1) / per - x0 / per + 1 > g->span_words)
      g->span_words = (x1 - 1) / per - x0 / per + 1;
  }
  for (j = 0; j < g->ny; j++)
    if (g->by[j + 1] - g->by[j] - 2 * g->margin > g->span_rows)
      g->span_rows = g->by[j + 1] - g->by[j] - 2 * g->margin;
  /* a grid of empty lenslets still launches (each reports no light) */
  if (g->span_words < 1)
    g->span_words = 1;
  if (g->span_rows < 1)
    g->span_rows = 1;
}

int
co_sh_reference (const CoShGrid * g, const CoFrame * in, CoShResult * r)
{
  int i, j, wmax = 1, failed = 0;

  for (i = 0; i < g->nx; i++)
    wmax = g->bx[i + 1] - g->bx[i] > wmax ? g->bx[i + 1] - g->bx[i] : wmax;
  for (j = 0; j < g->ny; j++)
    wmax = g->by[j + 1] - g->by[j] > wmax ? g->by[j + 1] - g->by[j] : wmax;
#pragma omp parallel for private(i) schedule(dynamic)
  for (j = 0; j < g->ny; j++) {
    Ranked *buf = malloc (sizeof (Ranked) * (size_t) wmax * wmax);
    if (!buf) {
#pragma omp atomic write
      failed = 1;
      continue;
    }
    for (i = 0; i < g->nx; i++) {
      lenslet (g, in, i, j, r, buf);
      if (r->sx)
        co_sh_slopes_of (g, r, j * g->nx + i);
    }
    free (buf);
  }
  return failed ? -1 : 0;
}

void
co_sh_overlay (const CoShGrid * g, const CoShMarks * m, const CoFrame * f)
{
  int line, t, k, len = co_sh_line_length (g);

  for (line = 0; line < g->nx + g->ny + 2; line++)
    for (t = 0; t < len; t++)
      co_sh_line_pixel (g, f, line, t);
  for (k = 0; k < g->nx * g->ny; k++)
    co_sh_marks (m, f, k);
}
