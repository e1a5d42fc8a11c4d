/* cudaoptics — LGPL-2.1-or-later
 *
 * Shack-Hartmann centroids (after Mocci, Busato, Bombieri, Bonora and
 * Muradore, "Efficient implementation of the Shack-Hartmann centroid
 * extraction for edge computing", JOSA A 37(10), 2020): the lenslet grid,
 * which pixels each lenslet measures, and the weight a pixel gets under
 * each centroiding method.  Shared by the C reference and CUDA.
 *
 * Coordinates are continuous with the frame spanning [0, width] x
 * [0, height]: pixel (x, y) covers [x, x + 1) x [y, y + 1), its centre is
 * (x + 0.5, y + 0.5).  Lenslet (i, j) covers [ox + i p, ox + (i + 1) p) x
 * [oy + j p, oy + (j + 1) p) (pitch p and origin o fractional), and a pixel
 * belongs to the lenslet its centre falls in: every pixel to one lenslet at
 * most, whatever the pitch, so no light is counted twice.  The host turns
 * that into integer column and row boundaries (co_sh_boundary), which the C
 * reference and the device then share exactly.  Centroids are reported in
 * the same coordinates: a spot centred on a lenslet is at its centre,
 * (ox + (i + 0.5) p, oy + (j + 0.5) p).
 */
#ifndef CO_SHCENTROID_MATH_H
#define CO_SHCENTROID_MATH_H

#include "co_frame.h"
#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CO_SH_COG = 0,                /* centre of gravity of the weights: the
                                 * paper's m10 / m00, m01 / m00 */
  CO_SH_TCOG,                   /* thresholded: weight - T, 0 below T */
  CO_SH_BRIGHTEST,              /* the N largest weights of a lenslet */
} CoShMethod;

/* A lenslet's flags: why it has (or has no) centroid. */
#define CO_SH_VALID        0x01u        /* a centroid was measured */
#define CO_SH_OUT_OF_PUPIL 0x02u        /* outside the pupil or the mask */
#define CO_SH_NO_LIGHT     0x04u        /* no weight at all (m00 = 0) */
#define CO_SH_CLIPPED      0x08u        /* not wholly inside the frame */

/* The first pixel column (or row) of lenslet @i: the first whose centre is
 * at or past o + i p, clamped to the frame (0 .. @size). */
CO_HD int32_t
co_sh_boundary (double o, double p, int i, int size)
{
  double b = ceil (o + (double) i * p - 0.5);

  return b < 0.0 ? 0 : b > (double) size ? size : (int32_t) b;
}

/* Whether lenslet @i (of pitch @p from @o) lies wholly in a frame @size
 * pixels long: light beyond the frame would be missing from its moments. */
CO_HD int
co_sh_inside (double o, double p, int i, int size)
{
  return o + (double) i * p >= 0.0 && o + (double) (i + 1) * p <= (double) size;
}

/* A circular or annular pupil over the grid: lenslet (i, j) of an nx x ny
 * grid is in it when its centre lies within @diameter / 2 lenslets of the
 * grid's centre and not within @obstruction / 2.  A diameter of 0 takes
 * every lenslet. */
CO_HD int
co_sh_in_pupil (int i, int j, int nx, int ny, double diameter,
    double obstruction)
{
  double dx = (double) i + 0.5 - 0.5 * nx, dy = (double) j + 0.5 - 0.5 * ny;
  double r2 = dx * dx + dy * dy;

  if (diameter <= 0.0)
    return 1;
  return r2 <= 0.25 * diameter * diameter &&
      r2 >= 0.25 * obstruction * obstruction;
}

