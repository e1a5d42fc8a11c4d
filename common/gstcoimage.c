/* cudaoptics — LGPL-2.1-or-later
 *
 * gstcoimage.h: a picture decoded by a small pipeline of its own
 * (filesrc ! decodebin ! videoconvert ! GRAY8), run to PAUSED for one
 * sample.
 */
#include "gstcoimage.h"

#include <gst/video/video.h>
#include <string.h>

/* A picture as GRAY8, decoded by GStreamer (any format it reads); NULL
 * with *why. */
guint8 *
gst_co_decode_gray (const gchar * path, gint * w, gint * h, gchar ** why)
{
  /* decodebin reads any picture format installed; a system with only the
   * base decoders still reads PNG */
  GstPluginFeature *db = gst_registry_lookup_feature (gst_registry_get (),
      "decodebin");
  GError *err = NULL;
  GstElement *p = gst_parse_launch (db ? "filesrc name=src ! decodebin ! "
      "videoconvert ! video/x-raw,format=GRAY8 ! fakesink name=sink" :
      "filesrc name=src ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 ! "
      "fakesink name=sink", &err);
  GstElement *src, *sink;
  GstBus *bus;
  GstMessage *m;
  GstSample *sample = NULL;
  guint8 *pix = NULL;

  if (db)
    gst_object_unref (db);
  if (!p || err) {
    *why = g_strdup_printf ("cannot decode pictures here: %s", err ?
        err->message : "no pipeline");
    g_clear_error (&err);
    if (p)
      gst_object_unref (p);
    return NULL;
  }
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  g_object_set (src, "location", path, NULL);
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
      pix = g_malloc ((gsize) * w * *h);
      for (y = 0; y < *h; y++)
        memcpy (pix + (gsize) y * *w, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA
            (&f, 0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0), *w);
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
  return pix;
}

