/* cudaoptics — LGPL-2.1-or-later
 *
 * cudacltcorrelate in pipelines: known sub-pixel shifts between inputs and
 * between frames, timestamps without partners, bad input, live settings,
 * and (with a GPU) CUDA giving the CPU's bytes, from system and from CUDA
 * memory.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gsttestclock.h>
#include <gst/base/gstaggregator.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include "gstcodevice.h"
#include "family-check.h"
#include "rig-helper.h"
#include "gstcoimage.h"
#include "../clt-texture.h"
#include "../clt-kernels-file.h"
#include "../../include/cudaoptics/co-results.h"

#define W 192
#define H 144
#define WAVES 300

typedef CoTexture Texture;

static void
texture_init (Texture * t, guint32 seed)
{
  co_texture_init (t, seed, WAVES);
}

/* GRAY16_LE (or GRAY8 when @bytes is 1): the texture moved by (dx, dy) */
static GstBuffer *
render_bytes (const Texture * t, double dx, double dy, gint bytes)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) W * H * bytes,
      NULL);
  GstMapInfo map;
  int x, y;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++) {
      double v = 0;
      v += co_texture_at (t, x - dx, y - dy);
      v = CLAMP (32768 + 250 * v, 0, 65535);
      if (bytes == 1)
        map.data[y * W + x] = (guint8) (lrint (v) >> 8);
      else
        GST_WRITE_UINT16_LE (map.data + 2 * (y * W + x), (guint16) lrint (v));
    }
  gst_buffer_unmap (buf, &map);
  return buf;
}

static GstBuffer *
render (const Texture * t, double dx, double dy)
{
  return render_bytes (t, dx, dy, 2);
}

typedef CoRig Rig;

/* appsrc ! [cudaupload !] cudacltcorrelate (@props) ! appsink, @n inputs
 * of @format w x h, PLAYING */
static void
rig_start (Rig * r, gint n, const gchar * props, const gchar * format,
    gint w, gint h, gboolean cuda_memory)
{
  /* a Bayer format comes with its media type */
  gchar *caps = g_strdup_printf ("%s%s,width=%d,height=%d,framerate=30/1",
      strchr (format, '/') ? "" : "video/x-raw,format=", format, w, h);

  co_rig_init (r, n, props, NULL, caps, cuda_memory ? "videoconvert ! "
      "video/x-raw,format=NV12 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory)" : NULL);
  g_free (caps);
  gst_element_set_state (r->pipe, GST_STATE_PLAYING);
}

/* @buf into input @i as frame @frame at 30/1 */
static void
rig_push (Rig * r, gint i, GstBuffer * buf, gint frame)
{
  co_rig_push (r, i, buf, gst_util_uint64_scale (frame, GST_SECOND, 30));
}

/* The results of the next output (a copy; NULL: no results on it), or
 * *eos */
static GstStructure *
rig_pull (Rig * r, gboolean * eos)
{
  GstSample *s = co_rig_pull_from (r->sink, 10 * GST_SECOND);
  const GstStructure *st;
  GstStructure *copy = NULL;

  *eos = s == NULL;
  if (!s)
    return NULL;
  st = gst_co_buffer_get_results (gst_sample_get_buffer (s),
      "GstCoCltCorrelation");
  if (st)
    copy = gst_structure_copy (st);
  gst_sample_unref (s);
  return copy;
}

/* the first error or warning on the bus, or NULL */
static gchar *
rig_message (Rig * r, GstMessageType type)
{
  GstBus *bus = gst_element_get_bus (r->pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND,
      type | GST_MESSAGE_EOS);
  gchar *text = NULL;

  if (m && GST_MESSAGE_TYPE (m) != GST_MESSAGE_EOS) {
    GError *e = NULL;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
      gst_message_parse_error (m, &e, NULL);
    else
      gst_message_parse_warning (m, &e, NULL);
    text = g_strdup (e->message);
    g_error_free (e);
  }
  if (m)
    gst_message_unref (m);
  gst_object_unref (bus);
  return text;
}

#define rig_eos co_rig_eos
#define rig_stop co_rig_clear

/* Pair @p's shifts and strengths, as floats */
static const gfloat *
field (const GstStructure * s, const gchar * name, gint p, gint * n)
{
  const GValue *v = gst_structure_get_value (s, name);
  gint tx = 0, ty = 0;
  gsize size;
  const gfloat *f;

  fail_unless (v != NULL && G_VALUE_HOLDS (v, G_TYPE_BYTES), "%s", name);
  fail_unless (gst_structure_get_int (s, "tiles-x", &tx));
  fail_unless (gst_structure_get_int (s, "tiles-y", &ty));
  f = g_bytes_get_data (g_value_get_boxed (v), &size);
  *n = tx * ty;
  fail_unless (size >= (gsize) (p + 1) * *n * sizeof (gfloat));
  return f + (gsize) p ** n;
}

/* RMS error of pair @p's interior tiles against (ex, ey); their mean
 * strength into *strength */
static gdouble
rms_error (const GstStructure * s, gint p, gdouble ex, gdouble ey,
    gdouble * strength)
{
  gint n, tx = 0, ty = 0, i, cnt = 0;
  const gfloat *x = field (s, "shift-x", p, &n), *y = field (s, "shift-y", p,
      &n), *st = field (s, "strength", p, &n);
  gdouble e = 0, m = 0;

  gst_structure_get_int (s, "tiles-x", &tx);
  gst_structure_get_int (s, "tiles-y", &ty);
  for (i = 0; i < n; i++) {
    const gint cx = i % tx, cy = i / tx;
    if (cx < 2 || cy < 2 || cx >= tx - 2 || cy >= ty - 2)
      continue;
    e += (x[i] - ex) * (x[i] - ex) + (y[i] - ey) * (y[i] - ey);
    m += st[i];
    cnt++;
  }
  if (strength)
    *strength = m / cnt;
  return sqrt (e / cnt);
}

static void assert_same (const GstStructure * a, const GstStructure * b,
    const gchar * what);

/* Three cameras with known sub-pixel offsets: every pair of "all", in
 * order, measures the difference of its two offsets. */
GST_START_TEST (test_pairs_known_shift)
{
  const gdouble off[3][2] = { {0, 0}, {0.31, -0.22}, {-0.18, 0.41} };
  Texture t;
  GstBuffer *img[3];
  Rig r;
  GstStructure *s;
  gboolean eos;
  const gchar *pairs;
  gint i, p, a[3] = { 0, 0, 1 }, b[3] = { 1, 2, 2 };

  texture_init (&t, 5);
  for (i = 0; i < 3; i++)
    img[i] = render (&t, off[i][0], off[i][1]);
  rig_start (&r, 3, "backend=cpu", "GRAY16_LE", W, H, FALSE);
  for (i = 0; i < 3; i++)
    rig_push (&r, i, img[i], 0);
  s = rig_pull (&r, &eos);
  fail_unless (s != NULL);
  pairs = gst_structure_get_string (s, "pairs");
  fail_unless_equals_string (pairs, "0-1,0-2,1-2");
  for (p = 0; p < 3; p++) {
    gdouble str, e = rms_error (s, p, off[b[p]][0] - off[a[p]][0],
        off[b[p]][1] - off[a[p]][1], &str);
    GST_INFO ("pair %d-%d: RMS error %.4f px, mean strength %.3f", a[p], b[p],
        e, str);
    fail_unless (e < 0.1, "pair %d-%d: RMS error %.3f px", a[p], b[p], e);
    fail_unless (str > 0.3);
  }
  gst_structure_free (s);
  rig_eos (&r);
  s = rig_pull (&r, &eos);
  fail_unless (eos && s == NULL);
  rig_stop (&r);
  for (i = 0; i < 3; i++)
    gst_buffer_unref (img[i]);
}

GST_END_TEST;

/* Shifts of pixels: one pass is pulled towards zero by the window; a
 * refinement (b's tiles moved by the estimate) measures the rest. */
GST_START_TEST (test_refine)
{
  Texture t;
  GstBuffer *a, *b;
  gint k;
  gdouble e[3];

  texture_init (&t, 31);
  a = render (&t, 0, 0);
  b = render (&t, 1.7, -2.2);
  for (k = 0; k < 3; k++) {
    Rig r;
    gboolean eos;
    GstStructure *s;
    gchar *props = g_strdup_printf ("refine=%d", k);
    rig_start (&r, 2, props, "GRAY16_LE", W, H, FALSE);
    rig_push (&r, 0, a, 0);
    rig_push (&r, 1, b, 0);
    s = rig_pull (&r, &eos);
    fail_unless (s != NULL);
    e[k] = rms_error (s, 0, 1.7, -2.2, NULL);
    GST_INFO ("shift 1.7, -2.2, refine=%d: RMS error %.4f px", k, e[k]);
    gst_structure_free (s);
    rig_eos (&r);
    rig_stop (&r);
    g_free (props);
  }
  fail_unless (e[0] > 0.1, "one pass: %.3f", e[0]);
  fail_unless (e[1] < 0.07 && e[2] < 0.07, "refined: %.3f, %.3f", e[1],
      e[2]);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
}

GST_END_TEST;

/* One input against its previous frame, then against a kept reference:
 * a pan of 0.2 px a frame */
GST_START_TEST (test_temporal)
{
  Texture t;
  Rig r;
  gboolean eos;
  gint k, ref;

  texture_init (&t, 9);
  for (ref = 0; ref < 2; ref++) {
    rig_start (&r, 1, ref ? "mode=temporal reference=keep" : "mode=temporal",
        "GRAY16_LE", W, H, FALSE);
    for (k = 0; k < 4; k++) {
      GstBuffer *img = render (&t, 0.2 * k, -0.1 * k);
      GstStructure *s;
      rig_push (&r, 0, img, k);
      gst_buffer_unref (img);
      s = rig_pull (&r, &eos);
      fail_unless (!eos);
      if (k == 0) {
        /* its own reference: no shift (but for rounding) */
        gdouble e0;
        fail_unless (s != NULL, "no results on the first frame");
        e0 = rms_error (s, 0, 0, 0, NULL);
        gst_structure_free (s);
        fail_unless (e0 < 1e-3, "the first frame against itself: %g", e0);
      } else {
        const gdouble n = ref ? k : 1;
        gdouble e = rms_error (s, 0, 0.2 * n, -0.1 * n, NULL);
        GST_INFO ("%s, frame %d: RMS error %.4f px", ref ? "keep" :
            "previous", k, e);
        fail_unless (e < 0.1, "frame %d: RMS error %.3f", k, e);
        fail_unless_equals_string (gst_structure_get_string (s, "pairs"),
            "ref-0");
        fail_unless_equals_string (gst_structure_get_string (s, "mode"),
            "temporal");
        gst_structure_free (s);
      }
    }
    rig_eos (&r);
    rig_pull (&r, &eos);
    fail_unless (eos);
    rig_stop (&r);
  }
}

GST_END_TEST;

/* A camera that misses a frame: the other's frame of that instant is
 * dropped with one warning, the rest are matched, nothing hangs. */
