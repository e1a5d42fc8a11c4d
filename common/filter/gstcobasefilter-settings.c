/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter, settings: the family's settings table (gstcosettings.h)
 * with a filter's hooks: a rebuild before the next frame (the dirty mark,
 * which elements set themselves too), a renegotiation of the source pad,
 * the element's setting_changed.
 */
#include "gstcobasefilter-private.h"

static void
changed (GObject * object, guint prop_id)
{
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (object);

  if (klass->setting_changed)
    klass->setting_changed (GST_CO_BASE_FILTER (object), prop_id);
}

void
gst_co_base_filter_mark_dirty (GstCoBaseFilter * self)
{
  self->priv->rebuild.dirty = TRUE;
}

static void
mark_dirty (GObject * object)
{
  gst_co_base_filter_mark_dirty (GST_CO_BASE_FILTER (object));
}

static void
renegotiate (GObject * object)
{
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (object));
}

void
gst_co_base_filter_class_install_settings (GstCoBaseFilterClass * klass,
    gsize instance_offset, gsize size, const GstCoSetting * settings,
    guint n)
{
  const GstCoSettingsHooks hooks = { .changed = changed,
    .mark_dirty = mark_dirty, .renegotiate = renegotiate
  };

  gst_co_settings_install (G_OBJECT_CLASS (klass), instance_offset, size,
      settings, n, &hooks);
}

gboolean
gst_co_base_filter_set_setting (GObject * object, guint prop_id,
    const GValue * value)
{
  return gst_co_settings_set (object, prop_id, value);
}

gboolean
gst_co_base_filter_get_setting (GObject * object, guint prop_id,
    GValue * value)
{
  return gst_co_settings_get (object, prop_id, value);
}

void
co_settings_init (GstCoBaseFilter * self)
{
  gst_co_settings_init_instance (G_OBJECT (self));
}

void
gst_co_base_filter_snapshot (GstCoBaseFilter * self, gpointer dst)
{
  gst_co_settings_snapshot (G_OBJECT (self), dst);
}

void
gst_co_base_filter_snapshot_clear (GstCoBaseFilter * self, gpointer snap)
{
  gst_co_settings_snapshot_clear (G_OBJECT (self), snap);
}

void
co_settings_finalize (GstCoBaseFilter * self)
{
  gst_co_settings_finalize (G_OBJECT (self));
}
