/* cudaoptics — LGPL-2.1-or-later
 *
 * cudalensdistort on a GPU: the CUDA backend against the CPU backend for
 * every format, LUT strategy and interpolation on random and natural images;
 * pinned-pool and foreign buffers; memory:CUDAMemory pipelines with
 * cudaupload/cudadownload and NVDEC.  Exits 77 (skipped) without a device.
 */
#include <unistd.h>
#include <math.h>
#include <glib/gstdio.h>
#include <cuda_runtime_api.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include "family-check.h"

static const gchar *luts[] = { "compressed", "two-table", "none" };
static const gchar *interps[] = { "nearest", "bilinear" };
static const gchar *edges[] = { "border", "clamp", "wrap" };

static gchar *
sample (const gchar * name)
{
  return g_build_filename (g_getenv ("CO_SAMPLES_DIR"), name, NULL);
}

/* Pulls every frame a pipeline ending in "appsink name=out" produces. */
static GPtrArray *
pull_all (const gchar * launch, gint * warnings)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (launch, &err);
  GstElement *sink;
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  GstBus *bus;
  GstMessage *m;
  GstSample *s;
  gchar *error_text = NULL;

  fail_unless (pipe != NULL && err == NULL, "%s: %s", launch,
      err ? err->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  g_object_set (sink, "sync", FALSE, NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s did not start", launch);
  while ((s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              20 * GST_SECOND)))
    g_ptr_array_add (frames, s);
  bus = gst_element_get_bus (pipe);
  if (warnings)
    *warnings = 0;
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
              GST_MESSAGE_WARNING))) {
    GError *e = NULL;
    gchar *dbg = NULL;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &e, &dbg);
      if (!error_text)
        error_text = g_strdup_printf ("%s (%s)", e->message, dbg);
    } else {
      gst_message_parse_warning (m, &e, &dbg);
      GST_WARNING ("%s: warning %s (%s)", launch, e->message, dbg);
      if (warnings)
        (*warnings)++;
    }
    g_clear_error (&e);
    g_free (dbg);
    gst_message_unref (m);
  }
  /* tear down before failing: a live CUDA pipeline at exit can hang it */
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  fail_unless (error_text == NULL, "%s: error %s", launch, error_text);
  return frames;
}

static GstBuffer *
natural_frame (const gchar * format, gint w, gint h)
{
  gchar *jpg = sample ("building.jpg");
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! jpegdec ! "
      "videoconvert ! videoscale ! video/x-raw,format=%s,width=%d,height=%d ! "
      "appsink name=out", jpg, format, w, h);
  GPtrArray *f = pull_all (launch, NULL);
  GstBuffer *buf;

  fail_unless_equals_int (f->len, 1);
  buf = gst_buffer_ref (gst_sample_get_buffer (g_ptr_array_index (f, 0)));
  g_ptr_array_unref (f);
  g_free (launch);
  g_free (jpg);
  return buf;
}

/* One CUDA and one CPU element per format and picture, their properties
 * changed while PLAYING between frames (which the comparison also tests). */
GST_START_TEST (test_cuda_equals_cpu)
{
  gchar *calib = sample ("left_intrinsics.yml");
  GRand *rand = g_rand_new_with_seed (12);
  guint f, l, i, m, img, runs = 0;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++) {
    for (img = 0; img < 2; img++) {
      /* random at an odd size, natural at the sample's own size */
      gint w = img ? 868 : 333, h = img ? 600 : 201;
      GstCaps *caps = video_caps (all_formats[f], w, h);
      GstHarness *hc = co_harness ("cudalensdistort backend=cuda",
          gst_caps_ref (caps));
      GstHarness *hp = co_harness ("cudalensdistort backend=cpu",
          gst_caps_ref (caps));
      GstVideoInfo info;
      GstBuffer *in;
      gint64 t0 = g_get_monotonic_time ();
      gint worst = 0;

      gst_video_info_from_caps (&info, caps);
      in = img ? natural_frame (all_formats[f], w, h) :
          make_frame (&info, rand, FALSE);
      for (l = 0; l < G_N_ELEMENTS (luts); l++) {
        for (i = 0; i < G_N_ELEMENTS (interps); i++) {
          for (m = 0; m < 5; m++) {
            /* every off-edge mode meets every lut and interpolation; the
             * camera models: a file's five coefficients, OpenCV's whole
             * vector (rational, thin prism, tilt), fisheye with balance */
            gchar *props = g_strdup_printf ("lut=%s interpolation=%s "
                "off-edge=%s %s", luts[l], interps[i], edges[(l + i + m) % 3],
                m == 0 ? "calibration-file= model=hmd "
                "k1=-0.3 k2=0.05 center-x=0.45 stereo=false alpha=-1" :
                m == 1 ? "calibration-file= model=hmd k1=0.22 k2=0 "
                "center-x=0.5 stereo=true alpha=-1" :
                m == 3 ? "calibration-file= model=camera fx=0 fy=0 cx=-1 "
                "cy=-1 k1=-0.26 k2=0.07 p1=0.0009 p2=0.0004 k3=-0.01 k4=0.02 "
                "k5=0.01 k6=-0.005 s1=0.002 s2=-0.0008 s3=0.0015 s4=0.0003 "
                "tau-x=0.015 tau-y=-0.02 alpha=-1 balance=-1" :
                m == 4 ? "calibration-file= model=fisheye fx=0 fy=0 cx=-1 "
                "cy=-1 k1=-0.013 k2=0.041 k3=-0.037 k4=0.0095 p1=0 p2=0 k5=0 "
                "k6=0 s1=0 s2=0 s3=0 s4=0 tau-x=0 tau-y=0 balance=0.5 "
                "fov-scale=1.2" : "k1=0 k2=0 alpha=0.5 calibration-file=");
            gchar *full = m != 2 ? g_strdup (props) : g_strconcat (props,
                calib, NULL);
            GstBuffer *a, *b;
            gint md = 0;
            apply_props (hc, full);
            apply_props (hp, full);
            a = gst_harness_push_and_pull (hc, gst_buffer_ref (in));
            b = gst_harness_push_and_pull (hp, gst_buffer_ref (in));
            fail_unless (a && b);
            frames_equal (&info, a, b, &md);
            /* the backends are designed bit-exact; 1 LSB is the contract */
            fail_unless (md <= (i ? 1 : 0), "%s %dx%d %s: CUDA differs from "
                "CPU by %d", all_formats[f], w, h, full, md);
            worst = MAX (worst, md);
            runs++;
            gst_buffer_unref (a);
            gst_buffer_unref (b);
            g_free (props);
            g_free (full);
          }
        }
      }
      g_printerr ("cuda==cpu %-9s %s %dx%d: 30 settings, max diff %d, "
          "%.0f ms\n", all_formats[f], img ? "natural" : "random ", w, h,
          worst, (g_get_monotonic_time () - t0) / 1000.0);
      gst_buffer_unref (in);
      gst_harness_teardown (hc);
      gst_harness_teardown (hp);
      gst_caps_unref (caps);
    }
  }
  g_printerr ("%u CUDA/CPU comparisons\n", runs);
  g_rand_free (rand);
  g_free (calib);
}

