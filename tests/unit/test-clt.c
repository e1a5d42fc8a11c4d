/* cudaoptics — LGPL-2.1-or-later
 *
 * cudaaberration's tile transform (kernels/clt_math.h, clt_cpu.c) against
 * direct double-precision evaluations of its definitions:
 * - the 8-point DCT-IV and DST-IV;
 * - one tile's four layers against the closed form
 *   0.25 sum w[y] w[x] X[y][x] cs(pi (x + 4.5)(kh + 0.5)/8) cs(pi (y + 4.5)(kv + 0.5)/8);
 * - forward then inverse gives the plane back on random and natural
 *   images (Princen-Bradley), every pixel;
 * - a fractional shift by window shift and phase rotation equals the
 *   analytically shifted band-limited image; +d then -d gives the input;
 * - a kernel multiplied in equals the direct convolution; a delta kernel is
 *   the identity.
 */
#include <math.h>
#include <string.h>
#include <glib.h>
#include <gst/gst.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif
#include "clt.h"
#include "clt_build.h"
#include "gstcoimage.h"
#include "ssim.h"

static double
dtt_direct (int sine, const double *x, int k)
{
  double acc = 0.0;
  int n;
  for (n = 0; n < 8; n++) {
    double a = G_PI * (2 * n + 1) * (2 * k + 1) / 32.0;
    acc += x[n] * 0.5 * (sine ? sin (a) : cos (a));
  }
  return acc;
}

static void
test_dtt8 (void)
{
  GRand *r = g_rand_new_with_seed (1);
  double worst = 0.0;
  int trial, sine, k, n;

  for (trial = 0; trial < 200; trial++)
    for (sine = 0; sine < 2; sine++) {
      float xf[8], yf[8], back[8];
      double xd[8];
      for (n = 0; n < 8; n++)
        xd[n] = xf[n] = (float) g_rand_double_range (r, -1.0, 1.0);
      co_clt_dtt8 (sine, xf, 1, yf, 1);
      for (k = 0; k < 8; k++)
        worst = MAX (worst, fabs (yf[k] - dtt_direct (sine, xd, k)));
      /* orthonormal and symmetric: its own inverse */
      co_clt_dtt8 (sine, yf, 1, back, 1);
      for (n = 0; n < 8; n++)
        g_assert_cmpfloat (fabs (back[n] - xf[n]), <, 1e-6);
    }
  g_test_message ("DCT-IV/DST-IV against direct double: max |error| %.2e",
      worst);
  g_assert_cmpfloat (worst, <, 1e-6);
  g_rand_free (r);
}

static void
test_sincos (void)
{
  double worst = 0.0;
  int i;
  for (i = -2000; i <= 2000; i++) {
    float x = i / 1000.0f, s, c;
    co_clt_sincos (x, &s, &c);
    worst = MAX (worst, MAX (fabs (s - sin (x)), fabs (c - cos (x))));
  }
  g_test_message ("co_clt_sincos on [-2, 2]: max |error| %.2e", worst);
  g_assert_cmpfloat (worst, <, 3e-7);
}

/* the four layers of a tile, in double, from the closed form */
static void
tile_direct (const float *x, double out[256])
{
  int q, kv, kh, yy, xx;
  for (q = 0; q < 4; q++)
    for (kv = 0; kv < 8; kv++)
      for (kh = 0; kh < 8; kh++) {
        double acc = 0.0;
        for (yy = 0; yy < 16; yy++)
          for (xx = 0; xx < 16; xx++) {
            double wy = sin (G_PI * (yy + 0.5) / 16), wx = sin (G_PI * (xx +
                    0.5) / 16);
            double ax = G_PI * (xx + 4.5) * (kh + 0.5) / 8;
            double ay = G_PI * (yy + 4.5) * (kv + 0.5) / 8;
            acc += wy * wx * x[yy * 16 + xx] * ((q & 1) ? sin (ax) :
                cos (ax)) * ((q & 2) ? sin (ay) : cos (ay));
          }
        out[q * 64 + kv * 8 + kh] = 0.25 * acc;
      }
}

static void
test_tile_closed_form (void)
{
  GRand *r = g_rand_new_with_seed (2);
  float x[256], z[256];
  double d[256], worst = 0.0;
  int i, trial;

  for (trial = 0; trial < 20; trial++) {
    for (i = 0; i < 256; i++)
      x[i] = (float) g_rand_double (r);
    co_clt_forward_tile (x, 16, 0.0f, 0.0f, z);
    tile_direct (x, d);
    for (i = 0; i < 256; i++)
      worst = MAX (worst, fabs (z[i] - d[i]));
  }
  g_test_message ("tile against the closed form: max |error| %.2e", worst);
  g_assert_cmpfloat (worst, <, 2e-6);
  g_rand_free (r);
}

/* The Bayer shortcut (4 transforms for 3 colours) equals the full four
 * layers of each colour's sparse plane, for every parity of the colour in
 * the tile and with shifted windows. */
