/* cudaoptics — LGPL-2.1-or-later
 *
 * cudafoveate's block-wise blur on the device: one block per fragment (the
 * paper's), the horizontal pass into a shared float tile over the
 * fragment's rows and r more above and below, then the vertical pass; the
 * sums of foveate_math.h in the order of the C reference, so the bytes are
 * the same.  A kernel too wide for shared memory takes the direct path (each
 * pixel sums its own horizontal passes) rather than a clipped blur.
 */
#include <cuda_runtime.h>
#include "foveate_math.h"

#define BLOCK 256
#define SHARED_MAX (48 * 1024)

__global__ static void
fovea_tiles (CoFovea f, const uint8_t * src, int spitch, uint8_t * dst,
    int dpitch, int bpp, int width, int height, int shift, int F, int sx,
    int sy)
{
  extern __shared__ float h[];
  const int x0 = sx + blockIdx.x * F, y0 = sy + blockIdx.y * F;
  const int xa = max (x0, 0), ya = max (y0, 0);
  const int xb = min (x0 + F, width), yb = min (y0 + F, height);
  const int cols = xb - xa, rows = yb - ya;
  const int level = co_fovea_level (&f, shift, F, x0, y0);
  int i, c;

  if (level < 0) {
    for (i = threadIdx.x; i < rows * cols * bpp; i += blockDim.x) {
      int y = ya + i / (cols * bpp), b = xa * bpp + i % (cols * bpp);
      dst[(size_t) y * dpitch + b] = src[(size_t) y * spitch + b];
    }
    return;
  }
  const float *w = f.w + f.off[level - f.lo];
  const int r = f.off[level - f.lo + 1] - f.off[level - f.lo] - 1;

  for (c = 0; c < bpp; c++) {
    for (i = threadIdx.x; i < (rows + 2 * r) * cols; i += blockDim.x) {
      int row = i / cols, x = xa + i % cols;
      int y = co_fovea_clampi (ya - r + row, height - 1);
      h[row * F + (x - xa)] = co_fovea_hsum (src + (size_t) y * spitch, bpp,
          width, x, c, w, r);
    }
    __syncthreads ();
    for (i = threadIdx.x; i < rows * cols; i += blockDim.x) {
      int y = ya + i / cols, x = xa + i % cols;
      dst[(size_t) y * dpitch + (size_t) x * bpp + c] =
          co_fovea_vsum (&h[(y - ya) * F + (x - xa)], F, w, r);
    }
    __syncthreads ();
  }
}

/* Every pixel on its own: its fragment's level, its own horizontal sums. */
__global__ static void
fovea_direct (CoFovea f, const uint8_t * src, int spitch, uint8_t * dst,
    int dpitch, int bpp, int width, int height, int shift, int F, int sx,
    int sy)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  int c, k;

  if (x >= width || y >= height)
    return;
  const int x0 = sx + (x - sx) / F * F, y0 = sy + (y - sy) / F * F;
  const int level = co_fovea_level (&f, shift, F, x0, y0);
  if (level < 0) {
    for (c = 0; c < bpp; c++)
      dst[(size_t) y * dpitch + (size_t) x * bpp + c] =
          src[(size_t) y * spitch + (size_t) x * bpp + c];
    return;
  }
  const float *w = f.w + f.off[level - f.lo];
  const int r = f.off[level - f.lo + 1] - f.off[level - f.lo] - 1;
  for (c = 0; c < bpp; c++) {
    float acc = 0.0f;
    for (k = -r; k <= r; k++)
      acc += w[k < 0 ? -k : k] * co_fovea_hsum (src + (size_t)
          co_fovea_clampi (y + k, height - 1) * spitch, bpp, width, x, c, w,
          r);
    dst[(size_t) y * dpitch + (size_t) x * bpp + c] = co_fovea_round (acc);
  }
}

extern "C" int
co_fovea_cuda (const CoFovea * f, const CoFrame * in, CoFrame * out,
    void *stream)
{
  cudaStream_t st = (cudaStream_t) stream;
  int p;

  for (p = 0; p < co_format_n_planes (in->format); p++) {
    int shift = co_format_plane_shift (in->format, p);
    int bpp = co_pix_bpp (co_format_plane_kind (in->format, p));
    int w, h, F, sx, sy, nx, ny, rmax;
    size_t shared;

    co_plane_size (in->width, in->height, shift, &w, &h);
    co_fovea_tiling (f, shift, w, h, &F, &sx, &sy, &nx, &ny);
    rmax = f->rmax;
    shared = sizeof (float) * (size_t) F * (F + 2 * rmax);
    if (shared <= SHARED_MAX && !f->direct) {
      fovea_tiles <<< dim3 (nx, ny), BLOCK, shared, st >>> (*f, in->data[p],
          in->pitch[p], out->data[p], out->pitch[p], bpp, w, h, shift, F, sx,
          sy);
    } else {
      dim3 block (32, 8), grid ((w + 31) / 32, (h + 7) / 8);
      fovea_direct <<< grid, block, 0, st >>> (*f, in->data[p], in->pitch[p],
          out->data[p], out->pitch[p], bpp, w, h, shift, F, sx, sy);
    }
  }
  return (int) cudaGetLastError ();
}

extern "C" int
co_fovea_upload_cuda (void *dst, const void *src, size_t n, void *stream)
{
  return (int) cudaMemcpyAsync (dst, src, n, cudaMemcpyHostToDevice,
      (cudaStream_t) stream);
}
