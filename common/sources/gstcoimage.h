/* cudaoptics — LGPL-2.1-or-later
 *
 * Pictures an element reads as data (cudafoveate's blur map,
 * cudashcentroid's lenslet mask), decoded by GStreamer itself: any format
 * an installed decoder reads (PNG at least), never a parser of our own.
 */
#ifndef __GST_CO_IMAGE_H__
#define __GST_CO_IMAGE_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The picture at @path as GRAY8, *w x *h bytes, rows packed (g_free it);
 * NULL with *why (g_free it) when it cannot be read or decoded. */
guint8 *gst_co_decode_gray (const gchar * path, gint * w, gint * h,
    gchar ** why);
/* The same as packed RGB, 3 * *w * *h bytes */
guint8 *gst_co_decode_rgb (const gchar * path, gint * w, gint * h,
    gchar ** why);

G_END_DECLS
#endif