GST_START_TEST (test_unmatched)
{
  Texture t;
  GstBuffer *img;
  Rig r;
  gboolean eos;
  gint k, outs = 0;
  gchar *warning;

  texture_init (&t, 2);
  img = render (&t, 0, 0);
  rig_start (&r, 2, "", "GRAY16_LE", W, H, FALSE);
  for (k = 0; k < 4; k++) {
    rig_push (&r, 0, img, k);
    if (k != 1)
      rig_push (&r, 1, img, k);
  }
  rig_eos (&r);
  for (;;) {
    GstStructure *s = rig_pull (&r, &eos);
    if (eos)
      break;
    fail_unless (s != NULL);
    outs++;
    gst_structure_free (s);
  }
  fail_unless_equals_int (outs, 3);
  warning = rig_message (&r, GST_MESSAGE_WARNING);
  /* the CPU fallback may warn first on a machine without a GPU */
  while (warning && strstr (warning, "CUDA")) {
    g_free (warning);
    warning = rig_message (&r, GST_MESSAGE_WARNING);
  }
  fail_unless (warning && strstr (warning, "without a partner"), "%s",
      GST_STR_NULL (warning));
  g_free (warning);
  rig_stop (&r);
  gst_buffer_unref (img);
}

GST_END_TEST;

/* How much slower than native the tests run (valgrind's multiplier) */
static gint
slowness (void)
{
  const gchar *m = g_getenv ("CK_TIMEOUT_MULTIPLIER");

  return MAX (1, m ? atoi (m) : 1);
}

/* The next output of a live rig on a test clock, releasing the
 * aggregator's waits on the clock until one comes (NULL after 5 s) */
static GstSample *
pull_cranking (GstElement * sink, GstTestClock * tc)
{
  gint k;

  for (k = 0; k < 50 * slowness (); k++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        100 * GST_MSECOND);
    GstClockID id = NULL;
    if (s)
      return s;
    if (gst_test_clock_peek_next_pending_id (tc, &id)) {
      gst_clock_id_unref (id);
      gst_test_clock_crank (tc);
    }
  }
  return NULL;
}

/* Live cameras on a test clock (deterministic: the aggregator's waits are
 * released by the test): camera 1 misses frame 1, so past the latency the
 * aggregator times out and drops camera 0's frame of that instant with a
 * warning; the frames before and after the gap come out with results. */
GST_START_TEST (test_live_late_camera)
{
  const GstClockTime step = 100 * GST_MSECOND;
  GstClock *clock = gst_test_clock_new ();
  GstTestClock *tc = GST_TEST_CLOCK (clock);
  Texture t;
  GstBuffer *img;
  Rig r;
  GstElement *pipe, **src, *sink;
  GstSample *smp;
  GstClockID id = NULL;
  gboolean eos;
  gchar *text = NULL;
  gint f, k;

  texture_init (&t, 9);
  img = render (&t, 0, 0);
  co_rig_init (&r, 2, "backend=cpu latency=20000000", "is-live=true",
      "video/x-raw,format=GRAY16_LE,width=192,height=144,framerate=10/1",
      NULL);
  pipe = r.pipe;
  src = r.src;
  sink = r.sink;
  gst_pipeline_use_clock (GST_PIPELINE (pipe), clock);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (f = 0; f < 3; f++) {
    for (k = 0; k < 2; k++) {
      GstBuffer *b;
      if (k == 1 && f == 1)
        continue;               /* camera 1 misses frame 1 */
      b = gst_buffer_copy (img);
      GST_BUFFER_PTS (b) = f * step;
      GST_BUFFER_DURATION (b) = step;
      fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src[k]),
              b), GST_FLOW_OK);
    }
    if (f == 1) {
      /* camera 0's frame queued, the aggregator waits for camera 1 until
       * the latency has passed: the clock is moved on until it gives up */
      GstElement *c = gst_bin_get_by_name (GST_BIN (pipe), "c");
      GstPad *pad = gst_element_get_static_pad (c, "sink_0");
      GstBus *bus = gst_element_get_bus (pipe);
      for (k = 0; k < 500 * slowness () && !gst_aggregator_pad_has_buffer
          (GST_AGGREGATOR_PAD (pad)); k++)
        g_usleep (10000);
      fail_unless (gst_aggregator_pad_has_buffer (GST_AGGREGATOR_PAD (pad)));
      for (k = 0; k < 50 * slowness () && !text; k++) {
        GstMessage *m;
        gst_test_clock_wait_for_next_pending_id (tc, &id);
        gst_clock_id_unref (id);
        gst_test_clock_crank (tc);
        m = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
            GST_MESSAGE_WARNING);
        if (m) {
          GError *e = NULL;
          gst_message_parse_warning (m, &e, NULL);
          GST_INFO ("%s", e->message);
          if (strstr (e->message, "without a partner"))
            text = g_strdup (e->message);
          g_error_free (e);
          gst_message_unref (m);
        }
      }
      fail_unless (text && strstr (text, "no frame in time"), "%s",
          GST_STR_NULL (text));
      g_free (text);
      gst_object_unref (bus);
      gst_object_unref (pad);
      gst_object_unref (c);
      continue;
    }
    smp = pull_cranking (sink, tc);
    fail_unless (smp != NULL, "frame %d: no output", f);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer (smp)),
        f * step);
    fail_unless (gst_co_buffer_get_results (gst_sample_get_buffer (smp),
            "GstCoCltCorrelation") != NULL);
    gst_sample_unref (smp);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src[0]));
  gst_app_src_end_of_stream (GST_APP_SRC (src[1]));
  smp = pull_cranking (sink, tc);
  eos = smp == NULL;
  if (smp)
    gst_sample_unref (smp);
  fail_unless (eos, "an output after the last frame");
  co_rig_clear (&r);
  gst_object_unref (clock);
  gst_buffer_unref (img);
}

GST_END_TEST;

/* One input in pairs mode (a rig still being built): a warning, and the
 * frames pass without results. */
GST_START_TEST (test_one_input)
{
  Texture t;
  GstBuffer *img;
  Rig r;
  gboolean eos;
  GstStructure *s;
  gchar *warning;

  texture_init (&t, 3);
  img = render (&t, 0, 0);
  rig_start (&r, 1, "", "GRAY16_LE", W, H, FALSE);
  rig_push (&r, 0, img, 0);
  s = rig_pull (&r, &eos);
  fail_unless (!eos && s == NULL);
  warning = rig_message (&r, GST_MESSAGE_WARNING);
  while (warning && strstr (warning, "CUDA device")) {
    g_free (warning);
    warning = rig_message (&r, GST_MESSAGE_WARNING);
  }
  fail_unless (warning && strstr (warning, "one input"), "%s",
      GST_STR_NULL (warning));
  g_free (warning);
  rig_eos (&r);
  rig_stop (&r);
  gst_buffer_unref (img);
}

GST_END_TEST;

/* What cannot be correlated is an error that says why, never a hang. */
GST_START_TEST (test_bad_input)
{
  const struct
  {
    gint n;
    const gchar *props;
    gint w1;                    /* sink_1's width */
    gint h;
    const gchar *expect;
  } cases[] = {
    {2, "", W + 8, H, "same size"},
    {2, "mode=temporal", W, H, "one input"},
    {2, "pairs=0-5", W, H, "does not exist"},
    {2, "pairs=zero-one", W, H, "not a pair"},
    {2, "pairs=1-1", W, H, "not a pair"},
    /* refused by the caps answer: upstream fails to link or negotiate */
    {2, "", 12, 12, "reason not-"},
  };
  Texture t;
  guint c;

  texture_init (&t, 4);
  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    Rig r;
    GString *d = g_string_new (NULL);
    GstBus *bus;
    GstMessage *m;
    GError *e = NULL;
    gchar *dbg = NULL;
    gint i;

    g_string_printf (d, "cudacltcorrelate name=c %s ! fakesink",
        cases[c].props);
    for (i = 0; i < cases[c].n; i++)
      g_string_append_printf (d, " videotestsrc num-buffers=2 ! "
          "video/x-raw,format=GRAY8,width=%d,height=%d ! c.sink_%d",
          i == 1 ? cases[c].w1 : (cases[c].w1 < 16 ? cases[c].w1 : W),
          cases[c].h, i);
    r.pipe = gst_parse_launch (d->str, NULL);
    fail_unless (r.pipe != NULL);
    gst_element_set_state (r.pipe, GST_STATE_PLAYING);
    bus = gst_element_get_bus (r.pipe);
    m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR,
        "%s: no error", d->str);
    gst_message_parse_error (m, &e, &dbg);
    GST_INFO ("%s: %s", cases[c].props, e->message);
    fail_unless (strstr (e->message, cases[c].expect) || (dbg &&
            strstr (dbg, cases[c].expect)), "%s: \"%s\" (%s)", d->str,
        e->message, GST_STR_NULL (dbg));
    g_error_free (e);
    g_free (dbg);
    gst_message_unref (m);
    gst_object_unref (bus);
    gst_element_set_state (r.pipe, GST_STATE_NULL);
    gst_object_unref (r.pipe);
    g_string_free (d, TRUE);
  }
}

GST_END_TEST;

/* The rig changes size mid-stream, each input's caps in turn (and back):
 * every output equals a fresh element's on the same frames. */
GST_START_TEST (test_renegotiation)
{
  const gint sizes[3][2] = { {W, H}, {W - 40, H - 24}, {W, H} };
  Texture t;
  Rig r;
  gboolean eos;
  gint k, i;

  texture_init (&t, 21);
  rig_start (&r, 2, "", "GRAY16_LE", W, H, FALSE);
  for (k = 0; k < 3; k++) {
    GstBuffer *img[2];
    GstStructure *s, *ref;
    Rig fresh;
    gchar *caps = g_strdup_printf ("video/x-raw,format=GRAY16_LE,width=%d,"
        "height=%d,framerate=30/1", sizes[k][0], sizes[k][1]);
    GstCaps *c = gst_caps_from_string (caps);

    for (i = 0; i < 2; i++) {
      GstBuffer *full = render (&t, 0.3 * i, -0.2 * i);
      /* the top left of the rendering, as the new size's frame */
      GstMapInfo a, b;
      gint y;
      img[i] = gst_buffer_new_allocate (NULL, (gsize) sizes[k][0] *
          sizes[k][1] * 2, NULL);
      gst_buffer_map (full, &a, GST_MAP_READ);
      gst_buffer_map (img[i], &b, GST_MAP_WRITE);
      for (y = 0; y < sizes[k][1]; y++)
        memcpy (b.data + (gsize) y * sizes[k][0] * 2, a.data + (gsize) y * W *
            2, sizes[k][0] * 2);
      gst_buffer_unmap (full, &a);
      gst_buffer_unmap (img[i], &b);
      gst_buffer_unref (full);
      g_object_set (r.src[i], "caps", c, NULL);
      rig_push (&r, i, img[i], k);
    }
    s = rig_pull (&r, &eos);
    fail_unless (s != NULL, "no results after renegotiating to %s", caps);
    rig_start (&fresh, 2, "", "GRAY16_LE", sizes[k][0], sizes[k][1], FALSE);
    for (i = 0; i < 2; i++)
      rig_push (&fresh, i, img[i], 0);
    ref = rig_pull (&fresh, &eos);
    rig_eos (&fresh);
    rig_stop (&fresh);
    assert_same (s, ref, caps);
    gst_structure_free (s);
    gst_structure_free (ref);
    for (i = 0; i < 2; i++)
      gst_buffer_unref (img[i]);
    gst_caps_unref (c);
    g_free (caps);
  }
  rig_eos (&r);
  rig_stop (&r);
}

GST_END_TEST;

/* Settings changed while PLAYING apply from the next frame: the pairs
 * (swapped: the shift's sign flips), the peak estimator, the fat zero. */
