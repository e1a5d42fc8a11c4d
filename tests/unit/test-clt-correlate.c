/* cudaoptics — LGPL-2.1-or-later
 *
 * The CLT-domain phase correlation (kernels/clt_corr_math.h) on band-limited
 * textures shifted analytically by known sub-pixel amounts:
 * - identical tiles peak at zero with strength 1;
 * - swapping the tiles negates the shift;
 * - shifts within half a pixel: the fitted kernel's RMS error is small and
 *   below the parabola's (which locks to whole pixels);
 * - shifts of pixels: one refinement (tile b's window moved by the first
 *   estimate, co_clt_forward_cpu's dx/dy) leaves a small residual;
 * - the transform back to pixels against a double-precision evaluation of
 *   its definition;
 * - (with a GPU) the CUDA kernel gives the C reference's bits, and its time
 *   on the tiles of one 2592x1936 pair.
 */
#include <math.h>
#include <string.h>
#include <glib.h>
#include "config.h"
#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif
#include "clt.h"
#include "clt_corr.h"
#include "../clt-texture.h"

#define W 160
#define H 160
#define WAVES 400

typedef CoTexture Texture;

static void
texture_init (Texture * t, guint32 seed)
{
  co_texture_init (t, seed, WAVES);
}

/* the texture moved by (dx, dy): img(x, y) = f(x - dx, y - dy) */
static float *
render (const Texture * t, double dx, double dy)
{
  float *img = g_new (float, W * H);
  int x, y;

  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++) {
      double v = 128;
      v += co_texture_at (t, x - dx, y - dy);
      img[y * W + x] = (float) v;
    }
  return img;
}

static int tiles_x, tiles_y;

static float *
forward (const float *img, const float *dx, const float *dy)
{
  float *z;

  co_clt_tiles (W, H, &tiles_x, &tiles_y);
  z = g_new (float, (gsize) tiles_x * tiles_y * CO_CLT_COEFFS);
  co_clt_forward_cpu (img, W, H, W, dx, dy, z);
  return z;
}

/* interior tiles only: no reflected border in either */
static gboolean
interior (int i)
{
  const int tx = i % tiles_x, ty = i / tiles_x;
  return tx >= 2 && ty >= 2 && tx < tiles_x - 2 && ty < tiles_y - 2;
}

/* A texture and its copy moved by (dx, dy), rendered and transformed */
typedef struct
{
  float *a, *b, *za, *zb;
  int n;                        /* tiles */
} Pair;

static void
pair_init (Pair * p, guint32 seed, double dx, double dy)
{
  Texture t;

  texture_init (&t, seed);
  p->a = render (&t, 0, 0);
  p->b = render (&t, dx, dy);
  p->za = forward (p->a, NULL, NULL);
  p->zb = forward (p->b, NULL, NULL);
  p->n = tiles_x * tiles_y;
}

static void
pair_clear (Pair * p)
{
  g_free (p->a);
  g_free (p->b);
  g_free (p->za);
  g_free (p->zb);
}

/* Per-tile results of co_clt_correlate_cpu */
typedef struct
{
  float *x, *y, *s;
} Shifts;

static void
shifts_init (Shifts * e, int n)
{
  e->x = g_new (float, n);
  e->y = g_new (float, n);
  e->s = g_new (float, n);
}

static void
shifts_clear (Shifts * e)
{
  g_free (e->x);
  g_free (e->y);
  g_free (e->s);
}

/* one colour, pure phase, no low-pass */
static const CoCltCorrParams *
plain (void)
{
  static CoCltCorrParams cp;

  co_clt_corr_params_init (&cp, 0.0f, 0.0f, 0.0f, 0);
  return &cp;
}

static void
correlate (const float *za, const float *zb, int n, CoCltPeak method,
    Shifts * e)
{
  co_clt_correlate_cpu (za, zb, n, plain (), method, NULL, e->x, e->y, e->s);
}

