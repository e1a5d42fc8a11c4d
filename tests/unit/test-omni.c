/* cudaoptics — LGPL-2.1-or-later
 *
 * The spherical-mirror model of kernels/omni_mirror.h: the reflection
 * condition G vanishes on traced rays; Newton-Raphson with the paper's
 * initial-guess propagation (each row from the previous one) converges in
 * a few iterations over a wide parameter range, and its solutions map back
 * through the closed-form backward model onto the cylinder they came from
 * (residual under 1e-3 of an output pixel); so do the element's per-cell
 * solves of cylinder, cuboid and floor windows; points the mirror cannot
 * see are reported, not solved into garbage.
 */
#include <glib.h>
#include <math.h>
#include <string.h>
#include "omni_mirror.h"

static void
test_g_vanishes_on_rays (void)
{
  const CoMirror m = { 30.0, 150.0, 800.0 };
  double limb = co_mirror_limb (&m);
  int i, j;

  for (i = 1; i < 40; i++) {
    double rho_i = limb * i / 40.0, mr = 0, mz = 0, dr = 0, dz = 0, dg;
    g_assert_true (co_mirror_ray (&m, rho_i, &mr, &mz, &dr, &dz));
    /* Eq. 2 gives the image radius back */
    g_assert_cmpfloat (fabs (co_mirror_image_radius (&m, mr) - rho_i), <,
        1e-9 * limb);
    for (j = 1; j < 5; j++) {
      double t = pow (10.0, j), pw = mr + t * dr, zw = mz + t * dz;
      double g = co_mirror_g (&m, mr, pw, zw, &dg);
      /* G is a difference of terms of size R^2 h |W|: relative zero */
      g_assert_cmpfloat (fabs (g), <, 1e-9 * m.R * m.R * m.h *
          (fabs (pw) + fabs (zw)));
    }
  }
  {
    double mr, mz, dr, dz;
    g_assert_false (co_mirror_ray (&m, limb * 1.01, &mr, &mz, &dr, &dz));
  }
}

/* The squared reflection condition of kernels/omni_mirror.h.  Writing
 * G = A(r) + z_m B(r) (A quadratic, B linear in the mirror point's r) and
 * squaring away z_m = sqrt(R^2 - r^2) gives Q(r) = A^2 - (R^2 - r^2) B^2,
 * a polynomial in r whose r^4 coefficient is 4 h^2 (rho_w^2 + z_w^2) > 0:
 * degree 4, as the header says (the reflection point on a sphere is a
 * quartic, Alhazen's problem).  Q vanishes at every traced mirror point;
 * a model off by 1% in h leaves residuals far above the bound.  This is
 * the element's own derivation, not the paper's Eq. 1, whose printed text
 * was not available to compare with. */
static double
squared_g_residual (const CoMirror * m, double r, double pw, double zw,
    double *c4)
{
  double R2 = m->R * m->R, h = m->h;
  double a0 = -R2 * h * pw, a1 = -R2 * (h + zw), a2 = 2.0 * h * pw;
  double b0 = R2 * pw, b1 = 2.0 * h * zw;
  double c[5], q = 0.0, scale = 0.0;
  int k;

  c[0] = a0 * a0 - R2 * b0 * b0;
  c[1] = 2.0 * a0 * a1 - 2.0 * R2 * b0 * b1;
  c[2] = a1 * a1 + 2.0 * a0 * a2 - R2 * b1 * b1 + b0 * b0;
  c[3] = 2.0 * a1 * a2 + 2.0 * b0 * b1;
  c[4] = a2 * a2 + b1 * b1;
  for (k = 4; k >= 0; k--) {
    q = q * r + c[k];
    scale += fabs (c[k]) * pow (r, k);
  }
  *c4 = c[4];
  return fabs (q) / scale;
}