GST_START_TEST (test_live_properties)
{
  Texture t;
  GstBuffer *a, *b;
  Rig r;
  gboolean eos;
  GstStructure *s;
  gdouble e;

  texture_init (&t, 7);
  a = render (&t, 0, 0);
  b = render (&t, 0.3, 0.1);
  rig_start (&r, 2, "pairs=0-1", "GRAY16_LE", W, H, FALSE);
  rig_push (&r, 0, a, 0);
  rig_push (&r, 1, b, 0);
  s = rig_pull (&r, &eos);
  fail_unless (rms_error (s, 0, 0.3, 0.1, NULL) < 0.1);
  gst_structure_free (s);

  g_object_set (r.corr, "pairs", "1-0", NULL);
  rig_push (&r, 0, a, 1);
  rig_push (&r, 1, b, 1);
  s = rig_pull (&r, &eos);
  fail_unless_equals_string (gst_structure_get_string (s, "pairs"), "1-0");
  fail_unless (rms_error (s, 0, -0.3, -0.1, NULL) < 0.1);
  gst_structure_free (s);

  gst_util_set_object_arg (G_OBJECT (r.corr), "peak", "parabola");
  g_object_set (r.corr, "fat-zero", 0.5, NULL);
  rig_push (&r, 0, a, 2);
  rig_push (&r, 1, b, 2);
  s = rig_pull (&r, &eos);
  e = rms_error (s, 0, -0.3, -0.1, NULL);
  GST_INFO ("parabola, fat zero 0.5: RMS error %.3f", e);
  fail_unless (e < 0.3 && e > 0.01);
  gst_structure_free (s);
  rig_eos (&r);
  rig_stop (&r);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
}

GST_END_TEST;

static GstStructure *
one_frame_pre (const gchar * props, gint n, GstBuffer ** img,
    const gchar * format, gboolean cuda_mem, GBytes * pre)
{
  Rig r;
  gboolean eos;
  GstStructure *s;
  gint i;

  rig_start (&r, n, props, format, W, H, cuda_mem);
  if (pre)
    g_object_set (r.corr, "pre-shift", pre, NULL);
  for (i = 0; i < n; i++)
    rig_push (&r, i, img[i], 0);
  s = rig_pull (&r, &eos);
  if (!s) {
    gchar *e = rig_message (&r, GST_MESSAGE_ERROR);
    /* stopped first: a failure must not leave a pipeline running */
    rig_stop (&r);
    fail_unless (s != NULL, "%s%s: no results (%s)", props,
        cuda_mem ? " from CUDA memory" : "", GST_STR_NULL (e));
  }
  rig_eos (&r);
  rig_stop (&r);
  return s;
}

static GstStructure *
one_frame (const gchar * props, gint n, GstBuffer ** img,
    const gchar * format, gboolean cuda_mem)
{
  return one_frame_pre (props, n, img, format, cuda_mem, NULL);
}

/* Temporal mode: @img[0] then @img[1] into one input; the second
 * frame's results */
static GstStructure *
two_frames (const gchar * props, GstBuffer ** img, const gchar * format)
{
  Rig r;
  gboolean eos;
  GstStructure *s;

  rig_start (&r, 1, props, format, W, H, FALSE);
  rig_push (&r, 0, img[0], 0);
  s = rig_pull (&r, &eos);
  if (s)
    gst_structure_free (s);
  rig_push (&r, 0, img[1], 1);
  s = rig_pull (&r, &eos);
  rig_eos (&r);
  rig_stop (&r);
  fail_unless (s != NULL, "%s: no results", props);
  return s;
}

static void
assert_same (const GstStructure * a, const GstStructure * b,
    const gchar * what)
{
  const gchar *f[] = { "shift-x", "shift-y", "strength", "disparity",
    "rig-disparity", "confidence"
  };
  guint i;

  fail_unless (a && b, "%s: no results", what);
  /* post-messages: its line from the same numbers */
  fail_unless_equals_string (gst_structure_get_string (a, "summary"),
      gst_structure_get_string (b, "summary"));
  for (i = 0; i < G_N_ELEMENTS (f); i++) {
    const GValue *va = gst_structure_get_value (a, f[i]);
    const GValue *vb = gst_structure_get_value (b, f[i]);
    fail_unless ((va == NULL) == (vb == NULL), "%s: %s in one only", what,
        f[i]);
    if (va)
      fail_unless (g_bytes_equal (g_value_get_boxed (va),
              g_value_get_boxed (vb)), "%s: %s differs", what, f[i]);
  }
}

/* @part, made with results=@fields, carries those of @full's fields and
 * no other, equal */
static void
assert_part (const GstStructure * full, const GstStructure * part,
    const gchar * fields)
{
  const gchar *f[] = { "shift-x", "shift-y", "strength", "disparity",
    "rig-disparity", "confidence"
  };
  const gchar *flag[] = { "shift", "shift", "strength", "disparity", "rig",
    "rig"
  };
  gchar **want = g_strsplit (fields, "+", -1);
  guint i;

  fail_unless (full && part, "results=%s: no results", fields);
  for (i = 0; i < G_N_ELEMENTS (f); i++) {
    const GValue *va = gst_structure_get_value (full, f[i]);
    const GValue *vb = gst_structure_get_value (part, f[i]);
    const gboolean wanted = g_strv_contains ((const gchar * const *) want,
        flag[i]);
    fail_unless (va != NULL, "%s missing from the full results", f[i]);
    fail_unless ((vb != NULL) == wanted, "results=%s: %s %s", fields, f[i],
        vb ? "attached" : "missing");
    if (vb)
      fail_unless (g_bytes_equal (g_value_get_boxed (va),
              g_value_get_boxed (vb)), "results=%s: %s differs", fields, f[i]);
  }
  fail_unless (gst_structure_has_field (part, "reference-baseline"));
  g_strfreev (want);
}

/* Three GRAY8 views of a natural picture (tests/data/natural), @dx, @dy
 * whole pixels apart */
static void
natural_views (const gchar * name, GstBuffer ** img)
{
  gchar *path = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"), "natural",
      name, NULL), *why = NULL;
  gint w = 0, h = 0, i, y;
  guint8 *g = gst_co_decode_gray (path, &w, &h, &why);

  fail_unless (g != NULL && w >= W + 8 && h >= H + 8, "%s: %s", path,
      GST_STR_NULL (why));
  for (i = 0; i < 3; i++) {
    GstMapInfo m;
    img[i] = gst_buffer_new_allocate (NULL, (gsize) W * H, NULL);
    gst_buffer_map (img[i], &m, GST_MAP_WRITE);
    for (y = 0; y < H; y++)
      memcpy (m.data + (gsize) y * W, g + (gsize) (y + 2 * i) * w + 3 * i, W);
    gst_buffer_unmap (img[i], &m);
  }
  g_free (g);
  g_free (path);
}


/* Two 8-bit RGGB mosaics of a natural picture (tests/data/natural), the
 * second's view 2 pixels right and down (whole Bayer cells) */
static void
natural_bayer (const gchar * name, GstBuffer ** img)
{
  gchar *path = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"), "natural",
      name, NULL), *why = NULL;
  gint w = 0, h = 0, i, x, y;
  guint8 *rgb = gst_co_decode_rgb (path, &w, &h, &why);

  fail_unless (rgb != NULL && w >= W + 4 && h >= H + 4, "%s: %s", path,
      GST_STR_NULL (why));
  for (i = 0; i < 2; i++) {
    GstMapInfo m;
    img[i] = gst_buffer_new_allocate (NULL, (gsize) W * H, NULL);
    gst_buffer_map (img[i], &m, GST_MAP_WRITE);
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++) {
        /* red at (even, even), blue at (odd, odd), green between */
        const gint c = (x & 1) + (y & 1);
        m.data[(gsize) y * W + x] = rgb[((gsize) (y + 2 * i) * w + x +
                2 * i) * 3 + c];
      }
    gst_buffer_unmap (img[i], &m);
  }
  g_free (rgb);
  g_free (path);
}

/* output=map: an RGBA picture of the frame's size, coloured where the
 * tiles have texture, with the results still attached; switched while
 * PLAYING, the output renegotiates. */
GST_START_TEST (test_map_output)
{
  Texture t;
  GstBuffer *img[2];
  Rig r;
  gint f;

  texture_init (&t, 71);
  img[0] = render (&t, 0, 0);
  img[1] = render (&t, 1.5, -0.5);
  rig_start (&r, 2, "backend=cpu", "GRAY16_LE", W, H, FALSE);
  for (f = 0; f < 2; f++) {
    GstSample *sample;
    GstCaps *caps;
    GstStructure *st;
    const gchar *format;
    gint w = 0, h = 0;
    if (f == 1)
      g_object_set (r.corr, "output", 1 /* map */ , "map-range", 1.0, NULL);
    rig_push (&r, 0, img[0], f);
    rig_push (&r, 1, img[1], f);
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (r.sink),
        10 * GST_SECOND);
    fail_unless (sample != NULL);
    caps = gst_sample_get_caps (sample);
    st = gst_caps_get_structure (caps, 0);
    format = gst_structure_get_string (st, "format");
    gst_structure_get_int (st, "width", &w);
    gst_structure_get_int (st, "height", &h);
    fail_unless (w == W && h == H);
    fail_unless (gst_co_buffer_get_results (gst_sample_get_buffer (sample),
            "GstCoCltCorrelation") != NULL);
    if (f == 0) {
      fail_unless_equals_string (format, "GRAY16_LE");
    } else {
      GstMapInfo m;
      const guint8 *px;
      fail_unless_equals_string (format, "RGBA");
      gst_buffer_map (gst_sample_get_buffer (sample), &m, GST_MAP_READ);
      fail_unless_equals_int (m.size, W * H * 4);
      /* an interior tile: opaque, coloured (a shift of 1.6 px, beyond
       * map-range 1: saturated) */
      px = m.data + ((H / 2) * W + W / 2) * 4;
      GST_INFO ("map pixel %u %u %u %u", px[0], px[1], px[2], px[3]);
      fail_unless (px[3] == 255 && MAX (MAX (px[0], px[1]), px[2]) > 100 &&
          MIN (MIN (px[0], px[1]), px[2]) < 60);
      gst_buffer_unmap (gst_sample_get_buffer (sample), &m);
    }
    gst_sample_unref (sample);
  }
  rig_eos (&r);
  rig_stop (&r);
  gst_buffer_unref (img[0]);
  gst_buffer_unref (img[1]);
}

GST_END_TEST;

/* The centre pixel of a GRAY16 sample, in the byte order of its caps,
 * and the share of its pixels with an answer (not 0) */
static guint
gray16_centre (GstSample * sample, gdouble * answered)
{
  const gchar *format = gst_structure_get_string (gst_caps_get_structure
      (gst_sample_get_caps (sample), 0), "format");
  const gboolean be = !g_strcmp0 (format, "GRAY16_BE");
  GstMapInfo m;
  gsize i, some = 0;
  guint v;

  fail_unless (be || !g_strcmp0 (format, "GRAY16_LE"), "%s", format);
  gst_buffer_map (gst_sample_get_buffer (sample), &m, GST_MAP_READ);
  fail_unless_equals_int (m.size, W * H * 2);
  for (i = 0; i < m.size; i += 2)
    some += m.data[i] || m.data[i + 1];
  i = 2 * ((gsize) (H / 2) * W + W / 2);
  v = be ? GST_READ_UINT16_BE (m.data + i) : GST_READ_UINT16_LE (m.data + i);
  gst_buffer_unmap (gst_sample_get_buffer (sample), &m);
  *answered = (gdouble) some / (W * H);
  return v;
}

/* output=disparity: KITTI's 16 bits (256 x the second view's move to the
 * left, 0 = no answer) in the byte order downstream takes; the results
 * carry a summary line with post-messages; a move to the right has no
 * answer. */
