/* cudaoptics — LGPL-2.1-or-later
 *
 * The remap kernel every geometric element's .cu instantiates (device code
 * only).  The entries come from the table (compressed, two-table) or, for
 * CO_LUT_COMPUTE, from the element's Entry functor evaluating its map per
 * pixel; the samplers are co_remap.h's, so the bytes equal the C
 * reference's.  Each thread produces four horizontally adjacent output
 * pixels: one 16-byte LUT load (rows are padded to a multiple of four
 * entries) and, where the destination allows, one vector store of
 * 4 * bpp bytes.
 *
 * A warp covers a patch of 8 x 4 threads, 32 x 4 output pixels, not one
 * 128-pixel row segment: its LUT loads are still a whole 128-byte line per
 * row (so are its stores of RGBA), but its gathers stay compact where
 * output rows run along arcs of the input.  In a panorama (cudaomniunwrap)
 * a row is a circle, or on a cuboid face a near-vertical line, so 128
 * pixels of one row spanned up to 128 input rows: each tap load of the warp
 * touched up to 32 cache lines and the kernel was bound by L1 throughput,
 * not DRAM (H100, 5760x720 cuboid from 2048x2048 RGBA, bilinear: 45 us,
 * now 27).  A near-identity map (lens distortion) reads the same lines
 * either way and runs as fast.  Also tried, all slower: one pixel per
 * thread, texture fetches, and loading all sixteen taps before blending
 * (64 registers, half the occupancy).  A block is 2 x 4 warps, 64 x 16
 * pixels.
 */
#ifndef CO_REMAP_KERNEL_CUH
#define CO_REMAP_KERNEL_CUH

#include <cuda_runtime.h>
#include "co_remap.h"

#define CO_BLOCK_X 32
#define CO_BLOCK_Y 8
#define CO_PX_PER_THREAD 4
/* co_remap_kernel's layout: threads of a warp across, warps of a block
 * across; the rest go down (CO_BLOCK_X is one warp) */
#define CO_WARP_TX 8
#define CO_WARP_TY (CO_BLOCK_X / CO_WARP_TX)
#define CO_BLOCK_WX 2
#define CO_BLOCK_WY (CO_BLOCK_Y / CO_BLOCK_WX)
#define CO_REMAP_TILE_W (CO_BLOCK_WX * CO_WARP_TX * CO_PX_PER_THREAD)
#define CO_REMAP_TILE_H (CO_BLOCK_WY * CO_WARP_TY)

struct CoPlaneArgs
{
  CoSrcPlane src;
  uint8_t *dst;
  int32_t dst_pitch;
  CoLutPlane lut;
  int32_t shift, frac, vec, edge;
  uint32_t border;
  /* a chromatic table: red's and blue's tables, red's byte */
  CoLutPlane lut_red, lut_blue;
  int32_t red_channel;
};

/* The per-pixel map (CO_LUT_COMPUTE) of an element: the entry of output
 * pixel (x, y) of the plane @a describes, for colour @ch (0: every channel,
 * or green in a chromatic table; 1 red; 2 blue).  For elements without
 * one: never called. */
struct CoNoEntry
{
  __device__ uint32_t operator() (const CoPlaneArgs &, int, int, CoInterp,
      int) const
  {
    return CO_LUT_UNMAPPED;
  }
};

/* Four horizontally adjacent entries from table @pl, or from the map */
template <int I, int M, class E>
__device__ __forceinline__ void
co_entries4 (const E & ent, const CoPlaneArgs & a, const CoLutPlane & pl,
    int ch, int x0, int y, uint32_t e[4])
{
  const CoInterp interp = (CoInterp) I;
  const size_t li = (size_t) y * pl.pitch + x0;
  if (M == CO_LUT_COMPRESSED) {
    /* in bounds even on the last column: rows are padded to pitch */
    uint4 q = __ldg ((const uint4 *) (pl.packed + li));
    e[0] = q.x;
    e[1] = q.y;
    e[2] = q.z;
    e[3] = q.w;
  } else if (M == CO_LUT_TWO_TABLE) {
    float4 fx = __ldg ((const float4 *) (pl.x + li));
    float4 fy = __ldg ((const float4 *) (pl.y + li));
    const int sw = pl.src_width, sh = pl.src_height, f = a.frac;
    const CoEdge edge = (CoEdge) a.edge;
    e[0] = co_lut_encode (interp, edge, fx.x, fy.x, sw, sh, f);
    e[1] = co_lut_encode (interp, edge, fx.y, fy.y, sw, sh, f);
    e[2] = co_lut_encode (interp, edge, fx.z, fy.z, sw, sh, f);
    e[3] = co_lut_encode (interp, edge, fx.w, fy.w, sw, sh, f);
  } else {
#pragma unroll
    for (int i = 0; i < 4; i++)
      e[i] = ent (a, x0 + i, y, interp, ch);
  }
}

