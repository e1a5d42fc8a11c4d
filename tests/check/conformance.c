/* cudaoptics — LGPL-2.1-or-later
 *
 * The family's conformance suite: every element, one row of the table
 * below, goes through the same checks on the backend its argument names
 * (--backend=cpu, the default; --backend=cuda exits 77, skipped, where no
 * device is usable):
 * - renegotiation mid-stream (size, format, Bayer order, odd sizes): each
 *   output, its results and its results message equal a fresh element's
 *   on the same frame;
 * - caps churning upstream every 0.5 ms through the row's formats and
 *   sizes for a second: no error;
 * - a property changed from another thread while frames flow: every
 *   output equals a fresh element's at one of the two values, and the last
 *   value set is the one in use afterwards;
 * - every setting changed from another thread while frames flow (near its
 *   default): no crash or hang, and back at the row's settings the output
 *   is a fresh element's;
 * - tiny and very wide frames: an output or a clear error, never a crash,
 *   and the element works again after them;
 * - 500 state cycles;
 * - active-backend auto before the element starts, the backend asked for
 *   once it has;
 * - every file property, missing, a directory, a FIFO, empty, not of its
 *   kind, and (where the row names one) a file that parses but cannot be
 *   used: set before PLAYING a prompt error, set while PLAYING a warning
 *   (or an error), each naming the file in its message text; while PLAYING
 *   the last good state stays, and the other settings still apply.  An
 *   aggregator's pad files (sink_N::calibration-file, sink_N::kernels-file)
 *   are file properties of its rows: set on one pad while PLAYING, only a
 *   warning will do, and the rig goes on as it was.
 * A new element joins the family by adding a row (an aggregator: linked
 * from identity, so that its one request pad is made).
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../../include/cudaoptics/co-results.h"
#include "gstcocaps.h"
#include "gstcodevice.h"
#include "family-check.h"

typedef enum
{
  KIND_FILTER,                  /* new pixels, the input's caps */
  KIND_RESIZE,                  /* new pixels, its own size */
  KIND_CONVERT,                 /* new pixels, another format */
  KIND_ANALYSE,                 /* pixels through, results attached */
} Kind;

/* the bad files of the files check */
typedef enum
{
  BAD_MISSING,
  BAD_DIRECTORY,
  BAD_FIFO,
  BAD_EMPTY,
  BAD_JUNK,
  BAD_UNUSABLE,                 /* the row's FileProp.unusable */
  N_BAD
} Bad;


typedef struct
{
  /* a file property; an aggregator's pad's as sink_N::name (set through
   * its child proxy), which while PLAYING must warn and keep the last good
   * state (a rig goes on, pad by pad) */
  const gchar *prop;
  const gchar *with;            /* what it needs beside it, or NULL */
  /* a file of tests/data that parses but this row cannot use, or NULL */
  const gchar *unusable;
  /* a pad's: the bad kinds (1 << Bad) that, set while PLAYING, are still
   * an error where a warning is due, the element's known faults: checked
   * as they are (a prompt error, the file named first), and a bit whose
   * fault is mended fails the check until it is taken out */
  guint erring;
} FileProp;

typedef struct
{
  const gchar *factory;
  const gchar *props;           /* a representative setting */
  Kind kind;
  /* the renegotiation walk: caps without size, and sizes */
  const gchar *caps[8];
  gint sizes[8][2];
  /* the property changed while PLAYING, and its two values */
  const gchar *live, *live_a, *live_b;
  FileProp files[4];
  const gchar *results;         /* results kind on each buffer, or NULL */
  /* caps of videotestsrc for the pipeline cases */
  const gchar *src_caps;
  /* settings the storm leaves alone (a rig's mode: temporal takes one
   * input, so with several it is an error, by design) */
  const gchar *fixed;
} Row;

/* An aggregator's pad files, on one pad of the rig: a calibration that
 * parses but whose focal length no camera has, kernels whose grid covers
 * 33x33 pixels of the rows' 64x48 frames.  While PLAYING each is a warning
 * and the last state stays (a pad without calibration stays without). */
#define PAD_CALIBRATION(pad) \
  {pad "::calibration-file", NULL, "calib-bad-absurd.yml", 0}
#define PAD_KERNELS(pad) \
  {pad "::kernels-file", NULL, "clt-identity-3x3.cltk", 0}

