/* cudaoptics — LGPL-2.1-or-later
 *
 * The family's test helpers, shared by every element's CPU and GPU tests
 * and the conformance suite: frames, comparisons, harnesses, messages.
 */
#ifndef CO_FAMILY_CHECK_H
#define CO_FAMILY_CHECK_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "co_remap.h"
#include "gstcocaps.h"
#include "gstcoengine.h"
#include "../lens-reference.h"

static const gchar *all_formats[] G_GNUC_UNUSED = {
  "RGBA", "BGRA", "RGBx", "BGRx", "RGB", "GRAY8", "GRAY16_LE", "NV12", "I420",
};

#define co_format_of gst_co_format_from_video

static inline GstCaps *
video_caps (const gchar * format, gint w, gint h)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format,
      "width", G_TYPE_INT, w, "height", G_TYPE_INT, h, "framerate",
      GST_TYPE_FRACTION, 30, 1, NULL);
}

/* Random bytes, or a smooth picture when @smooth (a stand-in for natural
 * images: gradients where bilinear sampling matters). */
static inline GstBuffer *
make_frame (const GstVideoInfo * info, GRand * rand, gboolean smooth)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = smooth ? (guint8) (128 + 100 * sin (i * 0.013) +
        20 * sin (i * 0.0007)) : (guint8) g_rand_int (rand);
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* Bytes of each plane's visible part equal? */
static inline gboolean
frames_equal (const GstVideoInfo * info, GstBuffer * a, GstBuffer * b,
    gint * max_diff)
{
  GstVideoFrame fa, fb;
  gboolean same = TRUE;
  guint p;
  gint y, x, md = 0;

  /* the cast: before 1.20 gst_video_frame_map took a non-const info */
  fail_unless (gst_video_frame_map (&fa, (GstVideoInfo *) info, a,
          GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, (GstVideoInfo *) info, b,
          GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    CoFormat cf = co_format_of (GST_VIDEO_INFO_FORMAT (info));
    gint pw, ph, rowbytes;
    co_plane_size (GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        co_format_plane_shift (cf, p), &pw, &ph);
    rowbytes = pw * co_pix_bpp (co_format_plane_kind (cf, p));
    for (y = 0; y < ph; y++) {
      const guint8 *ra = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      for (x = 0; x < rowbytes; x++) {
        gint d = ABS ((gint) ra[x] - (gint) rb[x]);
        if (d) {
          same = FALSE;
          md = MAX (md, d);
        }
      }
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  if (max_diff)
    *max_diff = md;
  return same;
}

static inline GstHarness *
co_harness (const gchar * desc, GstCaps * caps)
{
  GstHarness *h = gst_harness_new_parse (desc);
  gst_harness_set_src_caps (h, caps);
  return h;
}

/* One frame through a fresh element described by @desc. */
static inline GstBuffer *
run_frame (const gchar * desc, GstCaps * caps, GstBuffer * in)
{
  GstHarness *h = co_harness (desc, gst_caps_ref (caps));
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "no output from %s", desc);
  gst_harness_teardown (h);
  return out;
}

/* Changes the geometry from a gst_harness stress thread, which calls back
 * with (thread, data). */
typedef struct
{
  GstElement *e;
  gint n;
} Poke;

static inline void
poke_properties (gpointer thread, gpointer data)
{
  Poke *p = data;
  gint n = ++p->n;
  g_object_set (p->e, "k1", (n % 7) * -0.05, "model", n % 2, NULL);
  gst_util_set_object_arg (G_OBJECT (p->e), "lut", n % 3 == 0 ? "compressed" :
      n % 3 == 1 ? "two-table" : "none");
  gst_util_set_object_arg (G_OBJECT (p->e), "interpolation", n % 5 ?
      "bilinear" : "nearest");
}


/* Caps change mid-stream (size and format): the table and the staging frames
 * follow; each output equals a fresh element's on the same frame. */
static inline void
check_renegotiation (const gchar * desc, const gchar * ref_desc)
{
  const gchar *fmts[] = { "RGBA", "NV12", "RGBA", "GRAY8" };
  const gint dims[][2] = { {64, 48}, {97, 61}, {320, 240}, {33, 17} };
  GstHarness *h = gst_harness_new_parse (desc);
  GRand *rand = g_rand_new_with_seed (21);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (fmts); i++) {
    GstCaps *caps = video_caps (fmts[i], dims[i][0], dims[i][1]);
    GstVideoInfo info;
    GstBuffer *in, *out, *ref;
    gst_video_info_from_caps (&info, caps);
    gst_harness_set_src_caps (h, gst_caps_ref (caps));
    in = make_frame (&info, rand, FALSE);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    ref = run_frame (ref_desc, caps, in);
    fail_unless (out && frames_equal (&info, out, ref, NULL),
        "after renegotiating to %s %dx%d", fmts[i], dims[i][0], dims[i][1]);
    gst_buffer_unref (out);
    gst_buffer_unref (ref);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
  gst_harness_teardown (h);
  g_rand_free (rand);
}

/* The family's element @e is, or the first inside the bin @e (a
 * reference, unref it) */
static inline GstElement *
co_family_element (GstElement * e)
{
  if (GST_IS_BIN (e)) {
    GstIterator *it = gst_bin_iterate_elements (GST_BIN (e));
    GValue v = G_VALUE_INIT;
    e = NULL;
    while (!e && gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      /* by name: a test linking common/ must not register the type the
       * plugin registers */
      GType base = g_type_from_name ("GstCoBaseFilter");
      GType agg = g_type_from_name ("GstCoBaseAggregator");
      GType t = G_OBJECT_TYPE (g_value_get_object (&v));
      if ((base && g_type_is_a (t, base)) || (agg && g_type_is_a (t, agg)))
        e = gst_object_ref (g_value_get_object (&v));
      g_value_reset (&v);
    }
    g_value_unset (&v);
    gst_iterator_free (it);
    fail_unless (e != NULL, "no element of the family in the bin");
    return e;
  }
  return gst_object_ref (e);
}

/* The family's element inside @h (a reference, unref it) */
static inline GstElement *
co_harness_element (GstHarness * h)
{
  return co_family_element (h->element);
}

/* "name=value name=value" onto the element inside @h */
static inline void
apply_props (GstHarness * h, const gchar * props)
{
  GstElement *e = co_harness_element (h);
  gchar **kv = g_strsplit (props, " ", -1);
  guint i;

  for (i = 0; kv[i]; i++) {
    gchar **p = g_strsplit (kv[i], "=", 2);
    /* a pad's property (sink_N::name) is the pad's, not reset here */
    if (p[0] && p[1] && !strstr (p[0], "::"))
      gst_util_set_object_arg (G_OBJECT (e), p[0], p[1]);
    g_strfreev (p);
  }
  g_strfreev (kv);
  gst_object_unref (e);
}


/* Another thread changes the geometry while @n frames flow through @desc;
 * afterwards, set to k1=-0.3 (hmd, compressed, bilinear), it must equal a
 * fresh @ref_desc on the same frame: no stale table survives. */
static inline void
check_properties_while_playing (const gchar * desc, const gchar * ref_desc,
    gint w, gint h, gboolean smooth, gint n, gulong sleep_us, gint min_changes)
{
  GstCaps *caps = video_caps ("NV12", w, h);
  GstHarness *hh = co_harness (desc, gst_caps_ref (caps));
  GRand *rand = g_rand_new_with_seed (15);
  Poke p = { gst_harness_find_element (hh, "cudalensdistort"), 0 };
  GstHarnessThread *t;
  GstVideoInfo info;
  GstBuffer *in, *out, *ref;
  gint i;

  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, smooth);
  t = gst_harness_stress_custom_start (hh, NULL, poke_properties, &p,
      sleep_us);
  for (i = 0; i < n; i++) {
    out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
    fail_unless (out != NULL);
    gst_buffer_unref (out);
  }
  gst_harness_stress_thread_stop (t);
  g_printerr ("%s: %d property changes over %d frames\n", desc, p.n, n);
  fail_unless (p.n > min_changes);
  apply_props (hh, "k1=-0.3 model=hmd lut=compressed interpolation=bilinear");
  out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  ref = run_frame (ref_desc, caps, in);
  fail_unless (frames_equal (&info, out, ref, NULL), "stale geometry");
  gst_buffer_unref (out);
  gst_buffer_unref (ref);
  gst_buffer_unref (in);
  gst_object_unref (p.e);
  gst_harness_teardown (hh);
  gst_caps_unref (caps);
  g_rand_free (rand);
}


/* The first message of @type (or EOS) from "videotestsrc ! @caps ! @desc !
 * fakesink"; a pipeline that does not parse fails the test. */
static inline GstMessage *
first_message_after (const gchar * caps, const gchar * desc,
    GstMessageType type)
{
  gchar *full = g_strdup_printf ("videotestsrc num-buffers=2 ! %s ! %s ! "
      "fakesink", caps, desc);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (full, &err);
  GstBus *bus;
  GstMessage *msg;

  fail_unless (p != NULL && err == NULL, "%s: %s", full, err ? err->message :
      "no pipeline");
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, type |
      GST_MESSAGE_EOS);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (full);
  return msg;
}

