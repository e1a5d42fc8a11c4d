/* cudaoptics — LGPL-2.1-or-later
 *
 * The image circle finder (kernels/omni_circle.h) on synthetic frames with
 * a known circle: a textured, vignetted, off-centre disc with dark objects
 * (one across the rim) and a bright overlay in the dark surround; a donut;
 * circles cut by the top and bottom of a 16:9 frame; 16-bit samples and
 * interleaved layouts; random scenes.  Centre and radius must come within
 * a pixel.  Frames without a circle (uniform, noise, gradients, a soft
 * vignette, a rectangle, an ellipse, a disc too small) must give 0 and a
 * reason, never a circle; so must a dual-fisheye frame (two circles).
 * The time on a 4K frame is printed.
 *
 * The edge of the synthetic disc is its pixel-area coverage (or a Gaussian
 * blur of it), so the true circle is where the edge crosses half-way.
 * Fixed-seed PRNG: every run sees the same frames.
 */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omni_circle.h"

/* ---- a fixed-seed PRNG (splitmix64) ---- */

typedef struct
{
  guint64 s;
} Rng;

static guint64
rng_next (Rng * r)
{
  guint64 z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double
rng_uniform (Rng * r)
{
  return (rng_next (r) >> 11) * (1.0 / 9007199254740992.0);
}

/* unit variance, zero mean: the sum of four uniforms (Irwin-Hall), cheap
 * and good enough for sensor noise */
static double
rng_gauss (Rng * r)
{
  guint64 z = rng_next (r);
  double s = (double) (z & 0xffff) + (double) ((z >> 16) & 0xffff)
      + (double) ((z >> 32) & 0xffff) + (double) (z >> 48);
  return (s / 65536.0 - 2.0) * 1.7320508075688772;
}

/* ---- scenes ---- */

#define MAX_BLOBS 8

typedef struct
{
  int w, h;
  double cx, cy, r;             /* the circle */
  double rx, ry;                /* > 0: an ellipse of these half-axes
                                 * instead (not a circle) */
  double hole, hole_level;      /* a donut's hole radius (0: none) */
  double edge_sigma;            /* 0: pixel-area edge, else Gaussian blur */
  double in_level, vignette, texture, in_noise;
  double out_level, out_noise;
  int n_blobs;                  /* dark objects inside, the first across
                                 * the rim */
  int overlay;                  /* a bright block in the dark surround */
  guint64 seed;
} Scene;

static void
scene_default (Scene * sc, int w, int h, double cx, double cy, double r)
{
  memset (sc, 0, sizeof (*sc));
  sc->w = w;
  sc->h = h;
  sc->cx = cx;
  sc->cy = cy;
  sc->r = r;
  sc->in_level = 190;
  sc->vignette = 0.5;
  sc->texture = 0.35;
  sc->in_noise = 8;
  sc->out_level = 12;
  sc->out_noise = 4;
  sc->hole_level = 6;
  sc->seed = 1;
}

static double
coverage (double inside_dist, double sigma)
{
  /* inside_dist: how far inside the boundary, pixels */
  if (sigma > 0) {
    if (inside_dist > 8 * sigma)
      return 1;
    if (inside_dist < -8 * sigma)
      return 0;
    return 0.5 * erfc (-inside_dist / (sigma * G_SQRT2));
  }
  return CLAMP (inside_dist + 0.5, 0.0, 1.0);
}

/* The scene as doubles on a 0-255 scale.  The texture is a product of
 * tables along x, y and the diagonal (a per-pixel sin is too slow for 4K). */
static double *
render (const Scene * sc)
{
  double *img = g_new (double, (gsize) sc->w * sc->h);
  double *tx = g_new (double, sc->w), *ty = g_new (double, sc->h);
  double *td = g_new (double, sc->w + sc->h);
  double bx[MAX_BLOBS], by[MAX_BLOBS], br[MAX_BLOBS];
  Rng rng = { sc->seed };
  int x, y, k;

  for (x = 0; x < sc->w; x++)
    tx[x] = sin (x / 13.7);
  for (y = 0; y < sc->h; y++)
    ty[y] = cos (y / 17.3);
  for (x = 0; x < sc->w + sc->h; x++)
    td[x] = sin (x / 41.3);
  for (k = 0; k < sc->n_blobs && k < MAX_BLOBS; k++) {
    double a = 2 * G_PI * rng_uniform (&rng), d;
    br[k] = sc->r * (0.06 + 0.06 * rng_uniform (&rng));
    d = k == 0 ? sc->r - 0.4 * br[k]
        : (sc->hole + br[k]) + (sc->r - 2.5 * br[k] - sc->hole - br[k])
        * rng_uniform (&rng);
    bx[k] = sc->cx + d * cos (a);
    by[k] = sc->cy + d * sin (a);
  }
  for (y = 0; y < sc->h; y++)
    for (x = 0; x < sc->w; x++) {
      double dx = x - sc->cx, dy = y - sc->cy, d2 = dx * dx + dy * dy;
      double d = sqrt (d2), cov, pic = 0, out = 0;
      if (sc->rx > 0) {
        /* approximate distance inside an ellipse: scaled radius */
        double q = sqrt (dx * dx / (sc->rx * sc->rx) + dy * dy
            / (sc->ry * sc->ry));
        cov = coverage ((1 - q) * sqrt (sc->rx * sc->ry), sc->edge_sigma);
      } else {
        cov = coverage (sc->r - d, sc->edge_sigma);
      }
      if (cov > 0) {
        pic = sc->in_level * (1 - sc->vignette * d2 / (sc->r * sc->r))
            * (1 + sc->texture * (0.7 * tx[x] * ty[y] + 0.3 * td[x + y]));
        for (k = 0; k < sc->n_blobs && k < MAX_BLOBS; k++) {
          double bdx = x - bx[k], bdy = y - by[k], bc;
          if (fabs (bdx) > br[k] + 1 || fabs (bdy) > br[k] + 1)
            continue;
          bc = coverage (br[k] - sqrt (bdx * bdx + bdy * bdy), 0);
          pic = pic * (1 - bc) + 15 * bc;
        }
        if (sc->hole > 0) {
          double hc = coverage (sc->hole - d, sc->edge_sigma);
          pic = pic * (1 - hc) + sc->hole_level * hc;
        }
        pic += sc->in_noise * rng_gauss (&rng);
      }
      if (cov < 1) {
        out = sc->out_level + sc->out_noise * rng_gauss (&rng);
        if (sc->overlay && x >= 20 && x < 220 && y >= 16 && y < 48)
          out = 235 + sc->out_noise * rng_gauss (&rng);
      }
      img[(gsize) y * sc->w + x] = cov * pic + (1 - cov) * out;
    }
  g_free (tx);
  g_free (ty);
  g_free (td);
  return img;
}

/* An image of doubles (0-255 scale) as samples of `depth` bits in a
 * layout of pixel_stride bytes, the sample at byte `offset` of each pixel;
 * the other bytes are garbage.  Returns the base of the sample plane. */
typedef struct
{
  guint8 *mem, *data;
  int stride, ps, depth;
} Frame;

static void
frame_make (Frame * f, const double *img, int w, int h, int depth, int ps,
    int offset, guint64 seed)
{
  Rng rng = { seed ^ 0xABCDEF };
  int x, y, row_pad = 12;
  gsize i, n;

  f->depth = depth;
  f->ps = ps;
  f->stride = w * ps + row_pad;
  n = (gsize) f->stride * h;
  f->mem = g_malloc (n);
  for (i = 0; i < n; i++)
    f->mem[i] = (guint8) rng_next (&rng);
  f->data = f->mem + offset;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double v = img[(gsize) y * w + x];
      guint8 *p = f->data + (gsize) y * f->stride + (gsize) x * ps;
      if (depth == 8) {
        p[0] = (guint8) CLAMP ((long) floor (v + 0.5), 0, 255);
      } else {
        long s = CLAMP ((long) floor (v * 257.0 + 0.5), 0, 65535);
        p[0] = (guint8) (s & 0xff);
        p[1] = (guint8) (s >> 8);
      }
    }
}

