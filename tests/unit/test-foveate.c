/* cudaoptics — LGPL-2.1-or-later
 *
 * The foveation model of kernels/foveate_math.h: with the paper's
 * normalisation sigma = (e + e2) / (pi e2) whatever CT0 and alpha are; with
 * pixels-per-degree Geisler and Perry's cut-off in cycles per pixel, capped
 * at Nyquist; kernel sizes ceil (6 sigma) rounded up to odd.
 */
#include <glib.h>
#include <math.h>
#include "foveate_math.h"

static const CoFoveaModel paper = { 15.0f, 1.0f / 64, 0.106f, 2.3f, 0.0f,
  1.0f, 0.5f
};

static void
test_paper_normalisation (void)
{
  CoFoveaModel m = paper;
  float e, worst = 0.0f;
  int i;

  /* the algebra: CT0 and alpha cancel */
  for (i = 0; i < 3; i++) {
    m.ct0 = i == 0 ? 1.0f / 64 : i == 1 ? 0.01f : 0.2f;
    m.alpha = i == 2 ? 0.3f : 0.106f;
    for (e = 0.0f; e <= 60.0f; e += 0.25f) {
      float s = co_fovea_sigma (&m, e, logf (1.0f / m.ct0));
      float want = (e + 2.3f) / (CO_FOVEA_PI * 2.3f);
      worst = fmaxf (worst, fabsf (s - want) / want);
    }
  }
  g_assert_cmpfloat (worst, <, 1e-6);
  /* at the corner of the frame, e_corner */
  g_assert_cmpfloat (fabsf (co_fovea_eccentricity (&m, 1101.4f, 1101.4f) -
          15.0f), <, 1e-6);
  m.strength = 2.0f;
  g_assert_cmpfloat (fabsf (co_fovea_sigma (&m, 15.0f, 1.0f) - 2.0f *
          (17.3f / (CO_FOVEA_PI * 2.3f))), <, 1e-5);
}

static void
test_pixels_per_degree (void)
{
  CoFoveaModel m = paper;
  float ln_ct = logf (64.0f);

  m.ppd = 40.0f;
  /* e = d / ppd */
  g_assert_cmpfloat (co_fovea_eccentricity (&m, 400.0f, 1000.0f), ==, 10.0f);
  /* f_c (10 deg) = 2.3 / (0.106 * 12.3) ln 64 = 7.333 c/deg = 0.1833 c/px */
  {
    float f_c = 2.3f / (0.106f * 12.3f) * ln_ct;
    float s = co_fovea_sigma (&m, 10.0f, ln_ct);
    g_assert_cmpfloat (fabsf (s - 40.0f / (2 * CO_FOVEA_PI * f_c)), <, 1e-5);
  }
  /* the fovea: f_c (0) = 39.2 c/deg is above Nyquist at 40 px/deg */
  g_assert_cmpfloat (fabsf (co_fovea_sigma (&m, 0.0f, ln_ct) - 1.0f /
          CO_FOVEA_PI), <, 1e-6);
}

static void
test_radius (void)
{
  /* the paper's corner at the default 15 degrees: 15 taps */
  g_assert_cmpint (co_fovea_radius (17.3f / (CO_FOVEA_PI * 2.3f)), ==, 7);
  g_assert_cmpint (co_fovea_radius (2.5f), ==, 7);      /* 15 taps */
  g_assert_cmpint (co_fovea_radius (2.6f), ==, 8);      /* 16 -> 17 */
  g_assert_cmpint (co_fovea_radius (0.1f), ==, 0);
}

/* With a blur map and pixels-per-degree, the table reaches the sigma of
 * e_corner whatever the frame's size (a map value of 255 asks for it even
 * where the pixel distance is small). */
static void
test_map_levels (void)
{
  CoFoveaModel m = paper;
  const int sizes[][2] = { {64, 48}, {640, 480}, {4000, 3000} };
  int i;

  m.ppd = 40.0f;
  for (i = 0; i < 3; i++) {
    CoFovea f;
    float want;
    int need;
    co_fovea_plan (&f, &m, CO_FORMAT_GRAY8, sizes[i][0], sizes[i][1], 0.5,
        0.5, 16);
    want = co_fovea_sigma (&m, m.e_corner, f.ln_ct);
    need = (int) floorf (want * CO_FOVEA_Q + 0.5f);
    if (i == 0)
      /* pixel distances alone plan too few levels at this size */
      g_assert_cmpint (f.lo + f.n - 1, <, need);
    co_fovea_plan_map (&f);
    g_assert_cmpint (f.lo + f.n - 1, >=, need);
    g_assert_cmpint (f.rmax, ==, co_fovea_radius ((float) (f.lo + f.n - 1) /
            CO_FOVEA_Q));
  }
}

/* The paper's rules for the fovea: the fragment holding the fixation point is
 * copied at any strength (at strength >= 1.6 sigma is above min-sigma even
 * there), and min-sigma is compared with a fragment's true sigma, not with
 * the quantised level it rounds to. */
static void
test_fovea_copied (void)
{
  const float strengths[] = { 1.0f, 1.6f, 3.0f };
  const float min_sigmas[] = { 0.5f, 0.6f, 0.5f };
  int boundary = 0, t;

  for (t = 0; t < 3; t++) {
    CoFoveaModel m = paper;
    CoFovea f;
    int F, sx, sy, nx, ny, i, j, fixated = 0;
    int px, py;

    m.strength = strengths[t];
    m.min_sigma = min_sigmas[t];
    co_fovea_plan (&f, &m, CO_FORMAT_GRAY8, 640, 480, 0.3, 0.6, 16);
    px = (int) floorf (f.fx + 0.5f);
    py = (int) floorf (f.fy + 0.5f);
    co_fovea_tiling (&f, 0, 640, 480, &F, &sx, &sy, &nx, &ny);
    for (j = 0; j < ny; j++)
      for (i = 0; i < nx; i++) {
        int x0 = sx + i * F, y0 = sy + j * F;
        int level = co_fovea_level (&f, 0, F, x0, y0);
        float cx = (float) x0 + 0.5f * (float) (F - 1);
        float cy = (float) y0 + 0.5f * (float) (F - 1);
        float dx = cx - f.fx, dy = cy - f.fy;
        float sigma = fmaxf ((sqrtf (dx * dx + dy * dy) * f.ecc_per_px +
                m.e2) * f.sig_per_e, f.sig_min);
        gboolean holds = px >= x0 && px < x0 + F && py >= y0 && py < y0 + F;
        fixated += holds;
        if (holds)
          g_assert_cmpint (level, ==, -1);
        else
          g_assert_cmpint (level == -1, ==, sigma < m.min_sigma);
        if (!holds && sigma < m.min_sigma &&
            floorf (sigma * CO_FOVEA_Q + 0.5f) / CO_FOVEA_Q >= m.min_sigma)
          boundary++;
      }
    g_assert_cmpint (fixated, ==, 1);
  }
  /* fragments whose sigma rounds up to min-sigma's level were tried */
  g_assert_cmpint (boundary, >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/foveate/paper-normalisation", test_paper_normalisation);
  g_test_add_func ("/foveate/pixels-per-degree", test_pixels_per_degree);
  g_test_add_func ("/foveate/radius", test_radius);
  g_test_add_func ("/foveate/map-levels", test_map_levels);
  g_test_add_func ("/foveate/fovea-copied", test_fovea_copied);
  return g_test_run ();
}
