/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseAggregator's duties as a GStreamer aggregator, through
 * cudacltcorrelate (its one element): outputs stamped in the segment after
 * a seek, controlled properties at stream time, queries without side
 * effects, the pools it offers and uses, cameras out of phase, GAP events,
 * frames before caps, pads requested past the limit and released while
 * PLAYING; and what the element must refuse or survive: pairs lists, rigs
 * of many pairs, calibration files changed one pad at a time while
 * PLAYING, non-finite values.  CPU backend; --backend=cuda runs the same
 * on CUDA and exits 77 (skipped) where no device is usable.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include "gstcodevice.h"
#include "gstcocompat.h"
#include "family-check.h"
#include "rig-helper.h"
#include "../clt-texture.h"
#include "../../include/cudaoptics/co-results.h"

#define W 64
#define H 48
#define RESULTS "GstCoCltCorrelation"

/* gst_element_request_pad_simple is 1.20's name */
static GstPad *
request_pad (GstElement * e)
{
  GstPadTemplate *t = gst_element_get_pad_template (e, "sink_%u");
  return gst_element_request_pad (e, t, NULL, NULL);
}

static const gchar *the_backend = "cpu";

/* cpu, or cuda (--backend=cuda: the GPU run) */
static const gchar *
backend (void)
{
  return the_backend;
}

static GstElement *
launch (const gchar * fmt, ...)
{
  GstElement *pipe;
  GError *err = NULL;
  va_list args;
  gchar *desc;

  va_start (args, fmt);
  desc = g_strdup_vprintf (fmt, args);
  va_end (args);
  pipe = gst_parse_launch (desc, &err);
  fail_unless (pipe != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "");
  g_free (desc);
  return pipe;
}

static GstElement *
by_name (GstElement * pipe, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  fail_unless (e != NULL, "%s", name);
  gst_object_unref (e);         /* the bin holds it */
  return e;
}

/* The first message of @types on @pipe's bus within @timeout_ms, as text
 * (NULL: none); *@type: its type */
static gchar *
next_message (GstElement * pipe, GstMessageType types, gint timeout_ms,
    GstMessageType * type)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, timeout_ms * GST_MSECOND,
      types);
  gchar *text = NULL;

  if (type)
    *type = m ? GST_MESSAGE_TYPE (m) : 0;
  if (m) {
    GError *e = NULL;
    gchar *dbg = NULL;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
      gst_message_parse_error (m, &e, &dbg);
    else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING)
      gst_message_parse_warning (m, &e, &dbg);
    text = e ? g_strdup_printf ("%s (%s)", e->message, GST_STR_NULL (dbg)) :
        g_strdup (GST_MESSAGE_TYPE_NAME (m));
    g_clear_error (&e);
    g_free (dbg);
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  return text;
}

/* No ERROR on the bus so far */
static void
assert_no_error (GstElement * pipe, const gchar * what)
{
  gchar *text = next_message (pipe, GST_MESSAGE_ERROR, 0, NULL);
  fail_unless (text == NULL, "%s: %s", what, GST_STR_NULL (text));
}

/* The first warning that is not the CPU fallback's (no GPU here) */
static gchar *
warning_of (GstElement * pipe, gint timeout_ms)
{
  gchar *w;

  while ((w = next_message (pipe, GST_MESSAGE_WARNING, timeout_ms, NULL)) &&
      strstr (w, "CUDA"))
    g_free (w);
  return w;
}

/* The error a pipeline ends with (NULL: it reached EOS) */
static gchar *
run_to_end (GstElement * pipe)
{
  GstMessageType type;
  gchar *text;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  text = next_message (pipe, GST_MESSAGE_ERROR | GST_MESSAGE_EOS, 20000,
      &type);
  gst_element_set_state (pipe, GST_STATE_NULL);
  fail_unless (type != 0, "no EOS nor error in 20 s");
  if (type == GST_MESSAGE_EOS) {
    g_free (text);
    return NULL;
  }
  return text;
}

/* A textured GRAY8 frame, moved by @dx */
static GstBuffer *
frame (guint32 seed, gdouble dx)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, W * H, NULL);
  GstMapInfo map;
  CoTexture t;
  gint x, y;

  co_texture_init (&t, seed, 80);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++)
      map.data[y * W + x] = (guint8) CLAMP (lrint (128 + 40 *
              co_texture_at (&t, x - dx, y)), 0, 255);
  gst_buffer_unmap (buf, &map);
  return buf;
}

#define push co_rig_push_to

/* @n appsrc inputs s0.. of @caps into c (on the run's backend, with
 * @props), appsink out (tests/check/rig-helper.h) */
static GstElement *
appsrc_rig_of (gint n, const gchar * props, const gchar * caps)
{
  gchar *p = g_strdup_printf ("backend=%s %s", backend (), props);
  gchar *d = co_rig_description (n, p, NULL, caps, NULL);
  GstElement *pipe = launch ("%s", d);

  g_free (d);
  g_free (p);
  return pipe;
}

/* @n inputs of GRAY8 W x H at 30/1 */
static GstElement *
appsrc_rig (gint n, const gchar * props)
{
  gchar *caps = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,"
      "height=%d,framerate=30/1", W, H);
  GstElement *pipe = appsrc_rig_of (n, props, caps);

  g_free (caps);
  return pipe;
}

