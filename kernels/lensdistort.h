/* cudaoptics — LGPL-2.1-or-later
 *
 * cudalensdistort's LUT builders and remappers: C references (always built)
 * and CUDA launchers (built with the cuda option).  Callers own all memory:
 * co_lut_layout_full() (remap.h) says how large each table is, the caller
 * allocates it on the host (CPU functions) or on the device (CUDA
 * functions).  The remappers take every lut mode, CO_LUT_COMPUTE included;
 * the model's output pixel space is the table's (p->width x p->height).
 *
 * CUDA launchers take the caller's cudaStream_t as void *, launch, and return
 * the cudaError_t of the launch as an int (0 = success).  They never
 * allocate, copy, print or synchronise.  Device frames must be aligned to
 * their pixel size (pitch and base), which every CUDA allocation is.
 */
#ifndef CO_LENSDISTORT_H
#define CO_LENSDISTORT_H

#include <stddef.h>
#include "lensdistort_math.h"
#include "remap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host-side parameter set-up (double in, the floats both backends use out) */
void co_lens_params_init_hmd (CoLensParams * p, int width, int height,
    double k1, double k2, double center_x, double center_y, int stereo);
/* hmd: colour @ch's (1 red, 2 blue; 0 green or every channel)
 * coefficients and magnification; init_hmd sets all three alike */
void co_lens_params_set_colour (CoLensParams * p, int ch, double k1,
    double k2, double scale);
/* hmd with a colour that differs from green: a chromatic table is needed */
int co_lens_params_chromatic (const CoLensParams * p);
/* hmd: the source is src_w x src_h, not the output's size (the eye's
 * geometry stays the output's; positions are scaled to the source) */
void co_lens_params_set_source (CoLensParams * p, int src_w, int src_h);
/* A camera model (R and P included) for a width x height frame */
void co_lens_params_init_pinhole (CoLensParams * p, int width, int height,
    const CoCamera * cam);
/* K = {fx, fy, cx, cy}, dist = {k1, k2, p1, p2, k3}, new_k likewise:
 * R = I, P = [new_k | 0] */
void co_lens_params_init_camera (CoLensParams * p, int width, int height,
    const double k[4], const double dist[5], const double new_k[4]);
/* cv::getOptimalNewCameraMatrix for an image of the same size: alpha 0 keeps
 * only valid pixels, 1 keeps every source pixel.  Returns 0 when the
 * distortion folds the border over (no usable rectangle). */
int co_lens_optimal_new_camera (const double k[4], const double dist[5],
    int width, int height, double alpha, double new_k[4]);

/* Whether some output pixel of plane 0 has a source pixel, looked for on a
 * grid of n x n points with the frame's edges on it: a geometry that turns
 * the whole frame into border is a setting mistake worth a warning. */
int co_lens_maps_any (const CoLensParams * p, const CoLut * lut, int n);

/* C references.  Rows run in parallel under OpenMP where it was found. */
void co_lens_build_lut_cpu (const CoLensParams * p, const CoLut * lut);
void co_lens_remap_cpu (const CoLensParams * p, const CoLut * lut,
    const CoFrame * in, CoFrame * out, const uint32_t border[CO_MAX_PLANES]);
/* The paper's forward mapping (benchmark only, nearest, single plane):
 * fwd holds per SOURCE pixel the output pixel it lands on. */
void co_lens_build_forward_cpu (const CoLensParams * p, uint32_t * fwd,
    int pitch);
void co_lens_remap_forward_cpu (const uint32_t * fwd, int pitch,
    const CoFrame * in, CoFrame * out);

/* CUDA launchers */
int co_lens_build_lut_cuda (const CoLensParams * p, const CoLut * lut,
    void *stream);
int co_lens_remap_cuda (const CoLensParams * p, const CoLut * lut,
    const CoFrame * in, CoFrame * out, const uint32_t border[CO_MAX_PLANES],
    void *stream);
int co_lens_build_forward_cuda (const CoLensParams * p, uint32_t * fwd,
    int pitch, void *stream);
int co_lens_remap_forward_cuda (const uint32_t * fwd, int pitch,
    const CoFrame * in, CoFrame * out, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* CO_LENSDISTORT_H */