/* The same after 160x120 test frames. */
static inline GstMessage *
first_message (const gchar * desc, GstMessageType type)
{
  return first_message_after ("video/x-raw, width=160, height=120", desc,
      type);
}

/* ---- CUDA cases: a meson test of their own, skipped without a device ----
 *
 * A CUDA case that returned early without a device left its program green
 * where nothing ran.  A check file with CUDA-only cases instead gives its
 * suite function a flag, NAME_suite (gboolean cuda): the CUDA cases when
 * TRUE, every other case when FALSE; CO_CHECK_MAIN (NAME) replaces
 * GST_CHECK_MAIN (NAME).  The program runs the other cases; with
 * --backend=cuda it runs the CUDA ones, or, where no CUDA device is
 * usable, prints one line saying why and exits 77 (a skip to meson and to
 * tests/run-built-tests.sh).  tests/check/meson.build registers the program
 * twice: check-NAME, and check-NAME-cuda with args : ['--backend=cuda']. */

#define CO_CHECK_SKIPPED 77

/* FALSE, after one line on stdout saying why, where CUDA cannot run. */
static inline gboolean
co_check_cuda_usable (void)
{
  gchar *why = NULL;

  if (gst_co_cuda_probe (-1, &why))
    return TRUE;
  g_print ("no usable CUDA device (%s): skipped\n", why);
  g_free (why);
  return FALSE;
}