GST_END_TEST;

/* @in through one CUDA and one CPU element with @props, their outputs
 * @outcaps (@oinfo): the largest difference of any byte. */
static gint
cuda_vs_cpu (const gchar * props, GstCaps * caps, GstCaps * outcaps,
    const GstVideoInfo * oinfo, GstBuffer * in)
{
  gchar *c = g_strdup_printf ("cudalensdistort backend=cuda %s", props);
  gchar *p = g_strdup_printf ("cudalensdistort backend=cpu %s", props);
  GstHarness *hc = co_harness (c, gst_caps_ref (caps));
  GstHarness *hp = co_harness (p, gst_caps_ref (caps));
  GstBuffer *a, *b;
  gint md = 0;

  gst_harness_set_sink_caps (hc, gst_caps_ref (outcaps));
  gst_harness_set_sink_caps (hp, gst_caps_ref (outcaps));
  a = gst_harness_push_and_pull (hc, gst_buffer_ref (in));
  b = gst_harness_push_and_pull (hp, gst_buffer_ref (in));
  fail_unless (a && b, "%s: no output", props);
  fail_unless_equals_int (gst_buffer_get_size (a), oinfo->size);
  frames_equal (oinfo, a, b, &md);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_harness_teardown (hc);
  gst_harness_teardown (hp);
  g_free (c);
  g_free (p);
  return md;
}

/* Another output size than the input's (downstream caps): CUDA equals the
 * CPU for the models that rescale (hmd, stereo too) and those whose P
 * scales, every LUT strategy. */
GST_START_TEST (test_resized_output_cuda)
{
  static const gchar *formats[] = { "RGBA", "NV12", "GRAY16_LE", "I420" };
  static const gchar *models[] = {
    "model=hmd k1=-0.25 k2=0.05 stereo=true",
    "model=camera k1=-0.3 k2=0.1 p1=0.001 k4=0.02 s1=0.001 tau-x=0.01",
    "model=fisheye fx=200 fy=200 k1=-0.013 k2=0.041 balance=0.5",
  };
  GRand *rand = g_rand_new_with_seed (21);
  guint f, m, l, runs = 0;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstCaps *caps = video_caps (formats[f], 333, 201);
    GstCaps *outcaps = video_caps (formats[f], 500, 151);
    GstVideoInfo info, oinfo;
    GstBuffer *in;

    gst_video_info_from_caps (&info, caps);
    gst_video_info_from_caps (&oinfo, outcaps);
    in = make_frame (&info, rand, TRUE);
    for (m = 0; m < G_N_ELEMENTS (models); m++)
      for (l = 0; l < G_N_ELEMENTS (luts); l++) {
        gchar *props = g_strdup_printf ("lut=%s %s", luts[l], models[m]);
        gint md = cuda_vs_cpu (props, caps, outcaps, &oinfo, in);
        fail_unless (md <= 1, "%s %s: CUDA differs from CPU by %d",
            formats[f], props, md);
        runs++;
        g_free (props);
      }
    gst_buffer_unref (in);
    gst_caps_unref (caps);
    gst_caps_unref (outcaps);
  }
  g_printerr ("%u resized CUDA/CPU comparisons (333x201 to 500x151)\n", runs);
  g_rand_free (rand);
}

GST_END_TEST;

/* Chromatic hmd (red and blue geometries of their own): CUDA equals the
 * CPU in every packed RGB format, LUT strategy, sampling and off-edge mode,
 * mono and stereo, on random and natural frames, and at another output
 * size. */