static void
test_squared_g_quartic (void)
{
  const CoMirror m = { 30.0, 150.0, 800.0 }, off = { 30.0, 151.5, 800.0 };
  double limb = co_mirror_limb (&m), worst = 0.0, least_off = 1.0;
  int i, j;

  for (i = 1; i < 40; i++) {
    double rho_i = limb * i / 40.0;
    for (j = 1; j < 5; j++) {
      double t = pow (10.0, j), mr = 0, mz = 0, dr = 0, dz = 0, c4, res;
      double pw, zw;

      g_assert_true (co_mirror_ray (&m, rho_i, &mr, &mz, &dr, &dz));
      pw = mr + t * dr;
      zw = mz + t * dz;
      res = squared_g_residual (&m, mr, pw, zw, &c4);
      g_assert_cmpfloat (fabs (c4 - 4.0 * m.h * m.h * (pw * pw + zw * zw)),
          <=, 1e-12 * c4);
      worst = MAX (worst, res);
      /* the same image radius traced through a camera 1% further away */
      g_assert_true (co_mirror_ray (&off, rho_i, &mr, &mz, &dr, &dz));
      least_off = MIN (least_off, squared_g_residual (&m, mr, mr + t * dr,
              mz + t * dz, &c4));
    }
  }
  g_test_message ("quartic: worst relative residual %.3g on traced points, "
      "least %.3g with h off by 1%%", worst, least_off);
  g_assert_cmpfloat (worst, <, 1e-12);
  g_assert_cmpfloat (least_off, >, 1e-8);
}

/* One column of a cylinder panorama between two image radii, solved row
 * by row from the previous row's root; returns the worst round trip. */
static double
solve_column (const CoMirror * m, double D, double rho_a, double rho_b,
    int *max_iter, int *failures)
{
  double za = 0, zb = 0, ra = 0, rb = 0, top, r, span, worst = 0.0;
  int v, H;

  g_assert_true (co_mirror_cylinder_z (m, D, rho_a, &za, &ra));
  g_assert_true (co_mirror_cylinder_z (m, D, rho_b, &zb, &rb));
  top = za > zb ? za : zb;
  r = za > zb ? ra : rb;
  span = fabs (za - zb);
  H = (int) span;
  g_assert_cmpint (H, >, 0);
  for (v = 0; v < H; v++) {
    double zw = top - (v + 0.5) * span / H, z2 = 0, r2 = 0;
    int it = co_mirror_solve (m, D, zw, &r);
    if (it < 0) {
      (*failures)++;
      continue;
    }
    *max_iter = MAX (*max_iter, it);
    g_assert_true (co_mirror_cylinder_z (m, D, co_mirror_image_radius (m, r),
            &z2, &r2));
    worst = MAX (worst, fabs (z2 - zw));
  }
  return worst;
}

static void
test_round_trip (void)
{
  const double Rs[] = { 10.0, 30.0, 100.0 }, hr[] = { 1.5, 3.0, 8.0 };
  const double fs[] = { 300.0, 800.0, 2000.0 }, Ds[] = { 60.0, 229.0, 900.0 };
  int a, b, c, d, max_iter = 0, failures = 0, cases = 0;
  double worst = 0.0;

  for (a = 0; a < 3; a++)
    for (b = 0; b < 3; b++)
      for (c = 0; c < 3; c++)
        for (d = 0; d < 3; d++) {
          CoMirror m = { Rs[a], Rs[a] * hr[b], fs[c] };
          double limb = co_mirror_limb (&m);
          /* a window between 10% and 95% of the mirror's image radius */
          worst = MAX (worst, solve_column (&m, Ds[d] * Rs[a] / 10.0,
                  0.1 * limb, 0.95 * limb, &max_iter, &failures));
          cases++;
        }
  g_test_message ("%d geometries: worst round trip %.3g output pixels, "
      "at most %d Newton iterations", cases, worst, max_iter);
  g_assert_cmpint (failures, ==, 0);
  g_assert_cmpfloat (worst, <, 1e-3);
  g_assert_cmpint (max_iter, <=, 8);
}

/* The element's way (every cell on its own from the window's two
 * closed-form points): over the same geometries, every row of a cylinder
 * window, cuboid cells out to a face's corner, and the floor between the
 * window's two distances, mapped back through the closed-form model, land
 * where they came from (1e-3 of a unit, one unit being an output pixel). */
