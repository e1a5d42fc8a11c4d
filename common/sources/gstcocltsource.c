/* cudaoptics — LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include "gstcocltsource.h"
#include "clt.h"
#include "clt_build.h"

/* Whether kernels @k (of @path) cover a @w x @h frame */
static gboolean
covers (const GstCoCltKernels * k, const gchar * path, int w, int h,
    GError ** error)
{
  if ((gint64) (k->grid_w - 1) * k->stride >= w - 1 &&
      (gint64) (k->grid_h - 1) * k->stride >= h - 1)
    return TRUE;
  g_set_error (error, GST_CO_CLT_KERNELS_ERROR,
      GST_CO_CLT_KERNELS_ERROR_PARSE, "the %dx%d kernel grid of %s, at "
      "stride %d, covers %dx%d pixels, not the %dx%d frame", k->grid_w,
      k->grid_h, path, k->stride, (k->grid_w - 1) * k->stride + 1,
      (k->grid_h - 1) * k->stride + 1, w, h);
  return FALSE;
}

/* Freshly read kernels that cannot serve the frame (@w > 0) are freed */
static gboolean
fits_frame (GstCoCltKernels * fresh, const gchar * path, int w, int h,
    GError ** error)
{
  if (w <= 0 || covers (fresh, path, w, h, error))
    return TRUE;
  gst_co_clt_kernels_clear (fresh);
  return FALSE;
}

gboolean
gst_co_clt_source_update (GstCoCltSource * src, GstElement * element,
    const gchar * path, guint gen, int w, int h, gboolean keep,
    GError ** error)
{
  GstCoCltKernels fresh;
  GError *err = NULL;

  /* read once per setting; one that failed is not read again at every
   * other change */
  if (!gst_co_file_setting_needs_read (&src->fs, gen))
    return TRUE;
  if (!path || !*path) {
    gst_co_clt_kernels_clear (&src->kernels);
  } else if (!gst_co_clt_kernels_load (path, &fresh, &err) ||
      !fits_frame (&fresh, path, w, h, &err)) {
    if (gst_co_file_setting_fail (&src->fs, element, gen, keep,
            "Keeping the previous kernels", &err))
      return TRUE;
    g_propagate_error (error, err);
    return FALSE;
  } else {
    gst_co_clt_kernels_clear (&src->kernels);
    src->kernels = fresh;
    src->warned_w = src->warned_h = 0;
    GST_INFO_OBJECT (element, "kernels %s: %d colour(s), %dx%d nodes at "
        "stride %d, made for %dx%d", path, fresh.colours, fresh.grid_w,
        fresh.grid_h, fresh.stride, fresh.width, fresh.height);
  }
  g_free (src->path);
  src->path = g_strdup (path);
  gst_co_file_setting_loaded (&src->fs, gen);
  return TRUE;
}

gboolean
gst_co_clt_source_has_file (const GstCoCltSource * src)
{
  return src->kernels.nodes != NULL;
}

