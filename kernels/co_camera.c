/* cudaoptics — LGPL-2.1-or-later
 *
 * Host-side set-up of the camera model (co_camera.h): defaults, the floats
 * both backends evaluate, and cv::getOptimalNewCameraMatrix.  Plain C and
 * libm only: the calibration reader and its fuzz targets link it alone.
 */
#include <math.h>
#include <string.h>
#include "co_camera.h"

void
co_camera_init (CoCamera * cam, double fx, double fy, double cx, double cy)
{
  double k[4] = { fx, fy, cx, cy };

  memset (cam, 0, sizeof (*cam));
  cam->model = CO_CAMERA_PINHOLE;
  cam->fx = fx;
  cam->fy = fy;
  cam->cx = cx;
  cam->cy = cy;
  cam->r[0] = cam->r[4] = cam->r[8] = 1.0;
  co_camera_set_new_camera (cam, k);
}

void
co_camera_init_frame (CoCamera * cam, int w, int h, double fx, double fy,
    double cx, double cy)
{
  const double f = fx > 0 ? fx : w;

  co_camera_init (cam, f, fy > 0 ? fy : f, cx >= 0 ? cx : (w - 1) * 0.5,
      cy >= 0 ? cy : (h - 1) * 0.5);
  cam->image_width = w;
  cam->image_height = h;
}

void
co_camera_set_new_camera (CoCamera * cam, const double new_k[4])
{
  memset (cam->p, 0, sizeof (cam->p));
  cam->p[0] = new_k[0];
  cam->p[2] = new_k[2];
  cam->p[5] = new_k[1];
  cam->p[6] = new_k[3];
  cam->p[10] = 1.0;
}

int
co_camera_is_supported (const CoCamera * cam)
{
  int i;

  if (cam->model == CO_CAMERA_PINHOLE)
    return 1;
  if (cam->model != CO_CAMERA_FISHEYE)
    return 0;
  for (i = 0; i < CO_CAMERA_N_DIST; i++)
    if (cam->dist[i] != 0.0 && i != CO_DIST_K1 && i != CO_DIST_K2 &&
        i != CO_DIST_K3 && i != CO_DIST_K4)
      return 0;
  return 1;
}

/* OpenCV's computeTiltProjectionMatrix(tauX, tauY): the sensor's tilt as
 * a projective map of the distorted normalised point. */
static void
tilt_matrix (double tau_x, double tau_y, double m[9])
{
  const double cx = cos (tau_x), sx = sin (tau_x);
  const double cy = cos (tau_y), sy = sin (tau_y);
  /* R = Ry(tau_y) Rx(tau_x) */
  const double r[9] = { cy, sy * sx, -sy * cx, 0.0, cx, sx, sy, -cy * sx,
    cy * cx
  };
  /* projection onto z = 1 along the tilted axis, times R */
  const double pz[9] = { r[8], 0.0, -r[2], 0.0, r[8], -r[5], 0.0, 0.0, 1.0 };
  int i, j;

  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++)
      m[i * 3 + j] = pz[i * 3] * r[j] + pz[i * 3 + 1] * r[3 + j] +
          pz[i * 3 + 2] * r[6 + j];
}

/* 3x3 inverse by cofactors; 0 when singular */
static int
invert3 (const double m[9], double out[9])
{
  double c0 = m[4] * m[8] - m[5] * m[7];
  double c1 = m[5] * m[6] - m[3] * m[8];
  double c2 = m[3] * m[7] - m[4] * m[6];
  double det = m[0] * c0 + m[1] * c1 + m[2] * c2, id;

  if (!(fabs (det) > 0.0) || !isfinite (det))
    return 0;
  id = 1.0 / det;
  out[0] = c0 * id;
  out[1] = (m[2] * m[7] - m[1] * m[8]) * id;
  out[2] = (m[1] * m[5] - m[2] * m[4]) * id;
  out[3] = c1 * id;
  out[4] = (m[0] * m[8] - m[2] * m[6]) * id;
  out[5] = (m[2] * m[3] - m[0] * m[5]) * id;
  out[6] = c2 * id;
  out[7] = (m[1] * m[6] - m[0] * m[7]) * id;
  out[8] = (m[0] * m[4] - m[1] * m[3]) * id;
  return 1;
}