GST_START_TEST (test_disparity_output)
{
  Texture t;
  GstBuffer *img[3];
  gint k;

  texture_init (&t, 73);
  img[0] = render (&t, 0, 0);
  img[1] = render (&t, -2.5, 0.25);
  img[2] = render (&t, 2.5, 0);
  for (k = 0; k < 3; k++) {
    Rig r;
    GstSample *sample;
    const GstStructure *res;
    const gchar *summary;
    gdouble answered;
    guint v;
    rig_start (&r, 2, "backend=cpu refine=1 output=disparity "
        "post-messages=true", "GRAY16_LE", W, H, FALSE);
    if (k == 1) {
      /* pngenc's order */
      GstCaps *be = gst_caps_from_string ("video/x-raw,format=GRAY16_BE");
      g_object_set (r.sink, "caps", be, NULL);
      gst_caps_unref (be);
    }
    rig_push (&r, 0, img[0], 0);
    rig_push (&r, 1, img[k == 2 ? 2 : 1], 0);
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (r.sink),
        10 * GST_SECOND);
    fail_unless (sample != NULL);
    v = gray16_centre (sample, &answered);
    res = gst_co_buffer_get_results (gst_sample_get_buffer (sample),
        "GstCoCltCorrelation");
    fail_unless (res != NULL);
    summary = gst_structure_get_string (res, "summary");
    GST_INFO ("output %d: centre %u (%.3f px), %.0f%% answered; %s", k, v,
        v / 256.0, 100 * answered, GST_STR_NULL (summary));
    fail_unless (summary && strstr (summary, "0-1 ("), "%s",
        GST_STR_NULL (summary));
    if (k < 2) {
      fail_unless (fabs (v / 256.0 - 2.5) < 0.1, "%u", v);
      fail_unless (answered > 0.8, "%.2f", answered);
      fail_unless (strstr (summary, "0-1 (-2.5") || strstr (summary,
              "0-1 (-2.4"), "%s", summary);
    } else {
      fail_unless (v == 0 && answered < 0.05, "%u, %.2f", v, answered);
    }
    gst_sample_unref (sample);
    rig_eos (&r);
    rig_stop (&r);
  }
  for (k = 0; k < 3; k++)
    gst_buffer_unref (img[k]);
}

GST_END_TEST;

/* lr-check: where the second view shows something else (an occlusion),
 * the pair measured both ways disagrees and the wrong answers there lose
 * their strength; elsewhere the answers stand */
GST_START_TEST (test_lr_check)
{
  Texture t, other;
  GstBuffer *img[2], *patch;
  GstMapInfo m, pm;
  GstStructure *s[2];
  gint k, y, i, n, tx = 0, in_total = 0, in_zero = 0, out_total = 0,
      out_kept = 0;
  const gfloat *st, *sx;

  texture_init (&t, 75);
  texture_init (&other, 76);
  img[0] = render (&t, 0, 0);
  img[1] = render (&t, -3.0, 0);
  /* columns 24..55, every row: another scene */
  patch = render (&other, 0, 0);
  gst_buffer_map (img[1], &m, GST_MAP_WRITE);
  gst_buffer_map (patch, &pm, GST_MAP_READ);
  for (y = 0; y < H; y++)
    memcpy (m.data + 2 * (y * W + 24), pm.data + 2 * (y * W + 24), 2 * 32);
  gst_buffer_unmap (patch, &pm);
  gst_buffer_unmap (img[1], &m);
  gst_buffer_unref (patch);
  for (k = 0; k < 2; k++)
    s[k] = one_frame (k ? "backend=cpu refine=1 lr-check=1" :
        "backend=cpu refine=1", 2, img, "GRAY16_LE", FALSE);
  st = field (s[1], "strength", 0, &n);
  sx = field (s[0], "shift-x", 0, &n);
  gst_structure_get_int (s[1], "tiles-x", &tx);
  for (i = 0; i < n; i++) {
    const gint cx = 8 * (i % tx), cy = 8 * (i / tx);
    if (cy < 16 || cy > H - 16)
      continue;
    if (cx >= 32 && cx <= 48 && fabs (sx[i] + 3.0) > 1.0) {
      in_total++;
      in_zero += st[i] == 0;
    } else if (cx >= 8 && cx <= 16) {
      out_total++;
      out_kept += st[i] > 0;
    }
  }
  GST_INFO ("lr-check=1: %d of %d wrong occluded tiles without an answer, "
      "%d of %d others kept", in_zero, in_total, out_kept, out_total);
  /* (unrelated content tends to read near 0 both ways, which cancels:
   * about a quarter pass) */
  fail_unless (in_total > 0 && in_zero >= 0.65 * in_total, "%d of %d",
      in_zero, in_total);
  fail_unless (out_total > 0 && out_kept >= 0.9 * out_total, "%d of %d",
      out_kept, out_total);
  /* the shifts themselves stay */
  fail_unless (memcmp (field (s[0], "shift-x", 0, &n), field (s[1],
              "shift-x", 0, &n), n * sizeof (gfloat)) == 0);
  for (k = 0; k < 2; k++) {
    gst_structure_free (s[k]);
    gst_buffer_unref (img[k]);
  }
}

GST_END_TEST;

/* Downstream that takes no output caps: an error, not a wait for ever */
GST_START_TEST (test_not_negotiated)
{
  Texture t;
  GstBuffer *img;
  GstCaps *gray;
  gchar *text;
  Rig r;

  texture_init (&t, 74);
  img = render (&t, 0, 0);
  rig_start (&r, 2, "backend=cpu output=map", "GRAY16_LE", W, H, FALSE);
  gray = gst_caps_from_string ("video/x-raw,format=GRAY8");
  g_object_set (r.sink, "caps", gray, NULL);
  gst_caps_unref (gray);
  rig_push (&r, 0, img, 0);
  rig_push (&r, 1, img, 0);
  text = rig_message (&r, GST_MESSAGE_ERROR);
  fail_unless (text && strstr (text, "Downstream takes none"), "%s",
      GST_STR_NULL (text));
  g_free (text);
  rig_stop (&r);
  gst_buffer_unref (img);
}

GST_END_TEST;

/* ---- raw Bayer ---- */

/* An RGGB mosaic (16 bits) of a coloured scene moved by (dx, dy): with
 * @independent, three unrelated textures (the hardest case: colour detail
 * up to the band limit); else one texture tinted (red 0.8, blue 0.6 of
 * green) */
static GstBuffer *
render_bayer (const Texture * t, double dx, double dy, gboolean independent)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) W * H * 2, NULL);
  GstMapInfo map;
  int x, y;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++) {
      /* 0 red, 1 green, 2 blue */
      const int c = (x & 1) + (y & 1);
      const double gain[3] = { 0.8, 1.0, 0.6 };
      double v;
      if (independent)
        v = co_texture_at (&t[c], x - dx, y - dy);
      else
        v = gain[c] * co_texture_at (t, x - dx, y - dy);
      v = CLAMP (32768 + 250 * v, 0, 65535);
      GST_WRITE_UINT16_LE (map.data + 2 * (y * W + x), (guint16) lrint (v));
    }
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* Raw Bayer inputs: the mosaic's luma is correlated (the colour carriers
 * filtered out at the site, the cross-power weighted away from them),
 * refined once: about 0.06 px on a tinted scene.  Three unrelated
 * textures put as much colour as grey detail at every frequency, so the
 * carriers' sidebands cover the whole band and do not move with the
 * scene (about 0.46 px; 0.26 before the weight, which natural colour
 * pictures need: tests/ref/bayer-bias.py): a limit, measured. */
GST_START_TEST (test_bayer)
{
  const gdouble off[2] = { 0.37, -0.23 };
  Texture t[3];
  gint k;

  for (k = 0; k < 3; k++)
    texture_init (&t[k], 51 + k);
  for (k = 0; k < 2; k++) {
    GstBuffer *img[2] = { render_bayer (t, 0, 0, k),
      render_bayer (t, off[0], off[1], k)
    };
    GstStructure *s = one_frame ("backend=cpu refine=1", 2, img,
        "video/x-bayer,format=rggb16le", FALSE);
    gdouble e = rms_error (s, 0, off[0], off[1], NULL);
    GST_INFO ("Bayer, %s: RMS error %.4f px", k ? "independent colours" :
        "tinted", e);
    fail_unless (e < (k ? 0.55 : 0.08), "%s: RMS error %.3f px",
        k ? "independent colours" : "tinted", e);
    gst_structure_free (s);
    gst_buffer_unref (img[0]);
    gst_buffer_unref (img[1]);
  }
}

GST_END_TEST;

/* ---- the tile processor's colour path ---- */

/* @t seen through a Gaussian blur of @sigma pixels: each wave damped */
static void
texture_blurred (const Texture * t, gdouble sigma, Texture * out)
{
  gint m;

  *out = *t;
  for (m = 0; m < t->n; m++)
    out->a[m] *= exp (-2 * G_PI * G_PI * sigma * sigma * (t->ux[m] *
            t->ux[m] + t->uy[m] * t->uy[m]));
}

/* The kernels of a lens that blurs by @sigma (the Wiener inverse, with
 * each Bayer colour's interpolation) in @dir */
static gchar *
lens_file (const gchar * dir, gint k, gdouble sigma)
{
  gchar *path = g_strdup_printf ("%s/lens%d.cltk", dir, k);
  CoCltLens lens;

  co_clt_lens_init (&lens, W, H);
  lens.sigma0 = sigma;
  lens.nsr = 0.02;
  lens.bayer = 1;
  fail_unless (co_test_write_kernels (&lens, 16, W, H, path));
  return path;
}

/* Two cameras whose lenses blur differently (1.0 and 1.4 px), raw RGGB
 * frames of a tinted scene: each pad's kernels (sink_N::kernels-file)
 * correct its tiles in the transform domain, and with a fat zero, the
 * low-pass and three refinements the known shift comes out within 0.1 px
 * (the bar through aberration correction; about 0.08 on these
 * few tiles, the mosaic's luma without kernels 0.11).  A pad without kernels, kernels on grey input and a missing
 * file are errors that say so. */
