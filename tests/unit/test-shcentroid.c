/* cudaoptics — LGPL-2.1-or-later
 *
 * cudashcentroid's reference (kernels/shcentroid_math.h, shcentroid_cpu.c):
 * the lenslet boundaries give every pixel to one lenslet at most for any
 * fractional pitch and origin; exact centroids where they are known (one
 * bright pixel, a uniform lenslet, symmetric spots); no division by zero on
 * a dark lenslet; and the accuracy of each method on synthetic spot frames
 * (tests/sh-spots.h) against the spots' true places, printed and held to
 * bounds (README, cudashcentroid).
 */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include "config.h"
#include "shcentroid_math.h"
#include "../sh-spots.h"
#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

typedef struct
{
  int32_t *bx, *by;
  uint8_t *measure;
  float *cx, *cy, *m00;
  uint8_t *flags;
  CoShGrid g;
  CoShResult r;
} Grid;

/* A grid of pitch @p from (@ox, @oy) over a w x h frame, every lenslet
 * measured that lies wholly inside it. */
static void
grid_init (Grid * G, double p, double ox, double oy, int nx, int ny, int w,
    int h)
{
  int i, j;

  memset (G, 0, sizeof *G);
  G->bx = g_new (int32_t, nx + 1);
  G->by = g_new (int32_t, ny + 1);
  G->measure = g_new0 (uint8_t, nx * ny);
  G->cx = g_new0 (float, nx * ny);
  G->cy = g_new0 (float, nx * ny);
  G->m00 = g_new0 (float, nx * ny);
  G->flags = g_new0 (uint8_t, nx * ny);
  for (i = 0; i <= nx; i++)
    G->bx[i] = co_sh_boundary (ox, p, i, w);
  for (j = 0; j <= ny; j++)
    G->by[j] = co_sh_boundary (oy, p, j, h);
  for (j = 0; j < ny; j++)
    for (i = 0; i < nx; i++) {
      int in = co_sh_inside (ox, p, i, w) && co_sh_inside (oy, p, j, h);
      G->measure[j * nx + i] = in;
      G->flags[j * nx + i] = in ? 0 : CO_SH_CLIPPED;
    }
  G->g.nx = nx;
  G->g.ny = ny;
  G->g.bx = G->bx;
  G->g.by = G->by;
  G->g.measure = G->measure;
  G->g.method = CO_SH_COG;
  G->r.cx = G->cx;
  G->r.cy = G->cy;
  G->r.m00 = G->m00;
  G->r.flags = G->flags;
}

static void
grid_clear (Grid * G)
{
  g_free (G->bx);
  g_free (G->by);
  g_free (G->measure);
  g_free (G->cx);
  g_free (G->cy);
  g_free (G->m00);
  g_free (G->flags);
}

static CoFrame
gray (uint8_t * data, int w, int h, int bits)
{
  CoFrame f;

  memset (&f, 0, sizeof f);
  f.data[0] = data;
  f.pitch[0] = w * (bits / 8);
  f.width = w;
  f.height = h;
  f.format = bits == 16 ? CO_FORMAT_GRAY16_LE : CO_FORMAT_GRAY8;
  return f;
}

/* Every pixel centre falls in the lenslet whose boundaries hold it, and in
 * no other: pitches from the paper's 3.8 to 29, fractional origins. */
static void
test_boundaries (void)
{
  static const double pitches[] = { 3.8, 4.0, 11.0, 11.37, 20.0, 29.0 };
  static const double origins[] = { 0.0, 0.3, 0.5, 0.51, -2.7, 7.25 };
  guint a, b;

  for (a = 0; a < G_N_ELEMENTS (pitches); a++)
    for (b = 0; b < G_N_ELEMENTS (origins); b++) {
      double p = pitches[a], o = origins[b];
      int n = (int) (1000 / p), i, x;
      for (i = 0; i < n; i++) {
        int lo = co_sh_boundary (o, p, i, 1000);
        int hi = co_sh_boundary (o, p, i + 1, 1000);
        g_assert_cmpint (lo, <=, hi);
        for (x = lo; x < hi; x++) {
          g_assert_cmpfloat (x + 0.5, >=, o + i * p);
          g_assert_cmpfloat (x + 0.5, <, o + (i + 1) * p);
        }
        /* the pixels just outside are the neighbours' */
        if (lo > 0)
          g_assert_cmpfloat (lo - 1 + 0.5, <, o + i * p);
        if (hi < 1000)
          g_assert_cmpfloat (hi + 0.5, >=, o + (i + 1) * p);
      }
    }
}

