/* cudaoptics — LGPL-2.1-or-later
 *
 * tests/ssim.h, the SSIM of the foveation quality tests, against numbers
 * from an independent implementation: scikit-image's structural_similarity
 * (gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
 * data_range=255, channel_axis=2 for RGB, full=True), computed ONCE on
 * 2026-11-23 with scikit-image 0.19.3 (Debian 12 python3-skimage 0.19.3-8,
 * numpy 1.24.2, scipy 1.10.1) on exactly the synthetic images that
 * make_pattern / make_blurred / make_noisy below draw (written out as raw
 * bytes by the same code).  The region minima were computed from skimage's
 * full map with numpy, by ssim.h's region definition.  ssim.h agreed with
 * skimage to 1.3e-12 on every map pixel and 1.5e-14 on every mean, on these
 * and on natural images of tests/data/natural (grey and RGB, blurred and
 * noisy); the tolerance here, 1e-9, leaves room for other compilers and
 * libms and still catches any change of window, border, constants or crop
 * (those move the values by 1e-4 or more).
 */
#include <string.h>
#include <glib.h>
#include "../ssim.h"

#define TOL 1e-9

/* deterministic inputs: LCG (Numerical Recipes constants), top byte */
static guint
lcg (guint32 * s)
{
  *s = *s * 1664525u + 1013904223u;
  return *s >> 24;
}

/* Rings whose frequency grows outward, wrapping at 256 into sharp edges,
 * with a little noise: structure at several scales.  Integer arithmetic
 * only, so every platform draws the same bytes. */
static void
make_pattern (guint8 * p, int stride, int step, int w, int h, int phase)
{
  guint32 s = 12345u + phase;
  int x, y;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      int v = ((x * x + 2 * y * y + x * y + phase * 977) >> 5) & 255;
      v += (int) (lcg (&s) & 15) - 8;
      p[y * stride + x * step] = CLAMP (v, 0, 255);
    }
}

/* 3x3 box blur, edges clamped, rounded */
static void
make_blurred (const guint8 * p, guint8 * q, int stride, int step, int w,
    int h)
{
  int x, y, i, j;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      int sum = 0;
      for (j = -1; j <= 1; j++)
        for (i = -1; i <= 1; i++)
          sum += p[CLAMP (y + j, 0, h - 1) * stride
              + CLAMP (x + i, 0, w - 1) * step];
      q[y * stride + x * step] = (sum + 4) / 9;
    }
}

/* uniform noise in [-32, 31], clamped */
static void
make_noisy (const guint8 * p, guint8 * q, int stride, int step, int w, int h,
    guint32 seed)
{
  int x, y;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      int v = p[y * stride + x * step] + (int) (lcg (&seed) & 63) - 32;
      q[y * stride + x * step] = CLAMP (v, 0, 255);
    }
}

/* Grey 150x100 in rows of 152 bytes, RGB 130x75 in rows of 392 (padded
 * rows: skimage had them packed, so the strides are checked too).  Neither
 * size is a multiple of 64, so the last regions are clipped. */
#define GW 150
#define GH 100
#define GS 152
#define CW 130
#define CH 75
#define CS (CW * 3 + 2)

typedef struct
{
  const char *name;
  double mean, region_min;
  /* the map at (0,0), (w-1,0), (0,h-1), (w-1,h-1), (w/3,h/2): the corners
   * check the reflected borders, which the mean never sees; for RGB the
   * mean over the channels */
  double map[5];
} Expected;

/* skimage 0.19.3, 2026-11-23 (see the top of this file) */
static const Expected expected[] = {
  {"gray vs box blur", 0.88578816513193592, 0.87024069418148031,
      {0.96812766618751411, 0.9528632892301554, 0.95426124502058818,
          0.95171976850018536, 0.9509406425638065}},
  {"gray vs noise", 0.70423411643825728, 0.51476666615277644,
      {0.19047187222552459, 0.32684264806530833, 0.52449998983986079,
          0.66585382253842273, 0.544158216828593}},
  {"rgb vs box blur", 0.88710772523978321, 0.87488452436178654,
      {0.84261863489947286, 0.86249530026616961, 0.92463801700070147,
          0.94489852992518097, 0.79272532291794018}},
  {"rgb vs noise", 0.64018855758137361, 0.53513202659480341,
      {0.23926831698473702, 0.62596060148101118, 0.36815145269714761,
          0.68612337403076262, 0.76092797835803172}},
};

static void
check_map_points (const Expected * e, const guint8 * a, const guint8 * b,
    int stride, int step, int w, int h)
{
  const int px[5] = { 0, w - 1, 0, w - 1, w / 3 };
  const int py[5] = { 0, 0, h - 1, h - 1, h / 2 };
  double *map = g_new (double, w * h), got[5] = { 0, 0, 0, 0, 0 };
  int c, i;

  for (c = 0; c < step; c++) {
    co_ssim_map_channel (a + c, stride, b + c, stride, step, w, h, map);
    for (i = 0; i < 5; i++)
      got[i] += map[py[i] * w + px[i]] / step;
  }
  for (i = 0; i < 5; i++) {
    g_test_message ("%s: map (%d,%d) %.12f, skimage %.12f", e->name, px[i],
        py[i], got[i], e->map[i]);
    g_assert_cmpfloat_with_epsilon (got[i], e->map[i], TOL);
  }
  g_free (map);
}