static void
test_bayer_symmetry (void)
{
  GRand *r = g_rand_new_with_seed (4);
  float raw[256], sparse[256], full[256], fast[256];
  double worst = 0.0;
  int trial, kind, px, py, i;

  for (trial = 0; trial < 10; trial++) {
    const float sx = (float) g_rand_double_range (r, -0.5, 0.5);
    const float sy = trial ? (float) g_rand_double_range (r, -0.5, 0.5) : 0;
    for (i = 0; i < 256; i++)
      raw[i] = (float) g_rand_double (r);
    for (kind = 0; kind < 2; kind++)
      for (py = 0; py < 2; py++)
        for (px = 0; px < 2; px++) {
          if (kind && py)       /* green: one parity, px */
            continue;
          for (i = 0; i < 256; i++) {
            int x = i % 16, y = i / 16;
            gboolean on = kind ? ((x + y) & 1) == px : (x & 1) == px &&
                (y & 1) == py;
            sparse[i] = on ? raw[i] : 0.0f;
          }
          co_clt_forward_tile (sparse, 16, sx, sy, full);
          co_clt_forward_tile_bayer (raw, 16, kind, px, py, sx, sy, fast);
          for (i = 0; i < 256; i++)
            worst = MAX (worst, fabs (full[i] - fast[i]));
        }
  }
  g_test_message ("Bayer shortcut against the four layers of the sparse "
      "planes: max |error| %.2e", worst);
  g_assert_cmpfloat (worst, <, 1e-6);
  g_rand_free (r);
}

static gfloat *
natural_plane (const gchar * name, gint * w, gint * h)
{
  gchar *path = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"), "natural",
      name, NULL);
  gchar *why = NULL;
  guint8 *g = gst_co_decode_gray (path, w, h, &why);
  gfloat *f;
  gint i;

  if (!g)
    g_error ("%s: %s", path, why);
  f = g_new (gfloat, (gsize) * w * *h);
  for (i = 0; i < *w * *h; i++)
    f[i] = g[i] / 255.0f;
  g_free (g);
  g_free (path);
  return f;
}

static gfloat *
round_trip (const gfloat * img, gint w, gint h, const gfloat * dx,
    const gfloat * dy, const gfloat * kernel)
{
  gint tx, ty;
  gfloat *clt, *out = g_new (gfloat, (gsize) w * h);

  co_clt_tiles (w, h, &tx, &ty);
  clt = g_new (gfloat, (gsize) tx * ty * CO_CLT_COEFFS);
  co_clt_forward_cpu (img, w, h, w, dx, dy, clt);
  if (kernel)
    co_clt_convolve_cpu (clt, tx * ty, kernel);
  co_clt_inverse_cpu (clt, w, h, out, w);
  g_free (clt);
  return out;
}

static double
max_diff (const gfloat * a, const gfloat * b, gint w, gint h, gint margin)
{
  double m = 0.0;
  gint x, y;
  for (y = margin; y < h - margin; y++)
    for (x = margin; x < w - margin; x++)
      m = MAX (m, fabs (a[y * w + x] - b[y * w + x]));
  return m;
}

static void
test_reconstruction (void)
{
  const gchar *names[] = { "camera.png", "coffee.png" };
  GRand *r = g_rand_new_with_seed (3);
  gint w = 61, h = 45, i;
  gfloat *img = g_new (gfloat, w * h), *out;
  double e;

  /* random, at sizes that are not multiples of 8 */
  for (i = 0; i < w * h; i++)
    img[i] = (float) g_rand_double (r);
  out = round_trip (img, w, h, NULL, NULL, NULL);
  e = max_diff (img, out, w, h, 0);
  g_test_message ("random %dx%d: forward + inverse, max |error| %.2e (of 1)",
      w, h, e);
  g_assert_cmpfloat (e, <, 1e-5);
  g_free (img);
  g_free (out);
  for (i = 0; i < (gint) G_N_ELEMENTS (names); i++) {
    img = natural_plane (names[i], &w, &h);
    out = round_trip (img, w, h, NULL, NULL, NULL);
    e = max_diff (img, out, w, h, 0);
    g_test_message ("%s %dx%d: forward + inverse, max |error| %.2e", names[i],
        w, h, e);
    g_assert_cmpfloat (e, <, 1e-5);
    g_free (img);
    g_free (out);
  }
  g_rand_free (r);
}

/* a smooth, band-limited picture (cosines up to 0.12 cycles a pixel) at
 * any real position */
static double
smooth (double x, double y)
{
  return 0.5 + 0.2 * cos (2 * G_PI * (0.05 * x + 0.03 * y) + 0.3) +
      0.15 * sin (2 * G_PI * (0.11 * x - 0.07 * y) + 1.1) +
      0.1 * cos (2 * G_PI * (0.02 * x + 0.12 * y) - 0.4);
}

static void
test_fractional_shift (void)
{
  const float shifts[][2] = { {0.3f, -0.45f}, {-0.5f, 0.25f}, {2.3f, -1.7f},
  {0.0f, 0.5f}
  };
  const gint w = 96, h = 80, margin = 20;
  gint tx, ty, s, i, x, y;
  gfloat *img = g_new (gfloat, w * h), *want = g_new (gfloat, w * h);
  gfloat *dx, *dy, *out, *back;

  co_clt_tiles (w, h, &tx, &ty);
  dx = g_new (gfloat, tx * ty);
  dy = g_new (gfloat, tx * ty);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      img[y * w + x] = (float) smooth (x, y);
  for (s = 0; s < (gint) G_N_ELEMENTS (shifts); s++) {
    double e, e_back, e_none;
    for (i = 0; i < tx * ty; i++) {
      dx[i] = shifts[s][0];
      dy[i] = shifts[s][1];
    }
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        want[y * w + x] = (float) smooth (x + shifts[s][0], y + shifts[s][1]);
    out = round_trip (img, w, h, dx, dy, NULL);
    e = max_diff (out, want, w, h, margin);
    e_none = max_diff (img, want, w, h, margin);
    /* and back: -d of the shifted picture */
    for (i = 0; i < tx * ty; i++) {
      dx[i] = -shifts[s][0];
      dy[i] = -shifts[s][1];
    }
    back = round_trip (want, w, h, dx, dy, NULL);
    e_back = max_diff (back, img, w, h, margin);
    g_test_message ("shift (%g, %g): max |error| %.4f against the shifted "
        "picture (unshifted: %.4f); back again: %.4f", shifts[s][0],
        shifts[s][1], e, e_none, e_back);
    g_assert_cmpfloat (e, <, 0.01);
    g_assert_cmpfloat (e_back, <, 0.01);
    g_free (out);
    g_free (back);
  }
  g_free (img);
  g_free (want);
  g_free (dx);
  g_free (dy);
}

