/* cudaoptics — LGPL-2.1-or-later
 *
 * Caps churn: `videotestsrc ! capsfilter ! cudalensdistort ! fakesink` with
 * the capsfilter's caps changing every 0.5 ms between sizes and formats for
 * a bounded time, while another thread changes the element's geometry.
 * Must end without an error on the CPU backend and, in check-churn-cuda
 * (skipped where no device is usable), on CUDA (system memory, and
 * memory:CUDAMemory when cudaupload is there).
 *
 * The caps are changed from the source's streaming thread (a pad probe),
 * never concurrently with a caps query: capsfilter reads its "caps" property
 * twice per query (once for the filter it sends downstream, once for the
 * answer), so a change from another thread between the two reads makes the
 * query EMPTY and videotestsrc stops with not-negotiated.  That race is
 * GStreamer's own (capsfilter + basesrc) and hits `identity`, `videoflip` and
 * `videoconvert` as well; with CO_CHURN_RACE_RUNS=N set this program is a
 * tool that measures it instead of running the tests.
 *
 * CO_CHURN_SECONDS (default 2) sets how long each run churns.
 */
#include <stdlib.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include "gstcodevice.h"
#include "family-check.h"

static const gchar *formats[] = {
  "RGBA", "NV12", "I420", "GRAY8", "BGRx", "RGB", "GRAY16_LE",
};

/* what cudaupload/cudadownload carry (1.22 has no GRAY8 or GRAY16_LE) */
static const gchar *cuda_chain_formats[] = {
  "RGBA", "NV12", "I420", "BGRx", "RGB",
};

static const gint sizes[][2] = {
  {320, 240}, {160, 120}, {97, 61}, {64, 48}, {33, 17}, {2, 2},
};

static GstCaps *
churn_caps_of (const gchar ** fmts, gint n_fmts, gint i)
{
  /* walks every format × size pair, not only the diagonal */
  gint f = i % n_fmts;
  gint s = (i / n_fmts + i) % G_N_ELEMENTS (sizes);

  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      fmts[f], "width", G_TYPE_INT, sizes[s][0], "height", G_TYPE_INT,
      sizes[s][1], NULL);
}

static gdouble
churn_seconds (void)
{
  const gchar *s = g_getenv ("CO_CHURN_SECONDS");
  gdouble v = s ? g_ascii_strtod (s, NULL) : 0;

  return v > 0 ? v : 2.0;
}

typedef struct
{
  GstElement *cf, *lens;
  const gchar **fmts;
  gint n_fmts;
  gint64 last_change;
  gint step;
  gint caps_events, buffers;    /* seen at the sink */
  volatile gint stop;
  gint pokes;
} Churn;

/* In the source's streaming thread: the next buffer negotiates anew. */
static GstPadProbeReturn
change_caps_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Churn *c = data;
  gint64 now = g_get_monotonic_time ();

  if (now - c->last_change >= 500) {
    GstCaps *caps = churn_caps_of (c->fmts, c->n_fmts, ++c->step);
    c->last_change = now;
    g_object_set (c->cf, "caps", caps, NULL);
    gst_caps_unref (caps);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Churn *c = data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
    g_atomic_int_inc (&c->buffers);
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_CAPS)
    g_atomic_int_inc (&c->caps_events);
  return GST_PAD_PROBE_OK;
}

/* Another thread changes the geometry (and the table strategy) meanwhile. */
static gpointer
poke_thread (gpointer data)
{
  Churn *c = data;
  gint n = 0;

  while (!g_atomic_int_get (&c->stop)) {
    n++;
    g_object_set (c->lens, "k1", (n % 7) * -0.05, "stereo", n % 3 == 0, NULL);
    gst_util_set_object_arg (G_OBJECT (c->lens), "lut", n % 3 == 0 ?
        "compressed" : n % 3 == 1 ? "two-table" : "none");
    gst_util_set_object_arg (G_OBJECT (c->lens), "interpolation", n % 5 ?
        "bilinear" : "nearest");
    c->pokes = n;
    g_usleep (500);
  }
  return NULL;
}

static gchar *
error_text (GstMessage * m)
{
  GError *e = NULL;
  gchar *dbg = NULL, *ret;

  gst_message_parse_error (m, &e, &dbg);
  ret = g_strdup_printf ("%s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (m)),
      e->message, GST_STR_NULL (dbg));
  g_error_free (e);
  g_free (dbg);
  return ret;
}

/* Runs @middle between the churning capsfilter and fakesink for @seconds;
 * returns the first error (NULL: none) and the counts. */
static gchar *
run_churn (const gchar * middle, const gchar ** fmts, gint n_fmts,
    gdouble seconds, Churn * c)
{
  gchar *desc = g_strdup_printf ("videotestsrc name=src ! "
      "capsfilter name=cf caps=video/x-raw,format=RGBA,width=320,height=240 "
      "! %s ! fakesink name=sink sync=false", middle);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *src, *sink;
  GstPad *pad;
  GstBus *bus;
  GstMessage *m;
  GThread *poker;
  gchar *err = NULL;

  fail_unless (pipe != NULL, "could not build %s", desc);
  memset (c, 0, sizeof (*c));
  c->fmts = fmts;
  c->n_fmts = n_fmts;
  c->cf = gst_bin_get_by_name (GST_BIN (pipe), "cf");
  c->lens = gst_bin_get_by_name (GST_BIN (pipe), "lens");
  fail_unless (c->lens != NULL);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, change_caps_probe, c,
      NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, count_probe, c, NULL);
  gst_object_unref (pad);

  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s did not start", desc);
  poker = g_thread_new ("poke", poke_thread, c);
  m = gst_bus_timed_pop_filtered (bus, (GstClockTime) (seconds * GST_SECOND),
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  g_atomic_int_set (&c->stop, 1);
  g_thread_join (poker);
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
    err = error_text (m);
  else if (m)
    err = g_strdup ("unexpected EOS");
  if (m)
    gst_message_unref (m);
  /* tear down before any assertion: a live pipeline at exit can hang */
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (c->cf);
  gst_object_unref (c->lens);
  gst_object_unref (pipe);
  g_free (desc);
  return err;
}

