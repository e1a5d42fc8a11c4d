/* cudaoptics — LGPL-2.1-or-later
 *
 * The camera model (kernels/co_camera.h): defaults, the floats both
 * backends evaluate (the identity-R path bit for bit as cudalensdistort
 * always computed it), and the rectification path against a
 * double-precision cv::initUndistortRectifyMap written out here.
 */
#include <math.h>
#include <string.h>
#include <glib.h>
#include "co_camera.h"

static void
test_defaults (void)
{
  CoCamera cam;
  CoCameraParams p;
  int i;

  co_camera_init (&cam, 500, 510, 319.5, 239.5);
  g_assert_cmpint (cam.model, ==, CO_CAMERA_PINHOLE);
  for (i = 0; i < 9; i++)
    g_assert_cmpfloat (cam.r[i], ==, (i % 4 == 0) ? 1.0 : 0.0);
  g_assert_cmpfloat (cam.p[0], ==, 500);
  g_assert_cmpfloat (cam.p[2], ==, 319.5);
  g_assert_cmpfloat (cam.p[5], ==, 510);
  g_assert_cmpfloat (cam.p[6], ==, 239.5);
  g_assert_cmpfloat (cam.p[10], ==, 1);
  g_assert_cmpfloat (cam.p[3], ==, 0);
  for (i = 0; i < CO_CAMERA_N_DIST; i++)
    g_assert_cmpfloat (cam.dist[i], ==, 0);
  g_assert_true (co_camera_is_supported (&cam));
  /* the whole pinhole vector; fisheye takes k1..k4 only */
  cam.dist[CO_DIST_TAUY] = 0.01;
  g_assert_true (co_camera_is_supported (&cam));
  cam.model = CO_CAMERA_FISHEYE;
  g_assert_false (co_camera_is_supported (&cam));
  cam.dist[CO_DIST_TAUY] = 0;
  cam.dist[CO_DIST_K4] = 0.01;
  g_assert_true (co_camera_is_supported (&cam));
  cam.dist[CO_DIST_P1] = 0.01;
  g_assert_false (co_camera_is_supported (&cam));
  cam.dist[CO_DIST_P1] = cam.dist[CO_DIST_K4] = 0;
  cam.model = 7;
  g_assert_false (co_camera_is_supported (&cam));
  cam.model = CO_CAMERA_PINHOLE;

  /* the plain path and its floats */
  co_camera_params_init (&p, &cam);
  g_assert_cmpint (p.rectify, ==, 0);
  g_assert_true (p.ifx == (float) (1.0 / 500));
  g_assert_true (p.ncy == (float) 239.5);
  /* a stereo baseline in P's fourth column moves no pixel */
  cam.p[3] = -42.0;
  co_camera_params_init (&p, &cam);
  g_assert_cmpint (p.rectify, ==, 0);
  /* skew or a rotation take the homography */
  cam.p[1] = 0.5;
  co_camera_params_init (&p, &cam);
  g_assert_cmpint (p.rectify, ==, 1);
}

/* The float pipeline is the historical one: same expression, same bits. */
static void
test_plain_path_bits (void)
{
  CoCamera cam;
  CoCameraParams p;
  double nk[4] = { 420.0, 415.0, 330.25, 228.75 };
  int u, v;

  co_camera_init (&cam, 500, 505, 319.5, 239.5);
  cam.dist[CO_DIST_K1] = -0.28;
  cam.dist[CO_DIST_K2] = 0.09;
  cam.dist[CO_DIST_P1] = 0.001;
  cam.dist[CO_DIST_P2] = -0.0007;
  cam.dist[CO_DIST_K3] = -0.01;
  co_camera_set_new_camera (&cam, nk);
  co_camera_params_init (&p, &cam);
  for (v = 0; v < 480; v += 7)
    for (u = 0; u < 640; u += 5) {
      const float k1 = (float) -0.28, k2 = (float) 0.09, k3 = (float) -0.01;
      const float p1 = (float) 0.001, p2 = (float) -0.0007;
      float sx = 0, sy = 0, x, y, x2, y2, r2, xy2, kr, xd, yd;
      g_assert_true (co_camera_map (&p, (float) u, (float) v, &sx, &sy));
      x = ((float) u - (float) nk[2]) * (float) (1.0 / nk[0]);
      y = ((float) v - (float) nk[3]) * (float) (1.0 / nk[1]);
      x2 = x * x;
      y2 = y * y;
      r2 = x2 + y2;
      xy2 = 2.0f * x * y;
      kr = 1.0f + ((k3 * r2 + k2) * r2 + k1) * r2;
      xd = x * kr + p1 * xy2 + p2 * (r2 + 2.0f * x2);
      yd = y * kr + p1 * (r2 + 2.0f * y2) + p2 * xy2;
      g_assert_true (sx == (float) 500 * xd + (float) 319.5);
      g_assert_true (sy == (float) 505 * yd + (float) 239.5);
    }
}