static const Row rows[] = {
  {"cudalensdistort", "model=camera k1=-0.2 k2=0.05", KIND_FILTER,
        {"video/x-raw,format=RGBA", "video/x-raw,format=NV12",
              "video/x-raw,format=RGBA", "video/x-raw,format=GRAY8",
              "video/x-raw,format=I420", "video/x-raw,format=GRAY16_LE",
            NULL},
        {{64, 48}, {64, 48}, {97, 61}, {33, 17}, {64, 48}, {31, 7}},
        "k1", "-0.2", "-0.05",
        {{"calibration-file", NULL, NULL, 0},
              {"rectification-file", "calibration-file=@calib-opencv.yml",
                NULL, 0},
            {"map-file", NULL, NULL, 0}},
      NULL, "video/x-raw,format=RGBA,width=64,height=48", NULL},
  {"cudafoveate", "strength=1.5", KIND_FILTER,
        {"video/x-raw,format=RGBA", "video/x-raw,format=RGBA",
              "video/x-raw,format=GRAY8", "video/x-raw,format=NV12",
            "video/x-raw,format=I420", "video/x-raw,format=RGB", NULL},
        {{64, 64}, {256, 256}, {97, 61}, {64, 48}, {33, 17}, {16, 16}},
        "fixation-x", "0.3", "0.7",
        {{"blur-map", NULL, NULL, 0}},
      "GstCoFoveaGaze", "video/x-raw,format=RGBA,width=64,height=48", NULL},
  {"cudaomniunwrap", "projection=polar inner-radius=8 outer-radius=30",
        KIND_RESIZE,
        {"video/x-raw,format=RGBA", "video/x-raw,format=NV12",
            "video/x-raw,format=RGBA", "video/x-raw,format=GRAY8", NULL},
        {{128, 96}, {128, 96}, {97, 61}, {64, 64}},
        "start-angle", "0", "45",
        {{NULL, NULL, NULL, 0}},
      NULL, "video/x-raw,format=RGBA,width=128,height=96", NULL},
  {"cudashcentroid", "pitch=8 method=tcog gamma=2.0 message-interval=1",
        KIND_ANALYSE,
        {"video/x-raw,format=GRAY8", "video/x-raw,format=GRAY16_LE",
              "video/x-raw,format=GRAY8", "video/x-raw,format=GRAY16_LE",
            NULL},
        {{64, 64}, {64, 64}, {97, 61}, {33, 17}},
        "threshold", "0.1", "0.4",
        {{"mask-file", NULL, NULL, 0}, {"reference-file", NULL, NULL, 0},
            {"lut-file", NULL, NULL, 0}},
      "GstCoShCentroids", "video/x-raw,format=GRAY8,width=64,height=48", NULL},
  {"cudaaberration", "lpf-sigma=0.5", KIND_CONVERT,
        {"video/x-bayer,format=rggb", "video/x-bayer,format=bggr",
              "video/x-bayer,format=grbg", "video/x-raw,format=GRAY16_LE",
            "video/x-bayer,format=gbrg16le", NULL},
        {{64, 48}, {64, 48}, {66, 50}, {64, 48}, {32, 32}},
        "lpf-sigma", "0.5", "1.0",
        {{"kernels-file", NULL, NULL, 0},
            {"calibration-file", "model=camera", NULL, 0}},
      NULL, "video/x-raw,format=GRAY16_LE,width=64,height=48", NULL},
  /* an aggregator: one request pad, linked from identity, in temporal mode
   * (the first frame after new caps is its own reference, as a fresh
   * element's is; a frame repeated is compared with itself too) */
  {"identity ! cudacltcorrelate", "mode=temporal fat-zero=0.1 "
        "post-messages=true", KIND_ANALYSE,
        {"video/x-raw,format=GRAY8", "video/x-raw,format=GRAY16_LE",
              "video/x-raw,format=NV12", "video/x-raw,format=RGBA",
              "video/x-raw,format=GRAY8", NULL},
        {{64, 48}, {64, 48}, {66, 50}, {33, 17}, {16, 16}},
        "fat-zero", "0.1", "0.5",
        /* (no calibration-file: in mode=temporal it is read only with
         * kernels, so a bad one alone is not reported, before PLAYING or
         * while: a known fault) */
        {PAD_KERNELS ("sink_0")},
      "GstCoCltCorrelation", "video/x-raw,format=GRAY8,width=64,height=48", NULL},

  /* rigs of 2, 4 and 12 cameras: every input gets the same frames (a tee),
   * so renegotiation goes pad by pad as a real rig's does; the pair
   * searches with max-shift */
  {"identity ! tee name=t t. ! c.sink_0 t. ! c.sink_1 cudacltcorrelate name=c",
        "fat-zero=0.1 refine=1 max-shift=20 post-messages=true", KIND_ANALYSE,
        {"video/x-raw,format=GRAY8", "video/x-raw,format=GRAY16_LE",
              "video/x-raw,format=NV12", "video/x-raw,format=RGBA",
              "video/x-raw,format=GRAY8", NULL},
        {{64, 48}, {64, 48}, {66, 50}, {33, 17}, {16, 16}},
        "fat-zero", "0.1", "0.5",
        {PAD_CALIBRATION ("sink_1"), PAD_KERNELS ("sink_1")},
        "GstCoCltCorrelation", "video/x-raw,format=GRAY8,width=64,height=48",
      "mode"},
  {"identity ! tee name=t t. ! c.sink_0 t. ! c.sink_1 t. ! c.sink_2 t. ! c.sink_3 cudacltcorrelate name=c",
        "peak=parabola post-messages=true", KIND_ANALYSE,
        {"video/x-raw,format=GRAY8", "video/x-raw,format=GRAY16_LE",
              "video/x-raw,format=NV12", "video/x-raw,format=RGBA",
              "video/x-raw,format=GRAY8", NULL},
        {{64, 48}, {64, 48}, {66, 50}, {33, 17}, {16, 16}},
        "fat-zero", "0.1", "0.5",
        {PAD_CALIBRATION ("sink_1"), PAD_KERNELS ("sink_1")},
        "GstCoCltCorrelation", "video/x-raw,format=GRAY8,width=64,height=48",
      "mode"},
  {"identity ! tee name=t t. ! c.sink_0 t. ! c.sink_1 t. ! c.sink_2 t. ! c.sink_3 t. ! c.sink_4 t. ! c.sink_5 t. ! c.sink_6 t. ! c.sink_7 t. ! c.sink_8 t. ! c.sink_9 t. ! c.sink_10 t. ! c.sink_11 cudacltcorrelate name=c",
        "pairs=0-1,3-2,11-5 post-messages=true", KIND_ANALYSE,
        {"video/x-raw,format=GRAY8", "video/x-raw,format=GRAY16_LE",
              "video/x-raw,format=NV12", "video/x-raw,format=RGBA",
              "video/x-raw,format=GRAY8", NULL},
        {{64, 48}, {64, 48}, {66, 50}, {33, 17}, {16, 16}},
        "fat-zero", "0.1", "0.5",
        {PAD_CALIBRATION ("sink_1"), PAD_KERNELS ("sink_1")},
        "GstCoCltCorrelation", "video/x-raw,format=GRAY8,width=64,height=48",
      "mode"},
  /* calibrated rigs of 2 and 4: the rig's geometry through every check
   * (a bad file on sink_1 replaces its good one: the last good rig must
   * stay); the quad searches along its baseline (max-shift) */
  {"identity ! tee name=t t. ! c.sink_0 t. ! c.sink_1 cudacltcorrelate name=c",
        "sink_0::calibration-file=@rig-cam0.yml sink_1::calibration-file=@rig-cam1.yml refine=1 post-messages=true", KIND_ANALYSE,
        {"video/x-raw,format=GRAY8", "video/x-raw,format=GRAY16_LE",
              "video/x-raw,format=NV12", "video/x-raw,format=RGBA",
              "video/x-raw,format=GRAY8", NULL},
        {{64, 48}, {64, 48}, {66, 50}, {33, 17}, {16, 16}},
        "fat-zero", "0.1", "0.5",
        {PAD_CALIBRATION ("sink_1"), PAD_KERNELS ("sink_1")},
        "GstCoCltCorrelation", "video/x-raw,format=GRAY8,width=64,height=48",
      "mode"},
  {"identity ! tee name=t t. ! c.sink_0 t. ! c.sink_1 t. ! c.sink_2 t. ! c.sink_3 cudacltcorrelate name=c",
        "sink_0::calibration-file=@rig-cam0.yml sink_1::calibration-file=@rig-cam1.yml sink_2::calibration-file=@rig-cam2.yml sink_3::calibration-file=@rig-cam3.yml refine=1 max-shift=20 post-messages=true", KIND_ANALYSE,
        {"video/x-raw,format=GRAY8", "video/x-raw,format=GRAY16_LE",
              "video/x-raw,format=NV12", "video/x-raw,format=RGBA",
              "video/x-raw,format=GRAY8", NULL},
        {{64, 48}, {64, 48}, {66, 50}, {33, 17}, {16, 16}},
        "fat-zero", "0.1", "0.5",
        {PAD_CALIBRATION ("sink_1"), PAD_KERNELS ("sink_1")},
        "GstCoCltCorrelation", "video/x-raw,format=GRAY8,width=64,height=48",
      "mode"},
};