void
co_camera_params_init (CoCameraParams * p, const CoCamera * cam)
{
  const double *r = cam->r, *pp = cam->p;
  int identity_r = r[0] == 1.0 && r[1] == 0.0 && r[2] == 0.0 &&
      r[3] == 0.0 && r[4] == 1.0 && r[5] == 0.0 &&
      r[6] == 0.0 && r[7] == 0.0 && r[8] == 1.0;
  int plain_p = pp[1] == 0.0 && pp[4] == 0.0 && pp[8] == 0.0 &&
      pp[9] == 0.0 && pp[10] == 1.0;
  const double *d = cam->dist;

  memset (p, 0, sizeof (*p));
  p->model = cam->model == CO_CAMERA_FISHEYE ? CO_CAMERA_FISHEYE :
      CO_CAMERA_PINHOLE;
  p->fx = (float) cam->fx;
  p->fy = (float) cam->fy;
  p->cx = (float) cam->cx;
  p->cy = (float) cam->cy;
  p->k1 = (float) d[CO_DIST_K1];
  p->k2 = (float) d[CO_DIST_K2];
  p->k3 = (float) d[CO_DIST_K3];
  p->k4 = (float) d[CO_DIST_K4];
  if (p->model == CO_CAMERA_PINHOLE) {
    double m[9];
    int i;

    p->p1 = (float) d[CO_DIST_P1];
    p->p2 = (float) d[CO_DIST_P2];
    p->k5 = (float) d[CO_DIST_K5];
    p->k6 = (float) d[CO_DIST_K6];
    p->s1 = (float) d[CO_DIST_S1];
    p->s2 = (float) d[CO_DIST_S2];
    p->s3 = (float) d[CO_DIST_S3];
    p->s4 = (float) d[CO_DIST_S4];
    p->rational = d[CO_DIST_K4] != 0.0 || d[CO_DIST_K5] != 0.0 ||
        d[CO_DIST_K6] != 0.0;
    p->prism = d[CO_DIST_S1] != 0.0 || d[CO_DIST_S2] != 0.0 ||
        d[CO_DIST_S3] != 0.0 || d[CO_DIST_S4] != 0.0;
    p->tilt = d[CO_DIST_TAUX] != 0.0 || d[CO_DIST_TAUY] != 0.0;
    tilt_matrix (d[CO_DIST_TAUX], d[CO_DIST_TAUY], m);
    for (i = 0; i < 9; i++)
      p->tilt_m[i] = (float) m[i];
  }
  p->ifx = (float) (1.0 / pp[0]);
  p->ify = (float) (1.0 / pp[5]);
  p->ncx = (float) pp[2];
  p->ncy = (float) pp[6];
  if (!identity_r || !plain_p) {
    /* (P R)^-1 with P's left 3x3, as cv::initUndistortRectifyMap */
    double m[9], ir[9];
    int i, j;

    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++)
        m[i * 3 + j] = pp[i * 4] * r[j] + pp[i * 4 + 1] * r[3 + j] +
            pp[i * 4 + 2] * r[6 + j];
    p->rectify = 1;
    /* a singular P R maps nothing: W = 0 everywhere */
    if (invert3 (m, ir))
      for (i = 0; i < 9; i++)
        p->ir[i] = (float) ir[i];
  }
}

/* cv::undistortPoints into normalised coordinates, with its default five
 * fixed-point iterations, for the whole coefficient vector @d (the tilt
 * undone first, as OpenCV does). */