static void
check (const Expected * e, double mean, double region_min)
{
  g_test_message ("%s: mean %.12f (skimage %.12f), region min %.12f "
      "(skimage %.12f)", e->name, mean, e->mean, region_min, e->region_min);
  g_assert_cmpfloat_with_epsilon (mean, e->mean, TOL);
  g_assert_cmpfloat_with_epsilon (region_min, e->region_min, TOL);
}

static void
test_against_skimage_gray (void)
{
  guint8 *a = g_malloc0 (GS * GH), *b = g_malloc0 (GS * GH);
  double rmin, mean;

  make_pattern (a, GS, 1, GW, GH, 0);
  make_blurred (a, b, GS, 1, GW, GH);
  mean = co_ssim_gray (a, GS, b, GS, GW, GH, &rmin);
  check (&expected[0], mean, rmin);
  check_map_points (&expected[0], a, b, GS, 1, GW, GH);

  make_noisy (a, b, GS, 1, GW, GH, 777u);
  mean = co_ssim_gray (a, GS, b, GS, GW, GH, &rmin);
  check (&expected[1], mean, rmin);
  check_map_points (&expected[1], a, b, GS, 1, GW, GH);
  g_free (a);
  g_free (b);
}

static void
test_against_skimage_rgb (void)
{
  guint8 *a = g_malloc0 (CS * CH), *b = g_malloc0 (CS * CH);
  guint8 *nb = g_malloc0 (CS * CH);
  double rmin, mean;
  int c;

  for (c = 0; c < 3; c++) {
    make_pattern (a + c, CS, 3, CW, CH, c + 1);
    make_blurred (a + c, b + c, CS, 3, CW, CH);
    make_noisy (a + c, nb + c, CS, 3, CW, CH, 900u + c);
  }
  mean = co_ssim_rgb (a, CS, b, CS, CW, CH, &rmin);
  check (&expected[2], mean, rmin);
  check_map_points (&expected[2], a, b, CS, 3, CW, CH);

  mean = co_ssim_rgb (a, CS, nb, CS, CW, CH, &rmin);
  check (&expected[3], mean, rmin);
  check_map_points (&expected[3], a, nb, CS, 3, CW, CH);
  g_free (a);
  g_free (b);
  g_free (nb);
}

/* RGBx (4 bytes a pixel, the fourth ignored) gives RGB's numbers exactly */
static void
test_rgbx (void)
{
  guint8 *a = g_malloc0 (CS * CH), *b = g_malloc0 (CS * CH);
  guint8 *ax = g_malloc (CW * 4 * CH), *bx = g_malloc (CW * 4 * CH);
  double r1, r2, m1, m2;
  int x, y, c;

  for (c = 0; c < 3; c++) {
    make_pattern (a + c, CS, 3, CW, CH, c + 1);
    make_blurred (a + c, b + c, CS, 3, CW, CH);
  }
  for (y = 0; y < CH; y++)
    for (x = 0; x < CW; x++) {
      for (c = 0; c < 3; c++) {
        ax[(y * CW + x) * 4 + c] = a[y * CS + x * 3 + c];
        bx[(y * CW + x) * 4 + c] = b[y * CS + x * 3 + c];
      }
      ax[(y * CW + x) * 4 + 3] = x;     /* padding that must not count */
      bx[(y * CW + x) * 4 + 3] = 255 - y;
    }
  m1 = co_ssim_rgb (a, CS, b, CS, CW, CH, &r1);
  m2 = co_ssim_interleaved (ax, CW * 4, bx, CW * 4, 4, 3, CW, CH, &r2);
  g_assert_cmpfloat (m1, ==, m2);
  g_assert_cmpfloat (r1, ==, r2);
  g_free (a);
  g_free (b);
  g_free (ax);
  g_free (bx);
}

/* The window is scipy's: radius int(3.5 * 1.5 + 0.5) = 5, sum 1,
 * symmetric, exp(-x^2 / 4.5) between taps. */
static void
test_kernel (void)
{
  double k[CO_SSIM_WIN], sum = 0;
  int i;

  g_assert_cmpint (CO_SSIM_RADIUS, ==, (int) (3.5 * 1.5 + 0.5));
  g_assert_cmpint (CO_SSIM_WIN, ==, 11);
  co_ssim_kernel (k);
  for (i = 0; i < CO_SSIM_WIN; i++) {
    sum += k[i];
    g_assert_cmpfloat (k[i], ==, k[CO_SSIM_WIN - 1 - i]);
  }
  g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-15);
  g_assert_cmpfloat_with_epsilon (k[6] / k[5], exp (-1.0 / 4.5), 1e-15);
  /* scipy's mode 'reflect' */
  g_assert_cmpint (co_ssim_reflect (-1, 10), ==, 0);
  g_assert_cmpint (co_ssim_reflect (-5, 10), ==, 4);
  g_assert_cmpint (co_ssim_reflect (10, 10), ==, 9);
  g_assert_cmpint (co_ssim_reflect (14, 10), ==, 5);
}