/* What the measurement of one frame needs, host or device pointers. */
typedef struct
{
  int32_t nx, ny;               /* lenslets */
  const int32_t *bx, *by;       /* nx + 1 and ny + 1 boundaries: lenslet
                                 * (i, j) has columns bx[i] .. bx[i+1] - 1,
                                 * rows by[j] .. by[j+1] - 1 */
  const uint8_t *measure;       /* nx * ny: 0 skips a lenslet (pupil, mask,
                                 * clipped); its flags say why */
  int32_t margin;               /* pixels left out at each lenslet edge */
  CoShMethod method;
  float threshold;              /* TCOG: in weight units, or with
                                 * threshold_fraction a fraction of the
                                 * lenslet's largest weight */
  int32_t threshold_fraction;
  int32_t brightest;            /* BRIGHTEST: how many pixels */
  const float *weight;          /* a weight per pixel value (256 or 65536),
                                 * or NULL: the value itself */
  /* co_sh_plan: the device's lanes per lenslet follow the largest one */
  int32_t span_words;           /* 32-bit words a row of it touches */
  int32_t span_rows;            /* its rows */
  /* slopes (when the results have room for them): (centroid - reference)
   * x slope_scale, nx * ny references */
  const double *ref_x, *ref_y;
  double slope_scale;
} CoShGrid;

/* Per lenslet, nx * ny each, row by row of lenslets. */
typedef struct
{
  float *cx, *cy;               /* centroid, frame coordinates */
  float *m00;                   /* the summed weights */
  uint8_t *flags;               /* CO_SH_* */
  float *sx, *sy;               /* slopes, or NULL: not worked out */
} CoShResult;

/* The results of @n lenslets as one block (read back in one copy): cx, cy,
 * m00, with @slopes sx and sy (floats), then flags (bytes).
 * co_sh_result_bytes is its size; co_sh_result_in points @r's arrays into
 * @block (host or device). */
CO_HD size_t
co_sh_result_bytes (int n, int slopes)
{
  return (size_t) n * ((slopes ? 5 : 3) * sizeof (float) + 1);
}

CO_HD void
co_sh_result_in (CoShResult * r, void *block, int n, int slopes)
{
  r->cx = (float *) block;
  r->cy = r->cx + n;
  r->m00 = r->cy + n;
  r->sx = slopes ? r->m00 + n : NULL;
  r->sy = slopes ? r->sx + n : NULL;
  r->flags = (uint8_t *) (r->m00 + (slopes ? 3 : 1) * n);
}

/* Lenslet @k's slopes from its centroid (0 unless measured): the same
 * double arithmetic on the host and the device, so the same floats. */
CO_HD void
co_sh_slopes_of (const CoShGrid * g, const CoShResult * r, int k)
{
  const int ok = (r->flags[k] & CO_SH_VALID) != 0;

  r->sx[k] = ok ? (float) (((double) r->cx[k] - g->ref_x[k]) *
      g->slope_scale) : 0.0f;
  r->sy[k] = ok ? (float) (((double) r->cy[k] - g->ref_y[k]) *
      g->slope_scale) : 0.0f;
}

/* The weight of a pixel value @v: the LUT's, or the value. */
CO_HD float
co_sh_weight (const CoShGrid * g, uint32_t v)
{
  return g->weight ? g->weight[v] : (float) v;
}

/* A pixel's value, 8 or 16 bits. */
CO_HD uint32_t
co_sh_pixel (const CoFrame * f, int x, int y)
{
  const uint8_t *row = f->data[0] + (size_t) y * f->pitch[0];

  return f->format == CO_FORMAT_GRAY16_LE ? (uint32_t) row[2 * x] |
      (uint32_t) row[2 * x + 1] << 8 : row[x];
}

/* What the overlay draws from (cudashcentroid overlay=true): each measured
 * lenslet's centroid and, from its reference point, a line along its
 * slope @gain times as long. */
typedef struct
{
  const float *cx, *cy;
  const uint8_t *flags;
  const double *rx, *ry;        /* reference points */
  double gain;
} CoShMarks;

/* One overlay pixel, dropped outside the frame. */
CO_HD void
co_sh_put (const CoFrame * f, int x, int y, uint32_t v)
{
  uint8_t *p;

  if (x < 0 || y < 0 || x >= f->width || y >= f->height)
    return;
  p = f->data[0] + (size_t) y * f->pitch[0];
  if (f->format == CO_FORMAT_GRAY16_LE) {
    p[2 * x] = (uint8_t) (v & 0xff);
    p[2 * x + 1] = (uint8_t) (v >> 8);
  } else {
    p[x] = (uint8_t) v;
  }
}