static void
undistort_point (const double k[4], const double d[CO_CAMERA_N_DIST],
    double u, double v, double *ox, double *oy)
{
  double x0 = (u - k[2]) / k[0], y0 = (v - k[3]) / k[1], x, y;
  int i;

  if (d[CO_DIST_TAUX] != 0.0 || d[CO_DIST_TAUY] != 0.0) {
    double m[9], im[9], X, Y, W;
    tilt_matrix (d[CO_DIST_TAUX], d[CO_DIST_TAUY], m);
    if (invert3 (m, im)) {
      X = im[0] * x0 + im[1] * y0 + im[2];
      Y = im[3] * x0 + im[4] * y0 + im[5];
      W = im[6] * x0 + im[7] * y0 + im[8];
      W = W != 0.0 ? 1.0 / W : 1.0;
      x0 = X * W;
      y0 = Y * W;
    }
  }
  x = x0;
  y = y0;
  for (i = 0; i < 5; i++) {
    double r2 = x * x + y * y;
    double icdist = (1.0 + ((d[CO_DIST_K6] * r2 + d[CO_DIST_K5]) * r2 +
            d[CO_DIST_K4]) * r2) / (1.0 + ((d[CO_DIST_K3] * r2 +
                d[CO_DIST_K2]) * r2 + d[CO_DIST_K1]) * r2);
    double dx = 2.0 * d[CO_DIST_P1] * x * y + d[CO_DIST_P2] * (r2 +
        2.0 * x * x) + d[CO_DIST_S1] * r2 + d[CO_DIST_S2] * r2 * r2;
    double dy = d[CO_DIST_P1] * (r2 + 2.0 * y * y) + 2.0 * d[CO_DIST_P2] *
        x * y + d[CO_DIST_S3] * r2 + d[CO_DIST_S4] * r2 * r2;
    if (icdist < 0) {
      x = x0;
      y = y0;
      break;
    }
    x = (x0 - dx) * icdist;
    y = (y0 - dy) * icdist;
  }
  *ox = x;
  *oy = y;
}

/* cv::fisheye::undistortPoints of pixel (u, v) into normalised
 * coordinates: theta from theta_d by Newton's method (OpenCV's 10
 * iterations to 1e-8).  0 where it does not converge to a theta of the
 * same sign. */
static int
fisheye_undistort_point (const CoCamera * cam, double u, double v,
    double *ox, double *oy)
{
  const double *d = cam->dist;
  double x = (u - cam->cx) / cam->fx, y = (v - cam->cy) / cam->fy;
  double thd = sqrt (x * x + y * y), th, scale = 1.0;
  int i, converged = 0;

  thd = fmin (thd, 1.5707963267948966);
  th = thd;
  if (thd > 1e-8) {
    for (i = 0; i < 10; i++) {
      double t2 = th * th, t4 = t2 * t2, t6 = t4 * t2, t8 = t4 * t4;
      double fix = (th * (1.0 + d[CO_DIST_K1] * t2 + d[CO_DIST_K2] * t4 +
              d[CO_DIST_K3] * t6 + d[CO_DIST_K4] * t8) - thd) / (1.0 +
          3.0 * d[CO_DIST_K1] * t2 + 5.0 * d[CO_DIST_K2] * t4 +
          7.0 * d[CO_DIST_K3] * t6 + 9.0 * d[CO_DIST_K4] * t8);
      th -= fix;
      if (fabs (fix) < 1e-8) {
        converged = 1;
        break;
      }
    }
    scale = tan (th) / thd;
  } else {
    converged = 1;
  }
  *ox = x * scale;
  *oy = y * scale;
  return converged && th >= 0.0 && isfinite (scale);
}

