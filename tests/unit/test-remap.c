/* cudaoptics — LGPL-2.1-or-later
 *
 * The generic remap (kernels/remap.h) against an oracle written here from
 * the definitions: an output of another size than the source (2x up and
 * down, non-integer ratios, odd sizes, 1xN), every off-edge mode, both
 * tables and both interpolations, every format; cudalensdistort's
 * per-pixel mode agreeing with its tables at other sizes; and, where a
 * CUDA device is usable, the CUDA backend byte for byte against the C
 * reference (skipped elsewhere, as in CI).
 *
 * The oracle applies the off-edge modes to the TAPS (border colour,
 * replicated edge, x modulo the width), the implementation folds the
 * POSITION before encoding it; positions are multiples of 1/8 pixel so
 * that both quantise exactly, and agreeing proves the two equivalent.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <string.h>
#include <glib.h>
#include "remap.h"
#include "lensdistort.h"
#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static const CoFormat formats[] = {
  CO_FORMAT_RGBA, CO_FORMAT_BGRX, CO_FORMAT_RGB, CO_FORMAT_GRAY8,
  CO_FORMAT_GRAY16_LE, CO_FORMAT_NV12, CO_FORMAT_I420,
};

/* {src w, h, dst w, h} */
static const int sizes[][4] = {
  {64, 48, 128, 96},            /* 2x up */
  {128, 96, 64, 48},            /* 2x down */
  {100, 75, 133, 61},           /* non-integer ratios, both ways */
  {37, 23, 19, 41},             /* odd */
  {1, 17, 5, 17},               /* 1xN */
  {17, 1, 1, 9},
  {1, 1, 3, 2},
  {5000, 6, 40, 6},             /* wide source: F follows the source */
  {700, 90, 160, 120},          /* F = 6: the CPU's byte-weight path */
};

typedef struct
{
  CoFrame f;
  guint8 *mem;
  gsize size;
} Frame;

static void
frame_alloc (Frame * fr, CoFormat format, int w, int h, GRand * rand)
{
  gsize off[CO_MAX_PLANES], total = 0;
  int i;

  memset (fr, 0, sizeof (*fr));
  fr->f.format = format;
  fr->f.width = w;
  fr->f.height = h;
  for (i = 0; i < co_format_n_planes (format); i++) {
    int pw, ph;
    co_plane_size (w, h, co_format_plane_shift (format, i), &pw, &ph);
    /* exact rows: a read past the plane shows under valgrind and ASan */
    fr->f.pitch[i] = pw * co_pix_bpp (co_format_plane_kind (format, i));
    /* planes 16-byte aligned, as in a device buffer */
    off[i] = total = (total + 15) & ~(gsize) 15;
    total += (gsize) fr->f.pitch[i] * ph;
  }
  fr->size = total;
  fr->mem = g_malloc (total);
  for (i = 0; i < (int) total; i++)
    fr->mem[i] = rand ? (guint8) g_rand_int (rand) : 0xcd;
  for (i = 0; i < co_format_n_planes (format); i++)
    fr->f.data[i] = fr->mem + off[i];
}

/* Source positions of geometry g: the frame scaled to the output, zoomed
 * out 1.6x about its centre and shifted so that every side overshoots,
 * in multiples of 1/8; every 29th position NaN. */
static void
make_map (const CoLutPlane * pl, float *x, float *y)
{
  int r, c;

  for (r = 0; r < pl->height; r++)
    for (c = 0; c < pl->width; c++) {
      double rx = (double) pl->src_width / pl->width;
      double ry = (double) pl->src_height / pl->height;
      double sx = ((c + 0.5) * rx - 0.5 - 0.5 * pl->src_width) * 1.6 +
          0.5 * pl->src_width + 0.3;
      double sy = ((r + 0.5) * ry - 0.5 - 0.5 * pl->src_height) * 1.6 +
          0.5 * pl->src_height - 0.2;
      size_t i = (size_t) r * pl->width + c;
      x[i] = (float) (floor (sx * 8.0) / 8.0);
      y[i] = (float) (floor (sy * 8.0) / 8.0);
      if ((r * pl->width + c) % 29 == 28)
        x[i] = NAN;
    }
}

