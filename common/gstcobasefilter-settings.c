/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter, settings: the element's properties declared once, as a
 * table (GstCoSetting), read by the base.  Every write takes the object
 * lock, marks a rebuild or renegotiates as the row says (the renegotiation
 * outside the lock, as videoflip does), and a snapshot for the streaming
 * thread is one call.
 */
#include "gstcobasefilter-private.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_co_base_filter_debug

static const GstCoSetting *
row_of (GObject * object, guint prop_id, gpointer * field)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (object);
  const GstCoSetting *row;

  if (prop_id < 1 || prop_id > klass->n_settings)
    return NULL;
  row = &klass->settings[prop_id - 1];
  *field = (guint8 *) object + klass->settings_offset + row->offset;
  return row;
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
  else if (t == G_TYPE_BOOLEAN)
    *(gboolean *) field = g_value_get_boolean (value);
  else if (G_TYPE_IS_ENUM (t))
    *(gint *) field = g_value_get_enum (value);
  else if (t == G_TYPE_STRING) {
    g_free (*(gchar **) field);
    *(gchar **) field = g_value_dup_string (value);
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
  else if (t == G_TYPE_BOOLEAN)
    g_value_set_boolean (value, *(const gboolean *) field);
  else if (G_TYPE_IS_ENUM (t))
    g_value_set_enum (value, *(const gint *) field);
  else if (t == G_TYPE_STRING)
    g_value_set_string (value, *(gchar * const *) field);
  else
    g_assert_not_reached ();
}

gboolean
gst_co_base_filter_set_setting (GObject * object, guint prop_id,
    const GValue * value)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (object);
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  gpointer field;
  const GstCoSetting *row = row_of (object, prop_id, &field);

  GValue old = G_VALUE_INIT;
  gboolean changed;

  if (!row)
    return FALSE;
  g_value_init (&old, G_PARAM_SPEC_VALUE_TYPE (row->pspec));
  GST_OBJECT_LOCK (self);
  load (row, field, &old);
  /* a control source sets its values every frame: only a change (or a
   * file set again, to be read again) rebuilds or renegotiates */
  changed = g_param_values_cmp (row->pspec, &old, value) != 0 ||
      row->gen >= 0;
  store (row, field, value);
  if (row->gen >= 0)
    (*(guint *) ((guint8 *) object + klass->settings_offset + row->gen))++;
  if (klass->setting_changed)
    klass->setting_changed (self, prop_id);
  if (changed && (row->flags & (GST_CO_SETTING_REBUILD |
              GST_CO_SETTING_RESIZE)))
    gst_co_base_filter_mark_dirty (self);
  GST_OBJECT_UNLOCK (self);
  g_value_unset (&old);
  /* outside the lock: renegotiation takes locks of its own */
  if (changed && (row->flags & GST_CO_SETTING_RESIZE))
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
  return TRUE;
}

gboolean
gst_co_base_filter_get_setting (GObject * object, guint prop_id,
    GValue * value)
{
  gpointer field;
  const GstCoSetting *row = row_of (object, prop_id, &field);

  if (!row)
    return FALSE;
  GST_OBJECT_LOCK (object);
  load (row, field, value);
  GST_OBJECT_UNLOCK (object);
  return TRUE;
}

static void
set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  if (!gst_co_base_filter_set_setting (object, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  if (!gst_co_base_filter_get_setting (object, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

void
gst_co_base_filter_class_install_settings (GstCoBaseFilterClass * klass,
    gsize instance_offset, gsize size, const GstCoSetting * settings,
    guint n)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstCoSetting *copy = g_new (GstCoSetting, n);
  guint i;

  memcpy (copy, settings, sizeof (GstCoSetting) * n);
  klass->settings = copy;
  klass->n_settings = n;
  klass->settings_offset = instance_offset;
  klass->settings_size = size;
  oc->set_property = set_property;
  oc->get_property = get_property;
  for (i = 0; i < n; i++)
    g_object_class_install_property (oc, i + 1, settings[i].pspec);
}

/* The pspecs' defaults into a new instance (constructed, before any
 * property is set). */
void
co_settings_init (GstCoBaseFilter * self)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  guint i;

  for (i = 0; i < klass->n_settings; i++) {
    const GstCoSetting *row = &klass->settings[i];
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_PARAM_SPEC_VALUE_TYPE (row->pspec));
    g_param_value_set_default (row->pspec, &v);
    store (row, (guint8 *) self + klass->settings_offset + row->offset, &v);
    g_value_unset (&v);
  }
}

/* The strings of the settings at @base */
static void
free_strings (GstCoBaseFilterClass * klass, gpointer base, gboolean dup)
{
  guint i;

  for (i = 0; i < klass->n_settings; i++) {
    const GstCoSetting *row = &klass->settings[i];
    gchar **str = (gchar **) ((guint8 *) base + row->offset);
    if (G_PARAM_SPEC_VALUE_TYPE (row->pspec) != G_TYPE_STRING)
      continue;
    if (dup)
      *str = g_strdup (*str);
    else
      g_clear_pointer (str, g_free);
  }
}

void
gst_co_base_filter_snapshot (GstCoBaseFilter * self, gpointer dst)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);

  GST_OBJECT_LOCK (self);
  memcpy (dst, (guint8 *) self + klass->settings_offset,
      klass->settings_size);
  free_strings (klass, dst, TRUE);
  GST_OBJECT_UNLOCK (self);
}

void
gst_co_base_filter_snapshot_clear (GstCoBaseFilter * self, gpointer snap)
{
  free_strings (GST_CO_BASE_FILTER_GET_CLASS (self), snap, FALSE);
}

/* The live settings' strings, at finalize */
void
co_settings_finalize (GstCoBaseFilter * self)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);

  free_strings (klass, (guint8 *) self + klass->settings_offset, FALSE);
}
