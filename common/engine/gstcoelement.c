/* cudaoptics — LGPL-2.1-or-later
 *
 * The family's device calls over the engine either base embeds.
 */
#include "gstcoelement.h"
#include "gstcobasefilter.h"
#include "gstcobaseaggregator.h"

/* The bases are the only owners of an engine, so the type says where it
 * is: nothing for the elements to pass but themselves. */
static GstCoEngine *
engine_of (gpointer element)
{
  if (GST_IS_CO_BASE_FILTER (element))
    return &GST_CO_BASE_FILTER (element)->engine;
  if (GST_IS_CO_BASE_AGGREGATOR (element))
    return &GST_CO_BASE_AGGREGATOR (element)->engine;
  g_critical ("%p is no element of the cudaoptics family", element);
  return NULL;
}

#define ENGINE_OR(val) \
  GstCoEngine *e = engine_of (element); \
  if (!e) \
    return val

gboolean
gst_co_element_on_cuda (gpointer element)
{
  ENGINE_OR (FALSE);
  return e->device != NULL;
}

gpointer
gst_co_element_alloc (gpointer element, gsize size)
{
  ENGINE_OR (NULL);
  return gst_co_engine_alloc (e, size);
}

void
gst_co_element_free (gpointer element, gpointer mem)
{
  ENGINE_OR ();
  gst_co_engine_free (e, mem);
}

gboolean
gst_co_element_ensure (gpointer element, gpointer * mem, gsize * cur_size,
    gsize size)
{
  ENGINE_OR (FALSE);
  return gst_co_engine_ensure (e, mem, cur_size, size);
}

gpointer
gst_co_element_alloc_host (gpointer element, gsize size)
{
  ENGINE_OR (NULL);
  return gst_co_engine_alloc_host (e, size);
}

void
gst_co_element_free_host (gpointer element, gpointer mem)
{
  ENGINE_OR ();
  gst_co_engine_free_host (e, mem);
}

GstMemory *
gst_co_element_alloc_results (gpointer element, gsize size)
{
  ENGINE_OR (NULL);
  return gst_co_engine_alloc_results (e, size);
}

gboolean
gst_co_element_upload (gpointer element, gpointer dst, gconstpointer src,
    gsize size, const gchar * what)
{
  ENGINE_OR (FALSE);
  return gst_co_engine_upload (e, dst, src, size, what);
}

gboolean
gst_co_element_download (gpointer element, gpointer dst, gconstpointer src,
    gsize size, const gchar * what)
{
  ENGINE_OR (FALSE);
  /* finish reads it: the frame's one synchronisation comes before */
  return gst_co_engine_download (e, dst, src, size, what);
}

gboolean
gst_co_element_download_behind (gpointer element, gpointer dst,
    gconstpointer src, gsize size, const gchar * what)
{
  ENGINE_OR (FALSE);
  return gst_co_engine_download_behind (e, dst, src, size, what);
}

gboolean
gst_co_element_join_copies (gpointer element)
{
  ENGINE_OR (FALSE);
  return gst_co_engine_join_copies (e);
}

gboolean
gst_co_element_sync (gpointer element, const gchar * what)
{
  ENGINE_OR (FALSE);
  return gst_co_engine_sync (e, what);
}

gboolean
gst_co_element_cuda_ok (gpointer element, int err, const gchar * what)
{
  ENGINE_OR (FALSE);
  return gst_co_engine_cuda_ok (e, err, what);
}