/* main of a check program whose suite function takes the cuda flag. */
static inline int
co_check_main (int argc, char **argv, Suite * (*make_suite) (gboolean cuda),
    const gchar * name, const gchar * file)
{
  gboolean cuda = argc > 1 && g_strcmp0 (argv[1], "--backend=cuda") == 0;
  gchar *run_name;
  int rc;

  if (cuda) {
    /* gst_check_init would refuse an option it does not know */
    argv[1] = argv[0];
    argv++;
    argc--;
  }
  gst_check_init (&argc, &argv);
  if (cuda && !co_check_cuda_usable ())
    return CO_CHECK_SKIPPED;
  /* "Check suite NAME-cuda ran in ...": which run the log is of */
  run_name = g_strconcat (name, cuda ? "-cuda" : "", NULL);
  rc = gst_check_run_suite (make_suite (cuda), run_name, file);
  g_free (run_name);
  return rc;
}

#define CO_CHECK_MAIN(name) \
int \
main (int argc, char **argv) \
{ \
  return co_check_main (argc, argv, name##_suite, #name, __FILE__); \
}

/* ---- injected faults (CO_FAULT_INJECT, common/filter/gstcobasefilter.c) ---- */

/* The first ERROR on @bus within @timeout (NULL: none). */
static inline GstMessage *
pop_error (GstBus * bus, GstClockTime timeout)
{
  return gst_bus_timed_pop_filtered (bus, timeout, GST_MESSAGE_ERROR);
}

/* @m is an error of @domain/@code whose message says @words. */
static inline void
expect_error (GstMessage * m, GQuark domain, gint code, const gchar * words)
{
  GError *e = NULL;
  gchar *dbg = NULL;

  fail_unless (m != NULL, "no error message (expected one saying \"%s\")",
      words);
  gst_message_parse_error (m, &e, &dbg);
  GST_INFO ("error from %s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (m)),
      e->message, GST_STR_NULL (dbg));
  fail_unless (e->domain == domain && e->code == code, "error %s/%d: %s",
      g_quark_to_string (e->domain), e->code, e->message);
  fail_unless (strstr (e->message, words) != NULL, "\"%s\" does not say "
      "\"%s\"", e->message, words);
  g_error_free (e);
  g_free (dbg);
  gst_message_unref (m);
}

/* The element described by @desc (its backend included) runs a frame with
 * @caps1, then @change (and @caps2, a larger frame where it differs, so the
 * table is reallocated) and the failure @spec injected (e.g. "alloc:2",
 * "building the LUT:2"): an error of @domain/@code saying @words.  The next
 * frame must be rebuilt from the current settings, equal to @ref_desc's
 * (a CPU element), never read from a freed or stale table; a READY ->
 * PLAYING restart works. */
static inline void
failed_rebuild_case (const gchar * desc, const gchar * spec, GQuark domain,
    gint code, const gchar * words, GstCaps * caps1, const gchar * change,
    GstCaps * caps2, const gchar * ref_desc)
{
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GRand *rand = g_rand_new_with_seed (41);
  GstVideoInfo i1, i2;
  GstBuffer *a, *b, *out, *ref;
  GstSegment seg;
  gint md = -1;

  GST_INFO ("%s: [%s] -> [%s]%s, %s fails", desc, ref_desc, change,
      caps2 != caps1 ? ", larger frame" : "", spec);
  gst_video_info_from_caps (&i1, caps1);
  gst_video_info_from_caps (&i2, caps2);
  a = make_frame (&i1, rand, FALSE);
  b = make_frame (&i2, rand, FALSE);
  ref = run_frame (ref_desc, caps2, b);

  /* read when the element starts */
  g_setenv ("CO_FAULT_INJECT", spec, TRUE);
  h = co_harness (desc, gst_caps_ref (caps1));
  g_unsetenv ("CO_FAULT_INJECT");
  gst_element_set_bus (h->element, bus);

  out = gst_harness_push_and_pull (h, gst_buffer_ref (a));
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  fail_unless (pop_error (bus, 0) == NULL);

  apply_props (h, change);
  if (caps2 != caps1)
    gst_harness_set_src_caps (h, gst_caps_ref (caps2));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (b)),
      GST_FLOW_ERROR);
  expect_error (pop_error (bus, 0), domain, code, words);
  fail_unless (pop_error (bus, 0) == NULL, "more than one error");

  /* frames keep coming (an application that ignores the error) */
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (b)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  frames_equal (&i2, out, ref, &md);
  fail_unless (md == 0, "%s [%s]: stale table after a failed rebuild "
      "(differs by %d)", desc, change, md);
  gst_buffer_unref (out);

  fail_unless (gst_element_set_state (h->element, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (h->element, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_harness_push_event (h, gst_event_new_stream_start ("restart"));
  gst_harness_push_event (h, gst_event_new_caps (caps2));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (b));
  fail_unless (out != NULL);
  md = -1;
  frames_equal (&i2, out, ref, &md);
  fail_unless (md == 0, "%s: after the restart (differs by %d)", desc, md);
  gst_buffer_unref (out);
  fail_unless (pop_error (bus, 0) == NULL);

  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (ref);
  g_rand_free (rand);
}

#endif