GST_START_TEST (test_colour_path)
{
  const gdouble off[2] = { 1.37, -0.61 }, sigma[2] = { 1.0, 1.4 };
  gchar *dir = g_dir_make_tmp ("co-lens-XXXXXX", NULL), *lens[2], *props;
  const gchar *robust = "backend=cpu refine=3 fat-zero=0.05 lpf-sigma=0.5";
  Texture t, b[2];
  GstBuffer *img[2];
  GstStructure *s;
  gdouble e, e_luma;
  gint k;

  texture_init (&t, 71);
  for (k = 0; k < 2; k++) {
    texture_blurred (&t, sigma[k], &b[k]);
    lens[k] = lens_file (dir, k, sigma[k]);
  }
  img[0] = render_bayer (&b[0], 0, 0, FALSE);
  img[1] = render_bayer (&b[1], off[0], off[1], FALSE);
  props = g_strdup_printf ("%s sink_0::kernels-file=\"%s\" "
      "sink_1::kernels-file=\"%s\"", robust, lens[0], lens[1]);
  s = one_frame (props, 2, img, "video/x-bayer,format=rggb16le", FALSE);
  e = rms_error (s, 0, off[0], off[1], NULL);
  gst_structure_free (s);
  s = one_frame (robust, 2, img, "video/x-bayer,format=rggb16le", FALSE);
  e_luma = rms_error (s, 0, off[0], off[1], NULL);
  gst_structure_free (s);
  GST_INFO ("blurs %.1f and %.1f px: colour path RMS error %.4f px, the "
      "mosaic's luma %.4f px", sigma[0], sigma[1], e, e_luma);
  fail_unless (e < 0.1 && e < e_luma, "colour path: RMS error %.3f px "
      "(the luma's %.3f)", e, e_luma);
  g_free (props);

  /* temporal: one camera's frames through its kernels */
  {
    GstBuffer *seq[2] = { img[0], render_bayer (&b[0], off[0], off[1],
          FALSE)
    };
    props = g_strdup_printf ("%s mode=temporal sink_0::kernels-file=\"%s\"",
        robust, lens[0]);
    s = two_frames (props, seq, "video/x-bayer,format=rggb16le");
    e = rms_error (s, 0, off[0], off[1], NULL);
    GST_INFO ("temporal, colour path: RMS error %.4f px", e);
    fail_unless (e < 0.1, "temporal colour path: RMS error %.3f px", e);
    gst_structure_free (s);
    gst_buffer_unref (seq[1]);
    g_free (props);
  }

  {
    const gchar *expect[] = { "sink_1 has no kernels-file",
      "takes raw Bayer", "missing.cltk"
    };
    for (k = 0; k < 3; k++) {
      Rig r;
      gchar *text;
      props = k == 2 ? g_strdup_printf ("backend=cpu "
          "sink_0::kernels-file=\"%s\" sink_1::kernels-file=\"%s/missing."
          "cltk\"", lens[0], dir) : k == 1 ? g_strdup_printf ("backend=cpu "
          "sink_0::kernels-file=\"%s\" sink_1::kernels-file=\"%s\"",
          lens[0], lens[1]) : g_strdup_printf ("backend=cpu "
          "sink_0::kernels-file=\"%s\"", lens[0]);
      rig_start (&r, 2, props, k == 1 ? "GRAY16_LE" :
          "video/x-bayer,format=rggb16le", W, H, FALSE);
      gst_app_src_push_buffer (GST_APP_SRC (r.src[0]), gst_buffer_copy (img[0]));
      gst_app_src_push_buffer (GST_APP_SRC (r.src[1]), gst_buffer_copy (img[1]));
      text = rig_message (&r, GST_MESSAGE_ERROR);
      rig_stop (&r);
      GST_INFO ("%s: %s", expect[k], GST_STR_NULL (text));
      fail_unless (text && strstr (text, expect[k]), "%s: %s", expect[k],
          GST_STR_NULL (text));
      g_free (text);
      g_free (props);
    }
  }
  for (k = 0; k < 2; k++) {
    gst_buffer_unref (img[k]);
    g_unlink (lens[k]);
    g_free (lens[k]);
  }
  g_rmdir (dir);
  g_free (dir);
}

GST_END_TEST;

/* ---- a rig's geometry ---- */

/* A quad rig: cameras at the corners of a unit square, f = 500 px.  Camera
 * k's ROS camera_info in @dir, its projection's fourth column -f (X, Y):
 * a point at disparity D (the pair 0-1's) lies D (-X, -Y) from camera 0's
 * view in camera k's. */
static const gdouble quad[4][2] = { {0, 0}, {1, 0}, {0, 1}, {1, 1} };

static gchar *
write_camera (const gchar * dir, gint k, gdouble x, gdouble y)
{
  gchar *path = g_strdup_printf ("%s/cam%d.yaml", dir, k);
  gchar *text = g_strdup_printf ("image_width: %d\nimage_height: %d\n"
      "camera_name: cam%d\n"
      "camera_matrix: {rows: 3, cols: 3, data: [500, 0, %g, 0, 500, %g, 0, "
      "0, 1]}\n"
      "distortion_model: plumb_bob\n"
      "distortion_coefficients: {rows: 1, cols: 5, data: [0, 0, 0, 0, 0]}\n"
      "rectification_matrix: {rows: 3, cols: 3, data: [1, 0, 0, 0, 1, 0, 0, "
      "0, 1]}\n"
      "projection_matrix: {rows: 3, cols: 4, data: [500, 0, %g, %g, 0, 500, "
      "%g, %g, 0, 0, 1, 0]}\n", W, H, k, W / 2.0, H / 2.0, W / 2.0,
      -500 * x, H / 2.0, -500 * y);
  fail_unless (g_file_set_contents (path, text, -1, NULL));
  g_free (text);
  return path;
}

/* The four cameras' files, as a launch line's pad properties */
static gchar *
quad_props (const gchar * dir, gint n, const gchar * extra)
{
  GString *p = g_string_new (extra);
  gint k;

  for (k = 0; k < n; k++) {
    gchar *path = write_camera (dir, k, quad[k][0], quad[k][1]);
    g_string_append_printf (p, " sink_%d::calibration-file=\"%s\"", k, path);
    g_free (path);
  }
  return g_string_free (p, FALSE);
}

static void
quad_views (const Texture * t, gdouble d, GstBuffer ** img)
{
  gint k;

  for (k = 0; k < 4; k++)
    img[k] = render (t, -d * quad[k][0], -d * quad[k][1]);
}

/* The four views and the calibration files of quad_props in @dir */
static void
quad_free (gchar * dir, GstBuffer ** img)
{
  gint k;

  for (k = 0; k < 4; k++) {
    gchar *f = g_strdup_printf ("%s/cam%d.yaml", dir, k);
    g_unlink (f);
    g_free (f);
    gst_buffer_unref (img[k]);
  }
  g_rmdir (dir);
  g_free (dir);
}

/* RMS error of a per-tile field against @truth over the interior tiles */
static gdouble
field_rms (const GstStructure * s, const gchar * name, gint p, gdouble truth)
{
  gint n, tx = 0, ty = 0, i, cnt = 0;
  const gfloat *f = field (s, name, p, &n);
  gdouble e = 0;

  gst_structure_get_int (s, "tiles-x", &tx);
  gst_structure_get_int (s, "tiles-y", &ty);
  for (i = 0; i < n; i++) {
    const gint cx = i % tx, cy = i / tx;
    if (cx < 2 || cy < 2 || cx >= tx - 2 || cy >= ty - 2)
      continue;
    e += (f[i] - truth) * (f[i] - truth);
    cnt++;
  }
  return sqrt (e / cnt);
}

static GBytes *
constant_floats (gint n, gfloat a, gfloat b, gboolean two)
{
  gfloat *v = g_new (gfloat, 2 * n);
  gint i;

  for (i = 0; i < n; i++) {
    v[i] = a;
    v[n + i] = b;
  }
  return g_bytes_new_take (v, sizeof (gfloat) * n * (two ? 2 : 1));
}

static gint
n_tiles (void)
{
  return ((W + 7) / 8 + 1) * ((H + 7) / 8 + 1);
}

/* Every camera's calibration given: each pair's disparity along its
 * baseline (the diagonals' sqrt 2 times the sides'), the rig's in pair
 * 0-1's pixels, its confidence and the reference baseline. */
GST_START_TEST (test_rig_geometry)
{
  const gdouble d = 0.35;
  gchar *dir = g_dir_make_tmp ("co-rig-XXXXXX", NULL), *props;
  Texture t;
  GstBuffer *img[4];
  GstStructure *s;
  gdouble base = 0, e;
  gint p;

  texture_init (&t, 41);
  quad_views (&t, d, img);
  props = quad_props (dir, 4, "backend=cpu refine=1");
  s = one_frame (props, 4, img, "GRAY16_LE", FALSE);
  fail_unless (gst_structure_get_double (s, "reference-baseline", &base));
  fail_unless (fabs (base - 500) < 1e-9, "reference baseline %g", base);
  for (p = 0; p < 6; p++) {
    const gdouble diag = p == 2 || p == 3 ? sqrt (2) : 1;
    e = field_rms (s, "disparity", p, d * diag);
    GST_INFO ("pair %d: disparity RMS error %.4f px", p, e);
    fail_unless (e < 0.08, "pair %d: RMS error %.3f px", p, e);
  }
  e = field_rms (s, "rig-disparity", 0, d);
  GST_INFO ("rig disparity %.2f px: RMS error %.4f px", d, e);
  fail_unless (e < 0.05, "rig: RMS error %.3f px", e);
  fail_unless (field_rms (s, "confidence", 0, 1.0) < 0.5);
  /* a consumer of the depth alone: only its fields, the same values */
  {
    const gchar *sets[] = { "rig", "shift+disparity", "strength" };
    gint k;
    for (k = 0; k < 3; k++) {
      gchar *p = g_strdup_printf ("%s results=%s", props, sets[k]);
      GstStructure *part = one_frame (p, 4, img, "GRAY16_LE", FALSE);
      assert_part (s, part, sets[k]);
      gst_structure_free (part);
      g_free (p);
    }
  }
  /* the same, changed while PLAYING: each next output follows it */
  {
    const gchar *sets[] = { "rig", "shift+strength", "disparity+rig",
      "shift+strength+disparity+rig"
    };
    GstStructure *part;
    gboolean eos;
    Rig r;
    gint k, i;

    rig_start (&r, 4, props, "GRAY16_LE", W, H, FALSE);
    for (k = 0; k < 4; k++) {
      gst_util_set_object_arg (G_OBJECT (r.corr), "results", sets[k]);
      for (i = 0; i < 4; i++)
        rig_push (&r, i, img[i], k);
      part = rig_pull (&r, &eos);
      assert_part (s, part, sets[k]);
      gst_structure_free (part);
    }
    rig_eos (&r);
    rig_stop (&r);
  }
  gst_structure_free (s);
  g_free (props);

  /* without calibrations: no geometry in the results */
  s = one_frame ("backend=cpu", 4, img, "GRAY16_LE", FALSE);
  fail_if (gst_structure_has_field (s, "rig-disparity"));
  gst_structure_free (s);
  quad_free (dir, img);
}

GST_END_TEST;

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  const gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* The median of pair @p's @name over every tile */
static gdouble
median_field (const GstStructure * s, const gchar * name, gint p)
{
  gint n, i;
  const gfloat *f = field (s, name, p, &n);
  gdouble *v = g_new (gdouble, n), med;

  for (i = 0; i < n; i++)
    v[i] = f[i];
  qsort (v, n, sizeof (gdouble), cmp_double);
  med = v[n / 2];
  g_free (v);
  return med;
}

/* Beyond the +-7 pixels of one correlation: a pre-shift starts each
 * tile's search near it (a rig's disparity; or shifts, in temporal mode). */