/* The four kernel layers of a small spatial kernel h[my][mx] (|m| <= r):
 * k0 = sum h cos cos, k1 = sum h sin(x) cos(y), k2 = cos(x) sin(y),
 * k3 = sin sin, w_k = pi (k + 0.5) / 8. */
static void
kernel_layers (const double *hk, int r, float k[256])
{
  int kv, kh, mx, my, n = 2 * r + 1;
  for (kv = 0; kv < 8; kv++)
    for (kh = 0; kh < 8; kh++) {
      double a[4] = { 0, 0, 0, 0 };
      for (my = -r; my <= r; my++)
        for (mx = -r; mx <= r; mx++) {
          double hv = hk[(my + r) * n + (mx + r)];
          double ax = G_PI * (kh + 0.5) / 8 * mx, ay = G_PI * (kv + 0.5) /
              8 * my;
          a[0] += hv * cos (ax) * cos (ay);
          a[1] += hv * sin (ax) * cos (ay);
          a[2] += hv * cos (ax) * sin (ay);
          a[3] += hv * sin (ax) * sin (ay);
        }
      for (mx = 0; mx < 4; mx++)
        k[mx * 64 + kv * 8 + kh] = (float) a[mx];
    }
}

static void
test_convolution (void)
{
  const gint w = 96, h = 80, r = 3, n = 2 * r + 1, margin = 20;
  double hk[49], sum = 0.0, e, rms = 0.0, sig = 0.0;
  float k[256];
  gfloat *img = g_new (gfloat, w * h), *want = g_new0 (gfloat, w * h), *out;
  gint x, y, mx, my, cnt = 0;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      img[y * w + x] = (float) smooth (x, y);
  /* a delta: the identity */
  memset (hk, 0, sizeof hk);
  hk[r * n + r] = 1.0;
  kernel_layers (hk, r, k);
  out = round_trip (img, w, h, NULL, NULL, k);
  e = max_diff (out, img, w, h, 0);
  g_test_message ("delta kernel: max |error| %.2e", e);
  g_assert_cmpfloat (e, <, 1e-5);
  g_free (out);
  /* an asymmetric blur: y[p] = sum h[m] x[p - m] */
  for (my = -r; my <= r; my++)
    for (mx = -r; mx <= r; mx++)
      sum += hk[(my + r) * n + mx + r] = exp (-((mx - 0.7) * (mx - 0.7) +
              (my + 0.4) * (my + 0.4) * 2.0) / 2.5);
  for (x = 0; x < n * n; x++)
    hk[x] /= sum;
  kernel_layers (hk, r, k);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double acc = 0.0;
      for (my = -r; my <= r; my++)
        for (mx = -r; mx <= r; mx++)
          acc += hk[(my + r) * n + mx + r] * smooth (x - mx, y - my);
      want[y * w + x] = (float) acc;
    }
  out = round_trip (img, w, h, NULL, NULL, k);
  e = max_diff (out, want, w, h, margin);
  for (y = margin; y < h - margin; y++)
    for (x = margin; x < w - margin; x++, cnt++) {
      double d = out[y * w + x] - want[y * w + x];
      rms += d * d;
      sig += (want[y * w + x] - img[y * w + x]) * (want[y * w + x] -
          img[y * w + x]);
    }
  g_test_message ("asymmetric 7x7 blur: max |error| %.4f, rms %.5f against "
      "the direct convolution (the blur itself changes the picture by rms "
      "%.4f)", e, sqrt (rms / cnt), sqrt (sig / cnt));
  /* the product of these layers applies h(u) cos (pi ux / 16)
   * cos (pi uy / 16), not h (co_clt_spectrum_kernel says why): 2.4% rms
   * here */
  g_assert_cmpfloat (sqrt (rms / cnt), <, 0.03);
  g_assert_cmpfloat (sqrt (rms / cnt), <, 0.5 * sqrt (sig / cnt));
  g_free (out);
  {
    /* the taps divided by those cosines first: the convolution itself,
     * and co_clt_spectrum_kernel's layers are these */
    double hc[49], rms2 = 0.0, lmax = 0.0;
    float k2[256];
    CoCltSpectrum sp;
    for (my = -r; my <= r; my++)
      for (mx = -r; mx <= r; mx++)
        hc[(my + r) * n + mx + r] = hk[(my + r) * n + mx + r] /
            (cos (G_PI * mx / 16) * cos (G_PI * my / 16));
    kernel_layers (hc, r, k);
    co_clt_spectrum_kernel (hk, n, 0, 0, &sp);
    co_clt_spectrum_layers (&sp, k2);
    for (x = 0; x < 256; x++)
      lmax = MAX (lmax, fabs (k[x] - k2[x]));
    g_assert_cmpfloat (lmax, <, 1e-6);
    out = round_trip (img, w, h, NULL, NULL, k);
    e = max_diff (out, want, w, h, margin);
    for (y = margin; y < h - margin; y++)
      for (x = margin; x < w - margin; x++) {
        double d = out[y * w + x] - want[y * w + x];
        rms2 += d * d;
      }
    g_test_message ("the same blur with its taps compensated "
        "(co_clt_spectrum_kernel): max |error| %.5f, rms %.6f", e,
        sqrt (rms2 / cnt));
    g_assert_cmpfloat (sqrt (rms2 / cnt), <, 0.1 * sqrt (rms / cnt));
    g_free (out);
  }
  g_free (img);
  g_free (want);
}

