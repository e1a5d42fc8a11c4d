/* cudaoptics — LGPL-2.1-or-later
 *
 * SSIM (Wang, Bovik, Sheikh and Simoncelli, IEEE TIP 2004) for the quality
 * tests, header-only, double precision, computed exactly as scikit-image's
 * structural_similarity (0.19) does with
 *
 *   gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
 *   data_range=255 (K1 = 0.01, K2 = 0.03)
 *
 * so that a number from here can be compared with one from skimage:
 *   - local means, variances and covariance are Gaussian-weighted (sigma 1.5)
 *     with scipy.ndimage's kernel: truncate 3.5 gives radius
 *     int(3.5 * 1.5 + 0.5) = 5, an 11-tap kernel exp(-x^2 / (2 sigma^2))
 *     normalised to sum 1, applied separably;
 *   - borders use scipy's mode 'reflect' (d c b a | a b c d | d c b a);
 *   - variances are population ones (E[x^2] - E[x]^2, no N/(N-1));
 *   - the mean SSIM is taken over the map with a border of
 *     (win_size - 1) / 2 = 5 pixels cropped, where the window would reach
 *     past the image;
 *   - a colour image's SSIM is the mean of its channels' (channel_axis).
 * It was checked once against skimage on real and synthetic images
 * (tests/unit/test-ssim.c keeps skimage's numbers for synthetic ones).
 *
 * Region SSIM, for the foveation criterion "every 64-pixel region at least
 * 0.97": the map is cut into non-overlapping 64x64 regions on the image's
 * own grid (x0 = 0, 64, 128, ...), each region clipped to the cropped map
 * [5, width - 5) x [5, height - 5); a region's SSIM is the mean of the map
 * over its clipped pixels, and regions that clipping empties are left out.
 * For colour, a region's SSIM is the mean of its channels' region SSIMs.
 *
 * Plain C with GLib (g_new / g_free); no GStreamer.
 */
#ifndef CO_TEST_SSIM_H
#define CO_TEST_SSIM_H

#include <math.h>
#include <stdint.h>
#include <glib.h>

#define CO_SSIM_SIGMA 1.5
#define CO_SSIM_RADIUS 5        /* int (3.5 * CO_SSIM_SIGMA + 0.5) */
#define CO_SSIM_WIN (2 * CO_SSIM_RADIUS + 1)
#define CO_SSIM_CROP ((CO_SSIM_WIN - 1) / 2)
#define CO_SSIM_C1 ((0.01 * 255) * (0.01 * 255))
#define CO_SSIM_C2 ((0.03 * 255) * (0.03 * 255))
#define CO_SSIM_REGION 64

/* scipy.ndimage's 1-D Gaussian: exp(-x^2 / (2 sigma^2)), normalised. */
static inline void
co_ssim_kernel (double k[CO_SSIM_WIN])
{
  double sum = 0;
  int i;

  for (i = 0; i < CO_SSIM_WIN; i++) {
    double x = i - CO_SSIM_RADIUS;
    k[i] = exp (-0.5 / (CO_SSIM_SIGMA * CO_SSIM_SIGMA) * x * x);
    sum += k[i];
  }
  for (i = 0; i < CO_SSIM_WIN; i++)
    k[i] /= sum;
}

/* scipy's mode 'reflect': the edge sample repeats (half-sample symmetric).
 * Looped so that images narrower than the radius still map inside. */
static inline int
co_ssim_reflect (int i, int n)
{
  while (i < 0 || i >= n)
    i = i < 0 ? -i - 1 : 2 * n - i - 1;
  return i;
}

/* The SSIM map of one channel.  a and b point at the channel's first
 * sample; stride is bytes per row, step bytes from one pixel to the next
 * (1 for GRAY8, 3 for packed RGB, 4 for RGBx).  map has width * height
 * doubles, row-major without padding.  Images should be at least 11x11,
 * as skimage requires. */
static inline void
co_ssim_map_channel (const uint8_t * a, int a_stride, const uint8_t * b,
    int b_stride, int step, int width, int height, double *map)
{
  /* the five filtered fields after the horizontal pass:
   * x, y, x*x, y*y, x*y — filtered separately as skimage does */
  size_t n = (size_t) width * height;
  double *h = g_new (double, 5 * n);
  double k[CO_SSIM_WIN];
  int x, y, i;

  co_ssim_kernel (k);

  for (y = 0; y < height; y++) {
    const uint8_t *ra = a + (size_t) y * a_stride;
    const uint8_t *rb = b + (size_t) y * b_stride;
    for (x = 0; x < width; x++) {
      double s[5] = { 0, 0, 0, 0, 0 };
      for (i = 0; i < CO_SSIM_WIN; i++) {
        int xi = co_ssim_reflect (x + i - CO_SSIM_RADIUS, width);
        double va = ra[(size_t) xi * step], vb = rb[(size_t) xi * step];
        s[0] += k[i] * va;
        s[1] += k[i] * vb;
        s[2] += k[i] * va * va;
        s[3] += k[i] * vb * vb;
        s[4] += k[i] * va * vb;
      }
      for (i = 0; i < 5; i++)
        h[i * n + (size_t) y * width + x] = s[i];
    }
  }

  for (y = 0; y < height; y++) {
    for (x = 0; x < width; x++) {
      double s[5] = { 0, 0, 0, 0, 0 };
      double ux, uy, vx, vy, vxy;
      int j, f;
      for (j = 0; j < CO_SSIM_WIN; j++) {
        size_t at = (size_t) co_ssim_reflect (y + j - CO_SSIM_RADIUS,
            height) * width + x;
        for (f = 0; f < 5; f++)
          s[f] += k[j] * h[f * n + at];
      }
      ux = s[0];
      uy = s[1];
      vx = s[2] - ux * ux;      /* population (co)variances */
      vy = s[3] - uy * uy;
      vxy = s[4] - ux * uy;
      map[(size_t) y * width + x] =
          ((2 * ux * uy + CO_SSIM_C1) * (2 * vxy + CO_SSIM_C2)) /
          ((ux * ux + uy * uy + CO_SSIM_C1) * (vx + vy + CO_SSIM_C2));
    }
  }
  g_free (h);
}

