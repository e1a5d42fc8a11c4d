/* cudaoptics — LGPL-2.1-or-later
 *
 * co-clt-kernels: writes a cudaaberration kernel file (CO-CLTK,
 * common/gstcocltkernels.h) from a parametric lens: a PSF that widens
 * towards the corners (Gaussian or defocus disk), lateral colour (a radial
 * magnification per colour) and a camera's Brown-Conrady distortion, with
 * the same parameters as cudalensdistort's model=camera.  Each node holds
 * the Wiener inverse of its PSF (kernels/clt_build.h) and the shift that
 * undoes the colour's displacement and the distortion.
 *
 *   co-clt-kernels --size 2592x1936 --sigma0 0.7 --sigma1 1.2 \
 *       --chroma-red 1.0008 --chroma-blue 0.9993 --k1 -0.12 --nsr 0.03 \
 *       --bayer -o lens.cltk
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "clt_build.h"
#include "gstcocltkernels.h"

int
main (int argc, char **argv)
{
  gchar *size = NULL, *output = NULL;
  gint stride = 16, colours = 3;
  gboolean bayer = FALSE;
  gdouble sigma0 = 0.7, sigma1 = 0.0, defocus0 = 0.0, defocus1 = 0.0;
  gdouble red = 1.0, blue = 1.0, k1 = 0, k2 = 0, p1 = 0, p2 = 0, k3 = 0;
  gdouble fx = 0, fy = 0, cx = -1, cy = -1, nsr = 0.03, lpf = 0.0;
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
    {"k2", 0, 0, G_OPTION_ARG_DOUBLE, &k2, NULL, "K"},
    {"k3", 0, 0, G_OPTION_ARG_DOUBLE, &k3, NULL, "K"},
    {"p1", 0, 0, G_OPTION_ARG_DOUBLE, &p1, NULL, "P"},
    {"p2", 0, 0, G_OPTION_ARG_DOUBLE, &p2, NULL, "P"},
    {"fx", 0, 0, G_OPTION_ARG_DOUBLE, &fx, "Focal lengths, pixels (0: the "
          "width)", "F"},
    {"fy", 0, 0, G_OPTION_ARG_DOUBLE, &fy, NULL, "F"},
    {"cx", 0, 0, G_OPTION_ARG_DOUBLE, &cx, "Principal point (-1: the "
          "centre)", "C"},
    {"cy", 0, 0, G_OPTION_ARG_DOUBLE, &cy, NULL, "C"},
    {"nsr", 0, 0, G_OPTION_ARG_DOUBLE, &nsr, "Wiener noise-to-signal ratio; "
          "0: no deconvolution, only shifts (0.03)", "R"},
    {"lpf-sigma", 0, 0, G_OPTION_ARG_DOUBLE, &lpf, "Gaussian low-pass folded "
          "into the kernels, pixels (0)", "S"},
    {"bayer", 0, 0, G_OPTION_ARG_NONE, &bayer, "Kernels for raw Bayer "
          "planes: each also interpolates its colour", NULL},
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The kernel file to "
          "write", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- write a cudaaberration "
      "kernel file from a parametric lens");
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
      for (c = 0; c < colours; c++)
        co_clt_lens_node (&lens, (double) i * stride, (double) j * stride,
            colours == 3 ? c : 1, (gfloat *) gst_co_clt_kernels_node (&k, i,
                j, c));
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
  return 0;
}
