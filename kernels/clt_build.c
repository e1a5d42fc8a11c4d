/* cudaoptics — LGPL-2.1-or-later
 *
 * Host-side kernel construction for cudaaberration (clt_build.h).
 */
#include <math.h>
#include <string.h>
#include "clt_build.h"
#include "co_camera.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static double
freq (int k)
{
  return M_PI * (k + 0.5) / 8.0;
}

void
co_clt_spectrum (const double *h, int n, double cx, double cy,
    CoCltSpectrum * s)
{
  /* e^{-i w (m - c)} per axis, frequency and tap: the sums need no more
   * sines (a kernel file has tens of thousands of nodes) */
  double ex[8][32][2], ey[8][32][2];
  int k, m, kv, kh, mx, my, r = n / 2;

  /* odd sizes up to 31 (the tables' room): anything else is a caller's
   * mistake, answered with the identity rather than a wrong spectrum */
  if (n < 1 || n > 31 || !(n & 1)) {
    co_clt_spectrum_identity (s);
    return;
  }
  for (k = 0; k < 8; k++)
    for (m = 0; m < n; m++) {
      ex[k][m][0] = cos (freq (k) * (m - r - cx));
      ex[k][m][1] = -sin (freq (k) * (m - r - cx));
      ey[k][m][0] = cos (freq (k) * (m - r - cy));
      ey[k][m][1] = -sin (freq (k) * (m - r - cy));
    }
  for (kv = 0; kv < 8; kv++)
    for (kh = 0; kh < 8; kh++) {
      double ar = 0, ai = 0, br = 0, bi = 0;
      for (my = 0; my < n; my++) {
        /* the row's transform across, then times e^{-i wy y} and, for
         * B (wy negated), its conjugate */
        double rr = 0, ri = 0;
        const double yr = ey[kv][my][0], yi = ey[kv][my][1];
        for (mx = 0; mx < n; mx++) {
          const double v = h[my * n + mx];
          rr += v * ex[kh][mx][0];
          ri += v * ex[kh][mx][1];
        }
        ar += rr * yr - ri * yi;
        ai += rr * yi + ri * yr;
        br += rr * yr + ri * yi;
        bi += ri * yr - rr * yi;
      }
      s->a[kv * 8 + kh][0] = ar;
      s->a[kv * 8 + kh][1] = ai;
      s->b[kv * 8 + kh][0] = br;
      s->b[kv * 8 + kh][1] = bi;
    }
}

void
co_clt_spectrum_kernel (const double *h, int n, double cx, double cy,
    CoCltSpectrum * s)
{
  const double q = 3.14159265358979323846 / 16;
  double hc[31 * 31];
  int mx, my, r = n / 2;

  if (n < 1 || n > 31 || !(n & 1)) {
    co_clt_spectrum_identity (s);
    return;
  }
  for (my = 0; my < n; my++)
    for (mx = 0; mx < n; mx++) {
      const double ux = mx - r - cx, uy = my - r - cy;
      /* past 8 pixels no tile pair holds both ends: left as it is */
      const double fx = fabs (ux) < 8 ? cos (q * ux) : 1.0;
      const double fy = fabs (uy) < 8 ? cos (q * uy) : 1.0;
      hc[my * n + mx] = h[my * n + mx] / (fx * fy);
    }
  co_clt_spectrum (hc, n, cx, cy, s);
}

void
co_clt_spectrum_identity (CoCltSpectrum * s)
{
  int i;
  for (i = 0; i < 64; i++) {
    s->a[i][0] = s->b[i][0] = 1.0;
    s->a[i][1] = s->b[i][1] = 0.0;
  }
}

static void
cmul (double *z, const double *w)
{
  double r = z[0] * w[0] - z[1] * w[1], i = z[0] * w[1] + z[1] * w[0];
  z[0] = r;
  z[1] = i;
}

void
co_clt_spectrum_mul (CoCltSpectrum * s, const CoCltSpectrum * t)
{
  int i;
  for (i = 0; i < 64; i++) {
    cmul (s->a[i], t->a[i]);
    cmul (s->b[i], t->b[i]);
  }
}

static void
wiener (double *z, double nsr)
{
  double d = z[0] * z[0] + z[1] * z[1] + nsr;
  z[0] = z[0] / d;
  z[1] = -z[1] / d;
}

void
co_clt_spectrum_wiener (CoCltSpectrum * s, double nsr)
{
  int i;
  for (i = 0; i < 64; i++) {
    wiener (s->a[i], nsr);
    wiener (s->b[i], nsr);
  }
}

void
co_clt_spectrum_gaussian (CoCltSpectrum * s, double sigma)
{
  int kv, kh;
  for (kv = 0; kv < 8; kv++)
    for (kh = 0; kh < 8; kh++) {
      double wx = freq (kh), wy = freq (kv);
      double g = exp (-0.5 * sigma * sigma * (wx * wx + wy * wy));
      int c;
      for (c = 0; c < 2; c++) {
        s->a[kv * 8 + kh][c] *= g;
        s->b[kv * 8 + kh][c] *= g;
      }
    }
}

void
co_clt_spectrum_layers (const CoCltSpectrum * s, float k[256])
{
  int i;
  for (i = 0; i < 64; i++) {
    const double *a = s->a[i], *b = s->b[i];
    k[i] = (float) (0.5 * (a[0] + b[0]));
    k[64 + i] = (float) (-0.5 * (a[1] + b[1]));
    k[128 + i] = (float) (-0.5 * (a[1] - b[1]));
    k[192 + i] = (float) (0.5 * (b[0] - a[0]));
  }
}

