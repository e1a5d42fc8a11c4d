/* cudaoptics — LGPL-2.1-or-later */

/* Reads cudalensdistort's map files (gstcomapfile.h): GLib only, so the
 * fuzzer links it alone. */

#include "gstcomapfile.h"
#include "gstcofile.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

/* *INDENT-OFF* */
G_DEFINE_QUARK (gst-co-map-file-error-quark, gst_co_map_file_error)
/* *INDENT-ON* */

static guint32
u32le (const guint8 * p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 |
      (guint32) p[3] << 24;
}

/* The header's sizes, checked; the bytes the whole file must have. */
static gboolean
header (const guint8 * data, gsize len, GstCoMapFile * map, guint64 * total,
    GError ** error)
{
  guint32 w, h, sw, sh;

  if (len < GST_CO_MAP_FILE_HEADER) {
    g_set_error (error, GST_CO_MAP_FILE_ERROR, GST_CO_MAP_FILE_ERROR_PARSE,
        "%" G_GSIZE_FORMAT " bytes: shorter than a map file's header (%d)",
        len, GST_CO_MAP_FILE_HEADER);
    return FALSE;
  }
  if (memcmp (data, GST_CO_MAP_FILE_MAGIC, 8) != 0) {
    g_set_error (error, GST_CO_MAP_FILE_ERROR, GST_CO_MAP_FILE_ERROR_PARSE,
        "not a map file (it does not begin with CO-MAP1)");
    return FALSE;
  }
  w = u32le (data + 8);
  h = u32le (data + 12);
  sw = u32le (data + 16);
  sh = u32le (data + 20);
  if (w < 1 || h < 1 || w > GST_CO_MAP_FILE_MAX_SIZE ||
      h > GST_CO_MAP_FILE_MAX_SIZE || (guint64) w * h >
      GST_CO_MAP_FILE_MAX_PIXELS) {
    g_set_error (error, GST_CO_MAP_FILE_ERROR, GST_CO_MAP_FILE_ERROR_PARSE,
        "the map is %ux%u; each side must lie between 1 and %d, and at most "
        "%u pixels in all", w, h, GST_CO_MAP_FILE_MAX_SIZE,
        GST_CO_MAP_FILE_MAX_PIXELS);
    return FALSE;
  }
  if ((sw == 0) != (sh == 0) || sw > GST_CO_MAP_FILE_MAX_SIZE ||
      sh > GST_CO_MAP_FILE_MAX_SIZE) {
    g_set_error (error, GST_CO_MAP_FILE_ERROR, GST_CO_MAP_FILE_ERROR_PARSE,
        "the source size is %ux%u; both 0 (the stream's) or both between 1 "
        "and %d", sw, sh, GST_CO_MAP_FILE_MAX_SIZE);
    return FALSE;
  }
  map->width = (gint) w;
  map->height = (gint) h;
  map->src_width = (gint) sw;
  map->src_height = (gint) sh;
  *total = GST_CO_MAP_FILE_HEADER + (guint64) w * h * 8;
  return TRUE;
}

gboolean
gst_co_map_file_parse (const guint8 * data, gsize len, GstCoMapFile * map,
    GError ** error)
{
  GstCoMapFile m = { 0 };
  guint64 total, i, n;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (map != NULL, FALSE);
  if (!header (data, len, &m, &total, error))
    return FALSE;
  if (len != total) {
    g_set_error (error, GST_CO_MAP_FILE_ERROR, GST_CO_MAP_FILE_ERROR_PARSE,
        "a %dx%d map has %" G_GUINT64_FORMAT " bytes, the file %"
        G_GSIZE_FORMAT, m.width, m.height, total, len);
    return FALSE;
  }
  n = (guint64) m.width * m.height;
  m.x = g_try_malloc (n * 2 * sizeof (gfloat));
  if (!m.x) {
    g_set_error (error, GST_CO_MAP_FILE_ERROR, GST_CO_MAP_FILE_ERROR_READ,
        "out of memory for a %dx%d map", m.width, m.height);
    return FALSE;
  }
  m.y = m.x + n;
  for (i = 0; i < 2 * n; i++) {
    guint32 u = u32le (data + GST_CO_MAP_FILE_HEADER + 4 * i);
    memcpy (&m.x[i], &u, 4);
  }
  *map = m;
  return TRUE;
}

/* gst_co_map_file_parse as a GstCoFileParser (no cast of the function) */
static gboolean
parse_into (const guint8 * data, gsize len, gpointer map, GError ** error)
{
  return gst_co_map_file_parse (data, len, map, error);
}

gboolean
gst_co_map_file_load (const gchar * path, GstCoMapFile * map, GError ** error)
{
  return gst_co_file_load (path, GST_CO_MAP_FILE_HEADER +
      (gsize) GST_CO_MAP_FILE_MAX_PIXELS * 8, GST_CO_MAP_FILE_ERROR,
      GST_CO_MAP_FILE_ERROR_READ, parse_into, map, error);
}

gboolean
gst_co_map_file_size (const gchar * path, gint * width, gint * height,
    GError ** error)
{
  guint8 buf[GST_CO_MAP_FILE_HEADER];
  GstCoMapFile m;
  guint64 total, size;
  gssize n;
  int fd;

  g_return_val_if_fail (path != NULL, FALSE);
  if ((fd = gst_co_file_open (path, &size, error)) < 0)
    return FALSE;
  n = read (fd, buf, sizeof buf);
  close (fd);
  if (!header (buf, n > 0 ? (gsize) n : 0, &m, &total, error))
    return FALSE;
  /* a truncated body must not announce a size the map will never have */
  if (size != total) {
    g_set_error (error, GST_CO_MAP_FILE_ERROR, GST_CO_MAP_FILE_ERROR_PARSE,
        "a %dx%d map has %" G_GUINT64_FORMAT " bytes, the file %"
        G_GUINT64_FORMAT, m.width, m.height, total, size);
    return FALSE;
  }
  *width = m.width;
  *height = m.height;
  return TRUE;
}

void
gst_co_map_file_clear (GstCoMapFile * map)
{
  g_free (map->x);
  memset (map, 0, sizeof (*map));
}

void
gst_co_map_file_sample (const GstCoMapFile * m, double x, double y,
    float *sx, float *sy)
{
  double fx = CLAMP (x, 0.0, m->width - 1.0), fy = CLAMP (y, 0.0,
      m->height - 1.0);
  int x0 = (int) floor (fx), y0 = (int) floor (fy);
  int x1 = MIN (x0 + 1, m->width - 1), y1 = MIN (y0 + 1, m->height - 1);
  double ax = fx - x0, ay = fy - y0;
  size_t i00 = (size_t) y0 * m->width + x0, i01 = (size_t) y0 * m->width + x1;
  size_t i10 = (size_t) y1 * m->width + x0, i11 = (size_t) y1 * m->width + x1;

  if (ax == 0.0 && ay == 0.0) {
    *sx = m->x[i00];
    *sy = m->y[i00];
  } else {
    *sx = (float) ((1 - ay) * ((1 - ax) * m->x[i00] + ax * m->x[i01]) +
        ay * ((1 - ax) * m->x[i10] + ax * m->x[i11]));
    *sy = (float) ((1 - ay) * ((1 - ax) * m->y[i00] + ax * m->y[i01]) +
        ay * ((1 - ax) * m->y[i10] + ax * m->y[i11]));
  }
  if (!isfinite (*sx) || !isfinite (*sy))
    *sx = *sy = NAN;
}