GST_START_TEST (test_pre_shift)
{
  const gdouble d = 9.6;
  gchar *dir = g_dir_make_tmp ("co-rig-XXXXXX", NULL), *props;
  Texture t;
  GstBuffer *img[4], *frames[2];
  GstStructure *s;
  GBytes *pre;
  gdouble e;
  gchar *text;
  Rig r;
  gboolean eos;
  gint k;

  texture_init (&t, 43);
  quad_views (&t, d, img);
  props = quad_props (dir, 4, "backend=cpu refine=1");
  s = one_frame (props, 4, img, "GRAY16_LE", FALSE);
  e = field_rms (s, "rig-disparity", 0, d);
  GST_INFO ("disparity %.1f px without a pre-shift: RMS error %.2f px", d, e);
  fail_unless (e > 1.0);
  gst_structure_free (s);
  pre = constant_floats (n_tiles (), 9, 0, FALSE);
  s = one_frame_pre (props, 4, img, "GRAY16_LE", FALSE, pre);
  e = field_rms (s, "rig-disparity", 0, d);
  GST_INFO ("disparity %.1f px from a pre-shift of 9: RMS error %.4f px", d,
      e);
  fail_unless (e < 0.05, "RMS error %.3f px", e);
  {
    /* the same start from a launch line: the reference pair's shift,
     * whole pixels, taken along its baseline */
    GstStructure *g;
    gchar *q = g_strdup_printf ("%s pre-shift-x=%.0f pre-shift-y=%.0f", props,
        median_field (s, "shift-x", 0), median_field (s, "shift-y", 0));
    g = one_frame (q, 4, img, "GRAY16_LE", FALSE);
    e = field_rms (g, "rig-disparity", 0, d);
    GST_INFO ("%s: RMS error %.4f px", q, e);
    fail_unless (e < 0.05, "pre-shift-x/y: RMS error %.3f px", e);
    gst_structure_free (g);
    g_free (q);
  }
  gst_structure_free (s);
  g_bytes_unref (pre);

  /* a block of another size: a warning, and the search starts at zero */
  rig_start (&r, 4, props, "GRAY16_LE", W, H, FALSE);
  pre = constant_floats (n_tiles (), 9, 0, TRUE);
  g_object_set (r.corr, "pre-shift", pre, NULL);
  g_bytes_unref (pre);
  for (k = 0; k < 4; k++)
    rig_push (&r, k, img[k], 0);
  s = rig_pull (&r, &eos);
  text = rig_message (&r, GST_MESSAGE_WARNING);
  rig_eos (&r);
  rig_stop (&r);
  fail_unless (s != NULL);
  fail_unless (text && strstr (text, "pre-shift ignored"), "%s",
      GST_STR_NULL (text));
  g_free (text);
  gst_structure_free (s);
  g_free (props);

  /* temporal: a pan of (9.3, -0.4) px a frame, from an expected (9, 0) */
  frames[0] = render (&t, 0, 0);
  frames[1] = render (&t, 9.3, -0.4);
  rig_start (&r, 1, "backend=cpu mode=temporal refine=1", "GRAY16_LE", W, H,
      FALSE);
  pre = constant_floats (n_tiles (), 9, 0, TRUE);
  g_object_set (r.corr, "pre-shift", pre, NULL);
  g_bytes_unref (pre);
  rig_push (&r, 0, frames[0], 0);
  rig_push (&r, 0, frames[1], 1);
  s = rig_pull (&r, &eos);
  gst_structure_free (s);       /* the first frame: its own reference */
  s = rig_pull (&r, &eos);
  rig_eos (&r);
  rig_stop (&r);
  fail_unless (s != NULL);
  e = rms_error (s, 0, 9.3, -0.4, NULL);
  GST_INFO ("temporal (9.3, -0.4) px from (9, 0): RMS error %.4f px", e);
  fail_unless (e < 0.1, "temporal: RMS error %.3f px", e);
  gst_structure_free (s);
  /* the same from a launch line */
  s = two_frames ("backend=cpu mode=temporal refine=1 pre-shift-x=9", frames,
      "GRAY16_LE");
  e = rms_error (s, 0, 9.3, -0.4, NULL);
  GST_INFO ("temporal (9.3, -0.4) px from pre-shift-x=9: RMS error %.4f px",
      e);
  fail_unless (e < 0.1, "temporal, pre-shift-x: RMS error %.3f px", e);
  gst_structure_free (s);
  gst_buffer_unref (frames[0]);
  gst_buffer_unref (frames[1]);
  quad_free (dir, img);
}

GST_END_TEST;

/* Of pair @p's tiles whose window and its match both lie inside the frame
 * (the content moved by (ex, ey)): the median error, and the share off
 * by more than @bad pixels into *bad_share */
static gdouble
median_error (const GstStructure * s, gint p, gdouble ex, gdouble ey,
    gdouble bad, gdouble * bad_share)
{
  gint n, tx = 0, i, cnt = 0, nbad = 0;
  const gfloat *x = field (s, "shift-x", p, &n), *y = field (s, "shift-y", p,
      &n);
  gdouble *e = g_new (gdouble, n), med;

  gst_structure_get_int (s, "tiles-x", &tx);
  for (i = 0; i < n; i++) {
    const gdouble cx = 8 * (i % tx) - 0.5, cy = 8 * (i / tx) - 0.5;
    if (MIN (cx, cx + ex) < 8 || MAX (cx, cx + ex) > W - 8 ||
        MIN (cy, cy + ey) < 8 || MAX (cy, cy + ey) > H - 8)
      continue;
    e[cnt] = hypot (x[i] - ex, y[i] - ey);
    nbad += e[cnt] > bad;
    cnt++;
  }
  fail_unless (cnt > 10, "only %d tiles inside", cnt);
  qsort (e, cnt, sizeof (gdouble), cmp_double);
  med = e[cnt / 2];
  g_free (e);
  *bad_share = (gdouble) nbad / cnt;
  return med;
}

/* max-shift: shifts far beyond one correlation's +-7 px, found by the
 * pyramid's search from a launch line's setting alone (pairs, temporal) */
GST_START_TEST (test_max_shift)
{
  const gdouble shifts[][2] = { {23.4, -11.7}, {-38.2, 5.3}, {3.3, 2.1} };
  Texture t;
  GstBuffer *img[2];
  GstStructure *s;
  gdouble med, bad;
  guint k;

  texture_init (&t, 47);
  img[0] = render (&t, 0, 0);
  for (k = 0; k < G_N_ELEMENTS (shifts); k++) {
    img[1] = render (&t, shifts[k][0], shifts[k][1]);
    s = one_frame ("backend=cpu refine=1", 2, img, "GRAY16_LE", FALSE);
    med = median_error (s, 0, shifts[k][0], shifts[k][1], 1.0, &bad);
    GST_INFO ("(%.1f, %.1f) px without max-shift: median error %.3f px",
        shifts[k][0], shifts[k][1], med);
    if (k < 2)
      fail_unless (med > 5, "found without a search: %.3f px", med);
    gst_structure_free (s);
    s = one_frame ("backend=cpu refine=2 max-shift=48", 2, img, "GRAY16_LE",
        FALSE);
    med = median_error (s, 0, shifts[k][0], shifts[k][1], 1.0, &bad);
    GST_INFO ("(%.1f, %.1f) px, max-shift=48: median error %.4f px, %.1f%% "
        "off by more than 1 px", shifts[k][0], shifts[k][1], med, 100 * bad);
    fail_unless (med < 0.05, "median error %.3f px", med);
    fail_unless (bad < 0.02, "%.1f%% off by more than 1 px", 100 * bad);
    gst_structure_free (s);
    gst_buffer_unref (img[1]);
  }
  /* a rectified pair: along the rows only */
  img[1] = render (&t, 31.7, 0.3);
  s = one_frame ("backend=cpu refine=2 max-shift=40 search=horizontal", 2,
      img, "GRAY16_LE", FALSE);
  med = median_error (s, 0, 31.7, 0.3, 1.0, &bad);
  GST_INFO ("(31.7, 0.3) px, search=horizontal: median error %.4f px, %.1f%% "
      "off by more than 1 px", med, 100 * bad);
  fail_unless (med < 0.05 && bad < 0.02, "horizontal: %.3f px, %.1f%%", med,
      100 * bad);
  gst_structure_free (s);
  gst_buffer_unref (img[1]);

  /* a calibrated quad: one search along the reference baseline starts
   * every pair (the diagonals see 30 px) */
  {
    gchar *dir = g_dir_make_tmp ("co-rig-XXXXXX", NULL), *props;
    GstBuffer *quad[4];
    gdouble e;
    quad_views (&t, 21.3, quad);
    props = quad_props (dir, 4, "backend=cpu refine=1 max-shift=40");
    s = one_frame (props, 4, quad, "GRAY16_LE", FALSE);
    {
      /* the median: tiles near the edges see no match in some cameras */
      gint nt, i;
      const gfloat *rd = field (s, "rig-disparity", 0, &nt);
      gdouble *err = g_new (gdouble, nt);
      for (i = 0; i < nt; i++)
        err[i] = fabs (rd[i] - 21.3);
      qsort (err, nt, sizeof (gdouble), cmp_double);
      e = err[nt / 2];
      g_free (err);
    }
    GST_INFO ("quad rig at 21.3 px, max-shift=40: median error %.4f px", e);
    fail_unless (e < 0.05, "quad rig: median error %.3f px", e);
    gst_structure_free (s);
    g_free (props);
    quad_free (dir, quad);
  }

  /* temporal: a pan of (-17.6, 9.2) px a frame */
  img[1] = render (&t, -17.6, 9.2);
  s = two_frames ("backend=cpu mode=temporal refine=2 max-shift=24", img,
      "GRAY16_LE");
  med = median_error (s, 0, -17.6, 9.2, 1.0, &bad);
  GST_INFO ("temporal (-17.6, 9.2) px, max-shift=24: median error %.4f px, "
      "%.1f%% off by more than 1 px", med, 100 * bad);
  fail_unless (med < 0.05 && bad < 0.02, "temporal: %.3f px, %.1f%%", med,
      100 * bad);
  gst_structure_free (s);
  gst_buffer_unref (img[1]);
  gst_buffer_unref (img[0]);
}

GST_END_TEST;

/* A rig that cannot be used says why: a camera without calibration, a
 * file that does not exist, two cameras at one place. */
GST_START_TEST (test_rig_errors)
{
  gchar *dir = g_dir_make_tmp ("co-rig-XXXXXX", NULL);
  gchar *cam0 = write_camera (dir, 0, 0, 0), *cam1 = write_camera (dir, 1, 1,
      0), *cam2 = write_camera (dir, 2, 0, 0);
  struct
  {
    const gchar *props, *expect;
  } cases[3];
  gchar *p[3];
  Texture t;
  GstBuffer *img[3];
  guint c, k;

  p[0] = g_strdup_printf ("sink_0::calibration-file=\"%s\" "
      "sink_1::calibration-file=\"%s\"", cam0, cam1);
  p[1] = g_strdup_printf ("sink_0::calibration-file=\"%s\" "
      "sink_1::calibration-file=\"%s\" sink_2::calibration-file=\"%s/none."
      "yaml\"", cam0, cam1, dir);
  p[2] = g_strdup_printf ("sink_0::calibration-file=\"%s\" "
      "sink_1::calibration-file=\"%s\" sink_2::calibration-file=\"%s\"",
      cam0, cam1, cam2);
  cases[0].props = p[0];
  cases[0].expect = "sink_2 has no calibration-file";
  cases[1].props = p[1];
  cases[1].expect = "none.yaml";
  cases[2].props = p[2];
  cases[2].expect = "no baseline";
  texture_init (&t, 3);
  for (k = 0; k < 3; k++)
    img[k] = render (&t, 0.1 * k, 0);
  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    Rig r;
    gchar *text;
    gchar *props = g_strdup_printf ("backend=cpu %s", cases[c].props);
    rig_start (&r, 3, props, "GRAY16_LE", W, H, FALSE);
    for (k = 0; k < 3; k++)
      gst_app_src_push_buffer (GST_APP_SRC (r.src[k]),
          gst_buffer_copy (img[k]));
    text = rig_message (&r, GST_MESSAGE_ERROR);
    rig_stop (&r);
    GST_INFO ("%s: %s", cases[c].expect, GST_STR_NULL (text));
    fail_unless (text && strstr (text, cases[c].expect), "%s: %s",
        cases[c].expect, GST_STR_NULL (text));
    g_free (text);
    g_free (props);
  }
  for (k = 0; k < 3; k++) {
    gst_buffer_unref (img[k]);
    g_free (p[k]);
  }
  g_unlink (cam0);
  g_unlink (cam1);
  g_unlink (cam2);
  g_free (cam0);
  g_free (cam1);
  g_free (cam2);
  g_rmdir (dir);
  g_free (dir);
}