/* One lit pixel: its centre.  A uniform lenslet: the centre of its pixels.
 * A dark one: no light, no NaN.  A lenslet past the frame: clipped. */
static void
test_exact (void)
{
  const int w = 40, h = 24;
  uint8_t *img = g_malloc0 (w * h);
  CoFrame f = gray (img, w, h, 8);
  Grid G;
  int i;

  grid_init (&G, 8.0, 0.0, 0.0, 6, 3, w, h);
  img[3 * w + 5] = 200;         /* lenslet (0, 0) */
  for (i = 0; i < 64; i++)      /* lenslet (1, 0): uniform */
    img[(i / 8) * w + 8 + i % 8] = 17;
  g_assert_cmpint (co_sh_reference (&G.g, &f, &G.r), ==, 0);
  g_assert_cmpint (G.flags[0], ==, CO_SH_VALID);
  g_assert_cmpfloat (G.cx[0], ==, 5.5f);
  g_assert_cmpfloat (G.cy[0], ==, 3.5f);
  g_assert_cmpfloat (G.m00[0], ==, 200.0f);
  g_assert_cmpfloat (G.cx[1], ==, 12.0f);
  g_assert_cmpfloat (G.cy[1], ==, 4.0f);
  g_assert_cmpint (G.flags[2], ==, CO_SH_NO_LIGHT);
  g_assert_true (G.cx[2] == 0.0f && G.cy[2] == 0.0f);
  /* columns 40 .. 47 do not exist */
  g_assert_cmpint (G.flags[5], ==, CO_SH_CLIPPED);
  grid_clear (&G);

  /* window-margin: the lit pixel at a lenslet's edge is left out */
  grid_init (&G, 8.0, 0.0, 0.0, 5, 3, w, h);
  memset (img, 0, w * h);
  img[0] = 255;
  img[2 * w + 3] = 10;
  G.g.margin = 1;
  g_assert_cmpint (co_sh_reference (&G.g, &f, &G.r), ==, 0);
  g_assert_cmpfloat (G.cx[0], ==, 3.5f);
  g_assert_cmpfloat (G.cy[0], ==, 2.5f);
  grid_clear (&G);
  g_free (img);
}

/* TCOG drops what is under the threshold (absolute or a fraction of the
 * lenslet's largest); BRIGHTEST keeps the N largest, ties to the earlier
 * pixel; a LUT weights the values. */
