/* cudaoptics — LGPL-2.1-or-later
 *
 * One camera model for every element that maps through a lens: what a
 * calibration file describes (CoCamera, double, host side) and the floats a
 * kernel evaluates per pixel (CoCameraParams, with CO_HD functions that
 * compile as C and as CUDA, so both backends compute the same bits:
 * -fmad=false on the device, -ffp-contract=off on the host, no
 * transcendental function).
 *
 * Conventions are OpenCV's (cv::initUndistortRectifyMap): pixel centres on
 * integers; K = [fx 0 cx; 0 fy cy; 0 0 1] the camera matrix; the distortion
 * vector in OpenCV's order, up to its 14 coefficients; R the rectification
 * rotation (identity for a single camera); P the new projection whose left
 * 3x3 is the new camera matrix of the undistorted image (its fourth column,
 * a stereo baseline, does not move pixels and is ignored by the maps).
 * An output pixel (u, v) of the undistorted image goes through (P R)^-1 to
 * a normalised ray, through the distortion, then through K to the source.
 *
 * Only k1 k2 p1 p2 k3 are evaluated today; the other coefficients must be
 * zero (the calibration reader refuses files that set them).  The fisheye
 * model is reserved.  Adding a model or a coefficient means extending
 * CoCameraParams and co_camera_distort() here, and both backends follow.
 */
#ifndef CO_CAMERA_H
#define CO_CAMERA_H

#include "co_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The values of the first two are cudalensdistort's `model` property. */
typedef enum
{
  CO_CAMERA_HMD = 0,            /* a headset lens' radial pre-distortion
                                 * (lensdistort_math.h), no camera matrix */
  CO_CAMERA_PINHOLE = 1,        /* Brown-Conrady: ROS plumb_bob, OpenCV's
                                 * default model ("camera") */
  CO_CAMERA_FISHEYE = 2,        /* reserved: cv::fisheye (Kannala-Brandt) */
} CoCameraModel;

/* Indices into CoCamera.dist, OpenCV's order. */
enum
{
  CO_DIST_K1 = 0, CO_DIST_K2, CO_DIST_P1, CO_DIST_P2, CO_DIST_K3,
  CO_DIST_K4, CO_DIST_K5, CO_DIST_K6,   /* rational */
  CO_DIST_S1, CO_DIST_S2, CO_DIST_S3, CO_DIST_S4,       /* thin prism */
  CO_DIST_TAUX, CO_DIST_TAUY,   /* tilted sensor */
  CO_CAMERA_N_DIST
};

/* The coefficients co_camera_distort() evaluates: k1 k2 p1 p2 k3. */
#define CO_CAMERA_N_DIST_USED 5

typedef struct
{
  int32_t model;                /* CoCameraModel */
  int32_t image_width, image_height;    /* what K was made for; 0: unknown */
  double fx, fy, cx, cy;        /* K */
  double dist[CO_CAMERA_N_DIST];        /* zero past what was given */
  double r[9];                  /* R, row-major; identity by default */
  double p[12];                 /* P, 3x4 row-major; default [K | 0] */
} CoCamera;

/* The floats one pinhole map evaluates.  When R is the identity and P's
 * left 3x3 is a plain camera matrix (no skew), the output pixel is
 * normalised with ifx/ify/ncx/ncy (the arithmetic cudalensdistort has
 * always used); otherwise (rectify) through the homography ir. */
typedef struct
{
  float fx, fy, cx, cy;         /* K of the source */
  float k1, k2, k3, p1, p2;
  float ifx, ify, ncx, ncy;     /* 1 / P's focal lengths, P's centre */
  int32_t rectify;
  float ir[9];                  /* (P R)^-1, row-major, when rectify */
} CoCameraParams;

/* Brown-Conrady distortion of the normalised point (x, y), then K. */
CO_HD void
co_camera_distort (const CoCameraParams * p, float x, float y, float *sx,
    float *sy)
{
  float x2 = x * x, y2 = y * y, r2 = x2 + y2, xy2 = 2.0f * x * y;
  float kr = 1.0f + ((p->k3 * r2 + p->k2) * r2 + p->k1) * r2;
  float xd = x * kr + p->p1 * xy2 + p->p2 * (r2 + 2.0f * x2);
  float yd = y * kr + p->p1 * (r2 + 2.0f * y2) + p->p2 * xy2;
  *sx = p->fx * xd + p->cx;
  *sy = p->fy * yd + p->cy;
}

/* Output pixel (u, v) of the undistorted (rectified) image to the source
 * position it samples, as cv::initUndistortRectifyMap.  0 where the ray
 * points behind the camera (only possible with a rectification). */
CO_HD int
co_camera_map (const CoCameraParams * p, float u, float v, float *sx,
    float *sy)
{
  float x, y;
  if (p->rectify) {
    float X = u * p->ir[0] + v * p->ir[1] + p->ir[2];
    float Y = u * p->ir[3] + v * p->ir[4] + p->ir[5];
    float W = u * p->ir[6] + v * p->ir[7] + p->ir[8];
    if (!(W > 0.0f))
      return 0;
    x = X / W;
    y = Y / W;
  } else {
    x = (u - p->ncx) * p->ifx;
    y = (v - p->ncy) * p->ify;
  }
  co_camera_distort (p, x, y, sx, sy);
  return 1;
}

/* Host side (co_camera.c, no GStreamer, no CUDA). */

/* A pinhole camera with K, no distortion, R = I, P = [K | 0]. */
void co_camera_init (CoCamera * cam, double fx, double fy, double cx,
    double cy);
/* P = [new_k | 0] from {fx, fy, cx, cy}. */
void co_camera_set_new_camera (CoCamera * cam, const double new_k[4]);
/* Whether every coefficient past those evaluated is zero. */
int co_camera_is_supported (const CoCamera * cam);
/* The floats both backends use. */
void co_camera_params_init (CoCameraParams * p, const CoCamera * cam);
/* cv::getOptimalNewCameraMatrix for an image of the same size (R = I):
 * alpha 0 keeps only valid pixels, 1 keeps every source pixel.  Returns 0
 * when the distortion folds the border over (no usable rectangle). */
int co_camera_optimal_new_camera (const CoCamera * cam, int width,
    int height, double alpha, double new_k[4]);

#ifdef __cplusplus
}
#endif
#endif /* CO_CAMERA_H */