static uint32_t
oracle_tap (const CoSrcPlane * s, CoPixKind k, CoEdge edge, int x, int y,
    uint32_t border)
{
  if (edge == CO_EDGE_CLAMP) {
    x = CLAMP (x, 0, s->width - 1);
    y = CLAMP (y, 0, s->height - 1);
  } else if (edge == CO_EDGE_WRAP) {
    x = ((x % s->width) + s->width) % s->width;
    y = CLAMP (y, 0, s->height - 1);
  } else if (x < 0 || y < 0 || x >= s->width || y >= s->height) {
    return border;
  }
  return co_pix_load (s->data + (size_t) y * s->pitch +
      (size_t) x * co_pix_bpp (k), k);
}

static uint32_t
oracle_sample (const CoSrcPlane * s, CoPixKind k, CoInterp interp,
    CoEdge edge, int frac, float fx, float fy, uint32_t border)
{
  double sx = fx, sy = fy, one = 1 << frac;
  long qx, qy, x0, y0, wx, wy;
  uint32_t t[4], out = 0;
  int c;

  if (isnan (sx) || isnan (sy))
    return border;
  if (interp == CO_INTERP_NEAREST) {
    long rx = (long) floor (sx + 0.5), ry = (long) floor (sy + 0.5);
    if (edge == CO_EDGE_BORDER && (rx < 0 || ry < 0 || rx >= s->width
            || ry >= s->height))
      return border;
    return oracle_tap (s, k, edge, (int) rx, (int) ry, border);
  }
  /* BORDER_CONSTANT: no tap inside at all */
  if (edge == CO_EDGE_BORDER && !(sx > -1.0 && sx < s->width && sy > -1.0
          && sy < s->height))
    return border;
  qx = (long) floor (sx * one + 0.5);
  qy = (long) floor (sy * one + 0.5);
  x0 = (long) floor ((double) qx / one);
  y0 = (long) floor ((double) qy / one);
  wx = qx - x0 * (long) one;
  wy = qy - y0 * (long) one;
  t[0] = oracle_tap (s, k, edge, x0, y0, border);
  t[1] = oracle_tap (s, k, edge, x0 + 1, y0, border);
  t[2] = oracle_tap (s, k, edge, x0, y0 + 1, border);
  t[3] = oracle_tap (s, k, edge, x0 + 1, y0 + 1, border);
  for (c = 0; c < co_pix_channels (k); c++) {
    uint32_t o = 1u << frac, h = (1u << (2 * frac)) >> 1;
    uint32_t top = co_pix_channel (t[0], k, c) * (o - wx) +
        co_pix_channel (t[1], k, c) * wx;
    uint32_t bot = co_pix_channel (t[2], k, c) * (o - wx) +
        co_pix_channel (t[3], k, c) * wx;
    out = co_pix_set_channel (out, k, c,
        (top * (o - wy) + bot * wy + h) >> (2 * frac));
  }
  return out;
}

typedef struct
{
  CoLut lut;
  gpointer mem[4];
  float *mx[2], *my[2];         /* the maps, plane[g].width a row */
} Tables;

static void
tables_make (Tables * t, CoLutMode mode, CoInterp interp, CoEdge edge,
    CoFormat format, const int sz[4])
{
  int g;

  memset (t, 0, sizeof (*t));
  co_lut_layout_full (&t->lut, mode, interp, edge, format, sz[2], sz[3],
      sz[0], sz[1]);
  for (g = 0; g < t->lut.n_geometries; g++) {
    CoLutPlane *pl = &t->lut.plane[g];
    gsize n = co_lut_table_bytes (&t->lut, g);
    g_assert_cmpint (t->lut.frac[g], ==, interp == CO_INTERP_NEAREST ? 0 :
        co_lut_frac_bits (pl->src_width, pl->src_height));
    t->mx[g] = g_new (float, (gsize) pl->width * pl->height);
    t->my[g] = g_new (float, (gsize) pl->width * pl->height);
    make_map (pl, t->mx[g], t->my[g]);
    if (mode == CO_LUT_COMPRESSED) {
      pl->packed = t->mem[2 * g] = g_malloc (n);
    } else if (mode == CO_LUT_TWO_TABLE) {
      pl->x = t->mem[2 * g] = g_malloc (n);
      pl->y = t->mem[2 * g + 1] = g_malloc (n);
    }
    co_lut_from_map_cpu (&t->lut, g, t->mx[g], t->my[g], pl->width);
  }
}

