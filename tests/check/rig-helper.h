/* cudaoptics — LGPL-2.1-or-later
 *
 * A rig of appsrc inputs into cudacltcorrelate, for the tests that feed it
 * frames by hand (check-coaggregator, check-cudacltcorrelate):
 *
 *   cudacltcorrelate name=c PROPS ! appsink name=out sync=false
 *   appsrc name=s0 format=time SRC_PROPS caps="CAPS" ! [VIA !] c.sink_0
 *   ...
 *
 * GStreamer 1.18 API only (CI builds the tests on Debian 11): the pads are
 * requested by the launch line's c.sink_N.
 */
#ifndef CO_RIG_HELPER_H
#define CO_RIG_HELPER_H

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>

/* as many inputs as cudacltcorrelate takes */
#define CO_RIG_MAX_INPUTS 16

typedef struct
{
  GstElement *pipe, *corr, *sink;
  GstElement *src[CO_RIG_MAX_INPUTS];
  gint n;
} CoRig;

/* The launch line of @n inputs of @caps (each through @via, a chain of
 * elements, or NULL), their appsrc with @src_props (or NULL) */
static inline gchar *
co_rig_description (gint n, const gchar * props, const gchar * src_props,
    const gchar * caps, const gchar * via)
{
  GString *d = g_string_new (NULL);
  gint i;

  g_string_printf (d, "cudacltcorrelate name=c %s ! appsink name=out "
      "sync=false", props ? props : "");
  for (i = 0; i < n; i++)
    g_string_append_printf (d, " appsrc name=s%d format=time %s caps=\"%s\" "
        "! %s%sc.sink_%d", i, src_props ? src_props : "", caps,
        via ? via : "", via ? " ! " : "", i);
  return g_string_free (d, FALSE);
}

/* @r's pipeline of co_rig_description, parsed (not started) */
static inline void
co_rig_init (CoRig * r, gint n, const gchar * props, const gchar * src_props,
    const gchar * caps, const gchar * via)
{
  gchar *d = co_rig_description (n, props, src_props, caps, via);
  GError *err = NULL;
  gint i;

  fail_unless (n <= CO_RIG_MAX_INPUTS, "%d inputs", n);
  r->pipe = gst_parse_launch (d, &err);
  fail_unless (r->pipe != NULL && err == NULL, "%s: %s", d,
      err ? err->message : "no pipeline");
  g_free (d);
  r->corr = gst_bin_get_by_name (GST_BIN (r->pipe), "c");
  r->sink = gst_bin_get_by_name (GST_BIN (r->pipe), "out");
  r->n = n;
  for (i = 0; i < n; i++) {
    gchar name[8];
    g_snprintf (name, sizeof (name), "s%d", i);
    r->src[i] = gst_bin_get_by_name (GST_BIN (r->pipe), name);
  }
}

/* A copy of @img into appsrc @src, stamped @pts, one frame at 30/1 long */
static inline void
co_rig_push_to (GstElement * src, GstBuffer * img, GstClockTime pts)
{
  GstBuffer *buf = gst_buffer_copy (img);

  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (1, GST_SECOND, 30);
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buf),
      GST_FLOW_OK);
}

/* The same into input @i of @r */
static inline void
co_rig_push (CoRig * r, gint i, GstBuffer * img, GstClockTime pts)
{
  co_rig_push_to (r->src[i], img, pts);
}

/* The next output of @sink (NULL at EOS or after @timeout) */
static inline GstSample *
co_rig_pull_from (GstElement * sink, GstClockTime timeout)
{
  return gst_app_sink_try_pull_sample (GST_APP_SINK (sink), timeout);
}

static inline void
co_rig_eos (CoRig * r)
{
  gint i;

  for (i = 0; i < r->n; i++)
    gst_app_src_end_of_stream (GST_APP_SRC (r->src[i]));
}

/* Stopped, and every reference dropped */
static inline void
co_rig_clear (CoRig * r)
{
  gint i;

  gst_element_set_state (r->pipe, GST_STATE_NULL);
  for (i = 0; i < r->n; i++)
    gst_object_unref (r->src[i]);
  gst_object_unref (r->corr);
  gst_object_unref (r->sink);
  gst_object_unref (r->pipe);
}

#endif