/* cv::initUndistortRectifyMap in double: iR = (P R)^-1. */
static void
reference_map (const CoCamera * c, double u, double v, double *sx, double *sy)
{
  double m[9], a, b, w, x, y, r2, kr, xd, yd, det, inv[9];
  const double *d = c->dist;
  int i, j;

  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++)
      m[i * 3 + j] = c->p[i * 4] * c->r[j] + c->p[i * 4 + 1] * c->r[3 + j] +
          c->p[i * 4 + 2] * c->r[6 + j];
  det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] -
      m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
  inv[0] = (m[4] * m[8] - m[5] * m[7]) / det;
  inv[1] = (m[2] * m[7] - m[1] * m[8]) / det;
  inv[2] = (m[1] * m[5] - m[2] * m[4]) / det;
  inv[3] = (m[5] * m[6] - m[3] * m[8]) / det;
  inv[4] = (m[0] * m[8] - m[2] * m[6]) / det;
  inv[5] = (m[2] * m[3] - m[0] * m[5]) / det;
  inv[6] = (m[3] * m[7] - m[4] * m[6]) / det;
  inv[7] = (m[1] * m[6] - m[0] * m[7]) / det;
  inv[8] = (m[0] * m[4] - m[1] * m[3]) / det;
  a = inv[0] * u + inv[1] * v + inv[2];
  b = inv[3] * u + inv[4] * v + inv[5];
  w = inv[6] * u + inv[7] * v + inv[8];
  x = a / w;
  y = b / w;
  r2 = x * x + y * y;
  kr = 1 + ((d[4] * r2 + d[1]) * r2 + d[0]) * r2;
  xd = x * kr + 2 * d[2] * x * y + d[3] * (r2 + 2 * x * x);
  yd = y * kr + d[2] * (r2 + 2 * y * y) + 2 * d[3] * x * y;
  *sx = c->fx * xd + c->cx;
  *sy = c->fy * yd + c->cy;
}

static void
test_rectification (void)
{
  CoCamera cam;
  CoCameraParams p;
  double t = 5.0 * G_PI / 180.0, s = 3.0 * G_PI / 180.0, worst = 0;
  double nk[4] = { 450.0, 450.0, 300.0, 250.0 };
  int u, v;

  co_camera_init (&cam, 500, 500, 319.5, 239.5);
  cam.dist[CO_DIST_K1] = -0.2;
  cam.dist[CO_DIST_K2] = 0.05;
  cam.dist[CO_DIST_P1] = 0.0005;
  /* R: 5 degrees about y, then 3 about x */
  cam.r[0] = cos (t);
  cam.r[1] = 0;
  cam.r[2] = sin (t);
  cam.r[3] = sin (s) * sin (t);
  cam.r[4] = cos (s);
  cam.r[5] = -sin (s) * cos (t);
  cam.r[6] = -cos (s) * sin (t);
  cam.r[7] = sin (s);
  cam.r[8] = cos (s) * cos (t);
  co_camera_set_new_camera (&cam, nk);
  co_camera_params_init (&p, &cam);
  g_assert_cmpint (p.rectify, ==, 1);
  for (v = 0; v < 480; v += 11)
    for (u = 0; u < 640; u += 13) {
      float sx = 0, sy = 0;
      double rx, ry;
      g_assert_true (co_camera_map (&p, (float) u, (float) v, &sx, &sy));
      reference_map (&cam, u, v, &rx, &ry);
      worst = MAX (worst, MAX (fabs (sx - rx), fabs (sy - ry)));
    }
  /* float against double, positions of a few hundred pixels */
  g_assert_cmpfloat (worst, <, 1e-2);

  /* identity R through the homography: the plain path within rounding */
  co_camera_init (&cam, 500, 500, 319.5, 239.5);
  cam.dist[CO_DIST_K1] = -0.2;
  cam.p[1] = 1e-300;            /* forces the homography, moves nothing */
  co_camera_params_init (&p, &cam);
  g_assert_cmpint (p.rectify, ==, 1);
  worst = 0;
  for (v = 0; v < 480; v += 11)
    for (u = 0; u < 640; u += 13) {
      float sx = 0, sy = 0;
      double rx, ry;
      g_assert_true (co_camera_map (&p, (float) u, (float) v, &sx, &sy));
      reference_map (&cam, u, v, &rx, &ry);
      worst = MAX (worst, MAX (fabs (sx - rx), fabs (sy - ry)));
    }
  g_assert_cmpfloat (worst, <, 1e-2);

  /* a ray behind the camera maps nowhere */
  co_camera_init (&cam, 500, 500, 319.5, 239.5);
  cam.r[0] = -1;
  cam.r[8] = -1;
  co_camera_params_init (&p, &cam);
  {
    float sx, sy;
    g_assert_false (co_camera_map (&p, 100, 100, &sx, &sy));
  }
}