static void
frame_free (Frame * f)
{
  g_free (f->mem);
}

/* ---- checks ---- */

static double worst_centre, worst_radius;

static void
note_error (const char *what, const CoCircleFit * fit, double cx, double cy,
    double r)
{
  double ec = hypot (fit->cx - cx, fit->cy - cy), er = fabs (fit->r - r);
  printf ("  %-34s centre error %.3f px, radius error %+.3f px, rms %.3f, "
      "points %d/%d used %d, threshold %.1f\n", what, ec, fit->r - r, fit->rms,
      fit->n_points, fit->n_rays, fit->n_used, fit->threshold);
  worst_centre = MAX (worst_centre, ec);
  worst_radius = MAX (worst_radius, er);
}

static void
expect_circle (const char *what, const Scene * sc, int depth, int ps,
    int offset)
{
  double *img = render (sc);
  Frame f;
  CoCircleFit fit;
  const char *why = "unset";
  int ok;

  frame_make (&f, img, sc->w, sc->h, depth, ps, offset, sc->seed);
  ok = co_circle_find (f.data, sc->w, sc->h, f.stride, ps, depth, &fit, &why);
  if (!ok)
    printf ("  %s: not found: %s (circle %.2f %.2f %.2f, rms %.3f, "
        "points %d used %d)\n", what, why, fit.cx, fit.cy, fit.r, fit.rms,
        fit.n_points, fit.n_used);
  g_assert_true (ok);
  g_assert_null (why);
  note_error (what, &fit, sc->cx, sc->cy, sc->r);
  g_assert_cmpfloat (fabs (fit.cx - sc->cx), <, 1.0);
  g_assert_cmpfloat (fabs (fit.cy - sc->cy), <, 1.0);
  g_assert_cmpfloat (fabs (fit.r - sc->r), <, 1.0);
  g_assert_cmpint (fit.n_rays, ==, CO_CIRCLE_N_RAYS);
  g_assert_cmpint (2 * fit.n_used, >=, fit.n_points);
  frame_free (&f);
  g_free (img);
}