static void
test_methods (void)
{
  const int w = 10, h = 10;
  uint8_t *img = g_malloc0 (w * h);
  CoFrame f = gray (img, w, h, 8);
  float lut[256];
  Grid G;
  int v;

  grid_init (&G, 10.0, 0.0, 0.0, 1, 1, w, h);
  memset (img, 20, w * h);      /* a background the CoG is pulled by */
  img[2 * w + 2] = 220;
  img[2 * w + 3] = 120;
  G.g.method = CO_SH_TCOG;
  G.g.threshold = 20.0f;
  g_assert_cmpint (co_sh_reference (&G.g, &f, &G.r), ==, 0);
  /* (200 * 2.5 + 100 * 3.5) / 300 */
  g_assert_cmpfloat (fabsf (G.cx[0] - 850.0f / 300.0f), <, 1e-6f);
  g_assert_cmpfloat (G.cy[0], ==, 2.5f);
  g_assert_cmpfloat (G.m00[0], ==, 300.0f);
  G.g.threshold = 0.5f;         /* of 220: 110, so 110 and 10 */
  G.g.threshold_fraction = 1;
  g_assert_cmpint (co_sh_reference (&G.g, &f, &G.r), ==, 0);
  g_assert_cmpfloat (fabsf (G.cx[0] - (110.0f * 2.5f + 10.0f * 3.5f) /
          120.0f), <, 1e-6f);
  G.g.method = CO_SH_BRIGHTEST;
  G.g.brightest = 1;
  g_assert_cmpint (co_sh_reference (&G.g, &f, &G.r), ==, 0);
  g_assert_cmpfloat (G.cx[0], ==, 2.5f);
  G.g.brightest = 3;            /* 220, 120 and every 20 (all tied) */
  g_assert_cmpint (co_sh_reference (&G.g, &f, &G.r), ==, 0);
  g_assert_cmpfloat (fabsf (G.cx[0] - (220.0f * 2.5f + 120.0f * 3.5f +
              20.0f * 494.0f) / 2300.0f), <, 1e-6f);
  g_assert_cmpfloat (fabsf (G.cy[0] - (340.0f * 2.5f + 20.0f * 495.0f) /
          2300.0f), <, 1e-6f);
  G.g.brightest = 2;            /* no tie at the 2nd: 220 and 120 alone */
  g_assert_cmpint (co_sh_reference (&G.g, &f, &G.r), ==, 0);
  g_assert_cmpfloat (fabsf (G.cx[0] - 970.0f / 340.0f), <, 1e-6f);
  /* a LUT that keeps only values above 100, as themselves */
  for (v = 0; v < 256; v++)
    lut[v] = v > 100 ? (float) v : 0.0f;
  G.g.method = CO_SH_COG;
  G.g.weight = lut;
  g_assert_cmpint (co_sh_reference (&G.g, &f, &G.r), ==, 0);
  g_assert_cmpfloat (fabsf (G.cx[0] - (220.0f * 2.5f + 120.0f * 3.5f) /
          340.0f), <, 1e-6f);
  grid_clear (&G);
  g_free (img);
}

/* Each method's error against the spots' true places on synthetic frames:
 * 1000 x 1000 (400 x 400 and pitch 20 alone with CO_TEST_QUICK), pitches
 * from the paper, spots of sigma 1.2 pixels within
 * 20% of a pitch of the lenslets' centres, 8 and 16 bits; photon noise
 * alone, then on a background of 20 counts with read noise 3.  The bounds
 * (RMS, pixels) are about 1.3 times what the reference measures here:
 * the plain CoG is pulled towards the lenslet's centre by any background,
 * in proportion to the lenslet's area (README, cudashcentroid). */