/* co_atanf against libm's atan, over the whole range a map meets. */
static void
test_atan (void)
{
  double worst = 0;
  int i;

  g_assert_true (co_atanf (0.0f) == 0.0f);
  for (i = 0; i <= 200000; i++) {
    /* 0 .. 1e4, dense near 0 and 1 */
    float x = (float) (i < 100000 ? i * 2e-5 : exp ((i - 100000) * 9.21e-5));
    double e = fabs ((double) co_atanf (x) - atan ((double) x));
    worst = MAX (worst, e);
  }
  g_print ("co_atanf: worst |error| %.2e radians\n", worst);
  /* a few float ulps of pi/2 */
  g_assert_cmpfloat (worst, <, 5e-7);
}

/* OpenCV's pinhole distortion in double, written out from its
 * documentation (the tilt as rotations and a projection along the tilted
 * axis), for the float pipeline to be checked against. */
static void
reference_distort (const CoCamera * c, double x, double y, double *sx,
    double *sy)
{
  const double *d = c->dist;
  double r2 = x * x + y * y;
  double kr = (1 + ((d[CO_DIST_K3] * r2 + d[CO_DIST_K2]) * r2 +
          d[CO_DIST_K1]) * r2) / (1 + ((d[CO_DIST_K6] * r2 + d[CO_DIST_K5]) *
          r2 + d[CO_DIST_K4]) * r2);
  double xd = x * kr + 2 * d[CO_DIST_P1] * x * y + d[CO_DIST_P2] * (r2 +
      2 * x * x) + d[CO_DIST_S1] * r2 + d[CO_DIST_S2] * r2 * r2;
  double yd = y * kr + d[CO_DIST_P1] * (r2 + 2 * y * y) +
      2 * d[CO_DIST_P2] * x * y + d[CO_DIST_S3] * r2 + d[CO_DIST_S4] * r2 * r2;
  double tx = d[CO_DIST_TAUX], ty = d[CO_DIST_TAUY];
  /* the tilted sensor plane: rotate the ray by Ry(ty) Rx(tx), then
   * project it back along the rotated optical axis */
  double rx[9] = { 1, 0, 0, 0, cos (tx), sin (tx), 0, -sin (tx), cos (tx) };
  double ry[9] = { cos (ty), 0, -sin (ty), 0, 1, 0, sin (ty), 0, cos (ty) };
  double r[9], v[3], w[3];
  int i, j;

  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++)
      r[i * 3 + j] = ry[i * 3] * rx[j] + ry[i * 3 + 1] * rx[3 + j] +
          ry[i * 3 + 2] * rx[6 + j];
  v[0] = xd;
  v[1] = yd;
  v[2] = 1;
  for (i = 0; i < 3; i++)
    w[i] = r[i * 3] * v[0] + r[i * 3 + 1] * v[1] + r[i * 3 + 2] * v[2];
  /* projection matrix [r22 0 -r02; 0 r22 -r12; 0 0 1] */
  xd = (r[8] * w[0] - r[2] * w[2]) / w[2];
  yd = (r[8] * w[1] - r[5] * w[2]) / w[2];
  *sx = c->fx * xd + c->cx;
  *sy = c->fy * yd + c->cy;
}

static void
test_full_model (void)
{
  static const double vectors[][CO_CAMERA_N_DIST] = {
    /* k1 k2 p1 p2 k3 k4 k5 k6 s1 s2 s3 s4 tauX tauY */
    {0.8, -0.3, 0.001, -0.0005, 0.05, 1.1, -0.2, 0.1},
    {-0.25, 0.07, 0.0008, 0.0004, -0.01, 0, 0, 0, 0.002, -0.001, 0.0015,
        0.0005},
    {-0.25, 0.07, 0.0008, 0.0004, -0.01, 0.3, 0.02, 0, 0.002, -0.001,
        0.0015, 0.0005, 0.02, -0.03},
  };
  guint v;

  for (v = 0; v < G_N_ELEMENTS (vectors); v++) {
    CoCamera cam;
    CoCameraParams p;
    double worst = 0;
    int u, w;

    co_camera_init (&cam, 500, 490, 319.5, 239.5);
    memcpy (cam.dist, vectors[v], sizeof cam.dist);
    co_camera_params_init (&p, &cam);
    g_assert_cmpint (p.rational, ==, v != 1);
    g_assert_cmpint (p.prism, ==, v != 0);
    g_assert_cmpint (p.tilt, ==, v == 2);
    for (w = 0; w < 480; w += 7)
      for (u = 0; u < 640; u += 9) {
        float sx, sy;
        double rx, ry;
        g_assert_true (co_camera_map (&p, (float) u, (float) w, &sx, &sy));
        reference_distort (&cam, (u - 319.5) / 500, (w - 239.5) / 490, &rx,
            &ry);
        worst = MAX (worst, MAX (fabs (sx - rx), fabs (sy - ry)));
      }
    g_print ("full model %u: worst |float - double| %.2e pixels\n", v, worst);
    g_assert_cmpfloat (worst, <, 2e-3);
  }
}