static const gchar *backend = "cpu";
/* CO_TEST_QUICK (valgrind): fewer cycles and frames, the same checks */
static gboolean quick;

/* fields that differ between two elements by design */
static gboolean
volatile_field (GQuark field)
{
  const gchar *f = g_quark_to_string (field);

  return !strcmp (f, "frame") || !strcmp (f, "timestamp") ||
      !strcmp (f, "gaze-time");
}

typedef struct
{
  const GstStructure *other;
  gchar *diff;
} Cmp;

static gboolean
compare_field (GQuark field, const GValue * v, gpointer data)
{
  Cmp *c = data;
  const GValue *o = gst_structure_id_get_value (c->other, field);
  gboolean same;

  if (volatile_field (field))
    return TRUE;
  if (!o)
    same = FALSE;
  else if (G_VALUE_HOLDS (v, G_TYPE_BYTES))
    same = G_VALUE_HOLDS (o, G_TYPE_BYTES) &&
        g_bytes_equal (g_value_get_boxed (v), g_value_get_boxed (o));
  else
    same = gst_value_compare (v, o) == GST_VALUE_EQUAL;
  if (!same)
    c->diff = g_strdup (g_quark_to_string (field));
  return same;
}

/* NULL when @a's and @b's results of @kind agree, else what differs */
static gchar *
results_differ (const Row * row, GstBuffer * a, GstBuffer * b)
{
  const GstStructure *sa, *sb;
  Cmp c = { NULL, NULL };

  if (!row->results)
    return NULL;
  sa = gst_co_buffer_get_results (a, row->results);
  sb = gst_co_buffer_get_results (b, row->results);
  if (!sa || !sb)
    return g_strdup (sa || sb ? "results on one buffer only" :
        "no results");
  c.other = sb;
  gst_structure_foreach (sa, compare_field, &c);
  return c.diff;
}

static gchar *expand (const gchar * props);

/* Whether "name=value ..." @settings sets @name */
static gboolean
sets (const gchar * settings, const gchar * name)
{
  gchar **kv = g_strsplit (settings ? settings : "", " ", -1);
  gboolean found = FALSE;
  guint i;

  for (i = 0; kv[i] && !found; i++) {
    const gchar *eq = strchr (kv[i], '=');
    found = eq && (gsize) (eq - kv[i]) == strlen (name) &&
        !strncmp (kv[i], name, eq - kv[i]);
  }
  g_strfreev (kv);
  return found;
}

/* The row's element with its settings, then @extra's.  A setting @extra
 * makes replaces the row's rather than following it: gst_parse_launch
 * keeps the last of a property given twice, but the first of a child
 * proxy's (sink_N::name: set when the pad is made, the launch line's
 * settings taken in reverse order), so a bad sink_1::calibration-file
 * after the row's good one would never be set. */
static gchar *
describe (const Row * row, const gchar * extra)
{
  gchar *props = expand (row->props), *ret;
  gchar **kv = g_strsplit (props, " ", -1);
  GString *kept = g_string_new (NULL);
  guint i;

  for (i = 0; kv[i]; i++) {
    gchar *name = g_strndup (kv[i], strcspn (kv[i], "="));
    if (*kv[i] && !sets (extra, name))
      g_string_append_printf (kept, "%s%s", kept->len ? " " : "", kv[i]);
    g_free (name);
  }
  ret = g_strdup_printf ("%s backend=%s %s %s", row->factory, backend,
      kept->str, extra ? extra : "");
  g_string_free (kept, TRUE);
  g_strfreev (kv);
  g_free (props);
  return ret;
}

static gchar *
data_path (const gchar * name)
{
  const gchar *dir = g_getenv ("CO_TEST_DATA_DIR");
  return g_build_filename (dir ? dir : "tests/data", name, NULL);
}

/* "prop=@name" -> "prop=<data dir>/name" */
static gchar *
expand (const gchar * props)
{
  gchar **kv, *ret;
  guint i;

  if (!props)
    return g_strdup ("");
  kv = g_strsplit (props, " ", -1);
  for (i = 0; kv[i]; i++) {
    gchar *at = strstr (kv[i], "=@");
    if (at) {
      gchar *path = data_path (at + 2), *k = g_strndup (kv[i], at - kv[i]);
      g_free (kv[i]);
      kv[i] = g_strdup_printf ("%s=\"%s\"", k, path);
      g_free (k);
      g_free (path);
    }
  }
  ret = g_strjoinv (" ", kv);
  g_strfreev (kv);
  return ret;
}

static GstCaps *
row_caps (const Row * row, gint i, gint w, gint h)
{
  GstCaps *caps = gst_caps_from_string (row->caps[i]);

  gst_caps_set_simple (caps, "width", G_TYPE_INT, w, "height", G_TYPE_INT, h,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  return caps;
}

/* A random frame of @caps (Bayer included, at bayer2rgb's stride) */
static GstBuffer *
random_frame (GstCaps * caps, GRand * rand)
{
  GstVideoInfo info;
  CoBayer bayer;

  fail_unless (gst_co_info_from_caps (&info, &bayer, caps));
  return make_frame (&info, rand, FALSE);
}

/* Whether two outputs of the element agree: pixels as the output's caps
 * say, and results. */
static gchar *
outputs_differ (const Row * row, GstCaps * outcaps, GstBuffer * a,
    GstBuffer * b)
{
  GstVideoInfo info;
  CoBayer bayer;
  gint md = 0;

  fail_unless (gst_co_info_from_caps (&info, &bayer, outcaps));
  if (gst_buffer_get_size (a) != gst_buffer_get_size (b))
    return g_strdup ("sizes differ");
  if (!frames_equal (&info, a, b, &md))
    return g_strdup_printf ("pixels differ by up to %d", md);
  return results_differ (row, a, b);
}

/* The last element message of the row's results kind on @bus (the bus
 * emptied), or NULL */
static GstStructure *
last_results_message (const Row * row, GstBus * bus)
{
  GstStructure *ret = NULL;
  GstMessage *m;

  while (bus && (m = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT && row->results &&
        gst_structure_has_name (gst_message_get_structure (m),
            row->results)) {
      if (ret)
        gst_structure_free (ret);
      ret = gst_structure_copy (gst_message_get_structure (m));
    }
    gst_message_unref (m);
  }
  return ret;
}

/* NULL when the two messages agree (both absent included) */
static gchar *
messages_differ (GstStructure * a, GstStructure * b)
{
  Cmp c = { NULL, NULL };

  if (!a || !b)
    return a || b ? g_strdup ("a results message from one element only") :
        NULL;
  c.other = b;
  gst_structure_foreach (a, compare_field, &c);
  return c.diff;
}

/* One frame through a fresh element; its output caps in *outcaps, its
 * last results message in *msg. */
static GstBuffer *
fresh_output_msg (const gchar * desc, const Row * row, GstCaps * caps,
    GstBuffer * in, GstCaps ** outcaps, GstStructure ** msg)
{
  GstHarness *h = co_harness (desc, gst_caps_ref (caps));
  GstBus *bus = gst_bus_new ();
  GstBuffer *out;

  gst_element_set_bus (h->element, bus);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "no output from a fresh %s", desc);
  if (outcaps)
    *outcaps = gst_pad_get_current_caps (h->sinkpad);
  if (msg)
    *msg = last_results_message (row, bus);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return out;
}

