/* cudaoptics — LGPL-2.1-or-later
 *
 * CUDA side of the tile transform over planes (clt.h).  A tile is worked by
 * 16 threads: in the forward transform thread r folds and transforms row r,
 * then one of the 16 column jobs (2 horizontal branches x 8 columns); the
 * inverse likewise, then 16 pixels each.  Every thread calls clt_math.h's
 * functions on the same values in the same order as the C reference, so
 * the coefficients and pixels are the C side's bits.  Eight tiles share a
 * block of 128 threads.
 */
#include <cuda_runtime.h>
#include "clt.h"

#define TILES_PER_BLOCK 8
#define THREADS (16 * TILES_PER_BLOCK)

namespace {

__global__ void __launch_bounds__ (THREADS)
forward_kernel (const float *img, int w, int h, int pitch, const float *dx,
    const float *dy, float *clt, int tiles_x, int n_tiles)
{
  __shared__ float pix[TILES_PER_BLOCK][16][17];
  __shared__ float hh[TILES_PER_BLOCK][2][16][8];
  __shared__ float zz[TILES_PER_BLOCK][CO_CLT_COEFFS];
  const int lt = threadIdx.x / 16, r = threadIdx.x % 16;
  const int i = blockIdx.x * TILES_PER_BLOCK + lt;
  const bool live = i < n_tiles;
  float wx[16], wy[16], fc[8], fs[8], sx = 0.0f, sy = 0.0f;

  if (live) {
    const int tx = i % tiles_x, ty = i / tiles_x;
    const float px = (float) (8 * tx - 8) + (dx ? dx[i] : 0.0f);
    const float py = (float) (8 * ty - 8) + (dy ? dy[i] : 0.0f);
    const float fx = floorf (px + 0.5f), fy = floorf (py + 0.5f);
    const int ix = (int) fx, iy = (int) fy, yy = iy + r;
    sx = fx - px;
    sy = fy - py;
    for (int x = 0; x < 16; x++) {
      const int xx = ix + x;
      pix[lt][r][x] = xx >= 0 && xx < w && yy >= 0 && yy < h ?
          img[(size_t) yy * pitch + xx] : 0.0f;
    }
    co_clt_window (sx, wx);
    co_clt_window (sy, wy);
    /* row r across */
    co_clt_fold (pix[lt][r], 1, wx, fc, fs);
    co_clt_dtt8 (0, fc, 1, hh[lt][0][r], 1);
    co_clt_dtt8 (1, fs, 1, hh[lt][1][r], 1);
  }
  __syncthreads ();
  if (live) {
    /* column job r: horizontal branch b, column k, down */
    const int b = r / 8, k = r % 8;
    float *z = zz[lt];
    co_clt_fold (&hh[lt][b][0][k], 8, wy, fc, fs);
    co_clt_dtt8 (0, fc, 1, &z[b * CO_CLT_LAYER + k], 8);
    co_clt_dtt8 (1, fs, 1, &z[(2 + b) * CO_CLT_LAYER + k], 8);
  }
  __syncthreads ();
  /* the phase rotation, as co_clt_rotate: across for every kh, then down
   * for every kv; thread r < 8 takes one of them */
  if (live && r < 8 && sx != 0.0f)
    co_clt_rotate_line (zz[lt], 1, r, sx);
  __syncthreads ();
  if (live && r < 8 && sy != 0.0f)
    co_clt_rotate_line (zz[lt], 0, r, sy);
  __syncthreads ();
  if (live)
    for (int j = r; j < CO_CLT_COEFFS; j += 16)
      clt[(size_t) i * CO_CLT_COEFFS + j] = zz[lt][j];
}

/* One pass of the inverse: the tiles of parity (ox, oy), which do not
 * overlap, each read-added into @out. */
__global__ void __launch_bounds__ (THREADS)
inverse_kernel (const float *clt, int w, int h, float *out, int pitch,
    int tiles_x, int tiles_y, int ox, int oy)
{
  __shared__ float zz[TILES_PER_BLOCK][CO_CLT_COEFFS];
  __shared__ float vv[TILES_PER_BLOCK][4][16][8];
  const int lt = threadIdx.x / 16, r = threadIdx.x % 16;
  const int per_row = (tiles_x - ox + 1) / 2;
  const int n = per_row * ((tiles_y - oy + 1) / 2);
  const int j = blockIdx.x * TILES_PER_BLOCK + lt;
  const bool live = j < n;
  const int tx = ox + 2 * (live ? j % per_row : 0);
  const int ty = oy + 2 * (live ? j / per_row : 0);

  if (live)
    for (int m = r; m < CO_CLT_COEFFS; m += 16)
      zz[lt][m] = clt[((size_t) ty * tiles_x + tx) * CO_CLT_COEFFS + m];
  __syncthreads ();
  /* down: 32 (layer, column) jobs, two a thread */
  if (live)
    for (int job = r; job < 32; job += 16) {
      const int q = job / 8, k = job % 8, vs = q >> 1;
      float col[8];
      co_clt_dtt8 (vs, &zz[lt][q * 64 + k], 8, col, 1);
      for (int y = 0; y < 16; y++)
        vv[lt][q][y][k] = co_clt_fold_sign (vs, y) *
            col[co_clt_fold_index (y)];
    }
  __syncthreads ();
  /* across: 64 (layer, row) jobs, four a thread, each on its own row */
  if (live)
    for (int job = r; job < 64; job += 16) {
      const int q = job / 16, y = job % 16;
      float row[8];
      co_clt_dtt8 (q & 1, vv[lt][q][y], 1, row, 1);
      for (int x = 0; x < 8; x++)
        vv[lt][q][y][x] = row[x];
    }
  __syncthreads ();
  if (live) {
    /* row r of the tile's 16 x 16 pixels, as co_clt_inverse_tile's */
    const int y = r, oyy = 8 * ty - 8 + y;
    const float wy = co_clt_w (y);
    if (oyy >= 0 && oyy < h)
      for (int x = 0; x < 16; x++) {
        const int oxx = 8 * tx - 8 + x;
        const float wx = co_clt_w (x);
        const int kx = co_clt_fold_index (x);
        float acc = 0.0f;
        for (int q = 0; q < 4; q++)
          acc = acc + co_clt_fold_sign (q & 1, x) * vv[lt][q][y][kx];
        if (oxx >= 0 && oxx < w) {
          float *o = out + (size_t) oyy * pitch + oxx;
          *o = *o + 0.25f * (wy * wx) * acc;
        }
      }
  }
}

}  // namespace

