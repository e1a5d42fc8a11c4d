/* cudaoptics — LGPL-2.1-or-later
 *
 * The image circle of a 360-degree camera in one channel of a frame
 * (omni_circle.h says what and why).  Plain C99 and libm, CPU only.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "omni_circle.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define GRID_LONG 512           /* grid samples on the frame's long side */
#define MIN_SIDE 16             /* smaller frames are refused */
#define MIN_GRID 8              /* and frames narrower than 8 grid cells */
#define TANGENT_HALF 2          /* profile lines each side of a ray, pixels */
#define N_SECTORS 8

typedef struct
{
  /* the frame */
  const uint8_t *data;
  int w, h, depth;
  ptrdiff_t stride, ps;

  /* the grid: box averages of s x s cells, sample (i, j) centred on the
   * source position (i s + off, j s + off) */
  float *g;
  int gw, gh, s;
  double off;

  /* Otsu: threshold, class means (dark, bright) */
  double t, mu0, mu1;
  double t_low;                 /* half-way from the dark class's mean to t */

  /* scratch */
  float *ray;                   /* grid samples along a ray */
  unsigned char *bright;        /* their classes */
  int ray_cap;
  double *px, *py, *res, *tmp;
  unsigned char *used;
} Ctx;

/* ---- samples ---- */

/* bilinear at a source position inside [0, w-1] x [0, h-1] */
static double
src_bilinear (const Ctx * c, double x, double y)
{
  int x0 = (int) x, y0 = (int) y;
  double fx, fy, v00, v01, v10, v11, a, b;
  const uint8_t *p;

  if (x0 > c->w - 2)
    x0 = c->w - 2;
  if (y0 > c->h - 2)
    y0 = c->h - 2;
  fx = x - x0;
  fy = y - y0;
  p = c->data + (ptrdiff_t) y0 * c->stride + (ptrdiff_t) x0 * c->ps;
  if (c->depth == 8) {
    v00 = p[0];
    v01 = p[c->ps];
    v10 = p[c->stride];
    v11 = p[c->stride + c->ps];
  } else {
    v00 = p[0] | (p[1] << 8);
    v01 = p[c->ps] | (p[c->ps + 1] << 8);
    v10 = p[c->stride] | (p[c->stride + 1] << 8);
    v11 = p[c->stride + c->ps] | (p[c->stride + c->ps + 1] << 8);
  }
  a = v00 + fx * (v01 - v00);
  b = v10 + fx * (v11 - v10);
  return a + fy * (b - a);
}

/* bilinear on the grid at a source position (clamped to the grid) */
static double
grid_bilinear (const Ctx * c, double x, double y)
{
  double gx = (x - c->off) / c->s, gy = (y - c->off) / c->s, fx, fy, a, b;
  int i, j;
  const float *r0, *r1;

  if (gx < 0)
    gx = 0;
  if (gy < 0)
    gy = 0;
  if (gx > c->gw - 1)
    gx = c->gw - 1;
  if (gy > c->gh - 1)
    gy = c->gh - 1;
  i = (int) gx;
  j = (int) gy;
  if (i > c->gw - 2)
    i = c->gw - 2;
  if (j > c->gh - 2)
    j = c->gh - 2;
  fx = gx - i;
  fy = gy - j;
  r0 = c->g + (size_t) j * c->gw + i;
  r1 = r0 + c->gw;
  a = r0[0] + fx * (r0[1] - r0[0]);
  b = r1[0] + fx * (r1[1] - r1[0]);
  return a + fy * (b - a);
}

/* The grid: each cell the mean of up to 4 x 4 of its pixels (every
 * (s/4)-th row and column), about 2M reads for a 4K frame.  0 when out of
 * memory, -1 when the frame is too narrow for a grid. */
