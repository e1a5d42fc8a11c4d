/* cudaoptics — LGPL-2.1-or-later
 *
 * C reference of the CLT-domain phase correlation (clt_corr_math.h).
 */
#include <math.h>
#include <stdint.h>
#include "clt_corr.h"
#include "remap.h"              /* CO_PARALLEL_MIN_PIXELS */

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

float
co_clt_corr_noise_floor (float sigma)
{
  return CO_CLT_CORR_NOISE_POWER * sigma * sigma;
}

void
co_clt_corr_params_init (CoCltCorrParams * cp, float fat_zero,
    float noise_floor, float lpf_sigma, int mosaic)
{
  double w[CO_CLT_LAYER], sum = 0.0;
  int kv, kh, n;

  cp->fat_zero = fat_zero;
  cp->noise_floor = noise_floor > 0.0f ? noise_floor : 0.0f;
  cp->weighted = lpf_sigma > 0.0f || mosaic || fat_zero > 0.0f;
  /* exp (-sigma^2 w^2 / 2) at w = pi (k + 0.5) / 8 across and down, over
   * their mean (a perfect match peaks at the weights' mean), once on the
   * host: the device reads these floats.  A raw mosaic's colours ride on
   * carriers at (pi, 0), (0, pi) and (pi, pi) that stay with the sensor
   * when the scene moves: where they overlap the scene's own high
   * frequencies no filter can part them, and whitening gives those
   * frequencies full weight, pulling shifts towards the sensor's even
   * ones.  The weight (cos (wx / 2) cos (wy / 2))^8, the 4th power of the
   * [1 2 1] x [1 2 1] filter's response, leaves them out (the residual
   * pull below 0.05 px on natural colour pictures: docs). */
  for (kv = 0; kv < CO_CLT_N; kv++)
    for (kh = 0; kh < CO_CLT_N; kh++) {
      const double wx = M_PI * (kh + 0.5) / 8.0, wy = M_PI * (kv + 0.5) / 8.0;
      double v = exp (-0.5 * (double) lpf_sigma * lpf_sigma *
          (wx * wx + wy * wy));
      if (mosaic)
        v *= pow (cos (0.5 * wx) * cos (0.5 * wy), 8.0);
      w[kv * CO_CLT_N + kh] = v;
      sum += v;
    }
  for (n = 0; n < CO_CLT_LAYER; n++)
    cp->lpf[n] = lpf_sigma > 0.0f || mosaic ?
        (float) (w[n] * CO_CLT_LAYER / sum) : 1.0f;
}

/* Both entry points: the tiles whose @on is not 0 (NULL: all), the
 * correlation tiles into @corr when given */
static void
correlate_tiles (const float *clt_a, const float *clt_b, int n_tiles,
    const CoCltCorrParams * cp, CoCltPeak method, const float *on,
    float *corr, float *dx, float *dy, float *strength)
{
  float cs[CO_CLT_BASIS], sn[CO_CLT_BASIS];
  int i;

  method = co_clt_corr_method (cp, method);
  co_clt_corr_basis (cs, sn);
#pragma omp parallel for schedule(static) if (n_tiles >= 1024)
  for (i = 0; i < n_tiles; i++) {
    float p[CO_CLT_COEFFS], c[CO_CLT_CORR * CO_CLT_CORR];
    float *out = corr ? corr + (size_t) i * CO_CLT_CORR * CO_CLT_CORR : c;

    if (on && on[i] == 0.0f)
      continue;
    co_clt_corr_cross (clt_a + (size_t) i * CO_CLT_COEFFS,
        clt_b + (size_t) i * CO_CLT_COEFFS, cp, p);
    co_clt_corr_pixels (p, cs, sn, out);
    {
      const int best = co_clt_corr_argmax (out);
      float g[CO_CLT_NEWTON];
      if (method == CO_CLT_PEAK_NEWTON)
        co_clt_corr_newton (p, cs, sn, best, g);
      co_clt_corr_fit (out, best, method,
          method == CO_CLT_PEAK_NEWTON ? g : NULL, &dx[i], &dy[i],
          &strength[i]);
    }
  }
}

void
co_clt_correlate_cpu (const float *clt_a, const float *clt_b, int n_tiles,
    const CoCltCorrParams * cp, CoCltPeak method, float *corr, float *dx,
    float *dy, float *strength)
{
  correlate_tiles (clt_a, clt_b, n_tiles, cp, method, NULL, corr, dx, dy,
      strength);
}

void
co_clt_correlate_some_cpu (const float *clt_a, const float *clt_b,
    int n_tiles, const CoCltCorrParams * cp, CoCltPeak method,
    const float *on, float *dx, float *dy, float *strength)
{
  correlate_tiles (clt_a, clt_b, n_tiles, cp, method, on, NULL, dx, dy,
      strength);
}

void
co_clt_corr_plane_cpu (const CoFrame * in, float *plane)
{
  int y;

#pragma omp parallel for schedule(static) \
    if ((int64_t) in->width * in->height >= CO_PARALLEL_MIN_PIXELS)
  for (y = 0; y < in->height; y++) {
    int x;
    for (x = 0; x < in->width; x++)
      plane[(size_t) y * in->width + x] = co_clt_corr_sample (in, x, y);
  }
}

void
co_clt_corr_lr_cpu (int tiles_x, int tiles_y, const float *dx,
    const float *dy, const float *rdx, const float *rdy, float limit,
    float *strength)
{
  int i;

  for (i = 0; i < tiles_x * tiles_y; i++)
    co_clt_corr_lr_at (i, tiles_x, tiles_y, dx, dy, rdx, rdy, limit,
        strength);
}

void
co_clt_corr_refine_cpu (float *dx, float *dy, float *strength,
    const float *rdx, const float *rdy, const float *rs, float *hist, int n,
    int pass)
{
  int i;

  for (i = 0; i < n; i++)
    co_clt_corr_refine_at (i, n, pass, dx, dy, strength, rdx, rdy, rs, hist);
}

void
co_clt_corr_mix_cpu (const float *clt, int n_tiles, float *out)
{
  const size_t n = (size_t) n_tiles * CO_CLT_COEFFS;
  size_t j;

  for (j = 0; j < n; j++)
    co_clt_corr_mix_at (clt, n, j, out);
}

void
co_clt_corr_shifts_cpu (const float *bdx, const float *bdy, const float *dx,
    const float *dy, int n, float *odx, float *ody)
{
  int i;

  for (i = 0; i < n; i++)
    co_clt_corr_shifts_at (i, bdx, bdy, dx, dy, odx, ody);
}

void
co_clt_corr_rig_cpu (const CoCltCorrRig * rig, const float *res, int n,
    float *disp, float *comb, float *conf)
{
  int i;

  for (i = 0; i < n; i++)
    co_clt_corr_rig_at (i, n, rig, res, disp, comb, conf);
}

void
co_clt_corr_prior_cpu (const float *prior, const CoCltCorrBaseline * b, int n,
    float *dx, float *dy)
{
  int i;

  for (i = 0; i < n; i++)
    co_clt_corr_prior_at (i, n, prior, b, dx, dy);
}