/* The space-variant lens of the deconvolution test: a Gaussian that
 * widens towards the corners and moves outwards (lateral shift), at
 * field position (x, y) of a w x h frame, sampled on 15 x 15. */
#define PSF_N 15
static void
lens_psf (double x, double y, int w, int h, double *psf, double *cx,
    double *cy)
{
  const double xc = 0.5 * (w - 1), yc = 0.5 * (h - 1);
  const double rr = (x - xc) * (x - xc) + (y - yc) * (y - yc);
  const double r2 = rr / (xc * xc + yc * yc);
  const double sigma = 0.7 + 1.1 * r2, sum0 = 0.0;
  double sum = sum0;
  int i, j;

  *cx = 0.6 * (x - xc) / xc;
  *cy = 0.6 * (y - yc) / yc;
  for (j = 0; j < PSF_N; j++)
    for (i = 0; i < PSF_N; i++) {
      double dx = i - PSF_N / 2 - *cx, dy = j - PSF_N / 2 - *cy;
      sum += psf[j * PSF_N + i] = exp (-(dx * dx + dy * dy) / (2 * sigma *
              sigma));
    }
  for (i = 0; i < PSF_N * PSF_N; i++)
    psf[i] /= sum;
}

static double
psnr (const gfloat * a, const gfloat * b, gint w, gint x0, gint y0, gint x1,
    gint y1)
{
  double se = 0;
  gint x, y;
  for (y = y0; y < y1; y++)
    for (x = x0; x < x1; x++)
      se += (a[y * w + x] - b[y * w + x]) * (a[y * w + x] - b[y * w + x]);
  return 10 * log10 (1.0 / (se / ((x1 - x0) * (y1 - y0))));
}

static guint8 *
to_u8 (const gfloat * f, gint n)
{
  guint8 *u = g_new (guint8, n);
  gint i;
  for (i = 0; i < n; i++)
    u[i] = (guint8) CLAMP (f[i] * 255.0f + 0.5f, 0.0f, 255.0f);
  return u;
}

/* A natural picture blurred by a known space-variant PSF, restored with
 * Wiener kernels built from that PSF on a stride-16 grid (each tile takes
 * the kernel of the node nearest its centre, whose shift moves the
 * picture back exactly): PSNR and SSIM rise in every region. */
static void
test_deconvolution (void)
{
  gint w, h, tx, ty, x, y, i, j, m, n_gx, n_gy;
  gfloat *sharp = natural_plane ("camera.png", &w, &h);
  gfloat *blur = g_new (gfloat, w * h), *out = g_new (gfloat, w * h);
  gfloat *clt, *dx, *dy, *kern;
  double psf[PSF_N * PSF_N], cx, cy;
  /* regularisation: the smooth sky at the top loses PSNR below about 0.03
   * (2e-3: -2.2 dB there, +7 dB in the centre, SSIM up everywhere), most
   * likely the products' aliasing (test_convolution) amplified by the
   * inverse */
  const double nsr = 0.03;
  gint worst_gain_region = -1;
  double worst_gain = 1e9;

  /* blurred: each pixel gathers through the PSF of its own position */
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double acc = 0;
      lens_psf (x, y, w, h, psf, &cx, &cy);
      for (j = 0; j < PSF_N; j++)
        for (i = 0; i < PSF_N; i++) {
          gint sx = CLAMP (x - (i - PSF_N / 2), 0, w - 1);
          gint sy = CLAMP (y - (j - PSF_N / 2), 0, h - 1);
          acc += psf[j * PSF_N + i] * sharp[sy * w + sx];
        }
      blur[y * w + x] = (gfloat) acc;
    }
  /* the kernel grid: nodes every 16 pixels */
  n_gx = (w - 1) / 16 + 2;
  n_gy = (h - 1) / 16 + 2;
  kern = g_new (gfloat, (gsize) n_gx * n_gy * (2 + CO_CLT_COEFFS));
  for (j = 0; j < n_gy; j++)
    for (i = 0; i < n_gx; i++) {
      gfloat *k = kern + ((gsize) j * n_gx + i) * (2 + CO_CLT_COEFFS);
      CoCltSpectrum sp;
      lens_psf (16 * i, 16 * j, w, h, psf, &cx, &cy);
      co_clt_centroid (psf, PSF_N, &cx, &cy);
      co_clt_spectrum (psf, PSF_N, cx, cy, &sp);
      co_clt_spectrum_wiener (&sp, nsr);
      co_clt_spectrum_layers (&sp, k + 2);
      /* the blur moved the picture by the centroid: sample it there */
      k[0] = (gfloat) cx;
      k[1] = (gfloat) cy;
    }
  co_clt_tiles (w, h, &tx, &ty);
  clt = g_new (gfloat, (gsize) tx * ty * CO_CLT_COEFFS);
  dx = g_new (gfloat, tx * ty);
  dy = g_new (gfloat, tx * ty);
  for (m = 0; m < tx * ty; m++) {
    /* the node nearest the tile's centre */
    const gfloat *k = kern + (gsize) co_clt_tile_node (m % tx, m / tx, 0, 0, 16,
        n_gx, n_gy) * (2 + CO_CLT_COEFFS);
    dx[m] = k[0];
    dy[m] = k[1];
  }
  co_clt_forward_cpu (blur, w, h, w, dx, dy, clt);
  for (m = 0; m < tx * ty; m++) {
    co_clt_convolve (clt + (gsize) m * CO_CLT_COEFFS, kern + (gsize)
        co_clt_tile_node (m % tx, m / tx, 0, 0, 16, n_gx, n_gy) * (2 +
            CO_CLT_COEFFS) + 2);
  }
  co_clt_inverse_cpu (clt, w, h, out, w);
  {
    /* regions: the four quadrants and the centre, 16 px from the edges */
    const gint b = 16, hw = w / 2, hh = h / 2;
    const gint reg[5][4] = { {b, b, hw, hh}, {hw, b, w - b, hh},
    {b, hh, hw, h - b}, {hw, hh, w - b, h - b},
    {w / 4, h / 4, 3 * w / 4, 3 * h / 4}
    };
    const gchar *names[] = { "top left", "top right", "bottom left",
      "bottom right", "centre"
    };
    guint8 *us = to_u8 (sharp, w * h), *ub = to_u8 (blur, w * h);
    guint8 *uo = to_u8 (out, w * h);
    gint r;
    for (r = 0; r < 5; r++) {
      const gint *q = reg[r];
      double pb = psnr (blur, sharp, w, q[0], q[1], q[2], q[3]);
      double po = psnr (out, sharp, w, q[0], q[1], q[2], q[3]);
      gint off = q[1] * w + q[0];
      double sb = co_ssim_gray (ub + off, w, us + off, w, q[2] - q[0],
          q[3] - q[1], NULL);
      double so = co_ssim_gray (uo + off, w, us + off, w, q[2] - q[0],
          q[3] - q[1], NULL);
      g_test_message ("%-12s PSNR blurred %.2f dB, restored %.2f dB (+%.2f);"
          " SSIM %.4f -> %.4f", names[r], pb, po, po - pb, sb, so);
      if (po - pb < worst_gain) {
        worst_gain = po - pb;
        worst_gain_region = r;
      }
      g_assert_cmpfloat (so, >, sb + 0.01);
    }
    g_assert_cmpfloat (worst_gain, >, 1.5);
    (void) worst_gain_region;
    g_free (us);
    g_free (ub);
    g_free (uo);
  }
  g_free (kern);
  g_free (clt);
  g_free (dx);
  g_free (dy);
  g_free (sharp);
  g_free (blur);
  g_free (out);
}

