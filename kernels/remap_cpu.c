/* cudaoptics — LGPL-2.1-or-later
 *
 * C reference of the generic remap (remap.h): the CPU backend of every
 * geometric element and the oracle of the CUDA side.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "remap.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void
co_lut_layout_full (CoLut * lut, CoLutMode mode, CoInterp interp, CoEdge edge,
    CoFormat format, int dst_w, int dst_h, int src_w, int src_h)
{
  int g;

  memset (lut, 0, sizeof (*lut));
  lut->mode = mode;
  lut->interp = interp;
  lut->edge = edge;
  lut->format = format;
  lut->n_geometries = co_format_n_planes (format) > 1 ? 2 : 1;
  for (g = 0; g < lut->n_geometries; g++) {
    CoLutPlane *pl = &lut->plane[g];
    co_plane_size (dst_w, dst_h, g, &pl->width, &pl->height);
    co_plane_size (src_w, src_h, g, &pl->src_width, &pl->src_height);
    pl->pitch = (pl->width + 3) & ~3;
    /* entries address the source */
    lut->frac[g] = interp == CO_INTERP_NEAREST ? 0 :
        co_lut_frac_bits (pl->src_width, pl->src_height);
  }
}

void
co_lut_layout (CoLut * lut, CoLutMode mode, CoInterp interp, CoFormat format,
    int width, int height)
{
  co_lut_layout_full (lut, mode, interp, CO_EDGE_BORDER, format, width,
      height, width, height);
}

int
co_lut_set_chroma (CoLut * lut)
{
  int rc = co_format_red_channel (lut->format);

  if (rc < 0)
    return 0;
  lut->chroma = 1;
  lut->red_channel = rc;
  lut->plane[CO_LUT_RED] = lut->plane[CO_LUT_BLUE] = lut->plane[0];
  lut->plane[CO_LUT_RED].packed = lut->plane[CO_LUT_BLUE].packed = NULL;
  lut->plane[CO_LUT_RED].x = lut->plane[CO_LUT_BLUE].x = NULL;
  lut->plane[CO_LUT_RED].y = lut->plane[CO_LUT_BLUE].y = NULL;
  lut->frac[CO_LUT_RED] = lut->frac[CO_LUT_BLUE] = lut->frac[0];
  return 1;
}

size_t
co_lut_table_bytes (const CoLut * lut, int g)
{
  if (lut->mode == CO_LUT_COMPUTE || g < 0 || g >= CO_LUT_MAX_GEOMETRIES ||
      !co_lut_has_geometry (lut, g))
    return 0;
  return (size_t) lut->plane[g].pitch * lut->plane[g].height * 4;
}

void
co_lut_from_map_cpu (const CoLut * lut, int g, const float *x,
    const float *y, int map_pitch)
{
  const CoLutPlane *pl = &lut->plane[g];
  int r;

  if (lut->mode == CO_LUT_COMPUTE)
    return;
#pragma omp parallel for schedule(static) \
    if ((int64_t) pl->width * pl->height >= CO_PARALLEL_MIN_PIXELS)
  for (r = 0; r < pl->height; r++) {
    size_t row = (size_t) r * pl->pitch, mrow = (size_t) map_pitch *r;
    int c;
    for (c = 0; c < pl->pitch; c++) {
      float sx = c < pl->width ? x[mrow + c] : NAN;
      float sy = c < pl->width ? y[mrow + c] : NAN;
      if (lut->mode == CO_LUT_COMPRESSED) {
        pl->packed[row + c] = co_lut_encode (lut->interp, lut->edge, sx, sy,
            pl->src_width, pl->src_height, lut->frac[g]);
      } else {
        pl->x[row + c] = sx;
        pl->y[row + c] = sy;
      }
    }
  }
}

