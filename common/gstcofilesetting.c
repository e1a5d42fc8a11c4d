/* cudaoptics — LGPL-2.1-or-later */
#include "gstcofilesetting.h"

GST_DEBUG_CATEGORY_EXTERN (gst_co_base_filter_debug);
#define GST_CAT_DEFAULT gst_co_base_filter_debug

gboolean
gst_co_file_setting_needs_read (const GstCoFileSetting * fs, guint gen)
{
  return gen != fs->loaded_gen && gen != fs->bad_gen;
}

void
gst_co_file_setting_loaded (GstCoFileSetting * fs, guint gen)
{
  fs->loaded_gen = gen;
}

gboolean
gst_co_file_setting_failed (GstCoFileSetting * fs, GstElement * element,
    guint gen, gboolean keep, const gchar * what, const gchar * why)
{
  if (!keep) {
    GST_ELEMENT_ERROR (element, RESOURCE, OPEN_READ, ("Could not read the "
            "%s: %s", what, why), (NULL));
    return FALSE;
  }
  if (gen != fs->bad_gen)
    GST_ELEMENT_WARNING (element, RESOURCE, OPEN_READ, ("Could not read the "
            "%s, keeping the previous one: %s", what, why), (NULL));
  fs->bad_gen = gen;
  return TRUE;
}

void
gst_co_file_setting_reset (GstCoFileSetting * fs)
{
  fs->loaded_gen = fs->bad_gen = 0;
}
