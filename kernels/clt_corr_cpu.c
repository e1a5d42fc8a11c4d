/* cudaoptics — LGPL-2.1-or-later
 *
 * C reference of the CLT-domain phase correlation (clt_corr_math.h).
 */
#include <stdint.h>
#include "clt_corr.h"

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