/* The next output (NULL at EOS or after 10 s) */
static GstSample *
pull (GstElement * pipe)
{
  return co_rig_pull_from (by_name (pipe, "out"), 10 * GST_SECOND);
}

static const GstStructure *
results_of (GstSample * s)
{
  return gst_co_buffer_get_results (gst_sample_get_buffer (s), RESULTS);
}

/* ---- the aggregator's duties ---- */

static GstClockTime first_after_flush;
static gboolean flushed;
static gdouble lpf_after_flush;

/* The first buffer after a flush, as it leaves the element (before any
 * sink drops it as out of segment) */
static GstPadProbeReturn
after_flush (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if ((info->type & GST_PAD_PROBE_TYPE_EVENT_FLUSH) &&
      GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_FLUSH_STOP)
    flushed = TRUE;
  else if ((info->type & GST_PAD_PROBE_TYPE_BUFFER) && flushed &&
      !GST_CLOCK_TIME_IS_VALID (first_after_flush)) {
    first_after_flush = GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (info));
    /* the value the controller gave this frame (the streaming thread) */
    g_object_get (data, "lpf-sigma", &lpf_after_flush, NULL);
  }
  return GST_PAD_PROBE_OK;
}

/* After a flushing seek to 2 s, the first output is stamped at 2 s in a
 * segment that starts there (not at running time 0, which every sink
 * drops as out of segment), the results say the same, and a controlled
 * property takes its value at that stream time. */
GST_START_TEST (test_seek_stamps_segment_time)
{
  GstElement *pipe, *c;
  GstControlSource *cs;
  GstSample *s;
  GstBuffer *buf;
  const GstSegment *seg;
  guint64 stamp = 0;

  pipe = launch ("videotestsrc pattern=snow ! video/x-raw,format=GRAY8,"
      "width=%d,height=%d,framerate=30/1 ! cudacltcorrelate name=c "
      "backend=%s mode=temporal ! appsink name=out sync=false", W, H,
      backend ());
  c = by_name (pipe, "c");
  first_after_flush = GST_CLOCK_TIME_NONE;
  flushed = FALSE;
  {
    GstPad *src = gst_element_get_static_pad (c, "src");
    gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER |
        GST_PAD_PROBE_TYPE_EVENT_FLUSH, after_flush, c, NULL);
    gst_object_unref (src);
  }
  /* lpf-sigma 0 before 1.5 s of stream time, 1 after (0..8 as 0..1) */
  cs = gst_interpolation_control_source_new ();
  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs), 0,
      0.0);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs),
      GST_SECOND * 3 / 2, 1.0 / 8);
  gst_object_add_control_binding (GST_OBJECT (c),
      gst_direct_control_binding_new (GST_OBJECT (c), "lpf-sigma", cs));
  gst_object_unref (cs);

  /* playing for a while (running time goes on), then the seek */
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  s = pull (pipe);
  fail_unless (s != NULL);
  gst_sample_unref (s);
  fail_unless (gst_element_get_state (pipe, NULL, NULL, 10 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, 2 * GST_SECOND));
  s = pull (pipe);
  fail_unless (s != NULL);
  buf = gst_sample_get_buffer (s);
  seg = gst_sample_get_segment (s);
  GST_INFO ("after the seek: %" GST_TIME_FORMAT " in %" GST_SEGMENT_FORMAT,
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), seg);
  fail_unless_equals_uint64 (seg->start, 2 * GST_SECOND);
  fail_unless (first_after_flush == 2 * GST_SECOND, "first output after "
      "the seek stamped %" GST_TIME_FORMAT, GST_TIME_ARGS (first_after_flush));
  fail_unless (GST_BUFFER_PTS (buf) >= 2 * GST_SECOND &&
      GST_BUFFER_PTS (buf) < 2 * GST_SECOND + GST_SECOND / 10,
      "stamped %" GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  fail_unless (GST_CLOCK_TIME_IS_VALID (gst_segment_to_running_time (seg,
              GST_FORMAT_TIME, GST_BUFFER_PTS (buf))));
  fail_unless (results_of (s) != NULL);
  fail_unless (gst_structure_get_uint64 (results_of (s), "timestamp",
          &stamp));
  fail_unless_equals_uint64 (stamp, GST_BUFFER_PTS (buf));
  fail_unless (fabs (lpf_after_flush - 1.0) < 1e-6, "lpf-sigma %g at "
      "stream time 2 s", lpf_after_flush);
  gst_sample_unref (s);
  assert_no_error (pipe, "seek");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* An ACCEPT_CAPS query for frames smaller than a tile is answered no,
 * and that is all: no ERROR on the bus; the CAPS answer leaves them out. */
GST_START_TEST (test_queries_have_no_side_effects)
{
  GstElement *pipe = launch ("cudacltcorrelate name=c backend=%s ! fakesink",
      backend ());
  GstElement *c = by_name (pipe, "c");
  GstPad *pad = request_pad (c);
  GstCaps *small = gst_caps_from_string ("video/x-raw,format=GRAY8,width=8,"
      "height=8,framerate=30/1");
  GstCaps *fine = gst_caps_from_string ("video/x-raw,format=GRAY8,width=64,"
      "height=48,framerate=30/1");
  GstCaps *answer;

  gst_element_set_state (pipe, GST_STATE_PAUSED);
  fail_if (gst_pad_query_accept_caps (pad, small));
  fail_unless (gst_pad_query_accept_caps (pad, fine));
  answer = gst_pad_query_caps (pad, small);
  fail_unless (gst_caps_is_empty (answer), "%" GST_PTR_FORMAT, answer);
  gst_caps_unref (answer);
  assert_no_error (pipe, "ACCEPT_CAPS");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_element_release_request_pad (c, pad);
  gst_object_unref (pad);
  gst_caps_unref (small);
  gst_caps_unref (fine);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* Every input is offered the family's pool (video meta; pinned memory on
 * the CUDA backend), and output=map's pictures come from a pool. */
GST_START_TEST (test_allocation)
{
  GstElement *pipe = appsrc_rig (2, "output=map");
  GstElement *c = by_name (pipe, "c");
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=GRAY8,width=64,"
      "height=48,framerate=30/1");
  GstBuffer *img = frame (1, 0);
  GstQuery *q;
  GstPad *pad;
  GstSample *s;
  guint i;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (i = 0; i < 2; i++) {
    gchar name[8];
    GstBufferPool *pool = NULL;
    GstAllocator *alloc = NULL;
    g_snprintf (name, sizeof (name), "sink_%u", i);
    pad = gst_element_get_static_pad (c, name);
    q = gst_query_new_allocation (caps, TRUE);
    fail_unless (gst_pad_query (pad, q), "%s: no answer", name);
    fail_unless (gst_query_get_n_allocation_pools (q) >= 1, "%s: no pool",
        name);
    fail_unless (gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE,
            NULL));
    gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
    fail_unless (pool != NULL);
    if (gst_query_get_n_allocation_params (q) > 0)
      gst_query_parse_nth_allocation_param (q, 0, &alloc, NULL);
    GST_INFO ("%s: pool %" GST_PTR_FORMAT ", allocator %s", name, pool,
        alloc ? G_OBJECT_TYPE_NAME (alloc) : "none");
    if (g_str_equal (backend (), "cuda"))
      fail_unless (alloc && g_str_equal (G_OBJECT_TYPE_NAME (alloc),
              "GstCoHostAllocator"), "%s: no pinned allocator", name);
    gst_clear_object (&alloc);
    gst_object_unref (pool);
    gst_query_unref (q);
    gst_object_unref (pad);
  }
  for (i = 0; i < 2; i++)
    push (by_name (pipe, i ? "s1" : "s0"), img, 0);
  s = pull (pipe);
  fail_unless (s != NULL);
  fail_unless (gst_sample_get_buffer (s)->pool != NULL,
      "output=map's picture is not from a pool");
  fail_unless (results_of (s) != NULL);
  gst_sample_unref (s);
  assert_no_error (pipe, "allocation");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_caps_unref (caps);
  gst_buffer_unref (img);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* Three cameras at 30 frames/s, 11 ms apart in phase (not synchronised):
 * each instant matches the nearest frames, none is dropped for good. */