static void
expect_none_data (const char *what, const guint8 * data, int w, int h,
    int stride, int ps, int depth)
{
  CoCircleFit fit;
  const char *why = NULL;
  int ok = co_circle_find (data, w, h, stride, ps, depth, &fit, &why);

  if (ok)
    printf ("  %s: found a circle that is not there: %.2f %.2f %.2f rms %.3f "
        "points %d used %d\n", what, fit.cx, fit.cy, fit.r, fit.rms,
        fit.n_points, fit.n_used);
  else
    printf ("  %-30s refused: %s\n", what, why ? why : "(null)");
  g_assert_false (ok);
  g_assert_nonnull (why);
}

static void
expect_none_img (const char *what, const double *img, int w, int h)
{
  Frame f;

  frame_make (&f, img, w, h, 8, 1, 0, 7);
  expect_none_data (what, f.data, w, h, f.stride, 1, 8);
  frame_free (&f);
}

static void
expect_none (const char *what, const Scene * sc)
{
  double *img = render (sc);
  expect_none_img (what, img, sc->w, sc->h);
  g_free (img);
}

/* ---- the cases ---- */

static void
test_disc (void)
{
  Scene sc;

  scene_default (&sc, 1280, 960, 611.3, 498.7, 402.6);
  sc.n_blobs = 5;
  sc.overlay = 1;
  sc.seed = 11;
  expect_circle ("disc 1280x960", &sc, 8, 1, 0);

  /* a soft edge (Gaussian sigma 2 px), dimmer picture, noisier surround */
  sc.edge_sigma = 2.0;
  sc.in_level = 120;
  sc.out_noise = 8;
  sc.seed = 12;
  expect_circle ("disc, soft edge sigma 2", &sc, 8, 1, 0);

  /* softer still: sigma 4 px */
  sc.edge_sigma = 4.0;
  sc.seed = 15;
  expect_circle ("disc, soft edge sigma 4", &sc, 8, 1, 0);

  /* a strong vignette: the rim at 25% of the centre */
  scene_default (&sc, 1280, 960, 655.8, 470.1, 380.2);
  sc.vignette = 0.75;
  sc.n_blobs = 3;
  sc.seed = 13;
  expect_circle ("disc, strong vignette", &sc, 8, 1, 0);

  /* small frame: the grid is the frame */
  scene_default (&sc, 320, 240, 158.4, 121.7, 101.3);
  sc.texture = 0.2;
  sc.seed = 14;
  expect_circle ("disc 320x240", &sc, 8, 1, 0);
}

