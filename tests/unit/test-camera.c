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
  cam.dist[CO_DIST_K4] = 0.1;
  g_assert_false (co_camera_is_supported (&cam));
  cam.dist[CO_DIST_K4] = 0;
  cam.dist[CO_DIST_TAUY] = 0.01;
  g_assert_false (co_camera_is_supported (&cam));
  cam.dist[CO_DIST_TAUY] = 0;

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
  return g_test_run ();
}
