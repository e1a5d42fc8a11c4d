/* cudaoptics — LGPL-2.1-or-later
 *
 * The CUDA launchers of clt.h for builds without CUDA: they fail as the
 * runtime would without a driver.
 */
#include "clt.h"
#include "clt_corr.h"
#include "clt_search.h"

#define NO_CUDA 35              /* cudaErrorInsufficientDriver */

int
co_clt_forward_cuda (const float *img, int w, int h, int pitch,
    const float *dx, const float *dy, float *clt, void *stream)
{
  return NO_CUDA;
}

int
co_clt_forward_some_cuda (const float *img, int w, int h, int pitch,
    const float *dx, const float *dy, const float *on, float *clt,
    void *stream)
{
  return NO_CUDA;
}

int
co_clt_correlate_some_cuda (const float *clt_a, const float *clt_b,
    int n_tiles, const CoCltCorrParams * cp, CoCltPeak method,
    const float *on, float *dx, float *dy, float *strength, void *stream)
{
  return NO_CUDA;
}

int
co_clt_inverse_cuda (const float *clt, int w, int h, float *out, int pitch,
    void *stream)
{
  return NO_CUDA;
}

int
co_clt_forward_bayer_cuda (const uint8_t * raw, int w, int h, int pitch,
    int bps, float scale, CoBayer bayer, const int *roi, const float *dx,
    const float *dy, float *const clt[3], void *stream)
{
  return NO_CUDA;
}

int
co_clt_convolve_grid_cuda (float *clt, int x0, int y0, int w, int h,
    const float *nodes, int gw, int gh, int stride, int colours, int c,
    void *stream)
{
  return NO_CUDA;
}

int
co_clt_pack_cuda (const float *const planes[3], int fpitch,
    const int *roi, const CoFrame * out, void *stream)
{
  return NO_CUDA;
}

int
co_clt_chain_bayer_cuda (const uint8_t * raw, int w, int h, int pitch,
    int bps, float scale, CoBayer bayer, const int *roi, const float *dx,
    const float *dy, const float *nodes, int gw, int gh, int stride,
    int colours, float *const planes[3], int fpitch, void *stream)
{
  return NO_CUDA;
}

int
co_clt_correlate_cuda (const float *clt_a, const float *clt_b, int n_tiles,
    const CoCltCorrParams * cp, CoCltPeak method, float *corr, float *dx,
    float *dy, float *strength, void *stream)
{
  return NO_CUDA;
}

int
co_clt_corr_forward_bayer_cuda (const uint8_t * raw, int w, int h,
    int pitch, int bps, float scale, CoBayer bayer, const float *dx,
    const float *dy, const float *nodes, int gw, int gh, int stride,
    int colours, float *clt, void *stream)
{
  return NO_CUDA;
}

int
co_clt_corr_mix_cuda (const float *clt, int n_tiles, float *out,
    void *stream)
{
  return NO_CUDA;
}

int
co_clt_corr_shifts_cuda (const float *bdx, const float *bdy, const float *dx,
    const float *dy, int n, float *odx, float *ody, void *stream)
{
  return NO_CUDA;
}

int
co_clt_corr_plane_cuda (const CoFrame * in, float *plane, void *stream)
{
  return NO_CUDA;
}

int
co_clt_corr_lr_cuda (int tiles_x, int tiles_y, const float *dx,
    const float *dy, const float *rdx, const float *rdy, float limit,
    float *strength, void *stream)
{
  return NO_CUDA;
}

int
co_clt_corr_refine_cuda (float *dx, float *dy, float *strength,
    const float *rdx, const float *rdy, const float *rs, float *hist, int n,
    int pass, void *stream)
{
  return NO_CUDA;
}

int
co_clt_corr_rig_cuda (const CoCltCorrRig * rig, const float *res, int n,
    float *disp, float *comb, float *conf, void *stream)
{
  return NO_CUDA;
}

int
co_clt_corr_prior_cuda (const float *prior, const CoCltCorrBaseline * b,
    int n, float *dx, float *dy, void *stream)
{
  return NO_CUDA;
}

int
co_clt_search_half_cuda (const float *src, int w, int h, float *dst,
    void *stream)
{
  return NO_CUDA;
}

int
co_clt_search_sweep_cuda (int k, int reach, CoCltSearchLine line, int n,
    float *sx, float *sy, void *stream)
{
  return NO_CUDA;
}

int
co_clt_search_parent_cuda (int k, int tx_n, int ty_n, int ptx_n, int pty_n,
    const float *pdx, const float *pdy, CoCltSearchLine line, float *sx,
    float *sy, float *on, void *stream)
{
  return NO_CUDA;
}

int
co_clt_search_keep_cuda (int first, int n, const float *sx, const float *sy,
    const float *on, const float *rdx, const float *rdy, const float *rs,
    float *dx, float *dy, float *strength, void *stream)
{
  return NO_CUDA;
}

int
co_clt_search_along_cuda (int n, const float *dx, const float *dy,
    CoCltSearchLine line, float scale, float *d, void *stream)
{
  return NO_CUDA;
}