static void
test_donut (void)
{
  Scene sc;

  scene_default (&sc, 1280, 960, 655.4, 470.2, 430.1);
  sc.hole = 150;
  sc.n_blobs = 3;
  sc.seed = 21;
  expect_circle ("donut, hole 0.35 r", &sc, 8, 1, 0);

  /* a big hole, the rays start in it */
  sc.hole = 0.55 * sc.r;
  sc.vignette = 0.2;
  sc.seed = 22;
  expect_circle ("donut, hole 0.55 r", &sc, 8, 1, 0);

  /* the demo's kind (GStreamer's circle element): a hole of 0.72 r and
   * dark bands, so less than half of the whole disc is bright */
  sc.hole = 0.72 * sc.r;
  sc.n_blobs = 5;
  sc.texture = 0.5;
  sc.seed = 23;
  expect_circle ("donut, hole 0.72 r", &sc, 8, 1, 0);
}

static void
test_cut (void)
{
  Scene sc;

  scene_default (&sc, 1920, 1080, 957.6, 544.3, 620.5);
  sc.n_blobs = 3;
  sc.seed = 31;
  expect_circle ("cut 1920x1080, r 620", &sc, 8, 1, 0);

  /* cut hard: half the rays leave the frame in the picture */
  scene_default (&sc, 1920, 1080, 970.2, 530.9, 760.0);
  sc.seed = 32;
  expect_circle ("cut 1920x1080, r 760", &sc, 8, 1, 0);

  /* a donut cut by the frame */
  scene_default (&sc, 1920, 1080, 951.3, 547.5, 600.4);
  sc.hole = 200;
  sc.seed = 33;
  expect_circle ("cut donut 1920x1080", &sc, 8, 1, 0);
}

static void
test_layouts (void)
{
  Scene sc;

  scene_default (&sc, 1280, 960, 640.7, 481.2, 420.9);
  sc.n_blobs = 3;
  sc.hole = 100;
  sc.seed = 41;
  expect_circle ("16-bit, pixel_stride 2", &sc, 16, 2, 0);
  expect_circle ("8-bit G of RGBA, pixel_stride 4", &sc, 8, 4, 1);
  expect_circle ("16-bit G of RGBA64, pixel_stride 8", &sc, 16, 8, 2);
  /* a dim 16-bit picture (a tenth of the range) */
  sc.in_level = 20;
  sc.out_level = 1;
  sc.out_noise = 0.3;
  sc.in_noise = 0.8;
  sc.seed = 42;
  expect_circle ("16-bit, dim (10% of range)", &sc, 16, 2, 0);
}

