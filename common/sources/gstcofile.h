/* cudaoptics — LGPL-2.1-or-later */

/* Reading the files elements are given (calibrations, maps, references,
 * lookup tables) without letting a path stall the pipeline: only regular
 * files are read, opened without blocking, so a FIFO or a device named by
 * mistake is refused at once instead of holding a state change. GLib only,
 * so the fuzzers link it alone. */

#ifndef __GST_CO_FILE_H__
#define __GST_CO_FILE_H__

#include <glib.h>

G_BEGIN_DECLS

/* The open descriptor of the regular file @path and its size, or -1 with
 * @error (G_FILE_ERROR, the message begins with the file's name). */
int gst_co_file_open (const gchar * path, guint64 * size, GError ** error);

/* The whole of the regular file @path, at most @max bytes (a file that
 * grows past @max while read is refused too), NUL-terminated for text
 * readers; FALSE with @error as above. */
gboolean gst_co_file_read (const gchar * path, gsize max, gchar ** contents,
    gsize * length, GError ** error);

/* A parser of a whole file's bytes into @out, with its own error domain */
typedef gboolean (*GstCoFileParser) (const guint8 * data, gsize len,
    gpointer out, GError ** error);

/* gst_co_file_read, then @parse: a read error in @domain with @read_code,
 * a parse error prefixed with the file's name. */
gboolean gst_co_file_load (const gchar * path, gsize max, GQuark domain,
    gint read_code, GstCoFileParser parse, gpointer out, GError ** error);

G_END_DECLS

#endif /* __GST_CO_FILE_H__ */
