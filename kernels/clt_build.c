/* cudaoptics — LGPL-2.1-or-later
 *
 * Host-side kernel construction for cudaaberration (clt_build.h).
 */
#include <math.h>
#include <string.h>
#include "clt_build.h"

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
  int kv, kh, mx, my, r = n / 2;

  for (kv = 0; kv < 8; kv++)
    for (kh = 0; kh < 8; kh++) {
      double ar = 0, ai = 0, br = 0, bi = 0;
      for (my = 0; my < n; my++)
        for (mx = 0; mx < n; mx++) {
          double v = h[my * n + mx];
          double x = mx - r - cx, y = my - r - cy;
          double pa = freq (kh) * x + freq (kv) * y;
          double pb = freq (kh) * x - freq (kv) * y;
          /* H(w) = sum h e^{-i w.m} */
          ar += v * cos (pa);
          ai -= v * sin (pa);
          br += v * cos (pb);
          bi -= v * sin (pb);
        }
      s->a[kv * 8 + kh][0] = ar;
      s->a[kv * 8 + kh][1] = ai;
      s->b[kv * 8 + kh][0] = br;
      s->b[kv * 8 + kh][1] = bi;
    }
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
