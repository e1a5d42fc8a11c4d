/* cudaoptics — LGPL-2.1-or-later
 *
 * CUDA side of cudalensdistort.  The maths and the samplers come from the
 * same headers as the C reference; this file only decides how threads walk
 * the frame.  Each thread produces four horizontally adjacent output pixels:
 * one 16-byte LUT load (rows are padded to a multiple of four entries) and,
 * where the destination allows, one vector store of 4 * bpp bytes, so that a
 * warp reads and writes whole 128-byte lines.
 */
#include <cuda_runtime.h>
#include "lensdistort.h"

#define BLOCK_X 32
#define BLOCK_Y 8
#define PX_PER_THREAD 4

namespace {

struct PlaneArgs
{
  CoSrcPlane src;
  uint8_t *dst;
  int32_t dst_pitch;
  CoLutPlane lut;
  int32_t shift, frac, vec;
  uint32_t border;
};

template <int K>
__device__ __forceinline__ void
store4 (uint8_t * d, const uint32_t v[4], int n, bool vec)
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

template <int K, int I, int M>
__global__ void __launch_bounds__ (BLOCK_X * BLOCK_Y)
remap_kernel (CoLensParams p, PlaneArgs a)
{
  const CoPixKind kind = (CoPixKind) K;
  const CoInterp interp = (CoInterp) I;
  const int x0 = (blockIdx.x * BLOCK_X + threadIdx.x) * PX_PER_THREAD;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  const int w = a.lut.width;
  uint32_t e[4], v[4];

  if (x0 >= w || y >= a.lut.height)
    return;
  const size_t li = (size_t) y * a.lut.pitch + x0;
  if (M == CO_LUT_COMPRESSED) {
    /* in bounds even on the last column: rows are padded to pitch */
    uint4 q = __ldg ((const uint4 *) (a.lut.packed + li));
    e[0] = q.x;
    e[1] = q.y;
    e[2] = q.z;
    e[3] = q.w;
  } else if (M == CO_LUT_TWO_TABLE) {
    float4 fx = __ldg ((const float4 *) (a.lut.x + li));
    float4 fy = __ldg ((const float4 *) (a.lut.y + li));
    const int sw = a.lut.width, sh = a.lut.height, f = a.frac;
    e[0] = co_lut_encode (interp, fx.x, fy.x, sw, sh, f);
    e[1] = co_lut_encode (interp, fx.y, fy.y, sw, sh, f);
    e[2] = co_lut_encode (interp, fx.z, fy.z, sw, sh, f);
    e[3] = co_lut_encode (interp, fx.w, fy.w, sw, sh, f);
  } else {
#pragma unroll
    for (int i = 0; i < 4; i++)
      e[i] = co_lens_entry (&p, a.shift, x0 + i, y, interp, a.frac,
          a.lut.width, a.lut.height);
  }
#pragma unroll
  for (int i = 0; i < 4; i++) {
    /* past the row's end the table holds padding: never sample it */
    if (x0 + i >= w)
      e[i] = CO_LUT_UNMAPPED;
    v[i] = co_sample (&a.src, kind, interp, a.frac, e[i], a.border);
  }

  const int n = min (PX_PER_THREAD, w - x0);
  store4<K> (a.dst + (size_t) y * a.dst_pitch + (size_t) x0 * co_pix_bpp (kind),
      v, n, a.vec != 0);
}

template <int M>
__global__ void __launch_bounds__ (BLOCK_X * BLOCK_Y)
build_kernel (CoLensParams p, CoLutPlane pl, int shift, int interp, int frac)
{
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (x >= pl.pitch || y >= pl.height)
    return;
  /* the row's padding is written too, as "no source pixel" */
  const bool pad = x >= pl.width;
  const size_t i = (size_t) y * pl.pitch + x;
  if (M == CO_LUT_COMPRESSED) {
    pl.packed[i] = pad ? CO_LUT_UNMAPPED : co_lens_entry (&p, shift, x, y,
        (CoInterp) interp, frac, pl.width, pl.height);
  } else {
    float sx, sy;
    if (pad || !co_lens_map_plane (&p, shift, x, y, &sx, &sy))
      sx = sy = __int_as_float (0x7fc00000);
    pl.x[i] = sx;
    pl.y[i] = sy;
  }
}

__global__ void __launch_bounds__ (BLOCK_X * BLOCK_Y)
forward_build_kernel (CoLensParams p, uint32_t * fwd, int pitch)
{
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (x < p.width && y < p.height)
    fwd[(size_t) y * pitch + x] = co_lens_entry (&p, 0, x, y,
        CO_INTERP_NEAREST, 0, p.width, p.height);
}

template <int K>
__global__ void __launch_bounds__ (BLOCK_X * BLOCK_Y)
forward_kernel (const uint32_t * fwd, int pitch, CoFrame in, CoFrame out)
{
  const CoPixKind kind = (CoPixKind) K;
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  int dx, dy;
  if (x >= in.width || y >= in.height)
    return;
  const uint32_t e = __ldg (fwd + (size_t) y * pitch + x);
  if (e == CO_LUT_UNMAPPED)
    return;
  co_lut_decode_nearest (e, &dx, &dy);
  co_pix_store (out.data[0] + (size_t) dy * out.pitch[0] + dx * co_pix_bpp (kind),
      kind, co_pix_load (in.data[0] + (size_t) y * in.pitch[0] +
          x * co_pix_bpp (kind), kind));
}

typedef void (*RemapFn) (CoLensParams, PlaneArgs);

template <int K>
RemapFn
pick_remap (CoLutMode m, CoInterp i)
{
  static const RemapFn t[2][3] = {
    {remap_kernel<K, 0, 0>, remap_kernel<K, 0, 1>, remap_kernel<K, 0, 2>},
    {remap_kernel<K, 1, 0>, remap_kernel<K, 1, 1>, remap_kernel<K, 1, 2>},
  };
  return t[i][m];
}

RemapFn
pick (CoPixKind k, CoLutMode m, CoInterp i)
{
  switch (k) {
    case CO_PIX_U8X1:
      return pick_remap<CO_PIX_U8X1> (m, i);
    case CO_PIX_U8X2:
      return pick_remap<CO_PIX_U8X2> (m, i);
    case CO_PIX_U8X3:
      return pick_remap<CO_PIX_U8X3> (m, i);
    case CO_PIX_U8X4:
      return pick_remap<CO_PIX_U8X4> (m, i);
    default:
      return pick_remap<CO_PIX_U16X1> (m, i);
  }
}

bool
aligned (const void *p, int pitch, int a)
{
  return ((uintptr_t) p % a) == 0 && (pitch % a) == 0;
}

dim3
grid_for (int w, int h, int px)
{
  return dim3 ((w + BLOCK_X * px - 1) / (BLOCK_X * px),
      (h + BLOCK_Y - 1) / BLOCK_Y);
}

}  // namespace