static GstBuffer *
fresh_output (const gchar * desc, GstCaps * caps, GstBuffer * in,
    GstCaps ** outcaps)
{
  return fresh_output_msg (desc, NULL, caps, in, outcaps, NULL);
}

/* @out (from @h, whose element's bus is @bus or NULL) against a fresh
 * element's output of @in: caps, pixels, results, and the results
 * message on the bus. */
static void
check_equal_to_fresh_bus (const Row * row, GstHarness * h, GstBus * bus,
    const gchar * desc, GstCaps * caps, GstBuffer * in, GstBuffer * out,
    const gchar * when)
{
  GstCaps *outcaps = gst_pad_get_current_caps (h->sinkpad), *refcaps = NULL;
  GstStructure *msg = NULL, *ref_msg = NULL;
  GstBuffer *ref = fresh_output_msg (desc, row, caps, in, &refcaps,
      bus ? &ref_msg : NULL);
  gchar *diff;

  if (bus) {
    msg = last_results_message (row, bus);
    /* the analyser's row posts its results every frame */
    fail_unless (row->kind != KIND_ANALYSE || msg != NULL, "%s %s: no "
        "results message", desc, when);
    diff = messages_differ (msg, ref_msg);
    fail_unless (diff == NULL, "%s %s: bus message differs from a fresh "
        "element's: %s", desc, when, diff);
    if (msg)
      gst_structure_free (msg);
    if (ref_msg)
      gst_structure_free (ref_msg);
  }

  if (!gst_caps_is_equal (outcaps, refcaps)) {
    gchar *a = gst_caps_to_string (outcaps), *b = gst_caps_to_string (refcaps);
    fail ("%s %s: output caps %s, a fresh element's %s", desc, when, a, b);
    g_free (a);
    g_free (b);
  }
  diff = outputs_differ (row, outcaps, out, ref);
  fail_unless (diff == NULL, "%s %s: differs from a fresh element: %s", desc,
      when, diff);
  gst_buffer_unref (ref);
  gst_caps_unref (outcaps);
  gst_caps_unref (refcaps);
}

static void
check_equal_to_fresh (const Row * row, GstHarness * h, const gchar * desc,
    GstCaps * caps, GstBuffer * in, GstBuffer * out, const gchar * when)
{
  check_equal_to_fresh_bus (row, h, NULL, desc, caps, in, out, when);
}

/* ---- renegotiation ---- */

static void
renegotiate (const Row * row)
{
  gchar *props = describe (row, NULL);
  GRand *rand = g_rand_new_with_seed (29);
  GstCaps *first = row_caps (row, 0, row->sizes[0][0], row->sizes[0][1]);
  GstHarness *h = co_harness (props, first);
  GstBus *bus = gst_bus_new ();
  gint i, pass;

  gst_element_set_bus (h->element, bus);
  /* the walk, then back to where it started */
  for (pass = 0; pass < 2; pass++)
    for (i = 0; row->caps[i]; i++) {
      GstCaps *caps = row_caps (row, i, row->sizes[i][0], row->sizes[i][1]);
      GstBuffer *in = random_frame (caps, rand), *out;
      gchar *cs = gst_caps_to_string (caps);
      gchar *when = g_strdup_printf ("after renegotiating to %s", cs);
      gst_harness_set_src_caps (h, gst_caps_ref (caps));
      out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
      fail_unless (out != NULL, "%s %s: no output", props, when);
      check_equal_to_fresh_bus (row, h, bus, props, caps, in, out, when);
      gst_buffer_unref (out);
      gst_buffer_unref (in);
      gst_caps_unref (caps);
      g_free (when);
      g_free (cs);
    }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_rand_free (rand);
  g_free (props);
}

/* ---- caps churn from upstream ---- */

typedef struct
{
  const Row *row;
  GstElement *cf;
  gint64 last;
  gint step, n_raw;
  gint raw[8];
} Churn;

/* In the source's streaming thread (a caps change never races a caps
 * query there): the next buffer negotiates anew, every 0.5 ms, walking
 * every raw format of the row at every size of the row. */
static GstPadProbeReturn
churn_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Churn *c = data;
  gint64 now = g_get_monotonic_time ();

  if (now - c->last >= 500) {
    gint n_sizes = 0, f, z;
    GstCaps *caps;
    while (n_sizes < 8 && c->row->sizes[n_sizes][0])
      n_sizes++;
    c->step++;
    f = c->raw[c->step % c->n_raw];
    z = (c->step / c->n_raw + c->step) % n_sizes;
    caps = row_caps (c->row, f, c->row->sizes[z][0], c->row->sizes[z][1]);
    g_object_set (c->cf, "caps", caps, NULL);
    gst_caps_unref (caps);
    c->last = now;
  }
  return GST_PAD_PROBE_OK;
}