/* RMS error of the estimated shift of b against a, over interior tiles */
static double
rms_error (const Pair * p, CoCltPeak method, double dx, double dy,
    Shifts * e)
{
  double acc = 0;
  int i, cnt = 0;

  correlate (p->za, p->zb, p->n, method, e);
  for (i = 0; i < p->n; i++)
    if (interior (i)) {
      acc += (e->x[i] - dx) * (e->x[i] - dx) + (e->y[i] - dy) * (e->y[i] -
          dy);
      cnt++;
    }
  return sqrt (acc / cnt);
}

/* Identical tiles read no shift and a peak of 1 */
static void
assert_identical (const Shifts * e, int n)
{
  int i;

  for (i = 0; i < n; i++)
    if (interior (i)) {
      g_assert_cmpfloat (fabsf (e->x[i]), <, 1e-4);
      g_assert_cmpfloat (fabsf (e->y[i]), <, 1e-4);
      g_assert_cmpfloat (fabsf (e->s[i] - 1.0f), <, 1e-4);
    }
}

static void
test_identical (void)
{
  Pair p;
  Shifts e;

  pair_init (&p, 1, 0, 0);
  shifts_init (&e, p.n);
  correlate (p.za, p.za, p.n, CO_CLT_PEAK_DIRICHLET, &e);
  assert_identical (&e, p.n);
  shifts_clear (&e);
  pair_clear (&p);
}

/* The low-pass keeps identical tiles' peak at 1 and at zero shift (its
 * weights are scaled to a mean of 1), for any sigma */
static void
test_lowpass (void)
{
  const float sigmas[] = { 0.5f, 1.0f, 2.0f };
  Pair p;
  Shifts e;
  int k;

  pair_init (&p, 1, 0, 0);
  shifts_init (&e, p.n);
  for (k = 0; k < 3; k++) {
    CoCltCorrParams cp;
    co_clt_corr_params_init (&cp, 0.0f, 0.0f, sigmas[k], 0);
    co_clt_correlate_cpu (p.za, p.za, p.n, &cp, CO_CLT_PEAK_CENTROID, NULL,
        e.x, e.y, e.s);
    assert_identical (&e, p.n);
  }
  shifts_clear (&e);
  pair_clear (&p);
}

/* The refinement's secant: an estimator that reads residuals at a gain g
 * (a blurred tile's broad peak) is corrected from the third pass on, so
 * the estimate lands on the shift where plain steps close a factor (1 - g)
 * a pass; gains outside (0.1, 1) fall back to plain steps. */
static void
test_secant (void)
{
  const float gains[] = { 0.3f, 0.7f, 0.05f };
  int k, pass;

  for (k = 0; k < 3; k++) {
    const float g = gains[k], truth = 1.7f;
    float dx = 0.0f, dy = 0.0f, st = 0.0f, rdx, rdy = 0.0f, rs = 1.0f;
    float hist[4] = { 0 };
    for (pass = 0; pass < 3; pass++) {
      rdx = g * (truth - dx);
      co_clt_corr_refine_at (0, 1, pass, &dx, &dy, &st, &rdx, &rdy, &rs,
          hist);
      if (pass == 0)
        g_assert_cmpfloat (fabsf (dx - g * truth), <, 1e-6);
    }
    if (g > 0.1f)
      g_assert_cmpfloat (fabsf (dx - truth), <, 1e-4);
    else                        /* plain steps: (1 - g)^3 of it left */
      g_assert_cmpfloat (fabsf (truth - dx - truth * powf (1.0f - g, 3)), <,
          1e-4);
    g_assert_cmpfloat (dy, ==, 0.0f);
    g_assert_cmpfloat (st, ==, 1.0f);
  }
}