template <int K>
__device__ __forceinline__ void
co_store4 (uint8_t * d, const uint32_t v[4], int n, bool vec)
{
  const CoPixKind kind = (CoPixKind) K;
  if (vec && n == 4) {
    if (K == CO_PIX_U8X4) {
      *(uint4 *) d = make_uint4 (v[0], v[1], v[2], v[3]);
    } else if (K == CO_PIX_U8X1) {
      *(uint32_t *) d = v[0] | (v[1] << 8) | (v[2] << 16) | (v[3] << 24);
    } else if (K == CO_PIX_U8X3) {
      uint32_t *w = (uint32_t *) d;
      w[0] = v[0] | (v[1] << 24);
      w[1] = (v[1] >> 8) | (v[2] << 16);
      w[2] = (v[2] >> 16) | (v[3] << 8);
    } else {
      *(uint2 *) d = make_uint2 (v[0] | (v[1] << 16), v[2] | (v[3] << 16));
    }
    return;
  }
  for (int i = 0; i < n; i++)
    co_pix_store (d + i * co_pix_bpp (kind), kind, v[i]);
}

template <int K, int I, int M, int C, class E>
__global__ void __launch_bounds__ (CO_BLOCK_X * CO_BLOCK_Y)
co_remap_kernel (E ent, CoPlaneArgs a)
{
  const CoPixKind kind = (CoPixKind) K;
  const CoInterp interp = (CoInterp) I;
  /* threadIdx.x is the lane, threadIdx.y the warp: see the top */
  const int tx = threadIdx.x % CO_WARP_TX, ty = threadIdx.x / CO_WARP_TX;
  const int wx = threadIdx.y % CO_BLOCK_WX, wy = threadIdx.y / CO_BLOCK_WX;
  const int x0 = ((blockIdx.x * CO_BLOCK_WX + wx) * CO_WARP_TX + tx) *
      CO_PX_PER_THREAD;
  const int y = (blockIdx.y * CO_BLOCK_WY + wy) * CO_WARP_TY + ty;
  const int w = a.lut.width;
  uint32_t e[4], v[4];

  if (x0 >= w || y >= a.lut.height)
    return;
  co_entries4<I, M> (ent, a, a.lut, 0, x0, y, e);
  if (C) {
    uint32_t er[4], eb[4];
    co_entries4<I, M> (ent, a, a.lut_red, 1, x0, y, er);
    co_entries4<I, M> (ent, a, a.lut_blue, 2, x0, y, eb);
#pragma unroll
    for (int i = 0; i < 4; i++) {
      if (x0 + i >= w)
        e[i] = er[i] = eb[i] = CO_LUT_UNMAPPED;
      v[i] = co_sample_rgb (&a.src, kind, interp, a.frac, e[i], er[i], eb[i],
          a.red_channel, a.border);
    }
  } else {
#pragma unroll
    for (int i = 0; i < 4; i++) {
      /* past the row's end the table holds padding: never sample it */
      if (x0 + i >= w)
        e[i] = CO_LUT_UNMAPPED;
      v[i] = co_sample (&a.src, kind, interp, a.frac, e[i], a.border);
    }
  }

  const int n = min (CO_PX_PER_THREAD, w - x0);
  co_store4<K> (a.dst + (size_t) y * a.dst_pitch +
      (size_t) x0 * co_pix_bpp (kind), v, n, a.vec != 0);
}

template <class E>
struct CoRemapPick
{
  typedef void (*Fn) (E, CoPlaneArgs);

  template <int K, int C>
  static Fn
  by_mode (CoLutMode m, CoInterp i)
  {
    static const Fn t[2][3] = {
      {co_remap_kernel<K, 0, 0, C, E>, co_remap_kernel<K, 0, 1, C, E>,
          co_remap_kernel<K, 0, 2, C, E>},
      {co_remap_kernel<K, 1, 0, C, E>, co_remap_kernel<K, 1, 1, C, E>,
          co_remap_kernel<K, 1, 2, C, E>},
    };
    return t[i][m];
  }

  template <int K>
  static Fn
  by_mode (CoLutMode m, CoInterp i)
  {
    return by_mode<K, 0> (m, i);
  }

