/* cudaoptics — LGPL-2.1-or-later
 *
 * cudaaberration's transform over whole planes (clt_math.h has one tile):
 * the C reference, the oracle of the CUDA side.
 *
 * A w x h float plane has tiles_x x tiles_y tiles (co_clt_tiles); tile
 * (tx, ty) nominally starts at pixel (8 tx - 8, 8 ty - 8), so every pixel
 * of the plane lies in four tiles and forward then inverse gives it back
 * (to float rounding), borders included.  Samples up to 16 pixels
 * outside the plane are its reflection about the edge pixel, farther ones
 * 0 (co_clt_source).  Coefficients are stored tile by tile, row-major, 256 floats each
 * (clt_math.h's [q][kv][kh]).
 */
#ifndef CO_CLT_H
#define CO_CLT_H

#include <stddef.h>
#include "clt_math.h"

#ifdef __cplusplus
extern "C" {
#endif

void co_clt_tiles (int w, int h, int *tiles_x, int *tiles_y);

/* The CLT of every tile of @img (@pitch floats a row).  With @dx, @dy
 * (one float per tile, or NULL), tile i samples the plane @dx[i], @dy[i]
 * pixels further on: its integer part moves the 16x16 window, the rest
 * (within +-0.5) shifts the window function and rotates the phases, so
 * the inverse gives out(x, y) = img(x + dx, y + dy) for band-limited
 * images. */
void co_clt_forward_cpu (const float *img, int w, int h, int pitch,
    const float *dx, const float *dy, float *clt);
/* The same for the tiles whose @on is not 0 (NULL: every tile); the
 * others' coefficients stay as they were (max-shift's tries) */
void co_clt_forward_some_cpu (const float *img, int w, int h, int pitch,
    const float *dx, const float *dy, const float *on, float *clt);
/* Where the colours of @bayer sit in its 2x2 cell: red at (*rx, *ry),
 * blue at (*bx, *by), green where x + y has the parity *g. */
void co_clt_bayer_sites (CoBayer bayer, int *rx, int *ry, int *bx, int *by,
    int *g);
/* The CLT of each colour of a raw Bayer plane: samples of @bps bytes (1, or
 * 2 little-endian), @pitch bytes a row, times @scale; colour c (0 red,
 * 1 green, 2 blue) into @clt[c], tile by tile as co_clt_forward_cpu, the
 * other colours' sites counting as zero.  @roi (x, y, width, height;
 * NULL: the frame): the tiles are those of a plane of the region's size
 * laid from its corner, reading the whole w x h frame.  @dx, @dy: 3 floats
 * a tile (red, green, blue), or NULL.  Uses the Bayer shortcut: 4
 * transforms a tile. */
void co_clt_forward_bayer_cpu (const uint8_t * raw, int w, int h, int pitch,
    int bps, float scale, CoBayer bayer, const int *roi, const float *dx,
    const float *dy, float *const clt[3]);
/* A grid of kernel nodes (gstcocltkernels.h's layout: @gw x @gh nodes,
 * @colours of 258 floats each: dx, dy, 4 x 8 x 8) as the tiles of a w x h
 * region at (@x0, @y0) of the frame use it: each tile's shift per colour
 * (3 floats a tile into @dx, @dy; a one-colour grid serves all three), the
 * nodes' offsets interpolated bilinearly at the tile's centre, for the
 * forward transforms.  (The kernel itself is the nearest node's.) */
void co_clt_tile_shifts (const float *nodes, int gw, int gh, int stride,
    int colours, int x0, int y0, int w, int h, float *dx, float *dy);
/* Colour @c's tiles (of a w x h region at @x0, @y0) multiplied by the
 * kernel of their node */
void co_clt_convolve_grid_cpu (float *clt, int x0, int y0, int w, int h,
    const float *nodes, int gw, int gh, int stride, int colours, int c);
int co_clt_convolve_grid_cuda (float *clt, int x0, int y0, int w, int h,
    const float *nodes, int gw, int gh, int stride, int colours, int c,
    void *stream);
/* Every tile multiplied by @kernel (4 x 8 x 8) */
void co_clt_convolve_cpu (float *clt, int n_tiles, const float *kernel);
/* Back to a w x h plane by overlap-add, in four passes of tiles that do not
 * overlap (even rows and columns first), as the CUDA side does. */
void co_clt_inverse_cpu (const float *clt, int w, int h, float *out,
    int pitch);

/* The three colour planes (red, green, blue; @fpitch floats a row, 1 =
 * full scale) of region @roi (x, y, width, height; NULL: the frame)
 * packed into @out (RGBA, BGRA, RGBx, BGRx, RGB or RGBA64_LE), as
 * co_clt_pack_pixel does; outside the region, opaque black. */
void co_clt_pack_cpu (const float *const planes[3], int fpitch,
    const int *roi, const CoFrame * out);
int co_clt_pack_cuda (const float *const planes[3], int fpitch,
    const int *roi, const CoFrame * out, void *stream);

/* The same on the device, on @stream (a cudaStream_t): every pointer device
 * memory, the same bits as the C reference.  They return the cudaError_t of
 * the launches (0 = success), never synchronise. */
int co_clt_forward_cuda (const float *img, int w, int h, int pitch,
    const float *dx, const float *dy, float *clt, void *stream);
int co_clt_forward_some_cuda (const float *img, int w, int h, int pitch,
    const float *dx, const float *dy, const float *on, float *clt,
    void *stream);
int co_clt_inverse_cuda (const float *clt, int w, int h, float *out,
    int pitch, void *stream);
int co_clt_forward_bayer_cuda (const uint8_t * raw, int w, int h, int pitch,
    int bps, float scale, CoBayer bayer, const int *roi, const float *dx,
    const float *dy, float *const clt[3], void *stream);
/* co_clt_forward_bayer, co_clt_convolve_grid (x0, y0 the region's) and
 * co_clt_inverse of the three colours in one chain that keeps each tile on
 * the chip: the same bits into @planes (@fpitch floats a row, the
 * region's size), without the coefficient planes. */
int co_clt_chain_bayer_cuda (const uint8_t * raw, int w, int h, int pitch,
    int bps, float scale, CoBayer bayer, const int *roi, const float *dx,
    const float *dy, const float *nodes, int gw, int gh, int stride,
    int colours, float *const planes[3], int fpitch, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* CO_CLT_H */
