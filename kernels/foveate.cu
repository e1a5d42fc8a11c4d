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
#define SHARED_DEFAULT (48 * 1024)

/* The fragment's input, r pixels round it (the frame's edges repeated),
 * is read once into shared memory as floats; the horizontal pass sums it
 * into a second float tile, the vertical pass writes the frame.  A thread
 * does all C channels of a pixel (a float4 for four), each channel's sum
 * in co_fovea_hsum's and co_fovea_vsum's order, so the bytes are the C
 * reference's.  Shared memory: the half kernel mirrored (2r + 1 taps), the
 * input tile, the horizontal sums. */
template < int C > struct Px
{
  float v[C];
};

template < int C > __device__ static inline Px < C > load_px (const float *p)
{
  Px < C > x;
  if (C == 4) {
    float4 q = *(const float4 *) p;
    x.v[0] = q.x;
    x.v[1] = q.y;
    x.v[2] = q.z;
    x.v[3] = q.w;
  } else {
    for (int c = 0; c < C; c++)
      x.v[c] = p[c];
  }
  return x;
}

template < int C > __device__ static inline void
store_px (float *p, const Px < C > &x)
{
  if (C == 4)
    *(float4 *) p = make_float4 (x.v[0], x.v[1], x.v[2], x.v[3]);
  else
    for (int c = 0; c < C; c++)
      p[c] = x.v[c];
}

