/* cudaoptics — LGPL-2.1-or-later
 *
 * bench-clt's pixel-domain baseline: a direct space-variant convolution of
 * each colour of a Bayer mosaic with a 16x16 kernel per node of a
 * stride-16 grid, one thread an output pixel and colour.  Benchmark code:
 * arbitrary kernels, timed only.
 */
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void
direct_kernel (const uint8_t * raw, int w, int h, const float *kern, int gw,
    int gh, float *out_r, float *out_g, float *out_b)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int c = blockIdx.z;
  if (x >= w || y >= h)
    return;
  int gi = (x + 8) / 16, gj = (y + 8) / 16;
  gi = gi < gw ? gi : gw - 1;
  gj = gj < gh ? gj : gh - 1;
  const float *k = kern + ((size_t) (gj * gw + gi) * 3 + c) * 256;
  float acc = 0.0f;
  for (int j = 0; j < 16; j++) {
    const int sy = y + j - 8;
    if (sy < 0 || sy >= h)
      continue;
    for (int i = 0; i < 16; i++) {
      const int sx = x + i - 8;
      /* RGGB: the colour's own sites only */
      const int site = c == 1 ? ((sx + sy) & 1) : c == 0 ?
          !((sx & 1) | (sy & 1)) : ((sx & 1) & (sy & 1));
      if (sx >= 0 && sx < w && site)
        acc += k[j * 16 + i] * (float) raw[(size_t) sy * w + sx];
    }
  }
  (c == 0 ? out_r : c == 1 ? out_g : out_b)[(size_t) y * w + x] = acc;
}

extern "C" int
bench_clt_direct (const uint8_t * raw, int w, int h, const float *kern,
    int gw, int gh, float *out[3], void *stream)
{
  dim3 block (32, 8), grid ((w + 31) / 32, (h + 7) / 8, 3);
  direct_kernel <<<grid, block, 0, (cudaStream_t) stream>>> (raw, w, h, kern,
      gw, gh, out[0], out[1], out[2]);
  return cudaGetLastError ();
}
