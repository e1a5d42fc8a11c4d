/* cudaoptics — LGPL-2.1-or-later
 *
 * One camera model for every element that maps through a lens: what a
 * calibration file describes (CoCamera, double, host side) and the floats a
 * kernel evaluates per pixel (CoCameraParams, with CO_HD functions that
 * compile as C and as CUDA, so both backends compute the same bits:
 * -fmad=false on the device, -ffp-contract=off on the host, no
 * transcendental function: sqrtf, correctly rounded on both, is the one
 * library call).
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
 * Models: OpenCV's full pinhole vector (k1 k2 p1 p2 k3, the rational
 * k4 k5 k6, the thin prism s1..s4, the tilted sensor tauX tauY; the parts
 * that are zero are skipped, so a five-coefficient camera costs what it
 * always did) and cv::fisheye's equidistant model (Kannala-Brandt:
 * theta_d = theta (1 + k1 theta^2 + k2 theta^4 + k3 theta^6 + k4 theta^8),
 * with an arctangent of our own, co_atanf, built from + - * / only so that
 * both backends agree to the bit).  Adding a model means extending
 * CoCameraParams and co_camera_distort() here, and both backends follow.
 */
#ifndef CO_CAMERA_H
#define CO_CAMERA_H

#include <math.h>
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
  CO_CAMERA_FISHEYE = 2,        /* cv::fisheye (Kannala-Brandt, equidistant):
                                 * k1..k4 in the K1 K2 K3 K4 slots of dist */
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


typedef struct
{
  int32_t model;                /* CoCameraModel */
  int32_t image_width, image_height;    /* what K was made for; 0: unknown */
  double fx, fy, cx, cy;        /* K */
  double dist[CO_CAMERA_N_DIST];        /* zero past what was given */
  double r[9];                  /* R, row-major; identity by default */
  double p[12];                 /* P, 3x4 row-major; default [K | 0] */
} CoCamera;

/* The floats one map evaluates.  When R is the identity and P's left 3x3
 * is a plain camera matrix (no skew), the output pixel is normalised with
 * ifx/ify/ncx/ncy (the arithmetic cudalensdistort has always used);
 * otherwise (rectify) through the homography ir. */
typedef struct
{
  int32_t model;                /* CO_CAMERA_PINHOLE or CO_CAMERA_FISHEYE */
  float fx, fy, cx, cy;         /* K of the source */
  float k1, k2, k3, p1, p2;     /* fisheye: k1..k4 in k1 k2 k3 k4 */
  float k4, k5, k6;             /* rational (pinhole), when rational */
  float s1, s2, s3, s4;         /* thin prism, when prism */
  int32_t rational, prism, tilt;
  float tilt_m[9];              /* OpenCV's tilt projection, when tilt */
  float ifx, ify, ncx, ncy;     /* 1 / P's focal lengths, P's centre */
  int32_t rectify;
  float ir[9];                  /* (P R)^-1, row-major, when rectify */
} CoCameraParams;

/* atan(@x), x >= 0, to about a float's precision, from + - * / alone (the
 * same bits from gcc with -ffp-contract=off and nvcc with -fmad=false):
 * atan(x) = pi/2 - atan(1/x) folds x into [0, 1], atan(t) = pi/6 +
 * atan((sqrt(3) t - 1) / (sqrt(3) + t)) folds t into [-tan(pi/12),
 * tan(pi/12)], where the Taylor series to t^15 is within 1e-10 of it. */
CO_HD float
co_atanf (float x)
{
  const float sqrt3 = 1.7320508075688772f, tan15 = 0.2679491924311227f;
  int inverted = x > 1.0f, shifted;
  float t = inverted ? 1.0f / x : x, t2, s, a;

  shifted = t > tan15;
  if (shifted)
    t = (sqrt3 * t - 1.0f) / (sqrt3 + t);
  t2 = t * t;
  s = 1.0f / 15.0f;
  s = 1.0f / 13.0f - t2 * s;
  s = 1.0f / 11.0f - t2 * s;
  s = 1.0f / 9.0f - t2 * s;
  s = 1.0f / 7.0f - t2 * s;
  s = 1.0f / 5.0f - t2 * s;
  s = 1.0f / 3.0f - t2 * s;
  a = t - t * t2 * s;
  if (shifted)
    a = 0.5235987755982988f + a;
  return inverted ? 1.5707963267948966f - a : a;
}