static int
build_grid (Ctx * c)
{
  int s, sub, ns, i, j, oy, ox;
  float *acc;
  double norm;

  s = ((c->w > c->h ? c->w : c->h) + GRID_LONG - 1) / GRID_LONG;
  if (s < 1)
    s = 1;
  sub = s >= 4 ? s / 4 : 1;
  ns = (s + sub - 1) / sub;
  c->s = s;
  c->off = (ns - 1) * sub / 2.0;
  c->gw = c->w / s;
  c->gh = c->h / s;
  if (c->gw < MIN_GRID || c->gh < MIN_GRID)
    return -1;
  c->g = calloc ((size_t) c->gw * c->gh, sizeof (float));
  if (!c->g)
    return 0;
  norm = 1.0 / ((double) ns * ns);
  for (j = 0; j < c->gh; j++) {
    acc = c->g + (size_t) j * c->gw;
    for (oy = 0; oy < s; oy += sub) {
      const uint8_t *row = c->data + (ptrdiff_t) (j * s + oy) * c->stride;
      if (c->depth == 8) {
        for (i = 0; i < c->gw; i++) {
          const uint8_t *p = row + (ptrdiff_t) i * s * c->ps;
          unsigned sum = 0;
          for (ox = 0; ox < s; ox += sub)
            sum += p[(ptrdiff_t) ox * c->ps];
          acc[i] += (float) sum;
        }
      } else {
        for (i = 0; i < c->gw; i++) {
          const uint8_t *p = row + (ptrdiff_t) i * s * c->ps;
          unsigned sum = 0;
          for (ox = 0; ox < s; ox += sub) {
            const uint8_t *q = p + (ptrdiff_t) ox * c->ps;
            sum += (unsigned) (q[0] | (q[1] << 8));
          }
          acc[i] += (float) sum;
        }
      }
    }
    for (i = 0; i < c->gw; i++)
      acc[i] = (float) (acc[i] * norm);
  }
  return 1;
}

/* Otsu's threshold on a 256-bin histogram of the grid.  0 when the grid has
 * no contrast worth splitting. */
static int
otsu (Ctx * c)
{
  double hist[256], gmin = c->g[0], gmax = c->g[0], scale, sum = 0, sum0 = 0;
  double w0 = 0, best = -1, n = (double) c->gw * c->gh, min_range;
  size_t k, nk = (size_t) c->gw * c->gh;
  int b, tb = 0;

  for (k = 1; k < nk; k++) {
    if (c->g[k] < gmin)
      gmin = c->g[k];
    if (c->g[k] > gmax)
      gmax = c->g[k];
  }
  /* two code values of 8 bits */
  min_range = c->depth == 16 ? 2.0 * 257.0 : 2.0;
  if (!(gmax - gmin >= min_range))
    return 0;
  memset (hist, 0, sizeof (hist));
  scale = 256.0 / (gmax - gmin);
  for (k = 0; k < nk; k++) {
    b = (int) ((c->g[k] - gmin) * scale);
    hist[b > 255 ? 255 : b] += 1;
  }
  for (b = 0; b < 256; b++)
    sum += b * hist[b];
  for (b = 0; b < 255; b++) {
    double w1, m0, m1, between;
    w0 += hist[b];
    sum0 += b * hist[b];
    w1 = n - w0;
    if (w0 == 0 || w1 == 0)
      continue;
    m0 = sum0 / w0;
    m1 = (sum - sum0) / w1;
    between = w0 * w1 * (m0 - m1) * (m0 - m1);
    if (between > best) {
      best = between;
      tb = b;
      c->mu0 = gmin + (m0 + 0.5) / scale;
      c->mu1 = gmin + (m1 + 0.5) / scale;
    }
  }
  c->t = gmin + (tb + 1) / scale;
  c->t_low = 0.5 * (c->mu0 + c->t);
  return best > 0;
}

/* ---- one edge point per ray ---- */