static void
test_subpixel (void)
{
  GRand *r = g_rand_new_with_seed (7);
  double worst_fit = 0, worst_par = 0;
  int trial;

  for (trial = 0; trial < 6; trial++) {
    const double dx = g_rand_double_range (r, -0.5, 0.5),
        dy = g_rand_double_range (r, -0.5, 0.5);
    Pair p;
    Shifts e, back;
    double fit, par, anti = 0;
    int i;

    pair_init (&p, 100 + trial, dx, dy);
    shifts_init (&e, p.n);
    shifts_init (&back, p.n);
    par = rms_error (&p, CO_CLT_PEAK_PARABOLA, dx, dy, &e);
    fit = rms_error (&p, CO_CLT_PEAK_DIRICHLET, dx, dy, &e);
    /* b against a: the opposite shift */
    correlate (p.zb, p.za, p.n, CO_CLT_PEAK_DIRICHLET, &back);
    for (i = 0; i < p.n; i++)
      if (interior (i))
        anti = MAX (anti, MAX (fabs (back.x[i] + e.x[i]),
                fabs (back.y[i] + e.y[i])));
    g_print ("shift %+.3f %+.3f: RMS error %.4f px fitted, %.4f parabola; "
        "swapped tiles differ by %.2g\n", dx, dy, fit, par, anti);
    g_assert_cmpfloat (anti, <, 1e-3);
    worst_fit = MAX (worst_fit, fit);
    worst_par = MAX (worst_par, par);
    shifts_clear (&e);
    shifts_clear (&back);
    pair_clear (&p);
  }
  g_rand_free (r);
  g_print ("worst RMS error: fitted %.4f px, parabola %.4f px\n", worst_fit,
      worst_par);
  /* one pass: the fixed window pulls shifts near half a pixel towards
   * zero (0.04-0.07 px here); test_refine removes that */
  g_assert_cmpfloat (worst_fit, <, 0.08);
  g_assert_cmpfloat (worst_fit, <, worst_par);
}

/* Shifts of up to 2.5 pixels: a first estimate, then tile b's window moved
 * by it and the rest measured. */
static void
test_refine (void)
{
  GRand *r = g_rand_new_with_seed (11);
  int trial;

  for (trial = 0; trial < 4; trial++) {
    const double dx = g_rand_double_range (r, -2.5, 2.5),
        dy = g_rand_double_range (r, -2.5, 2.5);
    Pair p;
    Shifts e, rest;
    float *zb2;
    double first, second = 0;
    int i, cnt = 0;

    pair_init (&p, 200 + trial, dx, dy);
    shifts_init (&e, p.n);
    shifts_init (&rest, p.n);
    first = rms_error (&p, CO_CLT_PEAK_DIRICHLET, dx, dy, &e);
    zb2 = forward (p.b, e.x, e.y);
    correlate (p.za, zb2, p.n, CO_CLT_PEAK_DIRICHLET, &rest);
    for (i = 0; i < p.n; i++)
      if (interior (i)) {
        const double fx = e.x[i] + rest.x[i] - dx,
            fy = e.y[i] + rest.y[i] - dy;
        second += fx * fx + fy * fy;
        cnt++;
      }
    second = sqrt (second / cnt);
    g_print ("shift %+.3f %+.3f: RMS error %.4f px, after one refinement "
        "%.4f px\n", dx, dy, first, second);
    g_assert_cmpfloat (second, <, 0.05);
    g_assert_cmpfloat (second, <, first);
    g_free (zb2);
    shifts_clear (&e);
    shifts_clear (&rest);
    pair_clear (&p);
  }
  g_rand_free (r);
}

/* co_clt_corr_pixels against its definition in double precision on a
 * random cross-power */
static void
test_pixels_definition (void)
{
  GRand *r = g_rand_new_with_seed (3);
  float p[CO_CLT_COEFFS], c[CO_CLT_CORR * CO_CLT_CORR];
  float cs[CO_CLT_BASIS], sn[CO_CLT_BASIS];
  double worst = 0;
  int n, sx, sy, kv, kh;

  for (n = 0; n < CO_CLT_COEFFS; n++)
    p[n] = (float) g_rand_double_range (r, -1, 1);
  co_clt_corr_basis (cs, sn);
  co_clt_corr_pixels (p, cs, sn, c);
  for (sy = -7; sy <= 7; sy++)
    for (sx = -7; sx <= 7; sx++) {
      double v = 0;
      for (kv = 0; kv < 8; kv++)
        for (kh = 0; kh < 8; kh++) {
          const double ax = G_PI * sx * (kh + 0.5) / 8,
              ay = G_PI * sy * (kv + 0.5) / 8;
          const int e = kv * 8 + kh;
          v += p[e] * cos (ax) * cos (ay) - p[64 + e] * sin (ax) * cos (ay) -
              p[128 + e] * cos (ax) * sin (ay) + p[192 + e] * sin (ax) *
              sin (ay);
        }
      worst = MAX (worst, fabs (v / 64 - c[(sy + 7) * 15 + sx + 7]));
    }
  g_print ("correlation against its definition: worst difference %.2g\n",
      worst);
  g_assert_cmpfloat (worst, <, 1e-5);
  g_rand_free (r);
}

