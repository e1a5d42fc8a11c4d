/* cudaoptics — LGPL-2.1-or-later
 *
 * bench-correlate's baseline (correlate-baselines.cu): the conventional GPU
 * method, cuFFT per-tile phase correlation, on cudacltcorrelate's tile grid
 * (co_clt_tiles: 16x16 tiles stepped by 8 pixels, tile (tx, ty) at pixel
 * (8 tx - 8, 8 ty - 8)).  cuFFT is opened at run time (dlopen), never
 * linked: the build does not need it.
 */
#ifndef BENCH_CORRELATE_BASELINES_H
#define BENCH_CORRELATE_BASELINES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BenchPcorr BenchPcorr;

/* Opens cuFFT (libcufft.so.12, .13, .11, unversioned, then the same under
 * /usr/local/cuda/lib64/); 0, with the name opened in @path and cuFFT's
 * version in *version, or -1 when there is none. */
int bench_pcorr_open (char *path, size_t size, int *version);

/* The buffers and plans for w x h planes, @n_slots cameras' spectra: NULL
 * after printing the failed call (CUDA or cuFFT status). */
BenchPcorr *bench_pcorr_new (int w, int h, int n_slots);
int bench_pcorr_n_tiles (const BenchPcorr * p);
void bench_pcorr_free (BenchPcorr * p);

/* The forward step of one camera (GRAY8 @gray, @pitch bytes a row, on the
 * device) into spectrum slot @slot: every tile gathered (coordinates
 * clamped to the frame, not reflected), scaled to 0..1 and multiplied by a
 * 2D Hann window, then one batched real-to-complex 16x16 FFT. */
int bench_pcorr_forward (BenchPcorr * p, const uint8_t * gray, int pitch,
    int slot, void *stream);
/* Slots @a and @b correlated: the normalised cross-power a conj(b) /
 * (|a conj(b)| + eps), a batched complex-to-real 16x16 FFT back, and per
 * tile the argmax with a parabola per axis through it and its cyclic
 * neighbours: b's content shift against a's in @dx, @dy (as
 * co_clt_correlate_cuda's), the peak (1 = perfect match) in @strength;
 * n_tiles floats each, device memory. */
int bench_pcorr_correlate (BenchPcorr * p, int a, int b, float *dx,
    float *dy, float *strength, void *stream);

/* Each returns 0, or -1 after printing the failed call. */

/* One step of those alone, for the breakdown: the gather of @gray into the
 * batch, its R2C into slot @a, the cross-power of slots @a and @b, its
 * C2R (which may scratch the cross-power: time it for its cost, not its
 * values), the peaks into @dx, @dy, @strength. */
typedef enum
{
  BENCH_PCORR_GATHER, BENCH_PCORR_R2C, BENCH_PCORR_CROSS, BENCH_PCORR_C2R,
  BENCH_PCORR_PEAK
} BenchPcorrStep;
int bench_pcorr_step (BenchPcorr * p, BenchPcorrStep step,
    const uint8_t * gray, int pitch, int a, int b, float *dx, float *dy,
    float *strength, void *stream);

#ifdef __cplusplus
}
#endif
#endif