GST_START_TEST (test_chromatic_cuda)
{
  static const gchar *formats[] = { "RGBA", "BGRA", "RGBx", "BGRx", "RGB" };
  const gchar *chroma = "model=hmd k1=-0.28 k2=0.07 scale=0.97 "
      "red-k1=0.02 red-k2=-0.01 red-scale=0.985 blue-k1=-0.025 "
      "blue-k2=0.015 blue-scale=1.02";
  GRand *rand = g_rand_new_with_seed (31);
  guint f, img, l, i, st, runs = 0;
  gint worst = 0;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (img = 0; img < 3; img++) {
      gint w = img == 1 ? 868 : 333, h = img == 1 ? 600 : 201;
      GstCaps *caps = video_caps (formats[f], w, h);
      /* img 2: the output at another size (hmd rescales) */
      GstCaps *outcaps = img == 2 ? video_caps (formats[f], 500, 151) :
          gst_caps_ref (caps);
      GstVideoInfo info, oinfo;
      GstBuffer *in;

      gst_video_info_from_caps (&info, caps);
      gst_video_info_from_caps (&oinfo, outcaps);
      in = img == 1 ? natural_frame (formats[f], w, h) :
          make_frame (&info, rand, img == 2);
      for (l = 0; l < G_N_ELEMENTS (luts); l++)
        for (i = 0; i < G_N_ELEMENTS (interps); i++)
          for (st = 0; st < 2; st++) {
            gchar *props = g_strdup_printf ("lut=%s interpolation=%s "
                "off-edge=%s stereo=%d %s", luts[l], interps[i],
                edges[(l + i + st) % 3], st, chroma);
            gint md = cuda_vs_cpu (props, caps, outcaps, &oinfo, in);
            fail_unless (md <= (i ? 1 : 0), "%s %dx%d %s: CUDA differs from "
                "CPU by %d", formats[f], w, h, props, md);
            worst = MAX (worst, md);
            runs++;
            g_free (props);
          }
      gst_buffer_unref (in);
      gst_caps_unref (caps);
      gst_caps_unref (outcaps);
    }
  g_printerr ("%u chromatic CUDA/CPU comparisons, max diff %d\n", runs,
      worst);
  g_rand_free (rand);
}

GST_END_TEST;

/* map-file: a map of another size than the input (a smooth warp, a hole),
 * its tables built on the device from the uploaded map: CUDA equals the
 * CPU for every format and LUT strategy. */
GST_START_TEST (test_map_file_cuda)
{
  const gint mw = 401, mh = 233, iw = 333, ih = 201;
  gsize n = (gsize) mw * mh, i;
  guint8 *d = g_malloc (24 + 8 * n);
  guint32 hdr[4] = { GUINT32_TO_LE (mw), GUINT32_TO_LE (mh), 0, 0 };
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("co-map-XXXXXX.comap", &path, NULL);
  GRand *rand = g_rand_new_with_seed (31);
  guint f, l, runs = 0;

  close (fd);
  memcpy (d, "CO-MAP1\n", 8);
  memcpy (d + 8, hdr, 16);
  for (i = 0; i < n; i++) {
    gdouble u = (gdouble) (i % mw) / mw, v = (gdouble) (i / mw) / mh;
    gfloat x = (gfloat) ((u + 0.05 * sin (6.0 * v)) * iw);
    gfloat y = (gfloat) ((v + 0.04 * cos (5.0 * u)) * ih);
    if (i % mw < 10 && i / mw < 10)
      x = NAN;
    memcpy (d + 24 + 4 * i, &x, 4);
    memcpy (d + 24 + 4 * (n + i), &y, 4);
  }
  fail_unless (g_file_set_contents (path, (gchar *) d, 24 + 8 * n, NULL));
  for (f = 0; f < G_N_ELEMENTS (all_formats); f++) {
    GstCaps *caps = video_caps (all_formats[f], iw, ih);
    GstCaps *outcaps = video_caps (all_formats[f], mw, mh);
    GstVideoInfo info, oinfo;
    GstBuffer *in;

    gst_video_info_from_caps (&info, caps);
    gst_video_info_from_caps (&oinfo, outcaps);
    in = make_frame (&info, rand, TRUE);
    for (l = 0; l < G_N_ELEMENTS (luts); l++) {
      gchar *c = g_strdup_printf ("cudalensdistort backend=cuda lut=%s "
          "map-file=\"%s\"", luts[l], path);
      gchar *p = g_strdup_printf ("cudalensdistort backend=cpu lut=%s "
          "map-file=\"%s\"", luts[l], path);
      GstBuffer *a = run_frame (c, caps, in), *b = run_frame (p, caps, in);
      gint md = 0;

      fail_unless_equals_int (gst_buffer_get_size (a), oinfo.size);
      frames_equal (&oinfo, a, b, &md);
      fail_unless (md <= 1, "%s %s: CUDA differs from CPU by %d",
          all_formats[f], luts[l], md);
      runs++;
      gst_buffer_unref (a);
      gst_buffer_unref (b);
      g_free (c);
      g_free (p);
    }
    gst_buffer_unref (in);
    gst_caps_unref (caps);
    gst_caps_unref (outcaps);
  }
  g_printerr ("%u map-file CUDA/CPU comparisons (%dx%d map, %dx%d input)\n",
      runs, mw, mh, iw, ih);
  g_unlink (path);
  g_free (path);
  g_free (d);
  g_rand_free (rand);
}

GST_END_TEST;

