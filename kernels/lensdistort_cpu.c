/* cudaoptics — LGPL-2.1-or-later
 *
 * C reference of cudalensdistort (the CPU backend and the tests' oracle),
 * and the host-side parameter set-up both backends share.
 */
#include <math.h>
#include <string.h>
#include "lensdistort.h"

/* Below this many pixels a plane is done on one thread: waking OpenMP's
 * team costs more than it saves, and a busy machine makes it much worse
 * (320x240 RGBA: 11 ms with the team against 2.7 ms alone on 2 loaded
 * cores). */
#define PARALLEL_MIN_PIXELS (256 * 256)

void
co_lens_params_init_hmd (CoLensParams * p, int width, int height, double k1,
    double k2, double center_x, double center_y, int stereo)
{
  int eye_w = stereo ? width / 2 : width;
  double hw = 0.5 * eye_w, hh = 0.5 * height;

  memset (p, 0, sizeof (*p));
  p->model = CO_LENS_HMD;
  p->width = width;
  p->height = height;
  p->stereo = stereo && width >= 2;
  p->eye_w = p->stereo ? eye_w : width;
  p->k1 = (float) k1;
  p->k2 = (float) k2;
  p->ecx0 = (float) (center_x * p->eye_w - 0.5);
  /* the right eye's lens centre mirrors the left one's about the nose */
  p->ecx1 = (float) (p->eye_w + (1.0 - center_x) * (width - p->eye_w) - 0.5);
  p->ecy = (float) (center_y * height - 0.5);
  p->inv_r2 = (float) (1.0 / (hw * hw + hh * hh));
}

void
co_lens_params_init_camera (CoLensParams * p, int width, int height,
    const double k[4], const double dist[5], const double new_k[4])
{
  memset (p, 0, sizeof (*p));
  p->model = CO_LENS_CAMERA;
  p->width = width;
  p->height = height;
  p->fx = (float) k[0];
  p->fy = (float) k[1];
  p->cx = (float) k[2];
  p->cy = (float) k[3];
  p->ck1 = (float) dist[0];
  p->ck2 = (float) dist[1];
  p->p1 = (float) dist[2];
  p->p2 = (float) dist[3];
  p->ck3 = (float) dist[4];
  p->ifx = (float) (1.0 / new_k[0]);
  p->ify = (float) (1.0 / new_k[1]);
  p->ncx = (float) new_k[2];
  p->ncy = (float) new_k[3];
}

/* cv::undistortPoints into normalised coordinates, with its default five
 * fixed-point iterations. */
static void
undistort_point (const double k[4], const double d[5], double u, double v,
    double *ox, double *oy)
{
  double x0 = (u - k[2]) / k[0], y0 = (v - k[3]) / k[1], x = x0, y = y0;
  int i;

  for (i = 0; i < 5; i++) {
    double r2 = x * x + y * y;
    double icdist = 1.0 / (1.0 + ((d[4] * r2 + d[1]) * r2 + d[0]) * r2);
    double dx = 2.0 * d[2] * x * y + d[3] * (r2 + 2.0 * x * x);
    double dy = d[2] * (r2 + 2.0 * y * y) + 2.0 * d[3] * x * y;
    if (icdist < 0) {
      x = x0;
      y = y0;
      break;
    }
    x = (x0 - dx) * icdist;
    y = (y0 - dy) * icdist;
  }
  *ox = x;
  *oy = y;
}

int
co_lens_optimal_new_camera (const double k[4], const double dist[5],
    int width, int height, double alpha, double new_k[4])
{
  const int n = 9;
  double ix0 = -HUGE_VAL, ix1 = HUGE_VAL, iy0 = -HUGE_VAL, iy1 = HUGE_VAL;
  double ox0 = HUGE_VAL, ox1 = -HUGE_VAL, oy0 = HUGE_VAL, oy1 = -HUGE_VAL;
  double fx0, fy0, fx1, fy1;
  int x, y;

  /* the inscribed and circumscribed rectangles of the undistorted border */
  for (y = 0; y < n; y++) {
    for (x = 0; x < n; x++) {
      double px, py;
      undistort_point (k, dist, (double) x * (width - 1) / (n - 1),
          (double) y * (height - 1) / (n - 1), &px, &py);
      ox0 = fmin (ox0, px);
      ox1 = fmax (ox1, px);
      oy0 = fmin (oy0, py);
      oy1 = fmax (oy1, py);
      if (x == 0)
        ix0 = fmax (ix0, px);
      if (x == n - 1)
        ix1 = fmin (ix1, px);
      if (y == 0)
        iy0 = fmax (iy0, py);
      if (y == n - 1)
        iy1 = fmin (iy1, py);
    }
  }
  if (!(ix1 > ix0 && iy1 > iy0 && ox1 > ox0 && oy1 > oy0))
    return 0;
  fx0 = (width - 1) / (ix1 - ix0);
  fy0 = (height - 1) / (iy1 - iy0);
  fx1 = (width - 1) / (ox1 - ox0);
  fy1 = (height - 1) / (oy1 - oy0);
  new_k[0] = fx0 * (1 - alpha) + fx1 * alpha;
  new_k[1] = fy0 * (1 - alpha) + fy1 * alpha;
  new_k[2] = -fx0 * ix0 * (1 - alpha) - fx1 * ox0 * alpha;
  new_k[3] = -fy0 * iy0 * (1 - alpha) - fy1 * oy0 * alpha;
  return isfinite (new_k[0]) && isfinite (new_k[1]) && new_k[0] > 0
      && new_k[1] > 0;
}

