/* cudaoptics — LGPL-2.1-or-later
 *
 * The foveation model of cudafoveate (after Malkin, Deza and Poggio,
 * "CUDA-Optimized real-time rendering of a Foveated Visual System", 2020,
 * on Geisler and Perry's contrast threshold), shared by the C reference and
 * CUDA (written once, __host__ __device__, float arithmetic that both round
 * the same way: the blur's multiply-adds fused on purpose, co_fovea_mac,
 * nothing contracted behind our back, no transcendental the two libraries
 * could round apart on the device side).
 *
 * A pixel at distance d (pixels) from the fixation point has eccentricity
 *   e = d / d_corner * e_corner            (degrees; d_corner: half the
 *                                           frame's diagonal)
 * or, when pixels-per-degree is set, e = d / ppd.  Geisler and Perry's
 * cut-off frequency (cycles per degree) is
 *   f_c(e) = e2 / (alpha (e + e2)) ln(1 / CT0).
 * The paper normalises by f_max = f_c(0) and takes half of it as cycles per
 * pixel, f_px = 0.5 f_c / f_max = 0.5 e2 / (e + e2): CT0 and alpha cancel,
 *   sigma = 1 / (2 pi f_px) = (e + e2) / (pi e2)       (pixels).
 * With pixels-per-degree the display enters as in Geisler and Perry:
 * f_px = min (f_c / ppd, 0.5) (Nyquist), sigma = 1 / (2 pi f_px).  Either
 * sigma is multiplied by `strength`; below `min-sigma` the pixel is copied
 * (the fovea), and so is the fragment holding the fixation point whatever
 * the sigma (the paper's fovea: a blur strength that puts sigma above
 * min-sigma everywhere still leaves the fixated fragment sharp).  A kernel
 * spans ceil (6 sigma) taps, rounded up to odd.
 */
#ifndef CO_FOVEATE_MATH_H
#define CO_FOVEATE_MATH_H

#include "co_frame.h"
#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  float e_corner;               /* degrees at the frame's corner (ppd 0) */
  float ct0, alpha, e2;         /* Geisler and Perry's constants */
  float ppd;                    /* pixels per degree; 0: the paper's
                                 * normalisation */
  float strength;               /* scales sigma */
  float min_sigma;              /* below it no blur */
} CoFoveaModel;

#define CO_FOVEA_PI 3.14159265358979323846f

/* Eccentricity in degrees at @d pixels from the fixation point in a frame
 * whose half diagonal is @d_corner pixels. */
CO_HD float
co_fovea_eccentricity (const CoFoveaModel * m, float d, float d_corner)
{
  return m->ppd > 0.0f ? d / m->ppd : d / d_corner * m->e_corner;
}

/* The blur's sigma in pixels at eccentricity @e (before min-sigma), with
 * @ln_ct the host's ln (1 / CT0) (a logarithm the device never computes). */
CO_HD float
co_fovea_sigma (const CoFoveaModel * m, float e, float ln_ct)
{
  float f_px;

  if (m->ppd > 0.0f) {
    /* cycles per degree to cycles per pixel, no finer than Nyquist */
    f_px = m->e2 / (m->alpha * (e + m->e2)) * ln_ct / m->ppd;
    if (f_px > 0.5f)
      f_px = 0.5f;
  } else {
    f_px = 0.5f * m->e2 / (e + m->e2);
  }
  return m->strength / (2.0f * CO_FOVEA_PI * f_px);
}

/* A kernel's radius in taps: ceil (6 sigma) taps rounded up to odd. */
CO_HD int
co_fovea_radius (float sigma)
{
  int taps = (int) ceilf (6.0f * sigma);

  return taps < 1 ? 0 : taps / 2;
}

/* The blur of one frame, as the kernels and their C reference see it.
 * Sigma is quantised to CO_FOVEA_Q levels per pixel; level L has the
 * normalised half kernel w[off[L - lo] .. off[L - lo + 1]) (taps 0..r, the
 * host computes them: no exponential on the device), the table a
 * cumulative-size index over the levels lo .. lo + n - 1 the frame uses. */
#define CO_FOVEA_Q 32.0f

/* The device's ways through a fragment: the tile as floats where it fits
 * shared memory, as packed bytes where only that fits, else every pixel on
 * its own (direct). */
enum
{ CO_FOVEA_PATH_AUTO, CO_FOVEA_PATH_PACKED, CO_FOVEA_PATH_DIRECT };