template < int C > __global__ static void
fovea_tiles (CoFovea f, const uint8_t * src, int spitch, uint8_t * dst,
    int dpitch, int width, int height, int shift, int F, int sx, int sy)
{
  extern __shared__ float4 smem4[];
  float *smem = (float *) smem4;
  const int x0 = sx + blockIdx.x * F, y0 = sy + blockIdx.y * F;
  const int xa = max (x0, 0), ya = max (y0, 0);
  const int xb = min (x0 + F, width), yb = min (y0 + F, height);
  const int cols = xb - xa, rows = yb - ya;
  const int level = co_fovea_level (&f, shift, F, x0, y0);
  int i, c, k;

  if (level < 0) {
    for (i = threadIdx.x; i < rows * cols * C; i += blockDim.x) {
      int y = ya + i / (cols * C), b = xa * C + i % (cols * C);
      dst[(size_t) y * dpitch + b] = src[(size_t) y * spitch + b];
    }
    return;
  }
  const int r = f.off[level - f.lo + 1] - f.off[level - f.lo] - 1;
  const int n = 2 * r + 1, tw = cols + 2 * r, th = rows + 2 * r;
  /* float4-aligned parts: the taps, the tile, the sums */
  float *w = smem;
  float *tile = w + ((n + 3) & ~3);
  float *h = tile + ((th * tw * C + 3) & ~3);

  for (i = threadIdx.x; i < n; i += blockDim.x)
    w[i] = f.w[f.off[level - f.lo] + (i < r ? r - i : i - r)];
  for (i = threadIdx.x; i < th * tw; i += blockDim.x) {
    int y = co_fovea_clampi (ya - r + i / tw, height - 1);
    int x = co_fovea_clampi (xa - r + i % tw, width - 1);
    const uint8_t *p = src + (size_t) y * spitch + (size_t) x * C;
    for (c = 0; c < C; c++)
      tile[i * C + c] = (float) p[c];
  }
  __syncthreads ();
  for (i = threadIdx.x; i < th * cols; i += blockDim.x) {
    const float *t = tile + ((i / cols) * tw + i % cols) * C;
    Px < C > acc;
    for (c = 0; c < C; c++)
      acc.v[c] = 0.0f;
    for (k = 0; k < n; k++) {
      Px < C > p = load_px < C > (t + k * C);
      for (c = 0; c < C; c++)
        acc.v[c] += w[k] * p.v[c];
    }
    store_px < C > (h + i * C, acc);
  }
  __syncthreads ();
  for (i = threadIdx.x; i < rows * cols; i += blockDim.x) {
    int y = i / cols, x = i % cols;
    const float *t = h + (y * cols + x) * C;
    uint8_t *o = dst + (size_t) (ya + y) * dpitch + (size_t) (xa + x) * C;
    Px < C > acc;
    for (c = 0; c < C; c++)
      acc.v[c] = 0.0f;
    for (k = 0; k < n; k++) {
      Px < C > p = load_px < C > (t + k * cols * C);
      for (c = 0; c < C; c++)
        acc.v[c] += w[k] * p.v[c];
    }
    for (c = 0; c < C; c++)
      o[c] = co_fovea_round (acc.v[c]);
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
  cudaError_t err;
  int p, dev = 0, shared_max = SHARED_DEFAULT;

  if ((err = cudaGetDevice (&dev)) != cudaSuccess ||
      (err = cudaDeviceGetAttribute (&shared_max,
              cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
    return (int) err;
  for (p = 0; p < co_format_n_planes (in->format); p++) {
    int shift = co_format_plane_shift (in->format, p);
    int bpp = co_pix_bpp (co_format_plane_kind (in->format, p));
    int w, h, F, sx, sy, nx, ny, rmax;
    size_t shared;

    co_plane_size (in->width, in->height, shift, &w, &h);
    co_fovea_tiling (f, shift, w, h, &F, &sx, &sy, &nx, &ny);
    rmax = f->rmax;
    /* the taps, the input tile, the horizontal sums, each padded to a
     * float4 */
    shared = sizeof (float) * ((size_t) (2 * rmax + 4) +
        (size_t) (F + 2 * rmax) * (F + 2 * rmax) * bpp + 3 +
        (size_t) F * (F + 2 * rmax) * bpp + 3);
    if (shared <= (size_t) shared_max && !f->direct) {
      dim3 grid (nx, ny);
      /* past 48 KB a kernel must ask for its shared memory */
#define TILES(C) ((shared <= SHARED_DEFAULT || (err = cudaFuncSetAttribute \
          (fovea_tiles < C >, cudaFuncAttributeMaxDynamicSharedMemorySize, \
          (int) shared)) == cudaSuccess) ? (void) (fovea_tiles < C > <<< \
          grid, BLOCK, shared, st >>> (*f, in->data[p], in->pitch[p], \
          out->data[p], out->pitch[p], w, h, shift, F, sx, sy)) : (void) 0)
      switch (bpp) {
        case 1:
          TILES (1);
          break;
        case 2:
          TILES (2);
          break;
        case 3:
          TILES (3);
          break;
        default:
          TILES (4);
          break;
      }
#undef TILES
      if (err != cudaSuccess)
        return (int) err;
    } else {
      dim3 block (32, 8), grid ((w + 31) / 32, (h + 7) / 8);
      fovea_direct <<< grid, block, 0, st >>> (*f, in->data[p], in->pitch[p],
          out->data[p], out->pitch[p], bpp, w, h, shift, F, sx, sy);
    }
  }
  return f->show ? co_fovea_show_cuda (f, out, stream) :
      (int) cudaGetLastError ();
}

__global__ static void
fovea_show (CoFovea f, CoFrame out, int p, int shift, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  CoPixKind kind = co_format_plane_kind (out.format, p);
  uint32_t c[CO_MAX_PLANES];
  int l;

  if (x >= w || y >= h || (l = co_fovea_border_level (&f, shift, w, h, x,
              y)) == -2)
    return;
  co_format_border (out.format, co_fovea_level_argb (&f, l), c);
  co_pix_store (out.data[p] + (size_t) y * out.pitch[p] + (size_t) x *
      co_pix_bpp (kind), kind, c[p]);
}

extern "C" int
co_fovea_show_cuda (const CoFovea * f, CoFrame * out, void *stream)
{
  int p;

  for (p = 0; p < co_format_n_planes (out->format); p++) {
    int shift = co_format_plane_shift (out->format, p), w, h;
    co_plane_size (out->width, out->height, shift, &w, &h);
    dim3 block (32, 8), grid ((w + 31) / 32, (h + 7) / 8);
    fovea_show <<< grid, block, 0, (cudaStream_t) stream >>> (*f, *out, p,
        shift, w, h);
  }
  return (int) cudaGetLastError ();
}

extern "C" int
co_fovea_upload_cuda (void *dst, const void *src, size_t n, void *stream)
{
  return (int) cudaMemcpyAsync (dst, src, n, cudaMemcpyHostToDevice,
      (cudaStream_t) stream);
}
