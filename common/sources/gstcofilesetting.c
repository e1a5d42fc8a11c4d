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
gst_co_file_setting_fail (GstCoFileSetting * fs, GstElement * element,
    guint gen, gboolean keep, const gchar * kept, GError ** error)
{
  if (!keep)
    return FALSE;
  if (gen != fs->bad_gen)
    GST_ELEMENT_WARNING (element, RESOURCE, OPEN_READ, ("%s: %s", kept,
            (*error)->message), (NULL));
  fs->bad_gen = gen;
  g_clear_error (error);
  return TRUE;
}

gboolean
gst_co_file_setting_failed (GstCoFileSetting * fs, GstElement * element,
    guint gen, gboolean keep, const gchar * what, const gchar * why)
{
  GError *err;
  gchar *kept;
  gboolean ok;

  if (!keep) {
    GST_ELEMENT_ERROR (element, RESOURCE, OPEN_READ, ("Could not read the "
            "%s: %s", what, why), (NULL));
    return FALSE;
  }
  err = g_error_new_literal (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
      why);
  kept = fs->loaded_gen ? g_strdup_printf ("Could not read the %s, keeping "
      "the previous one", what) : g_strdup_printf ("Could not read the %s",
      what);
  ok = gst_co_file_setting_fail (fs, element, gen, keep, kept, &err);
  g_free (kept);
  return ok;
}

gboolean
gst_co_file_setting_has_failed (const GstCoFileSetting * fs, guint gen)
{
  return gen != 0 && gen == fs->bad_gen;
}

void
gst_co_file_setting_forget_failure (GstCoFileSetting * fs)
{
  fs->bad_gen = 0;
}

void
gst_co_file_setting_reset (GstCoFileSetting * fs)
{
  fs->loaded_gen = fs->bad_gen = 0;
}