GST_START_TEST (test_cameras_out_of_phase)
{
  GstElement *pipe = appsrc_rig (3, "");
  GstBuffer *img = frame (2, 0);
  gint k, i, outs = 0;
  GstSample *s;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (k = 0; k < 10; k++)
    for (i = 0; i < 3; i++) {
      gchar name[4];
      g_snprintf (name, sizeof (name), "s%d", i);
      push (by_name (pipe, name), img, k * GST_SECOND / 30 +
          i * 11 * GST_MSECOND);
    }
  for (i = 0; i < 3; i++) {
    gchar name[4];
    g_snprintf (name, sizeof (name), "s%d", i);
    gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipe, name)));
  }
  while ((s = pull (pipe))) {
    fail_unless (results_of (s) != NULL);
    outs++;
    gst_sample_unref (s);
  }
  GST_INFO ("%d outputs of 10 instants", outs);
  fail_unless (outs >= 9, "%d outputs of 10 instants", outs);
  assert_no_error (pipe, "out of phase");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_unref (img);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* With an explicit max-skew the cameras' offset exceeds, the warning says
 * what to set. */
GST_START_TEST (test_skew_warning_names_property)
{
  GstElement *pipe = appsrc_rig (2, "max-skew=1000000");
  GstBuffer *img = frame (2, 0);
  gchar *w;
  gint k;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (k = 0; k < 4; k++) {
    push (by_name (pipe, "s0"), img, k * GST_SECOND / 30);
    push (by_name (pipe, "s1"), img, k * GST_SECOND / 30 + 11 * GST_MSECOND);
  }
  w = warning_of (pipe, 5000);
  fail_unless (w && strstr (w, "max-skew") && strstr (w, "11.000 ms"), "%s",
      GST_STR_NULL (w));
  g_free (w);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_unref (img);
  gst_object_unref (pipe);
}

GST_END_TEST;

static gint gaps_seen;

static GstPadProbeReturn
count_gaps (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_GAP)
    g_atomic_int_inc (&gaps_seen);
  return GST_PAD_PROBE_OK;
}