/* The entry of output pixel @x of row @row in geometry @g's table */
static inline uint32_t
entry_at (const CoLut * lut, int g, size_t row, int x)
{
  const CoLutPlane *pl = &lut->plane[g];

  if (lut->mode == CO_LUT_COMPRESSED)
    return pl->packed[row + x];
  return co_lut_encode (lut->interp, lut->edge, pl->x[row + x],
      pl->y[row + x], pl->src_width, pl->src_height, lut->frac[g]);
}

/* Output tiles of the fast path: a tile's source pixels stay in the cache
 * while its rows are done (a polar or fisheye table walks the source along
 * arcs: row by row, each output row would sweep the whole source frame). */
#define TILE_W 64
#define TILE_H 16

/* co_bilinear_u8x4_inside's integers, the four channels at once (the
 * horizontal blend of a row fits 16 bits: 255 x 2^F <= 32640), with SSE2,
 * which every x86-64 has, and, where the CPU has it, SSSE3, whose byte
 * multiply-add does a row's blend in one instruction.  The weights of every
 * fraction are made once per frame. */
#if defined(__SSE2__)
typedef struct
{
  __m128i h[1 << CO_LUT_MAX_FRAC_BITS];   /* SSE2: (1 - wx) x4, wx x4 */
  __m128i hb[1 << CO_LUT_MAX_FRAC_BITS];  /* SSSE3: bytes (1 - wx, wx) */
  __m128i v[1 << CO_LUT_MAX_FRAC_BITS];   /* (1 - wy, wy) pairs */
  __m128i half, shift;
} Weights;

static void
weights_init (Weights * w, int frac)
{
  const int one = 1 << frac;
  int f;

  for (f = 0; f < one; f++) {
    w->h[f] = _mm_set_epi16 (f, f, f, f, one - f, one - f, one - f, one - f);
    /* signed bytes: only for F <= 6 (one <= 64) */
    w->hb[f] = _mm_set1_epi16 ((short) ((f << 8) | ((one - f) & 0xff)));
    w->v[f] = _mm_set_epi16 (f, one - f, f, one - f, f, one - f, f, one - f);
  }
  w->half = _mm_set1_epi32 ((1 << (2 * frac)) >> 1);
  w->shift = _mm_cvtsi32_si128 (2 * frac);
}