static void
test_round_trip_cells (void)
{
  const double Rs[] = { 10.0, 30.0, 100.0 }, hr[] = { 1.5, 3.0, 8.0 };
  const double fs[] = { 300.0, 800.0, 2000.0 }, Ds[] = { 60.0, 229.0, 900.0 };
  int a, b, c, d, k, v, cells = 0, failures = 0;
  double worst = 0.0;

  for (a = 0; a < 3; a++)
    for (b = 0; b < 3; b++)
      for (c = 0; c < 3; c++)
        for (d = 0; d < 3; d++) {
          CoOmniRows w;
          double limb, D = Ds[d] * Rs[a] / 10.0, r_out, z2 = 0, r2 = 0;

          memset (&w, 0, sizeof w);
          w.m.R = Rs[a];
          w.m.h = Rs[a] * hr[b];
          w.m.f = fs[c];
          limb = co_mirror_limb (&w.m);

          /* cylinder and cuboid: the window 10%..95% of the image radius */
          w.ys = D;
          g_assert_true (co_mirror_cylinder_z (&w.m, D, 0.95 * limb, &w.w0,
                  &w.r0));
          g_assert_true (co_mirror_cylinder_z (&w.m, D, 0.1 * limb, &w.w1,
                  &w.r1));
          for (k = 0; k <= 8; k++) {
            double ax = D * k / 8.0, pw = sqrt (D * D + ax * ax);
            for (v = 0; v < 64; v++) {
              float t = (v + 0.5f) / 64.0f, rho;
              double root = -1.0, zw = w.w0 + (w.w1 - w.w0) * t;
              cells++;
              if (!co_omni_solve_cell (&w, ax, t, &root, &rho)) {
                failures++;
                continue;
              }
              /* the ray seen there meets the vertical plane at distance pw */
              g_assert_true (co_mirror_cylinder_z (&w.m, pw,
                      co_mirror_image_radius (&w.m, root), &z2, &r2));
              worst = MAX (worst, fabs (z2 - zw));
            }
          }
          /* ground: a floor 2 to 6 mirror distances away, the window from
           * 5% of the image radius to where the rays still fall steeply */
          w.ys = w.m.h * (2.0 + 4.0 * d / 2.0);
          for (r_out = 0.9 * limb; r_out > 0.1 * limb; r_out -= 0.01 * limb)
            if (co_mirror_ground_rho (&w.m, w.ys, r_out, &w.w0, &w.r0) &&
                w.w0 < 20.0 * w.ys)
              break;
          g_assert_true (co_mirror_ground_rho (&w.m, w.ys, 0.05 * limb, &w.w1,
                  &w.r1));
          g_assert_cmpfloat (w.w0, >, w.w1);
          for (v = 0; v < 200; v++) {
            double pw = w.w1 + (w.w0 - w.w1) * (v + 0.5) / 200, rr = 0;
            double root = w.r0 + (w.r1 - w.r0) * ((pw - w.w0) / (w.w1 - w.w0));
            float rho;
            cells++;
            if (!co_omni_solve_point (&w, pw, w.ys, &root, &rho)) {
              failures++;
              continue;
            }
            g_assert_true (co_mirror_ground_rho (&w.m, w.ys,
                    co_mirror_image_radius (&w.m, root), &rr, &r2));
            worst = MAX (worst, fabs (rr - pw));
          }
        }
  g_test_message ("%d cells: worst round trip %.3g units, %d failures",
      cells, worst, failures);
  g_assert_cmpint (failures, ==, 0);
  g_assert_cmpfloat (worst, <, 1e-3);
}

/* A point the mirror cannot reflect into the camera (inside the sphere,
 * or behind the reflecting side) is reported, and the guess kept. */
static void
test_not_visible (void)
{
  const CoMirror m = { 30.0, 150.0, 800.0 };
  double r = 29.999;

  /* inside the sphere */
  g_assert_cmpint (co_mirror_solve (&m, 5.0, 0.0, &r), <, 0);
  g_assert_cmpfloat (r, ==, 29.999);
  /* straight above the camera: only the axis reflects it, at r = 0 */
  g_assert_cmpint (co_mirror_solve (&m, 0.0, 500.0, &r), <, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/omni/g-vanishes-on-rays", test_g_vanishes_on_rays);
  g_test_add_func ("/omni/squared-g-quartic", test_squared_g_quartic);
  g_test_add_func ("/omni/round-trip", test_round_trip);
  g_test_add_func ("/omni/round-trip-cells", test_round_trip_cells);
  g_test_add_func ("/omni/not-visible", test_not_visible);
  return g_test_run ();
}
