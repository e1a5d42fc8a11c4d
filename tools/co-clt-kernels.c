/* cudaoptics — LGPL-2.1-or-later
 *
 * co-clt-kernels: writes a cudaaberration kernel file (CO-CLTK,
 * common/sources/gstcocltkernels.h) from a parametric lens: a PSF that widens
 * towards the corners (Gaussian or defocus disk), lateral colour (a radial
 * magnification per colour) and a camera's Brown-Conrady distortion, with
 * the same parameters as cudalensdistort's model=camera.  Each node holds
 * the Wiener inverse of its PSF (kernels/clt_build.h) and the shift that
 * undoes the colour's displacement and the distortion.
 *
 *   co-clt-kernels --size 2592x1936 --sigma0 0.7 --sigma1 1.2 \
 *       --chroma-red 1.0008 --chroma-blue 0.9993 --k1 -0.12 --nsr 0.03 \
 *       --bayer -o lens.cltk
 *
 * Or from measured PSFs: --psf-grid names a picture (any format GStreamer
 * decodes; red, green and blue channels are the colours' PSFs, grey is all
 * three) cut into --psf-cells C x R equal cells.  Cell (i, j) holds the
 * PSF seen at frame point ((i + 0.5) W / C - 0.5, (j + 0.5) H / R - 0.5),
 * a point source imaged there: its centre pixel (cell_w / 2, cell_h / 2)
 * is where an undisplaced PSF is centred, so its centroid's offset from
 * that pixel is the lens' displacement there (lateral colour, distortion).
 * Each cell's background (the mean of its border pixels) is subtracted and
 * the rest normalised; a node takes the bilinear blend of the four cells
 * around it, then its Wiener inverse as for the parametric lens.
 *
 *   co-clt-kernels --size 2592x1936 --psf-grid psfs.png --psf-cells 9x7 \
 *       --nsr 0.03 --bayer -o lens.cltk
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <glib.h>

#include "clt_build.h"
#include "gstcocltkernels.h"
#include "gstcoimage.h"

/* Measured PSFs: C x R cells of n x n doubles per colour (n odd, at most
 * 31), each normalised. */
typedef struct
{
  gint cols, rows, n;
  gdouble *psf;                 /* [(j * cols + i) * 3 + c][n * n] */
} PsfGrid;

static gboolean
psf_grid_load (const gchar * path, const gchar * cells, PsfGrid * g)
{
  gchar *why = NULL;
  gint w, h, cw, ch, i, j, c, x, y;
  guint8 *rgb;

  if (!cells || sscanf (cells, "%dx%d", &g->cols, &g->rows) != 2 ||
      g->cols < 1 || g->rows < 1 || g->cols > 4096 || g->rows > 4096) {
    g_printerr ("--psf-grid needs --psf-cells CxR\n");
    return FALSE;
  }
  rgb = gst_co_decode_rgb (path, &w, &h, &why);
  if (!rgb) {
    g_printerr ("%s: %s\n", path, why);
    g_free (why);
    return FALSE;
  }
  cw = w / g->cols;
  ch = h / g->rows;
  if (cw * g->cols != w || ch * g->rows != h || cw < 3 || ch < 3) {
    g_printerr ("%s: %dx%d does not split into %dx%d cells of 3x3 pixels "
        "or more\n", path, w, h, g->cols, g->rows);
    g_free (rgb);
    return FALSE;
  }
  /* the largest odd window about the cell's centre pixel */
  g->n = MIN (MIN (cw / 2, cw - 1 - cw / 2), MIN (ch / 2, ch - 1 - ch / 2));
  g->n = MIN (2 * g->n + 1, 31);
  g->psf = g_new (gdouble, (gsize) g->cols * g->rows * 3 * g->n * g->n);
  for (j = 0; j < g->rows; j++)
    for (i = 0; i < g->cols; i++)
      for (c = 0; c < 3; c++) {
        gdouble *p = g->psf + ((gsize) (j * g->cols + i) * 3 + c) * g->n *
            g->n, bg = 0, sum = 0;
        const gint x0 = i * cw + cw / 2 - g->n / 2;
        const gint y0 = j * ch + ch / 2 - g->n / 2;
        gint nb = 0;
#define PIX(xx, yy) rgb[3 * ((gsize) (yy) * w + (xx)) + c]
        for (x = 0; x < cw; x++, nb += 2)
          bg += PIX (i * cw + x, j * ch) + PIX (i * cw + x, j * ch + ch - 1);
        for (y = 1; y < ch - 1; y++, nb += 2)
          bg += PIX (i * cw, j * ch + y) + PIX (i * cw + cw - 1, j * ch + y);
        bg /= nb;
        for (y = 0; y < g->n; y++)
          for (x = 0; x < g->n; x++) {
            gdouble v = PIX (x0 + x, y0 + y) - bg;
            p[y * g->n + x] = v > 0 ? v : 0;
            sum += p[y * g->n + x];
          }
#undef PIX
        if (sum <= 0) {
          g_printerr ("%s: cell %d,%d has no light in colour %d\n", path, i,
              j, c);
          g_free (rgb);
          return FALSE;
        }
        for (x = 0; x < g->n * g->n; x++)
          p[x] /= sum;
      }
  g_free (rgb);
  return TRUE;
}