/* Tiny and odd sizes: partial 4-pixel groups, one-pixel chroma planes. */
GST_START_TEST (test_tiny_sizes_cuda)
{
  const gint sizes[][2] = { {1, 1}, {2, 1}, {1, 2}, {3, 3}, {5, 7}, {7, 1},
  {9, 5}, {130, 3}
  };
  GRand *rand = g_rand_new_with_seed (14);
  guint f, s, m, bad = 0;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      GstCaps *caps = video_caps (all_formats[f], sizes[s][0], sizes[s][1]);
      GstHarness *hc = co_harness ("cudalensdistort backend=cuda",
          gst_caps_ref (caps));
      GstHarness *hp = co_harness ("cudalensdistort backend=cpu",
          gst_caps_ref (caps));
      GstVideoInfo info;
      GstBuffer *in;
      gst_video_info_from_caps (&info, caps);
      in = make_frame (&info, rand, FALSE);
      for (m = 0; m < 4; m++) {
        const gchar *props[] = { "k1=0", "k1=-0.8 k2=0.3 stereo=true "
              "interpolation=nearest", "model=camera k1=0.4 alpha=1 "
              "interpolation=bilinear lut=two-table", "model=hmd k1=0.3 "
              "lut=none"
        };
        GstBuffer *a, *b;
        gint md = 0;
        apply_props (hc, props[m]);
        apply_props (hp, props[m]);
        a = gst_harness_push_and_pull (hc, gst_buffer_ref (in));
        b = gst_harness_push_and_pull (hp, gst_buffer_ref (in));
        fail_unless (a && b);
        if (!frames_equal (&info, a, b, &md)) {
          GstMapInfo ma, mb;
          gsize k;
          gst_buffer_map (a, &ma, GST_MAP_READ);
          gst_buffer_map (b, &mb, GST_MAP_READ);
          g_printerr ("MISMATCH %s %dx%d [%s] by %d\n  cuda:", all_formats[f],
              sizes[s][0], sizes[s][1], props[m], md);
          for (k = 0; k < MIN (ma.size, 48); k++)
            g_printerr (" %02x", ma.data[k]);
          g_printerr ("\n  cpu: ");
          for (k = 0; k < MIN (mb.size, 48); k++)
            g_printerr (" %02x", mb.data[k]);
          g_printerr ("\n");
          gst_buffer_unmap (a, &ma);
          gst_buffer_unmap (b, &mb);
          bad++;
        }
        if (m == 0)
          fail_unless (frames_equal (&info, in, a, NULL), "not the identity");
        gst_buffer_unref (a);
        gst_buffer_unref (b);
      }
      gst_buffer_unref (in);
      gst_harness_teardown (hc);
      gst_harness_teardown (hp);
      gst_caps_unref (caps);
    }
  }
  g_printerr ("tiny sizes: all formats, %u sizes, %u mismatches\n",
      (guint) G_N_ELEMENTS (sizes), bad);
  fail_unless (bad == 0);
  g_rand_free (rand);
}

GST_END_TEST;


/* The shared stress check on CUDA: the LUT is rebuilt on the stream between
 * frames. */
GST_START_TEST (test_properties_while_playing_cuda)
{
  check_properties_while_playing ("cudalensdistort backend=cuda",
      "cudalensdistort backend=cpu k1=-0.3", 1280, 720, TRUE, 500, 50, 10);
}

GST_END_TEST;

/* Buffers from the pinned pool the element proposes, and plain malloc'd
 * ones, give the same frame. */
GST_START_TEST (test_pinned_pool)
{
  GstCaps *caps = video_caps ("RGBA", 1920, 1080);
  GstHarness *h = co_harness ("cudalensdistort backend=cuda k1=-0.25",
      gst_caps_ref (caps));
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GRand *rand = g_rand_new_with_seed (13);
  GstBufferPool *pool = NULL;
  GstBuffer *plain, *pinned, *a, *b;
  GstVideoInfo info;
  GstMapInfo map, map2;

  gst_video_info_from_caps (&info, caps);
  /* negotiate first, so the element has started and knows its caps */
  plain = make_frame (&info, rand, FALSE);
  a = gst_harness_push_and_pull (h, gst_buffer_ref (plain));
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless (gst_query_get_n_allocation_pools (q) > 0);
  gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless (gst_buffer_pool_acquire_buffer (pool, &pinned, NULL) ==
      GST_FLOW_OK);
  fail_unless_equals_string (gst_buffer_peek_memory (pinned,
          0)->allocator->mem_type, "CoHostMemory");
  gst_buffer_map (plain, &map, GST_MAP_READ);
  gst_buffer_map (pinned, &map2, GST_MAP_WRITE);
  fail_unless (map2.size >= map.size);
  memcpy (map2.data, map.data, map.size);
  gst_buffer_unmap (plain, &map);
  gst_buffer_unmap (pinned, &map2);
  b = gst_harness_push_and_pull (h, pinned);
  fail_unless (frames_equal (&info, a, b, NULL));
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (plain);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_query_unref (q);
  gst_harness_teardown (h);
  gst_caps_unref (caps);
  g_rand_free (rand);
}

GST_END_TEST;

static void
compare_pipelines (const gchar * gpu, const gchar * cpu, guint expect)
{
  gint warnings = 0;
  GPtrArray *a = pull_all (gpu, &warnings), *b = pull_all (cpu, NULL);
  guint i;

  /* a "context mismatch" or "fallback" would show up as a warning */
  g_printerr ("pipeline: %u frames, %d warnings: %s\n", a->len, warnings, gpu);
  fail_unless_equals_int (warnings, 0);
  fail_unless_equals_int (a->len, expect);
  fail_unless_equals_int (b->len, expect);
  for (i = 0; i < a->len; i++) {
    GstVideoInfo info;
    GstSample *sa = g_ptr_array_index (a, i), *sb = g_ptr_array_index (b, i);
    gint md = 0;
    gst_video_info_from_caps (&info, gst_sample_get_caps (sb));
    frames_equal (&info, gst_sample_get_buffer (sa), gst_sample_get_buffer (sb),
        &md);
    fail_unless (md <= 1, "frame %u differs by %d:\n%s\n%s", i, md, gpu, cpu);
  }
  g_ptr_array_unref (a);
  g_ptr_array_unref (b);
}

#define CUDA_CAPS "video/x-raw(memory:CUDAMemory)"

