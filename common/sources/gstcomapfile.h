/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CO_MAP_FILE_H__
#define __GST_CO_MAP_FILE_H__

#include <glib.h>

G_BEGIN_DECLS

/* A precomputed backward map (cudalensdistort map-file), for any model the
 * element does not know.  The file, little-endian throughout:
 *   8 bytes   "CO-MAP1\n"
 *   4 x u32   width, height (the map's, the output's size: 1..16384),
 *             src_width, src_height (the source the positions were made
 *             for; 0 0: the stream's, whatever it is)
 *   f32 x[height][width], then f32 y[height][width]: for each output pixel
 *             the source position it samples, pixel centres on integers
 *             (cv::remap's map1/map2); NaN or an infinity: no source pixel.
 * numpy: open(p, "wb").write(b"CO-MAP1\n" + struct.pack("<4I", w, h, sw, sh)
 *        + mx.astype("<f4").tobytes() + my.astype("<f4").tobytes()) */
#define GST_CO_MAP_FILE_MAGIC "CO-MAP1\n"
#define GST_CO_MAP_FILE_HEADER 24
#define GST_CO_MAP_FILE_MAX_SIZE 16384
#define GST_CO_MAP_FILE_MAX_PIXELS (64u << 20)

typedef struct
{
  gint width, height, src_width, src_height;
  gfloat *x, *y;                /* width * height each, one allocation */
} GstCoMapFile;

#define GST_CO_MAP_FILE_ERROR (gst_co_map_file_error_quark ())

typedef enum
{
  GST_CO_MAP_FILE_ERROR_READ,
  GST_CO_MAP_FILE_ERROR_PARSE,
} GstCoMapFileError;

GQuark gst_co_map_file_error_quark (void);

/* The whole map (free with gst_co_map_file_clear), or FALSE with an error
 * naming the file and what is wrong. */
gboolean gst_co_map_file_load (const gchar * path, GstCoMapFile * map,
    GError ** error);
/* The same from bytes in memory. */
gboolean gst_co_map_file_parse (const guint8 * data, gsize len,
    GstCoMapFile * map, GError ** error);
/* The header alone: the map's size (the output's) without reading it. */
gboolean gst_co_map_file_size (const gchar * path, gint * width,
    gint * height, GError ** error);
void gst_co_map_file_clear (GstCoMapFile * map);
/* @map at (@x, @y) of its own pixels, bilinear between them (clamped at
 * its edges; on a pixel, its values as they are); NaN where a tap has
 * none. */
void gst_co_map_file_sample (const GstCoMapFile * map, double x, double y,
    float *sx, float *sy);

G_END_DECLS

#endif /* __GST_CO_MAP_FILE_H__ */
