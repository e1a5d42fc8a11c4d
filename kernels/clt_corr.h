/* cudaoptics — LGPL-2.1-or-later
 *
 * Phase correlation of CLT tiles (clt_corr_math.h): the C reference of the
 * correlation step of cudacltcorrelate.
 */
#ifndef CO_CLT_CORR_H
#define CO_CLT_CORR_H

#include "clt_corr_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* @cp for @fat_zero, a noise floor of @noise_floor (a cross-power
 * modulus: co_clt_corr_noise_floor) and a Gaussian low-pass of the
 * correlation of @lpf_sigma pixels (0: none), with the weight of a raw
 * mosaic's tiles where @mosaic is not 0. */
void co_clt_corr_params_init (CoCltCorrParams * cp, float fat_zero,
    float noise_floor, float lpf_sigma, int mosaic);

/* The cross-power modulus that white pixel noise of standard deviation
 * @sigma (in the plane's units, 0..1) gives at a frequency of two
 * identical tiles, on average: |z1|^2 (or |z2|^2), each complex part
 * summing four layers' coefficients, each of which has the pixels'
 * variance (per axis 0.5 sum_t w[t] x[t] cos (...) over 16 taps with
 * sum_t w[t]^2 = 8: 0.25 x 8 x 1/2 = 1), so 4 sigma^2 (3.99 measured on
 * 4,000 noise tiles, 3.88-4.17 across the 64 frequencies).  Two
 * independent noise tiles give |za| |zb|: pi sigma^2 on average, 2.5
 * sigma^2 as the median. */
#define CO_CLT_CORR_NOISE_POWER 4.0f

float co_clt_corr_noise_floor (float sigma);

/* Tile i of @clt_a against tile i of @clt_b (CO_CLT_COEFFS floats each, as
 * co_clt_forward_cpu writes them), for @n_tiles tiles: the sub-pixel shift
 * of b's content against a's in *dx, *dy and the peak's strength (arrays
 * of @n_tiles); with @corr (n_tiles x CO_CLT_CORR^2 floats) the
 * correlation tiles too. */
void co_clt_correlate_cpu (const float *clt_a, const float *clt_b,
    int n_tiles, const CoCltCorrParams * cp, CoCltPeak method, float *corr,
    float *dx, float *dy, float *strength);
/* The same without the correlation tiles, for the tiles whose @on is not
 * 0 (NULL: every tile); the others' results stay as they were */
void co_clt_correlate_some_cpu (const float *clt_a, const float *clt_b,
    int n_tiles, const CoCltCorrParams * cp, CoCltPeak method,
    const float *on, float *dx, float *dy, float *strength);
/* co_clt_corr_mix_at for every coefficient of @n_tiles tiles: @clt holds
 * three colour planes of n_tiles tiles, one after another */
void co_clt_corr_mix_cpu (const float *clt, int n_tiles, float *out);
int co_clt_corr_mix_cuda (const float *clt, int n_tiles, float *out,
    void *stream);
/* The colour path's tiles of a raw Bayer frame (clt.h's
 * co_clt_forward_bayer of the whole frame with shifts @dx, @dy, 3 floats a
 * tile; each colour's tiles times its kernel, co_clt_convolve_grid; the
 * colours mixed, co_clt_corr_mix) into @clt, on the device in one pass
 * that keeps each tile on the chip: the same bits as the three steps. */
int co_clt_corr_forward_bayer_cuda (const uint8_t * raw, int w, int h,
    int pitch, int bps, float scale, CoBayer bayer, const float *dx,
    const float *dy, const float *nodes, int gw, int gh, int stride,
    int colours, float *clt, void *stream);
/* co_clt_corr_shifts_at for @n tiles */
void co_clt_corr_shifts_cpu (const float *bdx, const float *bdy,
    const float *dx, const float *dy, int n, float *odx, float *ody);
int co_clt_corr_shifts_cuda (const float *bdx, const float *bdy,
    const float *dx, const float *dy, int n, float *odx, float *ody,
    void *stream);
/* co_clt_corr_refine_at for @n tiles */
void co_clt_corr_refine_cpu (float *dx, float *dy, float *strength,
    const float *rdx, const float *rdy, const float *rs, float *hist, int n,
    int pass);
int co_clt_corr_refine_cuda (float *dx, float *dy, float *strength,
    const float *rdx, const float *rdy, const float *rs, float *hist, int n,
    int pass, void *stream);

/* co_clt_corr_lr_at for every tile of the grid */
void co_clt_corr_lr_cpu (int tiles_x, int tiles_y, const float *dx,
    const float *dy, const float *rdx, const float *rdy, float limit,
    float *strength);
int co_clt_corr_lr_cuda (int tiles_x, int tiles_y, const float *dx,
    const float *dy, const float *rdx, const float *rdy, float limit,
    float *strength, void *stream);

/* co_clt_corr_rig_at for @n tiles of results @res of @rig's pairs */
void co_clt_corr_rig_cpu (const CoCltCorrRig * rig, const float *res, int n,
    float *disp, float *comb, float *conf);
int co_clt_corr_rig_cuda (const CoCltCorrRig * rig, const float *res, int n,
    float *disp, float *comb, float *conf, void *stream);
/* co_clt_corr_prior_at for @n tiles (@b: NULL without a rig) */
void co_clt_corr_prior_cpu (const float *prior, const CoCltCorrBaseline * b,
    int n, float *dx, float *dy);
int co_clt_corr_prior_cuda (const float *prior, const CoCltCorrBaseline * b,
    int n, float *dx, float *dy, void *stream);

/* The grey plane of @in (co_clt_corr_sample says of which formats) into
 * @plane, width floats a row */
void co_clt_corr_plane_cpu (const CoFrame * in, float *plane);

/* The same on the device, on @stream (a cudaStream_t): every pointer device
 * memory, the C reference's bits; they return the launch's cudaError_t. */
int co_clt_corr_plane_cuda (const CoFrame * in, float *plane, void *stream);
int co_clt_correlate_cuda (const float *clt_a, const float *clt_b,
    int n_tiles, const CoCltCorrParams * cp, CoCltPeak method, float *corr,
    float *dx, float *dy, float *strength, void *stream);
int co_clt_correlate_some_cuda (const float *clt_a, const float *clt_b,
    int n_tiles, const CoCltCorrParams * cp, CoCltPeak method,
    const float *on, float *dx, float *dy, float *strength, void *stream);

#ifdef __cplusplus
}
#endif
#endif