/* The PSF of colour @c at frame point (@x, @y) of a w x h frame: the
 * bilinear blend of the four cells around it. */
static void
psf_grid_at (const PsfGrid * g, gint w, gint h, gdouble x, gdouble y, gint c,
    gdouble * psf)
{
  const gdouble u = CLAMP ((x + 0.5) * g->cols / w - 0.5, 0, g->cols - 1);
  const gdouble v = CLAMP ((y + 0.5) * g->rows / h - 0.5, 0, g->rows - 1);
  const gint i0 = (gint) u, j0 = (gint) v;
  const gint i1 = MIN (i0 + 1, g->cols - 1), j1 = MIN (j0 + 1, g->rows - 1);
  const gdouble fu = u - i0, fv = v - j0;
  const gint nn = g->n * g->n;
  const gdouble *p00 = g->psf + ((gsize) (j0 * g->cols + i0) * 3 + c) * nn;
  const gdouble *p10 = g->psf + ((gsize) (j0 * g->cols + i1) * 3 + c) * nn;
  const gdouble *p01 = g->psf + ((gsize) (j1 * g->cols + i0) * 3 + c) * nn;
  const gdouble *p11 = g->psf + ((gsize) (j1 * g->cols + i1) * 3 + c) * nn;
  gint k;

  for (k = 0; k < nn; k++)
    psf[k] = (1 - fv) * ((1 - fu) * p00[k] + fu * p10[k]) +
        fv * ((1 - fu) * p01[k] + fu * p11[k]);
}