static void
caps_churn (const Row * row)
{
  gchar *props = describe (row, NULL);
  gchar *launch = g_strdup_printf ("videotestsrc name=src ! capsfilter "
      "name=cf caps=%s ! %s ! fakesink sync=false", row->src_caps, props);
  GstElement *p = gst_parse_launch (launch, NULL), *src;
  Churn c = { row, NULL, 0, 0, 0, {0} };
  GstBus *bus;
  GstMessage *m;
  GstPad *pad;
  gint i;

  fail_unless (p != NULL, "%s", launch);
  for (i = 0; row->caps[i]; i++)
    if (g_str_has_prefix (row->caps[i], "video/x-raw"))
      c.raw[c.n_raw++] = i;
  c.cf = gst_bin_get_by_name (GST_BIN (p), "cf");
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, churn_probe, &c, NULL);
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (bus, (quick ? 3 : 1) * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  if (m) {
    GError *e = NULL;
    gchar *dbg = NULL;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
      gst_message_parse_error (m, &e, &dbg);
    fail ("%s: %s under caps churn (%s; %s)", launch,
        GST_MESSAGE_TYPE_NAME (m), e ? e->message : "", GST_STR_NULL (dbg));
  }
  fail_unless (gst_element_set_state (p, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  GST_INFO ("%s: %d caps changes", launch, c.step);
  fail_unless (c.step > 10, "%s: only %d caps changes", launch, c.step);
  gst_object_unref (pad);
  gst_object_unref (src);
  gst_object_unref (c.cf);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (launch);
  g_free (props);
}

/* ---- live settings ---- */

typedef struct
{
  GstElement *e;
  const Row *row;
  gint n;
} Toggle;

static void
toggle (gpointer thread, gpointer data)
{
  Toggle *t = data;

  gst_util_set_object_arg (G_OBJECT (t->e), t->row->live,
      g_atomic_int_add (&t->n, 1) % 2 ? t->row->live_a : t->row->live_b);
}

static void
live_settings (const Row * row)
{
  gchar *props = describe (row, NULL);
  gchar *pa = g_strdup_printf ("%s=%s", row->live, row->live_a);
  gchar *pb = g_strdup_printf ("%s=%s", row->live, row->live_b);
  gchar *desc_a = describe (row, pa), *desc_b = describe (row, pb);
  GRand *rand = g_rand_new_with_seed (31);
  GstCaps *caps = row_caps (row, 0, row->sizes[0][0], row->sizes[0][1]);
  GstBuffer *in = random_frame (caps, rand), *ref_a, *ref_b, *out;
  GstCaps *outcaps = NULL;
  GstHarness *h = co_harness (desc_a, gst_caps_ref (caps));
  Toggle t = { co_harness_element (h), row, 0 };
  GstHarnessThread *th;
  gint i, as_a = 0, as_b = 0;

  ref_a = fresh_output (desc_a, caps, in, &outcaps);
  ref_b = fresh_output (desc_b, caps, in, NULL);
  {
    gchar *d = outputs_differ (row, outcaps, ref_a, ref_b);
    fail_unless (d != NULL, "%s: %s and %s give the same output: a useless "
        "test", props, pa, pb);
    g_free (d);
  }
  th = gst_harness_stress_custom_start (h, NULL, toggle, &t, 50);
  /* at least 200 frames, and until the other thread changed it often */
  for (i = 0; i < (quick ? 50 : 200) || (g_atomic_int_get (&t.n) < (quick ?
              20 : 100) && i < 20000); i++) {
    gchar *da, *db;
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    da = outputs_differ (row, outcaps, out, ref_a);
    db = da ? outputs_differ (row, outcaps, out, ref_b) : NULL;
    fail_unless (!da || !db, "%s: frame %d while %s changes is neither "
        "value's (%s / %s)", props, i, row->live, da, db);
    as_a += !da;
    as_b += da != NULL;
    g_free (da);
    g_free (db);
    gst_buffer_unref (out);
  }
  gst_harness_stress_thread_stop (th);
  GST_INFO ("%s: %d changes of %s, %d frames as %s, %d as %s", props, t.n,
      row->live, as_a, row->live_a, as_b, row->live_b);
  fail_unless (t.n >= (quick ? 20 : 100), "only %d changes", t.n);
  /* the last value set is the one in use */
  apply_props (h, pb);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (outputs_differ (row, outcaps, out, ref_b) == NULL,
      "%s: stale after %s", props, pb);
  gst_buffer_unref (out);
  apply_props (h, pa);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (outputs_differ (row, outcaps, out, ref_a) == NULL,
      "%s: stale after %s", props, pa);
  gst_buffer_unref (out);

  gst_object_unref (t.e);
  gst_harness_teardown (h);
  gst_buffer_unref (in);
  gst_buffer_unref (ref_a);
  gst_buffer_unref (ref_b);
  gst_caps_unref (caps);
  gst_caps_unref (outcaps);
  g_rand_free (rand);
  g_free (desc_a);
  g_free (desc_b);
  g_free (pa);
  g_free (pb);
  g_free (props);
}

/* ---- every setting at once ---- */

typedef struct
{
  GstElement *e;
  GParamSpec **specs;
  guint n;
  GRand *rand;
  gint sets;
} Storm;

/* A value near @p's default: scaled by 0.5 .. 1.5 and moved by up to
 * 1e-4 of its range (an application's live adjustments, not absurd ones:
 * those are each element's own tests) */
static void
near_default (GParamSpec * p, GRand * r, GValue * v)
{
  g_value_init (v, G_PARAM_SPEC_VALUE_TYPE (p));
  g_param_value_set_default (p, v);
  if (G_IS_PARAM_SPEC_DOUBLE (p)) {
    GParamSpecDouble *d = G_PARAM_SPEC_DOUBLE (p);
    gdouble x = g_value_get_double (v) * g_rand_double_range (r, 0.5, 1.5) +
        (d->maximum - d->minimum) * 1e-4 * g_rand_double_range (r, -1, 1);
    g_value_set_double (v, CLAMP (x, d->minimum, d->maximum));
  } else if (G_IS_PARAM_SPEC_INT (p)) {
    GParamSpecInt *d = G_PARAM_SPEC_INT (p);
    gint x = g_value_get_int (v) + g_rand_int_range (r, -2, 3);
    g_value_set_int (v, CLAMP (x, d->minimum, d->maximum));
  } else if (G_IS_PARAM_SPEC_UINT (p)) {
    GParamSpecUInt *d = G_PARAM_SPEC_UINT (p);
    guint x = g_value_get_uint (v) + g_rand_int_range (r, 0, 3);
    g_value_set_uint (v, CLAMP (x, d->minimum, d->maximum));
  } else if (G_IS_PARAM_SPEC_BOOLEAN (p)) {
    g_value_set_boolean (v, g_rand_boolean (r));
  } else if (G_IS_PARAM_SPEC_ENUM (p)) {
    GEnumClass *k = G_PARAM_SPEC_ENUM (p)->enum_class;
    g_value_set_enum (v, k->values[g_rand_int_range (r, 0, k->n_values)].value);
  } else if (G_IS_PARAM_SPEC_FLAGS (p)) {
    /* any subset, none included (cudacltcorrelate's results) */
    GFlagsClass *k = G_PARAM_SPEC_FLAGS (p)->flags_class;
    guint i, f = 0;
    for (i = 0; i < k->n_values; i++)
      if (g_rand_boolean (r))
        f |= k->values[i].value;
    g_value_set_flags (v, f);
  }
}

static void
storm_one (gpointer thread, gpointer data)
{
  Storm *st = data;
  GParamSpec *p = st->specs[g_rand_int_range (st->rand, 0, st->n)];
  GValue v = G_VALUE_INIT;

  near_default (p, st->rand, &v);
  g_object_set_property (G_OBJECT (st->e), p->name, &v);
  g_value_unset (&v);
  g_atomic_int_inc (&st->sets);
}

/* Every setting that may change while PLAYING (files aside: they have their
 * own check) changed from another thread, one at a time at a high rate,
 * while frames flow; errors are allowed meanwhile (a combination may be
 * refused), crashes and hangs are not.  Then every setting back to its
 * default and the row's: the output must be a fresh element's. */
static void
every_setting (const Row * row)
{
  gchar *props = describe (row, NULL);
  GRand *rand = g_rand_new_with_seed (53);
  GstCaps *caps = row_caps (row, 0, row->sizes[0][0], row->sizes[0][1]);
  GstBuffer *in = random_frame (caps, rand), *out;
  GstHarness *h = co_harness (props, gst_caps_ref (caps));
  GstElement *e = co_harness_element (h);
  GParamSpec **all;
  guint n_all, i;
  Storm st = { e, NULL, 0, rand, 0 };
  GstHarnessThread *th;

  all = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n_all);
  st.specs = g_new (GParamSpec *, n_all);
  for (i = 0; i < n_all; i++)
    if ((all[i]->flags & GST_PARAM_MUTABLE_PLAYING) &&
        (all[i]->flags & G_PARAM_WRITABLE) &&
        G_PARAM_SPEC_VALUE_TYPE (all[i]) != G_TYPE_STRING &&
        !(row->fixed && g_str_equal (row->fixed, all[i]->name)))
      st.specs[st.n++] = all[i];
  fail_unless (st.n > 0);
  th = gst_harness_stress_custom_start (h, NULL, storm_one, &st, 20);
  /* at least so many frames, and until the other thread changed many
   * settings (small frames go fast on many cores) */
  for (i = 0; i < (quick ? 30u : 200u) || (g_atomic_int_get (&st.sets) <
          (quick ? 25 : 100) && i < 20000); i++) {
    if (gst_harness_push (h, gst_buffer_ref (in)) == GST_FLOW_OK)
      gst_buffer_unref (gst_harness_pull (h));
  }
  gst_harness_stress_thread_stop (th);
  GST_INFO ("%s: %d settings changed over %u frames", props, st.sets, i);
  fail_unless (st.sets >= (quick ? 25 : 100), "only %d changes", st.sets);
  /* back to the defaults, then the row's settings */
  for (i = 0; i < st.n; i++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_PARAM_SPEC_VALUE_TYPE (st.specs[i]));
    g_param_value_set_default (st.specs[i], &v);
    g_object_set_property (G_OBJECT (e), st.specs[i]->name, &v);
    g_value_unset (&v);
  }
  apply_props (h, row->props);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s: no output after the settings storm", props);
  check_equal_to_fresh (row, h, props, caps, in, out, "after every setting "
      "changed while PLAYING");
  gst_buffer_unref (out);
  g_free (st.specs);
  g_free (all);
  gst_object_unref (e);
  gst_harness_teardown (h);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  g_rand_free (rand);
  g_free (props);
}