GST_START_TEST (test_cuda_memory_pipeline)
{
  const gchar *formats[] = { "RGBA", "NV12", "I420" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    gchar *src = g_strdup_printf ("videotestsrc num-buffers=8 pattern=ball ! "
        "video/x-raw,format=%s,width=640,height=480", formats[i]);
    gchar *gpu = g_strdup_printf ("%s ! cudaupload ! " CUDA_CAPS " ! "
        "cudalensdistort backend=cuda k1=-0.3 ! " CUDA_CAPS " ! "
        "cudalensdistort backend=cuda model=camera k1=0.1 ! " CUDA_CAPS " ! "
        "cudadownload ! appsink name=out", src);
    gchar *cpu = g_strdup_printf ("%s ! cudalensdistort backend=cpu k1=-0.3 ! "
        "cudalensdistort backend=cpu model=camera k1=0.1 ! appsink name=out",
        src);
    compare_pipelines (gpu, cpu, 8);
    g_free (src);
    g_free (gpu);
    g_free (cpu);
  }
}

GST_END_TEST;

/* The allocator the element after appsrc proposes (pinned host memory on
 * the CUDA backend), asked once a frame has set the caps; NULL for none. */
static GstAllocator *
proposed_allocator (GstElement * src, GstCaps * caps)
{
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstAllocator *a = NULL;

  if (gst_pad_peer_query (pad, q) && gst_query_get_n_allocation_params (q))
    gst_query_parse_nth_allocation_param (q, 0, &a, NULL);
  gst_query_unref (q);
  gst_object_unref (pad);
  return a;
}

/* Frames through @element from appsrc, each written into the only buffer
 * of a pool of one just before it is pushed (after a first frame that sets
 * the caps, the pool's memory from the allocator the element proposes:
 * pinned, read by DMA): the source can write a frame only once the element
 * has let the previous one go.  With a stream on
 * the output (1.24+) the element holds each input until the device has
 * read it, and a thread of its own releases it (no stall waiting for a
 * next frame, which the source cannot make); a release before the read
 * would show as another frame's pixels.  Returns the output frames. */
static GPtrArray *
pool_of_one (const gchar * element, const gchar * tail, guint n,
    gboolean pinned)
{
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA,"
      "width=320,height=240,framerate=30/1");
  gchar *launch = g_strdup_printf ("appsrc name=src format=time ! %s ! %s ! "
      "appsink name=out sync=false", element, tail);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstStructure *config;
  GstAllocator *alloc;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstSample *smp;
  guint i;

  g_object_set (src, "caps", caps, NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < n; i++) {
    GstBuffer *b = NULL;
    GstMapInfo m;
    GRand *r = g_rand_new_with_seed (i + 1);
    gsize k;
    if (i == 0) {
      b = gst_buffer_new_allocate (NULL, 320 * 240 * 4, NULL);
    } else {
      if (i == 1) {
        /* the first frame through: the element's caps are set */
        smp = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
            20 * GST_SECOND);
        fail_unless (smp != NULL);
        fail_unless (gst_buffer_map (gst_sample_get_buffer (smp), &m,
                GST_MAP_READ));
        g_ptr_array_add (out, g_bytes_new (m.data, m.size));
        gst_buffer_unmap (gst_sample_get_buffer (smp), &m);
        gst_sample_unref (smp);
        alloc = proposed_allocator (src, caps);
        fail_unless (!pinned || alloc != NULL, "no allocator proposed");
        if (alloc)
          g_printerr ("pool of one: frames from %s\n", alloc->mem_type);
        config = gst_buffer_pool_get_config (pool);
        gst_buffer_pool_config_set_params (config, caps, 320 * 240 * 4, 1, 1);
        if (alloc)              /* none from the CPU backend */
          gst_buffer_pool_config_set_allocator (config, alloc, NULL);
        gst_clear_object (&alloc);
        fail_unless (gst_buffer_pool_set_config (pool, config));
        fail_unless (gst_buffer_pool_set_active (pool, TRUE));
      }
      /* blocks until the element has let the previous frame go */
      fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b,
              NULL), GST_FLOW_OK);
    }
    fail_unless (gst_buffer_map (b, &m, GST_MAP_WRITE));
    for (k = 0; k < m.size; k += 4) {
      guint32 v = g_rand_int (r);
      memcpy (m.data + k, &v, 4);
    }
    gst_buffer_unmap (b, &m);
    g_rand_free (r);
    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), b),
        GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  while ((smp = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              20 * GST_SECOND))) {
    GstMapInfo m;
    GstBuffer *b = gst_sample_get_buffer (smp);
    fail_unless (gst_buffer_map (b, &m, GST_MAP_READ));
    g_ptr_array_add (out, g_bytes_new (m.data, m.size));
    gst_buffer_unmap (b, &m);
    gst_sample_unref (smp);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  gst_caps_unref (caps);
  g_free (launch);
  return out;
}

GST_START_TEST (test_held_input_pool_of_one)
{
  const guint n = 40;
  GPtrArray *gpu = pool_of_one ("cudalensdistort backend=cuda k1=-0.3",
      CUDA_CAPS " ! cudadownload ! video/x-raw", n, TRUE);
  GPtrArray *cpu = pool_of_one ("cudalensdistort backend=cpu k1=-0.3",
      "video/x-raw", n, FALSE);
  guint i;

  fail_unless_equals_int (gpu->len, n);
  fail_unless_equals_int (cpu->len, n);
  for (i = 0; i < n; i++)
    fail_unless (g_bytes_equal (g_ptr_array_index (gpu, i),
            g_ptr_array_index (cpu, i)), "frame %u differs from the CPU's", i);
  g_ptr_array_unref (gpu);
  g_ptr_array_unref (cpu);
}

GST_END_TEST;