static void
tables_free (Tables * t)
{
  int i;

  for (i = 0; i < 4; i++)
    g_free (t->mem[i]);
  for (i = 0; i < 2; i++) {
    g_free (t->mx[i]);
    g_free (t->my[i]);
  }
}

static const char *const edge_names[] = { "border", "clamp", "wrap" };

static void
check_against_oracle (const Tables * t, const Frame * in, const Frame * out,
    const uint32_t border[CO_MAX_PLANES], const char *what)
{
  const CoLut *lut = &t->lut;
  int pi;

  for (pi = 0; pi < co_format_n_planes (lut->format); pi++) {
    int g = pi > 0, x, y;
    CoPixKind k = co_format_plane_kind (lut->format, pi);
    const CoLutPlane *pl = &lut->plane[g];
    CoSrcPlane s = { in->f.data[pi], in->f.pitch[pi], pl->src_width,
      pl->src_height, 0
    };
    for (y = 0; y < pl->height; y++)
      for (x = 0; x < pl->width; x++) {
        size_t i = (size_t) y * pl->width + x;
        uint32_t want = oracle_sample (&s, k, lut->interp, lut->edge,
            lut->frac[g], t->mx[g][i], t->my[g][i], border[pi]);
        uint32_t got = co_pix_load (out->f.data[pi] +
            (size_t) y * out->f.pitch[pi] + (size_t) x * co_pix_bpp (k), k);
        if (want != got)
          g_error ("%s plane %d: (%d,%d) from (%g,%g): want %08x got %08x",
              what, pi, x, y, t->mx[g][i], t->my[g][i], want, got);
      }
  }
}

/* Every size, format, table, interpolation and off-edge mode, on each of
 * the CPU's paths (CO_CPU_SIMD: the best this CPU has, SSE2, portable C). */
static void
test_oracle (void)
{
  static const char *const simd[] = { NULL, "sse2", "c" };
  GRand *rand = g_rand_new_with_seed (17);
  guint si, fi, pi;
  int mode, interp, edge;

  for (pi = 0; pi < G_N_ELEMENTS (simd); pi++)
  for (si = 0; si < G_N_ELEMENTS (sizes); si++)
    for (fi = 0; fi < G_N_ELEMENTS (formats); fi++) {
      const int *sz = sizes[si];
      uint32_t border[CO_MAX_PLANES];
      Frame in;

      frame_alloc (&in, formats[fi], sz[0], sz[1], rand);
      co_format_border (formats[fi], 0xff204080, border);
      for (mode = 0; mode < 2; mode++)
        for (interp = 0; interp < 2; interp++)
          for (edge = 0; edge < 3; edge++) {
            Tables t;
            Frame out;
            gchar *what = g_strdup_printf ("%dx%d -> %dx%d format %d lut %d "
                "interp %d %s, CPU path %s", sz[0], sz[1], sz[2], sz[3],
                formats[fi], mode, interp, edge_names[edge],
                simd[pi] ? simd[pi] : "best");
            tables_make (&t, mode, interp, edge, formats[fi], sz);
            frame_alloc (&out, formats[fi], sz[2], sz[3], NULL);
            if (simd[pi])
              g_setenv ("CO_CPU_SIMD", simd[pi], TRUE);
            co_remap_cpu (&t.lut, &in.f, &out.f, border);
            g_unsetenv ("CO_CPU_SIMD");
            check_against_oracle (&t, &in, &out, border, what);
            tables_free (&t);
            g_free (out.mem);
            g_free (what);
          }
      g_free (in.mem);
    }
  g_rand_free (rand);
}

/* The wrap seam: a sample half-way between the last column and the first
 * is their mean, in every row, whichever side of the seam it came from. */