static void
check_churn (const gchar * middle, const gchar ** fmts, gint n_fmts)
{
  gdouble secs = churn_seconds ();
  gint64 t0 = g_get_monotonic_time ();
  Churn c;
  gchar *err = run_churn (middle, fmts, n_fmts, secs, &c);

  g_printerr ("churn %.1f s: %d caps events, %d buffers, %d property "
      "changes through %s: %s\n", (g_get_monotonic_time () - t0) / 1e6,
      c.caps_events, c.buffers, c.pokes, middle, err ? err : "no error");
  fail_unless (err == NULL, "%s under caps churn: %s", middle, err);
  /* the churn really renegotiated, and frames flowed in between */
  fail_unless (c.caps_events >= 20, "only %d caps events", c.caps_events);
  fail_unless (c.buffers + 1 >= c.caps_events, "%d buffers", c.buffers);
}

GST_START_TEST (test_churn_cpu)
{
  check_churn ("cudalensdistort name=lens backend=cpu", formats,
      G_N_ELEMENTS (formats));
}

GST_END_TEST;

GST_START_TEST (test_churn_cuda)
{
  GstElementFactory *up;

  check_churn ("cudalensdistort name=lens backend=cuda", formats,
      G_N_ELEMENTS (formats));
  up = gst_element_factory_find ("cudaupload");
  if (up) {
    check_churn ("cudaupload ! cudalensdistort name=lens backend=cuda ! "
        "cudadownload", cuda_chain_formats, G_N_ELEMENTS (cuda_chain_formats));
    gst_object_unref (up);
  }
}

GST_END_TEST;

/* ---- GStreamer's own race, measured (not asserted) ---- */

typedef struct
{
  GstElement *cf;
  volatile gint *stop;
} CrossChurn;

static gpointer
cross_churn_thread (gpointer data)
{
  CrossChurn *x = data;
  gint i = 0;

  while (!g_atomic_int_get (x->stop)) {
    /* formats every pipeline of the report carries */
    GstCaps *caps = churn_caps_of (cuda_chain_formats,
        G_N_ELEMENTS (cuda_chain_formats), ++i);
    g_object_set (x->cf, "caps", caps, NULL);
    gst_caps_unref (caps);
    g_usleep (500);
  }
  return NULL;
}

/* One run with the caps set from another thread, as an application would. */
static gboolean
cross_run (const gchar * middle, gdouble secs)
{
  gchar *desc = g_strdup_printf ("videotestsrc ! capsfilter "
      "name=cf caps=video/x-raw,format=RGBA,width=320,height=240 ! %s ! "
      "fakesink sync=false", middle);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  volatile gint stop = 0;
  CrossChurn x = { gst_bin_get_by_name (GST_BIN (pipe), "cf"), &stop };
  GstBus *bus = gst_element_get_bus (pipe);
  GThread *t;
  GstMessage *m;
  gboolean failed;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  t = g_thread_new ("churn", cross_churn_thread, &x);
  m = gst_bus_timed_pop_filtered (bus, (GstClockTime) (secs * GST_SECOND),
      GST_MESSAGE_ERROR);
  g_atomic_int_set (&stop, 1);
  g_thread_join (t);
  failed = m != NULL;
  if (m)
    gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (x.cf);
  gst_object_unref (pipe);
  g_free (desc);
  return failed;
}

/* A tool, not a test (it measures, it cannot fail): run with
 * CO_CHURN_RACE_RUNS=N set, the program prints the report and exits. */
static void
cross_thread_report (gint runs)
{
  const gchar *middles[] = {
    "identity", "videoflip ! videoflip",
    "videoflip ! identity sleep-time=2000 ! videoflip",
    "cudalensdistort backend=cpu", "cudalensdistort backend=cuda",
    "cudaupload ! cudalensdistort backend=cuda ! cudadownload",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (middles); i++) {
    gint r, failed = 0;
    gchar **words = g_strsplit (middles[i], " ", 2);
    GstElement *probe = gst_element_factory_make (words[0], NULL);
    g_strfreev (words);
    if (!probe || (strstr (middles[i], "backend=cuda") &&
            !gst_co_cuda_probe (-1, NULL))) {
      if (probe)
        gst_object_unref (probe);
      continue;
    }
    gst_object_unref (probe);
    for (r = 0; r < runs; r++)
      failed += cross_run (middles[i], churn_seconds ());
    g_printerr ("cross-thread churn: %d of %d runs failed: %s\n", failed,
        runs, middles[i]);
  }
}

/* The CUDA case apart: check-churn-cuda (family-check.h) */
static Suite *
churn_suite (gboolean cuda)
{
  Suite *s = suite_create ("churn");
  TCase *tc = tcase_create (cuda ? "cuda" : "churn");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, cuda ? test_churn_cuda : test_churn_cpu);
  return s;
}

int
main (int argc, char **argv)
{
  const gchar *runs = g_getenv ("CO_CHURN_RACE_RUNS");

  if (runs && atoi (runs) > 0) {
    gst_check_init (&argc, &argv);
    cross_thread_report (atoi (runs));
    return 0;
  }
  return co_check_main (argc, argv, churn_suite, "churn", __FILE__);
}