/* With no caps filters at all, a CUDA chain stays in CUDA memory. */
GST_START_TEST (test_cuda_memory_caps)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=NV12,width=320,height=240 ! cudaupload ! "
      "cudalensdistort name=a k1=-0.2 ! cudalensdistort name=b k1=0.1 ! "
      "cudadownload ! fakesink", NULL);
  const gchar *names[] = { "a", "b" };
  gboolean eos, cuda[4] = { FALSE };
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m;
  guint i;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND, GST_MESSAGE_EOS |
      GST_MESSAGE_ERROR);
  eos = m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
  if (m)
    gst_message_unref (m);
  for (i = 0; i < 4; i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), names[i / 2]);
    GstPad *pad = gst_element_get_static_pad (e, i % 2 ? "src" : "sink");
    GstCaps *c = gst_pad_get_current_caps (pad);
    cuda[i] = c && gst_caps_features_contains (gst_caps_get_features (c, 0),
        "memory:CUDAMemory");
    if (c) {
      gchar *str = gst_caps_to_string (c);
      g_printerr ("%s.%s: %s\n", names[i / 2], i % 2 ? "src" : "sink", str);
      g_free (str);
      gst_caps_unref (c);
    }
    gst_object_unref (pad);
    gst_object_unref (e);
  }
  /* tear down first: a live pipeline would hang the check framework */
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  fail_unless (eos);
  for (i = 0; i < 4; i++)
    fail_unless (cuda[i], "pad %u is not in CUDA memory", i);
}

GST_END_TEST;

GST_START_TEST (test_nvh264dec)
{
  gchar *file = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"),
      "sample-320x240.h264", NULL);
  g_printerr ("nvh264dec\n");
  gchar *gpu = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
      "nvh264dec ! " CUDA_CAPS " ! cudalensdistort k1=-0.3 stereo=true ! "
      CUDA_CAPS " ! cudadownload ! video/x-raw ! appsink name=out", file);
  gchar *cpu = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
      "nvh264dec ! cudadownload ! video/x-raw ! cudalensdistort backend=cpu "
      "k1=-0.3 stereo=true ! appsink name=out", file);

  compare_pipelines (gpu, cpu, 30);
  g_free (gpu);
  g_free (cpu);
  g_free (file);
}

GST_END_TEST;

GST_START_TEST (test_bad_device)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "cudalensdistort backend=cuda device-id=99 ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m;
  gboolean error;

  g_printerr ("bad device\n");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND, GST_MESSAGE_EOS |
      GST_MESSAGE_ERROR);
  error = m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR;
  if (m)
    gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  fail_unless (error);
}

GST_END_TEST;

GST_START_TEST (test_renegotiation_cuda)
{
  check_renegotiation ("cudalensdistort backend=cuda k1=-0.3 stereo=true",
      "cudalensdistort backend=cpu k1=-0.3 stereo=true");
}

GST_END_TEST;


/* ---- GPU faults ---- */

/* Takes device memory until about @leave bytes are free. */
static GPtrArray *
hog_device_memory (gsize leave)
{
  GPtrArray *hog = g_ptr_array_new ();
  size_t free_b = 0, total = 0, chunk = (size_t) 1 << 30;

  fail_unless (cudaMemGetInfo (&free_b, &total) == cudaSuccess);
  while (free_b > leave + (4u << 20)) {
    void *p = NULL;
    size_t want = MIN (chunk, free_b - leave);
    if (cudaMalloc (&p, want) == cudaSuccess) {
      g_ptr_array_add (hog, p);
    } else {
      cudaGetLastError ();
      if (chunk <= (4u << 20))
        break;
      chunk /= 2;
    }
    fail_unless (cudaMemGetInfo (&free_b, &total) == cudaSuccess);
  }
  g_printerr ("  hogging: %zu MiB of %zu MiB left free\n", free_b >> 20,
      total >> 20);
  return hog;
}

static void
free_hog (GPtrArray * hog)
{
  guint i;

  for (i = 0; i < hog->len; i++)
    fail_unless (cudaFree (g_ptr_array_index (hog, i)) == cudaSuccess);
  g_ptr_array_unref (hog);
}

/* appsrc ! cudalensdistort ! appsink, started (so the element holds its
 * context) before the test takes the device's memory. */
static GstElement *
app_pipeline (const gchar * lens, GstAppSrc ** src, GstAppSink ** sink)
{
  gchar *desc = g_strdup_printf ("appsrc name=in format=time ! %s ! "
      "appsink name=out sync=false", lens);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *e;

  fail_unless (pipe != NULL);
  e = gst_bin_get_by_name (GST_BIN (pipe), "in");
  *src = GST_APP_SRC (e);
  e = gst_bin_get_by_name (GST_BIN (pipe), "out");
  *sink = GST_APP_SINK (e);
  g_free (desc);
  return pipe;
}

/* A frame larger than the memory left gives a clear element error (RESOURCE
 * NO_SPACE_LEFT, "GPU memory"), not a crash; once memory is back, the same
 * pipeline restarts and matches the CPU. */
