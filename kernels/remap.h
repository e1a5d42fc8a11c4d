/* cudaoptics — LGPL-2.1-or-later
 *
 * The generic backward-mapping remap every geometric element shares
 * (co_remap.h holds the entry encoding and the samplers): table layout,
 * tables from a float map of source positions, and the remap itself, as C
 * references (always built) and CUDA launchers (built with the cuda
 * option).  Callers own all memory: co_lut_layout_full() says how large
 * each table is; the caller allocates it on the host (CPU functions) or on
 * the device (CUDA functions).  CUDA launchers take the caller's
 * cudaStream_t as void *, launch, and return the cudaError_t of the launch
 * as an int (0 = success); they never allocate, copy, print or synchronise.
 *
 * CO_LUT_COMPUTE has no table: only an element that can evaluate its map
 * per pixel remaps with it (cudalensdistort: lensdistort.h).
 */
#ifndef CO_REMAP_API_H
#define CO_REMAP_API_H

#include <stddef.h>
#include "co_remap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Output of dst_w x dst_h pixels sampling a src_w x src_h frame, both of
 * @format: fills sizes, pitches and fractional bits (from the source),
 * leaves the pointers NULL. */
void co_lut_layout_full (CoLut * lut, CoLutMode mode, CoInterp interp,
    CoEdge edge, CoFormat format, int dst_w, int dst_h, int src_w, int src_h);
/* Same size in and out, off-edge border. */
void co_lut_layout (CoLut * lut, CoLutMode mode, CoInterp interp,
    CoFormat format, int width, int height);
/* Adds the red and blue geometries of a chromatic table (co_remap.h);
 * 0 (and nothing changed) when the format has no separate colour channels
 * in one plane. */
int co_lut_set_chroma (CoLut * lut);
/* Bytes of one table of geometry g (0 for CO_LUT_COMPUTE or a geometry
 * @lut does not have). */
size_t co_lut_table_bytes (const CoLut * lut, int g);

/* The tables of geometry g from source positions x, y (map_pitch floats a
 * row, plane[g].width x plane[g].height of them, NaN: no source pixel).
 * Compressed: encoded; two-table: copied.  Padding is written unmapped. */
void co_lut_from_map_cpu (const CoLut * lut, int g, const float *x,
    const float *y, int map_pitch);
/* Remaps every plane of @in into @out through the tables (not COMPUTE).
 * @out has the table's size, @in the source size. */
void co_remap_cpu (const CoLut * lut, const CoFrame * in, CoFrame * out,
    const uint32_t border[CO_MAX_PLANES]);

int co_lut_from_map_cuda (const CoLut * lut, int g, const float *x,
    const float *y, int map_pitch, void *stream);
int co_remap_cuda (const CoLut * lut, const CoFrame * in, CoFrame * out,
    const uint32_t border[CO_MAX_PLANES], void *stream);

/* The C reference's rows run in parallel under OpenMP from this many
 * pixels a plane: below it waking the team costs more than it saves
 * (320x240 RGBA: 11 ms with the team against 2.7 ms alone on 2 loaded
 * cores). */
#define CO_PARALLEL_MIN_PIXELS (256 * 256)

#ifdef __cplusplus
}
#endif
#endif /* CO_REMAP_API_H */