enum
{ RAY_POINT, RAY_NONE, RAY_BORDER, RAY_WEAK };

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, (size_t) n, sizeof (double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define HALF_MAX 96             /* the widest profile, each side */

/* The edge near distance p along the ray (cx, cy) + d (ux, uy), on a
 * full-resolution profile across it of 2 half + 1 samples, one a pixel,
 * each the mean of 2 TANGENT_HALF + 1 bilinear samples across the ray.
 * The bright level is a line through the inner quarter (samples at least
 * half / 2 inside p), the dark level the median of the outer quarter; the
 * edge is the outermost crossing of their mean, linearly interpolated.
 * *width: the 25%-75% width of the edge (HALF_MAX when not within the
 * window). */
static int
refine_window (Ctx * c, double cx, double cy, double ux, double uy, double p,
    int half, double *dd_out, double *width)
{
  double prof[2 * HALF_MAX + 1], side[2 * HALF_MAX + 1], d0, a, b, lvl, dd;
  double sd = 0, sp = 0, sdd = 0, sdp = 0, den, slope, icpt, ae = 0, hi, lo;
  double d_hi, d_lo;
  int n = 0, ni = 0, no, j = -1, k, m, iter;

  d0 = p - half;
  if (d0 < 0)
    d0 = 0;
  for (m = 0; m <= 2 * half; m++) {
    double d = d0 + m, x = cx + d * ux, y = cy + d * uy, sum = 0;
    for (k = -TANGENT_HALF; k <= TANGENT_HALF; k++) {
      double sx = x - k * uy, sy = y + k * ux;
      if (!(sx >= 0 && sy >= 0 && sx <= c->w - 1 && sy <= c->h - 1))
        goto truncated;
      sum += src_bilinear (c, sx, sy);
    }
    prof[n++] = sum / (2 * TANGENT_HALF + 1);
    if (d <= p - half / 2.0)
      ni = n;
  }
truncated:
  /* the dark side must be in the frame: else the point is on its border */
  for (m = 0, no = 0; m < n; m++)
    if (d0 + m >= p + half / 2.0)
      side[no++] = prof[m];
  if (no < 2)
    return RAY_BORDER;
  if (ni < 2)
    return RAY_NONE;
  b = median (side, no);
  memcpy (side, prof, sizeof (double) * ni);
  a = median (side, ni);
  /* a real edge, not a slope: a quarter of the picture's contrast across
   * the window */
  if (!(a - b >= 0.25 * (c->mu1 - c->mu0)))
    return RAY_WEAK;

  /* the picture's level at the edge, not the window's: vignetting and
   * texture otherwise pull the level up and a soft edge in; kept within
   * reach of the medians */
  for (m = 0; m < ni; m++) {
    double d = d0 + m;
    sd += d;
    sp += prof[m];
    sdd += d * d;
    sdp += d * prof[m];
  }
  den = ni * sdd - sd * sd;
  slope = den > 0 ? (ni * sdp - sd * sp) / den : 0;
  icpt = (sp - slope * sd) / ni;
  dd = p;
  for (iter = 0; iter < 3; iter++) {
    ae = iter == 0 ? a : icpt + slope * dd;
    if (ae < b + 0.5 * (a - b))
      ae = b + 0.5 * (a - b);
    if (ae > a + (a - b))
      ae = a + (a - b);
    lvl = 0.5 * (ae + b);
    for (j = n - 2; j >= 0; j--)
      if (prof[j] >= lvl && prof[j + 1] < lvl)
        break;
    if (j < 0)
      return RAY_NONE;
    dd = d0 + j + (prof[j] - lvl) / (prof[j] - prof[j + 1]);
  }

  /* the width of the edge, 25% to 75% of the step between the medians */
  hi = b + 0.75 * (a - b);
  lo = b + 0.25 * (a - b);
  d_hi = d_lo = -1;
  for (m = j; m >= 0; m--)
    if (prof[m] >= hi) {
      d_hi = m + 1 < n ? d0 + m + (prof[m] - hi) / (prof[m] - prof[m + 1])
          : d0 + m;
      break;
    }
  for (m = j + 1; m < n; m++)
    if (prof[m] < lo) {
      d_lo = d0 + m - (lo - prof[m]) / (prof[m - 1] - prof[m]);
      break;
    }
  *width = d_hi >= 0 && d_lo >= 0 ? d_lo - d_hi : HALF_MAX;
  *dd_out = dd;
  return RAY_POINT;
}

/* Refines the edge found near p on the grid.  A soft edge gets a wider
 * profile, 2.5 times its 25%-75% width each side (its levels then come from
 * beyond 1.7 sigma of a Gaussian blur), up to HALF_MAX: wider still would
 * level it better but lets more of the picture's texture into the levels
 * (measured on textured synthetic discs, tests/unit/test-circle.c). */
static int
refine (Ctx * c, double cx, double cy, double ux, double uy, double p,
    double *ex, double *ey)
{
  int half = 3 * c->s + 4, need, kind, i;
  double dd = p, width = 0;

  if (half > HALF_MAX)
    half = HALF_MAX;
  kind = refine_window (c, cx, cy, ux, uy, p, half, &dd, &width);
  /* a window too narrow for the edge sees compressed levels and a
   * narrower edge: widen until it holds it */
  for (i = 0; i < 4 && kind == RAY_POINT; i++) {
    need = (int) ceil (2.5 * width) + 2;
    if (need <= half || half >= HALF_MAX)
      break;
    half = need < HALF_MAX ? need : HALF_MAX;
    kind = refine_window (c, cx, cy, ux, uy, dd, half, &dd, &width);
  }
  if (kind != RAY_POINT)
    return kind;
  *ex = cx + dd * ux;
  *ey = cy + dd * uy;
  return RAY_POINT;
}

/* The outermost bright-to-dark edge along a ray on the grid.  Samples are
 * bright at or above Otsu's threshold; runs of a single sample (specks of
 * noise) take their neighbours' side.  The edge is the last bright-to-dark
 * transition, so a donut's hole and dark objects in the picture, which the
 * ray leaves again, do not take it; a ray that ends bright has its edge
 * outside the frame (or on its border).  From there the edge goes on out
 * while the ray stays over the low threshold, half-way down to the dark
 * class: a vignetted rim dimmer than Otsu's threshold still belongs to the
 * picture. */
static int
cast_ray (Ctx * c, double cx, double cy, double ux, double uy, double *ex,
    double *ey)
{
  double lo = c->off, hx = (c->gw - 1) * (double) c->s + c->off;
  double hy = (c->gh - 1) * (double) c->s + c->off, frac, p;
  int n = 0, i, k = -1;
  unsigned char *b = c->bright;

  for (;;) {
    double d = (double) n * c->s, x = cx + d * ux, y = cy + d * uy;
    if (!(x >= lo && y >= lo && x <= hx && y <= hy) || n >= c->ray_cap)
      break;
    c->ray[n] = (float) grid_bilinear (c, x, y);
    b[n] = c->ray[n] >= c->t;
    n++;
  }
  if (n < 4)
    return RAY_NONE;
  /* single-sample runs join their neighbours (both ends stay) */
  for (i = 1; i < n - 1; i++)
    if (b[i] != b[i - 1] && b[i - 1] == (c->ray[i + 1] >= c->t))
      b[i] = b[i - 1];
  if (b[n - 1] || b[n - 2])
    return RAY_BORDER;
  for (i = n - 2; i >= 1; i--)
    if (b[i - 1] && !b[i]) {
      k = i;
      break;
    }
  if (k < 0)
    return RAY_NONE;
  /* on while over the low threshold */
  while (k < n && c->ray[k] >= c->t_low)
    k++;
  if (k >= n - 1)
    return RAY_BORDER;
  if (c->ray[k - 1] > c->ray[k])
    frac = (c->ray[k - 1] - c->t_low) / (c->ray[k - 1] - c->ray[k]);
  else
    frac = 0.5;
  frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
  p = (k - 1 + frac) * c->s;
  return refine (c, cx, cy, ux, uy, p, ex, ey);
}

/* ---- the circle through the points ---- */

/* Solves the 3x3 system m x = v by Gaussian elimination; 0 when singular. */
static int
solve3 (double m[3][3], double v[3], double x[3])
{
  int i, j, k, piv;

  for (i = 0; i < 3; i++) {
    piv = i;
    for (j = i + 1; j < 3; j++)
      if (fabs (m[j][i]) > fabs (m[piv][i]))
        piv = j;
    if (!(fabs (m[piv][i]) > 1e-300))
      return 0;
    if (piv != i) {
      double t;
      for (k = 0; k < 3; k++) {
        t = m[i][k];
        m[i][k] = m[piv][k];
        m[piv][k] = t;
      }
      t = v[i];
      v[i] = v[piv];
      v[piv] = t;
    }
    for (j = i + 1; j < 3; j++) {
      double f = m[j][i] / m[i][i];
      for (k = i; k < 3; k++)
        m[j][k] -= f * m[i][k];
      v[j] -= f * v[i];
    }
  }
  for (i = 2; i >= 0; i--) {
    double s = v[i];
    for (k = i + 1; k < 3; k++)
      s -= m[i][k] * x[k];
    x[i] = s / m[i][i];
  }
  return isfinite (x[0]) && isfinite (x[1]) && isfinite (x[2]);
}

/* Kasa's algebraic fit, then Gauss-Newton on the geometric distances. */
static int
fit_circle (const Ctx * c, int n, double *ocx, double *ocy, double *or_)
{
  double mx = 0, my = 0, m[3][3], v[3], x[3], a, b, r;
  int i, k, it, cnt = 0;

  for (i = 0; i < n; i++)
    if (c->used[i]) {
      mx += c->px[i];
      my += c->py[i];
      cnt++;
    }
  if (cnt < 3)
    return 0;
  mx /= cnt;
  my /= cnt;
  memset (m, 0, sizeof (m));
  memset (v, 0, sizeof (v));
  for (i = 0; i < n; i++) {
    double u, w, z;
    if (!c->used[i])
      continue;
    u = c->px[i] - mx;
    w = c->py[i] - my;
    z = u * u + w * w;
    m[0][0] += u * u;
    m[0][1] += u * w;
    m[0][2] += u;
    m[1][1] += w * w;
    m[1][2] += w;
    v[0] -= u * z;
    v[1] -= w * z;
    v[2] -= z;
  }
  m[1][0] = m[0][1];
  m[2][0] = m[0][2];
  m[2][1] = m[1][2];
  m[2][2] = cnt;
  if (!solve3 (m, v, x))
    return 0;
  a = -x[0] / 2;
  b = -x[1] / 2;
  r = a * a + b * b - x[2];
  if (!(r > 0))
    return 0;
  r = sqrt (r);
  a += mx;
  b += my;

  for (it = 0; it < 20; it++) {
    double step;
    memset (m, 0, sizeof (m));
    memset (v, 0, sizeof (v));
    for (i = 0; i < n; i++) {
      double dx, dy, d, j3[3], e;
      if (!c->used[i])
        continue;
      dx = c->px[i] - a;
      dy = c->py[i] - b;
      d = sqrt (dx * dx + dy * dy);
      if (!(d > 0))
        continue;
      j3[0] = -dx / d;
      j3[1] = -dy / d;
      j3[2] = -1;
      e = d - r;
      for (k = 0; k < 3; k++) {
        int l;
        for (l = 0; l < 3; l++)
          m[k][l] += j3[k] * j3[l];
        v[k] -= j3[k] * e;
      }
    }
    if (!solve3 (m, v, x))
      break;
    a += x[0];
    b += x[1];
    r += x[2];
    step = fabs (x[0]) + fabs (x[1]) + fabs (x[2]);
    if (step < 1e-9 * (1 + r))
      break;
  }
  if (!(r > 0) || !isfinite (a) || !isfinite (b) || !isfinite (r))
    return 0;
  *ocx = a;
  *ocy = b;
  *or_ = r;
  return 1;
}

/* The circle through points i, j, k; 0 when they are (nearly) in a line. */
static int
circle3 (const Ctx * c, int i, int j, int k, double *ocx, double *ocy,
    double *or_)
{
  double ax = c->px[j] - c->px[i], ay = c->py[j] - c->py[i];
  double bx = c->px[k] - c->px[i], by = c->py[k] - c->py[i];
  double det = 2.0 * (ax * by - ay * bx), a2 = ax * ax + ay * ay,
      b2 = bx * bx + by * by, ux, uy;

  if (!(fabs (det) > 1e-9 * (a2 + b2)))
    return 0;
  ux = (by * a2 - ay * b2) / det;
  uy = (ax * b2 - bx * a2) / det;
  *ocx = c->px[i] + ux;
  *ocy = c->py[i] + uy;
  *or_ = sqrt (ux * ux + uy * uy);
  return 1;
}

/* Marks the largest set of points within CONSENSUS_BAND pixels of one
 * circle, among the circles through three points a third of the points
 * apart (in ray order, so spread round the circle).  Where the picture is
 * as dark as the surround at its rim (night sky, trees, a photo's dark
 * rows), the edge found is inside the rim, never outside, by anything from
 * a pixel to tens: on the docs' donut a third of the points.  Those
 * outliers all lie on one side and scatter, the rim's points agree within
 * a pixel; a first fit through all of them is pulled inwards, and the
 * median and MAD it leaves keep the outliers.  0 when no three points make
 * a circle. */
#define CONSENSUS_BAND 1.0
static int
consensus (Ctx * c, int n)
{
  double bcx = 0, bcy = 0, br = 0, lo, hi;
  int i, k, best = 0, cnt, third = n / 3;

  if (n < 6)
    return 0;
  for (i = 0; i < n; i++) {
    double cx, cy, r;
    if (!circle3 (c, i, (i + third) % n, (i + 2 * third) % n, &cx, &cy, &r))
      continue;
    lo = r > CONSENSUS_BAND ? (r - CONSENSUS_BAND) * (r - CONSENSUS_BAND) : 0;
    hi = (r + CONSENSUS_BAND) * (r + CONSENSUS_BAND);
    for (k = 0, cnt = 0; k < n; k++) {
      double dx = c->px[k] - cx, dy = c->py[k] - cy, d2 = dx * dx + dy * dy;
      cnt += d2 >= lo && d2 <= hi;
    }
    if (cnt > best) {
      best = cnt;
      bcx = cx;
      bcy = cy;
      br = r;
    }
  }
  if (best < 3)
    return 0;
  for (k = 0; k < n; k++)
    c->used[k] = fabs (hypot (c->px[k] - bcx, c->py[k] - bcy) - br)
        <= CONSENSUS_BAND;
  return 1;
}

/* Widens the consensus to the points' own scatter.  A band of a pixel is
 * narrower than the scatter of an edge drawn by fine detail (a mirror's
 * rings squeezed at its limb alias by a pixel or two): it would keep the
 * densest part of it, not the circle through all.  The scatter comes from
 * the points outside the consensus circle only, those inside being where
 * the outliers lie: the median of those residuals is 0.6745 sigma. */
static void
widen_consensus (Ctx * c, int n)
{
  double cx, cy, r, thr;
  int i, m = 0;

  if (!fit_circle (c, n, &cx, &cy, &r))
    return;
  for (i = 0; i < n; i++) {
    c->res[i] = hypot (c->px[i] - cx, c->py[i] - cy) - r;
    if (c->res[i] > 0)
      c->tmp[m++] = c->res[i];
  }
  if (m < 3)
    return;
  thr = 3.0 * median (c->tmp, m) / 0.6745;
  if (thr < CONSENSUS_BAND)
    thr = CONSENSUS_BAND;
  for (i = 0; i < n; i++)
    c->used[i] = fabs (c->res[i]) <= thr;
}

/* From the consensus (else all points): fits, drops points further than 3
 * sigma (1.4826 MAD, at least a pixel) from the median residual of the
 * points used, takes back those within it, fits again until the set of
 * points used settles.  (The median, not zero: outliers all on one side,
 * dark objects at the rim, pull a fit off the majority.) */
static int
robust_fit (Ctx * c, int n, CoCircleFit * fit)
{
  double cx = 0, cy = 0, r = 0, med, mad, thr, ss;
  int i, it, m, changed;

  if (consensus (c, n))
    widen_consensus (c, n);
  else
    memset (c->used, 1, (size_t) n);
  for (it = 0; it < 8; it++) {
    if (!fit_circle (c, n, &cx, &cy, &r))
      return 0;
    for (i = 0, m = 0; i < n; i++) {
      c->res[i] = hypot (c->px[i] - cx, c->py[i] - cy) - r;
      if (c->used[i])
        c->tmp[m++] = c->res[i];
    }
    med = median (c->tmp, m);
    for (i = 0; i < m; i++)
      c->tmp[i] = fabs (c->tmp[i] - med);
    mad = median (c->tmp, m);
    thr = 3.0 * 1.4826 * mad;
    if (thr < 1.0)
      thr = 1.0;
    changed = 0;
    for (i = 0; i < n; i++) {
      unsigned char u = fabs (c->res[i] - med) <= thr;
      changed |= u != c->used[i];
      c->used[i] = u;
    }
    if (!changed)
      break;
  }
  if (changed && !fit_circle (c, n, &cx, &cy, &r))
    return 0;
  for (i = 0, m = 0, ss = 0; i < n; i++)
    if (c->used[i]) {
      double e = hypot (c->px[i] - cx, c->py[i] - cy) - r;
      ss += e * e;
      m++;
    }
  fit->cx = cx;
  fit->cy = cy;
  fit->r = r;
  fit->n_used = m;
  fit->rms = m ? sqrt (ss / m) : 0;
  return m >= 3;
}

/* Whether the grid agrees: outside the circle mostly dark, the band just
 * inside its edge mostly bright.  Only a band: a donut's hole (a third of
 * the disc and more) and dark objects in the picture leave less than half
 * of the whole disc bright. */
static const char *
check_regions (const Ctx * c, const CoCircleFit * f)
{
  double margin = 2.0 * c->s + 0.02 * f->r, ro = f->r + margin,
      ri = f->r - margin, rb = 0.75 * ri;
  long in_n = 0, in_b = 0, out_n = 0, out_d = 0;
  int i, j;

  for (j = 0; j < c->gh; j++) {
    double y = j * (double) c->s + c->off - f->cy;
    const float *row = c->g + (size_t) j * c->gw;
    for (i = 0; i < c->gw; i++) {
      double x = i * (double) c->s + c->off - f->cx, d2 = x * x + y * y;
      if (d2 > ro * ro) {
        out_n++;
        out_d += row[i] < c->t;
      } else if (ri > 0 && d2 < ri * ri && d2 >= rb * rb) {
        in_n++;
        in_b += row[i] >= c->t;
      }
    }
  }
  if (out_n > 0 && out_d < 0.8 * out_n)
    return "the outside of the circle is not dark";
  if (in_n == 0 || in_b < 0.5 * in_n)
    return "the inside of the circle is not bright";
  return NULL;
}

/* One pass: rays from (cx, cy), the fit, the checks.  Returns 1 when the
 * circle is accepted; 2 when a circle was fitted but refused (fit filled,
 * *why set); 0 when none could be fitted. */
static int
find_pass (Ctx * c, double cx, double cy, CoCircleFit * fit, const char **why)
{
  int a, n = 0, n_weak = 0, sectors[N_SECTORS], n_sec = 0, i;
  double min_side = c->w < c->h ? c->w : c->h;
  const char *bad;

  memset (fit, 0, sizeof (*fit));
  fit->n_rays = CO_CIRCLE_N_RAYS;
  fit->threshold = c->t;
  for (a = 0; a < CO_CIRCLE_N_RAYS; a++) {
    double th = 2.0 * M_PI * a / CO_CIRCLE_N_RAYS, ex, ey;
    int kind = cast_ray (c, cx, cy, cos (th), sin (th), &ex, &ey);
    if (kind == RAY_POINT) {
      c->px[n] = ex;
      c->py[n] = ey;
      n++;
    } else if (kind == RAY_WEAK)
      n_weak++;
  }
  fit->n_points = n;
  if (n < CO_CIRCLE_N_RAYS / 5) {
    *why = n_weak > n ? "no sharp edge between picture and surround"
        : "too few rays found an edge";
    return 0;
  }
  if (!robust_fit (c, n, fit)) {
    *why = "the edge points fit no circle";
    return 0;
  }
  if (!(fit->cx >= 0 && fit->cy >= 0 && fit->cx <= c->w - 1
          && fit->cy <= c->h - 1)) {
    *why = "the circle's centre is outside the frame";
    return 2;
  }
  if (2 * fit->n_used < fit->n_points) {
    *why = "fewer than half of the edge points agree on a circle";
    return 2;
  }
  if (!(fit->rms <= 0.01 * fit->r)) {
    *why = "the edge is not round (rms over 1% of the radius)";
    return 2;
  }
  if (!(fit->r >= 0.1 * min_side)) {
    *why = "the circle is smaller than 10% of the frame";
    return 2;
  }
  memset (sectors, 0, sizeof (sectors));
  for (i = 0; i < n; i++)
    if (c->used[i]) {
      double th = atan2 (c->py[i] - fit->cy, c->px[i] - fit->cx);
      int k = (int) floor ((th + M_PI) / (2 * M_PI) * N_SECTORS + 0.5);
      sectors[((k % N_SECTORS) + N_SECTORS) % N_SECTORS]++;
    }
  for (i = 0; i < N_SECTORS; i++)
    n_sec += sectors[i] >= 3;
  if (n_sec < N_SECTORS / 2) {
    *why = "the edge points cover too little of the circle";
    return 2;
  }
  if ((bad = check_regions (c, fit))) {
    *why = bad;
    return 2;
  }
  *why = NULL;
  return 1;
}

int
co_circle_find (const uint8_t * data, int width, int height, int stride,
    int pixel_stride, int depth, CoCircleFit * fit, const char **why)
{
  Ctx c;
  CoCircleFit f1, f2, dummy;
  const char *w1 = NULL, *w2 = NULL, *dummy_why;
  double sx = 0, sy = 0;
  long nb = 0;
  int i, j, ok = 0, r1, r2, bytes = depth / 8;

  if (!fit)
    fit = &dummy;
  if (!why)
    why = &dummy_why;
  memset (fit, 0, sizeof (*fit));
  *why = NULL;
  if (!data || (depth != 8 && depth != 16)) {
    *why = "unsupported sample format";
    return 0;
  }
  if (width < MIN_SIDE || height < MIN_SIDE) {
    *why = "frame too small";
    return 0;
  }
  if (pixel_stride < bytes || stride < (width - 1) * pixel_stride + bytes) {
    *why = "bad strides";
    return 0;
  }

  memset (&c, 0, sizeof (c));
  c.data = data;
  c.w = width;
  c.h = height;
  c.depth = depth;
  c.stride = stride;
  c.ps = pixel_stride;
  switch (build_grid (&c)) {
    case 0:
      goto oom;
    case -1:
      *why = "frame too narrow";
      goto out;
  }
  c.ray_cap = (int) ceil (hypot (c.gw, c.gh)) + 4;
  c.ray = malloc (sizeof (float) * (size_t) c.ray_cap);
  c.bright = malloc ((size_t) c.ray_cap);
  c.px = malloc (sizeof (double) * 4 * CO_CIRCLE_N_RAYS);
  c.used = malloc (CO_CIRCLE_N_RAYS);
  if (!c.ray || !c.bright || !c.px || !c.used)
    goto oom;
  c.py = c.px + CO_CIRCLE_N_RAYS;
  c.res = c.py + CO_CIRCLE_N_RAYS;
  c.tmp = c.res + CO_CIRCLE_N_RAYS;

  if (!otsu (&c)) {
    *why = "uniform frame (no contrast)";
    goto out;
  }
  fit->threshold = c.t;
  for (j = 0; j < c.gh; j++)
    for (i = 0; i < c.gw; i++)
      if (c.g[(size_t) j * c.gw + i] >= c.t) {
        sx += i;
        sy += j;
        nb++;
      }
  if (nb == 0) {
    *why = "no bright area";
    goto out;
  }

  /* rays from the centroid of the picture, then from the circle found */
  r1 = find_pass (&c, sx / nb * c.s + c.off, sy / nb * c.s + c.off, &f1, &w1);
  *fit = f1;
  *why = w1;
  if (r1 == 0 || !(f1.cx >= 0 && f1.cy >= 0 && f1.cx <= width - 1
          && f1.cy <= height - 1)) {
    ok = 0;
    goto out;
  }
  r2 = find_pass (&c, f1.cx, f1.cy, &f2, &w2);
  if (r2 == 1) {
    *fit = f2;
    *why = NULL;
    ok = 1;
  } else if (r1 == 1) {
    ok = 1;
  } else {
    if (r2 == 2)
      *fit = f2;
    *why = w2;
  }
  goto out;

oom:
  *why = "out of memory";
out:
  free (c.g);
  free (c.ray);
  free (c.bright);
  free (c.px);
  free (c.used);
  return ok;
}