GST_START_TEST (test_out_of_gpu_memory)
{
  const gint w = 8192, hgt = 8192;      /* 256 MiB a frame, and its table */
  GstCaps *caps = video_caps ("RGBA", w, hgt);
  GstAppSrc *src;
  GstAppSink *sink;
  GstElement *pipe = app_pipeline ("cudalensdistort backend=cuda k1=-0.2",
      &src, &sink);
  GstBus *bus = gst_element_get_bus (pipe);
  GRand *rand = g_rand_new_with_seed (31);
  GstVideoInfo info;
  GstBuffer *in, *ref;
  GstSample *s;
  GPtrArray *hog;
  gint md = -1;

  g_printerr ("out of GPU memory\n");
  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, FALSE);
  gst_app_src_set_caps (src, caps);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipe, NULL, NULL, 10 * GST_SECOND) !=
      GST_STATE_CHANGE_FAILURE);
  /* less than one frame's table left */
  hog = hog_device_memory (info.size / 2);
  gst_app_src_push_buffer (src, gst_buffer_ref (in));
  expect_error (pop_error (bus, 30 * GST_SECOND), GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NO_SPACE_LEFT, "GPU memory");
  gst_element_set_state (pipe, GST_STATE_NULL);
  free_hog (hog);

  /* memory back: the same pipeline runs again */
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);
  gst_app_src_set_caps (src, caps);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  gst_app_src_push_buffer (src, gst_buffer_ref (in));
  s = gst_app_sink_try_pull_sample (sink, 60 * GST_SECOND);
  fail_unless (s != NULL, "no frame after the restart");
  ref = run_frame ("cudalensdistort backend=cpu k1=-0.2", caps, in);
  frames_equal (&info, gst_sample_get_buffer (s), ref, &md);
  g_printerr ("  after the restart: max diff to the CPU %d\n", md);
  fail_unless (md <= 1);
  fail_unless (pop_error (bus, 0) == NULL);
  gst_sample_unref (s);
  gst_buffer_unref (ref);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_lut_build_failure)
{
  GstCaps *small = video_caps ("RGBA", 320, 240);
  GstCaps *large = video_caps ("NV12", 1280, 720);

  const struct
  {
    const gchar *props1, *change, *ref;
    gboolean larger;
  } cases[] = {
    /* a larger frame: the table is reallocated, then the build fails */
    {"k1=-0.3", "k1=-0.3", "k1=-0.3", TRUE},
    /* same frame, new geometry and a first table (lut=none had none) */
    {"k1=-0.3 lut=none", "k1=-0.1 lut=compressed", "k1=-0.1", FALSE},
    /* same frame, new geometry, table kept */
    {"k1=-0.3", "k1=0.2 stereo=true", "k1=0.2 stereo=true", FALSE},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *desc = g_strdup_printf ("cudalensdistort backend=cuda %s",
        cases[i].props1);
    gchar *ref = g_strdup_printf ("cudalensdistort backend=cpu %s",
        cases[i].ref);

    failed_rebuild_case (desc, "building the LUT:2", GST_LIBRARY_ERROR,
        GST_LIBRARY_ERROR_FAILED, "building the LUT", small, cases[i].change,
        cases[i].larger ? large : small, ref);
    g_free (desc);
    g_free (ref);
  }
  gst_caps_unref (small);
  gst_caps_unref (large);
}

GST_END_TEST;

/* An injected allocation failure (the N-th allocation) is the same clear
 * error as a real one. */
GST_START_TEST (test_alloc_failure_injected)
{
  GstCaps *caps = video_caps ("NV12", 640, 480);
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GRand *rand = g_rand_new_with_seed (33);
  GstVideoInfo info;
  GstBuffer *in, *out;
  gint n;

  g_printerr ("injected allocation failures\n");
  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, FALSE);
  /* each of the first allocations in turn: tables, staging frames */
  for (n = 1; n <= 4; n++) {
    gchar *spec = g_strdup_printf ("alloc:%d", n);
    GstFlowReturn ret;
    g_setenv ("CO_FAULT_INJECT", spec, TRUE);
    h = co_harness ("cudalensdistort backend=cuda k1=-0.3",
        gst_caps_ref (caps));
    g_unsetenv ("CO_FAULT_INJECT");
    gst_element_set_bus (h->element, bus);
    ret = gst_harness_push (h, gst_buffer_ref (in));
    if (ret == GST_FLOW_OK) {
      /* fewer allocations than n this time */
      out = gst_harness_pull (h);
      gst_buffer_unref (out);
      fail_unless (pop_error (bus, 0) == NULL);
    } else {
      fail_unless_equals_int (ret, GST_FLOW_ERROR);
      expect_error (pop_error (bus, 0), GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT, "GPU memory");
      /* and the element goes on once memory is there */
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
          GST_FLOW_OK);
      gst_buffer_unref (gst_harness_pull (h));
    }
    gst_bus_set_flushing (bus, TRUE);
    gst_bus_set_flushing (bus, FALSE);
    gst_element_set_bus (h->element, NULL);
    gst_harness_teardown (h);
    g_free (spec);
  }
  gst_object_unref (bus);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  g_rand_free (rand);
}

GST_END_TEST;

/* @source frames through cudalensdistort @props, expected to fall back to
 * the CPU: exactly one warning, and the CPU backend's pixels. */
static void
expect_cpu_fallback (const gchar * source, const gchar * props)
{
  gchar *la = g_strdup_printf ("%s ! cudalensdistort %s k1=-0.3 ! appsink "
      "name=out", source, props);
  gchar *lb = g_strdup_printf ("%s ! cudalensdistort backend=cpu k1=-0.3 ! "
      "appsink name=out", source);
  gint warnings = 0, md = -1;
  GPtrArray *a = pull_all (la, &warnings), *b = pull_all (lb, NULL);
  GstVideoInfo info;

  fail_unless_equals_int (warnings, 1);
  fail_unless_equals_int (a->len, 2);
  fail_unless_equals_int (b->len, 2);
  gst_video_info_from_caps (&info, gst_sample_get_caps (g_ptr_array_index (b,
              1)));
  frames_equal (&info, gst_sample_get_buffer (g_ptr_array_index (a, 1)),
      gst_sample_get_buffer (g_ptr_array_index (b, 1)), &md);
  fail_unless_equals_int (md, 0);
  g_ptr_array_unref (a);
  g_ptr_array_unref (b);
  g_free (la);
  g_free (lb);
}