/* sink_1's frame at 1/30 s becomes a GAP event, in its streaming thread
 * (the order a live source's would have) */
static GstPadProbeReturn
frame_to_gap (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  if (GST_BUFFER_PTS (buf) != GST_SECOND / 30)
    return GST_PAD_PROBE_OK;
  gst_pad_push_event (pad, gst_event_new_gap (GST_BUFFER_PTS (buf),
          GST_BUFFER_DURATION (buf)));
  return GST_PAD_PROBE_DROP;
}

/* sink_1's second frame is lost (a GAP event in its place): the instant
 * gives a gap downstream, the others their results; no error. */
GST_START_TEST (test_gap_event)
{
  GstElement *pipe = appsrc_rig (2, "");
  GstBuffer *img = frame (3, 0);
  GstPad *sinkpad, *s1pad;
  GstSample *s;
  gint k, outs = 0;

  gaps_seen = 0;
  sinkpad = gst_element_get_static_pad (by_name (pipe, "out"), "sink");
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, count_gaps,
      NULL, NULL);
  s1pad = gst_element_get_static_pad (by_name (pipe, "s1"), "src");
  gst_pad_add_probe (s1pad, GST_PAD_PROBE_TYPE_BUFFER, frame_to_gap, NULL,
      NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (k = 0; k < 3; k++) {
    push (by_name (pipe, "s0"), img, k * GST_SECOND / 30);
    push (by_name (pipe, "s1"), img, k * GST_SECOND / 30);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipe, "s0")));
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipe, "s1")));
  while ((s = pull (pipe))) {
    fail_unless (results_of (s) != NULL);
    outs++;
    gst_sample_unref (s);
  }
  assert_no_error (pipe, "GAP");
  fail_unless_equals_int (outs, 2);
  fail_unless_equals_int (g_atomic_int_get (&gaps_seen), 1);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sinkpad);
  gst_object_unref (s1pad);
  gst_buffer_unref (img);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* Frames without caps: an error that says so */
