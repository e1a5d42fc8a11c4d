/* cudaoptics — LGPL-2.1-or-later
 *
 * Plain descriptions of frames handed to kernels and to their C references.
 * No GStreamer type crosses this line: common/ translates GstVideoFrame into
 * a CoFrame, and every kernel sees only pointers, pitches and our own format
 * enum.  Everything here compiles as C99 and as CUDA.
 *
 * Conventions of every kernel in this folder: all state an element instance
 * owns (tables, filters, parameters) reaches the kernel as an argument or
 * through a pointer the instance allocated; nothing lives in module-global
 * __constant__ or __device__ memory, which all instances on one context
 * share (two elements would overwrite each other's filters).  Launchers
 * take the instance's stream and never synchronise.
 */
#ifndef CO_FRAME_H
#define CO_FRAME_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define CO_HD static inline __host__ __device__
#else
#define CO_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CO_FORMAT_UNKNOWN = 0,
  CO_FORMAT_RGBA,
  CO_FORMAT_BGRA,
  CO_FORMAT_RGBX,
  CO_FORMAT_BGRX,
  CO_FORMAT_RGB,
  CO_FORMAT_GRAY8,
  CO_FORMAT_GRAY16_LE,
  CO_FORMAT_NV12,
  CO_FORMAT_I420,
  CO_FORMAT_RGBA64_LE,          /* 16 bits per channel; not a packed pixel */
} CoFormat;

/* The colour filter of a raw Bayer frame, carried as a GRAY8 or GRAY16_LE
 * frame whose CoFrame says which colour each pixel of a 2x2 cell is. */
typedef enum
{
  CO_BAYER_NONE = 0,
  CO_BAYER_RGGB,
  CO_BAYER_BGGR,
  CO_BAYER_GRBG,
  CO_BAYER_GBRG,
} CoBayer;

/* What a sampler needs to know of one plane's pixels. */
typedef enum
{
  CO_PIX_U8X1 = 0,              /* GRAY8, luma, I420 chroma */
  CO_PIX_U8X2,                  /* NV12 interleaved UV */
  CO_PIX_U8X3,                  /* RGB */
  CO_PIX_U8X4,                  /* RGBA and friends */
  CO_PIX_U16X1,                 /* GRAY16_LE */
  CO_PIX_U16X4,                 /* RGBA64_LE: 8 bytes, so co_pix_load and
                                 * co_pix_store do not take it */
} CoPixKind;

#define CO_MAX_PLANES 3

typedef struct
{
  uint8_t *data[CO_MAX_PLANES];
  int32_t pitch[CO_MAX_PLANES]; /* bytes from one row to the next */
  int32_t width, height;        /* of the whole frame, i.e. of plane 0 */
  CoFormat format;
  CoBayer bayer;                /* GRAY8/GRAY16_LE carrying a mosaic */
} CoFrame;

CO_HD int
co_format_n_planes (CoFormat f)
{
  return f == CO_FORMAT_NV12 ? 2 : f == CO_FORMAT_I420 ? 3 : 1;
}

/* log2 of the plane's subsampling, the same in x and y for what we take */
CO_HD int
co_format_plane_shift (CoFormat f, int plane)
{
  return (plane > 0 && (f == CO_FORMAT_NV12 || f == CO_FORMAT_I420)) ? 1 : 0;
}

CO_HD CoPixKind
co_format_plane_kind (CoFormat f, int plane)
{
  switch (f) {
    case CO_FORMAT_RGB:
      return CO_PIX_U8X3;
    case CO_FORMAT_GRAY8:
    case CO_FORMAT_I420:
      return CO_PIX_U8X1;
    case CO_FORMAT_GRAY16_LE:
      return CO_PIX_U16X1;
    case CO_FORMAT_RGBA64_LE:
      return CO_PIX_U16X4;
    case CO_FORMAT_NV12:
      return plane == 0 ? CO_PIX_U8X1 : CO_PIX_U8X2;
    default:
      return CO_PIX_U8X4;
  }
}

/* The byte of a packed pixel that holds red (blue is 2 - it), or -1 for a
 * format without separate colour channels (grey, YUV, 16-bit). */
CO_HD int
co_format_red_channel (CoFormat f)
{
  switch (f) {
    case CO_FORMAT_RGBA:
    case CO_FORMAT_RGBX:
    case CO_FORMAT_RGB:
      return 0;
    case CO_FORMAT_BGRA:
    case CO_FORMAT_BGRX:
      return 2;
    default:
      return -1;
  }
}

CO_HD int
co_pix_bpp (CoPixKind k)
{
  return k == CO_PIX_U16X4 ? 8 : k == CO_PIX_U8X4 ? 4 : k == CO_PIX_U8X3 ? 3 :
      (k == CO_PIX_U8X2 || k == CO_PIX_U16X1) ? 2 : 1;
}

