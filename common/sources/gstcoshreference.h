/* cudaoptics — LGPL-2.1-or-later
 *
 * cudashcentroid's reference-file: the centroids slopes are measured from,
 * as text, one lenslet a line, lenslet rows one after another:
 *
 *   # comments and blank lines are skipped
 *   10.37 10.81
 *   30.37,10.81
 *
 * GLib only (no GStreamer), so the fuzzer links it alone.
 */
#ifndef __GST_CO_SH_REFERENCE_H__
#define __GST_CO_SH_REFERENCE_H__

#include <glib.h>

G_BEGIN_DECLS

/* Parses @size bytes of @text (no terminator needed): the first @n pairs
 * go to @rx, @ry.  Returns how many lines held a pair (more than @n tells
 * the caller the file is for a larger grid), or -1 with *why (g_free it)
 * at the first line that is not two finite numbers. */
gint gst_co_sh_parse_reference (const gchar * text, gsize size, gint n,
    gdouble * rx, gdouble * ry, gchar ** why);

G_END_DECLS
#endif
