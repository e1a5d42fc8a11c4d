/* cudaoptics — LGPL-2.1-or-later
 *
 * cudacltcorrelate's coarse-to-fine search for shifts beyond one
 * correlation's -7..7 pixels (clt_search_math.h): the C reference and the
 * CUDA launchers, which give its bits.
 */
#ifndef CO_CLT_SEARCH_H
#define CO_CLT_SEARCH_H

#include "clt_search_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the deepest pyramid: 2^8 times one correlation's reach */
#define CO_CLT_SEARCH_MAX_LEVELS 8

/* The pyramid for shifts up to @max_shift pixels on a @w x @h plane:
 * *levels above the frame (0: one correlation's -7..7 is enough, no
 * search) and the sweep's reach on the top one (a multiple of the step;
 * 0: one try).  The top level is the first whose shifts fit a 5 x 5 sweep,
 * unless the plane would be smaller than two tiles a side: then it stops
 * there and sweeps wider. */
void co_clt_search_plan (int max_shift, int w, int h, int *levels,
    int *reach);
/* The size of the level above a @w x @h plane */
void co_clt_search_half_size (int w, int h, int *hw, int *hh);
/* How many tries the sweep of @reach makes (@along: on a line) */
int co_clt_search_sweep_tries (int reach, int along);

/* co_clt_search_half_at for every pixel of the level above @src (@w x @h)
 * into @dst */
void co_clt_search_half_cpu (const float *src, int w, int h, float *dst);
/* try @k of the sweep for all @n tiles into @sx, @sy */
void co_clt_search_sweep_cpu (int k, int reach, CoCltSearchLine line, int n,
    float *sx, float *sy);
/* co_clt_search_parent_at for every tile of a @tx_n x @ty_n level */
void co_clt_search_parent_cpu (int k, int tx_n, int ty_n, int ptx_n,
    int pty_n, const float *pdx, const float *pdy, CoCltSearchLine line,
    float *sx, float *sy, float *on);
/* co_clt_search_keep_at for @n tiles */
void co_clt_search_keep_cpu (int first, int n, const float *sx,
    const float *sy, const float *on, const float *rdx, const float *rdy,
    const float *rs, float *dx, float *dy, float *strength);

/* co_clt_search_along_at for @n tiles */
void co_clt_search_along_cpu (int n, const float *dx, const float *dy,
    CoCltSearchLine line, float scale, float *d);

/* The same on the device, on @stream (a cudaStream_t): every pointer device
 * memory; they return the launch's cudaError_t. */
int co_clt_search_half_cuda (const float *src, int w, int h, float *dst,
    void *stream);
int co_clt_search_sweep_cuda (int k, int reach, CoCltSearchLine line, int n,
    float *sx, float *sy, void *stream);
int co_clt_search_parent_cuda (int k, int tx_n, int ty_n, int ptx_n,
    int pty_n, const float *pdx, const float *pdy, CoCltSearchLine line,
    float *sx, float *sy, float *on, void *stream);
int co_clt_search_along_cuda (int n, const float *dx, const float *dy,
    CoCltSearchLine line, float scale, float *d, void *stream);
int co_clt_search_keep_cuda (int first, int n, const float *sx,
    const float *sy, const float *on, const float *rdx, const float *rdy,
    const float *rs, float *dx, float *dy, float *strength, void *stream);

#ifdef __cplusplus
}
#endif
#endif