/* The parametric lens's nodes (co-clt-kernels, the element's own
 * kernels): no blur, no inversion is the identity; a colour's
 * magnification is its shift; a Bayer colour's kernel interpolates it (a
 * constant red plane sampled one pixel in four comes back constant). */
static void
test_lens_node (void)
{
  CoCltLens lens;
  float node[258];
  gint i, w = 64, h = 48, tx, ty;
  gfloat *img, *out, *clt;

  co_clt_lens_init (&lens, 201, 101);
  lens.sigma0 = 0.0;
  co_clt_lens_node (&lens, 100, 50, 1, node);
  g_assert_cmpfloat (fabs (node[0]), <, 1e-9);
  for (i = 0; i < 256; i++)
    g_assert_cmpfloat (fabs (node[2 + i] - (i < 64 ? 1.0f : 0.0f)), <, 1e-6);
  lens.chroma[0] = 1.01;
  co_clt_lens_node (&lens, 200, 50, 0, node);
  g_assert_cmpfloat (fabs (node[0] - 1.0f), <, 1e-5);  /* 100 px * 1% */
  g_assert_cmpfloat (fabs (node[1]), <, 1e-5);

  /* red of an RGGB mosaic: one pixel in four */
  co_clt_lens_init (&lens, w, h);
  lens.sigma0 = 0.0;
  lens.bayer = 1;
  co_clt_lens_node (&lens, w / 2, h / 2, 0, node);
  img = g_new0 (gfloat, w * h);
  out = g_new (gfloat, w * h);
  for (i = 0; i < w * h; i++)
    if ((i % w) % 2 == 0 && (i / w) % 2 == 0)
      img[i] = 0.6f;
  co_clt_tiles (w, h, &tx, &ty);
  clt = g_new (gfloat, (gsize) tx * ty * CO_CLT_COEFFS);
  co_clt_forward_cpu (img, w, h, w, NULL, NULL, clt);
  co_clt_convolve_cpu (clt, tx * ty, node + 2);
  co_clt_inverse_cpu (clt, w, h, out, w);
  {
    double e = max_diff (out, img, w, h, 8), m = 0;
    gint x, y;
    for (y = 8; y < h - 8; y++)
      for (x = 8; x < w - 8; x++)
        m = MAX (m, fabs (out[y * w + x] - 0.6));
    g_test_message ("Bayer red interpolation of a constant: max |error| "
        "%.4f (against the sparse plane %.2f)", m, e);
    /* exact once the interpolation's taps are compensated for the
     * windows (co_clt_spectrum_kernel); 2.3% of the level before */
    g_assert_cmpfloat (m, <, 1e-4);
  }
  g_free (img);
  g_free (out);
  g_free (clt);
}

/* Tiles take their nodes' offsets interpolated at their centres: a 3 x 2
 * grid at stride 16 whose dx grows by 1 a node (and dy by 2 a row), and
 * per colour by 0.1, gives each tile (x0 + 8 tx - 0.5) / 16 and so on. */
