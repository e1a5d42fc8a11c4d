/* cudaoptics — LGPL-2.1-or-later
 *
 * Building cudaaberration's kernels (host only, double precision): from a
 * point-spread function to the four CLT layers of its inverse.
 *
 * A tile's layers Z = CC + i SC + j CS + i j SS multiply as bicomplex
 * numbers (clt_math.h), and a bicomplex number is a pair of complex ones:
 * for a spatial kernel h, A = H(wx, wy) and B = H(wx, -wy), its Fourier
 * transform at w = pi (k + 0.5) / 8 in the two quadrants.  Then
 *   k0 = Re (A + B) / 2,  k1 = -Im (A + B) / 2,
 *   k2 = -Im (A - B) / 2, k3 = Re (B - A) / 2,
 * and a product of kernels is the product of their A's and of their B's.
 * So a Wiener inverse is taken per frequency on A and B apart, and filters
 * (a Bayer colour's interpolation, a low-pass) multiply in the same way.
 */
#ifndef CO_CLT_BUILD_H
#define CO_CLT_BUILD_H

#ifdef __cplusplus
extern "C" {
#endif

/* The transfer function at a tile's 8 x 8 frequencies, both quadrants:
 * a[i][0] + i a[i][1] = A, likewise b, i = kv * 8 + kh. */
typedef struct
{
  double a[64][2], b[64][2];
} CoCltSpectrum;

/* h: an n x n kernel (n odd, at most 31; otherwise the identity), its
 * centre at index (n/2, n/2) moved to
 * (@cx, @cy) pixels from it: the spectrum of h taken about that point. */
void co_clt_spectrum (const double *h, int n, double cx, double cy,
    CoCltSpectrum * s);
/* The spectrum whose tile product convolves with h itself.  A product of
 * layers applies h(u) cos (pi ux / 16) cos (pi uy / 16), not h: the
 * windows of the two tiles over a pixel overlap by half, and
 * sum_k w(x - 8k) w(x - u - 8k) = sin a sin (a - b) + cos a cos (a - b)
 * = cos b, b = pi u / 16, whatever x.  So the taps (within 7 pixels of
 * (@cx, @cy), u measured from there) are divided by those cosines first.
 * For kernels given as taps (a colour's interpolation); a spectrum that
 * models a blur (a PSF to invert) is co_clt_spectrum's, uncompensated. */
void co_clt_spectrum_kernel (const double *h, int n, double cx, double cy,
    CoCltSpectrum * s);
/* The identity (a delta) */
void co_clt_spectrum_identity (CoCltSpectrum * s);
/* s *= t, per frequency and quadrant */
void co_clt_spectrum_mul (CoCltSpectrum * s, const CoCltSpectrum * t);
/* s = conj (s) / (|s|^2 + nsr): the Wiener inverse for a noise-to-signal
 * power ratio @nsr > 0 */
void co_clt_spectrum_wiener (CoCltSpectrum * s, double nsr);
/* A Gaussian low-pass of @sigma pixels (the element's lpf-sigma) */
void co_clt_spectrum_gaussian (CoCltSpectrum * s, double sigma);
/* The four layers, [q][kv][kh] */
void co_clt_spectrum_layers (const CoCltSpectrum * s, float k[256]);

/* The centroid of an n x n kernel, in pixels from its centre index. */
void co_clt_centroid (const double *h, int n, double *cx, double *cy);

/* A parametric lens, for kernel files and the element's own kernels: a
 * PSF that widens with the field radius r (0 at the centre, 1 in the
 * corners), a lateral colour shift, and a camera's distortion. */
typedef struct
{
  int width, height;
  /* Gaussian PSF, sigma = sigma0 + sigma1 r^2; or, with defocus0 or
   * defocus1 > 0, a uniform disk of radius defocus0 + defocus1 r^2 */
  double sigma0, sigma1, defocus0, defocus1;
  /* per colour (red, green, blue): radial magnification, 1 = green's */
  double chroma[3];
  /* Brown-Conrady k1 k2 p1 p2 k3 with fx fy cx cy (0 0 -1 -1: the frame's
   * width and centre): the corrected output samples the distorted input */
  double dist[5], fx, fy, cx, cy;
  double nsr;                   /* Wiener noise-to-signal; 0: no inversion */
  double lpf_sigma;             /* extra Gaussian low-pass, pixels; 0: none */
  int bayer;                    /* colour planes are Bayer samples: each
                                 * kernel also interpolates its colour */
} CoCltLens;

void co_clt_lens_init (CoCltLens * lens, int width, int height);
/* The PSF of colour @c (0 red, 1 green, 2 blue) at pixel (@x, @y): an n x n
 * kernel (n odd) centred on index n/2, normalised to a sum of 1, and where
 * it moves the picture (its centroid's offset, colour shift included). */
void co_clt_lens_psf (const CoCltLens * lens, double x, double y, int c,
    double *psf, int n, double *dx, double *dy);
/* One node of a kernel file (gstcocltkernels.h): dx, dy (the colour shift
 * and distortion: where the output samples the input), then the 256
 * coefficients: the Wiener inverse of the PSF about its centroid, times
 * the Bayer colour's interpolation when lens->bayer, times the low-pass. */
void co_clt_lens_node (const CoCltLens * lens, double x, double y, int c,
    float node[258]);
/* Where the lens moves colour @c at pixel (@x, @y): its magnification and
 * distortion, not the PSF's own offset. */
void co_clt_lens_shift (const CoCltLens * lens, double x, double y, int c,
    double *dx, double *dy);
/* The same node from a given PSF (n x n, n odd at most 31, normalised to
 * a sum of 1; a measured one): shift @dx, @dy plus the PSF's centroid,
 * and its Wiener inverse with @lens's nsr, Bayer interpolation of colour
 * @c and low-pass. */
void co_clt_psf_node (const CoCltLens * lens, const double *psf, int n,
    double dx, double dy, int c, float node[258]);

#ifdef __cplusplus
}
#endif
#endif /* CO_CLT_BUILD_H */