static void
test_wrap_seam (void)
{
  guint8 src[4 * 3] = { 10, 20, 30, 200, 11, 21, 31, 201, 12, 22, 32, 202 };
  float x[3] = { 3.5f, -0.5f, 7.5f }, y[3] = { 0, 1, 2 };
  guint8 dst[3];
  uint32_t border[CO_MAX_PLANES] = { 0 };
  uint32_t packed[4];
  CoFrame in, out;
  CoLut lut;

  memset (&in, 0, sizeof (in));
  in.data[0] = src;
  in.pitch[0] = in.width = 4;
  in.height = 3;
  in.format = CO_FORMAT_GRAY8;
  out = in;
  out.data[0] = dst;
  out.pitch[0] = out.width = 3;
  out.height = 1;

  co_lut_layout_full (&lut, CO_LUT_COMPRESSED, CO_INTERP_BILINEAR,
      CO_EDGE_WRAP, CO_FORMAT_GRAY8, 3, 1, 4, 3);
  lut.plane[0].packed = packed;
  co_lut_from_map_cpu (&lut, 0, x, y, 3);
  co_remap_cpu (&lut, &in, &out, border);
  g_assert_cmpint (dst[0], ==, 105);    /* (10 + 200) / 2 */
  g_assert_cmpint (dst[1], ==, 106);    /* -0.5 is 3.5 */
  g_assert_cmpint (dst[2], ==, 107);
}

/* A camera looking 4 degrees aside (R about y) for a w x h output: the
 * rectification path of co_camera.h. */
static void
rectified_camera (CoLensParams * p, int w, int h)
{
  double t = 4.0 * G_PI / 180.0;
  CoCamera cam;

  co_camera_init (&cam, w * 0.6, w * 0.6, w * 0.5, h * 0.5);
  cam.dist[CO_DIST_K1] = -0.25;
  cam.dist[CO_DIST_K2] = 0.05;
  cam.r[0] = cos (t);
  cam.r[2] = sin (t);
  cam.r[6] = -sin (t);
  cam.r[8] = cos (t);
  co_lens_params_init_pinhole (p, w, h, &cam);
  g_assert_cmpint (p->cam.rectify, ==, 1);
}

/* cudalensdistort's three strategies agree at other sizes, in every mode. */
static void
test_lens_modes_agree (void)
{
  GRand *rand = g_rand_new_with_seed (3);
  guint si;
  int interp, edge, mode, which;

  for (si = 0; si < 4; si++)
    for (which = 0; which < 3; which++)
      for (interp = 0; interp < 2; interp++)
        for (edge = 0; edge < 3; edge++) {
          const int *sz = sizes[si];
          uint32_t border[CO_MAX_PLANES];
          CoLensParams p;
          Frame in, out[3];

          if (which == 0)
            co_lens_params_init_hmd (&p, sz[2], sz[3], -0.4, 0.1, 0.45, 0.5,
                FALSE);
          else if (which == 2)
            rectified_camera (&p, sz[2], sz[3]);
          else {
            double k[4] =
                { sz[2] * 0.6, sz[2] * 0.6, sz[2] * 0.5, sz[3] * 0.5 };
            double d[5] = { -0.3, 0.08, 0.001, -0.002, 0.0 };
            co_lens_params_init_camera (&p, sz[2], sz[3], k, d, k);
          }
          frame_alloc (&in, CO_FORMAT_I420, sz[0], sz[1], rand);
          co_format_border (CO_FORMAT_I420, 0xff00ff00, border);
          for (mode = 0; mode < 3; mode++) {
            CoLut lut;
            gpointer mem[4] = { NULL };
            int g;
            co_lut_layout_full (&lut, mode, interp, edge, CO_FORMAT_I420,
                sz[2], sz[3], sz[0], sz[1]);
            for (g = 0; g < lut.n_geometries && mode != CO_LUT_COMPUTE; g++) {
              gsize n = co_lut_table_bytes (&lut, g);
              lut.plane[g].packed = mem[2 * g] = g_malloc (n);
              lut.plane[g].x = mem[2 * g];
              lut.plane[g].y = mem[2 * g + 1] = g_malloc (n);
            }
            co_lens_build_lut_cpu (&p, &lut);
            frame_alloc (&out[mode], CO_FORMAT_I420, sz[2], sz[3], NULL);
            co_lens_remap_cpu (&p, &lut, &in.f, &out[mode].f, border);
            for (g = 0; g < 4; g++)
              g_free (mem[g]);
          }
          g_assert_cmpmem (out[0].mem, out[0].size, out[1].mem, out[1].size);
          g_assert_cmpmem (out[0].mem, out[0].size, out[2].mem, out[2].size);
          g_free (in.mem);
          for (mode = 0; mode < 3; mode++)
            g_free (out[mode].mem);
        }
  g_rand_free (rand);
}