GST_START_TEST (test_frames_before_caps)
{
  GstElement *pipe = launch ("cudacltcorrelate name=c backend=%s ! fakesink "
      "appsrc name=s0 format=time ! c.sink_0 appsrc name=s1 format=time ! "
      "c.sink_1", backend ());
  GstBuffer *img = frame (4, 0);
  gchar *text;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  push (by_name (pipe, "s0"), img, 0);
  push (by_name (pipe, "s1"), img, 0);
  text = next_message (pipe, GST_MESSAGE_ERROR, 10000, NULL);
  fail_unless (text && strstr (text, "before its caps"), "%s",
      GST_STR_NULL (text));
  g_free (text);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_unref (img);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* A 17th request pad is refused (NULL), not a fatal error */
GST_START_TEST (test_pad_limit)
{
  GstElement *pipe = launch ("cudacltcorrelate name=c ! fakesink");
  GstElement *c = by_name (pipe, "c");
  GstPad *pads[17];
  gint i;

  for (i = 0; i < 17; i++)
    pads[i] = request_pad (c);
  for (i = 0; i < 16; i++)
    fail_unless (pads[i] != NULL);
  fail_unless (pads[16] == NULL);
  assert_no_error (pipe, "17th pad");
  for (i = 0; i < 16; i++) {
    gst_element_release_request_pad (c, pads[i]);
    gst_object_unref (pads[i]);
  }
  gst_object_unref (pipe);
}

GST_END_TEST;

/* sink_2 released while frames flow (its staging frame, on CUDA, is freed
 * by the streaming thread); the other two go on. */
GST_START_TEST (test_release_while_playing)
{
  GstElement *pipe = appsrc_rig (3, "");
  GstElement *c = by_name (pipe, "c"), *s2 = by_name (pipe, "s2");
  GstBuffer *img = frame (5, 0);
  GstPad *pad;
  GstSample *smp;
  gint k, outs = 0;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (k = 0; k < 12; k++) {
    push (by_name (pipe, "s0"), img, k * GST_SECOND / 30);
    push (by_name (pipe, "s1"), img, k * GST_SECOND / 30);
    if (k < 4)
      push (s2, img, k * GST_SECOND / 30);
    if (k == 4) {
      pad = gst_element_get_static_pad (c, "sink_2");
      /* locked first: the playing bin re-syncs its children's states
       * (under qemu it set s2 back to PLAYING between these two calls,
       * and s2 was then disposed in PLAYING) */
      gst_object_ref (s2);
      gst_element_set_locked_state (s2, TRUE);
      fail_unless (gst_element_set_state (s2, GST_STATE_NULL) ==
          GST_STATE_CHANGE_SUCCESS);
      gst_bin_remove (GST_BIN (pipe), s2);
      gst_element_release_request_pad (c, pad);
      gst_object_unref (pad);
      gst_object_unref (s2);
    }
  }
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipe, "s0")));
  gst_app_src_end_of_stream (GST_APP_SRC (by_name (pipe, "s1")));
  while ((smp = pull (pipe))) {
    outs++;
    gst_sample_unref (smp);
  }
  GST_INFO ("%d outputs", outs);
  fail_unless (outs >= 10, "%d outputs", outs);
  assert_no_error (pipe, "release");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_unref (img);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* Raw Bayer frames carrying the video meta of the picture they were made
 * from (rgb2bayer copies its input's, ARGB): read as their caps say, as
 * the filters do, not refused as a frame that cannot be mapped. */
GST_START_TEST (test_bayer_with_foreign_meta)
{
  gchar *caps = g_strdup_printf ("video/x-bayer,format=rggb,width=%d,"
      "height=%d,framerate=30/1", W, H);
  GstElement *pipe = appsrc_rig_of (2, "", caps);
  GstBuffer *img[2] = { frame (9, 0), frame (9, 1) };
  GstSample *s;
  gint i;

  g_free (caps);

  for (i = 0; i < 2; i++)
    /* the size of the frame's bytes, another format's layout */
    gst_buffer_add_video_meta (img[i], GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_ARGB, W / 4, H);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  push (by_name (pipe, "s0"), img[0], 0);
  push (by_name (pipe, "s1"), img[1], 0);
  s = pull (pipe);
  fail_unless (s != NULL && results_of (s) != NULL);
  gst_sample_unref (s);
  assert_no_error (pipe, "Bayer with an ARGB meta");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_unref (img[0]);
  gst_buffer_unref (img[1]);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* ---- what the element refuses or survives ---- */

GST_START_TEST (test_pairs_lists)
{
  const struct
  {
    const gchar *pairs, *expect;
  } cases[] = {
    {"0-1x", "not a pair"},
    {"-1-0", "not a pair"},
    {"0-1,0-1", "twice"},
    {"0-1,,1-0", "not a pair"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstElement *pipe = launch ("cudacltcorrelate name=c backend=%s "
        "pairs=\"%s\" ! fakesink videotestsrc num-buffers=2 ! "
        "video/x-raw,format=GRAY8,width=%d,height=%d ! c.sink_0 "
        "videotestsrc num-buffers=2 ! video/x-raw,format=GRAY8,width=%d,"
        "height=%d ! c.sink_1", backend (), cases[i].pairs, W, H, W, H);
    gchar *text = run_to_end (pipe);
    GST_INFO ("%s: %s", cases[i].pairs, GST_STR_NULL (text));
    fail_unless (text && strstr (text, cases[i].expect) &&
        !strstr (text, "4294967295"), "%s: %s", cases[i].pairs,
        GST_STR_NULL (text));
    g_free (text);
    gst_object_unref (pipe);
  }
}

GST_END_TEST;

/* A calibration file of camera @k at (@x, 0), P's fourth column @p03 */
static gchar *
camera_file (const gchar * dir, gint k, gdouble p03)
{
  gchar *path = g_strdup_printf ("%s/cam%d.yaml", dir, k);
  gchar *text = g_strdup_printf ("image_width: %d\nimage_height: %d\n"
      "camera_matrix: {rows: 3, cols: 3, data: [100, 0, %g, 0, 100, %g, 0, "
      "0, 1]}\n"
      "distortion_model: plumb_bob\n"
      "distortion_coefficients: {rows: 1, cols: 5, data: [0, 0, 0, 0, 0]}\n"
      "rectification_matrix: {rows: 3, cols: 3, data: [1, 0, 0, 0, 1, 0, 0, "
      "0, 1]}\n"
      "projection_matrix: {rows: 3, cols: 4, data: [100, 0, %g, %.9g, 0, "
      "100, %g, 0, 0, 0, 1, 0]}\n", W, H, W / 2.0, H / 2.0, W / 2.0, p03,
      H / 2.0);
  fail_unless (g_file_set_contents (path, text, -1, NULL));
  g_free (text);
  return path;
}

/* @n calibrated cameras 10 px apart and a pairs list: the launch line */
static gchar *
calibrated_rig (const gchar * dir, gint n, const gchar * pairs)
{
  GString *d = g_string_new (NULL), *inputs = g_string_new (NULL);
  gint k;

  g_string_printf (d, "cudacltcorrelate name=c backend=%s pairs=\"%s\"",
      backend (), pairs);
  for (k = 0; k < n; k++) {
    gchar *cam = camera_file (dir, k, -1000.0 * k);
    g_string_append_printf (d, " sink_%d::calibration-file=\"%s\"", k, cam);
    g_string_append_printf (inputs, " videotestsrc num-buffers=1 ! "
        "video/x-raw,format=GRAY8,width=%d,height=%d ! c.sink_%d", W, H, k);
    g_free (cam);
  }
  g_string_append_printf (d, " ! fakesink %s", inputs->str);
  g_string_free (inputs, TRUE);
  return g_string_free (d, FALSE);
}

static void
remove_dir (gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  while (d && (name = g_dir_read_name (d))) {
    gchar *p = g_build_filename (dir, name, NULL);
    g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
  g_free (dir);
}

/* More pairs than a rig holds: an error, never a write past the rig */
GST_START_TEST (test_many_pairs)
{
  gchar *dir = g_dir_make_tmp ("co-agg-XXXXXX", NULL);
  GString *all = g_string_new (NULL), *same = g_string_new (NULL);
  gchar *desc, *text;
  GstElement *pipe;
  gint a, b;

  for (a = 0; a < 12; a++)
    for (b = 0; b < 12; b++)
      if (a != b)
        g_string_append_printf (all, "%s%d-%d", all->len ? "," : "", a, b);
  for (a = 0; a < 125; a++)
    g_string_append_printf (same, "%s0-1", a ? "," : "");

  desc = calibrated_rig (dir, 12, all->str);
  pipe = launch ("%s", desc);
  text = run_to_end (pipe);
  fail_unless (text && strstr (text, "at most"), "%s", GST_STR_NULL (text));
  g_free (text);
  g_free (desc);
  gst_object_unref (pipe);

  desc = calibrated_rig (dir, 2, same->str);
  pipe = launch ("%s", desc);
  text = run_to_end (pipe);
  fail_unless (text && strstr (text, "twice"), "%s", GST_STR_NULL (text));
  g_free (text);
  g_free (desc);
  gst_object_unref (pipe);

  g_string_free (all, TRUE);
  g_string_free (same, TRUE);
  remove_dir (dir);
}

GST_END_TEST;

/* Calibrations set one pad after the other while PLAYING pass through a
 * partial rig: a warning, frames go on without the rig's geometry, and it
 * comes once every camera has its file.  A live file that cannot be used
 * (no baseline) is a warning too, and the rig stays as it was. */
GST_START_TEST (test_live_calibration_files)
{
  gchar *dir = g_dir_make_tmp ("co-agg-XXXXXX", NULL);
  gchar *cam0 = camera_file (dir, 0, 0), *cam1 = camera_file (dir, 1, -1000);
  gchar *dup = g_strdup_printf ("%s/dup.yaml", dir), *text, *w;
  GstElement *pipe = appsrc_rig (2, "");
  GstElement *c = by_name (pipe, "c");
  GstBuffer *img[2] = { frame (6, 0), frame (6, 1.5) };
  GstSample *s;
  gint k, frame_no = 0;

  fail_unless (g_file_get_contents (cam0, &text, NULL, NULL));
  fail_unless (g_file_set_contents (dup, text, -1, NULL));
  g_free (text);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
#define STEP(n, rig) \
  for (k = 0; k < (n); k++, frame_no++) { \
    push (by_name (pipe, "s0"), img[0], frame_no * GST_SECOND / 30); \
    push (by_name (pipe, "s1"), img[1], frame_no * GST_SECOND / 30); \
    s = pull (pipe); \
    fail_unless (s != NULL && results_of (s) != NULL, "frame %d", frame_no); \
    fail_unless (gst_structure_has_field (results_of (s), "rig-disparity") \
        == (rig), "frame %d: rig %d expected", frame_no, (rig)); \
    gst_sample_unref (s); \
  }
  STEP (2, FALSE);
  gst_child_proxy_set (GST_CHILD_PROXY (c), "sink_0::calibration-file", cam0,
      NULL);
  STEP (2, FALSE);
  w = warning_of (pipe, 2000);
  fail_unless (w && strstr (w, "sink_1"), "%s", GST_STR_NULL (w));
  g_free (w);
  gst_child_proxy_set (GST_CHILD_PROXY (c), "sink_1::calibration-file", cam1,
      NULL);
  STEP (2, TRUE);
  /* both cameras at one place: no baseline; the rig stays */
  gst_child_proxy_set (GST_CHILD_PROXY (c), "sink_1::calibration-file", dup,
      NULL);
  STEP (2, TRUE);
  w = warning_of (pipe, 2000);
  fail_unless (w && strstr (w, "baseline"), "%s", GST_STR_NULL (w));
  g_free (w);
#undef STEP
  assert_no_error (pipe, "live calibration files");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_unref (img[0]);
  gst_buffer_unref (img[1]);
  gst_object_unref (pipe);
  g_free (cam0);
  g_free (cam1);
  g_free (dup);
  remove_dir (dir);
}

GST_END_TEST;

static gint
n_tiles (void)
{
  return (W / 8 + 1) * (H / 8 + 1);
}

/* Shifts and strengths of one output are all finite */
static void
assert_finite (GstSample * s, const gchar * what)
{
  const gchar *fields[] = { "shift-x", "shift-y", "strength" };
  guint f;

  fail_unless (s != NULL && results_of (s) != NULL, "%s", what);
  for (f = 0; f < G_N_ELEMENTS (fields); f++) {
    const GValue *v = gst_structure_get_value (results_of (s), fields[f]);
    gsize size, i;
    const gfloat *x = g_bytes_get_data (g_value_get_boxed (v), &size);
    for (i = 0; i < size / sizeof (gfloat); i++)
      fail_unless (isfinite (x[i]) && fabsf (x[i]) < 1e4, "%s: %s[%"
          G_GSIZE_FORMAT "] = %g", what, fields[f], i, x[i]);
  }
}

/* A pre-shift holding NaN, inf or 1e30 is refused with a warning, never
 * turned into NaN results or an overflowing conversion; a calibration
 * whose projection is absurd is an error before the first frame. */
GST_START_TEST (test_non_finite_values)
{
  const gfloat bad[] = { NAN, INFINITY, -INFINITY, 1e30f };
  GstBuffer *img = frame (7, 0);
  guint b;

  for (b = 0; b < G_N_ELEMENTS (bad); b++) {
    GstElement *pipe = appsrc_rig (2, "");
    gint n = n_tiles (), i;
    gfloat *v = g_new (gfloat, 2 * n);
    GBytes *bytes;
    GstSample *s;
    gchar *w;

    for (i = 0; i < 2 * n; i++)
      v[i] = i == n / 2 ? bad[b] : 0.5f;
    bytes = g_bytes_new_take (v, 2 * n * sizeof (gfloat));
    g_object_set (by_name (pipe, "c"), "pre-shift", bytes, NULL);
    g_bytes_unref (bytes);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    push (by_name (pipe, "s0"), img, 0);
    push (by_name (pipe, "s1"), img, 0);
    s = pull (pipe);
    assert_finite (s, "pre-shift");
    gst_sample_unref (s);
    w = warning_of (pipe, 2000);
    fail_unless (w && strstr (w, "pre-shift"), "%g: %s", bad[b],
        GST_STR_NULL (w));
    g_free (w);
    assert_no_error (pipe, "pre-shift");
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
  }
  gst_buffer_unref (img);

  {
    gchar *dir = g_dir_make_tmp ("co-agg-XXXXXX", NULL);
    gchar *cam0 = camera_file (dir, 0, 0), *cam1 = camera_file (dir, 1,
        -1e30);
    gchar *text;
    GstElement *pipe = launch ("cudacltcorrelate name=c backend=%s "
        "sink_0::calibration-file=\"%s\" sink_1::calibration-file=\"%s\" ! "
        "fakesink videotestsrc num-buffers=2 ! video/x-raw,format=GRAY8,"
        "width=%d,height=%d ! c.sink_0 videotestsrc num-buffers=2 ! "
        "video/x-raw,format=GRAY8,width=%d,height=%d ! c.sink_1", backend (),
        cam0, cam1, W, H, W, H);
    text = run_to_end (pipe);
    fail_unless (text && strstr (text, "baseline"), "%s", GST_STR_NULL (text));
    g_free (text);
    gst_object_unref (pipe);
    g_free (cam0);
    g_free (cam1);
    remove_dir (dir);
  }
}

GST_END_TEST;

/* Tiles without energy (a black border) say nothing: shift 0 and
 * strength 0, even against an identical frame, at any refinement.  (A
 * flat grey tile still has its mean, which the lapped transform's window
 * turns into low frequencies: issue 41's confidence work.) */
GST_START_TEST (test_flat_tiles)
{
  const gchar *props[] = { "", "refine=8", "mode=temporal" };
  GstBuffer *img = frame (8, 0);
  GstMapInfo map;
  guint p;
  gint x, y;

  /* the right half black */
  gst_buffer_map (img, &map, GST_MAP_WRITE);
  for (y = 0; y < H; y++)
    for (x = W / 2; x < W; x++)
      map.data[y * W + x] = 0;
  gst_buffer_unmap (img, &map);
  for (p = 0; p < G_N_ELEMENTS (props); p++) {
    const gboolean temporal = strstr (props[p], "temporal") != NULL;
    GstElement *pipe = appsrc_rig (temporal ? 1 : 2, props[p]);
    const gint tx = W / 8 + 1;
    const gfloat *sx, *st;
    GstSample *s;
    gsize size;
    gint i;

    gst_element_set_state (pipe, GST_STATE_PLAYING);
    push (by_name (pipe, "s0"), img, 0);
    if (temporal)
      push (by_name (pipe, "s0"), img, GST_SECOND / 30);
    else
      push (by_name (pipe, "s1"), img, 0);
    s = pull (pipe);
    if (temporal) {
      gst_sample_unref (s);
      s = pull (pipe);
    }
    fail_unless (s && results_of (s));
    sx = g_bytes_get_data (g_value_get_boxed (gst_structure_get_value
            (results_of (s), "shift-x")), &size);
    st = g_bytes_get_data (g_value_get_boxed (gst_structure_get_value
            (results_of (s), "strength")), &size);
    /* tiles wholly in the black half: x from W/2 + 8 on */
    for (i = 0; i < n_tiles (); i++)
      if ((i % tx) * 8 >= W / 2 + 8) {
        fail_unless (fabsf (sx[i]) < 1e-6 && fabsf (st[i]) < 1e-6,
            "%s: black tile %d: shift %g strength %g", props[p], i, sx[i],
            st[i]);
      } else if ((i % tx) * 8 <= W / 2 - 8 && (i % tx) > 0) {
        fail_unless (fabsf (sx[i]) < 0.05, "%s: textured tile %d: %g",
            props[p], i, sx[i]);
      }
    gst_sample_unref (s);
    assert_no_error (pipe, props[p]);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
  }
  gst_buffer_unref (img);
}

GST_END_TEST;

#ifdef HAVE_GST_CUDA
/* @img (GRAY8) as RGBA, grey, in @pool's memory, or in system memory */
static GstBuffer *
rgba_of (GstBuffer * img, GstBufferPool * pool)
{
  GstVideoInfo info;
  GstVideoFrame vf;
  GstMapInfo in;
  GstBuffer *buf = NULL;
  gint x, y;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, W, H);
  if (pool)
    fail_unless (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) ==
        GST_FLOW_OK);
  else
    buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&vf, &info, buf, GST_MAP_WRITE));
  gst_buffer_map (img, &in, GST_MAP_READ);
  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++) {
      guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 0) + y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0) + 4 * x;
      p[0] = p[1] = p[2] = in.data[y * W + x];
      p[3] = 255;
    }
  gst_buffer_unmap (img, &in);
  gst_video_frame_unmap (&vf);
  return buf;
}