static void
test_random (void)
{
  static const int sizes[][2] = {
    {640, 480}, {1280, 720}, {1280, 960}, {1920, 1080}, {2048, 1536},
  };
  Rng rng = { 2024 };
  int t;

  for (t = 0; t < 25; t++) {
    Scene sc;
    int w = sizes[t % 5][0], h = sizes[t % 5][1];
    double ms = MIN (w, h), cx, cy, r;
    char what[64];

    cx = w * (0.35 + 0.3 * rng_uniform (&rng));
    cy = h * (0.35 + 0.3 * rng_uniform (&rng));
    r = ms * (0.2 + 0.42 * rng_uniform (&rng));
    scene_default (&sc, w, h, cx, cy, r);
    sc.seed = rng_next (&rng);
    sc.hole = rng_uniform (&rng) < 0.4 ? r * (0.15 + 0.35 * rng_uniform (&rng))
        : 0;
    sc.n_blobs = (int) (rng_uniform (&rng) * 5);
    sc.vignette = 0.7 * rng_uniform (&rng);
    sc.edge_sigma = rng_uniform (&rng) < 0.5 ? 0 : 2.5 * rng_uniform (&rng);
    sc.in_level = 90 + 140 * rng_uniform (&rng);
    sc.out_level = 4 + 20 * rng_uniform (&rng);
    sc.out_noise = 1 + 6 * rng_uniform (&rng);
    sc.overlay = rng_uniform (&rng) < 0.3;
    g_snprintf (what, sizeof (what), "random %d: %dx%d r %.0f%s", t, w, h, r,
        sc.hole > 0 ? " donut" : "");
    expect_circle (what, &sc, t % 3 == 2 ? 16 : 8, t % 3 == 2 ? 2 : 1, 0);
  }
}

