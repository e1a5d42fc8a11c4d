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
#include "clt_corr.h"

#define TILES_PER_BLOCK 8
#define THREADS (16 * TILES_PER_BLOCK)

namespace {

/* The end of the forward transforms: the phase rotation, as
 * co_clt_rotate (across for every kh, then down for every kv; thread r < 8
 * takes one of them).  Every thread of the block calls it (it
 * synchronises). */
__device__ __forceinline__ void
rotate_tile (float *z, bool live, int r, float sx, float sy)
{
  if (live && r < 8 && sx != 0.0f)
    co_clt_rotate_line (z, 1, r, sx);
  __syncthreads ();
  if (live && r < 8 && sy != 0.0f)
    co_clt_rotate_line (z, 0, r, sy);
  __syncthreads ();
}

/* ... and the tile's coefficients out. */
__device__ __forceinline__ void
rotate_and_store (float *z, bool live, int r, float sx, float sy, float *dst)
{
  rotate_tile (z, live, r, sx, sy);
  if (live)
    for (int j = r; j < CO_CLT_COEFFS; j += 16)
      dst[j] = z[j];
}

__global__ void __launch_bounds__ (THREADS)
forward_kernel (const float *img, int w, int h, int pitch, const float *dx,
    const float *dy, const float *on, float *clt, int tiles_x, int n_tiles)
{
  __shared__ float pix[TILES_PER_BLOCK][16][17];
  __shared__ float hh[TILES_PER_BLOCK][16][17];   /* [y][branch * 8 + k] */
  __shared__ float zz[TILES_PER_BLOCK][CO_CLT_COEFFS];
  const int lt = threadIdx.x / 16, r = threadIdx.x % 16;
  const int i = blockIdx.x * TILES_PER_BLOCK + lt;
  const bool live = i < n_tiles && (!on || on[i] != 0.0f);
  float wx[16], wy[16], fc[8], fs[8], sx = 0.0f, sy = 0.0f;

  if (live) {
    const int tx = i % tiles_x, ty = i / tiles_x;
    const float px = (float) (8 * tx - 8) + (dx ? dx[i] : 0.0f);
    const float py = (float) (8 * ty - 8) + (dy ? dy[i] : 0.0f);
    const float fx = floorf (px + 0.5f), fy = floorf (py + 0.5f);
    const int ix = (int) fx, iy = (int) fy, xx = co_clt_source (ix + r, w);
    sx = fx - px;
    sy = fy - py;
    /* column r, so that the tile's threads read neighbours of a row */
    for (int y = 0; y < 16; y++) {
      const int yy = co_clt_source (iy + y, h);
      pix[lt][y][r] = xx >= 0 && yy >= 0 ?
          img[(size_t) yy * pitch + xx] : 0.0f;
    }
    co_clt_window (sx, wx);
    co_clt_window (sy, wy);
  }
  __syncthreads ();
  if (live) {
    /* row r across */
    co_clt_fold (pix[lt][r], 1, wx, fc, fs);
    co_clt_dtt8 (0, fc, 1, &hh[lt][r][0], 1);
    co_clt_dtt8 (1, fs, 1, &hh[lt][r][8], 1);
  }
  __syncthreads ();
  if (live) {
    /* column job r: horizontal branch b, column k, down */
    const int b = r / 8, k = r % 8;
    float *z = zz[lt];
    co_clt_fold (&hh[lt][0][b * 8 + k], 17, wy, fc, fs);
    co_clt_dtt8 (0, fc, 1, &z[b * CO_CLT_LAYER + k], 8);
    co_clt_dtt8 (1, fs, 1, &z[(2 + b) * CO_CLT_LAYER + k], 8);
  }
  __syncthreads ();
  rotate_and_store (zz[lt], live, r, sx, sy, clt + (size_t) i *
      CO_CLT_COEFFS);
}

/* The Bayer forward transform of colour @c of one tile whose window
 * nominally starts at (@px, @py) (shift included), by the tile's 16
 * threads (@r), the steps of co_clt_forward_tile_bayer in its order; the
 * rotated coefficients are left in @z.  @hh: the tile's scratch rows of
 * pitch P (17, or 33 when shared with the inverse).  Every thread of the
 * block calls it (it synchronises). */
template <int P>
__device__ __forceinline__ void
bayer_tile (const uint8_t * raw, int w, int h, int pitch, int bps,
    float scale, int rx, int ry, int bx, int by, int gpar, int c, bool live,
    int r, float px, float py, float (*hh)[P], float *z)
{
  const bool quincunx = c == 1;
  float wx[16], wy[16], fc[8], fs[8], sx = 0.0f, sy = 0.0f;
  int qx = 0, qy = 0;

  if (live) {
    const float fx = floorf (px + 0.5f), fy = floorf (py + 0.5f);
    const int ix = (int) fx, iy = (int) fy, yy = co_clt_source (iy + r, h);
    float row[16];

    sx = fx - px;
    sy = fy - py;
    if (quincunx) {
      qx = (gpar + ix + iy) & 1;
    } else {
      qx = ((c == 0 ? rx : bx) + ix) & 1;
      qy = ((c == 0 ? ry : by) + iy) & 1;
    }
    co_clt_window (sx, wx);
    co_clt_window (sy, wy);
    /* row r: the colour's samples of it, every other one, or none */
    const int on = quincunx ? ((r + qx) & 1) : qx;
    if (!quincunx && (r & 1) != qy) {
      for (int k = 0; k < 8; k++)
        hh[r][k] = hh[r][8 + k] = 0.0f;
    } else {
      for (int t = 0; t < 16; t++) {
        const int xx = co_clt_source (ix + t, w);
        float v = 0.0f;
        if ((t & 1) == on && xx >= 0 && yy >= 0) {
          const uint8_t *p = raw + (size_t) yy * pitch + (size_t) xx * bps;
          v = scale * (float) (bps == 2 ? (p[0] | p[1] << 8) : p[0]);
        }
        row[t] = v;
      }
      co_clt_fold (row, 1, wx, fc, fs);
      co_clt_dtt8 (0, fc, 1, &hh[r][0], 1);
      if (quincunx)
        co_clt_dtt8 (1, fs, 1, &hh[r][8], 1);
    }
  }
  __syncthreads ();
  /* down: column k of the cosine branch (and green's sine branch) */
  if (live && (r < 8 || quincunx)) {
    const int b = r / 8, k = r % 8;
    co_clt_fold (&hh[0][b * 8 + k], P, wy, fc, fs);
    co_clt_dtt8 (0, fc, 1, &z[b * CO_CLT_LAYER + k], 8);
  }
  __syncthreads ();
  /* the other layers read back, as co_clt_forward_tile_bayer */
  if (live)
    for (int m = r; m < 64; m += 16)
      co_clt_bayer_restore (z, m, quincunx, qx, qy);
  __syncthreads ();
  rotate_tile (z, live, r, sx, sy);
}

/* The Bayer forward transform: blockIdx.y is the colour (0 red, 1 green,
 * 2 blue), 16 threads a tile as in forward_kernel. */
__global__ void __launch_bounds__ (THREADS)
bayer_forward_kernel (const uint8_t * raw, int w, int h, int pitch, int bps,
    float scale, int rx, int ry, int bx, int by, int gpar, const float *dx,
    const float *dy, float *clt_r, float *clt_g, float *clt_b, int x0, int y0,
    int tiles_x, int n_tiles)
{
  __shared__ float hh[TILES_PER_BLOCK][16][17];   /* [y][branch * 8 + k] */
  __shared__ float zz[TILES_PER_BLOCK][CO_CLT_COEFFS];
  const int c = blockIdx.y;
  const int lt = threadIdx.x / 16, r = threadIdx.x % 16;
  const int i = blockIdx.x * TILES_PER_BLOCK + lt;
  const bool live = i < n_tiles;
  float *clt = c == 0 ? clt_r : c == 1 ? clt_g : clt_b;
  const int tx = live ? i % tiles_x : 0, ty = live ? i / tiles_x : 0;
  const float px = (float) (x0 + 8 * tx - 8) + (live && dx ? dx[3 * i + c] :
      0.0f);
  const float py = (float) (y0 + 8 * ty - 8) + (live && dy ? dy[3 * i + c] :
      0.0f);

  bayer_tile < 17 > (raw, w, h, pitch, bps, scale, rx, ry, bx, by, gpar, c,
      live, r, px, py, hh[lt], zz[lt]);
  if (live)
    for (int j = r; j < CO_CLT_COEFFS; j += 16)
      clt[(size_t) i * CO_CLT_COEFFS + j] = zz[lt][j];
}

/* Each tile times its node's kernel: 64 threads a tile, one coefficient
 * position each. */
__global__ void
convolve_grid_kernel (float *clt, const float *nodes, int gw, int gh,
    int stride, int colours, int c, int x0, int y0, int tiles_x, int n_tiles)
{
  const int i = blockIdx.x * 4 + threadIdx.x / 64, m = threadIdx.x % 64;
  if (i >= n_tiles)
    return;
  const int node = co_clt_tile_node (i % tiles_x, i / tiles_x, x0, y0, stride,
      gw, gh);
  const float *k = nodes + ((size_t) node * colours + (colours > 1 ? c : 0))
      * (CO_CLT_COEFFS + 2) + 2;
  co_clt_convolve_at (clt + (size_t) i * CO_CLT_COEFFS, k, m);
}

/* cudacltcorrelate's colour tiles: each tile's three colours transformed
 * from the raw frame (bayer_tile), multiplied by their node's kernels and
 * summed (co_clt_corr_mix3), never leaving the chip: the bits of
 * co_clt_forward_bayer, co_clt_convolve_grid and co_clt_corr_mix apart,
 * without their three coefficient planes' traffic. */
__global__ void __launch_bounds__ (THREADS)
mixed_kernel (const uint8_t * raw, int w, int h, int pitch, int bps,
    float scale, int rx, int ry, int bx, int by, int gpar, const float *dx,
    const float *dy, const float *nodes, int gw, int gh, int stride,
    int colours, float *out, int tiles_x, int n_tiles)
{
  __shared__ float hh[TILES_PER_BLOCK][16][17];   /* [y][branch * 8 + k] */
  __shared__ float zz[TILES_PER_BLOCK][CO_CLT_COEFFS];
  const int lt = threadIdx.x / 16, r = threadIdx.x % 16;
  const int i = blockIdx.x * TILES_PER_BLOCK + lt;
  const bool live = i < n_tiles;
  const int tx = live ? i % tiles_x : 0, ty = live ? i / tiles_x : 0;
  float keep[2][CO_CLT_COEFFS / 16];

  for (int c = 0; c < 3; c++) {
    const float px = (float) (8 * tx - 8) + (live && dx ? dx[3 * i + c] :
        0.0f);
    const float py = (float) (8 * ty - 8) + (live && dy ? dy[3 * i + c] :
        0.0f);
    bayer_tile < 17 > (raw, w, h, pitch, bps, scale, rx, ry, bx, by, gpar, c,
        live, r, px, py, hh[lt], zz[lt]);
    if (live) {
      const int node = co_clt_tile_node (tx, ty, 0, 0, stride, gw, gh);
      const float *k = nodes + ((size_t) node * colours +
          (colours > 1 ? c : 0)) * (CO_CLT_COEFFS + 2) + 2;
      for (int m = r; m < 64; m += 16)
        co_clt_convolve_at (zz[lt], k, m);
    }
    __syncthreads ();
    if (live)
      for (int j = r, q = 0; j < CO_CLT_COEFFS; j += 16, q++) {
        if (c < 2)
          keep[c][q] = zz[lt][j];
        else
          out[(size_t) i * CO_CLT_COEFFS + j] = co_clt_corr_mix3 (keep[0][q],
              keep[1][q], zz[lt][j]);
      }
    __syncthreads ();           /* zz is the next colour's */
  }
}

/* What column r of tile (tx, ty) (which starts at pixel (8 tx - 8,
 * 8 ty - 8)) finds in the plane before its pass adds to it: loaded early,
 * so that the loads' latency hides behind the transforms.  The first pass
 * (even tiles: together they cover every pixel once) finds zeros without
 * reading, so the plane needs no clearing: 0 + v is what the C side's
 * cleared plane gives too. */
__device__ __forceinline__ void
plane_load (bool live, int r, int tx, int ty, int w, int h, const float *out,
    int pitch, bool first, float old[16])
{
  const int oxx = 8 * tx - 8 + r;
  for (int y = 0; y < 16; y++) {
    const int oyy = 8 * ty - 8 + y;
    old[y] = !first && live && oxx >= 0 && oxx < w && oyy >= 0 && oyy < h ?
        out[(size_t) oyy * pitch + oxx] : 0.0f;
  }
}

/* The inverse of one tile's coefficients @z (by its 16 threads), added to
 * @old (plane_load's) into the plane @out at its place; @vv: the tile's
 * scratch rows.  Every thread of the block calls it (it synchronises). */
__device__ __forceinline__ void
inverse_tile_add (const float *z, float (*vv)[33], bool live, int r, int tx,
    int ty, int w, int h, float *out, int pitch, const float old[16])
{
  /* down: 32 (layer, column) jobs, two a thread */
  if (live)
    for (int job = r; job < 32; job += 16) {
      const int q = job / 8, k = job % 8, vs = q >> 1;
      float col[8];
      co_clt_dtt8 (vs, &z[q * 64 + k], 8, col, 1);
      for (int y = 0; y < 16; y++)
        vv[y][q * 8 + k] = co_clt_fold_sign (vs, y) *
            col[co_clt_fold_index (y)];
    }
  __syncthreads ();
  /* across: 64 (layer, row) jobs, four a thread, each on its own row */
  if (live)
    for (int job = r; job < 64; job += 16) {
      const int q = job / 16, y = job % 16;
      float row[8];
      co_clt_dtt8 (q & 1, &vv[y][q * 8], 1, row, 1);
      for (int x = 0; x < 8; x++)
        vv[y][q * 8 + x] = row[x];
    }
  __syncthreads ();
  if (live) {
    /* column r of the tile's 16 x 16 pixels, as co_clt_inverse_tile's:
     * the tile's 16 threads write 16 neighbours of one row at a time */
    const int x = r, oxx = 8 * tx - 8 + x;
    const float wx = co_clt_w (x);
    const int kx = co_clt_fold_index (x);
    if (oxx >= 0 && oxx < w)
      for (int y = 0; y < 16; y++) {
        const int oyy = 8 * ty - 8 + y;
        const float wy = co_clt_w (y);
        float acc = 0.0f;
        for (int q = 0; q < 4; q++)
          acc = acc + co_clt_fold_sign (q & 1, x) * vv[y][q * 8 + kx];
        if (oyy >= 0 && oyy < h)
          out[(size_t) oyy * pitch + oxx] = old[y] + 0.25f * (wy * wx) * acc;
      }
  }
}

/* One pass of the inverse: the tiles of parity (ox, oy), which do not
 * overlap, each read-added into @out.  (One launch for a frame's three
 * colours, the plane picked by blockIdx.y from a parameter array, was
 * slower: 2.84 against 2.10 ms in bench-clt.) */
__global__ void __launch_bounds__ (THREADS)
inverse_kernel (const float *clt, int w, int h, float *out, int pitch,
    int tiles_x, int tiles_y, int ox, int oy)
{
  __shared__ float zz[TILES_PER_BLOCK][CO_CLT_COEFFS];
  __shared__ float vv[TILES_PER_BLOCK][16][33];   /* [y][layer * 8 + k] */
  const int lt = threadIdx.x / 16, r = threadIdx.x % 16;
  const int per_row = (tiles_x - ox + 1) / 2;
  const int n = per_row * ((tiles_y - oy + 1) / 2);
  const int j = blockIdx.x * TILES_PER_BLOCK + lt;
  const bool live = j < n;
  const int tx = ox + 2 * (live ? j % per_row : 0);
  const int ty = oy + 2 * (live ? j / per_row : 0);
  float old[16];

  plane_load (live, r, tx, ty, w, h, out, pitch, ox == 0 && oy == 0, old);
  if (live)
    for (int m = r; m < CO_CLT_COEFFS; m += 16)
      zz[lt][m] = clt[((size_t) ty * tiles_x + tx) * CO_CLT_COEFFS + m];
  __syncthreads ();
  inverse_tile_add (zz[lt], vv[lt], live, r, tx, ty, w, h, out, pitch, old);
}

/* The whole chain for one pass of tiles, never leaving the chip: each
 * tile of parity (ox, oy) of colour blockIdx.y is transformed from the
 * raw frame (bayer_tile), multiplied by its node's kernel and transformed
 * back into its colour's plane.  The same arithmetic in the same order as
 * the three steps apart, and the planes get their tiles in the same pass
 * order, so the same bits. */
__global__ void __launch_bounds__ (THREADS)
chain_kernel (const uint8_t * raw, int w, int h, int pitch, int bps,
    float scale, int rx, int ry, int bx, int by, int gpar, const float *dx,
    const float *dy, const float *nodes, int gw, int gh, int stride,
    int colours, int x0, int y0, int rw, int rh, float *out_r, float *out_g,
    float *out_b, int opitch, int tiles_x, int tiles_y, int ox, int oy)
{
  __shared__ float zz[TILES_PER_BLOCK][CO_CLT_COEFFS];
  __shared__ float vv[TILES_PER_BLOCK][16][33];   /* hh, then vv */
  const int c = blockIdx.y;
  const int lt = threadIdx.x / 16, r = threadIdx.x % 16;
  const int per_row = (tiles_x - ox + 1) / 2;
  const int n = per_row * ((tiles_y - oy + 1) / 2);
  const int j = blockIdx.x * TILES_PER_BLOCK + lt;
  const bool live = j < n;
  const int tx = ox + 2 * (live ? j % per_row : 0);
  const int ty = oy + 2 * (live ? j / per_row : 0);
  const int i = ty * tiles_x + tx;
  const float px = (float) (x0 + 8 * tx - 8) + (live && dx ? dx[3 * i + c] :
      0.0f);
  const float py = (float) (y0 + 8 * ty - 8) + (live && dy ? dy[3 * i + c] :
      0.0f);
  float *plane = c == 0 ? out_r : c == 1 ? out_g : out_b;
  float old[16];

  bayer_tile < 33 > (raw, w, h, pitch, bps, scale, rx, ry, bx, by, gpar, c,
      live, r, px, py, vv[lt], zz[lt]);
  plane_load (live, r, tx, ty, rw, rh, plane, opitch, ox == 0 && oy == 0,
      old);
  if (live) {
    const int node = co_clt_tile_node (tx, ty, x0, y0, stride, gw, gh);
    const float *k = nodes + ((size_t) node * colours + (colours > 1 ? c : 0))
        * (CO_CLT_COEFFS + 2) + 2;
    for (int m = r; m < 64; m += 16)
      co_clt_convolve_at (zz[lt], k, m);
  }
  __syncthreads ();
  inverse_tile_add (zz[lt], vv[lt], live, r, tx, ty, rw, rh, plane, opitch,
      old);
}

__global__ void
pack_kernel (const float *r, const float *g, const float *b, int fpitch,
    CoFrame out, int bpp, int x0, int y0, int x1, int y1)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.height)
    return;
  uint8_t *p = out.data[0] + (size_t) y * out.pitch[0] + (size_t) x * bpp;
  if (x >= x0 && x < x1 && y >= y0 && y < y1) {
    const size_t i = (size_t) (y - y0) * fpitch + (x - x0);
    co_clt_pack_pixel (p, out.format, r[i], g[i], b[i]);
  } else {
    co_clt_pack_pixel (p, out.format, 0.0f, 0.0f, 0.0f);
  }
}

}  // namespace