/* Shift-x of three outputs of two RGBA inputs (@cuda: in @pool's CUDA
 * memory, on the CUDA backend), and whether a warning named a context */
static GArray *
rgba_run (gboolean cuda, GstBufferPool * pool, gboolean * warned)
{
  gchar *caps = g_strdup_printf ("video/x-raw%s,format=RGBA,width=%d,"
      "height=%d,framerate=30/1", cuda ? "(memory:CUDAMemory)" : "", W, H);
  gchar *d = co_rig_description (2, cuda ? "backend=cuda" : "backend=cpu",
      NULL, caps, NULL);
  GstElement *pipe = launch ("%s", d);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gfloat));
  gchar *w;
  gint k;

  g_free (d);
  g_free (caps);

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (k = 0; k < 3; k++) {
    GstBuffer *a = frame (20 + k, 0), *b = frame (20 + k, 0.4 + 0.2 * k);
    GstBuffer *ra = rgba_of (a, pool), *rb = rgba_of (b, pool);
    GstSample *smp;
    const GValue *v;
    const gfloat *f;
    gsize size;
    push (by_name (pipe, "s0"), ra, k * GST_SECOND / 30);
    push (by_name (pipe, "s1"), rb, k * GST_SECOND / 30);
    guint64 n = G_MAXUINT64;
    smp = pull (pipe);
    fail_unless (smp && results_of (smp), "output %d", k);
    /* the stream's count goes on through an adoption */
    fail_unless (gst_structure_get_uint64 (results_of (smp), "frame", &n) &&
        n == (guint64) k, "output %d numbered %" G_GUINT64_FORMAT, k, n);
    v = gst_structure_get_value (results_of (smp), "shift-x");
    f = g_bytes_get_data (g_value_get_boxed (v), &size);
    g_array_append_vals (out, f, size / sizeof (gfloat));
    gst_sample_unref (smp);
    gst_buffer_unref (a);
    gst_buffer_unref (b);
    gst_buffer_unref (ra);
    gst_buffer_unref (rb);
  }
  *warned = FALSE;
  while ((w = next_message (pipe, GST_MESSAGE_WARNING, 0, NULL))) {
    GST_INFO ("warning: %s", w);
    *warned |= strstr (w, "context") != NULL;
    g_free (w);
  }
  assert_no_error (pipe, "foreign context");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return out;
}