static void
test_spots (void)
{
  static const double pitches[] = { 20.0, 11.0, 29.0 };
  static const char *names[] = { "cog", "tcog 0.25", "brightest 9" };
  /* CO_TEST_QUICK (valgrind, qemu): one pitch on a smaller frame */
  const gboolean quick = g_getenv ("CO_TEST_QUICK") != NULL;
  const int w = quick ? 400 : 1000, h = quick ? 400 : 1000;
  guint a, m, bits, noisy;

  for (noisy = 0; noisy < 2; noisy++)
    for (bits = 8; bits <= 16; bits += 8)
      for (a = 0; a < (quick ? 1 : G_N_ELEMENTS (pitches)); a++) {
        ShSpots s = { pitches[a], 0.37, 0.81, 0, 0, 1.2,
          bits == 8 ? 1500.0 : 5000.0,  /* a peak below 255 in 8 bits */
          noisy ? 20.0 : 0.0, noisy ? 3.0 : 0.0, 0.2, (int) bits
        };
        /* cog with a background: a fraction of the pitch */
        const double bound[2][3] = {
          {0.065, 0.09, 0.19}, {0.2 * pitches[a], 0.1, 0.2}
        };
        uint8_t *img = g_malloc ((size_t) w * h * (bits / 8));
        CoFrame f = gray (img, w, h, bits);
        double *tx, *ty;
        Grid G;

        s.nx = (int) ((w - s.ox) / s.pitch);
        s.ny = (int) ((h - s.oy) / s.pitch);
        tx = g_new (double, s.nx * s.ny);
        ty = g_new (double, s.nx * s.ny);
        sh_spots_draw (&s, 7 + a, w, h, img, f.pitch[0], tx, ty);
        grid_init (&G, s.pitch, s.ox, s.oy, s.nx, s.ny, w, h);
        for (m = 0; m < 3; m++) {
          double e2 = 0.0, worst = 0.0;
          int k, n = 0;

          G.g.method = (CoShMethod) m;
          G.g.threshold = 0.25f;
          G.g.threshold_fraction = 1;
          G.g.brightest = 9;
          g_assert_cmpint (co_sh_reference (&G.g, &f, &G.r), ==, 0);
          for (k = 0; k < s.nx * s.ny; k++) {
            double dx = G.cx[k] - tx[k], dy = G.cy[k] - ty[k];
            g_assert_cmpint (G.flags[k], ==, CO_SH_VALID);
            e2 += dx * dx + dy * dy;
            worst = MAX (worst, sqrt (dx * dx + dy * dy));
            n++;
          }
          g_print ("%2u-bit %-13s pitch %4.1f %-12s %5d lenslets: RMS "
              "error %.4f, worst %.4f pixels (bound %.3f)\n", bits,
              noisy ? "background" : "photons only", pitches[a], names[m],
              n, sqrt (e2 / n), worst, bound[noisy][m]);
          g_assert_cmpfloat (sqrt (e2 / n), <, bound[noisy][m]);
        }
        grid_clear (&G);
        g_free (tx);
        g_free (ty);
        g_free (img);
      }
}

/* ---- the device against the reference ---- */

#ifdef HAVE_CUDA
static void
ok (cudaError_t e, const char *what)
{
  if (e != cudaSuccess)
    g_error ("%s: %s", what, cudaGetErrorString (e));
}

static void *
upload (const void *host, size_t n)
{
  void *d = NULL;

  ok (cudaMalloc (&d, n ? n : 4), "cudaMalloc");
  ok (cudaMemcpy (d, host, n, cudaMemcpyHostToDevice), "upload");
  return d;
}

/* Every method (tcog absolute and relative, brightest 9, 1 and 100 (the
 * bitwise search), brightest 9 on saturated spots (ties), a weight table, a
 * window margin), 8 and 16 bits, the
 * paper's pitches and a wider one, rows 4-byte aligned (the device's
 * 32-bit pixel groups) and not (its byte reads), a pupil's skipped
 * lenslets: the device's centroids within 1e-4 pixel of the reference's,
 * the same flags, intensities within 1e-5 relative. */
