/* cudaoptics — LGPL-2.1-or-later */

/* Reads and writes cudaaberration's kernel files (gstcocltkernels.h). */

#include "gstcocltkernels.h"
#include "gstcofile.h"

#include <math.h>
#include <string.h>

/* *INDENT-OFF* */
G_DEFINE_QUARK (gst-co-clt-kernels-error-quark, gst_co_clt_kernels_error)
/* *INDENT-ON* */

#define PARSE GST_CO_CLT_KERNELS_ERROR_PARSE

static guint32
u32le (const guint8 * p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 |
      (guint32) p[3] << 24;
}

static gboolean
in_range (GError ** error, const gchar * what, guint32 v, guint32 lo,
    guint32 hi)
{
  if (v >= lo && v <= hi)
    return TRUE;
  g_set_error (error, GST_CO_CLT_KERNELS_ERROR, PARSE, "%s is %u; it must "
      "lie between %u and %u", what, v, lo, hi);
  return FALSE;
}

gboolean
gst_co_clt_kernels_parse (const guint8 * data, gsize len, GstCoCltKernels * k,
    GError ** error)
{
  GstCoCltKernels m = { 0 };
  guint32 v[8];
  guint64 n, total, i;
  gint f;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (k != NULL, FALSE);
  if (len < GST_CO_CLT_KERNELS_HEADER) {
    g_set_error (error, GST_CO_CLT_KERNELS_ERROR, PARSE, "%" G_GSIZE_FORMAT
        " bytes: shorter than a kernel file's header (%d)", len,
        GST_CO_CLT_KERNELS_HEADER);
    return FALSE;
  }
  if (memcmp (data, GST_CO_CLT_KERNELS_MAGIC, 8) != 0) {
    g_set_error (error, GST_CO_CLT_KERNELS_ERROR, PARSE, "not a kernel file "
        "(it does not begin with CO-CLTK)");
    return FALSE;
  }
  for (f = 0; f < 8; f++)
    v[f] = u32le (data + 8 + 4 * f);
  if (v[0] != GST_CO_CLT_KERNELS_VERSION) {
    g_set_error (error, GST_CO_CLT_KERNELS_ERROR, PARSE, "version %u; this "
        "reader knows version %d", v[0], GST_CO_CLT_KERNELS_VERSION);
    return FALSE;
  }
  if (v[1] != 1 && v[1] != 3) {
    g_set_error (error, GST_CO_CLT_KERNELS_ERROR, PARSE, "%u colours; a "
        "kernel file has 1 or 3 (red, green, blue)", v[1]);
    return FALSE;
  }
  if (!in_range (error, "grid width", v[2], 1, GST_CO_CLT_KERNELS_MAX_GRID) ||
      !in_range (error, "grid height", v[3], 1, GST_CO_CLT_KERNELS_MAX_GRID) ||
      !in_range (error, "stride", v[4], 1, GST_CO_CLT_KERNELS_MAX_STRIDE) ||
      !in_range (error, "width", v[5], 1, GST_CO_CLT_KERNELS_MAX_SIZE) ||
      !in_range (error, "height", v[6], 1, GST_CO_CLT_KERNELS_MAX_SIZE))
    return FALSE;
  if (v[7] != 0) {
    g_set_error (error, GST_CO_CLT_KERNELS_ERROR, PARSE, "the reserved word "
        "is %u, not 0", v[7]);
    return FALSE;
  }
  if ((guint64) (v[2] - 1) * v[4] < v[5] - 1 ||
      (guint64) (v[3] - 1) * v[4] < v[6] - 1) {
    g_set_error (error, GST_CO_CLT_KERNELS_ERROR, PARSE, "a %ux%u grid at "
        "stride %u does not reach the corner of a %ux%u frame", v[2], v[3],
        v[4], v[5], v[6]);
    return FALSE;
  }
  n = (guint64) v[2] * v[3] * v[1] * GST_CO_CLT_KERNELS_NODE_FLOATS;
  if (n > GST_CO_CLT_KERNELS_MAX_FLOATS) {
    g_set_error (error, GST_CO_CLT_KERNELS_ERROR, PARSE, "a %ux%u grid of %u "
        "colours is larger than this reader takes (%u numbers)", v[2], v[3],
        v[1], GST_CO_CLT_KERNELS_MAX_FLOATS);
    return FALSE;
  }
  total = GST_CO_CLT_KERNELS_HEADER + n * 4;
  if (len != total) {
    g_set_error (error, GST_CO_CLT_KERNELS_ERROR, PARSE, "a %ux%u grid of %u "
        "colours has %" G_GUINT64_FORMAT " bytes, the file %" G_GSIZE_FORMAT,
        v[2], v[3], v[1], total, len);
    return FALSE;
  }
  m.colours = (gint) v[1];
  m.grid_w = (gint) v[2];
  m.grid_h = (gint) v[3];
  m.stride = (gint) v[4];
  m.width = (gint) v[5];
  m.height = (gint) v[6];
  m.nodes = g_try_malloc (n * sizeof (gfloat));
  if (!m.nodes) {
    g_set_error (error, GST_CO_CLT_KERNELS_ERROR,
        GST_CO_CLT_KERNELS_ERROR_READ, "out of memory for %" G_GUINT64_FORMAT
        " numbers", n);
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    guint32 u = u32le (data + GST_CO_CLT_KERNELS_HEADER + 4 * i);
    gfloat x;
    guint64 node = i / GST_CO_CLT_KERNELS_NODE_FLOATS;
    memcpy (&x, &u, 4);
    if (!isfinite (x) || (i % GST_CO_CLT_KERNELS_NODE_FLOATS < 2 &&
            fabsf (x) > GST_CO_CLT_KERNELS_MAX_SHIFT)) {
      guint64 cell = node / m.colours;
      const gchar *what = i % GST_CO_CLT_KERNELS_NODE_FLOATS < 2 ? "shift" :
          "coefficient";
      if (isfinite (x))
        g_set_error (error, GST_CO_CLT_KERNELS_ERROR, PARSE, "node (%u, %u), "
            "colour %u: %s %g is beyond 64 pixels", (guint) (cell % m.grid_w),
            (guint) (cell / m.grid_w), (guint) (node % m.colours), what, x);
      else
        g_set_error (error, GST_CO_CLT_KERNELS_ERROR, PARSE, "node (%u, %u), "
            "colour %u: a %s is not a finite number",
            (guint) (cell % m.grid_w), (guint) (cell / m.grid_w),
            (guint) (node % m.colours), what);
      g_free (m.nodes);
      return FALSE;
    }
    m.nodes[i] = x;
  }
  *k = m;
  return TRUE;
}