extern "C" int
co_clt_forward_cuda (const float *img, int w, int h, int pitch,
    const float *dx, const float *dy, float *clt, void *stream)
{
  return co_clt_forward_some_cuda (img, w, h, pitch, dx, dy, NULL, clt,
      stream);
}

extern "C" int
co_clt_forward_some_cuda (const float *img, int w, int h, int pitch,
    const float *dx, const float *dy, const float *on, float *clt,
    void *stream)
{
  int tx, ty;
  if (w < 1 || h < 1 || pitch < w)
    return cudaErrorInvalidValue;
  if (!img || !clt)
    return cudaErrorInvalidDevicePointer;
  co_clt_tiles (w, h, &tx, &ty);
  const int n = tx * ty;
  forward_kernel <<<(n + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK, THREADS, 0,
      (cudaStream_t) stream>>> (img, w, h, pitch, dx, dy, on, clt, tx, n);
  return cudaGetLastError ();
}

extern "C" int
co_clt_forward_bayer_cuda (const uint8_t * raw, int w, int h, int pitch,
    int bps, float scale, CoBayer bayer, const int *roi, const float *dx,
    const float *dy, float *const clt[3], void *stream)
{
  int tx, ty, rx, ry, bx, by, g;
  if (w < 1 || h < 1 || (bps != 1 && bps != 2) || pitch < w * bps)
    return cudaErrorInvalidValue;
  if (roi && (roi[0] < 0 || roi[1] < 0 || roi[2] < 1 || roi[3] < 1))
    return cudaErrorInvalidValue;
  if (!raw || !clt[0] || !clt[1] || !clt[2])
    return cudaErrorInvalidDevicePointer;
  co_clt_tiles (roi ? roi[2] : w, roi ? roi[3] : h, &tx, &ty);
  co_clt_bayer_sites (bayer, &rx, &ry, &bx, &by, &g);
  const int n = tx * ty;
  bayer_forward_kernel <<<dim3 ((n + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK,
      3), THREADS, 0, (cudaStream_t) stream>>> (raw, w, h, pitch, bps, scale,
      rx, ry, bx, by, g, dx, dy, clt[0], clt[1], clt[2], roi ? roi[0] : 0,
      roi ? roi[1] : 0, tx, n);
  return cudaGetLastError ();
}

extern "C" int
co_clt_convolve_grid_cuda (float *clt, int x0, int y0, int w, int h,
    const float *nodes, int gw, int gh, int stride, int colours, int c,
    void *stream)
{
  int tx, ty;
  if (w < 1 || h < 1 || gw < 1 || gh < 1 || stride < 1 || c < 0 || c > 2 ||
      x0 < 0 || y0 < 0)
    return cudaErrorInvalidValue;
  if (!clt || !nodes)
    return cudaErrorInvalidDevicePointer;
  co_clt_tiles (w, h, &tx, &ty);
  const int n = tx * ty;
  convolve_grid_kernel <<<(n + 3) / 4, 256, 0, (cudaStream_t) stream>>>
      (clt, nodes, gw, gh, stride, colours, c, x0, y0, tx, n);
  return cudaGetLastError ();
}

extern "C" int
co_clt_inverse_cuda (const float *clt, int w, int h, float *out, int pitch,
    void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  int tx, ty;
  if (w < 1 || h < 1 || pitch < w)
    return cudaErrorInvalidValue;
  if (!clt || !out)
    return cudaErrorInvalidDevicePointer;
  co_clt_tiles (w, h, &tx, &ty);
  for (int pass = 0; pass < 4; pass++) {
    const int ox = pass & 1, oy = pass >> 1;
    const int n = ((tx - ox + 1) / 2) * ((ty - oy + 1) / 2);
    inverse_kernel <<<(n + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK, THREADS,
        0, s>>> (clt, w, h, out, pitch, tx, ty, ox, oy);
  }
  return cudaGetLastError ();
}

extern "C" int
co_clt_pack_cuda (const float *const planes[3], int fpitch, const int *roi,
    const CoFrame * out, void *stream)
{
  const int x0 = roi ? roi[0] : 0, y0 = roi ? roi[1] : 0;
  const int x1 = roi ? x0 + roi[2] : out->width;
  const int y1 = roi ? y0 + roi[3] : out->height;
  if (out->width < 1 || out->height < 1 || fpitch < x1 - x0)
    return cudaErrorInvalidValue;
  if (!planes[0] || !planes[1] || !planes[2] || !out->data[0])
    return cudaErrorInvalidDevicePointer;
  const dim3 block (32, 8);
  const dim3 grid ((out->width + 31) / 32, (out->height + 7) / 8);
  pack_kernel <<<grid, block, 0, (cudaStream_t) stream>>> (planes[0],
      planes[1], planes[2], fpitch, *out,
      co_pix_bpp (co_format_plane_kind (out->format, 0)), x0, y0, x1, y1);
  return cudaGetLastError ();
}

extern "C" int
co_clt_chain_bayer_cuda (const uint8_t * raw, int w, int h, int pitch,
    int bps, float scale, CoBayer bayer, const int *roi, const float *dx,
    const float *dy, const float *nodes, int gw, int gh, int stride,
    int colours, float *const planes[3], int fpitch, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  const int x0 = roi ? roi[0] : 0, y0 = roi ? roi[1] : 0;
  const int rw = roi ? roi[2] : w, rh = roi ? roi[3] : h;
  int tx, ty, rx, ry, bx, by, g;
  if (w < 1 || h < 1 || (bps != 1 && bps != 2) || pitch < w * bps ||
      x0 < 0 || y0 < 0 || rw < 1 || rh < 1 || fpitch < rw || gw < 1 ||
      gh < 1 || stride < 1)
    return cudaErrorInvalidValue;
  if (!raw || !nodes || !planes[0] || !planes[1] || !planes[2])
    return cudaErrorInvalidDevicePointer;
  co_clt_tiles (rw, rh, &tx, &ty);
  co_clt_bayer_sites (bayer, &rx, &ry, &bx, &by, &g);
  for (int pass = 0; pass < 4; pass++) {
    const int ox = pass & 1, oy = pass >> 1;
    const int n = ((tx - ox + 1) / 2) * ((ty - oy + 1) / 2);
    chain_kernel <<<dim3 ((n + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK, 3),
        THREADS, 0, s>>> (raw, w, h, pitch, bps, scale, rx, ry, bx, by, g,
        dx, dy, nodes, gw, gh, stride, colours, x0, y0, rw, rh, planes[0],
        planes[1], planes[2], fpitch, tx, ty, ox, oy);
  }
  return cudaGetLastError ();
}

extern "C" int
co_clt_corr_forward_bayer_cuda (const uint8_t * raw, int w, int h,
    int pitch, int bps, float scale, CoBayer bayer, const float *dx,
    const float *dy, const float *nodes, int gw, int gh, int stride,
    int colours, float *clt, void *stream)
{
  int tx, ty, rx, ry, bx, by, g;
  if (w < 1 || h < 1 || (bps != 1 && bps != 2) || pitch < w * bps ||
      gw < 1 || gh < 1 || stride < 1)
    return cudaErrorInvalidValue;
  if (!raw || !nodes || !clt)
    return cudaErrorInvalidDevicePointer;
  co_clt_tiles (w, h, &tx, &ty);
  co_clt_bayer_sites (bayer, &rx, &ry, &bx, &by, &g);
  const int n = tx * ty;
  mixed_kernel <<<(n + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK, THREADS, 0,
      (cudaStream_t) stream>>> (raw, w, h, pitch, bps, scale, rx, ry, bx, by,
      g, dx, dy, nodes, gw, gh, stride, colours, clt, tx, n);
  return cudaGetLastError ();
}
