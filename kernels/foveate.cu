/* cudaoptics — LGPL-2.1-or-later
 *
 * cudafoveate's block-wise blur on the device: one block per fragment (the
 * paper's), the horizontal pass into a shared float tile over the
 * fragment's rows and r more above and below, then the vertical pass; the
 * sums of foveate_math.h in the order of the C reference, so the bytes are
 * the same.  A kernel too wide for the tile of floats in shared memory
 * packs the tile as bytes; too wide even for that, it takes the direct
 * path (each pixel sums its own horizontal passes) rather than a clipped
 * blur.
 */
#include <cuda_runtime.h>
#include "foveate_math.h"

#define SHARED_DEFAULT (48 * 1024)

/* A fragment's blur in shared memory.  The input, r pixels round it (the
 * frame's edges repeated), is read once into a tile of floats (C a pixel;
 * one word of C bytes a pixel where floats do not fit); the horizontal pass
 * sums it into a float tile, the vertical pass writes the frame.  A thread makes K = 4 outputs of a pass, all C
 * channels, sliding a window of inputs through registers four taps at a
 * time: one shared read per input and one per four taps, rather than one
 * per tap and output.  The taps are the kernel mirrored (-r .. r), then
 * zeros up to a multiple of four: each sum keeps co_fovea_hsum's and
 * co_fovea_vsum's order, and a zero tap adds +0 exactly, so the bytes are
 * the C reference's.  Radius is a run-time value: the code stays small
 * enough for the instruction cache when neighbouring fragments differ. */
#define K 4
#define LOADS 4

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
#pragma unroll
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
#pragma unroll
    for (int c = 0; c < C; c++)
      p[c] = x.v[c];
}

/* A byte to its float without I2F (a quarter-rate instruction on the SM):
 * the byte as the low mantissa of 2^23, less 2^23, exact. */
template < int C > __device__ static inline Px < C > unpack (uint32_t v)
{
  Px < C > x;
#pragma unroll
  for (int c = 0; c < C; c++)
    x.v[c] = __uint_as_float (__byte_perm (v, 0x4b000000u, 0x7540u | c)) -
        8388608.0f;
  return x;
}

/* acc[o] += w x[o] (fused), four outputs, every channel */
template < int C > __device__ static inline void
tap (Px < C > *acc, float w, const Px < C > &x0, const Px < C > &x1,
    const Px < C > &x2, const Px < C > &x3)
{
#pragma unroll
  for (int c = 0; c < C; c++) {
    acc[0].v[c] = co_fovea_mac (acc[0].v[c], w, x0.v[c]);
    acc[1].v[c] = co_fovea_mac (acc[1].v[c], w, x1.v[c]);
    acc[2].v[c] = co_fovea_mac (acc[2].v[c], w, x2.v[c]);
    acc[3].v[c] = co_fovea_mac (acc[3].v[c], w, x3.v[c]);
  }
}

/* Where a pass reads its inputs: floats, C a pixel, @step floats apart
 * (the float tile, the horizontal sums), or one word of C bytes a pixel
 * (the packed tile). */
template < int C > struct Floats
{
  const float *p;
  int step;
  __device__ Px < C > operator () (int j) const
  {
    return load_px < C > (p + j * step);
  }
};

template < int C > struct Words
{
  const uint32_t *p;
  __device__ Px < C > operator () (int j) const
  {
    return unpack < C > (p[j]);
  }
};

/* K outputs of one pass: output o is the sum over taps k of w[k] times
 * input o + k, in tap order; inputs slide through four registers, one new
 * one a tap.  The sums go to @out (@ostep floats apart) or, without it,
 * stay in @acc. */
template < int C, class Src > __device__ static inline void
slide (const float *w, int nt, const Src in, float *out, int ostep,
    Px < C > *acc = NULL)
{
  Px < C > s[K], a, b, c, d;

  if (!acc)
    acc = s;
#pragma unroll
  for (int o = 0; o < K; o++)
#pragma unroll
    for (int ch = 0; ch < C; ch++)
      acc[o].v[ch] = 0.0f;
  a = in (0);
  b = in (1);
  c = in (2);
  for (int k = 0; k < nt; k += 4) {
    const float4 wk = *(const float4 *) (w + k);
    /* taps k .. k + 3: output o reads inputs k + o .. k + o + 3 */
    d = in (k + 3);
    tap < C > (acc, wk.x, a, b, c, d);
    a = in (k + 4);
    tap < C > (acc, wk.y, b, c, d, a);
    b = in (k + 5);
    tap < C > (acc, wk.z, c, d, a, b);
    c = in (k + 6);
    tap < C > (acc, wk.w, d, a, b, c);
  }
  if (out)
#pragma unroll
    for (int o = 0; o < K; o++)
      store_px < C > (out + o * ostep, acc[o]);
}