static void
test_cuda_equals_reference (void)
{
  static const double pitches[] = { 3.8, 11.37, 29.0, 47.5 };
  const int w = 640, h = 480;
  int n_dev = 0;
  guint bits, v, q;

  if (cudaGetDeviceCount (&n_dev) != cudaSuccess || n_dev < 1) {
    g_test_skip ("no usable CUDA device");
    return;
  }
  for (q = 0; q < G_N_ELEMENTS (pitches); q++)
  for (bits = 8; bits <= 16; bits += 8)
    for (v = 0; v < 9; v++) {
      /* v 8: spots saturated into flat tops, brightest 9's ties */
      ShSpots s = { pitches[q], 0.6, 0.3, 0, 0, 1.1 * pitches[q] / 11.37,
        (bits == 8 ? 1500.0 : 6000.0) * (v == 8 ? 400.0 : 1.0), 10.0, 2.0,
        0.2, (int) bits
      };
      /* odd pitches: rows not 4-byte aligned */
      size_t pitch = (size_t) w * (bits / 8) + (q % 2), nl;
      uint8_t *img = g_malloc (pitch * h);
      double *tx, *ty;
      float *lut = NULL;
      double *refs;
      uint8_t *why;
      void *dblock, *hblock;
      CoFrame f = gray (img, w, h, bits), df;
      CoShGrid dg;
      CoShResult dr, hr;
      Grid G;
      int k;

      f.pitch[0] = (int32_t) pitch;
      df = f;
      s.nx = (int) ((w - s.ox) / s.pitch);
      s.ny = (int) ((h - s.oy) / s.pitch);
      nl = (size_t) s.nx * s.ny;
      tx = g_new (double, nl);
      ty = g_new (double, nl);
      sh_spots_draw (&s, 90 + v, w, h, img, (int) pitch, tx, ty);
      grid_init (&G, s.pitch, s.ox, s.oy, s.nx, s.ny, w, h);
      /* a pupil: the corners unmeasured */
      for (k = 0; k < (int) nl; k++)
        if (!co_sh_in_pupil (k % s.nx, k / s.nx, s.nx, s.ny, s.ny, 0.0)) {
          G.measure[k] = 0;
          G.flags[k] = CO_SH_OUT_OF_PUPIL;
        }
      why = g_malloc (nl);
      memcpy (why, G.flags, nl);
      G.g.method = v == 0 ? CO_SH_COG : v <= 2 ? CO_SH_TCOG : v <= 4 ||
          v >= 7 ? CO_SH_BRIGHTEST : CO_SH_COG;
      G.g.threshold = v == 1 ? 0.3f : 40.0f;
      G.g.threshold_fraction = v == 1;
      G.g.brightest = v == 3 || v == 8 ? 9 : v == 7 ? 100 : 1;
      G.g.margin = v == 6 ? 1 : 0;
      if (v == 5) {
        int levels = bits == 16 ? 65536 : 256, q;
        lut = g_new (float, levels);
        for (q = 0; q < levels; q++)
          lut[q] = sqrtf ((float) q);
        G.g.weight = lut;
      }
      g_assert_cmpint (co_sh_reference (&G.g, &f, &G.r), ==, 0);

      co_sh_plan (&G.g, bits / 8);
      dg = G.g;
      dg.bx = upload (G.bx, sizeof (int32_t) * (s.nx + 1));
      dg.by = upload (G.by, sizeof (int32_t) * (s.ny + 1));
      dg.measure = upload (G.measure, nl);
      dg.weight = lut ? upload (lut, sizeof (float) * (bits == 16 ? 65536 :
              256)) : NULL;
      df.data[0] = upload (img, pitch * h);
      /* the element's layout: one block, slopes from references the
       * device holds */
      refs = g_new (double, 2 * nl);
      for (k = 0; k < (int) nl; k++) {
        refs[k] = s.ox + (k % s.nx + 0.5) * s.pitch + 0.01 * (k % 7);
        refs[nl + k] = s.oy + (k / s.nx + 0.5) * s.pitch - 0.01 * (k % 5);
      }
      dg.ref_x = upload (refs, sizeof (double) * 2 * nl);
      dg.ref_y = dg.ref_x + nl;
      dg.slope_scale = v % 2 ? 1.0 : 7.4e-6 / 5.2e-3;
      ok (cudaMalloc ((void **) &dblock, co_sh_result_bytes ((int) nl, 1)),
          "results");
      co_sh_result_in (&dr, dblock, (int) nl, 1);
      {
        uint8_t *dwhy = upload (why, nl);
        ok ((cudaError_t) co_sh_cuda (&dg, dwhy, &df, &dr, NULL), "launch");
        ok (cudaDeviceSynchronize (), "kernel");
        ok (cudaFree (dwhy), "free");
      }
      hblock = g_malloc (co_sh_result_bytes ((int) nl, 1));
      co_sh_result_in (&hr, hblock, (int) nl, 1);
      ok (cudaMemcpy (hblock, dblock, co_sh_result_bytes ((int) nl, 1),
              cudaMemcpyDeviceToHost), "results back");
      {
        /* the host's slopes from the device's centroids: the same floats */
        CoShGrid hg = dg;
        CoShResult mine = hr;
        float *sx = g_new (float, 2 * nl);
        hg.ref_x = refs;
        hg.ref_y = refs + nl;
        mine.sx = sx;
        mine.sy = sx + nl;
        for (k = 0; k < (int) nl; k++) {
          co_sh_slopes_of (&hg, &mine, k);
          g_assert_cmpint (memcmp (&sx[k], &hr.sx[k], 4), ==, 0);
          g_assert_cmpint (memcmp (&sx[nl + k], &hr.sy[k], 4), ==, 0);
        }
        g_free (sx);
      }
      {
        double worst = 0.0;
        for (k = 0; k < (int) nl; k++) {
          g_assert_cmpint (hr.flags[k], ==, G.flags[k]);
          worst = MAX (worst, MAX (fabs (hr.cx[k] - G.cx[k]),
                  fabs (hr.cy[k] - G.cy[k])));
          if (G.m00[k] > 0.0f)
            g_assert_cmpfloat (fabs (hr.m00[k] - G.m00[k]) / G.m00[k], <,
                1e-5);
        }
        g_print ("pitch %5.2f %2u-bit variant %u: worst |GPU - reference| "
            "%.2e pixels\n", pitches[q], bits, v, worst);
        g_assert_cmpfloat (worst, <, 1e-4);
      }
      ok (cudaFree ((void *) dg.bx), "free");
      ok (cudaFree ((void *) dg.by), "free");
      ok (cudaFree ((void *) dg.measure), "free");
      ok (cudaFree ((void *) dg.weight), "free");
      ok (cudaFree (df.data[0]), "free");
      ok (cudaFree ((void *) dg.ref_x), "free");
      ok (cudaFree (dblock), "free");
      g_free (hblock);
      g_free (refs);
      g_free (why);
      g_free (lut);
      grid_clear (&G);
      g_free (tx);
      g_free (ty);
      g_free (img);
    }
}
#endif

