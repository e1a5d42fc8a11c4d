/* cudaoptics — LGPL-2.1-or-later */

/* cudaaberration's kernel files: a grid of space-variant kernels in the CLT
 * domain (kernels/clt_math.h), per colour.  GLib only, so the fuzzer links
 * it alone.
 *
 * Format CO-CLTK version 1, little-endian throughout:
 *   bytes 0..7    "CO-CLTK\n"
 *   u32 version   1
 *   u32 colours   1 (one kernel for every colour) or 3 (red, green, blue)
 *   u32 grid_w, grid_h   kernel nodes across and down, 1..4096 each
 *   u32 stride    pixels between nodes, 1..1024 (the paper: 16)
 *   u32 width, height    the frame the grid was made for, 1..65536; node
 *                 (i, j) sits at pixel (i * stride, j * stride), and the
 *                 nodes must reach the last pixel:
 *                 (grid_w - 1) * stride >= width - 1 (and in y)
 *   u32 reserved  0
 *   then grid_h rows of grid_w nodes, each holding per colour:
 *     f32 dx, dy  where the kernel moves the picture, in pixels (|d| <= 64):
 *                 applied exactly, as a shift of the tile (window shift and
 *                 phase rotation), not through the coefficients
 *     f32 k[256]  the kernel's four 8x8 layers CC SC CS SS, [q][kv][kh]
 *   Every number finite; the file exactly that long.
 */

#ifndef __GST_CO_CLT_KERNELS_H__
#define __GST_CO_CLT_KERNELS_H__

#include <glib.h>

G_BEGIN_DECLS

#define GST_CO_CLT_KERNELS_MAGIC "CO-CLTK\n"
#define GST_CO_CLT_KERNELS_VERSION 1
#define GST_CO_CLT_KERNELS_HEADER 40
#define GST_CO_CLT_KERNELS_NODE_FLOATS 258       /* dx, dy, 256 */
#define GST_CO_CLT_KERNELS_MAX_GRID 4096
#define GST_CO_CLT_KERNELS_MAX_STRIDE 1024
#define GST_CO_CLT_KERNELS_MAX_SIZE 65536
#define GST_CO_CLT_KERNELS_MAX_SHIFT 64.0f
/* more would not fit in memory anyway: 64 Mi floats (256 MiB) */
#define GST_CO_CLT_KERNELS_MAX_FLOATS (64u << 20)

typedef struct
{
  gint colours, grid_w, grid_h, stride, width, height;
  /* grid_h * grid_w * colours nodes of 258 floats: dx, dy, 256 layers */
  gfloat *nodes;
} GstCoCltKernels;

#define GST_CO_CLT_KERNELS_ERROR (gst_co_clt_kernels_error_quark ())

typedef enum
{
  GST_CO_CLT_KERNELS_ERROR_READ,
  GST_CO_CLT_KERNELS_ERROR_PARSE,
} GstCoCltKernelsError;

GQuark gst_co_clt_kernels_error_quark (void);

gboolean gst_co_clt_kernels_parse (const guint8 * data, gsize len,
    GstCoCltKernels * k, GError ** error);
gboolean gst_co_clt_kernels_load (const gchar * path, GstCoCltKernels * k,
    GError ** error);
/* The bytes of a file holding @k (for the kernel tool and the tests). */
GBytes *gst_co_clt_kernels_serialize (const GstCoCltKernels * k);
/* Node (@i, @j), colour @c: dx, dy, then 256 coefficients. */
static inline const gfloat *
gst_co_clt_kernels_node (const GstCoCltKernels * k, gint i, gint j, gint c)
{
  return k->nodes + (((gsize) j * k->grid_w + i) * k->colours + c) *
      GST_CO_CLT_KERNELS_NODE_FLOATS;
}
void gst_co_clt_kernels_clear (GstCoCltKernels * k);

G_END_DECLS

#endif /* __GST_CO_CLT_KERNELS_H__ */