static void
test_tile_shifts (void)
{
  const gint gw = 3, gh = 2, stride = 16, w = 40, h = 20, x0 = 3, y0 = 5;
  gfloat nodes[3 * 2 * 3 * 258], *dx, *dy;
  gint i, j, c, tx, ty;

  memset (nodes, 0, sizeof nodes);
  for (j = 0; j < gh; j++)
    for (i = 0; i < gw; i++)
      for (c = 0; c < 3; c++) {
        nodes[((j * gw + i) * 3 + c) * 258] = i + 0.1f * c;
        nodes[((j * gw + i) * 3 + c) * 258 + 1] = 2.0f * j;
      }
  co_clt_tiles (w, h, &tx, &ty);
  dx = g_new (gfloat, 3 * tx * ty);
  dy = g_new (gfloat, 3 * tx * ty);
  co_clt_tile_shifts (nodes, gw, gh, stride, 3, x0, y0, w, h, dx, dy);
  for (j = 0; j < ty; j++)
    for (i = 0; i < tx; i++)
      for (c = 0; c < 3; c++) {
        double u = CLAMP ((x0 + 8.0 * i - 0.5) / stride, 0, gw - 1);
        double v = CLAMP ((y0 + 8.0 * j - 0.5) / stride, 0, gh - 1);
        g_assert_cmpfloat (fabs (dx[3 * (j * tx + i) + c] - (u + 0.1 * c)),
            <, 1e-6);
        g_assert_cmpfloat (fabs (dy[3 * (j * tx + i) + c] - 2 * v), <, 1e-6);
      }
  g_free (dx);
  g_free (dy);
}

/* A natural RGB picture as an RGGB mosaic: the Bayer forward transform
 * (4 transforms a tile) equals the full one of each colour's sparse plane;
 * interpolated by each colour's kernel (co_clt_lens_node, bayer) it comes
 * back as a colour picture, compared with the original and with a
 * pixel-domain bilinear demosaic. */
static void
test_bayer_image (void)
{
  gchar *path = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"), "natural",
      "coffee.png", NULL);
  gchar *why = NULL;
  gint w, h, tx, ty, x, y, c, i, rx, ry, bx, by, g;
  guint8 *rgb = gst_co_decode_rgb (path, &w, &h, &why), *raw;
  gfloat *clt[3], *full, *sparse, *out, *bil;
  double se_clt[3] = { 0 }, se_bil[3] = { 0 }, worst = 0;
  gint n = 0;

  g_assert_nonnull (rgb);
  co_clt_tiles (w, h, &tx, &ty);
  co_clt_bayer_sites (CO_BAYER_RGGB, &rx, &ry, &bx, &by, &g);
  raw = g_new (guint8, (gsize) w * h);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      c = (x & 1) == rx && (y & 1) == ry ? 0 : (x & 1) == bx && (y & 1) == by
          ? 2 : 1;
      raw[y * w + x] = rgb[3 * (y * w + x) + c];
    }
  full = g_new (gfloat, (gsize) tx * ty * CO_CLT_COEFFS);
  sparse = g_new (gfloat, (gsize) w * h);
  out = g_new (gfloat, (gsize) w * h);
  bil = g_new (gfloat, (gsize) w * h);
  for (c = 0; c < 3; c++)
    clt[c] = g_new (gfloat, (gsize) tx * ty * CO_CLT_COEFFS);
  co_clt_forward_bayer_cpu (raw, w, h, w, 1, 1.0f / 255, CO_BAYER_RGGB, NULL,
      NULL, NULL, clt);
  for (c = 0; c < 3; c++) {
    CoCltLens lens;
    float node[258];

    /* the shortcut against the full transform of the sparse plane */
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        gboolean on = c == 1 ? ((x + y) & 1) == g : c == 0 ?
            (x & 1) == rx && (y & 1) == ry : (x & 1) == bx && (y & 1) == by;
        sparse[y * w + x] = on ? raw[y * w + x] / 255.0f : 0.0f;
      }
    co_clt_forward_cpu (sparse, w, h, w, NULL, NULL, full);
    for (i = 0; i < tx * ty * CO_CLT_COEFFS; i++)
      worst = MAX (worst, fabs (full[i] - clt[c][i]));
    /* each colour interpolated by its kernel */
    co_clt_lens_init (&lens, w, h);
    lens.sigma0 = 0.0;
    lens.bayer = 1;
    co_clt_lens_node (&lens, w / 2, h / 2, c, node);
    co_clt_convolve_cpu (clt[c], tx * ty, node + 2);
    co_clt_inverse_cpu (clt[c], w, h, out, w);
    /* the pixel-domain bilinear demosaic of the same colour */
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        double acc = 0;
        gint dy_, dx_;
        for (dy_ = -1; dy_ <= 1; dy_++)
          for (dx_ = -1; dx_ <= 1; dx_++) {
            gint sx = CLAMP (x + dx_, 0, w - 1), sy = CLAMP (y + dy_, 0,
                h - 1);
            double k = c == 1 ? (dx_ == 0 && dy_ == 0 ? 1 : (dx_ == 0
                    || dy_ == 0) ? 0.25 : 0) : (dx_ == 0 ? 1 : 0.5) *
                (dy_ == 0 ? 1 : 0.5);
            acc += k * sparse[sy * w + sx];
          }
        bil[y * w + x] = (gfloat) acc;
      }
    for (y = 8; y < h - 8; y++)
      for (x = 8; x < w - 8; x++) {
        double t = rgb[3 * (y * w + x) + c] / 255.0;
        se_clt[c] += (out[y * w + x] - t) * (out[y * w + x] - t);
        se_bil[c] += (bil[y * w + x] - t) * (bil[y * w + x] - t);
        if (c == 0)
          n++;
      }
  }
  g_test_message ("Bayer shortcut over a %dx%d mosaic against the sparse "
      "planes' full transforms: max |error| %.2e", w, h, worst);
  g_assert_cmpfloat (worst, <, 1e-6);
  for (c = 0; c < 3; c++) {
    double pc = 10 * log10 (n / se_clt[c]), pb = 10 * log10 (n / se_bil[c]);
    g_test_message ("%s: demosaic by its CLT kernel %.2f dB, pixel-domain "
        "bilinear %.2f dB", c == 0 ? "red" : c == 1 ? "green" : "blue", pc,
        pb);
    /* the same as the pixel-domain bilinear demosaic, to 0.01 dB (0.3 to
     * 1.4 dB under it before the taps were compensated) */
    g_assert_cmpfloat (fabs (pc - pb), <, 0.05);
  }
  for (c = 0; c < 3; c++)
    g_free (clt[c]);
  g_free (full);
  g_free (sparse);
  g_free (out);
  g_free (bil);
  g_free (raw);
  g_free (rgb);
  g_free (path);
}