gboolean
gst_co_clt_source_grid (GstCoCltSource * src, GstElement * element,
    gdouble lpf_sigma, int w, int h, GstCoCltGrid * grid, GError ** error)
{
  const GstCoCltKernels *k = &src->kernels;
  const gsize nf = GST_CO_CLT_KERNELS_NODE_FLOATS;
  gsize i, n;

  memset (grid, 0, sizeof (*grid));
  if (k->nodes) {
    if (!covers (k, src->path, w, h, error))
      return FALSE;
    if ((k->width != w || k->height != h) && (src->warned_w != w ||
            src->warned_h != h)) {
      /* they cover it, but their lens was measured at another size */
      gchar *name = g_filename_display_name (src->path);
      GST_ELEMENT_WARNING (element, STREAM, FORMAT, ("The kernels %s were "
              "made for %dx%d frames, the stream is %dx%d: their positions "
              "are the frame's pixels, not scaled", name, k->width,
              k->height, w, h), (NULL));
      g_free (name);
      src->warned_w = w;
      src->warned_h = h;
    }
    grid->grid_w = k->grid_w;
    grid->grid_h = k->grid_h;
    grid->stride = k->stride;
    grid->colours = k->colours;
    n = (gsize) k->grid_w * k->grid_h * k->colours;
    grid->nodes = g_new (gfloat, n * nf);
    memcpy (grid->nodes, k->nodes, n * nf * sizeof (gfloat));
    if (lpf_sigma > 0) {
      CoCltSpectrum g;
      gfloat lpf[CO_CLT_COEFFS];
      co_clt_spectrum_identity (&g);
      co_clt_spectrum_gaussian (&g, lpf_sigma);
      co_clt_spectrum_layers (&g, lpf);
      for (i = 0; i < n; i++)
        co_clt_convolve (grid->nodes + i * nf + 2, lpf);
    }
  } else {
    /* one node a colour: each colour's bilinear interpolation */
    CoCltLens lens;
    co_clt_lens_init (&lens, w, h);
    lens.bayer = 1;
    lens.lpf_sigma = lpf_sigma;
    grid->grid_w = grid->grid_h = 1;
    grid->stride = GST_CO_CLT_KERNELS_MAX_STRIDE;
    grid->colours = 3;
    grid->nodes = g_new (gfloat, 3 * nf);
    for (i = 0; i < 3; i++)
      co_clt_lens_node (&lens, 0.5 * (w - 1), 0.5 * (h - 1), i,
          grid->nodes + i * nf);
  }
  return TRUE;
}

void
gst_co_clt_source_clear (GstCoCltSource * src)
{
  gst_co_clt_kernels_clear (&src->kernels);
  g_clear_pointer (&src->path, g_free);
  gst_co_file_setting_reset (&src->fs);
  src->warned_w = src->warned_h = 0;
}

void
gst_co_clt_grid_shifts (const GstCoCltGrid * grid, const CoCamera * cam,
    int w, int h, const gint roi[4], gfloat * dx, gfloat * dy)
{
  CoCameraParams p;
  int tx_n, ty_n, tx, ty, c;

  co_clt_tile_shifts (grid->nodes, grid->grid_w, grid->grid_h, grid->stride,
      grid->colours, roi[0], roi[1], roi[2], roi[3], dx, dy);
  if (!cam)
    return;
  co_camera_params_init (&p, cam);
  co_clt_tiles (roi[2], roi[3], &tx_n, &ty_n);
  for (ty = 0; ty < ty_n; ty++)
    for (tx = 0; tx < tx_n; tx++) {
      /* a tile's centre: it starts 8 pixels before 8 tx and spans 16 */
      const float u = roi[0] + 8.0f * tx - 0.5f;
      const float v = roi[1] + 8.0f * ty - 0.5f;
      float sx, sy, ox, oy;
      const int i = ty * tx_n + tx;
      if (co_camera_map (&p, u, v, &sx, &sy) && isfinite (sx) &&
          isfinite (sy) && fabsf (sx - u) < 4.0f * (w + h) &&
          fabsf (sy - v) < 4.0f * (w + h)) {
        ox = sx - u;
        oy = sy - v;
      } else {
        /* no source: a tile far outside, which reads black */
        ox = oy = -8.0f * (w + h);
      }
      for (c = 0; c < 3; c++) {
        dx[3 * i + c] += ox;
        dy[3 * i + c] += oy;
      }
    }
}

gsize
gst_co_clt_grid_bytes (const GstCoCltGrid * grid)
{
  return (gsize) grid->grid_w * grid->grid_h * grid->colours *
      GST_CO_CLT_KERNELS_NODE_FLOATS * sizeof (gfloat);
}

void
gst_co_clt_grid_clear (GstCoCltGrid * grid)
{
  g_clear_pointer (&grid->nodes, g_free);
}