static inline uint32_t
bilinear_u8x4_sse2 (const Weights * w, const uint8_t * p, int pitch, int wx,
    int wy)
{
  const __m128i z = _mm_setzero_si128 ();
  __m128i r0 = _mm_unpacklo_epi8 (_mm_loadl_epi64 ((const __m128i *) p), z);
  __m128i r1 = _mm_unpacklo_epi8 (_mm_loadl_epi64 ((const __m128i *) (p +
              pitch)), z);
  __m128i top, bot, v;

  r0 = _mm_mullo_epi16 (r0, w->h[wx]);
  r1 = _mm_mullo_epi16 (r1, w->h[wx]);
  top = _mm_add_epi16 (r0, _mm_srli_si128 (r0, 8));     /* lanes 0..3 */
  bot = _mm_add_epi16 (r1, _mm_srli_si128 (r1, 8));
  /* (top_c, bot_c) pairs: top_c (1 - wy) + bot_c wy in 32 bits */
  v = _mm_madd_epi16 (_mm_unpacklo_epi16 (top, bot), w->v[wy]);
  v = _mm_srl_epi32 (_mm_add_epi32 (v, w->half), w->shift);
  v = _mm_packs_epi32 (v, z);
  return (uint32_t) _mm_cvtsi128_si32 (_mm_packus_epi16 (v, z));
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define CO_HAVE_SSSE3_PATH 1
#include <tmmintrin.h>
__attribute__((target ("ssse3")))
static inline uint32_t
bilinear_u8x4_ssse3 (const Weights * w, const uint8_t * p, int pitch, int wx,
    int wy)
{
  const __m128i z = _mm_setzero_si128 ();
  /* the taps as (left, right) byte pairs per channel, top row then bottom */
  const __m128i pairs = _mm_setr_epi8 (0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13,
      10, 14, 11, 15);
  /* the rows' blends as (top, bottom) word pairs per channel */
  const __m128i rows = _mm_setr_epi8 (0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13,
      6, 7, 14, 15);
  __m128i t = _mm_unpacklo_epi64 (_mm_loadl_epi64 ((const __m128i *) p),
      _mm_loadl_epi64 ((const __m128i *) (p + pitch)));
  __m128i v;

  t = _mm_maddubs_epi16 (_mm_shuffle_epi8 (t, pairs), w->hb[wx]);
  v = _mm_madd_epi16 (_mm_shuffle_epi8 (t, rows), w->v[wy]);
  v = _mm_srl_epi32 (_mm_add_epi32 (v, w->half), w->shift);
  v = _mm_packs_epi32 (v, z);
  return (uint32_t) _mm_cvtsi128_si32 (_mm_packus_epi16 (v, z));
}
#endif
#endif

/* One band of output rows [y0, y1) in tiles: co_sample's integers, its
 * inside test and its generic fallback, inlined for the one pixel kind,
 * with INSIDE (a bilinear sample whose four taps are in the frame) as
 * (w, p, pitch, wx, wy).  A macro, not a shared inline function: the SSSE3
 * band must be compiled whole with target ("ssse3") for its sample to
 * inline, and GCC will not inline that sample into a function compiled
 * for the baseline. */
#define REMAP_BAND(INSIDE) \
  { \
    int x0, y, x; \
    for (x0 = 0; x0 < pl->width; x0 += TILE_W) { \
      const int x1 = x0 + TILE_W < pl->width ? x0 + TILE_W : pl->width; \
      for (y = y0; y < y1; y++) { \
        const uint32_t *e = pl->packed + (size_t) y * pl->pitch; \
        uint8_t *d = dst + (size_t) y * dpitch; \
        for (x = x0; x < x1; x++) { \
          uint32_t v = border, q = e[x]; \
          if (q != CO_LUT_UNMAPPED) { \
            if (!bilinear) { \
              memcpy (&v, s->data + (size_t) (q >> 16) * s->pitch + \
                  (size_t) (q & 0xffff) * 4, 4); \
            } else { \
              int sx, sy, wx, wy; \
              co_lut_decode_bilinear (q, frac, &sx, &sy, &wx, &wy); \
              if (sx >= 0 && sy >= 0 && sx + 1 < s->width && \
                  sy + 1 < s->height) \
                v = INSIDE (w, s->data + (size_t) sy * s->pitch + \
                    (size_t) sx * 4, s->pitch, wx, wy); \
              else \
                v = co_sample_generic (s, CO_PIX_U8X4, CO_INTERP_BILINEAR, \
                    frac, q, border); \
            } \
          } \
          memcpy (d + (size_t) x * 4, &v, 4); \
        } \
      } \
    } \
  }

#define BAND_ARGS const CoLutPlane * pl, const CoSrcPlane * s, uint8_t * dst, \
    int dpitch, uint32_t border, int frac, int bilinear, int y0, int y1

/* the portable sample, with the weights' place taken by the fraction bits */
static inline uint32_t
bilinear_u8x4_c (const int *frac, const uint8_t * p, int pitch, int wx,
    int wy)
{
  return co_bilinear_u8x4_inside (p, pitch, wx, wy, *frac);
}

static void
band_c (BAND_ARGS)
{
  const int *w = &frac;
  REMAP_BAND (bilinear_u8x4_c);
}

#if defined(__SSE2__)
static void
band_sse2 (BAND_ARGS, const Weights * w)
{
  REMAP_BAND (bilinear_u8x4_sse2);
}
#endif

#ifdef CO_HAVE_SSSE3_PATH
__attribute__((target ("ssse3")))
static void
band_ssse3 (BAND_ARGS, const Weights * w)
{
  REMAP_BAND (bilinear_u8x4_ssse3);
}
#endif

/* The compressed table on 4-byte pixels without a chromatic table (RGBA and
 * its orders: most frames), band by band on every core. */
static void
remap_u8x4 (const CoLut * lut, const CoSrcPlane * s, uint8_t * dst,
    int dpitch, uint32_t border)
{
  const CoLutPlane *pl = &lut->plane[0];
  const int frac = lut->frac[0], bands = (pl->height + TILE_H - 1) / TILE_H;
  const int bilinear = lut->interp == CO_INTERP_BILINEAR;
  /* CO_CPU_SIMD=c or sse2 holds the CPU to that path (tests: every path
   * gives the same bytes) */
  const char *force = getenv ("CO_CPU_SIMD");
  int b, path = 0;
#if defined(__SSE2__)
  Weights *w = NULL;

  if (bilinear && !(force && !strcmp (force, "c")) &&
      posix_memalign ((void **) &w, 16, sizeof *w) == 0) {
    weights_init (w, frac);
    path = 1;
#ifdef CO_HAVE_SSSE3_PATH
    /* its signed byte weights hold 2^F for F <= 6 */
    if (frac <= 6 && !force && __builtin_cpu_supports ("ssse3"))
      path = 2;
#endif
  }
#else
  (void) force;                 /* one path: portable C */
  (void) path;
#endif

#pragma omp parallel for schedule(dynamic) \
    if ((int64_t) pl->width * pl->height >= CO_PARALLEL_MIN_PIXELS)
  for (b = 0; b < bands; b++) {
    const int y0 = b * TILE_H;
    const int y1 = y0 + TILE_H < pl->height ? y0 + TILE_H : pl->height;
#ifdef CO_HAVE_SSSE3_PATH
    if (path == 2)
      band_ssse3 (pl, s, dst, dpitch, border, frac, bilinear, y0, y1, w);
    else
#endif
#if defined(__SSE2__)
    if (path == 1)
      band_sse2 (pl, s, dst, dpitch, border, frac, bilinear, y0, y1, w);
    else
#endif
      band_c (pl, s, dst, dpitch, border, frac, bilinear, y0, y1);
  }
#if defined(__SSE2__)
  free (w);
#endif
}

void
co_remap_cpu (const CoLut * lut, const CoFrame * in, CoFrame * out,
    const uint32_t border[CO_MAX_PLANES])
{
  int pi;

  if (lut->mode == CO_LUT_COMPUTE)
    return;
  if (lut->mode == CO_LUT_COMPRESSED && !lut->chroma &&
      co_format_n_planes (lut->format) == 1 &&
      co_format_plane_kind (lut->format, 0) == CO_PIX_U8X4) {
    const CoLutPlane *pl = &lut->plane[0];
    CoSrcPlane s = { in->data[0], in->pitch[0], pl->src_width,
      pl->src_height, lut->edge == CO_EDGE_WRAP
    };
    remap_u8x4 (lut, &s, out->data[0], out->pitch[0], border[0]);
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
    if ((int64_t) pl->width * pl->height >= CO_PARALLEL_MIN_PIXELS)
    for (y = 0; y < pl->height; y++) {
      uint8_t *d = out->data[pi] + (size_t) y * out->pitch[pi];
      size_t row = (size_t) y * pl->pitch;
      int x;
      for (x = 0; x < pl->width; x++) {
        uint32_t e = entry_at (lut, g, row, x), v;
        if (lut->chroma && g == 0)
          v = co_sample_rgb (&s, kind, lut->interp, lut->frac[0], e,
              entry_at (lut, CO_LUT_RED, row, x), entry_at (lut, CO_LUT_BLUE,
                  row, x), lut->red_channel, border[pi]);
        else
          v = co_sample (&s, kind, lut->interp, lut->frac[g], e, border[pi]);
        co_pix_store (d + (size_t) x * bpp, kind, v);
      }
    }
  }
}