extern "C" int
co_lens_build_lut_cuda (const CoLensParams * p, const CoLut * lut,
    void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  if (lut->mode == CO_LUT_COMPUTE)
    return cudaSuccess;
  for (int g = 0; g < lut->n_geometries; g++) {
    const CoLutPlane &pl = lut->plane[g];
    if (pl.width <= 0 || pl.height <= 0)
      return cudaErrorInvalidValue;
    if (lut->mode == CO_LUT_COMPRESSED ? !pl.packed : (!pl.x || !pl.y))
      return cudaErrorInvalidDevicePointer;
    dim3 grid = grid_for (pl.pitch, pl.height, 1);
    if (lut->mode == CO_LUT_COMPRESSED)
      build_kernel<CO_LUT_COMPRESSED> <<<grid, dim3 (BLOCK_X, BLOCK_Y), 0, s>>>
          (*p, pl, g, lut->interp, lut->frac[g]);
    else
      build_kernel<CO_LUT_TWO_TABLE> <<<grid, dim3 (BLOCK_X, BLOCK_Y), 0, s>>>
          (*p, pl, g, lut->interp, lut->frac[g]);
  }
  return cudaGetLastError ();
}

extern "C" int
co_lens_remap_cuda (const CoLensParams * p, const CoLut * lut,
    const CoFrame * in, CoFrame * out, const uint32_t border[CO_MAX_PLANES],
    void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  for (int pi = 0; pi < co_format_n_planes (lut->format); pi++) {
    const int g = pi > 0 ? 1 : 0;
    const CoPixKind kind = co_format_plane_kind (lut->format, pi);
    const int bpp = co_pix_bpp (kind);
    const int load_align = bpp == 3 ? 1 : bpp;
    const int vec_align = bpp == 4 ? 16 : bpp == 2 ? 8 : 4;
    PlaneArgs a;

    a.lut = lut->plane[g];
    if (a.lut.width <= 0 || a.lut.height <= 0)
      return cudaErrorInvalidValue;
    if (!in->data[pi] || !out->data[pi])
      return cudaErrorInvalidDevicePointer;
    if ((lut->mode == CO_LUT_COMPRESSED && !a.lut.packed) ||
        (lut->mode == CO_LUT_TWO_TABLE && (!a.lut.x || !a.lut.y)))
      return cudaErrorInvalidDevicePointer;
    if (!aligned (in->data[pi], in->pitch[pi], load_align) ||
        !aligned (out->data[pi], out->pitch[pi], load_align))
      return cudaErrorMisalignedAddress;
    a.src.data = in->data[pi];
    a.src.pitch = in->pitch[pi];
    a.src.width = a.lut.width;
    a.src.height = a.lut.height;
    a.dst = out->data[pi];
    a.dst_pitch = out->pitch[pi];
    a.shift = g;
    a.frac = lut->frac[g];
    a.vec = aligned (out->data[pi], out->pitch[pi], vec_align);
    a.border = border[pi];
    pick (kind, lut->mode, lut->interp) <<<grid_for (a.lut.width,
            a.lut.height, PX_PER_THREAD), dim3 (BLOCK_X, BLOCK_Y), 0, s>>> (*p,
        a);
  }
  return cudaGetLastError ();
}