int
co_camera_fisheye_new_camera (const CoCamera * cam, int width, int height,
    double balance, double fov_scale, double new_k[4])
{
  /* the midpoints of the border's sides (integer halves, as OpenCV) */
  const double pu[4] = { width / 2, width, width / 2, 0 };
  const double pv[4] = { 0, height / 2, height, height / 2 };
  const double aspect = cam->fx / cam->fy;
  double px[4], py[4], cnx = 0.0, cny = 0.0, f[4], fmin_ = HUGE_VAL,
      fmax_ = -HUGE_VAL, fl;
  int i;

  balance = fmin (fmax (balance, 0.0), 1.0);
  for (i = 0; i < 4; i++) {
    const double *r = cam->r;
    double x, y, z;
    if (!fisheye_undistort_point (cam, pu[i], pv[i], &x, &y))
      return 0;
    /* through R, as cv::fisheye::undistortPoints(K, D, R) */
    z = r[6] * x + r[7] * y + r[8];
    if (!(z > 0.0))
      return 0;
    px[i] = (r[0] * x + r[1] * y + r[2]) / z;
    py[i] = (r[3] * x + r[4] * y + r[5]) / z;
    /* in units of x (OpenCV 4.7 and later; until 4.6 it scaled the
     * centre's x instead, a bug it fixed: opencv#22537) */
    py[i] *= aspect;
    cnx += px[i] / 4.0;
    cny += py[i] / 4.0;
  }
  f[0] = width * 0.5 / (cnx - fmin (fmin (px[0], px[1]), fmin (px[2],
              px[3])));
  f[1] = width * 0.5 / (fmax (fmax (px[0], px[1]), fmax (px[2], px[3])) -
      cnx);
  f[2] = height * 0.5 * aspect / (cny - fmin (fmin (py[0], py[1]),
          fmin (py[2], py[3])));
  f[3] = height * 0.5 * aspect / (fmax (fmax (py[0], py[1]), fmax (py[2],
              py[3])) - cny);
  for (i = 0; i < 4; i++) {
    fmin_ = fmin (fmin_, f[i]);
    fmax_ = fmax (fmax_, f[i]);
  }
  fl = balance * fmin_ + (1.0 - balance) * fmax_;
  if (fov_scale > 0.0)
    fl /= fov_scale;
  new_k[0] = fl;
  new_k[1] = fl / aspect;
  new_k[2] = -cnx * fl + width * 0.5;
  new_k[3] = (-cny * fl + height * aspect * 0.5) / aspect;
  return isfinite (new_k[0]) && isfinite (new_k[1]) && isfinite (new_k[2])
      && isfinite (new_k[3]) && new_k[0] > 0 && new_k[1] > 0;
}

int
co_camera_optimal_new_camera (const CoCamera * cam, int width, int height,
    double alpha, double new_k[4])
{
  const int n = 9;
  const double k[4] = { cam->fx, cam->fy, cam->cx, cam->cy };
  const double *dist = cam->dist;
  double ix0 = -HUGE_VAL, ix1 = HUGE_VAL, iy0 = -HUGE_VAL, iy1 = HUGE_VAL;
  double ox0 = HUGE_VAL, ox1 = -HUGE_VAL, oy0 = HUGE_VAL, oy1 = -HUGE_VAL;
  double fx0, fy0, fx1, fy1;
  int x, y;

  /* the inscribed and circumscribed rectangles of the undistorted border */
  for (y = 0; y < n; y++) {
    for (x = 0; x < n; x++) {
      double px, py;
      undistort_point (k, dist, (double) x * (width - 1) / (n - 1),
          (double) y * (height - 1) / (n - 1), &px, &py);
      ox0 = fmin (ox0, px);
      ox1 = fmax (ox1, px);
      oy0 = fmin (oy0, py);
      oy1 = fmax (oy1, py);
      if (x == 0)
        ix0 = fmax (ix0, px);
      if (x == n - 1)
        ix1 = fmin (ix1, px);
      if (y == 0)
        iy0 = fmax (iy0, py);
      if (y == n - 1)
        iy1 = fmin (iy1, py);
    }
  }
  if (!(ix1 > ix0 && iy1 > iy0 && ox1 > ox0 && oy1 > oy0))
    return 0;
  fx0 = (width - 1) / (ix1 - ix0);
  fy0 = (height - 1) / (iy1 - iy0);
  fx1 = (width - 1) / (ox1 - ox0);
  fy1 = (height - 1) / (oy1 - oy0);
  new_k[0] = fx0 * (1 - alpha) + fx1 * alpha;
  new_k[1] = fy0 * (1 - alpha) + fy1 * alpha;
  new_k[2] = -fx0 * ix0 * (1 - alpha) - fx1 * ox0 * alpha;
  new_k[3] = -fy0 * iy0 * (1 - alpha) - fy1 * oy0 * alpha;
  return isfinite (new_k[0]) && isfinite (new_k[1]) && new_k[0] > 0
      && new_k[1] > 0;
}