/* gst_co_clt_kernels_parse as a GstCoFileParser */
static gboolean
parse_into (const guint8 * data, gsize len, gpointer k, GError ** error)
{
  return gst_co_clt_kernels_parse (data, len, k, error);
}

gboolean
gst_co_clt_kernels_load (const gchar * path, GstCoCltKernels * k,
    GError ** error)
{
  return gst_co_file_load (path, GST_CO_CLT_KERNELS_HEADER +
      (gsize) GST_CO_CLT_KERNELS_MAX_FLOATS * 4, GST_CO_CLT_KERNELS_ERROR,
      GST_CO_CLT_KERNELS_ERROR_READ, parse_into, k, error);
}

static void
put_u32 (guint8 * p, guint32 v)
{
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = v >> 24;
}

GBytes *
gst_co_clt_kernels_serialize (const GstCoCltKernels * k)
{
  const guint64 n = (guint64) k->grid_w * k->grid_h * k->colours *
      GST_CO_CLT_KERNELS_NODE_FLOATS;
  const guint32 head[8] = { GST_CO_CLT_KERNELS_VERSION, (guint32) k->colours,
    (guint32) k->grid_w, (guint32) k->grid_h, (guint32) k->stride,
    (guint32) k->width, (guint32) k->height, 0
  };
  gsize len = GST_CO_CLT_KERNELS_HEADER + (gsize) n * 4;
  guint8 *d = g_malloc (len);
  guint64 i;
  gint f;

  memcpy (d, GST_CO_CLT_KERNELS_MAGIC, 8);
  for (f = 0; f < 8; f++)
    put_u32 (d + 8 + 4 * f, head[f]);
  for (i = 0; i < n; i++) {
    guint32 u;
    memcpy (&u, &k->nodes[i], 4);
    put_u32 (d + GST_CO_CLT_KERNELS_HEADER + 4 * i, u);
  }
  return g_bytes_new_take (d, len);
}

void
gst_co_clt_kernels_clear (GstCoCltKernels * k)
{
  g_free (k->nodes);
  memset (k, 0, sizeof (*k));
}