typedef struct
{
  CoFoveaModel m;
  float ln_ct;                  /* ln (1 / CT0), from the host */
  float fx, fy;                 /* the fixation, plane-0 pixels */
  float d_corner;               /* half the frame's diagonal, plane 0 */
  float d_corner_x, d_corner_y; /* half its width and height */
  /* co_fovea_level's constants, from co_fovea_plan: eccentricity per
   * pixel; sigma = max ((e + e2) sig_per_e, sig_min), co_fovea_sigma
   * without its divisions; the blur map's scale per pixel */
  float ecc_per_px, sig_per_e, sig_min, map_per_px_x, map_per_px_y;
  int32_t fragment;             /* plane-0 fragment size */
  int32_t lo, n;                /* the levels in the table */
  int32_t rmax;                 /* the radius of its widest kernel */
  int32_t path;                 /* CUDA: a CO_FOVEA_PATH forced (tests) */
  /* blur-map: a grey picture of the visual field, twice the frame's width
   * and height, centred on the fixation; its value v gives the
   * eccentricity v / 255 x e_corner (degrees) instead of the distance */
  const uint8_t *map;
  int32_t map_w, map_h;
  /* show-map: the fragments' borders drawn in the colour of their level,
   * per plane (co_format_border), from blue (copied) to red (show_hi) */
  int32_t show;
  int32_t show_hi;              /* the level drawn red: the frame's widest */
  const int32_t *off;           /* n + 1 offsets into w */
  const float *w;
} CoFovea;

/* A plane's tiling: fragments of @size pixels, the first starting at
 * (*sx, *sy) <= 0 so that one is centred on the fixation; *nx by *ny of
 * them cover the plane. */
CO_HD void
co_fovea_tiling (const CoFovea * f, int shift, int width, int height,
    int *size, int *sx, int *sy, int *nx, int *ny)
{
  int F = f->fragment >> shift;
  int ox = (int) floorf ((f->fx + 0.5f) / (float) (1 << shift)) - F / 2;
  int oy = (int) floorf ((f->fy + 0.5f) / (float) (1 << shift)) - F / 2;

  ox %= F;
  oy %= F;
  *sx = ox > 0 ? ox - F : ox;
  *sy = oy > 0 ? oy - F : oy;
  *nx = (width - *sx + F - 1) / F;
  *ny = (height - *sy + F - 1) / F;
  *size = F;
}

/* The level of the fragment whose first pixel is (x0, y0) in a plane of
 * shift @shift, or -1 where it is copied (the fovea). */
CO_HD int
co_fovea_level (const CoFovea * f, int shift, int size, int x0, int y0)
{
  float k = (float) (1 << shift);
  /* the fragment's centre in plane-0 pixels */
  float cx = ((float) x0 + 0.5f * (float) (size - 1) + 0.5f) * k - 0.5f;
  float cy = ((float) y0 + 0.5f * (float) (size - 1) + 0.5f) * k - 0.5f;
  float dx = cx - f->fx, dy = cy - f->fy, e, sigma;

  if (f->map) {
    /* the map's pixel under the fragment's centre, nearest */
    int mx = (int) floorf ((dx * f->map_per_px_x + 0.5f) * (float) f->map_w);
    int my = (int) floorf ((dy * f->map_per_px_y + 0.5f) * (float) f->map_h);
    mx = mx < 0 ? 0 : mx >= f->map_w ? f->map_w - 1 : mx;
    my = my < 0 ? 0 : my >= f->map_h ? f->map_h - 1 : my;
    e = (float) f->map[(size_t) my * f->map_w + mx] / 255.0f * f->m.e_corner;
  } else {
    e = sqrtf (dx * dx + dy * dy) * f->ecc_per_px;
  }
  /* sigma in this plane's pixels (subsampled planes are halved: 4:2:0) */
  sigma = fmaxf ((e + f->m.e2) * f->sig_per_e, f->sig_min) *
      (shift == 0 ? 1.0f : shift == 1 ? 0.5f : 1.0f / k);
  int level = (int) floorf (sigma * CO_FOVEA_Q + 0.5f);
  /* the fixation's own fragment is always copied, as in the paper, at any
   * strength; min-sigma is compared with the true sigma, not its level */
  int px = (int) floorf ((f->fx + 0.5f) / k);
  int py = (int) floorf ((f->fy + 0.5f) / k);

  if ((px >= x0 && px < x0 + size && py >= y0 && py < y0 + size) ||
      sigma < f->m.min_sigma || f->n < 1)
    return -1;
  /* the host sizes the table to hold every level; never read past it */
  return level < f->lo ? f->lo : level > f->lo + f->n - 1 ? f->lo + f->n - 1 :
      level;
}

CO_HD int
co_fovea_clampi (int v, int hi)
{
  return v < 0 ? 0 : v > hi ? hi : v;
}

/* acc + w x, rounded once: the device's FFMA (half the instructions of a
 * multiply and an add, the blur's bound on the GPU) and C's fmaf, which
 * rounds the same (an instruction where the CPU has one; foveate_cpu.c
 * builds a clone of its loop for such CPUs). */
CO_HD float
co_fovea_mac (float acc, float w, float x)
{
  return fmaf (w, x, acc);
}

/* The horizontal pass at (x, y) for channel @c: taps -r..r in that order,
 * the frame's edges repeated. */
CO_HD float
co_fovea_hsum (const uint8_t * row, int bpp, int width, int x, int c,
    const float *w, int r)
{
  float acc = 0.0f;
  int k;

  for (k = -r; k <= r; k++)
    acc = co_fovea_mac (acc, w[k < 0 ? -k : k],
        (float) row[co_fovea_clampi (x + k, width - 1) * bpp + c]);
  return acc;
}