/* ---- tiny and very wide frames ---- */

static void
extreme_sizes (const Row * row)
{
  static const gint sizes[][2] = { {1, 1}, {2, 2}, {3, 1}, {16384, 2},
  {2, 16384}
  };
  gchar *props = describe (row, NULL);
  GRand *rand = g_rand_new_with_seed (37);
  GstBus *bus = gst_bus_new ();
  GstCaps *first = row_caps (row, 0, row->sizes[0][0], row->sizes[0][1]);
  GstHarness *h = co_harness (props, gst_caps_ref (first));
  GstBuffer *in, *out;
  GstMessage *m;
  guint i;

  gst_element_set_bus (h->element, bus);
  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    GstCaps *caps = row_caps (row, 0, sizes[i][0], sizes[i][1]);
    GstFlowReturn ret;
    in = random_frame (caps, rand);
    gst_harness_set_src_caps (h, caps);
    ret = gst_harness_push (h, in);
    if (ret == GST_FLOW_OK) {
      out = gst_harness_pull (h);
      fail_unless (out != NULL);
      gst_buffer_unref (out);
    } else if (ret == GST_FLOW_ERROR) {
      /* refused: with an error that says why */
      GError *e = NULL;
      m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      fail_unless (m != NULL, "%s: %dx%d failed without an error", props,
          sizes[i][0], sizes[i][1]);
      gst_message_parse_error (m, &e, NULL);
      GST_INFO ("%s at %dx%d: %s", props, sizes[i][0], sizes[i][1],
          e->message);
      fail_unless (e->message && *e->message);
      g_error_free (e);
      gst_message_unref (m);
    } else {
      fail_unless_equals_int (ret, GST_FLOW_NOT_NEGOTIATED);
    }
  }
  /* and it works again */
  gst_harness_set_src_caps (h, gst_caps_ref (first));
  in = random_frame (first, rand);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s: no output after the extreme sizes", props);
  check_equal_to_fresh (row, h, props, first, in, out, "after extreme sizes");
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  gst_caps_unref (first);
  g_rand_free (rand);
  g_free (props);
}

/* ---- state cycles ---- */

static void
state_cycles (const Row * row)
{
  gchar *props = describe (row, NULL);
  gchar *bin = g_strdup_printf ("videotestsrc num-buffers=1 ! %s ! %s ! "
      "fakesink", row->src_caps, props);
  GstElement *p = gst_parse_launch (bin, NULL);
  const gchar *env = g_getenv ("CO_CONFORMANCE_CYCLES");
  gint n = env ? atoi (env) : quick ? 50 : 500, i;

  fail_unless (p != NULL, "%s", bin);
  for (i = 0; i < n; i++) {
    /* PAUSED starts the element (device, pools) and prerolls a frame */
    fail_unless (gst_element_set_state (p, i % 2 ? GST_STATE_PAUSED :
            GST_STATE_READY) != GST_STATE_CHANGE_FAILURE, "%s: cycle %d",
        bin, i);
    if (i % 50 == 0)
      gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND);
    fail_unless (gst_element_set_state (p, GST_STATE_NULL) ==
        GST_STATE_CHANGE_SUCCESS);
  }
  gst_object_unref (p);
  g_free (bin);
  g_free (props);
}

/* ---- files ---- */

static const gchar *bad_names[] = { "missing", "directory", "FIFO", "empty",
  "junk", "unusable"
};

/* A path of kind @bad (for @fp) in @dir; what its message must also say */
static gchar *
make_bad (const gchar * dir, const FileProp * fp, Bad bad,
    const gchar ** says)
{
  gchar *path;

  *says = NULL;
  if (bad == BAD_UNUSABLE)
    return data_path (fp->unusable);
  path = g_build_filename (dir, bad == BAD_DIRECTORY ? "a-directory" :
      bad == BAD_FIFO ? "a-fifo" : bad == BAD_MISSING ? "not-there.yml" :
      bad == BAD_EMPTY ? "empty.yml" : "junk.yml", NULL);
  switch (bad) {
    case BAD_MISSING:
      *says = "No such file";
      break;
    case BAD_DIRECTORY:
      fail_unless (g_mkdir (path, 0700) == 0 || errno == EEXIST);
      *says = "not a regular file";
      break;
    case BAD_FIFO:
      fail_unless (mkfifo (path, 0600) == 0 || errno == EEXIST);
      *says = "not a regular file";
      break;
    case BAD_EMPTY:
      fail_unless (g_file_set_contents (path, "", 0, NULL));
      break;
    case BAD_JUNK:
      fail_unless (g_file_set_contents (path, "\x89junk\x01\x02 not a file of "
              "this kind\n", -1, NULL));
      break;
    default:
      break;
  }
  return path;
}