static void
test_fisheye (void)
{
  CoCamera cam;
  CoCameraParams p;
  double worst = 0, nk[4], nk1[4];
  int u, v;

  co_camera_init (&cam, 290, 291, 321.3, 238.7);
  cam.model = CO_CAMERA_FISHEYE;
  cam.dist[CO_DIST_K1] = -0.013;
  cam.dist[CO_DIST_K2] = 0.041;
  cam.dist[CO_DIST_K3] = -0.037;
  cam.dist[CO_DIST_K4] = 0.0095;
  /* pinhole-only coefficients in the pinhole slots are not read */
  cam.dist[CO_DIST_P1] = 0.5;
  co_camera_params_init (&p, &cam);
  cam.dist[CO_DIST_P1] = 0;
  g_assert_cmpint (p.model, ==, CO_CAMERA_FISHEYE);
  g_assert_true (p.p1 == 0.0f);
  for (v = 0; v < 480; v += 7)
    for (u = 0; u < 640; u += 9) {
      float sx, sy;
      double x = (u - 321.3) / 290, y = (v - 238.7) / 291;
      double r = sqrt (x * x + y * y), th = atan (r), t2 = th * th;
      double thd = th * (1 + t2 * (-0.013 + t2 * (0.041 + t2 * (-0.037 +
                      t2 * 0.0095))));
      double sc = r > 0 ? thd / r : 1;
      g_assert_true (co_camera_map (&p, (float) u, (float) v, &sx, &sy));
      worst = MAX (worst, MAX (fabs (sx - (290 * x * sc + 321.3)),
              fabs (sy - (291 * y * sc + 238.7))));
    }
  g_print ("fisheye: worst |float - double| %.2e pixels\n", worst);
  g_assert_cmpfloat (worst, <, 1e-3);
  /* the centre maps to itself */
  {
    float sx, sy;
    co_camera_init (&cam, 290, 290, 320, 240);
    cam.model = CO_CAMERA_FISHEYE;
    co_camera_params_init (&p, &cam);
    g_assert_true (co_camera_map (&p, 320, 240, &sx, &sy));
    g_assert_true (sx == 320.0f && sy == 240.0f);
  }
  /* balance: 0 keeps valid pixels only (longer focal), 1 more field */
  co_camera_init (&cam, 290, 291, 321.3, 238.7);
  cam.model = CO_CAMERA_FISHEYE;
  cam.dist[CO_DIST_K1] = -0.013;
  cam.dist[CO_DIST_K2] = 0.041;
  g_assert_true (co_camera_fisheye_new_camera (&cam, 640, 480, 0.0, 1.0,
          nk));
  g_assert_true (co_camera_fisheye_new_camera (&cam, 640, 480, 1.0, 1.0,
          nk1));
  g_assert_cmpfloat (nk1[0], <, nk[0]);
  g_assert_cmpfloat_with_epsilon (nk[0] / nk[1], 290.0 / 291.0, 1e-12);
  g_assert_true (co_camera_fisheye_new_camera (&cam, 640, 480, 0.0, 2.0,
          nk1));
  g_assert_cmpfloat_with_epsilon (nk1[0], nk[0] / 2, 1e-9);
}

static void
test_optimal_new_camera (void)
{
  CoCamera cam;
  double nk0[4], nk1[4];

  co_camera_init (&cam, 500, 500, 319.5, 239.5);
  cam.dist[CO_DIST_K1] = -0.3;
  cam.dist[CO_DIST_K2] = 0.08;
  g_assert_true (co_camera_optimal_new_camera (&cam, 640, 480, 0.0, nk0));
  g_assert_true (co_camera_optimal_new_camera (&cam, 640, 480, 1.0, nk1));
  /* barrel: keeping every source pixel needs a shorter focal length */
  g_assert_cmpfloat (nk1[0], <, nk0[0]);
  g_assert_cmpfloat (nk1[1], <, nk0[1]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/camera/defaults", test_defaults);
  g_test_add_func ("/camera/plain-path-bits", test_plain_path_bits);
  g_test_add_func ("/camera/rectification", test_rectification);
  g_test_add_func ("/camera/optimal-new-camera", test_optimal_new_camera);
  g_test_add_func ("/camera/atan", test_atan);
  g_test_add_func ("/camera/full-model", test_full_model);
  g_test_add_func ("/camera/fisheye", test_fisheye);
  return g_test_run ();
}
