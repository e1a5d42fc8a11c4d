/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoSettings (gstcosettings.h): the settings table of any element of the
 * family, kept per class type.
 */
#include "gstcosettings.h"
#include "gstcocompat.h"

#include <string.h>

typedef struct
{
  GstCoSetting *rows;
  guint n;
  gsize offset, size;
  GstCoSettingsHooks hooks;
} Table;

static GQuark
table_quark (void)
{
  static GQuark q;

  if (!q)
    q = g_quark_from_static_string ("gst-co-settings-table");
  return q;
}

/* The table declared by @type itself, or NULL */
static const Table *
table_at (GType type)
{
  return g_type_get_qdata (type, table_quark ());
}

/* The table of @object's class or its nearest ancestor's that has a
 * settings struct (a size): the element's, which a snapshot copies */
static const Table *
table_of (GObject * object)
{
  GType t;

  for (t = G_OBJECT_TYPE (object); t; t = g_type_parent (t)) {
    const Table *tab = table_at (t);
    if (tab && tab->size)
      return tab;
  }
  return NULL;
}

/* A row's offset may be negative (a private struct's field) */
static gpointer
field_of (GObject * object, const Table * tab, gssize offset)
{
  return (guint8 *) object + tab->offset + offset;
}

static const GstCoSetting *
row_at (const Table * tab, guint prop_id)
{
  if (!tab || prop_id < 1 || prop_id > tab->n)
    return NULL;
  return &tab->rows[prop_id - 1];
}

/* The value of @row's type at @field from @value (object lock held) */
static void
store (const GstCoSetting * row, gpointer field, const GValue * value)
{
  GType t = G_PARAM_SPEC_VALUE_TYPE (row->pspec);

  if (t == G_TYPE_DOUBLE && (row->flags & GST_CO_SETTING_FLOAT))
    *(gfloat *) field = (gfloat) g_value_get_double (value);
  else if (t == G_TYPE_DOUBLE)
    *(gdouble *) field = g_value_get_double (value);
  else if (t == G_TYPE_INT)
    *(gint *) field = g_value_get_int (value);
  else if (t == G_TYPE_UINT)
    *(guint *) field = g_value_get_uint (value);
  else if (t == G_TYPE_UINT64)
    *(guint64 *) field = g_value_get_uint64 (value);
  else if (t == G_TYPE_BOOLEAN)
    *(gboolean *) field = g_value_get_boolean (value);
  else if (G_TYPE_IS_ENUM (t))
    *(gint *) field = g_value_get_enum (value);
  else if (G_TYPE_IS_FLAGS (t))
    *(guint *) field = g_value_get_flags (value);
  else if (t == G_TYPE_STRING) {
    g_free (*(gchar **) field);
    *(gchar **) field = g_value_dup_string (value);
  } else if (t == G_TYPE_BYTES) {
    if (*(GBytes **) field)
      g_bytes_unref (*(GBytes **) field);
    *(GBytes **) field = g_value_dup_boxed (value);
  } else
    g_assert_not_reached ();
}

static void
load (const GstCoSetting * row, gconstpointer field, GValue * value)
{
  GType t = G_PARAM_SPEC_VALUE_TYPE (row->pspec);

  if (t == G_TYPE_DOUBLE && (row->flags & GST_CO_SETTING_FLOAT))
    g_value_set_double (value, *(const gfloat *) field);
  else if (t == G_TYPE_DOUBLE)
    g_value_set_double (value, *(const gdouble *) field);
  else if (t == G_TYPE_INT)
    g_value_set_int (value, *(const gint *) field);
  else if (t == G_TYPE_UINT)
    g_value_set_uint (value, *(const guint *) field);
  else if (t == G_TYPE_UINT64)
    g_value_set_uint64 (value, *(const guint64 *) field);
  else if (t == G_TYPE_BOOLEAN)
    g_value_set_boolean (value, *(const gboolean *) field);
  else if (G_TYPE_IS_ENUM (t))
    g_value_set_enum (value, *(const gint *) field);
  else if (G_TYPE_IS_FLAGS (t))
    g_value_set_flags (value, *(const guint *) field);
  else if (t == G_TYPE_STRING)
    g_value_set_string (value, *(gchar * const *) field);
  else if (t == G_TYPE_BYTES)
    g_value_set_boxed (value, *(GBytes * const *) field);
  else
    g_assert_not_reached ();
}