/* The message text of the first error or warning on @bus, NULL if none */
static gchar *
pop_problem (GstBus * bus, GstMessageType *type, GstClockTime timeout)
{
  GstMessage *m = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
  GError *e = NULL;
  gchar *text;

  if (!m)
    return NULL;
  *type = GST_MESSAGE_TYPE (m);
  if (*type == GST_MESSAGE_ERROR)
    gst_message_parse_error (m, &e, NULL);
  else
    gst_message_parse_warning (m, &e, NULL);
  text = g_strdup (e->message);
  g_error_free (e);
  gst_message_unref (m);
  return text;
}

/* A message that names @path (its base name) and says @says */
static void
check_names (const gchar * text, const gchar * path, const gchar * says,
    const gchar * what)
{
  gchar *base = g_path_get_basename (path);

  fail_unless (text != NULL, "%s: no message", what);
  fail_unless (strstr (text, base) != NULL, "%s: \"%s\" does not name %s",
      what, text, base);
  fail_unless (!says || strstr (text, says), "%s: \"%s\" does not say "
      "\"%s\"", what, text, says);
  fail_unless (strstr (text, "(null)") == NULL, "%s: \"%s\" has no reason",
      what, text);
  g_free (base);
}

/* Set before PLAYING: an error naming the file, promptly; the pipeline
 * stops and goes to NULL. */