/* The normalised point (x, y) through the lens, then K: OpenCV's
 * initUndistortRectifyMap (pinhole) or fisheye::initUndistortRectifyMap. */
CO_HD void
co_camera_distort (const CoCameraParams * p, float x, float y, float *sx,
    float *sy)
{
  float xd, yd;

  if (p->model == CO_CAMERA_FISHEYE) {
    float r = sqrtf (x * x + y * y), th = co_atanf (r), th2 = th * th;
    float thd = th * (1.0f + th2 * (p->k1 + th2 * (p->k2 + th2 * (p->k3 +
                    th2 * p->k4))));
    float scale = r == 0.0f ? 1.0f : thd / r;
    xd = x * scale;
    yd = y * scale;
  } else {
    float x2 = x * x, y2 = y * y, r2 = x2 + y2, xy2 = 2.0f * x * y;
    float kr = 1.0f + ((p->k3 * r2 + p->k2) * r2 + p->k1) * r2;
    if (p->rational)
      kr = kr / (1.0f + ((p->k6 * r2 + p->k5) * r2 + p->k4) * r2);
    xd = x * kr + p->p1 * xy2 + p->p2 * (r2 + 2.0f * x2);
    yd = y * kr + p->p1 * (r2 + 2.0f * y2) + p->p2 * xy2;
    if (p->prism) {
      xd = xd + p->s1 * r2 + p->s2 * r2 * r2;
      yd = yd + p->s3 * r2 + p->s4 * r2 * r2;
    }
    if (p->tilt) {
      const float *m = p->tilt_m;
      float X = m[0] * xd + m[1] * yd + m[2];
      float Y = m[3] * xd + m[4] * yd + m[5];
      float W = m[6] * xd + m[7] * yd + m[8];
      float iw = W != 0.0f ? 1.0f / W : 1.0f;
      xd = iw * X;
      yd = iw * Y;
    }
  }
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
/* The same for a w x h frame from settings in which a focal length of 0
 * and a negative principal point mean the defaults (cudalensdistort's and
 * cudaaberration's properties): fx the width, fy fx, the frame's centre
 * ((w - 1) / 2, (h - 1) / 2). */
void co_camera_init_frame (CoCamera * cam, int w, int h, double fx,
    double fy, double cx, double cy);
/* P = [new_k | 0] from {fx, fy, cx, cy}. */
void co_camera_set_new_camera (CoCamera * cam, const double new_k[4]);
/* Whether the model is known, and a fisheye camera sets only k1..k4. */
int co_camera_is_supported (const CoCamera * cam);
/* The floats both backends use. */
void co_camera_params_init (CoCameraParams * p, const CoCamera * cam);
/* cv::getOptimalNewCameraMatrix for an image of the same size (R = I):
 * alpha 0 keeps only valid pixels, 1 keeps every source pixel.  Returns 0
 * when the distortion folds the border over (no usable rectangle). */
int co_camera_optimal_new_camera (const CoCamera * cam, int width,
    int height, double alpha, double new_k[4]);
/* cv::fisheye::estimateNewCameraMatrixForUndistortRectify (the camera's
 * R, the same size): @balance 0 keeps only valid pixels, 1 the whole field
 * between the border's midpoints; @fov_scale above 1 zooms out.  Returns 0
 * when the border does not undistort to a usable rectangle. */
int co_camera_fisheye_new_camera (const CoCamera * cam, int width,
    int height, double balance, double fov_scale, double new_k[4]);

#ifdef __cplusplus
}
#endif
#endif /* CO_CAMERA_H */