static void
test_failures (void)
{
  const int w = 640, h = 480;
  double *img = g_new (double, (gsize) w * h);
  Rng rng = { 99 };
  Scene sc;
  int x, y;
  guint8 tiny[8 * 8];
  CoCircleFit fit;
  const char *why;

  for (x = 0; x < w * h; x++)
    img[x] = 128;
  expect_none_img ("uniform 128", img, w, h);
  for (x = 0; x < w * h; x++)
    img[x] = 0;
  expect_none_img ("uniform 0", img, w, h);
  for (x = 0; x < w * h; x++)
    img[x] = 128 + 3 * rng_gauss (&rng);
  expect_none_img ("uniform, noise sigma 3", img, w, h);
  for (x = 0; x < w * h; x++)
    img[x] = 256 * rng_uniform (&rng);
  expect_none_img ("uniform random noise", img, w, h);
  for (x = 0; x < w * h; x++)
    img[x] = 128 + 60 * rng_gauss (&rng);
  expect_none_img ("gaussian noise sigma 60", img, w, h);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      img[y * w + x] = 255.0 * x / (w - 1) + 4 * rng_gauss (&rng);
  expect_none_img ("horizontal gradient", img, w, h);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      img[y * w + x] = 255.0 * y / (h - 1);
  expect_none_img ("vertical gradient", img, w, h);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double d = hypot (x - 330.5, y - 250.5) / 300.0;
      img[y * w + x] = 230 * MAX (0.0, 1 - d * d) + 5 + 2 * rng_gauss (&rng);
    }
  expect_none_img ("radial vignette, no edge", img, w, h);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      img[y * w + x] = (x > 100 && x < 540 && y > 60 && y < 420 ? 180 : 10)
          + 4 * rng_gauss (&rng);
  expect_none_img ("bright rectangle", img, w, h);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      img[y * w + x] = (y > 2 * h / 3 ? 200 : 8) + 4 * rng_gauss (&rng);
  expect_none_img ("bright lower third", img, w, h);
  g_free (img);

  scene_default (&sc, 1280, 960, 640, 480, 0);
  sc.r = 400;
  sc.rx = 420;
  sc.ry = 320;
  expect_none ("ellipse 420 x 320", &sc);
  scene_default (&sc, 1280, 960, 611.3, 498.7, 60.0);
  expect_none ("disc r 6% of the short side", &sc);
  {
    /* a dual-fisheye frame: two circles side by side, neither is "the"
     * circle */
    double *a, *b;
    gsize i;
    scene_default (&sc, 1280, 640, 320.4, 320.2, 300.3);
    a = render (&sc);
    sc.cx = 960.6;
    sc.seed = 2;
    b = render (&sc);
    for (i = 0; i < (gsize) sc.w * sc.h; i++)
      a[i] = MAX (a[i], b[i]);
    expect_none_img ("dual fisheye", a, sc.w, sc.h);
    g_free (a);
    g_free (b);
  }

  {
    /* 8192 x 16: the grid would be one row */
    guint8 *thin = g_malloc0 (8192 * 16);
    for (x = 0; x < 8192 * 16; x++)
      thin[x] = (guint8) (x % 8192 > 4000 ? 200 : 10);
    expect_none_data ("8192x16 frame", thin, 8192, 16, 8192, 1, 8);
    g_free (thin);
  }
  memset (tiny, 100, sizeof (tiny));
  expect_none_data ("8x8 frame", tiny, 8, 8, 8, 1, 8);
  g_assert_false (co_circle_find (tiny, 4, 4, 4, 1, 12, &fit, &why));
  g_assert_nonnull (why);
  g_assert_false (co_circle_find (NULL, 640, 480, 640, 1, 8, &fit, &why));
  g_assert_false (co_circle_find (tiny, 640, 480, 100, 1, 8, &fit, &why));
  g_assert_nonnull (why);
  /* why and fit may be NULL */
  g_assert_false (co_circle_find (tiny, 8, 8, 8, 1, 8, NULL, NULL));
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
test_timing_4k (void)
{
  Scene sc;
  double *img, times[10];
  Frame f;
  CoCircleFit fit;
  const char *why;
  int i, ok = 0;

  scene_default (&sc, 3840, 2160, 1925.4, 1071.8, 1010.3);
  sc.n_blobs = 4;
  sc.hole = 300;
  sc.seed = 51;
  img = render (&sc);
  frame_make (&f, img, sc.w, sc.h, 8, 1, 0, sc.seed);
  for (i = 0; i < 10; i++) {
    gint64 t0 = g_get_monotonic_time ();
    ok = co_circle_find (f.data, sc.w, sc.h, f.stride, 1, 8, &fit, &why);
    times[i] = (g_get_monotonic_time () - t0) / 1000.0;
    g_assert_true (ok);
  }
  note_error ("4K 8-bit", &fit, sc.cx, sc.cy, sc.r);
  g_assert_cmpfloat (hypot (fit.cx - sc.cx, fit.cy - sc.cy), <, 1.0);
  g_assert_cmpfloat (fabs (fit.r - sc.r), <, 1.0);
  qsort (times, 10, sizeof (double), cmp_double);
  printf ("  co_circle_find on 3840x2160 8-bit: min %.2f ms, median %.2f ms, "
      "max %.2f ms (10 runs)\n", times[0], 0.5 * (times[4] + times[5]),
      times[9]);
  frame_free (&f);

  frame_make (&f, img, sc.w, sc.h, 16, 8, 2, sc.seed);
  for (i = 0; i < 10; i++) {
    gint64 t0 = g_get_monotonic_time ();
    ok = co_circle_find (f.data, sc.w, sc.h, f.stride, 8, 16, &fit, &why);
    times[i] = (g_get_monotonic_time () - t0) / 1000.0;
    g_assert_true (ok);
  }
  note_error ("4K 16-bit RGBA64", &fit, sc.cx, sc.cy, sc.r);
  qsort (times, 10, sizeof (double), cmp_double);
  printf ("  co_circle_find on 3840x2160 16-bit, pixel_stride 8: min %.2f ms, "
      "median %.2f ms, max %.2f ms (10 runs)\n", times[0],
      0.5 * (times[4] + times[5]), times[9]);
  frame_free (&f);
  g_free (img);
}

static void
test_summary (void)
{
  printf ("  worst over the good cases: centre %.3f px, radius %.3f px\n",
      worst_centre, worst_radius);
  g_assert_cmpfloat (worst_centre, <, 1.0);
  g_assert_cmpfloat (worst_radius, <, 1.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/circle/disc", test_disc);
  g_test_add_func ("/circle/donut", test_donut);
  g_test_add_func ("/circle/cut", test_cut);
  g_test_add_func ("/circle/layouts", test_layouts);
  g_test_add_func ("/circle/random", test_random);
  g_test_add_func ("/circle/failures", test_failures);
  g_test_add_func ("/circle/timing-4k", test_timing_4k);
  g_test_add_func ("/circle/summary", test_summary);
  return g_test_run ();
}