/* The SSIM map of two GRAY8 images. */
static inline void
co_ssim_map (const uint8_t * a, int a_stride, const uint8_t * b,
    int b_stride, int width, int height, double *map)
{
  co_ssim_map_channel (a, a_stride, b, b_stride, 1, width, height, map);
}

/* The mean of a map over [x0, x1) x [y0, y1). */
static inline double
co_ssim_map_area_mean (const double *map, int width, int x0, int y0, int x1,
    int y1)
{
  double sum = 0;
  int x, y;

  for (y = y0; y < y1; y++)
    for (x = x0; x < x1; x++)
      sum += map[(size_t) y * width + x];
  return sum / ((double) (x1 - x0) * (y1 - y0));
}

/* Mean SSIM: the map's mean with the 5-pixel border cropped (skimage's
 * crop(S, pad).mean()). */
static inline double
co_ssim_map_mean (const double *map, int width, int height)
{
  return co_ssim_map_area_mean (map, width, CO_SSIM_CROP, CO_SSIM_CROP,
      width - CO_SSIM_CROP, height - CO_SSIM_CROP);
}

/* The least region SSIM (see the top of this file) and, where rx / ry are
 * given, the top-left corner of that region on the image grid. */
static inline double
co_ssim_map_region_min (const double *map, int width, int height, int *rx,
    int *ry)
{
  double min = INFINITY;
  int x, y;

  for (y = 0; y < height; y += CO_SSIM_REGION) {
    for (x = 0; x < width; x += CO_SSIM_REGION) {
      int x0 = MAX (x, CO_SSIM_CROP), y0 = MAX (y, CO_SSIM_CROP);
      int x1 = MIN (x + CO_SSIM_REGION, width - CO_SSIM_CROP);
      int y1 = MIN (y + CO_SSIM_REGION, height - CO_SSIM_CROP);
      double m;
      if (x1 <= x0 || y1 <= y0)
        continue;
      m = co_ssim_map_area_mean (map, width, x0, y0, x1, y1);
      if (m < min) {
        min = m;
        if (rx)
          *rx = x;
        if (ry)
          *ry = y;
      }
    }
  }
  return min;
}

/* SSIM of interleaved 8-bit images with step bytes a pixel, over their
 * first channels channels (GRAY8: 1, 1; RGB: 3, 3; RGBx: 4, 3): the mean
 * of the channels' mean SSIMs, as skimage's channel_axis gives it.
 * *region_min (if not NULL) gets the least region SSIM, each region's
 * value being the mean over the channels.  Returns the mean SSIM. */
static inline double
co_ssim_interleaved (const uint8_t * a, int a_stride, const uint8_t * b,
    int b_stride, int step, int channels, int width, int height,
    double *region_min)
{
  size_t n = (size_t) width * height, i;
  double *map = g_new (double, n);
  double *avg = g_new0 (double, n);
  double mean = 0;
  int c;

  for (c = 0; c < channels; c++) {
    co_ssim_map_channel (a + c, a_stride, b + c, b_stride, step, width,
        height, map);
    mean += co_ssim_map_mean (map, width, height);
    /* regions have the same pixels in every channel, so the mean of the
     * channels' region means is the region mean of the channel-mean map */
    for (i = 0; i < n; i++)
      avg[i] += map[i] / channels;
  }
  if (region_min)
    *region_min = co_ssim_map_region_min (avg, width, height, NULL, NULL);
  g_free (map);
  g_free (avg);
  return mean / channels;
}

/* Mean SSIM of two GRAY8 images; *region_min as above. */
static inline double
co_ssim_gray (const uint8_t * a, int a_stride, const uint8_t * b,
    int b_stride, int width, int height, double *region_min)
{
  return co_ssim_interleaved (a, a_stride, b, b_stride, 1, 1, width, height,
      region_min);
}

/* Mean SSIM of two packed RGB images (3 bytes a pixel), the mean over the
 * three channels; *region_min as above. */
static inline double
co_ssim_rgb (const uint8_t * a, int a_stride, const uint8_t * b,
    int b_stride, int width, int height, double *region_min)
{
  return co_ssim_interleaved (a, a_stride, b, b_stride, 3, 3, width, height,
      region_min);
}

#endif /* CO_TEST_SSIM_H */