/* The layout of one fragment's shared memory at radius r: nt taps (2r + 1
 * rounded up to four), the input tile, ts pixels a row, then the
 * horizontal sums, hs floats a row, as many rows.  A window reads three
 * pixels past its last tap, hence F + nt - 1 of each.  The tile holds
 * floats, C a pixel, or, packed, a word of C bytes a pixel: a quarter of
 * the room for the widest kernels, at the price of unpacking each input in
 * the horizontal pass. */
struct Layout
{
  int nt, rows, ts, hs, tile;   /* tile: its size in floats or words */

  __host__ __device__ Layout (int F, int r, int C, bool packed)
  {
    nt = (2 * r + 1 + 3) & ~3;
    rows = F + nt - 1;
    /* odd: the lanes of a warp, on different rows of one column, fall in
     * different banks */
    ts = (F + nt - 1) | 1;
    hs = (F + 1) * C;
    /* the sums after it 16-byte aligned */
    tile = (rows * ts * (packed ? 1 : C) + 3) & ~3;
  }
  __host__ __device__ size_t bytes () const
  {
    return sizeof (float) * ((size_t) nt + (size_t) tile + (size_t) rows *
        hs);
  }
};

template < int C, bool PACKED > __global__ static void
fovea_tiles (CoFovea f, const uint8_t * src, int spitch, uint8_t * dst,
    int dpitch, int width, int height, int shift, int F, int sx, int sy,
    bool word)
{
  extern __shared__ float4 smem4[];
  const int x0 = sx + blockIdx.x * F, y0 = sy + blockIdx.y * F;
  /* every thread works the level out: cheaper than a barrier's wait */
  const int level = co_fovea_level (&f, shift, F, x0, y0);
  int i;

  if (level < 0) {
    const int xa = max (x0, 0), ya = max (y0, 0);
    const int cols = min (x0 + F, width) - xa;
    const int rows = min (y0 + F, height) - ya;
    for (i = threadIdx.x; i < rows * cols * C; i += blockDim.x) {
      int y = ya + i / (cols * C), b = xa * C + i % (cols * C);
      dst[(size_t) y * dpitch + b] = src[(size_t) y * spitch + b];
    }
    return;
  }
  const int r = f.off[level - f.lo + 1] - f.off[level - f.lo] - 1;
  const Layout L (F, r, C, PACKED);
  float *w = (float *) smem4;
  float *tile = w + L.nt;
  float *h = tile + L.tile;

  for (i = threadIdx.x; i < L.nt; i += blockDim.x)
    w[i] = i > 2 * r ? 0.0f : f.w[f.off[level - f.lo] + abs (i - r)];
  /* a lane a column (one clamp), a warp a row, LOADS rows' reads in
   * flight before the first is used: the tile's load is the block's
   * longest wait, and dividing by the row length was a sixth of its
   * instructions */
  for (int col = threadIdx.x % 32; col < L.ts; col += 32) {
    const uint8_t *column = src + (size_t) co_fovea_clampi (x0 - r + col,
        width - 1) * C;
    const int nw = blockDim.x / 32;

    for (int row = threadIdx.x / 32; row < L.rows; row += LOADS * nw) {
      uint32_t v[LOADS][C];
#pragma unroll
      for (int u = 0; u < LOADS; u++) {
        const int rr = row + u * nw;
        if (rr >= L.rows)
          break;
        const uint8_t *p = column + (size_t) co_fovea_clampi (y0 - r + rr,
            height - 1) * spitch;
        if (C == 4 && word)
          v[u][0] = *(const uint32_t *) p;
        else
#pragma unroll
          for (int c = 0; c < C; c++)
            v[u][c] = p[c];
      }
#pragma unroll
      for (int u = 0; u < LOADS; u++) {
        const int j = (row + u * nw) * L.ts + col;
        Px < C > px;
        if (row + u * nw >= L.rows)
          break;
        if (PACKED) {
          uint32_t q = v[u][0];
          if (!(C == 4 && word))
#pragma unroll
            for (int c = 1; c < C; c++)
              q |= v[u][c] << (8 * c);
          ((uint32_t *) tile)[j] = q;
          continue;
        }
        if (C == 4 && word)
          px = unpack < C > (v[u][0]);
        else
#pragma unroll
          for (int c = 0; c < C; c++)
            px.v[c] = (float) v[u][c];
        store_px < C > (tile + j * C, px);
      }
    }
  }
  __syncthreads ();
  /* horizontal: a warp a column of K outputs, its lanes down the tile's
   * rows (no division by the row count) */
  for (int x = threadIdx.x / 32 * K; x < F; x += blockDim.x / 32 * K)
    for (int row = threadIdx.x % 32; row < L.rows; row += 32)
      if (PACKED)
        slide < C > (w, L.nt, Words < C > {
            (const uint32_t *) tile + row * L.ts + x}, h + row * L.hs + x * C,
            C);
      else
        slide < C > (w, L.nt, Floats < C > {
            tile + (row * L.ts + x) * C, C}, h + row * L.hs + x * C, C);
  __syncthreads ();
  /* vertical: K rows of one column a thread; lanes along the row (F is a
   * power of two) */
  const int lg = 31 - __clz (F);
  for (i = threadIdx.x; i < F * (F / K); i += blockDim.x) {
    const int x = i & (F - 1), y = (i >> lg) * K;
    Px < C > acc[K];

    slide < C > (w, L.nt, Floats < C > {
        h + y * L.hs + x * C, L.hs}, NULL, 0, acc);
    if (x0 + x < 0 || x0 + x >= width)
      continue;
#pragma unroll
    for (int o = 0; o < K; o++) {
      const int yy = y0 + y + o;
      if (yy < 0 || yy >= height)
        continue;
      uint8_t *p = dst + (size_t) yy * dpitch + (size_t) (x0 + x) * C;
      if (C == 4 && word)
        *(uint32_t *) p = co_fovea_round (acc[o].v[0]) |
            co_fovea_round (acc[o].v[1]) << 8 |
            co_fovea_round (acc[o].v[2]) << 16 |
            (uint32_t) co_fovea_round (acc[o].v[3]) << 24;
      else
#pragma unroll
        for (int ch = 0; ch < C; ch++)
          p[ch] = co_fovea_round (acc[o].v[ch]);
    }
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
      acc = co_fovea_mac (acc, w[k < 0 ? -k : k], co_fovea_hsum (src +
              (size_t) co_fovea_clampi (y + k, height - 1) * spitch, bpp,
              width, x, c, w, r));
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
    bool packed;

    co_plane_size (in->width, in->height, shift, &w, &h);
    co_fovea_tiling (f, shift, w, h, &F, &sx, &sy, &nx, &ny);
    rmax = f->rmax;
    /* floats where they fit, packed words where only they do */
    shared = Layout (F, rmax, bpp, false).bytes ();
    packed = shared > (size_t) shared_max ||
        f->path == CO_FOVEA_PATH_PACKED;
    if (packed)
      shared = Layout (F, rmax, bpp, true).bytes ();
    if (shared <= (size_t) shared_max && f->path != CO_FOVEA_PATH_DIRECT) {
      dim3 grid (nx, ny);
      /* the horizontal pass's rows, K outputs each, a thread apiece for
       * the common radii */
      int block = F <= 8 ? 64 : F <= 16 ? 128 : 256;
      /* RGBA words straight from and to the frames where they are
       * aligned */
      bool word = ((uintptr_t) in->data[p] | (uintptr_t) in->pitch[p] |
          (uintptr_t) out->data[p] | (uintptr_t) out->pitch[p]) % 4 == 0;
      /* past 48 KB a kernel must ask for its shared memory */
#define LAUNCH(C, P) ((shared <= SHARED_DEFAULT || (err = \
          cudaFuncSetAttribute (fovea_tiles < C, P >, \
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shared)) == \
          cudaSuccess) ? (void) (fovea_tiles < C, P > <<< grid, block, \
          shared, st >>> (*f, in->data[p], in->pitch[p], out->data[p], \
          out->pitch[p], w, h, shift, F, sx, sy, word)) : (void) 0)
#define TILES(C) (packed ? LAUNCH (C, true) : LAUNCH (C, false))
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
#undef LAUNCH
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