#ifdef HAVE_CUDA
static void
check_cuda (cudaError_t e, const char *what)
{
  if (e != cudaSuccess)
    g_error ("%s: %s", what, cudaGetErrorString (e));
}

static void *
to_device (const void *host, gsize n)
{
  void *d = NULL;
  check_cuda (cudaMalloc (&d, n), "cudaMalloc");
  check_cuda (cudaMemcpy (d, host, n, cudaMemcpyHostToDevice), "upload");
  return d;
}

/* The CUDA forward and inverse transforms give the C reference's bits, on
 * a random plane of an odd size and on a natural one, with shifts of
 * every kind per tile; and the time of a 5 MP plane. */
static void
test_cuda_equals_c (void)
{
  GRand *r = g_rand_new_with_seed (9);
  gint dev = 0, pic;

  if (cudaGetDeviceCount (&dev) != cudaSuccess || dev < 1) {
    g_test_skip ("no usable CUDA device");
    g_rand_free (r);
    return;
  }
  for (pic = 0; pic < 3; pic++) {
    gint w = 333, h = 201, tx, ty, i, bad = 0;
    gfloat *img, *dx, *dy, *clt_c, *clt_g, *out_c, *out_g;
    void *d_img, *d_dx, *d_dy, *d_clt, *d_out;
    gsize nc;
    double t0, t1, t2;

    if (pic == 1) {
      img = natural_plane ("coffee.png", &w, &h);
    } else {
      if (pic == 2) {
        w = 2592;
        h = 1936;
      }
      img = g_new (gfloat, (gsize) w * h);
      for (i = 0; i < w * h; i++)
        img[i] = (gfloat) g_rand_double (r);
    }
    co_clt_tiles (w, h, &tx, &ty);
    nc = (gsize) tx * ty * CO_CLT_COEFFS;
    dx = g_new (gfloat, tx * ty);
    dy = g_new (gfloat, tx * ty);
    for (i = 0; i < tx * ty; i++) {
      /* integer and fractional parts, and exact zeros now and then */
      dx[i] = i % 7 ? (gfloat) g_rand_double_range (r, -2.5, 2.5) : 0.0f;
      dy[i] = i % 5 ? (gfloat) g_rand_double_range (r, -2.5, 2.5) : 0.0f;
    }
    clt_c = g_new (gfloat, nc);
    clt_g = g_new (gfloat, nc);
    out_c = g_new (gfloat, (gsize) w * h);
    out_g = g_new (gfloat, (gsize) w * h);
    t0 = g_get_monotonic_time ();
    co_clt_forward_cpu (img, w, h, w, dx, dy, clt_c);
    co_clt_inverse_cpu (clt_c, w, h, out_c, w);
    t1 = g_get_monotonic_time ();
    d_img = to_device (img, sizeof (gfloat) * w * h);
    d_dx = to_device (dx, sizeof (gfloat) * tx * ty);
    d_dy = to_device (dy, sizeof (gfloat) * tx * ty);
    check_cuda (cudaMalloc (&d_clt, sizeof (gfloat) * nc), "cudaMalloc");
    check_cuda (cudaMalloc (&d_out, sizeof (gfloat) * w * h), "cudaMalloc");
    check_cuda ((cudaError_t) co_clt_forward_cuda (d_img, w, h, w, d_dx, d_dy,
            d_clt, NULL), "forward");
    check_cuda ((cudaError_t) co_clt_inverse_cuda (d_clt, w, h, d_out, w,
            NULL), "inverse");
    check_cuda (cudaDeviceSynchronize (), "sync");
    check_cuda (cudaMemcpy (clt_g, d_clt, sizeof (gfloat) * nc,
            cudaMemcpyDeviceToHost), "download");
    check_cuda (cudaMemcpy (out_g, d_out, sizeof (gfloat) * w * h,
            cudaMemcpyDeviceToHost), "download");
    for (i = 0; i < (gint) nc; i++)
      bad += memcmp (&clt_c[i], &clt_g[i], 4) != 0;
    g_assert_cmpint (bad, ==, 0);
    for (i = 0; i < w * h; i++)
      bad += memcmp (&out_c[i], &out_g[i], 4) != 0;
    g_assert_cmpint (bad, ==, 0);
    /* a rough time: forward + inverse, 20 times */
    {
      cudaEvent_t e0, e1;
      float ms = 0;
      check_cuda (cudaEventCreate (&e0), "event");
      check_cuda (cudaEventCreate (&e1), "event");
      check_cuda (cudaEventRecord (e0, NULL), "record");
      for (i = 0; i < 20; i++) {
        check_cuda ((cudaError_t) co_clt_forward_cuda (d_img, w, h, w, d_dx,
                d_dy, d_clt, NULL), "forward");
        check_cuda ((cudaError_t) co_clt_inverse_cuda (d_clt, w, h, d_out, w,
                NULL), "inverse");
      }
      check_cuda (cudaEventRecord (e1, NULL), "record");
      check_cuda (cudaEventSynchronize (e1), "sync");
      check_cuda (cudaEventElapsedTime (&ms, e0, e1), "elapsed");
      t2 = ms / 20.0;
      cudaEventDestroy (e0);
      cudaEventDestroy (e1);
    }
    g_test_message ("%dx%d: CUDA equals C (%" G_GSIZE_FORMAT " coefficients, "
        "%d pixels, every bit); forward + inverse %.3f ms on the GPU, %.1f ms "
        "on the CPU", w, h, nc, w * h, t2, (t1 - t0) / 1000.0);
    cudaFree (d_img);
    cudaFree (d_dx);
    cudaFree (d_dy);
    cudaFree (d_clt);
    cudaFree (d_out);
    g_free (img);
    g_free (dx);
    g_free (dy);
    g_free (clt_c);
    g_free (clt_g);
    g_free (out_c);
    g_free (out_g);
  }
  g_rand_free (r);
}