GST_END_TEST;

/* mode=temporal uses no calibration without kernels, but a pad's file
 * that cannot be used is said all the same, as in pairs mode: an error
 * before the first frame (a missing file, junk), a warning while PLAYING
 * that keeps the frames flowing. */
GST_START_TEST (test_temporal_bad_calibration)
{
  gchar *dir = g_dir_make_tmp ("co-temporal-XXXXXX", NULL);
  gchar *missing = g_build_filename (dir, "missing.yaml", NULL);
  gchar *junk = g_build_filename (dir, "junk.yaml", NULL);
  const gchar *bad[2] = { missing, junk };
  Texture t;
  GstBuffer *img;
  GstStructure *s;
  gboolean eos;
  gchar *text;
  Rig r;
  guint c;

  fail_unless (g_file_set_contents (junk, "%YAML:1.0\n[ not, a camera",
          -1, NULL));
  texture_init (&t, 5);
  img = render (&t, 0, 0);
  for (c = 0; c < G_N_ELEMENTS (bad); c++) {
    gchar *props = g_strdup_printf ("backend=cpu mode=temporal "
        "sink_0::calibration-file=\"%s\"", bad[c]);
    rig_start (&r, 1, props, "GRAY16_LE", W, H, FALSE);
    rig_push (&r, 0, img, 0);
    text = rig_message (&r, GST_MESSAGE_ERROR);
    rig_stop (&r);
    GST_INFO ("%s: %s", bad[c], GST_STR_NULL (text));
    fail_unless (text && strstr (text, c ? "junk.yaml" : "missing.yaml"),
        "%s before the first frame: %s", bad[c], GST_STR_NULL (text));
    g_free (text);
    g_free (props);
  }

  rig_start (&r, 1, "backend=cpu mode=temporal", "GRAY16_LE", W, H, FALSE);
  rig_push (&r, 0, img, 0);
  s = rig_pull (&r, &eos);
  fail_unless (s != NULL && !eos);
  gst_structure_free (s);
  gst_child_proxy_set (GST_CHILD_PROXY (r.corr), "sink_0::calibration-file",
      missing, NULL);
  rig_push (&r, 0, img, 1);
  text = rig_message (&r, GST_MESSAGE_WARNING);
  GST_INFO ("set while PLAYING: %s", GST_STR_NULL (text));
  fail_unless (text && strstr (text, "missing.yaml"), "while PLAYING: %s",
      GST_STR_NULL (text));
  g_free (text);
  s = rig_pull (&r, &eos);
  fail_unless (s != NULL && !eos, "no results after the warning");
  gst_structure_free (s);
  rig_stop (&r);

  gst_buffer_unref (img);
  g_unlink (junk);
  g_rmdir (dir);
  g_free (missing);
  g_free (junk);
  g_free (dir);
}

GST_END_TEST;

/* GRAY8 frames from a function of (x, y) (the 8-bit rounding its own) */
static GstBuffer *
gray8_of (gdouble (*f) (gint x, gint y, gpointer data), gpointer data)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) W * H, NULL);
  GstMapInfo m;
  gint x, y;

  gst_buffer_map (buf, &m, GST_MAP_WRITE);
  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++)
      m.data[y * W + x] = (guint8) CLAMP (lrint (f (x, y, data)), 0, 255);
  gst_buffer_unmap (buf, &m);
  return buf;
}

static gdouble
flat_grey (gint x, gint y, gpointer data)
{
  return 128.0;
}

/* a gentle slope, 5 grey levels across and 3 down: tiles of one level
 * and tiles with a one-level step */
static gdouble
flat_slope (gint x, gint y, gpointer data)
{
  return 127.6 + 5.3 * x / W + 3.1 * y / H;
}

static gdouble
noise_of (gint x, gint y, gpointer data)
{
  GRand *r = data;
  /* Box-Muller: sigma 2 grey levels */
  const gdouble u = g_rand_double_range (r, 1e-12, 1.0),
      v = g_rand_double (r);
  return 128.0 + 2.0 * sqrt (-2.0 * log (u)) * cos (2.0 * G_PI * v);
}

/* The strengths of pair 0 (all tiles) sorted, into a new array */
static gdouble *
sorted_strengths (const GstStructure * s, gint * n)
{
  const gfloat *st = field (s, "strength", 0, n);
  gdouble *v = g_new (gdouble, *n);
  gint i;

  for (i = 0; i < *n; i++)
    v[i] = st[i];
  qsort (v, *n, sizeof (gdouble), cmp_double);
  return v;
}

/* noise-floor: identical flat frames (a constant grey; a gentle slope
 * rounded to 8 bits) correlate near strength 0 with no shift where pure
 * phase (noise-floor=0) whitened float rounding to 0.22 at (0.33, 0.33)
 * px; two independent noise frames of sigma 2 fall from a median of
 * 0.195 to 0.176 (0.094 with the floor at their own noise); a textured
 * pair moved by a sub-pixel shift keeps its strong tiles and its
 * accuracy (RMS 0.027 px against 0.032 in one pass). */
GST_START_TEST (test_noise_floor)
{
  GRand *r = g_rand_new_with_seed (41);
  GstBuffer *img[2];
  GstStructure *s;
  Texture t;
  gdouble *v, e0, e1;
  gint n, i, k;

  /* a constant grey, then the slope, with the default floor (0.5) and
   * with noise-floor=2 */
  for (k = 0; k < 3; k++) {
    /* measured: 0.016 (one frequency: the tile's mean) whatever the
     * floor; tiles across one of the slope's one-level steps (a real
     * edge, twice the default floor's noise) up to 0.21, 0.05 with
     * noise-floor=2 */
    const gdouble limit[] = { 0.03, 0.25, 0.06 };
    const gchar *props = k == 2 ? "noise-floor=2" : "";
    const gfloat *sx, *sy, *st;
    img[0] = gray8_of (k == 0 ? flat_grey : flat_slope, NULL);
    img[1] = gst_buffer_ref (img[0]);
    /* before: pure phase finds a peak in the rounding */
    s = one_frame ("noise-floor=0", 2, img, "GRAY8", FALSE);
    v = sorted_strengths (s, &n);
    GST_INFO ("flat %d, noise-floor=0: strength median %.3f", k, v[n / 2]);
    if (k == 0)
      fail_unless (v[n / 2] > 0.1, "median %.3f", v[n / 2]);
    g_free (v);
    gst_structure_free (s);
    s = one_frame (props, 2, img, "GRAY8", FALSE);
    sx = field (s, "shift-x", 0, &n);
    sy = field (s, "shift-y", 0, &n);
    st = field (s, "strength", 0, &n);
    v = sorted_strengths (s, &n);
    GST_INFO ("flat %d, %s: strength median %.3f, max %.3f", k, props,
        v[n / 2], v[n - 1]);
    for (i = 0; i < n; i++) {
      fail_unless (st[i] < limit[k], "flat %d: tile %d strength %.3f", k, i,
          st[i]);
      fail_unless (fabsf (sx[i]) < 0.01f && fabsf (sy[i]) < 0.01f,
          "flat %d: tile %d shift %.3f, %.3f", k, i, sx[i], sy[i]);
    }
    g_free (v);
    gst_structure_free (s);
    gst_buffer_unref (img[0]);
    gst_buffer_unref (img[1]);
  }

  img[0] = gray8_of (noise_of, r);
  img[1] = gray8_of (noise_of, r);
  for (k = 0; k < 3; k++) {
    const gchar *props[] = { "noise-floor=0", "", "noise-floor=2" };
    const gdouble most[] = { 1.0, 0.19, 0.11 };
    s = one_frame (props[k], 2, img, "GRAY8", FALSE);
    v = sorted_strengths (s, &n);
    GST_INFO ("noise, sigma 2, %s: strength median %.3f, 90%% %.3f",
        props[k], v[n / 2], v[9 * n / 10]);
    fail_unless (v[n / 2] < most[k], "%s: median %.3f", props[k], v[n / 2]);
    if (k == 0)
      fail_unless (v[n / 2] > 0.15, "median %.3f", v[n / 2]);
    g_free (v);
    gst_structure_free (s);
  }
  gst_buffer_unref (img[0]);
  gst_buffer_unref (img[1]);

  texture_init (&t, 43);
  img[0] = render_bytes (&t, 0, 0, 1);
  img[1] = render_bytes (&t, 0.31, -0.22, 1);
  for (k = 0; k < 2; k++) {
    gdouble ms;
    gint strong = 0;
    s = one_frame (k == 0 ? "noise-floor=0" : "", 2, img, "GRAY8", FALSE);
    (k == 0 ? &e0 : &e1)[0] = rms_error (s, 0, 0.31, -0.22, &ms);
    v = sorted_strengths (s, &n);
    for (i = 0; i < n; i++)
      strong += v[i] >= 0.3;
    GST_INFO ("texture, %s: RMS error %.4f px, mean strength %.3f, %d of "
        "%d tiles >= 0.3", k == 0 ? "noise-floor=0" : "default", k == 0 ?
        e0 : e1, ms, strong, n);
    fail_unless (strong > 0.9 * n, "%d of %d strong", strong, n);
    g_free (v);
    gst_structure_free (s);
  }
  fail_unless (e1 < 0.08 && e1 < 1.2 * e0 + 0.005, "RMS %.4f against %.4f",
      e1, e0);
  gst_buffer_unref (img[0]);
  gst_buffer_unref (img[1]);
  g_rand_free (r);
}

GST_END_TEST;

/* CUDA gives the CPU's bytes: three inputs in system memory (GRAY16_LE
 * textures, GRAY8 natural pictures) and in CUDA memory (NV12 from GRAY8,
 * whose luma it is: GstCudaMemory holds no grey format), each peak
 * method, with a fat zero, refined. */