/* Each class's rows carry its own ids: GObject hands a property to the
 * set/get_property of the class that declared it, whose table is found by
 * the pspec's owner. */
static gboolean
table_set (GObject * object, const Table * tab, guint prop_id,
    const GValue * value)
{
  const GstCoSetting *row = row_at (tab, prop_id);
  gpointer field;
  GValue old = G_VALUE_INIT;
  gboolean changed;

  if (!row)
    return FALSE;
  field = field_of (object, tab, row->offset);
  g_value_init (&old, G_PARAM_SPEC_VALUE_TYPE (row->pspec));
  GST_OBJECT_LOCK (object);
  load (row, field, &old);
  /* a control source sets its values every frame: only a change (or a
   * file set again, to be read again) rebuilds or renegotiates */
  changed = g_param_values_cmp (row->pspec, &old, value) != 0 ||
      row->gen >= 0;
  store (row, field, value);
  if (row->gen >= 0)
    (*(guint *) field_of (object, tab, row->gen))++;
  if (tab->hooks.changed)
    tab->hooks.changed (object, prop_id);
  if (changed && (row->flags & (GST_CO_SETTING_REBUILD |
              GST_CO_SETTING_RESIZE)) && tab->hooks.mark_dirty)
    tab->hooks.mark_dirty (object);
  GST_OBJECT_UNLOCK (object);
  g_value_unset (&old);
  /* outside the lock: renegotiation and the parent take locks of their
   * own */
  if (changed && (row->flags & (GST_CO_SETTING_REBUILD |
              GST_CO_SETTING_RESIZE)) && tab->hooks.parent_dirty)
    tab->hooks.parent_dirty (object);
  if (changed && (row->flags & GST_CO_SETTING_RESIZE) &&
      tab->hooks.renegotiate)
    tab->hooks.renegotiate (object);
  return TRUE;
}

static gboolean
table_get (GObject * object, const Table * tab, guint prop_id,
    GValue * value)
{
  const GstCoSetting *row = row_at (tab, prop_id);

  if (!row)
    return FALSE;
  GST_OBJECT_LOCK (object);
  load (row, field_of (object, tab, row->offset), value);
  GST_OBJECT_UNLOCK (object);
  return TRUE;
}

gboolean
gst_co_settings_set (GObject * object, guint prop_id, const GValue * value)
{
  return table_set (object, table_of (object), prop_id, value);
}

gboolean
gst_co_settings_get (GObject * object, guint prop_id, GValue * value)
{
  return table_get (object, table_of (object), prop_id, value);
}

