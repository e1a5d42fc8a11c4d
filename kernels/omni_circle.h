/* cudaoptics — LGPL-2.1-or-later
 *
 * The image circle of a 360-degree camera: where a mirror or a fisheye
 * (donut) lens draws its picture on the sensor, found in one channel of a
 * frame (cudaomniunwrap's auto-center).  Host side, plain C99 and libm: no
 * GStreamer, no CUDA, no GLib.
 *
 * Method (omni_circle.c): a grid of box averages (about 512 samples on the
 * long side) is split into dark surround and bright picture by Otsu's
 * threshold; from the centroid of the bright samples 360 rays look for the
 * outermost bright-to-dark transition (the last one on the ray, specks of a
 * single grid sample ignored), so a donut's dark hole and dark objects in
 * the picture, which the ray leaves again, do not take it; a ray that ends
 * in the picture (a circle cut by the sensor's border) gives no point.
 * From the transition the edge goes on out while the ray stays over a
 * lower threshold, half-way down to the dark class (a vignetted rim).  Each
 * edge is refined at full resolution on a profile across it (5 lines wide):
 * where it crosses the mean of the picture's level at the edge (a line
 * through the inner part of the profile) and the surround's (the median of
 * the outer part), linearly interpolated; a soft edge gets a wider
 * profile.  The fit starts from the largest set of points within a pixel
 * of one circle through three of them (where the picture is as dark as
 * the surround at its rim, the edge found is inside the rim: outliers all
 * on one side, which pull a fit through every point inwards), widened to
 * three sigma of the scatter of the points outside that circle; a circle
 * is fitted to them (Kasa, then geometric Gauss-Newton), points further than
 * 3 sigma (1.4826 MAD, at least 1 pixel) from the median residual are
 * dropped, those within it taken back, and the fit repeated; then
 * everything once more with rays from the fitted centre.
 *
 * A circle is reported only when it is unambiguous: a fifth of the rays or
 * more found an edge, at least half of those agree, the rms residual is under 1% of the
 * radius, the points surround the centre (4 of 8 sectors), the radius is
 * over 10% of the shorter side, the centre lies in the frame, and the grid
 * agrees (outside mostly dark, inside mostly bright).  Otherwise 0 and a
 * reason; a uniform frame, noise, a gradient, a rectangle or a soft
 * vignette do not make a circle.
 *
 * Cost: the grid reads 16 samples a cell (about 2M for a 4K frame), the
 * profiles about 2 x 360 x 60 x 5 bilinear samples: 6-10 ms for a 4K
 * frame on one core (tests/unit/test-circle.c prints it).
 *
 * Assumes a dark surround (darker than the picture's rim) and an edge
 * sharper than a smooth vignette: a surround as bright as the rim, a step
 * at the rim under a quarter of the contrast between Otsu's two classes,
 * or an edge blurred over tens of pixels give 0, not a circle.
 */
#ifndef CO_OMNI_CIRCLE_H
#define CO_OMNI_CIRCLE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rays cast per pass. */
#define CO_CIRCLE_N_RAYS 360

typedef struct
{
  double cx, cy, r;             /* the circle, source pixels (pixel centres
                                 * on integers) */
  double rms;                   /* rms residual of the points used, pixels */
  int n_rays;                   /* rays cast (CO_CIRCLE_N_RAYS) */
  int n_points;                 /* rays that gave an edge point (not those
                                 * that left the frame inside the picture) */
  int n_used;                   /* points kept by the fit */
  double threshold;             /* the level that separated inside from
                                 * outside, in sample units (0-255 or
                                 * 0-65535) */
} CoCircleFit;

/* One channel of a frame: sample (x, y) is data[y*stride + x*pixel_stride]
 * (depth 8) or the little-endian uint16 there (depth 16); stride and
 * pixel_stride in bytes, positive (a channel of an interleaved format: data
 * points at its first byte, e.g. G of RGBA is data + 1, pixel_stride 4).
 * Frames from 16 x 16 pixels; thread-safe (no global state), allocates
 * about 1 MB for the call.  Returns 1 and fills *fit when a circle was found
 * with confidence, else 0 and *why (a static string, may be NULL) says what
 * failed; *fit then holds the last attempt (zeros when there was none),
 * for logging only. */
int co_circle_find (const uint8_t * data, int width, int height, int stride,
    int pixel_stride, int depth, CoCircleFit * fit, const char **why);

#ifdef __cplusplus
}
#endif
#endif /* CO_OMNI_CIRCLE_H */