int
main (int argc, char **argv)
{
  gchar *size = NULL, *output = NULL;
  gint stride = 16, colours = 3;
  gboolean bayer = FALSE;
  gdouble sigma0 = 0.7, sigma1 = 0.0, defocus0 = 0.0, defocus1 = 0.0;
  gdouble red = 1.0, blue = 1.0, k1 = 0, k2 = 0, p1 = 0, p2 = 0, k3 = 0;
  gdouble fx = 0, fy = 0, cx = -1, cy = -1, nsr = 0.03, lpf = 0.0;
  gchar *psf_grid = NULL, *psf_cells = NULL;
  PsfGrid grid = { 0 };
  GOptionEntry entries[] = {
    {"size", 0, 0, G_OPTION_ARG_STRING, &size, "Frame size (required)",
        "WxH"},
    {"stride", 0, 0, G_OPTION_ARG_INT, &stride, "Pixels between kernel "
          "nodes (16)", "N"},
    {"colours", 0, 0, G_OPTION_ARG_INT, &colours, "1 (one kernel for all) or "
          "3 (red, green, blue; default)", "N"},
    {"sigma0", 0, 0, G_OPTION_ARG_DOUBLE, &sigma0, "Gaussian PSF sigma at the "
          "centre, pixels (0.7)", "S"},
    {"sigma1", 0, 0, G_OPTION_ARG_DOUBLE, &sigma1, "Added sigma in the "
          "corners, growing as r^2 (0)", "S"},
    {"defocus0", 0, 0, G_OPTION_ARG_DOUBLE, &defocus0, "Defocus disk radius "
          "at the centre: a disk PSF instead of a Gaussian (0)", "R"},
    {"defocus1", 0, 0, G_OPTION_ARG_DOUBLE, &defocus1, "Added disk radius in "
          "the corners (0)", "R"},
    {"chroma-red", 0, 0, G_OPTION_ARG_DOUBLE, &red, "Red's radial "
          "magnification against green's (1)", "M"},
    {"chroma-blue", 0, 0, G_OPTION_ARG_DOUBLE, &blue, "Blue's (1)", "M"},
    {"k1", 0, 0, G_OPTION_ARG_DOUBLE, &k1, "Distortion, as cudalensdistort "
          "model=camera", "K"},
    {"k2", 0, 0, G_OPTION_ARG_DOUBLE, &k2, "Radial distortion, r^4", "K"},
    {"k3", 0, 0, G_OPTION_ARG_DOUBLE, &k3, "Radial distortion, r^6", "K"},
    {"p1", 0, 0, G_OPTION_ARG_DOUBLE, &p1, "Tangential distortion", "P"},
    {"p2", 0, 0, G_OPTION_ARG_DOUBLE, &p2, "Tangential distortion", "P"},
    {"fx", 0, 0, G_OPTION_ARG_DOUBLE, &fx, "Focal lengths, pixels (0: the "
          "width)", "F"},
    {"fy", 0, 0, G_OPTION_ARG_DOUBLE, &fy, "Vertical focal length, pixels (0 as for --fx)", "F"},
    {"cx", 0, 0, G_OPTION_ARG_DOUBLE, &cx, "Principal point (-1: the "
          "centre)", "C"},
    {"cy", 0, 0, G_OPTION_ARG_DOUBLE, &cy, "Principal point, vertical (-1: the centre)", "C"},
    {"nsr", 0, 0, G_OPTION_ARG_DOUBLE, &nsr, "Wiener noise-to-signal ratio; "
          "0: no deconvolution, only shifts (0.03)", "R"},
    {"lpf-sigma", 0, 0, G_OPTION_ARG_DOUBLE, &lpf, "Gaussian low-pass folded "
          "into the kernels, pixels (0)", "S"},
    {"bayer", 0, 0, G_OPTION_ARG_NONE, &bayer, "Kernels for raw Bayer "
          "planes: each also interpolates its colour", NULL},
    {"psf-grid", 0, 0, G_OPTION_ARG_FILENAME, &psf_grid, "Measured PSFs: a "
          "picture of --psf-cells cells, one PSF each (instead of the "
          "sigma, defocus and chroma options)", "FILE"},
    {"psf-cells", 0, 0, G_OPTION_ARG_STRING, &psf_cells, "Cells across and "
          "down the --psf-grid picture, spread evenly over the frame", "CxR"},
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The kernel file to "
          "write", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- write a cudaaberration "
      "kernel file from a parametric lens or a picture of measured PSFs");
  GError *err = NULL;
  GstCoCltKernels k;
  CoCltLens lens;
  GBytes *bytes;
  gint w = 0, h = 0, i, j, c;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  if (!size || sscanf (size, "%dx%d", &w, &h) != 2 || w < 1 || h < 1 ||
      w > GST_CO_CLT_KERNELS_MAX_SIZE || h > GST_CO_CLT_KERNELS_MAX_SIZE ||
      !output || stride < 1 || stride > GST_CO_CLT_KERNELS_MAX_STRIDE ||
      (colours != 1 && colours != 3) || nsr < 0 || lpf < 0 ||
      sigma0 < 0 || sigma1 < 0 || defocus0 < 0 || defocus1 < 0 ||
      red <= 0 || blue <= 0) {
    gchar *help = g_option_context_get_help (ctx, TRUE, NULL);
    g_printerr ("--size WxH and -o FILE are required; sizes 1..%d, stride "
        "1..%d, colours 1 or 3, nothing negative\n\n%s",
        GST_CO_CLT_KERNELS_MAX_SIZE, GST_CO_CLT_KERNELS_MAX_STRIDE, help);
    g_free (help);
    return 2;
  }
  if (psf_grid) {
    gst_init (NULL, NULL);
    if ((red != 1.0 || blue != 1.0) && psf_grid) {
      g_printerr ("with --psf-grid, lateral colour is measured: no "
          "--chroma-red or --chroma-blue\n");
      return 2;
    }
    if (!psf_grid_load (psf_grid, psf_cells, &grid))
      return 1;
  }
  co_clt_lens_init (&lens, w, h);
  lens.sigma0 = sigma0;
  lens.sigma1 = sigma1;
  lens.defocus0 = defocus0;
  lens.defocus1 = defocus1;
  lens.chroma[0] = red;
  lens.chroma[2] = blue;
  lens.dist[0] = k1;
  lens.dist[1] = k2;
  lens.dist[2] = p1;
  lens.dist[3] = p2;
  lens.dist[4] = k3;
  lens.fx = fx;
  lens.fy = fy;
  lens.cx = cx;
  lens.cy = cy;
  lens.nsr = nsr;
  lens.lpf_sigma = lpf;
  lens.bayer = bayer;
  k.colours = colours;
  k.stride = stride;
  k.width = w;
  k.height = h;
  k.grid_w = (w - 1 + stride - 1) / stride + 1;
  k.grid_h = (h - 1 + stride - 1) / stride + 1;
  if ((gint64) k.grid_w * k.grid_h * colours *
      GST_CO_CLT_KERNELS_NODE_FLOATS > GST_CO_CLT_KERNELS_MAX_FLOATS ||
      k.grid_w > GST_CO_CLT_KERNELS_MAX_GRID ||
      k.grid_h > GST_CO_CLT_KERNELS_MAX_GRID) {
    g_printerr ("a %dx%d grid is too large: use a larger --stride\n",
        k.grid_w, k.grid_h);
    return 2;
  }
  k.nodes = g_new (gfloat, (gsize) k.grid_w * k.grid_h * colours *
      GST_CO_CLT_KERNELS_NODE_FLOATS);
  for (j = 0; j < k.grid_h; j++)
    for (i = 0; i < k.grid_w; i++)
      for (c = 0; c < colours; c++) {
        const gint cc = colours == 3 ? c : 1;
        gfloat *node = (gfloat *) gst_co_clt_kernels_node (&k, i, j, c);
        if (grid.psf) {
          gdouble psf[31 * 31], dx, dy;
          psf_grid_at (&grid, w, h, (double) i * stride, (double) j * stride,
              cc, psf);
          /* the distortion, if given; the colour's shift is measured */
          co_clt_lens_shift (&lens, (double) i * stride, (double) j * stride,
              cc, &dx, &dy);
          co_clt_psf_node (&lens, psf, grid.n, dx, dy, cc, node);
        } else {
          co_clt_lens_node (&lens, (double) i * stride, (double) j * stride,
              cc, node);
        }
      }
  bytes = gst_co_clt_kernels_serialize (&k);
  if (!g_file_set_contents (output, g_bytes_get_data (bytes, NULL),
          g_bytes_get_size (bytes), &err)) {
    g_printerr ("%s\n", err->message);
    return 1;
  }
  g_print ("%s: %dx%d nodes at stride %d for %dx%d, %d colour%s, %"
      G_GSIZE_FORMAT " bytes\n", output, k.grid_w, k.grid_h, stride, w, h,
      colours, colours > 1 ? "s" : "", g_bytes_get_size (bytes));
  g_bytes_unref (bytes);
  gst_co_clt_kernels_clear (&k);
  g_option_context_free (ctx);
  g_free (size);
  g_free (output);
  g_free (psf_grid);
  g_free (psf_cells);
  g_free (grid.psf);
  return 0;
}
