/* cudaoptics — LGPL-2.1-or-later
 *
 * The C reference of cudacltcorrelate's coarse-to-fine search
 * (clt_search.h), and its plan, which both backends share.
 */
#include "clt_search.h"
#include "clt_corr_math.h"   /* one correlation's reach */

void
co_clt_search_half_size (int w, int h, int *hw, int *hh)
{
  *hw = (w + 1) / 2;
  *hh = (h + 1) / 2;
}

int
co_clt_search_sweep_tries (int reach, int along)
{
  const int side = 2 * reach / CO_CLT_SEARCH_STEP + 1;

  return along ? side : side * side;
}

void
co_clt_search_plan (int max_shift, int w, int h, int *levels, int *reach)
{
  /* one correlation's own reach, and a 5 x 5 sweep's on a level */
  const int one = CO_CLT_CORR_C, sweep = 2 * CO_CLT_SEARCH_STEP + one;
  int l = 0, s = max_shift, r;

  if (max_shift <= one) {
    *levels = *reach = 0;
    return;
  }
  /* up while the shifts do not fit the sweep and the plane above still
   * holds two tiles a side */
  do {
    co_clt_search_half_size (w, h, &w, &h);
    s = (s + 1) / 2;
    l++;
  } while (s > sweep && l < CO_CLT_SEARCH_MAX_LEVELS && w >= 64 && h >= 64);
  r = s > one ? s - one : 0;
  *levels = l;
  *reach = (r + CO_CLT_SEARCH_STEP - 1) / CO_CLT_SEARCH_STEP *
      CO_CLT_SEARCH_STEP;
}

void
co_clt_search_half_cpu (const float *src, int w, int h, float *dst)
{
  int hw, hh, x, y;

  co_clt_search_half_size (w, h, &hw, &hh);
  for (y = 0; y < hh; y++)
    for (x = 0; x < hw; x++)
      dst[(size_t) y * hw + x] = co_clt_search_half_at (src, w, h, x, y);
}

void
co_clt_search_sweep_cpu (int k, int reach, CoCltSearchLine line, int n,
    float *sx, float *sy)
{
  float x, y;
  int i;

  co_clt_search_sweep_at (k, reach, line, &x, &y);
  for (i = 0; i < n; i++) {
    sx[i] = x;
    sy[i] = y;
  }
}

void
co_clt_search_parent_cpu (int k, int tx_n, int ty_n, int ptx_n, int pty_n,
    const float *pdx, const float *pdy, CoCltSearchLine line, float *sx,
    float *sy, float *on)
{
  int i;

  for (i = 0; i < tx_n * ty_n; i++)
    co_clt_search_parent_at (i, k, tx_n, ptx_n, pty_n, pdx, pdy, line, &sx[i],
        &sy[i], &on[i]);
}

void
co_clt_search_keep_cpu (int first, int n, const float *sx, const float *sy,
    const float *on, const float *rdx, const float *rdy, const float *rs,
    float *dx, float *dy, float *strength)
{
  int i;

  for (i = 0; i < n; i++)
    co_clt_search_keep_at (i, first, sx, sy, on, rdx, rdy, rs, dx, dy,
        strength);
}

void
co_clt_search_along_cpu (int n, const float *dx, const float *dy,
    CoCltSearchLine line, float scale, float *d)
{
  int i;

  for (i = 0; i < n; i++)
    co_clt_search_along_at (i, dx, dy, line, scale, d);
}