/* Identical images: 1 everywhere (exactly, in exact arithmetic) */
static void
test_identity (void)
{
  guint8 *a = g_malloc0 (GS * GH);
  double *map = g_new (double, GW * GH), rmin;
  int i;

  make_pattern (a, GS, 1, GW, GH, 3);
  co_ssim_map (a, GS, a, GS, GW, GH, map);
  for (i = 0; i < GW * GH; i++)
    g_assert_cmpfloat_with_epsilon (map[i], 1.0, 1e-14);
  g_assert_cmpfloat_with_epsilon (co_ssim_gray (a, GS, a, GS, GW, GH, &rmin),
      1.0, 1e-14);
  g_assert_cmpfloat_with_epsilon (rmin, 1.0, 1e-14);
  g_free (a);
  g_free (map);
}

/* The region minimum finds one damaged 64x64 block, on the image grid,
 * which the mean over the whole image dilutes; the changed pixels lie 10
 * pixels inside the block's edges, more than the window radius 5, so the
 * map outside the block stays 1. */
static void
test_region_min (void)
{
  const int w = 320, h = 256;
  guint8 *a = g_malloc (w * h), *b = g_malloc (w * h), *blur = g_malloc (w * h);
  double *map = g_new (double, w * h), mean, rmin, whole;
  int x, y, rx = -1, ry = -1;

  make_pattern (a, w, 1, w, h, 5);
  make_blurred (a, blur, w, 1, w, h);
  memcpy (b, a, w * h);
  for (y = 128 + 10; y < 192 - 10; y++)
    for (x = 192 + 10; x < 256 - 10; x++)
      b[y * w + x] = blur[y * w + x];
  co_ssim_map (a, w, b, w, w, h, map);
  mean = co_ssim_map_mean (map, w, h);
  rmin = co_ssim_map_region_min (map, w, h, &rx, &ry);
  g_assert_cmpint (rx, ==, 192);
  g_assert_cmpint (ry, ==, 128);
  g_assert_cmpfloat_with_epsilon (rmin,
      co_ssim_map_area_mean (map, w, 192, 128, 256, 192), 1e-15);
  g_assert_cmpfloat (rmin, <, 0.97);
  g_assert_cmpfloat (mean, >, 0.99);
  /* the other regions are untouched */
  g_assert_cmpfloat_with_epsilon (co_ssim_map_area_mean (map, w, 64, 64, 128,
          128), 1.0, 1e-14);
  /* co_ssim_gray gives the same */
  whole = co_ssim_gray (a, w, b, w, w, h, &rmin);
  g_assert_cmpfloat (whole, ==, mean);
  g_assert_cmpfloat_with_epsilon (rmin,
      co_ssim_map_area_mean (map, w, 192, 128, 256, 192), 1e-15);
  g_free (a);
  g_free (b);
  g_free (blur);
  g_free (map);
}

/* tests/data/natural: the photographs of the foveation quality tests (at
 * least 10 by its issue), each with its licence in LICENSES.md.  Decoding
 * them needs GStreamer, which this test does not link; the quality tests
 * read them. */
static void
test_natural_images_listed (void)
{
  const gchar *data = g_getenv ("CO_TEST_DATA_DIR");
  gchar *dir, *lic_path, *lic = NULL;
  const gchar *name;
  GDir *d;
  int n = 0;

  if (data == NULL) {
    g_test_skip ("CO_TEST_DATA_DIR is not set");
    return;
  }
  dir = g_build_filename (data, "natural", NULL);
  lic_path = g_build_filename (dir, "LICENSES.md", NULL);
  g_assert_true (g_file_get_contents (lic_path, &lic, NULL, NULL));
  d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d))) {
    gchar *entry;
    if (!g_str_has_suffix (name, ".png"))
      continue;
    entry = g_strdup_printf ("`%s`", name);
    if (!strstr (lic, entry))
      g_error ("%s has no entry in %s", name, lic_path);
    g_free (entry);
    n++;
  }
  g_assert_cmpint (n, >=, 10);
  g_dir_close (d);
  g_free (lic);
  g_free (lic_path);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ssim/kernel", test_kernel);
  g_test_add_func ("/ssim/identity", test_identity);
  g_test_add_func ("/ssim/skimage-gray", test_against_skimage_gray);
  g_test_add_func ("/ssim/skimage-rgb", test_against_skimage_rgb);
  g_test_add_func ("/ssim/rgbx", test_rgbx);
  g_test_add_func ("/ssim/region-min", test_region_min);
  g_test_add_func ("/ssim/natural-images-listed", test_natural_images_listed);
  return g_test_run ();
}