/* Saturated, flat-topped spots (a Gaussian of sigma 2 px peaking at 8x full
 * scale, clipped): brightest 9 takes the whole plateau, not its top rows
 * (0.13 px RMS here; a pixel-order cut among the tied weights was 1.5 px
 * RMS off). */
static void
test_saturated (void)
{
  const int w = 20, h = 20;
  uint8_t *img = g_malloc0 (w * h);
  CoFrame f = gray (img, w, h, 8);
  GRand *rnd = g_rand_new_with_seed (7);
  double se = 0.0;
  Grid G;
  int t, x, y;

  grid_init (&G, 20.0, 0.0, 0.0, 1, 1, w, h);
  G.g.method = CO_SH_BRIGHTEST;
  G.g.brightest = 9;
  for (t = 0; t < 200; t++) {
    double sx = g_rand_double_range (rnd, 8.0, 12.0);
    double sy = g_rand_double_range (rnd, 8.0, 12.0);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        double dx = x + 0.5 - sx, dy = y + 0.5 - sy;
        double v = 2040.0 * exp (-(dx * dx + dy * dy) / 8.0);
        img[y * w + x] = (uint8_t) (v > 255.0 ? 255.0 : v);
      }
    g_assert_cmpint (co_sh_reference (&G.g, &f, &G.r), ==, 0);
    g_assert_cmpint (G.flags[0], ==, CO_SH_VALID);
    se += (G.cx[0] - sx) * (G.cx[0] - sx) + (G.cy[0] - sy) * (G.cy[0] - sy);
  }
  g_test_message ("brightest 9 on saturated spots: %.3f px RMS",
      sqrt (se / 200));
  g_assert_cmpfloat (sqrt (se / 200), <, 0.15);
  grid_clear (&G);
  g_rand_free (rnd);
  g_free (img);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shcentroid/boundaries", test_boundaries);
  g_test_add_func ("/shcentroid/exact", test_exact);
  g_test_add_func ("/shcentroid/methods", test_methods);
  g_test_add_func ("/shcentroid/saturated", test_saturated);
  g_test_add_func ("/shcentroid/spots", test_spots);
#ifdef HAVE_CUDA
  g_test_add_func ("/shcentroid/cuda-equals-reference",
      test_cuda_equals_reference);
#endif
  return g_test_run ();
}
