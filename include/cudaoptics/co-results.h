/* cudaoptics — LGPL-2.1-or-later
 *
 * Reading what a cudaoptics element measured on a frame, from an appsink or
 * a pad probe, without linking anything but GStreamer: the plugin is a
 * module, not a library, so this header is all an application includes.
 *
 * Every result a cudaoptics element attaches to a buffer is a GstStructure
 * whose name is the result kind an element documents (e.g.
 * "GstCoShCentroids"); arrays are GBytes of little-endian floats, times are
 * guint64 nanoseconds.  On GStreamer 1.20+ it is a GstCustomMeta of that
 * name, so Python reads it too:
 *
 *   meta = buf.get_custom_meta("GstCoShCentroids")
 *   s = meta.get_structure() if meta else None
 *
 * and the cudaoptics Python module (python/cudaoptics.py, installed with
 * the plugin) turns it, or a message's, into numpy arrays:
 * cudaoptics.from_buffer (buf) or cudaoptics.from_message (msg).
 *
 * On 1.16 and 1.18 it is a plain meta whose API type is the name followed by
 * "API" (read from C with the function below; Python reads the element's
 * bus messages, which carry the same structure).
 *
 *   const GstStructure *s = gst_co_buffer_get_results (buf, "GstCoShCentroids");
 */
#ifndef __CO_RESULTS_H__
#define __CO_RESULTS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The layout before 1.20 (the structure is owned by the meta). */
typedef struct
{
  GstMeta meta;
  GstStructure *structure;
} GstCoResultsMeta;

/* The results named @kind on @buf, or NULL; valid while @buf is. */
static inline const GstStructure *
gst_co_buffer_get_results (GstBuffer * buf, const gchar * kind)
{
#if GST_CHECK_VERSION (1, 20, 0)
  GstCustomMeta *m = gst_buffer_get_custom_meta (buf, kind);
  return m ? gst_custom_meta_get_structure (m) : NULL;
#else
  gchar *api_name = g_strconcat (kind, "API", NULL);
  GType api = g_type_from_name (api_name);
  GstMeta *m = api ? gst_buffer_get_meta (buf, api) : NULL;
  g_free (api_name);
  return m ? ((GstCoResultsMeta *) m)->structure : NULL;
#endif
}

G_END_DECLS
#endif
