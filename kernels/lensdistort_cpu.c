/* cudaoptics — LGPL-2.1-or-later
 *
 * C reference of cudalensdistort (the CPU backend and the tests' oracle),
 * and the host-side parameter set-up both backends share.
 */
#include <math.h>
#include <string.h>
#include "lensdistort.h"

/* one thread below this (remap.h) */
#define PARALLEL_MIN_PIXELS CO_PARALLEL_MIN_PIXELS

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
  co_lens_params_set_colour (p, 0, k1, k2, 1.0);
  co_lens_params_set_colour (p, 1, k1, k2, 1.0);
  co_lens_params_set_colour (p, 2, k1, k2, 1.0);
  p->ecx0 = (float) (center_x * p->eye_w - 0.5);
  /* the right eye's lens centre mirrors the left one's about the nose */
  p->ecx1 = (float) (p->eye_w + (1.0 - center_x) * (width - p->eye_w) - 0.5);
  p->ecy = (float) (center_y * height - 0.5);
  p->inv_r2 = (float) (1.0 / (hw * hw + hh * hh));
}

void
co_lens_params_set_colour (CoLensParams * p, int ch, double k1, double k2,
    double scale)
{
  p->k1[ch] = (float) k1;
  p->k2[ch] = (float) k2;
  p->scale[ch] = (float) scale;
}

int
co_lens_params_chromatic (const CoLensParams * p)
{
  int ch;

  if (p->model != CO_LENS_HMD)
    return 0;
  for (ch = 1; ch < 3; ch++)
    if (p->k1[ch] != p->k1[0] || p->k2[ch] != p->k2[0] ||
        p->scale[ch] != p->scale[0])
      return 1;
  return 0;
}

void
co_lens_params_set_source (CoLensParams * p, int src_w, int src_h)
{
  p->rescale = src_w != p->width || src_h != p->height;
  p->src_sx = (float) ((double) src_w / p->width);
  p->src_sy = (float) ((double) src_h / p->height);
}

void
co_lens_params_init_pinhole (CoLensParams * p, int width, int height,
    const CoCamera * cam)
{
  memset (p, 0, sizeof (*p));
  p->model = CO_LENS_CAMERA;
  p->width = width;
  p->height = height;
  co_camera_params_init (&p->cam, cam);
}

static void
camera_from (CoCamera * cam, const double k[4], const double dist[5])
{
  int i;

  co_camera_init (cam, k[0], k[1], k[2], k[3]);
  for (i = 0; i < 5; i++)
    cam->dist[i] = dist[i];
}

void
co_lens_params_init_camera (CoLensParams * p, int width, int height,
    const double k[4], const double dist[5], const double new_k[4])
{
  CoCamera cam;

  camera_from (&cam, k, dist);
  co_camera_set_new_camera (&cam, new_k);
  co_lens_params_init_pinhole (p, width, height, &cam);
}

int
co_lens_optimal_new_camera (const double k[4], const double dist[5],
    int width, int height, double alpha, double new_k[4])
{
  CoCamera cam;

  camera_from (&cam, k, dist);
  return co_camera_optimal_new_camera (&cam, width, height, alpha, new_k);
}

int
co_lens_maps_any (const CoLensParams * p, const CoLut * lut, int n)
{
  const CoLutPlane *pl = &lut->plane[0];
  int i, j;

  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++) {
      int x = (int) ((int64_t) i * (p->width - 1) / (n > 1 ? n - 1 : 1));
      int y = (int) ((int64_t) j * (p->height - 1) / (n > 1 ? n - 1 : 1));
      if (co_lens_entry (p, 0, x, y, lut->interp, lut->edge, lut->frac[0],
              pl->src_width, pl->src_height) != CO_LUT_UNMAPPED)
        return 1;
    }
  return 0;
}

void
co_lens_build_lut_cpu (const CoLensParams * p, const CoLut * lut)
{
  int g;

  if (lut->mode == CO_LUT_COMPUTE)
    return;
  for (g = 0; g < CO_LUT_MAX_GEOMETRIES; g++) {
    const CoLutPlane *pl = &lut->plane[g];
    int y;
    if (!co_lut_has_geometry (lut, g))
      continue;
#pragma omp parallel for schedule(static) \
    if ((int64_t) pl->width * pl->height >= PARALLEL_MIN_PIXELS)
    for (y = 0; y < pl->height; y++) {
      size_t row = (size_t) y * pl->pitch;
      int x;
      for (x = 0; x < pl->width; x++) {
        if (lut->mode == CO_LUT_COMPRESSED) {
          pl->packed[row + x] = co_lens_entry (p, g, x, y, lut->interp,
              lut->edge, lut->frac[g], pl->src_width, pl->src_height);
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

void
co_lens_remap_cpu (const CoLensParams * p, const CoLut * lut,
    const CoFrame * in, CoFrame * out, const uint32_t border[CO_MAX_PLANES])
{
  int pi;

  if (lut->mode != CO_LUT_COMPUTE) {
    co_remap_cpu (lut, in, out, border);
    return;
  }
  for (pi = 0; pi < co_format_n_planes (lut->format); pi++) {
    int g = pi > 0 ? 1 : 0;
    CoPixKind kind = co_format_plane_kind (lut->format, pi);
    int bpp = co_pix_bpp (kind);
    const CoLutPlane *pl = &lut->plane[g];
    CoSrcPlane s = { in->data[pi], in->pitch[pi], pl->src_width,
      pl->src_height, lut->edge == CO_EDGE_WRAP
    };
    int y;
#pragma omp parallel for schedule(static) \
    if ((int64_t) pl->width * pl->height >= PARALLEL_MIN_PIXELS)
    for (y = 0; y < pl->height; y++) {
      uint8_t *d = out->data[pi] + (size_t) y * out->pitch[pi];
      int x;
      for (x = 0; x < pl->width; x++) {
        uint32_t e = co_lens_entry (p, g, x, y, lut->interp, lut->edge,
            lut->frac[g], pl->src_width, pl->src_height), v;
        if (lut->chroma && g == 0)
          v = co_sample_rgb (&s, kind, lut->interp, lut->frac[0], e,
              co_lens_entry (p, CO_LUT_RED, x, y, lut->interp, lut->edge,
                  lut->frac[0], pl->src_width, pl->src_height),
              co_lens_entry (p, CO_LUT_BLUE, x, y, lut->interp, lut->edge,
                  lut->frac[0], pl->src_width, pl->src_height),
              lut->red_channel, border[pi]);
        else
          v = co_sample (&s, kind, lut->interp, lut->frac[g], e, border[pi]);
        co_pix_store (d + (size_t) x * bpp, kind, v);
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
          CO_INTERP_NEAREST, CO_EDGE_BORDER, 0, p->width, p->height);
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