void
co_clt_centroid (const double *h, int n, double *cx, double *cy)
{
  double sum = 0, sx = 0, sy = 0;
  int x, y, r = n / 2;
  for (y = 0; y < n; y++)
    for (x = 0; x < n; x++) {
      sum += h[y * n + x];
      sx += h[y * n + x] * (x - r);
      sy += h[y * n + x] * (y - r);
    }
  *cx = sum != 0 ? sx / sum : 0;
  *cy = sum != 0 ? sy / sum : 0;
}

void
co_clt_lens_init (CoCltLens * lens, int width, int height)
{
  memset (lens, 0, sizeof (*lens));
  lens->width = width;
  lens->height = height;
  lens->chroma[0] = lens->chroma[1] = lens->chroma[2] = 1.0;
  lens->cx = lens->cy = -1.0;
}

/* where the output pixel (x, y) samples the input: colour magnification
 * about the centre, then the camera's distortion */
void
co_clt_lens_shift (const CoCltLens * lens, double x, double y, int c,
    double *dx, double *dy)
{
  const double xc = 0.5 * (lens->width - 1), yc = 0.5 * (lens->height - 1);
  double sx = xc + (x - xc) * lens->chroma[c];
  double sy = yc + (y - yc) * lens->chroma[c];
  int i, any = 0;

  for (i = 0; i < 5; i++)
    any |= lens->dist[i] != 0.0;
  if (any) {
    CoCamera cam;
    CoCameraParams p;
    float fx, fy;
    co_camera_init_frame (&cam, lens->width, lens->height, lens->fx,
        lens->fy, lens->cx, lens->cy);
    cam.dist[CO_DIST_K1] = lens->dist[0];
    cam.dist[CO_DIST_K2] = lens->dist[1];
    cam.dist[CO_DIST_P1] = lens->dist[2];
    cam.dist[CO_DIST_P2] = lens->dist[3];
    cam.dist[CO_DIST_K3] = lens->dist[4];
    co_camera_params_init (&p, &cam);
    if (co_camera_map (&p, (float) sx, (float) sy, &fx, &fy)) {
      sx = fx;
      sy = fy;
    }
  }
  *dx = sx - x;
  *dy = sy - y;
}

void
co_clt_lens_psf (const CoCltLens * lens, double x, double y, int c,
    double *psf, int n, double *dx, double *dy)
{
  const double xc = 0.5 * (lens->width - 1), yc = 0.5 * (lens->height - 1);
  const double r2 = ((x - xc) * (x - xc) + (y - yc) * (y - yc)) /
      (xc * xc + yc * yc + 1e-12);
  const int disk = lens->defocus0 > 0 || lens->defocus1 > 0;
  const double size = disk ? lens->defocus0 + lens->defocus1 * r2 :
      lens->sigma0 + lens->sigma1 * r2;
  double sum = 0;
  int i, j, si, sj, r = n / 2;

  co_clt_lens_shift (lens, x, y, c, dx, dy);
  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++) {
      double v = 0;
      /* 4 x 4 samples a pixel, so a narrow PSF still sums right */
      for (sj = 0; sj < 4; sj++)
        for (si = 0; si < 4; si++) {
          double px = i - r + (si + 0.5) / 4 - 0.5;
          double py = j - r + (sj + 0.5) / 4 - 0.5;
          double d2 = px * px + py * py;
          if (disk)
            v += d2 <= size * size ? 1.0 : 0.0;
          else if (size > 0)
            v += exp (-d2 / (2 * size * size));
          else
            v += (i == r && j == r) ? 1.0 : 0.0;
        }
      psf[j * n + i] = v;
      sum += v;
    }
  for (i = 0; i < n * n; i++)
    psf[i] = sum > 0 ? psf[i] / sum : (i == r * n + r);
}

void
co_clt_lens_node (const CoCltLens * lens, double x, double y, int c,
    float node[258])
{
  double psf[15 * 15], dx, dy;

  co_clt_lens_psf (lens, x, y, c, psf, 15, &dx, &dy);
  co_clt_psf_node (lens, psf, 15, dx, dy, c, node);
}

void
co_clt_psf_node (const CoCltLens * lens, const double *psf, int n, double dx,
    double dy, int c, float node[258])
{
  double cx, cy;
  CoCltSpectrum s;

  co_clt_centroid (psf, n, &cx, &cy);
  co_clt_spectrum (psf, n, cx, cy, &s);
  if (lens->nsr > 0)
    co_clt_spectrum_wiener (&s, lens->nsr);
  else
    co_clt_spectrum_identity (&s);
  if (lens->bayer) {
    /* a colour of the mosaic: red and blue one pixel in four, green one in
     * two; bilinear interpolation restores the missing ones */
    static const double rb[9] = { 0.25, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5,
      0.25
    };
    static const double g[9] = { 0, 0.25, 0, 0.25, 1, 0.25, 0, 0.25, 0 };
    CoCltSpectrum t;
    /* Alone, the interpolation is compensated for the windows
     * (co_clt_spectrum_kernel): the product then interpolates exactly as
     * bilinear demosaicing does, flat fields flat.  Behind a Wiener
     * inverse it is not: the windows' cosines taper the inverse's long
     * tails, which the transform would otherwise wrap round, and the
     * deconvolution tests lose 0.7 dB and more when that taper is
     * divided out (of the interpolation alone, or of the whole kernel) */
    if (lens->nsr > 0)
      co_clt_spectrum (c == 1 ? g : rb, 3, 0, 0, &t);
    else
      co_clt_spectrum_kernel (c == 1 ? g : rb, 3, 0, 0, &t);
    co_clt_spectrum_mul (&s, &t);
  }
  if (lens->lpf_sigma > 0)
    co_clt_spectrum_gaussian (&s, lens->lpf_sigma);
  node[0] = (float) (dx + cx);
  node[1] = (float) (dy + cy);
  co_clt_spectrum_layers (&s, node + 2);
}