static void
set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  if (!table_set (object, table_at (pspec->owner_type), prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  if (!table_get (object, table_at (pspec->owner_type), prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

void
gst_co_settings_install (GObjectClass * klass, gsize instance_offset,
    gsize size, const GstCoSetting * settings, guint n,
    const GstCoSettingsHooks * hooks)
{
  Table *tab = g_new0 (Table, 1);
  guint i;

  /* lives as long as the class: classes of a plugin are never freed */
  tab->rows = g_new (GstCoSetting, n);
  memcpy (tab->rows, settings, sizeof (GstCoSetting) * n);
  tab->n = n;
  tab->offset = instance_offset;
  tab->size = size;
  if (hooks)
    tab->hooks = *hooks;
  g_type_set_qdata (G_OBJECT_CLASS_TYPE (klass), table_quark (), tab);
  klass->set_property = set_property;
  klass->get_property = get_property;
  for (i = 0; i < n; i++) {
    /* rows are tied to their ids ([PROP_X - 1] = ...): a hole is an id
     * the table forgot */
    if (!settings[i].pspec)
      g_error ("%s: no setting for property id %u",
          G_OBJECT_CLASS_NAME (klass), i + 1);
    g_object_class_install_property (klass, i + 1, settings[i].pspec);
    /* an enum or flags of the table is the element's own: documented
     * with it */
    if (G_IS_PARAM_SPEC_ENUM (settings[i].pspec) ||
        G_IS_PARAM_SPEC_FLAGS (settings[i].pspec))
      gst_type_mark_as_plugin_api (settings[i].pspec->value_type, 0);
  }
}

void
gst_co_settings_init_instance (GObject * object)
{
  GType t;
  guint i;

  /* every class's table: the bases' and the element's */
  for (t = G_OBJECT_TYPE (object); t; t = g_type_parent (t)) {
    const Table *tab = table_at (t);
    for (i = 0; tab && i < tab->n; i++) {
      const GstCoSetting *row = &tab->rows[i];
      GValue v = G_VALUE_INIT;
      /* a read-only row shows what its owner computes: no default */
      if (!(row->pspec->flags & G_PARAM_WRITABLE))
        continue;
      g_value_init (&v, G_PARAM_SPEC_VALUE_TYPE (row->pspec));
      g_param_value_set_default (row->pspec, &v);
      store (row, field_of (object, tab, row->offset), &v);
      g_value_unset (&v);
    }
  }
}

/* The strings (copied) and byte blocks (referenced) of the settings at
 * @base: taken for a snapshot (@dup) or given back */
static void
free_strings (const Table * tab, gpointer base, gboolean dup)
{
  guint i;

  for (i = 0; tab && i < tab->n; i++) {
    const GstCoSetting *row = &tab->rows[i];
    const GType t = G_PARAM_SPEC_VALUE_TYPE (row->pspec);
    gpointer *field = (gpointer *) ((guint8 *) base + row->offset);
    if (t == G_TYPE_STRING && dup)
      *field = g_strdup (*field);
    else if (t == G_TYPE_STRING)
      g_clear_pointer ((gchar **) field, g_free);
    else if (t == G_TYPE_BYTES && dup && *field)
      g_bytes_ref (*field);
    else if (t == G_TYPE_BYTES)
      g_clear_pointer ((GBytes **) field, g_bytes_unref);
  }
}

void
gst_co_settings_snapshot (GObject * object, gpointer dst)
{
  const Table *tab = table_of (object);

  if (!tab)
    return;
  GST_OBJECT_LOCK (object);
  memcpy (dst, (guint8 *) object + tab->offset, tab->size);
  free_strings (tab, dst, TRUE);
  GST_OBJECT_UNLOCK (object);
}

void
gst_co_settings_snapshot_clear (GObject * object, gpointer snap)
{
  free_strings (table_of (object), snap, FALSE);
}

void
gst_co_settings_finalize (GObject * object)
{
  GType t;

  for (t = G_OBJECT_TYPE (object); t; t = g_type_parent (t)) {
    const Table *tab = table_at (t);
    if (tab)
      free_strings (tab, field_of (object, tab, 0), FALSE);
  }
}

void
gst_co_rebuild_invalidate (GstCoRebuild * r)
{
  r->ready = FALSE;
  r->caps_changed = TRUE;
}

gboolean
gst_co_rebuild_needed (GstObject * object, GstCoRebuild * r)
{
  gboolean need;

  GST_OBJECT_LOCK (object);
  need = r->dirty || !r->ready;
  r->dirty = FALSE;
  GST_OBJECT_UNLOCK (object);
  if (need)
    r->ready = FALSE;
  return need;
}

void
gst_co_rebuild_done (GstCoRebuild * r)
{
  r->ready = TRUE;
  r->caps_changed = FALSE;
}