CO_HD uint8_t
co_fovea_round (float acc)
{
#ifdef __CUDA_ARCH__
  /* one saturating conversion (PTX clamps float-to-integer results to the
   * type's range, and rzi truncates as the cast does), not a clamp by min
   * and max, then a conversion: the kernel is issue-bound */
  unsigned int r;
  asm ("cvt.rzi.sat.u8.f32 %0, %1;" : "=r" (r) : "f" (acc + 0.5f));
  return (uint8_t) r;
#else
  acc += 0.5f;
  return (uint8_t) (acc < 0.0f ? 0.0f : acc > 255.0f ? 255.0f : acc);
#endif
}

/* The vertical pass over horizontal sums h[0 .. 2r], row @stride floats
 * apart, and the rounding to a byte. */
CO_HD uint8_t
co_fovea_vsum (const float *h, int stride, const float *w, int r)
{
  float acc = 0.0f;
  int k;

  for (k = -r; k <= r; k++)
    acc = co_fovea_mac (acc, w[k < 0 ? -k : k], h[(k + r) * stride]);
  return co_fovea_round (acc);
}

/* Blurs every plane of @in into @out (same format and size; 8-bit formats)
 * on the device, on @stream (kernels/foveate.cu).  Returns a cudaError_t. */
int co_fovea_cuda (const CoFovea * f, const CoFrame * in, CoFrame * out,
    void *stream);

/* show-map: the level of the fragment whose border (x, y) of a plane of
 * shift @shift lies on, -1 for a copied one, or -2 inside a fragment. */
CO_HD int
co_fovea_border_level (const CoFovea * f, int shift, int width, int height,
    int x, int y)
{
  int F, sx, sy, nx, ny, x0, y0;

  co_fovea_tiling (f, shift, width, height, &F, &sx, &sy, &nx, &ny);
  x0 = sx + (x - sx) / F * F;
  y0 = sy + (y - sy) / F * F;
  if (x != x0 && y != y0)
    return -2;
  return co_fovea_level (f, shift, F, x0, y0);
}

/* The ARGB colour of a level on the map: blue for copied, then through
 * green to red at the table's widest kernel. */
CO_HD uint32_t
co_fovea_level_argb (const CoFovea * f, int level)
{
  float t;
  uint32_t r, g, b;

  if (level < 0 || f->show_hi <= f->lo)
    return 0xff2060ffu;
  t = (float) (level - f->lo) / (float) (f->show_hi - f->lo);
  t = t > 1.0f ? 1.0f : t;
  r = (uint32_t) (255.0f * (t < 0.5f ? 0.0f : 2.0f * t - 1.0f));
  g = (uint32_t) (255.0f * (t < 0.5f ? 2.0f * t : 2.0f - 2.0f * t));
  b = (uint32_t) (255.0f * (t < 0.5f ? 1.0f - 2.0f * t : 0.0f));
  return 0xff000000u | (r << 16) | (g << 8) | b;
}

/* show-map on the device after the blur; its C twin is co_fovea_cpu's.
 * Returns a cudaError_t. */
int co_fovea_show_cuda (const CoFovea * f, CoFrame * out, void *stream);

/* The C reference of co_fovea_cuda: the same bytes.  Returns 0, or -1 when
 * memory ran out. */
int co_fovea_cpu (const CoFovea * f, const CoFrame * in, CoFrame * out);

/* Host side of the table (foveate_cpu.c): the levels the fragments of a
 * frame use (*hi < *lo when every fragment is copied); the taps of levels
 * lo .. lo + n - 1; the table itself, @off n + 1 entries, @w that many
 * taps. */
/* The widest blur, sigma in pixels: its table (every level up to it, 1/32
 * pixel apart) is a few megabytes. */
#define CO_FOVEA_MAX_SIGMA 128.0f

/* Everything of @f for a frame but the blur map, show-map and the table's
 * address: the model, the fixation (0..1 of the frame), the fragment size
 * and the levels a fragment centre can take.  Returns the widest sigma;
 * above CO_FOVEA_MAX_SIGMA @f is left without levels (the caller's error).
 * Then the table: its size, its bytes into host memory, and its address
 * (host or device) into @f. */
float co_fovea_plan (CoFovea * f, const CoFoveaModel * m, CoFormat format,
    int width, int height, double fix_x, double fix_y, int fragment);
/* A blur map gives eccentricities up to e_corner anywhere in the frame,
 * whatever the pixel distances: the planned table grows to the sigma of
 * e_corner (the levels co_fovea_level clamps to).  Returns the widest sigma
 * of the table, to compare with CO_FOVEA_MAX_SIGMA. */
float co_fovea_plan_map (CoFovea * f);
size_t co_fovea_table_bytes (const CoFovea * f);
void co_fovea_fill_table (const CoFovea * f, void *table);
void co_fovea_bind_table (CoFovea * f, const void *table);

void co_fovea_level_range (const CoFovea * f, CoFormat format, int width,
    int height, int *lo, int *hi);
int co_fovea_table_size (int lo, int n);
void co_fovea_table (int lo, int n, int32_t * off, float *w);

#ifdef __cplusplus
}
#endif
#endif