/* ---- CUDA against the C reference ---- */

#ifdef HAVE_CUDA
static gboolean
have_device (void)
{
  int n = 0;
  return cudaGetDeviceCount (&n) == cudaSuccess && n > 0;
}

static void
check_cuda (cudaError_t e, const char *what)
{
  if (e != cudaSuccess)
    g_error ("%s: %s", what, cudaGetErrorString (e));
}

static void *
upload (const void *host, gsize n)
{
  void *d = NULL;
  check_cuda (cudaMalloc (&d, n ? n : 4), "cudaMalloc");
  if (n && host)
    check_cuda (cudaMemcpy (d, host, n, cudaMemcpyHostToDevice), "upload");
  else if (n)
    check_cuda (cudaMemset (d, 0, n), "clear");
  return d;
}

/* A device copy of a host frame (the same layout) */
static void
frame_to_device (const Frame * h, CoFrame * d, void **mem)
{
  int i;

  *d = h->f;
  *mem = upload (h->mem, h->size);
  for (i = 0; i < co_format_n_planes (h->f.format); i++)
    d->data[i] = (uint8_t *) * mem + (h->f.data[i] - h->mem);
}

/* CUDA tables built from the same maps, CUDA remap, byte-compared; and
 * cudalensdistort's per-pixel mode at other sizes. */