/* The CUDA Bayer transform gives the C reference's bits: an 8-bit RGGB
 * photograph and a random 16-bit GRBG mosaic of an odd size, shifts per
 * tile and colour. */
static void
test_cuda_bayer (void)
{
  GRand *r = g_rand_new_with_seed (10);
  gint dev = 0, pic;

  if (cudaGetDeviceCount (&dev) != cudaSuccess || dev < 1) {
    g_test_skip ("no usable CUDA device");
    g_rand_free (r);
    return;
  }
  for (pic = 0; pic < 2; pic++) {
    gint w = 333, h = 201, bps = pic ? 2 : 1, tx, ty, i, c, bad = 0;
    CoBayer bayer = pic ? CO_BAYER_GRBG : CO_BAYER_RGGB;
    guint8 *raw;
    gfloat *dx, *dy, *hc[3], *gc[3];
    void *d_raw, *d_dx, *d_dy, *d_c[3];
    gsize nc;

    if (pic == 0) {
      gchar *path = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"),
          "natural", "coffee.png", NULL), *why = NULL;
      raw = gst_co_decode_gray (path, &w, &h, &why);
      g_assert_nonnull (raw);
      g_free (path);
    } else {
      raw = g_new (guint8, (gsize) w * h * 2);
      for (i = 0; i < w * h * 2; i++)
        raw[i] = (guint8) g_rand_int_range (r, 0, 256);
    }
    co_clt_tiles (w, h, &tx, &ty);
    nc = (gsize) tx * ty * CO_CLT_COEFFS;
    dx = g_new (gfloat, 3 * tx * ty);
    dy = g_new (gfloat, 3 * tx * ty);
    for (i = 0; i < 3 * tx * ty; i++) {
      dx[i] = i % 7 ? (gfloat) g_rand_double_range (r, -2.5, 2.5) : 0.0f;
      dy[i] = i % 5 ? (gfloat) g_rand_double_range (r, -2.5, 2.5) : 0.0f;
    }
    for (c = 0; c < 3; c++) {
      hc[c] = g_new (gfloat, nc);
      gc[c] = g_new (gfloat, nc);
      check_cuda (cudaMalloc (&d_c[c], nc * sizeof (gfloat)), "cudaMalloc");
    }
    co_clt_forward_bayer_cpu (raw, w, h, w * bps, bps, 1.0f / 255, bayer,
        NULL, dx, dy, hc);
    d_raw = to_device (raw, (gsize) w * h * bps);
    d_dx = to_device (dx, sizeof (gfloat) * 3 * tx * ty);
    d_dy = to_device (dy, sizeof (gfloat) * 3 * tx * ty);
    check_cuda ((cudaError_t) co_clt_forward_bayer_cuda (d_raw, w, h, w * bps,
            bps, 1.0f / 255, bayer, NULL, d_dx, d_dy, (float *const *) d_c,
            NULL),
        "Bayer forward");
    check_cuda (cudaDeviceSynchronize (), "sync");
    for (c = 0; c < 3; c++) {
      check_cuda (cudaMemcpy (gc[c], d_c[c], nc * sizeof (gfloat),
              cudaMemcpyDeviceToHost), "download");
      for (i = 0; i < (gint) nc; i++)
        bad += memcmp (&hc[c][i], &gc[c][i], 4) != 0;
    }
    g_test_message ("%dx%d %d-bit mosaic: CUDA Bayer transform against C, "
        "%d of %" G_GSIZE_FORMAT " coefficients differ", w, h, 8 * bps, bad,
        3 * nc);
    g_assert_cmpint (bad, ==, 0);
    for (c = 0; c < 3; c++) {
      cudaFree (d_c[c]);
      g_free (hc[c]);
      g_free (gc[c]);
    }
    cudaFree (d_raw);
    cudaFree (d_dx);
    cudaFree (d_dy);
    g_free (raw);
    g_free (dx);
    g_free (dy);
  }
  g_rand_free (r);
}
#endif

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/clt/dtt8", test_dtt8);
  g_test_add_func ("/clt/sincos", test_sincos);
  g_test_add_func ("/clt/tile-closed-form", test_tile_closed_form);
  g_test_add_func ("/clt/bayer-symmetry", test_bayer_symmetry);
  g_test_add_func ("/clt/reconstruction", test_reconstruction);
  g_test_add_func ("/clt/fractional-shift", test_fractional_shift);
  g_test_add_func ("/clt/convolution", test_convolution);
  g_test_add_func ("/clt/deconvolution", test_deconvolution);
  g_test_add_func ("/clt/lens-node", test_lens_node);
  g_test_add_func ("/clt/tile-shifts", test_tile_shifts);
  g_test_add_func ("/clt/bayer-image", test_bayer_image);
#ifdef HAVE_CUDA
  g_test_add_func ("/clt/cuda-equals-c", test_cuda_equals_c);
  g_test_add_func ("/clt/cuda-bayer", test_cuda_bayer);
#endif
  return g_test_run ();
}