extern "C" int
co_lens_build_forward_cuda (const CoLensParams * p, uint32_t * fwd,
    int pitch, void *stream)
{
  if (!fwd)
    return cudaErrorInvalidDevicePointer;
  forward_build_kernel <<<grid_for (p->width, p->height, 1),
      dim3 (BLOCK_X, BLOCK_Y), 0, (cudaStream_t) stream>>> (*p, fwd, pitch);
  return cudaGetLastError ();
}

extern "C" int
co_lens_remap_forward_cuda (const uint32_t * fwd, int pitch,
    const CoFrame * in, CoFrame * out, void *stream)
{
  const CoPixKind kind = co_format_plane_kind (in->format, 0);
  dim3 grid = grid_for (in->width, in->height, 1), block (BLOCK_X, BLOCK_Y);
  cudaStream_t s = (cudaStream_t) stream;
  if (!fwd || !in->data[0] || !out->data[0])
    return cudaErrorInvalidDevicePointer;
  if (co_format_n_planes (in->format) != 1)
    return cudaErrorInvalidValue;
  switch (kind) {
    case CO_PIX_U8X4:
      forward_kernel<CO_PIX_U8X4> <<<grid, block, 0, s>>> (fwd, pitch, *in, *out);
      break;
    case CO_PIX_U8X3:
      forward_kernel<CO_PIX_U8X3> <<<grid, block, 0, s>>> (fwd, pitch, *in, *out);
      break;
    case CO_PIX_U8X1:
      forward_kernel<CO_PIX_U8X1> <<<grid, block, 0, s>>> (fwd, pitch, *in, *out);
      break;
    default:
      forward_kernel<CO_PIX_U16X1> <<<grid, block, 0, s>>> (fwd, pitch, *in, *out);
      break;
  }
  return cudaGetLastError ();
}