static void
test_cuda_equals_c (void)
{
  GRand *rand = g_rand_new_with_seed (23);
  guint si, fi;
  int mode, interp, edge;

  if (!have_device ()) {
    g_test_skip ("no usable CUDA device");
    return;
  }
  for (si = 0; si < G_N_ELEMENTS (sizes); si++)
    for (fi = 0; fi < G_N_ELEMENTS (formats); fi++) {
      const int *sz = sizes[si];
      uint32_t border[CO_MAX_PLANES];
      Frame in;
      CoFrame din;
      void *din_mem;

      frame_alloc (&in, formats[fi], sz[0], sz[1], rand);
      frame_to_device (&in, &din, &din_mem);
      co_format_border (formats[fi], 0xff204080, border);
      for (mode = 0; mode < 2; mode++)
        for (interp = 0; interp < 2; interp++)
          for (edge = 0; edge < 3; edge++) {
            Tables t;
            Frame out, got;
            CoFrame dout;
            CoLut dlut;
            void *dout_mem, *dm[6] = { NULL };
            int g;

            tables_make (&t, mode, interp, edge, formats[fi], sz);
            frame_alloc (&out, formats[fi], sz[2], sz[3], NULL);
            frame_alloc (&got, formats[fi], sz[2], sz[3], NULL);
            co_remap_cpu (&t.lut, &in.f, &out.f, border);
            frame_to_device (&got, &dout, &dout_mem);
            dlut = t.lut;
            for (g = 0; g < t.lut.n_geometries; g++) {
              const CoLutPlane *pl = &t.lut.plane[g];
              gsize n = co_lut_table_bytes (&t.lut, g);
              gsize mn = sizeof (float) * pl->width * pl->height;
              dm[3 * g] = upload (t.mx[g], mn);
              dm[3 * g + 1] = upload (t.my[g], mn);
              dm[3 * g + 2] = upload (NULL, 2 * n);
              dlut.plane[g].packed = dm[3 * g + 2];
              dlut.plane[g].x = dm[3 * g + 2];
              dlut.plane[g].y = (float *) ((char *) dm[3 * g + 2] + n);
              check_cuda (co_lut_from_map_cuda (&dlut, g, dm[3 * g],
                      dm[3 * g + 1], pl->width, NULL), "from map");
            }
            check_cuda (co_remap_cuda (&dlut, &din, &dout, border, NULL),
                "remap");
            check_cuda (cudaMemcpy (got.mem, dout_mem, got.size,
                    cudaMemcpyDeviceToHost), "download");
            if (memcmp (out.mem, got.mem, out.size) != 0)
              g_error ("CUDA differs from C: %dx%d -> %dx%d format %d lut %d "
                  "interp %d %s", sz[0], sz[1], sz[2], sz[3], formats[fi],
                  mode, interp, edge_names[edge]);
            for (g = 0; g < 6; g++)
              cudaFree (dm[g]);
            cudaFree (dout_mem);
            tables_free (&t);
            g_free (out.mem);
            g_free (got.mem);
          }
      cudaFree (din_mem);
      g_free (in.mem);
    }

  /* the lens' per-pixel mode and its LUT builder, at other sizes; a
   * headset lens, and a camera through the rectification path */
  for (si = 0; si < 4; si++)
    for (mode = 0; mode < 3; mode++)
      for (interp = 0; interp < 2; interp++)
        for (edge = 0; edge < 3; edge++) {
          const int *sz = sizes[si];
          uint32_t border[CO_MAX_PLANES];
          CoLensParams p;
          CoLut lut, dlut;
          Frame in, out, got;
          CoFrame din, dout;
          void *din_mem, *dout_mem, *dt[2] = { NULL };
          gpointer mem[2] = { NULL };
          int g;

          if (si % 2)
            rectified_camera (&p, sz[2], sz[3]);
          else
            co_lens_params_init_hmd (&p, sz[2], sz[3], -0.4, 0.1, 0.45, 0.5,
                FALSE);
          frame_alloc (&in, CO_FORMAT_NV12, sz[0], sz[1], rand);
          frame_alloc (&out, CO_FORMAT_NV12, sz[2], sz[3], NULL);
          frame_alloc (&got, CO_FORMAT_NV12, sz[2], sz[3], NULL);
          co_format_border (CO_FORMAT_NV12, 0xff00ff00, border);
          co_lut_layout_full (&lut, mode, interp, edge, CO_FORMAT_NV12,
              sz[2], sz[3], sz[0], sz[1]);
          dlut = lut;
          for (g = 0; g < lut.n_geometries && mode != CO_LUT_COMPUTE; g++) {
            gsize n = co_lut_table_bytes (&lut, g);
            lut.plane[g].packed = mem[g] = g_malloc (2 * n);
            lut.plane[g].x = mem[g];
            lut.plane[g].y = (float *) ((char *) mem[g] + n);
            dt[g] = upload (NULL, 2 * n);
            dlut.plane[g].packed = dt[g];
            dlut.plane[g].x = dt[g];
            dlut.plane[g].y = (float *) ((char *) dt[g] + n);
          }
          co_lens_build_lut_cpu (&p, &lut);
          co_lens_remap_cpu (&p, &lut, &in.f, &out.f, border);
          frame_to_device (&in, &din, &din_mem);
          frame_to_device (&got, &dout, &dout_mem);
          check_cuda (co_lens_build_lut_cuda (&p, &dlut, NULL), "lens build");
          check_cuda (co_lens_remap_cuda (&p, &dlut, &din, &dout, border,
                  NULL), "lens remap");
          check_cuda (cudaMemcpy (got.mem, dout_mem, got.size,
                  cudaMemcpyDeviceToHost), "download");
          if (memcmp (out.mem, got.mem, out.size) != 0)
            g_error ("lens: CUDA differs from C: %dx%d -> %dx%d lut %d "
                "interp %d %s", sz[0], sz[1], sz[2], sz[3], mode, interp,
                edge_names[edge]);
          for (g = 0; g < 2; g++) {
            cudaFree (dt[g]);
            g_free (mem[g]);
          }
          cudaFree (din_mem);
          cudaFree (dout_mem);
          g_free (in.mem);
          g_free (out.mem);
          g_free (got.mem);
        }
  g_rand_free (rand);
}
#endif

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/remap/oracle", test_oracle);
  g_test_add_func ("/remap/wrap-seam", test_wrap_seam);
  g_test_add_func ("/remap/lens-modes-agree", test_lens_modes_agree);
#ifdef HAVE_CUDA
  g_test_add_func ("/remap/cuda-equals-c", test_cuda_equals_c);
#endif
  return g_test_run ();
}