#ifdef HAVE_CUDA
static void
check_cuda (cudaError_t e, const char *what)
{
  if (e != cudaSuccess)
    g_error ("%s: %s", what, cudaGetErrorString (e));
}

static float *
to_device (const float *host, gsize n)
{
  void *d = NULL;
  check_cuda (cudaMalloc (&d, n * sizeof (float)), "cudaMalloc");
  if (host)
    check_cuda (cudaMemcpy (d, host, n * sizeof (float),
            cudaMemcpyHostToDevice), "upload");
  return d;
}

static void
from_device (float *host, const float *d, gsize n)
{
  check_cuda (cudaMemcpy (host, d, n * sizeof (float),
          cudaMemcpyDeviceToHost), "download");
}

/* The CUDA kernel against the C reference, bit for bit: the tiles of a
 * shifted texture pair, then random coefficients with an empty tile, an
 * identical pair (a peak exactly at zero) and a tile of equal samples,
 * with each peak method, fat zero and a noise floor, with and without the
 * correlation tiles; and its time on the tiles of a 2592x1936 pair. */
static void
test_cuda_equals_c (void)
{
  const float fats[] = { 0.0f, 0.05f, 1.0f };
  GRand *r = g_rand_new_with_seed (17);
  Pair p;
  int dev = 0, set, m, f;

  if (cudaGetDeviceCount (&dev) != cudaSuccess || dev < 1) {
    g_test_skip ("no usable CUDA device");
    g_rand_free (r);
    return;
  }
  pair_init (&p, 300, 0.37, -1.21);
  for (set = 0; set < 2; set++) {
    const int n = set == 0 ? p.n : 512;
    const gsize nc = (gsize) n * CO_CLT_COEFFS, ncorr = (gsize) n * 225;
    float *za = g_new (float, nc), *zb = g_new (float, nc);
    float *corr_c = g_new (float, ncorr), *corr_g = g_new (float, ncorr);
    float *res_c = g_new (float, 3 * n), *res_g = g_new (float, 3 * n);
    float *d_a, *d_b, *d_corr, *d_res;
    gsize k;

    if (set == 0) {
      memcpy (za, p.za, nc * sizeof (float));
      memcpy (zb, p.zb, nc * sizeof (float));
    } else {
      for (k = 0; k < nc; k++) {
        za[k] = (float) g_rand_double_range (r, -100, 100);
        zb[k] = (float) g_rand_double_range (r, -100, 100);
      }
      memset (za, 0, CO_CLT_COEFFS * sizeof (float));     /* empty */
      memset (zb, 0, CO_CLT_COEFFS * sizeof (float));
      memcpy (zb + CO_CLT_COEFFS, za + CO_CLT_COEFFS,   /* identical */
          CO_CLT_COEFFS * sizeof (float));
      memset (za + 2 * CO_CLT_COEFFS, 0, CO_CLT_COEFFS * sizeof (float));
      za[2 * CO_CLT_COEFFS] = 1.0f;     /* one frequency: flat samples */
      memcpy (zb + 2 * CO_CLT_COEFFS, za + 2 * CO_CLT_COEFFS,
          CO_CLT_COEFFS * sizeof (float));
    }
    d_a = to_device (za, nc);
    d_b = to_device (zb, nc);
    d_corr = to_device (NULL, ncorr);
    d_res = to_device (NULL, 3 * n);
    /* methods: dirichlet, parabola, centroid, newton; weights: flat, a
     * fat zero, a fat zero with a low-pass, a mosaic's, a noise floor
     * (about the tiles' own level) */
    for (m = 0; m < 4; m++)
      for (f = 0; f < 5; f++) {
        const gboolean with_corr = (m + f) % 2 == 0;
        const float floor = f < 4 ? 0.0f : set == 0 ?
            co_clt_corr_noise_floor (0.01f) : 5000.0f;
        CoCltCorrParams cp;
        co_clt_corr_params_init (&cp, f < 3 ? fats[f] : 0.0f, floor,
            f == 2 ? 0.7f : 0.0f, f == 3);
        co_clt_correlate_cpu (za, zb, n, &cp, (CoCltPeak) m, corr_c,
            res_c, res_c + n, res_c + 2 * n);
        check_cuda (cudaMemset (d_res, 0xff, 3 * n * sizeof (float)),
            "memset");
        check_cuda ((cudaError_t) co_clt_correlate_cuda (d_a, d_b, n, &cp,
                (CoCltPeak) m, with_corr ? d_corr : NULL, d_res, d_res + n,
                d_res + 2 * n, NULL), "correlate");
        check_cuda (cudaDeviceSynchronize (), "sync");
        from_device (res_g, d_res, 3 * n);
        g_assert_cmpmem (res_g, 3 * n * sizeof (float), res_c,
            3 * n * sizeof (float));
        if (with_corr) {
          from_device (corr_g, d_corr, ncorr);
          g_assert_cmpmem (corr_g, ncorr * sizeof (float), corr_c,
              ncorr * sizeof (float));
        }
      }
    g_print ("set %d (%d tiles): CUDA = C, 4 methods x 4 weightings\n",
        set, n);
    cudaFree (d_a);
    cudaFree (d_b);
    cudaFree (d_corr);
    cudaFree (d_res);
    g_free (za);
    g_free (zb);
    g_free (corr_c);
    g_free (corr_g);
    g_free (res_c);
    g_free (res_g);
  }
  pair_clear (&p);

  {
    /* the tiles of one 2592x1936 pair (co_clt_tiles), random coefficients */
    int tx, ty, n, rep;
    gsize nc;
    float *host, *d_a, *d_b, *d_res, ms = 0;
    cudaEvent_t e0, e1;

    co_clt_tiles (2592, 1936, &tx, &ty);
    n = tx * ty;
    nc = (gsize) n * CO_CLT_COEFFS;
    host = g_new (float, nc);
    for (gsize k = 0; k < nc; k++)
      host[k] = (float) g_rand_double_range (r, -100, 100);
    d_a = to_device (host, nc);
    for (gsize k = 0; k < nc; k++)
      host[k] = (float) g_rand_double_range (r, -100, 100);
    d_b = to_device (host, nc);
    d_res = to_device (NULL, 3 * n);
    check_cuda (cudaEventCreate (&e0), "event");
    check_cuda (cudaEventCreate (&e1), "event");
    for (rep = 0; rep < 2; rep++) {
      check_cuda (cudaEventRecord (e0, NULL), "record");
      for (int it = 0; it < 20; it++)
        check_cuda ((cudaError_t) co_clt_correlate_cuda (d_a, d_b, n, plain (),
                CO_CLT_PEAK_DIRICHLET, NULL, d_res, d_res + n, d_res + 2 * n,
                NULL), "correlate");
      check_cuda (cudaEventRecord (e1, NULL), "record");
      check_cuda (cudaEventSynchronize (e1), "sync");
      check_cuda (cudaEventElapsedTime (&ms, e0, e1), "elapsed");
    }
    g_print ("one pair of 2592x1936 (%d tiles): %.4f ms a pair\n", n,
        ms / 20);
    cudaEventDestroy (e0);
    cudaEventDestroy (e1);
    cudaFree (d_a);
    cudaFree (d_b);
    cudaFree (d_res);
    g_free (host);
  }
  g_rand_free (r);
}
#endif

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/clt-correlate/pixels-definition", test_pixels_definition);
  g_test_add_func ("/clt-correlate/identical", test_identical);
  g_test_add_func ("/clt-correlate/subpixel", test_subpixel);
  g_test_add_func ("/clt-correlate/refine", test_refine);
  g_test_add_func ("/clt-correlate/lowpass", test_lowpass);
  g_test_add_func ("/clt-correlate/secant", test_secant);
#ifdef HAVE_CUDA
  g_test_add_func ("/clt-correlate/cuda-equals-c", test_cuda_equals_c);
#endif
  return g_test_run ();
}
