/* cudaoptics — LGPL-2.1-or-later
 *
 * Synthetic Shack-Hartmann frames for cudashcentroid's tests: a Gaussian
 * spot per lenslet at a known sub-pixel place, integrated over each pixel
 * (not sampled at its centre), plus a background, photon noise (Poisson)
 * and read noise (Gaussian), rounded and clipped to 8 or 16 bits.  A
 * seeded generator of its own, so every run and every machine draws the
 * same frame.
 */
#ifndef SH_SPOTS_H
#define SH_SPOTS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  uint64_t s;
} ShRand;

/* splitmix64 */
static inline uint64_t
sh_rand_next (ShRand * r)
{
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* uniform in (0, 1) */
static inline double
sh_rand_uniform (ShRand * r)
{
  return ((double) (sh_rand_next (r) >> 11) + 0.5) / 9007199254740992.0;
}

static inline double
sh_rand_normal (ShRand * r)
{
  double u = sh_rand_uniform (r), v = sh_rand_uniform (r);

  return sqrt (-2.0 * log (u)) * cos (2.0 * M_PI * v);
}

/* Poisson: counted below 30, normal (continuity-corrected) above */
static inline double
sh_rand_poisson (ShRand * r, double lambda)
{
  if (lambda <= 0.0)
    return 0.0;
  if (lambda < 30.0) {
    double l = exp (-lambda), p = 1.0;
    int k = 0;
    do {
      k++;
      p *= sh_rand_uniform (r);
    } while (p > l);
    return k - 1;
  }
  return floor (lambda + sqrt (lambda) * sh_rand_normal (r) + 0.5);
}

typedef struct
{
  double pitch, ox, oy;         /* the grid, frame coordinates */
  int nx, ny;
  double sigma;                 /* the spot's Gaussian, pixels */
  double photons;               /* per spot */
  double background;            /* per pixel, in counts */
  double read_noise;            /* counts, standard deviation */
  double spread;                /* spots within +-spread of the centres,
                                 * a fraction of the pitch */
  int bits;                     /* 8 or 16 */
} ShSpots;

/* The fraction of a unit Gaussian spot centred at @c over [a, a + 1). */
static inline double
sh_pixel_share (double a, double c, double sigma)
{
  return 0.5 * (erf ((a + 1.0 - c) / (M_SQRT2 * sigma)) -
      erf ((a - c) / (M_SQRT2 * sigma)));
}

/* Draws a width x height frame (@pitch bytes a row) and each lenslet's true
 * spot centre into @tx, @ty (nx * ny each, frame coordinates). */
static inline void
sh_spots_draw (const ShSpots * s, uint64_t seed, int width, int height,
    uint8_t * data, int pitch, double *tx, double *ty)
{
  ShRand r = { seed };
  double *ideal = (double *) calloc ((size_t) width * height, sizeof *ideal);
  double vmax = s->bits == 16 ? 65535.0 : 255.0;
  int i, j, x, y;

  for (j = 0; j < s->ny; j++)
    for (i = 0; i < s->nx; i++) {
      double cx = s->ox + (i + 0.5) * s->pitch + s->spread * s->pitch *
          (2.0 * sh_rand_uniform (&r) - 1.0);
      double cy = s->oy + (j + 0.5) * s->pitch + s->spread * s->pitch *
          (2.0 * sh_rand_uniform (&r) - 1.0);
      int xa = (int) floor (cx - 5.0 * s->sigma), xb = (int) ceil (cx +
          5.0 * s->sigma);
      int ya = (int) floor (cy - 5.0 * s->sigma), yb = (int) ceil (cy +
          5.0 * s->sigma);

      tx[j * s->nx + i] = cx;
      ty[j * s->nx + i] = cy;
      for (y = ya < 0 ? 0 : ya; y <= yb && y < height; y++)
        for (x = xa < 0 ? 0 : xa; x <= xb && x < width; x++)
          ideal[(size_t) y * width + x] += s->photons *
              sh_pixel_share (x, cx, s->sigma) * sh_pixel_share (y, cy,
              s->sigma);
    }
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      double v = sh_rand_poisson (&r, ideal[(size_t) y * width + x] +
          s->background) + s->read_noise * sh_rand_normal (&r);
      v = floor (v + 0.5);
      v = v < 0.0 ? 0.0 : v > vmax ? vmax : v;
      if (s->bits == 16) {
        data[(size_t) y * pitch + 2 * x] = (uint8_t) ((unsigned) v & 0xff);
        data[(size_t) y * pitch + 2 * x + 1] = (uint8_t) ((unsigned) v >> 8);
      } else {
        data[(size_t) y * pitch + x] = (uint8_t) v;
      }
    }
  free (ideal);
}

#endif