void
co_lut_layout (CoLut * lut, CoLutMode mode, CoInterp interp, CoFormat format,
    int width, int height)
{
  int g;

  memset (lut, 0, sizeof (*lut));
  lut->mode = mode;
  lut->interp = interp;
  lut->format = format;
  lut->n_geometries = co_format_n_planes (format) > 1 ? 2 : 1;
  for (g = 0; g < lut->n_geometries; g++) {
    CoLutPlane *pl = &lut->plane[g];
    co_plane_size (width, height, g, &pl->width, &pl->height);
    pl->pitch = (pl->width + 3) & ~3;
    lut->frac[g] = interp == CO_INTERP_NEAREST ? 0 :
        co_lut_frac_bits (pl->width, pl->height);
  }
}

size_t
co_lut_table_bytes (const CoLut * lut, int g)
{
  if (lut->mode == CO_LUT_COMPUTE || g >= lut->n_geometries)
    return 0;
  return (size_t) lut->plane[g].pitch * lut->plane[g].height * 4;
}

int
co_lens_maps_any (const CoLensParams * p, CoInterp interp, int frac, int n)
{
  int i, j;

  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++) {
      int x = (int) ((int64_t) i * (p->width - 1) / (n > 1 ? n - 1 : 1));
      int y = (int) ((int64_t) j * (p->height - 1) / (n > 1 ? n - 1 : 1));
      if (co_lens_entry (p, 0, x, y, interp, frac, p->width,
              p->height) != CO_LUT_UNMAPPED)
        return 1;
    }
  return 0;
}

void
co_lens_build_lut_cpu (const CoLensParams * p, CoLut * lut)
{
  int g;

  if (lut->mode == CO_LUT_COMPUTE)
    return;
  for (g = 0; g < lut->n_geometries; g++) {
    const CoLutPlane *pl = &lut->plane[g];
    int y;
#pragma omp parallel for schedule(static) \
    if ((int64_t) pl->width * pl->height >= PARALLEL_MIN_PIXELS)
    for (y = 0; y < pl->height; y++) {
      size_t row = (size_t) y * pl->pitch;
      int x;
      for (x = 0; x < pl->width; x++) {
        if (lut->mode == CO_LUT_COMPRESSED) {
          pl->packed[row + x] = co_lens_entry (p, g, x, y, lut->interp,
              lut->frac[g], pl->width, pl->height);
        } else {
          float sx, sy;
          if (!co_lens_map_plane (p, g, x, y, &sx, &sy))
            sx = sy = NAN;
          pl->x[row + x] = sx;
          pl->y[row + x] = sy;
        }
      }
    }
  }
}

static inline uint32_t
lut_entry (const CoLensParams * p, const CoLut * lut, int g, int x, int y)
{
  const CoLutPlane *pl = &lut->plane[g];
  size_t i = (size_t) y * pl->pitch + x;

  switch (lut->mode) {
    case CO_LUT_COMPRESSED:
      return pl->packed[i];
    case CO_LUT_TWO_TABLE:
      return co_lut_encode (lut->interp, pl->x[i], pl->y[i], pl->width,
          pl->height, lut->frac[g]);
    default:
      return co_lens_entry (p, g, x, y, lut->interp, lut->frac[g],
          pl->width, pl->height);
  }
}

void
co_lens_remap_cpu (const CoLensParams * p, const CoLut * lut,
    const CoFrame * in, CoFrame * out, const uint32_t border[CO_MAX_PLANES])
{
  int pi;

  for (pi = 0; pi < co_format_n_planes (lut->format); pi++) {
    int g = pi > 0 ? 1 : 0;
    CoPixKind kind = co_format_plane_kind (lut->format, pi);
    int bpp = co_pix_bpp (kind);
    const CoLutPlane *pl = &lut->plane[g];
    CoSrcPlane s = { in->data[pi], in->pitch[pi], pl->width, pl->height };
    int y;
#pragma omp parallel for schedule(static) \
    if ((int64_t) pl->width * pl->height >= PARALLEL_MIN_PIXELS)
    for (y = 0; y < pl->height; y++) {
      uint8_t *d = out->data[pi] + (size_t) y * out->pitch[pi];
      int x;
      for (x = 0; x < pl->width; x++) {
        uint32_t e = lut_entry (p, lut, g, x, y);
        co_pix_store (d + (size_t) x * bpp, kind, co_sample (&s, kind,
                lut->interp, lut->frac[g], e, border[pi]));
      }
    }
  }
}

void
co_lens_build_forward_cpu (const CoLensParams * p, uint32_t * fwd, int pitch)
{
  int y;
#pragma omp parallel for schedule(static)
  for (y = 0; y < p->height; y++) {
    int x;
    for (x = 0; x < p->width; x++)
      fwd[(size_t) y * pitch + x] = co_lens_entry (p, 0, x, y,
          CO_INTERP_NEAREST, 0, p->width, p->height);
  }
}

void
co_lens_remap_forward_cpu (const uint32_t * fwd, int pitch,
    const CoFrame * in, CoFrame * out)
{
  CoPixKind kind = co_format_plane_kind (in->format, 0);
  int bpp = co_pix_bpp (kind), y;
#pragma omp parallel for schedule(static)
  for (y = 0; y < in->height; y++) {
    int x;
    for (x = 0; x < in->width; x++) {
      uint32_t e = fwd[(size_t) y * pitch + x];
      int dx, dy;
      if (e == CO_LUT_UNMAPPED)
        continue;
      co_lut_decode_nearest (e, &dx, &dy);
      memcpy (out->data[0] + (size_t) dy * out->pitch[0] + (size_t) dx * bpp,
          in->data[0] + (size_t) y * in->pitch[0] + (size_t) x * bpp, bpp);
    }
  }
}
