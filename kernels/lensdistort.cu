/* cudaoptics — LGPL-2.1-or-later
 *
 * CUDA side of cudalensdistort: the LUT builders, the per-pixel ("none")
 * remap and the paper's forward mapping.  The maths and the samplers come
 * from the same headers as the C reference; the remap kernel is
 * co_remap_kernel.cuh's, shared with every geometric element.
 */
#include "co_remap_kernel.cuh"
#include "lensdistort.h"

#define BLOCK_X CO_BLOCK_X
#define BLOCK_Y CO_BLOCK_Y

namespace {

/* CO_LUT_COMPUTE: the lens model per output pixel */
struct LensEntry
{
  CoLensParams p;
  __device__ uint32_t operator() (const CoPlaneArgs & a, int x, int y,
      CoInterp interp, int ch) const
  {
    return co_lens_entry_sc (&p, a.shift, ch, x, y, interp, (CoEdge) a.edge,
        a.frac, a.lut.src_width, a.lut.src_height);
  }
};

template <int M>
__global__ void __launch_bounds__ (BLOCK_X * BLOCK_Y)
build_kernel (CoLensParams p, CoLutPlane pl, int g, int interp, int edge,
    int frac)
{
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (x >= pl.pitch || y >= pl.height)
    return;
  /* the row's padding is written too, as "no source pixel" */
  const bool pad = x >= pl.width;
  const size_t i = (size_t) y * pl.pitch + x;
  if (M == CO_LUT_COMPRESSED) {
    pl.packed[i] = pad ? CO_LUT_UNMAPPED : co_lens_entry (&p, g, x, y,
        (CoInterp) interp, (CoEdge) edge, frac, pl.src_width, pl.src_height);
  } else {
    float sx, sy;
    if (pad || !co_lens_map_plane (&p, g, x, y, &sx, &sy))
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
        CO_INTERP_NEAREST, CO_EDGE_BORDER, 0, p.width, p.height);
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

dim3
grid_for (int w, int h, int px)
{
  return co_grid_for (w, h, px);
}

}  // namespace

extern "C" int
co_lens_build_lut_cuda (const CoLensParams * p, const CoLut * lut,
    void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  if (lut->mode == CO_LUT_COMPUTE)
    return cudaSuccess;
  for (int g = 0; g < CO_LUT_MAX_GEOMETRIES; g++) {
    if (!co_lut_has_geometry (lut, g))
      continue;
    const CoLutPlane &pl = lut->plane[g];
    if (pl.width <= 0 || pl.height <= 0)
      return cudaErrorInvalidValue;
    if (lut->mode == CO_LUT_COMPRESSED ? !pl.packed : (!pl.x || !pl.y))
      return cudaErrorInvalidDevicePointer;
    dim3 grid = grid_for (pl.pitch, pl.height, 1);
    if (lut->mode == CO_LUT_COMPRESSED)
      build_kernel<CO_LUT_COMPRESSED> <<<grid, dim3 (BLOCK_X, BLOCK_Y), 0, s>>>
          (*p, pl, g, lut->interp, lut->edge, lut->frac[g]);
    else
      build_kernel<CO_LUT_TWO_TABLE> <<<grid, dim3 (BLOCK_X, BLOCK_Y), 0, s>>>
          (*p, pl, g, lut->interp, lut->edge, lut->frac[g]);
  }
  return cudaGetLastError ();
}

extern "C" int
co_lens_remap_cuda (const CoLensParams * p, const CoLut * lut,
    const CoFrame * in, CoFrame * out, const uint32_t border[CO_MAX_PLANES],
    void *stream)
{
  LensEntry ent;
  ent.p = *p;
  return co_remap_launch (ent, lut, in, out, border, (cudaStream_t) stream);
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