  /* chromatic kernels exist for packed RGB only: NULL for anything else */
  static Fn
  get (CoPixKind k, CoLutMode m, CoInterp i, bool chroma)
  {
    if (chroma)
      return k == CO_PIX_U8X4 ? by_mode<CO_PIX_U8X4, 1> (m, i) :
          k == CO_PIX_U8X3 ? by_mode<CO_PIX_U8X3, 1> (m, i) : (Fn) NULL;
    switch (k) {
      case CO_PIX_U8X1:
        return by_mode<CO_PIX_U8X1> (m, i);
      case CO_PIX_U8X2:
        return by_mode<CO_PIX_U8X2> (m, i);
      case CO_PIX_U8X3:
        return by_mode<CO_PIX_U8X3> (m, i);
      case CO_PIX_U8X4:
        return by_mode<CO_PIX_U8X4> (m, i);
      default:
        return by_mode<CO_PIX_U16X1> (m, i);
    }
  }
};

static inline bool
co_aligned (const void *p, int pitch, int a)
{
  return ((uintptr_t) p % a) == 0 && (pitch % a) == 0;
}

static inline dim3
co_grid_for (int w, int h, int px)
{
  return dim3 ((w + CO_BLOCK_X * px - 1) / (CO_BLOCK_X * px),
      (h + CO_BLOCK_Y - 1) / CO_BLOCK_Y);
}

/* Checks and launches every plane of the frame; returns a cudaError_t. */
template <class E>
static int
co_remap_launch (const E & ent, const CoLut * lut, const CoFrame * in,
    CoFrame * out, const uint32_t border[CO_MAX_PLANES], cudaStream_t s)
{
  for (int pi = 0; pi < co_format_n_planes (lut->format); pi++) {
    const int g = pi > 0 ? 1 : 0;
    const CoPixKind kind = co_format_plane_kind (lut->format, pi);
    const int bpp = co_pix_bpp (kind);
    const int load_align = bpp == 3 ? 1 : bpp;
    const int vec_align = bpp == 4 ? 16 : bpp == 2 ? 8 : 4;
    CoPlaneArgs a;

    a.lut = lut->plane[g];
    if (a.lut.width <= 0 || a.lut.height <= 0 || a.lut.src_width <= 0 ||
        a.lut.src_height <= 0)
      return cudaErrorInvalidValue;
    if (!in->data[pi] || !out->data[pi])
      return cudaErrorInvalidDevicePointer;
    if ((lut->mode == CO_LUT_COMPRESSED && !a.lut.packed) ||
        (lut->mode == CO_LUT_TWO_TABLE && (!a.lut.x || !a.lut.y)))
      return cudaErrorInvalidDevicePointer;
    if (!co_aligned (in->data[pi], in->pitch[pi], load_align) ||
        !co_aligned (out->data[pi], out->pitch[pi], load_align))
      return cudaErrorMisalignedAddress;
    a.src.data = in->data[pi];
    a.src.pitch = in->pitch[pi];
    a.src.width = a.lut.src_width;
    a.src.height = a.lut.src_height;
    a.src.wrap_x = lut->edge == CO_EDGE_WRAP;
    a.dst = out->data[pi];
    a.dst_pitch = out->pitch[pi];
    a.shift = g;
    a.frac = lut->frac[g];
    a.edge = lut->edge;
    a.vec = co_aligned (out->data[pi], out->pitch[pi], vec_align);
    a.border = border[pi];
    const bool chroma = lut->chroma && g == 0;
    if (chroma) {
      a.lut_red = lut->plane[CO_LUT_RED];
      a.lut_blue = lut->plane[CO_LUT_BLUE];
      a.red_channel = lut->red_channel;
      if ((lut->mode == CO_LUT_COMPRESSED && (!a.lut_red.packed ||
                  !a.lut_blue.packed)) || (lut->mode == CO_LUT_TWO_TABLE &&
              (!a.lut_red.x || !a.lut_red.y || !a.lut_blue.x ||
                  !a.lut_blue.y)))
        return cudaErrorInvalidDevicePointer;
    } else {
      a.lut_red = a.lut_blue = a.lut;
      a.red_channel = 0;
    }
    typename CoRemapPick<E>::Fn fn = CoRemapPick<E>::get (kind, lut->mode,
        lut->interp, chroma);
    if (!fn)
      return cudaErrorInvalidValue;
    fn <<<dim3 ((a.lut.width + CO_REMAP_TILE_W - 1) / CO_REMAP_TILE_W,
            (a.lut.height + CO_REMAP_TILE_H - 1) / CO_REMAP_TILE_H),
        dim3 (CO_BLOCK_X, CO_BLOCK_Y), 0, s>>> (ent, a);
  }
  return cudaGetLastError ();
}

#endif /* CO_REMAP_KERNEL_CUH */