static void
bad_file_before (const Row * row, const FileProp * fp, const gchar * path,
    const gchar * says, const gchar * what)
{
  gchar *with = expand (fp->with);
  gchar *extra = g_strdup_printf ("%s %s=\"%s\"", with, fp->prop, path);
  gchar *props = describe (row, extra);
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=3 ! %s ! %s ! "
      "fakesink", row->src_caps, props);
  GstElement *p = gst_parse_launch (launch, NULL);
  GstBus *bus;
  GstMessage *m;
  GError *e = NULL;

  fail_unless (p != NULL, "%s", launch);
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR |
      GST_MESSAGE_EOS);
  fail_unless (m != NULL, "%s: %s hangs", what, launch);
  fail_unless (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "%s: no error "
      "from %s", what, launch);
  gst_message_parse_error (m, &e, NULL);
  GST_INFO ("%s: %s", what, e->message);
  check_names (e->message, path, says, what);
  g_error_free (e);
  gst_message_unref (m);
  fail_unless (gst_element_set_state (p, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (launch);
  g_free (props);
  g_free (extra);
  g_free (with);
}

/* Set while PLAYING: an error or a warning naming the file; after a
 * warning the element keeps its last good state and still applies the
 * other settings.  A pad's file (an aggregator's, set on one pad while
 * the others keep theirs) must warn: the rig goes on as it was. */
static void
bad_file_while_playing (const Row * row, const FileProp * fp, Bad bad,
    const gchar * path, const gchar * says, const gchar * what)
{
  gchar *with = expand (fp->with);
  gchar *good = describe (row, with);
  gchar *pb = g_strdup_printf ("%s %s=%s", with, row->live, row->live_b);
  gchar *good_b = describe (row, pb);
  GRand *rand = g_rand_new_with_seed (43);
  GstCaps *caps = row_caps (row, 0, row->sizes[0][0], row->sizes[0][1]);
  GstBuffer *in = random_frame (caps, rand), *out;
  GstHarness *h = co_harness (good, gst_caps_ref (caps));
  GstElement *e = co_harness_element (h);
  GstBus *bus = gst_bus_new ();
  GstMessageType type = 0;
  GstFlowReturn ret;
  gboolean pad = strstr (fp->prop, "::") != NULL;
  gchar *text;

  fail_unless (!pad || GST_IS_CHILD_PROXY (e), "%s: %s is a pad's, but the "
      "element has no child proxy", row->factory, fp->prop);
  gst_element_set_bus (h->element, bus);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s: no first frame", good);
  gst_buffer_unref (out);
  /* earlier warnings (no device, an aspect ratio) are not this one's */
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);

  /* a pad's file (an aggregator's sink_N::name) through its child proxy */
  if (pad)
    gst_child_proxy_set (GST_CHILD_PROXY (e), fp->prop, path, NULL);
  else
    g_object_set (e, fp->prop, path, NULL);
  ret = gst_harness_push (h, gst_buffer_ref (in));
  /* an aggregator reads its pads' files in its own thread, after the push
   * returned */
  text = pop_problem (bus, &type, 10 * GST_SECOND);
  check_names (text, path, says, what);
  g_free (text);
  if (pad && (fp->erring & (1u << bad))) {
    /* a known fault: the error, after the warning that names the file */
    if (type == GST_MESSAGE_WARNING) {
      text = pop_problem (bus, &type, 10 * GST_SECOND);
      fail_unless (text && type == GST_MESSAGE_ERROR, "%s: a known fault "
          "mended? no error while PLAYING now (%s): take its bit out of the "
          "row's erring", what, text ? text : "frames flow");
      GST_INFO ("%s: known fault while PLAYING: %s", what, text);
      g_free (text);
    }
  } else if (pad) {
    fail_unless (ret == GST_FLOW_OK && type == GST_MESSAGE_WARNING,
        "%s: an error (flow %s) while PLAYING: a pad's file must warn, the "
        "last good rig stay and frames go on", what,
        gst_flow_get_name (ret));
  }
  if (pad && (fp->erring & (1u << bad))) {
    /* nothing to compare */
  } else if (ret == GST_FLOW_OK) {
    fail_unless (type == GST_MESSAGE_WARNING);
    out = gst_harness_pull (h);
    check_equal_to_fresh (row, h, good, caps, in, out, "with the last good "
        "file");
    gst_buffer_unref (out);
    /* another setting still applies */
    gst_util_set_object_arg (G_OBJECT (e), row->live, row->live_b);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    check_equal_to_fresh (row, h, good_b, caps, in, out, "a setting after "
        "a bad file");
    gst_buffer_unref (out);
    /* one warning per setting */
    fail_unless (pop_problem (bus, &type, 0) == NULL, "%s: warned twice",
        what);
  } else {
    fail_unless_equals_int (ret, GST_FLOW_ERROR);
    fail_unless (type == GST_MESSAGE_ERROR);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (e);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  g_rand_free (rand);
  g_free (good);
  g_free (good_b);
  g_free (pb);
  g_free (with);
}

static void
bad_files (const Row * row)
{
  gchar *dir = g_dir_make_tmp ("co-conf-XXXXXX", NULL);
  gint f, b;

  fail_unless (dir != NULL);
  for (f = 0; f < (gint) G_N_ELEMENTS (row->files) && row->files[f].prop;
      f++) {
    for (b = 0; b < N_BAD; b++) {
      const gchar *says;
      gchar *path;
      if (b == BAD_UNUSABLE && !row->files[f].unusable)
        continue;
      path = make_bad (dir, &row->files[f], (Bad) b, &says);
      gchar *what = g_strdup_printf ("%s %s %s", row->factory,
          row->files[f].prop, bad_names[b]);
      bad_file_before (row, &row->files[f], path, says, what);
      bad_file_while_playing (row, &row->files[f], (Bad) b, path, says,
          what);
      if (b == BAD_DIRECTORY)
        g_rmdir (path);
      else if (b != BAD_UNUSABLE)
        g_unlink (path);
      g_free (what);
      g_free (path);
    }
  }
  g_rmdir (dir);
  g_free (dir);
}

/* ---- CUDA memory asked of the CPU backend ---- */

/* Downstream that takes only memory:CUDAMemory cannot be served by the CPU
 * backend: negotiation fails, and a warning says why (not a bare
 * not-negotiated). */
static void
cuda_caps_on_cpu (const Row * row)
{
  /* backend=auto: it links as a CUDA element would, then runs on the CPU
   * where no device is usable (backend=cpu already refuses to link) */
  gchar *props = g_strdup_printf ("%s backend=auto %s", row->factory,
      row->props);
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=1 ! %s ! %s ! "
      "video/x-raw(memory:CUDAMemory) ! fakesink", row->src_caps, props);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (launch, &err);
  GstBus *bus;
  GstMessage *m;
  gboolean said = FALSE, failed = FALSE, eos = FALSE;

  if (err) {
    /* an element that never takes CUDA memory says so when linked */
    GST_INFO ("%s: %s", launch, err->message);
    fail_unless (strstr (err->message, "memory:CUDAMemory") != NULL, "%s: %s",
        launch, err->message);
    g_error_free (err);
    gst_clear_object (&p);
    g_free (launch);
    g_free (props);
    return;
  }
  fail_unless (p != NULL, "%s", launch);
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  /* the warning may come just after the source's error */
  while (!said && !eos && (m = gst_bus_timed_pop_filtered (bus,
              (failed ? 1 : 10) * GST_SECOND, GST_MESSAGE_ERROR |
              GST_MESSAGE_WARNING | GST_MESSAGE_EOS))) {
    GError *e = NULL;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (m, &e, NULL);
      said = strstr (e->message, "memory:CUDAMemory") != NULL;
      g_error_free (e);
    } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
      eos = TRUE;               /* a usable device: CUDA memory it is */
    } else {
      /* an aggregator's not-negotiated is its error, which says why */
      gst_message_parse_error (m, &e, NULL);
      said = strstr (e->message, "memory:CUDAMemory") != NULL;
      g_error_free (e);
      failed = TRUE;
    }
    gst_message_unref (m);
  }
  fail_unless (said || (eos && !failed), "%s: no warning saying why CUDA "
      "memory cannot be negotiated", launch);
  fail_unless (gst_element_set_state (p, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (launch);
  g_free (props);
}

/* ---- the backend it reports ---- */

/* active-backend is auto until the element has chosen, so that a read
 * before it starts is not taken for the CPU; once started, the backend
 * this run asked for. */
static void
active_backend (const Row * row)
{
  gchar *props = describe (row, NULL);
  gchar *bin = g_strdup_printf ("videotestsrc num-buffers=1 ! %s ! %s ! "
      "fakesink", row->src_caps, props);
  GstElement *p = gst_parse_launch (bin, NULL), *e;
  gint active = -1, want = strcmp (backend, "cuda") ? GST_CO_BACKEND_CPU :
      GST_CO_BACKEND_CUDA;

  fail_unless (p != NULL, "%s", bin);
  e = co_family_element (p);
  g_object_get (e, "active-backend", &active, NULL);
  fail_unless (active == GST_CO_BACKEND_AUTO, "%s: active-backend %d "
      "before it started", bin, active);
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE, "%s", bin);
  fail_unless (gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS, "%s: no preroll", bin);
  g_object_get (e, "active-backend", &active, NULL);
  fail_unless (active == want, "%s: active-backend %d once started, not %d",
      bin, active, want);
  fail_unless (gst_element_set_state (p, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (e);
  gst_object_unref (p);
  g_free (bin);
  g_free (props);
}

/* ---- the suite: every check for every row ---- */

#define ROW_TESTS(fn) \
  GST_START_TEST (test_##fn) \
  { \
    fn (&rows[__i__]); \
  } \
  GST_END_TEST

ROW_TESTS (renegotiate);
ROW_TESTS (caps_churn);
ROW_TESTS (live_settings);
ROW_TESTS (every_setting);
ROW_TESTS (extreme_sizes);
ROW_TESTS (state_cycles);
ROW_TESTS (bad_files);
ROW_TESTS (cuda_caps_on_cpu);
ROW_TESTS (active_backend);

static Suite *
conformance_suite (void)
{
  Suite *s = suite_create ("conformance");
  TCase *tc = tcase_create ("family");

  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_renegotiate, 0, G_N_ELEMENTS (rows));
  tcase_add_loop_test (tc, test_caps_churn, 0, G_N_ELEMENTS (rows));
  tcase_add_loop_test (tc, test_live_settings, 0, G_N_ELEMENTS (rows));
  tcase_add_loop_test (tc, test_every_setting, 0, G_N_ELEMENTS (rows));
  tcase_add_loop_test (tc, test_extreme_sizes, 0, G_N_ELEMENTS (rows));
  tcase_add_loop_test (tc, test_bad_files, 0, G_N_ELEMENTS (rows));
  tcase_add_loop_test (tc, test_state_cycles, 0, G_N_ELEMENTS (rows));
  tcase_add_loop_test (tc, test_cuda_caps_on_cpu, 0, G_N_ELEMENTS (rows));
  tcase_add_loop_test (tc, test_active_backend, 0, G_N_ELEMENTS (rows));
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;
  gboolean cuda = argc > 1 && !strcmp (argv[1], "--backend=cuda");

  if (cuda)
    argv[--argc] = NULL;
  quick = g_getenv ("CO_TEST_QUICK") != NULL;
  gst_check_init (&argc, &argv);
  if (cuda) {
    gchar *why = NULL;
    if (!gst_co_cuda_probe (-1, &why)) {
      g_print ("no usable CUDA device (%s): skipped\n", why);
      g_free (why);
      return 77;
    }
    backend = "cuda";
  }
  s = conformance_suite ();
  return gst_check_run_suite (s, "conformance", __FILE__);
}
