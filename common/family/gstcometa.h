/* cudaoptics — LGPL-2.1-or-later
 *
 * The family's results on buffers: one registration point for every result
 * kind the elements attach (include/cudaoptics/co-results.h is how
 * applications read them), and the call an element's finish step makes.
 */
#ifndef __GST_CO_META_H__
#define __GST_CO_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Registers every kind in the family's table (plugin_init calls it). */
void          gst_co_metas_register      (void);
/* Registers one kind (idempotent); for kinds outside the table (tests). */
gboolean      gst_co_results_register    (const gchar * kind);
/* Attaches an empty structure named @kind to @buf and returns it, to fill
 * (@buf writable; NULL when @kind was never registered). */
GstStructure *gst_co_buffer_add_results  (GstBuffer * buf, const gchar * kind);
/* @mem's bytes as a GBytes that keeps it (mapped for reading) until the
 * last reference goes: results handed to applications without a copy
 * (slices by g_bytes_new_from_bytes).  Takes @mem's reference; NULL when
 * it cannot be mapped. */
GBytes       *gst_co_bytes_from_memory   (GstMemory * mem);

G_END_DECLS
#endif
