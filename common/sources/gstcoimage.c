/* cudaoptics — LGPL-2.1-or-later
 *
 * gstcoimage.h: a picture decoded by a small pipeline of its own
 * (fdsrc ! decodebin ! videoconvert ! GRAY8), run to PAUSED for one
 * sample.  The file is opened by the family's one file opener
 * (gstcofile.h): only a regular file is read, so a FIFO or a device
 * cannot stall the pipeline that asked.
 */
#include "gstcoimage.h"
#include "gstcofile.h"

#include <gst/video/video.h>
#include <string.h>
#include <unistd.h>

/* A picture as @format (@bpp bytes a pixel), decoded by GStreamer (any
 * format it reads); NULL with *why. */
static guint8 *
decode (const gchar * path, const gchar * format, gint bpp, gint * w,
    gint * h, gchar ** why)
{
  /* decodebin reads any picture format installed; a system with only the
   * base decoders still reads PNG */
  GstPluginFeature *db;
  GError *err = NULL;
  gchar *desc;
  GstElement *p, *src, *sink;
  GstBus *bus;
  GstMessage *m;
  GstSample *sample = NULL;
  guint8 *pix = NULL;
  guint64 size = 0;
  int fd = gst_co_file_open (path, &size, &err);

  *why = NULL;
  if (fd < 0) {
    /* the message names the file and says why */
    *why = g_strdup (err->message);
    g_error_free (err);
    return NULL;
  }
  if (size == 0) {
    gchar *name = g_filename_display_name (path);
    *why = g_strdup_printf ("%s: the file is empty", name);
    g_free (name);
    close (fd);
    return NULL;
  }
  db = gst_registry_lookup_feature (gst_registry_get (), "decodebin");
  desc = g_strdup_printf ("fdsrc name=src fd=%d ! %s ! videoconvert ! "
      "video/x-raw,format=%s ! fakesink name=sink", fd, db ? "decodebin" :
      "pngdec", format);
  p = gst_parse_launch (desc, &err);
  g_free (desc);
  if (db)
    gst_object_unref (db);
  if (!p || err) {
    *why = g_strdup_printf ("cannot decode pictures here: %s", err ?
        err->message : "no pipeline");
    g_clear_error (&err);
    if (p)
      gst_object_unref (p);
    close (fd);
    return NULL;
  }
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PAUSED);
  m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR);
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ASYNC_DONE)
    g_object_get (sink, "last-sample", &sample, NULL);
  else if (m) {
    gst_message_parse_error (m, &err, NULL);
    *why = g_strdup (err->message);
    g_error_free (err);
  } else {
    *why = g_strdup ("decoding timed out");
  }
  if (sample) {
    GstVideoInfo info;
    GstVideoFrame f;
    if (gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) &&
        gst_video_frame_map (&f, &info, gst_sample_get_buffer (sample),
            GST_MAP_READ)) {
      gint y;
      *w = GST_VIDEO_INFO_WIDTH (&info);
      *h = GST_VIDEO_INFO_HEIGHT (&info);
      pix = g_malloc ((gsize) * w * *h * bpp);
      for (y = 0; y < *h; y++)
        memcpy (pix + (gsize) y * *w * bpp, (guint8 *)
            GST_VIDEO_FRAME_PLANE_DATA (&f, 0) + (gsize) y *
            GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0), (gsize) * w * bpp);
      gst_video_frame_unmap (&f);
    } else {
      *why = g_strdup ("not a picture");
    }
    gst_sample_unref (sample);
  }
  gst_clear_message (&m);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (p);
  close (fd);
  if (!pix) {
    /* the reason in the words of whoever failed, after the file's name */
    gchar *name = g_filename_display_name (path);
    gchar *msg = g_strdup_printf ("%s: %s", name, *why ? *why :
        "no picture could be decoded from it");
    g_free (*why);
    *why = msg;
    g_free (name);
  }
  return pix;
}


guint8 *
gst_co_decode_gray (const gchar * path, gint * w, gint * h, gchar ** why)
{
  return decode (path, "GRAY8", 1, w, h, why);
}

guint8 *
gst_co_decode_rgb (const gchar * path, gint * w, gint * h, gchar ** why)
{
  return decode (path, "RGB", 3, w, h, why);
}