extern "C" int
co_clt_forward_cuda (const float *img, int w, int h, int pitch,
    const float *dx, const float *dy, float *clt, void *stream)
{
  int tx, ty;
  if (w < 1 || h < 1 || pitch < w)
    return cudaErrorInvalidValue;
  if (!img || !clt)
    return cudaErrorInvalidDevicePointer;
  co_clt_tiles (w, h, &tx, &ty);
  const int n = tx * ty;
  forward_kernel <<<(n + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK, THREADS, 0,
      (cudaStream_t) stream>>> (img, w, h, pitch, dx, dy, clt, tx, n);
  return cudaGetLastError ();
}

extern "C" int
co_clt_inverse_cuda (const float *clt, int w, int h, float *out, int pitch,
    void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  int tx, ty, e;
  if (w < 1 || h < 1 || pitch < w)
    return cudaErrorInvalidValue;
  if (!clt || !out)
    return cudaErrorInvalidDevicePointer;
  co_clt_tiles (w, h, &tx, &ty);
  e = cudaMemset2DAsync (out, (size_t) pitch * sizeof (float), 0,
      (size_t) w * sizeof (float), h, s);
  if (e)
    return e;
  for (int pass = 0; pass < 4; pass++) {
    const int ox = pass & 1, oy = pass >> 1;
    const int n = ((tx - ox + 1) / 2) * ((ty - oy + 1) / 2);
    inverse_kernel <<<(n + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK, THREADS,
        0, s>>> (clt, w, h, out, pitch, tx, ty, ox, oy);
  }
  return cudaGetLastError ();
}