CO_HD int
co_pix_channels (CoPixKind k)
{
  return k == CO_PIX_U16X1 ? 1 : k == CO_PIX_U16X4 ? 4 : co_pix_bpp (k);
}

CO_HD void
co_plane_size (int width, int height, int shift, int *w, int *h)
{
  *w = (width + (1 << shift) - 1) >> shift;
  *h = (height + (1 << shift) - 1) >> shift;
}

/* Pixels travel as up to four bytes packed little-endian in a uint32_t, the
 * way they lie in memory.  Device loads are typed (our device buffers are
 * aligned, which the launchers check); host loads go through memcpy so that
 * any caller's pointer is safe. */
CO_HD uint32_t
co_pix_load (const uint8_t * p, CoPixKind k)
{
#ifdef __CUDA_ARCH__
  switch (k) {
    case CO_PIX_U8X1:
      return p[0];
    case CO_PIX_U8X3:
      return p[0] | (p[1] << 8) | ((uint32_t) p[2] << 16);
    case CO_PIX_U8X4:
      return *(const uint32_t *) p;
    default:
      return *(const uint16_t *) p;
  }
#else
  uint32_t v = 0;
  memcpy (&v, p, co_pix_bpp (k));       /* little-endian hosts only */
  return v;
#endif
}

CO_HD void
co_pix_store (uint8_t * p, CoPixKind k, uint32_t v)
{
#ifdef __CUDA_ARCH__
  switch (k) {
    case CO_PIX_U8X1:
      p[0] = (uint8_t) v;
      break;
    case CO_PIX_U8X3:
      p[0] = (uint8_t) v;
      p[1] = (uint8_t) (v >> 8);
      p[2] = (uint8_t) (v >> 16);
      break;
    case CO_PIX_U8X4:
      *(uint32_t *) p = v;
      break;
    default:
      *(uint16_t *) p = (uint16_t) v;
      break;
  }
#else
  memcpy (p, &v, co_pix_bpp (k));
#endif
}

CO_HD uint32_t
co_pix_channel (uint32_t v, CoPixKind k, int c)
{
  return k == CO_PIX_U16X1 ? (v & 0xffff) : ((v >> (8 * c)) & 0xff);
}

CO_HD uint32_t
co_pix_set_channel (uint32_t v, CoPixKind k, int c, uint32_t x)
{
  if (k == CO_PIX_U16X1)
    return x;
  return v | (x << (8 * c));
}

/* An ARGB colour (0xAARRGGBB, the convention of compositor's background) as
 * the packed pixel of each plane of @f.  YUV uses BT.601 limited range, the
 * colorimetry GStreamer assumes for SD and what NVDEC frames usually carry;
 * the error against BT.709 for a border colour is a few code values. */
CO_HD void
co_format_border (CoFormat f, uint32_t argb, uint32_t out[CO_MAX_PLANES])
{
  uint32_t a = argb >> 24, r = (argb >> 16) & 0xff, g = (argb >> 8) & 0xff,
      b = argb & 0xff;
  int32_t y = (66 * (int32_t) r + 129 * (int32_t) g + 25 * (int32_t) b +
      128) / 256 + 16;
  int32_t u = (-38 * (int32_t) r - 74 * (int32_t) g + 112 * (int32_t) b +
      128) / 256 + 128;
  int32_t v = (112 * (int32_t) r - 94 * (int32_t) g - 18 * (int32_t) b +
      128) / 256 + 128;
  /* full-range luma for the grey formats, which carry no colorimetry */
  uint32_t luma = (uint32_t) ((77 * r + 150 * g + 29 * b + 128) >> 8);

  out[0] = out[1] = out[2] = 0;
  switch (f) {
    case CO_FORMAT_RGBA:
      out[0] = r | (g << 8) | (b << 16) | (a << 24);
      break;
    case CO_FORMAT_BGRA:
      out[0] = b | (g << 8) | (r << 16) | (a << 24);
      break;
    case CO_FORMAT_RGBX:
      out[0] = r | (g << 8) | (b << 16) | (0xffu << 24);
      break;
    case CO_FORMAT_BGRX:
      out[0] = b | (g << 8) | (r << 16) | (0xffu << 24);
      break;
    case CO_FORMAT_RGB:
      out[0] = r | (g << 8) | (b << 16);
      break;
    case CO_FORMAT_GRAY8:
      out[0] = luma;
      break;
    case CO_FORMAT_GRAY16_LE:
      out[0] = luma * 257;
      break;
    case CO_FORMAT_NV12:
      out[0] = (uint32_t) y;
      out[1] = (uint32_t) u | ((uint32_t) v << 8);
      break;
    case CO_FORMAT_I420:
      out[0] = (uint32_t) y;
      out[1] = (uint32_t) u;
      out[2] = (uint32_t) v;
      break;
    default:
      break;
  }
}

#ifdef __cplusplus
}
#endif
#endif /* CO_FRAME_H */
