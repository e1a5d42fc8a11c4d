/* cudaoptics — LGPL-2.1-or-later
 *
 * C reference of the CLT-domain phase correlation (clt_corr_math.h).
 */
#include <stdint.h>
#include "clt_corr.h"
#include "remap.h"              /* CO_PARALLEL_MIN_PIXELS */

void
co_clt_correlate_cpu (const float *clt_a, const float *clt_b, int n_tiles,
    float fat_zero, CoCltPeak method, float *corr, float *dx, float *dy,
    float *strength)
{
  float cs[CO_CLT_BASIS], sn[CO_CLT_BASIS];
  int i;

  co_clt_corr_basis (cs, sn);
#pragma omp parallel for schedule(static) if (n_tiles >= 1024)
  for (i = 0; i < n_tiles; i++) {
    float p[CO_CLT_COEFFS], c[CO_CLT_CORR * CO_CLT_CORR];
    float *out = corr ? corr + (size_t) i * CO_CLT_CORR * CO_CLT_CORR : c;

    co_clt_corr_cross (clt_a + (size_t) i * CO_CLT_COEFFS,
        clt_b + (size_t) i * CO_CLT_COEFFS, fat_zero, p);
    co_clt_corr_pixels (p, cs, sn, out);
    co_clt_corr_peak (out, method, &dx[i], &dy[i], &strength[i]);
  }
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
co_clt_corr_refine_cpu (float *dx, float *dy, float *strength,
    const float *rdx, const float *rdy, const float *rs, int n)
{
  int i;

  for (i = 0; i < n; i++)
    co_clt_corr_refine_at (i, dx, dy, strength, rdx, rdy, rs);
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