/* device-id out of range with backend=auto: the CPU, with one warning. */
GST_START_TEST (test_bad_device_auto)
{
  g_printerr ("bad device, backend=auto\n");
  expect_cpu_fallback ("videotestsrc num-buffers=2 ! video/x-raw,format=NV12,"
      "width=320,height=240", "device-id=99");
}

GST_END_TEST;

/* No usable device at all (CUDA_VISIBLE_DEVICES names none): this program
 * again, in a child process, since CUDA reads the variable once. */
GST_START_TEST (test_no_device)
{
  gchar *self_path = g_file_read_link ("/proc/self/exe", NULL);
  gchar *argv[] = { self_path, (gchar *) "--no-device-child", NULL };
  gchar **env = g_get_environ ();
  gchar *out = NULL, *err = NULL;
  gint status = -1;
  GError *error = NULL;

  g_printerr ("no usable device (child with CUDA_VISIBLE_DEVICES=-1)\n");
  env = g_environ_setenv (env, "CUDA_VISIBLE_DEVICES", "-1", TRUE);
  /* the child runs its own suite, whatever part of this one was picked */
  env = g_environ_unsetenv (env, "CK_RUN_CASE");
  env = g_environ_unsetenv (env, "CK_RUN_SUITE");
  fail_unless (g_spawn_sync (NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &err, &status, &error), "spawn: %s",
      error ? error->message : "");
  g_printerr ("%s", out);
  fail_unless (g_spawn_check_wait_status (status, NULL),
      "child failed (status %d):\n%s\n%s", status, out, err);
  fail_unless (strstr (out, "child: auto fell back") != NULL);
  fail_unless (strstr (out, "child: cuda refused") != NULL);
  g_free (out);
  g_free (err);
  g_strfreev (env);
  g_free (self_path);
}

GST_END_TEST;

/* In the child: auto falls back to the CPU with a warning and the CPU's
 * pixels; cuda fails to start with a clear error. */
GST_START_TEST (test_no_device_child)
{
  GstElement *pipe, *lens;
  GstBus *bus;
  GstMessage *m;
  GError *e = NULL;
  gchar *dbg = NULL;
  gint backend = -1;

  /* auto */
  expect_cpu_fallback ("videotestsrc num-buffers=2 ! video/x-raw,format=I420,"
      "width=176,height=144", "");
  pipe = gst_parse_launch ("videotestsrc num-buffers=1 ! cudalensdistort "
      "name=lens ! fakesink", NULL);
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  gst_element_get_state (pipe, NULL, NULL, 10 * GST_SECOND);
  lens = gst_bin_get_by_name (GST_BIN (pipe), "lens");
  g_object_get (lens, "active-backend", &backend, NULL);
  gst_object_unref (lens);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  fail_unless_equals_int (backend, GST_CO_BACKEND_CPU);
  g_print ("child: auto fell back to the CPU with 1 warning, same pixels\n");

  /* cuda */
  pipe = gst_parse_launch ("videotestsrc num-buffers=1 ! cudalensdistort "
      "backend=cuda ! fakesink", NULL);
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &e, &dbg);
  g_print ("child: cuda refused: %s\n", e->message);
  fail_unless (e->domain == GST_RESOURCE_ERROR);
  fail_unless (strstr (e->message, "no CUDA device is usable") != NULL);
  g_error_free (e);
  g_free (dbg);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
cudalensdistort_gpu_suite (void)
{
  Suite *s = suite_create ("cudalensdistort-gpu");
  TCase *tc = tcase_create ("equals-cpu");

  /* several test cases, so that CK_RUN_CASE can pick a part (the
   * sanitizers on the GPU machine) */
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_cuda_equals_cpu);
  tcase_add_test (tc, test_resized_output_cuda);
  tcase_add_test (tc, test_map_file_cuda);
  tcase_add_test (tc, test_chromatic_cuda);

  tc = tcase_create ("gpu");
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_tiny_sizes_cuda);
  tcase_add_test (tc, test_renegotiation_cuda);
  tcase_add_test (tc, test_properties_while_playing_cuda);
  tcase_add_test (tc, test_pinned_pool);
  tcase_add_test (tc, test_cuda_memory_caps);
  tcase_add_test (tc, test_cuda_memory_pipeline);
  tcase_add_test (tc, test_held_input_pool_of_one);
  tcase_add_test (tc, test_bad_device);
  tcase_add_test (tc, test_nvh264dec);

  /* GPU faults: failed allocations and LUT builds, no device */
  tc = tcase_create ("faults");
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_alloc_failure_injected);
  tcase_add_test (tc, test_lut_build_failure);
  tcase_add_test (tc, test_bad_device_auto);
  tcase_add_test (tc, test_no_device);

  /* the device's memory taken by the test itself */
  tc = tcase_create ("oom");
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_out_of_gpu_memory);
  return s;
}

int
main (int argc, char **argv)
{
  int n = 0;

  if (argc > 1 && strcmp (argv[1], "--no-device-child") == 0) {
    Suite *s = suite_create ("no-device-child");
    TCase *tc = tcase_create ("child");
    suite_add_tcase (s, tc);
    tcase_add_test (tc, test_no_device_child);
    argc = 1;
    gst_check_init (&argc, &argv);
    return gst_check_run_suite (s, "no-device-child", __FILE__);
  }
  if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0) {
    g_print ("no usable CUDA device: skipping\n");
    return 77;
  }
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (cudalensdistort_gpu_suite (),
      "cudalensdistort-gpu", __FILE__);
}