GST_START_TEST (test_cuda_equals_cpu)
{
  const gchar *props[] = { "", "peak=parabola fat-zero=0.3",
    "peak=centroid pairs=2-0,1-2", "refine=2 pairs=0-2,1-0",
    "refine=1 max-shift=40 pairs=0-1,2-0",
    "refine=1 max-shift=40 search=horizontal pairs=1-0",
    "refine=1 pre-shift-x=-3.5 pre-shift-y=1 post-messages=true pairs=0-1,2-0",
    "refine=1 max-shift=20 lr-check=1 pairs=0-1,2-0",
    "peak=newton lpf-sigma=1 refine=2 pairs=1-2",
    "lpf-sigma=1 refine=3 refine-fat-zero=0.3 max-shift=16 pairs=0-1"
  };
  Texture t;
  GstBuffer *img[3][3];
  gchar *cpu, *cuda;
  guint i, c;

  texture_init (&t, 12);
  for (i = 0; i < 3; i++) {
    img[0][i] = render (&t, 0.4 * i - 0.3, 0.7 - 0.5 * i);
    img[1][i] = render_bytes (&t, 0.4 * i - 0.3, 0.7 - 0.5 * i, 1);
  }
  natural_views ("coffee.png", img[2]);
  for (c = 0; c < G_N_ELEMENTS (props); c++)
    for (i = 0; i < 3; i++) {
      const gchar *format = i ? "GRAY8" : "GRAY16_LE";
      cpu = g_strdup_printf ("backend=cpu %s", props[c]);
      cuda = g_strdup_printf ("backend=cuda %s", props[c]);
      GstStructure *a = one_frame (cpu, 3, img[i], format, FALSE);
      GstStructure *b = one_frame (cuda, 3, img[i], format, i == 1);
      GST_INFO ("%s%s: CUDA = CPU", props[c], i == 1 ? " (CUDA memory)" :
          i == 2 ? " (natural picture)" : "");
      assert_same (a, b, props[c]);
      gst_structure_free (a);
      gst_structure_free (b);
      g_free (cpu);
      g_free (cuda);
    }
  for (i = 0; i < 3; i++) {
    gst_buffer_unref (img[0][i]);
    gst_buffer_unref (img[1][i]);
    gst_buffer_unref (img[2][i]);
  }

  /* raw Bayer, 16 and 8 bits */
  {
    Texture tc[3];
    GstBuffer *bay[2];
    GstStructure *a, *b;
    gint k;

    for (k = 0; k < 3; k++)
      texture_init (&tc[k], 61 + k);
    bay[0] = render_bayer (tc, 0, 0, TRUE);
    bay[1] = render_bayer (tc, 0.6, -0.3, TRUE);
    a = one_frame ("backend=cpu refine=1", 2, bay,
        "video/x-bayer,format=gbrg16le", FALSE);
    b = one_frame ("backend=cuda refine=1", 2, bay,
        "video/x-bayer,format=gbrg16le", FALSE);
    GST_INFO ("Bayer (16 bits): CUDA = CPU");
    assert_same (a, b, "Bayer");
    gst_structure_free (a);
    gst_structure_free (b);
    a = one_frame ("backend=cpu refine=1 max-shift=30", 2, bay,
        "video/x-bayer,format=gbrg16le", FALSE);
    b = one_frame ("backend=cuda refine=1 max-shift=30", 2, bay,
        "video/x-bayer,format=gbrg16le", FALSE);
    GST_INFO ("Bayer (16 bits), max-shift=30: CUDA = CPU");
    assert_same (a, b, "Bayer, max-shift=30");
    gst_structure_free (a);
    gst_structure_free (b);
    for (k = 0; k < 2; k++) {
      /* the mosaic's high bytes: 8 bits */
      GstBuffer *b8 = gst_buffer_new_allocate (NULL, (gsize) W * H, NULL);
      GstMapInfo m16, m8;
      gsize j;
      gst_buffer_map (bay[k], &m16, GST_MAP_READ);
      gst_buffer_map (b8, &m8, GST_MAP_WRITE);
      for (j = 0; j < (gsize) W * H; j++)
        m8.data[j] = m16.data[2 * j + 1];
      gst_buffer_unmap (bay[k], &m16);
      gst_buffer_unmap (b8, &m8);
      gst_buffer_unref (bay[k]);
      bay[k] = b8;
    }
    a = one_frame ("backend=cpu", 2, bay, "video/x-bayer,format=bggr", FALSE);
    b = one_frame ("backend=cuda", 2, bay, "video/x-bayer,format=bggr", FALSE);
    GST_INFO ("Bayer (8 bits): CUDA = CPU");
    assert_same (a, b, "Bayer 8");
    gst_structure_free (a);
    gst_structure_free (b);
    gst_buffer_unref (bay[0]);
    gst_buffer_unref (bay[1]);
  }

  /* the tile processor's colour path: each camera's kernels, refined
   * with the secant, a fat zero and the low-pass; with a rig's
   * calibrations (their tiles moved by the camera's map); temporal */
  {
    gchar *dir = g_dir_make_tmp ("co-lens-XXXXXX", NULL), *lens[2];
    gchar *cam[2], *p[4];
    GstBuffer *bay[2];
    Texture tb[2];
    GstStructure *a, *b;
    gint k;

    for (k = 0; k < 2; k++) {
      texture_blurred (&t, 1.0 + 0.4 * k, &tb[k]);
      lens[k] = lens_file (dir, k, 1.0 + 0.4 * k);
      cam[k] = write_camera (dir, k, k, 0);
    }
    bay[0] = render_bayer (&tb[0], 0, 0, FALSE);
    bay[1] = render_bayer (&tb[1], 1.3, -0.4, FALSE);
    p[0] = g_strdup_printf ("refine=3 fat-zero=0.05 lpf-sigma=0.5 "
        "sink_0::kernels-file=\"%s\" sink_1::kernels-file=\"%s\"", lens[0],
        lens[1]);
    p[1] = g_strdup_printf ("%s sink_0::calibration-file=\"%s\" "
        "sink_1::calibration-file=\"%s\"", p[0], cam[0], cam[1]);
    p[2] = g_strdup_printf ("mode=temporal refine=2 lpf-sigma=1 "
        "sink_0::kernels-file=\"%s\"", lens[0]);
    p[3] = g_strdup (p[0]);
    for (k = 0; k < 4; k++) {
      if (k == 3) {
        /* a natural picture, 8-bit RGGB */
        gst_buffer_unref (bay[0]);
        gst_buffer_unref (bay[1]);
        natural_bayer ("astronaut.png", bay);
      }
      cpu = g_strdup_printf ("backend=cpu %s", p[k]);
      cuda = g_strdup_printf ("backend=cuda %s", p[k]);
      if (k == 3) {
        a = one_frame (cpu, 2, bay, "video/x-bayer,format=rggb", FALSE);
        b = one_frame (cuda, 2, bay, "video/x-bayer,format=rggb", FALSE);
      } else if (k < 2) {
        a = one_frame (cpu, 2, bay, "video/x-bayer,format=rggb16le", FALSE);
        b = one_frame (cuda, 2, bay, "video/x-bayer,format=rggb16le", FALSE);
      } else {
        a = two_frames (cpu, bay, "video/x-bayer,format=rggb16le");
        b = two_frames (cuda, bay, "video/x-bayer,format=rggb16le");
      }
      GST_INFO ("colour path%s: CUDA = CPU", k == 1 ? ", rig" : k == 2 ?
          ", temporal" : k == 3 ? ", natural picture (8 bits)" : "");
      fail_unless (k != 1 || gst_structure_has_field (a, "rig-disparity"));
      assert_same (a, b, "colour path");
      gst_structure_free (a);
      gst_structure_free (b);
      g_free (cpu);
      g_free (cuda);
    }
    for (k = 0; k < 2; k++) {
      gst_buffer_unref (bay[k]);
      g_unlink (lens[k]);
      g_unlink (cam[k]);
      g_free (lens[k]);
      g_free (cam[k]);
    }
    for (k = 0; k < 4; k++)
      g_free (p[k]);
    g_rmdir (dir);
    g_free (dir);
  }

  /* a rig's geometry from pre-shifted, refined tiles; shifts pre-set */
  {
    gchar *dir = g_dir_make_tmp ("co-rig-XXXXXX", NULL), *p;
    GstBuffer *quadv[4];
    GBytes *pre[2];
    GstStructure *a, *b;
    gint k;

    quad_views (&t, 2.7, quadv);
    pre[0] = constant_floats (n_tiles (), 2.5, 0, FALSE);
    pre[1] = constant_floats (n_tiles (), -1.5, -2, TRUE);
    for (k = 0; k < 2; k++) {
      p = k ? g_strdup ("refine=1") : quad_props (dir, 4, "refine=1");
      cpu = g_strdup_printf ("backend=cpu %s", p);
      cuda = g_strdup_printf ("backend=cuda %s", p);
      a = one_frame_pre (cpu, 4, quadv, "GRAY16_LE", FALSE, pre[k]);
      b = one_frame_pre (cuda, 4, quadv, "GRAY16_LE", FALSE, pre[k]);
      GST_INFO ("%s: CUDA = CPU", k ? "pre-set shifts" : "rig, pre-shift");
      fail_unless (k || gst_structure_has_field (a, "rig-disparity"));
      assert_same (a, b, k ? "pre-set shifts" : "rig");
      if (k == 0) {
        /* the device copies back only the fields asked for: the same */
        const gchar *sets[] = { "rig", "strength+disparity", "shift+rig" };
        gint j;
        for (j = 0; j < 3; j++) {
          gchar *q = g_strdup_printf ("%s results=%s", cuda, sets[j]);
          GstStructure *c = one_frame_pre (q, 4, quadv, "GRAY16_LE", FALSE,
              pre[k]);
          GST_INFO ("results=%s: CUDA = CPU", sets[j]);
          assert_part (a, c, sets[j]);
          gst_structure_free (c);
          g_free (q);
        }
      }
      gst_structure_free (a);
      gst_structure_free (b);
      g_free (cpu);
      g_free (cuda);
      g_free (p);
      g_bytes_unref (pre[k]);
    }
    /* max-shift on the rig: its reference pair searched, every pair
     * started from it (with the left-right check); a launch line's start
     * on the rig, along the reference baseline */
    for (k = 0; k < 2; k++) {
      const gchar *extra = k ? "refine=1 pre-shift-x=-10 pre-shift-y=0.5" :
          "refine=1 max-shift=24 lr-check=0.5 post-messages=true";
      p = quad_props (dir, 4, extra);
      cpu = g_strdup_printf ("backend=cpu %s", p);
      cuda = g_strdup_printf ("backend=cuda %s", p);
      a = one_frame (cpu, 4, quadv, "GRAY16_LE", FALSE);
      b = one_frame (cuda, 4, quadv, "GRAY16_LE", FALSE);
      GST_INFO ("rig, %s: CUDA = CPU", extra);
      assert_same (a, b, extra);
      gst_structure_free (a);
      gst_structure_free (b);
      g_free (cpu);
      g_free (cuda);
      g_free (p);
    }
    quad_free (dir, quadv);
  }
}

GST_END_TEST;

/* Without fork (CUDA), a failed assertion leaves its pipeline running and
 * a later test can wait on it for ever (check enforces no timeout
 * without fork): a test that outlives its time ends the binary with a
 * message, rather than meson's timeout. */
static void
watchdog_fired (int sig)
{
  static const char msg[] = "cudacltcorrelate: a test ran past its time "
      "(after an earlier failure?): stopping\n";
  if (write (2, msg, sizeof (msg) - 1) < 0)
    _exit (3);
  _exit (2);
}

/* the test case's timeout, times check's CK_TIMEOUT_MULTIPLIER (valgrind) */
#define TEST_TIMEOUT 300

static void
watchdog_start (void)
{
  signal (SIGALRM, watchdog_fired);
  alarm (TEST_TIMEOUT * slowness ());
}

static void
watchdog_stop (void)
{
  alarm (0);
}

static Suite *
cudacltcorrelate_suite (gboolean cuda)
{
  Suite *s = suite_create ("cudacltcorrelate");
  TCase *tc = tcase_create (cuda ? "cuda" : "general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, TEST_TIMEOUT);
  tcase_add_checked_fixture (tc, watchdog_start, watchdog_stop);
  if (cuda) {
    tcase_add_test (tc, test_cuda_equals_cpu);
    return s;
  }
  tcase_add_test (tc, test_pairs_known_shift);
  tcase_add_test (tc, test_refine);
  tcase_add_test (tc, test_temporal);
  tcase_add_test (tc, test_unmatched);
  tcase_add_test (tc, test_live_late_camera);
  tcase_add_test (tc, test_one_input);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_live_properties);
  tcase_add_test (tc, test_map_output);
  tcase_add_test (tc, test_disparity_output);
  tcase_add_test (tc, test_not_negotiated);
  tcase_add_test (tc, test_lr_check);
  tcase_add_test (tc, test_bayer);
  tcase_add_test (tc, test_colour_path);
  tcase_add_test (tc, test_rig_geometry);
  tcase_add_test (tc, test_pre_shift);
  tcase_add_test (tc, test_max_shift);
  tcase_add_test (tc, test_rig_errors);
  tcase_add_test (tc, test_temporal_bad_calibration);
  tcase_add_test (tc, test_noise_floor);
  return s;
}

CO_CHECK_MAIN (cudacltcorrelate);
