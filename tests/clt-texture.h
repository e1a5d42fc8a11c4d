/* cudaoptics — LGPL-2.1-or-later
 *
 * The band-limited textures the correlation's tests move by known
 * sub-pixel amounts (unit-clt-correlate, check-cudacltcorrelate): a sum of
 * random waves spread evenly over the disc of 0.45 cycles a pixel.  A few
 * pure waves would leave most of a tile's 64 frequencies empty, and pure
 * phase correlation weighs the empty ones as much as the rest.
 */
#ifndef CO_CLT_TEXTURE_H
#define CO_CLT_TEXTURE_H

#include <math.h>
#include <glib.h>

#define CO_TEXTURE_MAX_WAVES 400

typedef struct
{
  int n;
  double ux[CO_TEXTURE_MAX_WAVES], uy[CO_TEXTURE_MAX_WAVES];
  double a[CO_TEXTURE_MAX_WAVES], ph[CO_TEXTURE_MAX_WAVES];
} CoTexture;

static inline void
co_texture_init (CoTexture * t, guint32 seed, int n)
{
  GRand *r = g_rand_new_with_seed (seed);
  int m;

  t->n = MIN (n, CO_TEXTURE_MAX_WAVES);
  for (m = 0; m < t->n; m++) {
    double f = 0.45 * sqrt (g_rand_double (r)),
        th = g_rand_double_range (r, 0, 2 * G_PI);
    t->ux[m] = f * cos (th);
    t->uy[m] = f * sin (th);
    t->a[m] = g_rand_double_range (r, 1, 3);
    t->ph[m] = g_rand_double_range (r, 0, 2 * G_PI);
  }
  g_rand_free (r);
}

/* The texture at (x, y): zero mean */
static inline double
co_texture_at (const CoTexture * t, double x, double y)
{
  double v = 0;
  int m;

  for (m = 0; m < t->n; m++)
    v += t->a[m] * cos (2 * G_PI * (t->ux[m] * x + t->uy[m] * y) + t->ph[m]);
  return v;
}

#endif
