/* cudaoptics — LGPL-2.1-or-later
 *
 * One result kind is one GstCustomMeta on 1.20+ (readable from Python by
 * name) and, before, one plain meta of the same name with a structure
 * inside; both are copied with their buffer and survive our elements'
 * transform_meta (they carry no tags).
 */
#include "gstcocompat.h"
#include "gstcometa.h"
#include "../include/cudaoptics/co-results.h"

/* Result kinds of the family's elements, registered by plugin_init. */
static const gchar *const family_kinds[] = {
  "GstCoFoveaGaze",             /* cudafoveate: the fixation a frame used */
  "GstCoShCentroids",           /* cudashcentroid: centroids, slopes */
  "GstCoCltCorrelation",        /* cudacltcorrelate: shifts per tile */
  NULL,
};

static GMutex lock;

#ifdef CO_HAVE_CUSTOM_META
static gboolean
copy_field (GQuark field, const GValue * value, gpointer dest)
{
  gst_structure_id_set_value ((GstStructure *) dest, field, value);
  return TRUE;
}

static gboolean
custom_copy (GstBuffer * dest, GstCustomMeta * meta, GstBuffer * buf,
    GQuark type, gpointer data, gpointer user_data)
{
  GstCustomMeta *d;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  d = gst_buffer_add_custom_meta (dest, (const gchar *) user_data);
  if (!d)
    return FALSE;
  gst_structure_foreach (gst_custom_meta_get_structure (meta), copy_field,
      gst_custom_meta_get_structure (d));
  return TRUE;
}

static gboolean
register_kind (const gchar * kind)
{
  static const gchar *tags[] = { NULL };

  if (gst_meta_get_info (kind))
    return TRUE;
  return gst_meta_register_custom (kind, tags, custom_copy, g_strdup (kind),
      g_free) != NULL;
}

GstStructure *
gst_co_buffer_add_results (GstBuffer * buf, const gchar * kind)
{
  GstCustomMeta *m = gst_buffer_add_custom_meta (buf, kind);
  return m ? gst_custom_meta_get_structure (m) : NULL;
}
#else
static gboolean
results_init (GstMeta * meta, gpointer params, GstBuffer * buf)
{
  ((GstCoResultsMeta *) meta)->structure = NULL;
  return TRUE;
}

static void
results_free (GstMeta * meta, GstBuffer * buf)
{
  GstCoResultsMeta *m = (GstCoResultsMeta *) meta;

  if (m->structure) {
    gst_structure_set_parent_refcount (m->structure, NULL);
    gst_structure_free (m->structure);
  }
}

static gboolean
results_copy (GstBuffer * dest, GstMeta * meta, GstBuffer * buf,
    GQuark type, gpointer data)
{
  GstCoResultsMeta *s = (GstCoResultsMeta *) meta, *d;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  d = (GstCoResultsMeta *) gst_buffer_add_meta (dest, meta->info, NULL);
  if (!d)
    return FALSE;
  d->structure = gst_structure_copy (s->structure);
  gst_structure_set_parent_refcount (d->structure,
      &GST_MINI_OBJECT_REFCOUNT (dest));
  return TRUE;
}

static gboolean
register_kind (const gchar * kind)
{
  static const gchar *tags[] = { NULL };
  gchar *api_name;
  GType api;

  if (gst_meta_get_info (kind))
    return TRUE;
  api_name = g_strconcat (kind, "API", NULL);
  api = g_type_from_name (api_name);
  if (!api)
    api = gst_meta_api_type_register (api_name, tags);
  g_free (api_name);
  return gst_meta_register (api, kind, sizeof (GstCoResultsMeta),
      results_init, results_free, results_copy) != NULL;
}

GstStructure *
gst_co_buffer_add_results (GstBuffer * buf, const gchar * kind)
{
  const GstMetaInfo *info = gst_meta_get_info (kind);
  GstCoResultsMeta *m;

  if (!info || !(m = (GstCoResultsMeta *) gst_buffer_add_meta (buf, info,
              NULL)))
    return NULL;
  m->structure = gst_structure_new_empty (kind);
  gst_structure_set_parent_refcount (m->structure,
      &GST_MINI_OBJECT_REFCOUNT (buf));
  return m->structure;
}
#endif

typedef struct
{
  GstMemory *mem;
  GstMapInfo map;
} MappedBytes;

static void
unmap_bytes (gpointer data)
{
  MappedBytes *m = data;

  gst_memory_unmap (m->mem, &m->map);
  gst_memory_unref (m->mem);
  g_free (m);
}

GBytes *
gst_co_bytes_from_memory (GstMemory * mem)
{
  MappedBytes *m = g_new (MappedBytes, 1);

  m->mem = mem;
  if (!gst_memory_map (mem, &m->map, GST_MAP_READ)) {
    gst_memory_unref (mem);
    g_free (m);
    return NULL;
  }
  return g_bytes_new_with_free_func (m->map.data, m->map.size, unmap_bytes, m);
}

gboolean
gst_co_results_register (const gchar * kind)
{
  gboolean ok;

  g_return_val_if_fail (kind != NULL, FALSE);
  g_mutex_lock (&lock);
  ok = register_kind (kind);
  g_mutex_unlock (&lock);
  return ok;
}

void
gst_co_metas_register (void)
{
  guint i;

  for (i = 0; family_kinds[i]; i++)
    gst_co_results_register (family_kinds[i]);
}