/* CUDA memory of a context the element did not start with (a decoder's
 * own): the element takes that context instead of copying every frame
 * through the host, without a warning, and gives the CPU's bits. */
GST_START_TEST (test_adopts_foreign_context)
{
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),"
      "format=RGBA,width=64,height=48,framerate=30/1");
  GstCudaContext *other;
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;
  GArray *cpu, *cuda;
  gboolean warned;

  fail_unless (gst_cuda_load_library ());
  gst_cuda_memory_init_once ();
  other = gst_cuda_context_new (0);
  fail_unless (other != NULL);
  gst_video_info_from_caps (&info, caps);
  pool = gst_cuda_buffer_pool_new (other);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  cpu = rgba_run (FALSE, NULL, &warned);
  cuda = rgba_run (TRUE, pool, &warned);
  fail_if (warned, "CUDA memory of another context was not adopted");
  fail_unless_equals_int (cpu->len, cuda->len);
  fail_unless (memcmp (cpu->data, cuda->data, cpu->len * sizeof (gfloat)) ==
      0, "CUDA differs from the CPU");
  g_array_unref (cpu);
  g_array_unref (cuda);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_object_unref (other);
  gst_caps_unref (caps);
}

GST_END_TEST;
#endif

static Suite *
coaggregator_suite (gboolean cuda)
{
  Suite *s = suite_create ("coaggregator");
  TCase *tc = tcase_create (cuda ? "cuda" : "general");

  /* every case, on the backend the run names */
  the_backend = cuda ? "cuda" : "cpu";

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_seek_stamps_segment_time);
  tcase_add_test (tc, test_queries_have_no_side_effects);
  tcase_add_test (tc, test_allocation);
  tcase_add_test (tc, test_cameras_out_of_phase);
  tcase_add_test (tc, test_skew_warning_names_property);
  tcase_add_test (tc, test_gap_event);
  tcase_add_test (tc, test_frames_before_caps);
  tcase_add_test (tc, test_pad_limit);
  tcase_add_test (tc, test_release_while_playing);
  tcase_add_test (tc, test_bayer_with_foreign_meta);
  tcase_add_test (tc, test_pairs_lists);
  tcase_add_test (tc, test_many_pairs);
  tcase_add_test (tc, test_live_calibration_files);
  tcase_add_test (tc, test_non_finite_values);
  tcase_add_test (tc, test_flat_tiles);
#ifdef HAVE_GST_CUDA
  if (cuda)
    tcase_add_test (tc, test_adopts_foreign_context);
#endif
  return s;
}

CO_CHECK_MAIN (coaggregator);