CO_HD uint32_t
co_sh_top (const CoFrame * f)
{
  return f->format == CO_FORMAT_GRAY16_LE ? 65535u : 255u;
}

/* The lenslet borders: nx + 1 columns, then ny + 1 rows, each
 * co_sh_line_length pixels long; pixel @t of line @line at half the
 * largest value. */
CO_HD int
co_sh_line_length (const CoShGrid * g)
{
  int a = g->by[g->ny] - g->by[0], b = g->bx[g->nx] - g->bx[0];

  return a > b ? a : b;
}

CO_HD void
co_sh_line_pixel (const CoShGrid * g, const CoFrame * f, int line, int t)
{
  if (line <= g->nx) {
    if (t < g->by[g->ny] - g->by[0])
      co_sh_put (f, g->bx[line], g->by[0] + t, co_sh_top (f) / 2);
  } else if (t < g->bx[g->nx] - g->bx[0]) {
    co_sh_put (f, g->bx[0] + t, g->by[line - g->nx - 1], co_sh_top (f) / 2);
  }
}

/* Lenslet @k's marks, when measured: the slope line, and four ticks round
 * the centroid (the spot stays visible), at the largest value.  No
 * multiply-add in the positions, so C and CUDA round them alike. */
CO_HD void
co_sh_marks (const CoShMarks * m, const CoFrame * f, int k)
{
  const uint32_t top = co_sh_top (f);
  double rx = m->rx[k], ry = m->ry[k], ex, ey, big;
  int steps, t, d, cx, cy;

  if (!(m->flags[k] & CO_SH_VALID))
    return;
  ex = m->gain * ((double) m->cx[k] - rx);
  ey = m->gain * ((double) m->cy[k] - ry);
  big = fabs (ex) > fabs (ey) ? fabs (ex) : fabs (ey);
  if (big < 4096.0) {
    steps = (int) ceil (big);
    for (t = 0; t <= steps; t++) {
      double a = steps ? ex * t / steps : 0.0, b = steps ? ey * t / steps : 0.0;
      co_sh_put (f, (int) floor (rx + a), (int) floor (ry + b), top);
    }
  }
  cx = (int) floor (m->cx[k]);
  cy = (int) floor (m->cy[k]);
  for (d = 3; d <= 4; d++) {
    co_sh_put (f, cx - d, cy, top);
    co_sh_put (f, cx + d, cy, top);
    co_sh_put (f, cx, cy - d, top);
    co_sh_put (f, cx, cy + d, top);
  }
}

/* The overlay on @f: the borders, then the marks over them.  C, and CUDA
 * on @stream with @g, @m and @f in device memory (a cudaError_t); the same
 * bytes from the same results. */
void co_sh_overlay (const CoShGrid * g, const CoShMarks * m, const CoFrame * f);
int co_sh_overlay_cuda (const CoShGrid * g, const CoShMarks * m,
    const CoFrame * f, void *stream);

/* Sets g->span_words and g->span_rows from the host boundaries (before
 * they are swapped for device copies), for @bytes_per_pixel 1 or 2. */
void co_sh_plan (CoShGrid * g, int bytes_per_pixel);

/* The reference (the paper's Algorithm 1, every method): moments in double,
 * lenslet after lenslet; the slopes too where @r has room for them.
 * Returns 0, or -1 when memory ran out. */
int co_sh_reference (const CoShGrid * g, const CoFrame * in, CoShResult * r);

/* The same on the device (kernels/shcentroid.cu), on @stream: @g (planned
 * by co_sh_plan), @why (the flags of the lenslets @g does not measure),
 * @in and @r in device memory; centroids within 1e-4 pixel of the
 * reference's, and slopes from them equal to co_sh_slopes_of's on the
 * host.  Returns a cudaError_t. */
int co_sh_cuda (const CoShGrid * g, const uint8_t * why, const CoFrame * in,
    CoShResult * r, void *stream);

#ifdef __cplusplus
}
#endif
#endif
