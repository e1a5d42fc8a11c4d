/* cudaoptics — LGPL-2.1-or-later
 *
 * cudalensdistort as GStreamer sees it, on the CPU backend (no GPU needed):
 * negotiation, pixels against the independent model reference, state
 * changes, live property changes, tiny frames and bad calibration files.
 */
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/app/app.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include "family-check.h"
#include "gstcocalibration.h"
#include "lensdistort.h"

#define CPU "cudalensdistort backend=cpu "

static gchar *
data_path (const gchar * dir_env, const gchar * name)
{
  return g_build_filename (g_getenv (dir_env), name, NULL);
}

GST_START_TEST (test_formats_negotiate)
{
  guint i;
  const gint sizes[][2] = { {64, 48}, {33, 17} };
  GRand *rand = g_rand_new_with_seed (1);

  for (i = 0; i < G_N_ELEMENTS (all_formats); i++) {
    guint s;
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      GstCaps *caps = video_caps (all_formats[i], sizes[s][0], sizes[s][1]);
      GstHarness *h = co_harness (CPU, gst_caps_ref (caps));
      GstVideoInfo info;
      GstBuffer *in, *out;
      GstCaps *outcaps;

      gst_video_info_from_caps (&info, caps);
      in = make_frame (&info, rand, FALSE);
      out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
      fail_unless (out != NULL);
      outcaps = gst_pad_get_current_caps (h->sinkpad);
      fail_unless (gst_caps_is_equal (outcaps, caps), "%" GST_PTR_FORMAT
          " != %" GST_PTR_FORMAT, outcaps, caps);
      /* k = 0 by default: the identity */
      fail_unless (frames_equal (&info, in, out, NULL), "%s %dx%d changed",
          all_formats[i], sizes[s][0], sizes[s][1]);
      gst_caps_unref (outcaps);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      gst_caps_unref (caps);
      gst_harness_teardown (h);
    }
  }
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_unsupported_caps)
{
  const gchar *bad[] = {
    "video/x-raw, format=YUY2, width=64, height=48, framerate=30/1",
    "video/x-raw, format=RGBA, width=20000, height=8, framerate=30/1",
    "video/x-bayer, format=rggb, width=64, height=48, framerate=30/1",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstHarness *h = gst_harness_new_parse (CPU);
    gst_harness_set_src_caps_str (h, bad[i]);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_and_alloc
            (64 * 48 * 4)), GST_FLOW_NOT_NEGOTIATED);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The element's pixels against the independent double-precision models. */
static void
check_against_reference (const gchar * format, const gchar * props,
    const RefLens * ref, gboolean nearest, gboolean smooth)
{
  GstCaps *caps = video_caps (format, ref->width, ref->height);
  gchar *desc = g_strdup_printf (CPU "border-color=0xff204080 "
      "interpolation=%s %s", nearest ? "nearest" : "bilinear", props);
  GRand *rand = g_rand_new_with_seed (42);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame fi, fo;
  CoFormat cf;
  uint32_t border[CO_MAX_PLANES];
  long bad = 0, checked = 0;
  guint p;

  gst_video_info_from_caps (&info, caps);
  cf = co_format_of (GST_VIDEO_INFO_FORMAT (&info));
  co_format_border (cf, 0xff204080, border);
  in = make_frame (&info, rand, smooth);
  out = run_frame (desc, caps, in);
  gst_video_frame_map (&fi, &info, in, GST_MAP_READ);
  gst_video_frame_map (&fo, &info, out, GST_MAP_READ);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    CoPixKind kind = co_format_plane_kind (cf, p);
    int shift = co_format_plane_shift (cf, p), pw, ph, c;
    uint32_t bc[4];
    co_plane_size (ref->width, ref->height, shift, &pw, &ph);
    for (c = 0; c < 4; c++)
      bc[c] = co_pix_channel (border[p], kind, c);
    bad += ref_check_plane (ref, shift, nearest, co_lut_frac_bits (pw, ph),
        GST_VIDEO_FRAME_PLANE_DATA (&fi, p), GST_VIDEO_FRAME_PLANE_STRIDE (&fi,
            p), GST_VIDEO_FRAME_PLANE_DATA (&fo, p),
        GST_VIDEO_FRAME_PLANE_STRIDE (&fo, p), pw, ph, co_pix_bpp (kind),
        kind == CO_PIX_U16X1, bc, &checked);
  }
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  fail_unless (bad == 0, "%s [%s]: %ld of %ld pixels differ from the model",
      format, desc, bad, checked);
  fail_unless (checked > ref->width * ref->height / 2);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_caps_unref (caps);
  g_rand_free (rand);
  g_free (desc);
}

GST_START_TEST (test_hmd_reference)
{
  const gchar *formats[] = { "RGBA", "RGB", "GRAY8", "GRAY16_LE", "NV12",
    "I420"
  };
  guint i, interp, stereo;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    for (stereo = 0; stereo < 2; stereo++) {
      for (interp = 0; interp < 2; interp++) {
        RefLens r = { 0 };
        gchar *props;
        r.width = 203;
        r.height = 118;
        r.stereo = stereo;
        r.k1 = stereo ? 0.22 : -0.35;
        r.k2 = 0.07;
        r.center_x = 0.43;
        r.center_y = 0.52;
        props = g_strdup_printf ("model=hmd k1=%g k2=%g center-x=%g "
            "center-y=%g stereo=%d", r.k1, r.k2, r.center_x, r.center_y,
            stereo);
        check_against_reference (formats[i], props, &r, interp == 0, FALSE);
        check_against_reference (formats[i], props, &r, interp == 0, TRUE);
        g_free (props);
      }
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_camera_reference)
{
  const gchar *formats[] = { "BGRx", "GRAY8", "NV12", "I420" };
  guint i, interp;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    for (interp = 0; interp < 2; interp++) {
      RefLens r = { 0 };
      gchar *props;
      r.camera = 1;
      r.width = 160;
      r.height = 121;
      r.fx = r.nfx = 140.5;
      r.fy = r.nfy = 138.25;
      r.cx = r.ncx = 81.3;
      r.cy = r.ncy = 58.9;
      r.k1 = -0.31;
      r.k2 = 0.11;
      r.k3 = -0.02;
      r.p1 = 0.0021;
      r.p2 = -0.0013;
      props = g_strdup_printf ("model=camera fx=%g fy=%g cx=%g cy=%g k1=%g "
          "k2=%g k3=%g p1=%g p2=%g", r.fx, r.fy, r.cx, r.cy, r.k1, r.k2, r.k3,
          r.p1, r.p2);
      check_against_reference (formats[i], props, &r, interp == 0, FALSE);
      check_against_reference (formats[i], props, &r, interp == 0, TRUE);
      g_free (props);
    }
  }
}

GST_END_TEST;

/* The calibration file gives the same frame as the same numbers typed in. */
GST_START_TEST (test_calibration_file)
{
  gchar *files[2] = { data_path ("CO_TEST_DATA_DIR", "calib-opencv.yml"),
    data_path ("CO_TEST_DATA_DIR", "calib-opencv.xml")
  };
  GstCaps *caps = video_caps ("RGBA", 640, 480);
  GRand *rand = g_rand_new_with_seed (5);
  GstVideoInfo info;
  GstBuffer *in, *ref;
  GstCoCalibration c;
  guint i;
  gchar *desc;

  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, FALSE);
  fail_unless (gst_co_calibration_load (files[0], NULL, &c, NULL));
  desc = g_strdup_printf (CPU "model=camera fx=%.17g fy=%.17g cx=%.17g "
      "cy=%.17g k1=%.17g k2=%.17g p1=%.17g p2=%.17g k3=%.17g", c.fx, c.fy,
      c.cx, c.cy, c.dist[CO_DIST_K1], c.dist[CO_DIST_K2], c.dist[CO_DIST_P1],
      c.dist[CO_DIST_P2], c.dist[CO_DIST_K3]);
  ref = run_frame (desc, caps, in);
  g_free (desc);
  for (i = 0; i < 2; i++) {
    GstBuffer *out;
    desc = g_strdup_printf (CPU "calibration-file=\"%s\"", files[i]);
    out = run_frame (desc, caps, in);
    fail_unless (frames_equal (&info, ref, out, NULL), "%s differs", files[i]);
    gst_buffer_unref (out);
    g_free (desc);
    g_free (files[i]);
  }
  gst_buffer_unref (in);
  gst_buffer_unref (ref);
  gst_caps_unref (caps);
  g_rand_free (rand);
}

GST_END_TEST;

/* Runs @launch to EOS or error; returns the error text (or NULL) and counts
 * warnings. */
static gchar *
run_pipeline (const gchar * launch, gint * warnings,
    GstStateChangeReturn * sret)
{
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  gchar *err_text = NULL;
  GstStateChangeReturn r;

  fail_unless (pipe != NULL, "%s", launch);
  if (warnings)
    *warnings = 0;
  r = gst_element_set_state (pipe, GST_STATE_PLAYING);
  if (sret)
    *sret = r;
  while (TRUE) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    fail_unless (m != NULL, "timeout running %s", launch);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      if (warnings)
        (*warnings)++;
      gst_message_unref (m);
      continue;
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gst_message_parse_error (m, &e, NULL);
      err_text = g_strdup (e->message);
      g_error_free (e);
    }
    gst_message_unref (m);
    break;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return err_text;
}

/* A CO-MAP1 file of @w x @h: source x = @a u + @b, y = @a v + @b (NaN
 * in the first row when @hole), @cut bytes short of whole. */
static gchar *
write_map (gint w, gint h, gdouble a, gdouble b, gboolean hole, gsize cut)
{
  gsize n = (gsize) w * h, len = 24 + 8 * n, i;
  guint8 *d = g_malloc0 (len);
  guint32 hdr[4] = { GUINT32_TO_LE (w), GUINT32_TO_LE (h), 0, 0 };
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("co-map-XXXXXX.comap", &path, NULL);

  fail_unless (fd >= 0);
  close (fd);
  memcpy (d, "CO-MAP1\n", 8);
  memcpy (d + 8, hdr, 16);
  for (i = 0; i < n; i++) {
    gfloat x = (gfloat) (a * (gdouble) (i % w) + b);
    gfloat y = (gfloat) (a * (gdouble) (i / w) + b);
    if (hole && i < (gsize) w)
      x = NAN;
    memcpy (d + 24 + 4 * i, &x, 4);
    memcpy (d + 24 + 4 * (n + i), &y, 4);
  }
  fail_unless (g_file_set_contents (path, (gchar *) d, len - cut, NULL));
  g_free (d);
  return path;
}

/* map-file: the output takes the map's size; an identity map of the
 * input's size passes frames unchanged (a hole takes the border colour);
 * bad files fail the start with the file named. */
GST_START_TEST (test_map_file)
{
  gchar *id = write_map (64, 48, 1.0, 0.0, FALSE, 0);
  gchar *big = write_map (100, 80, 0.6, 0.1, FALSE, 0);
  gchar *holed = write_map (64, 48, 1.0, 0.0, TRUE, 0);
  gchar *cut = write_map (64, 48, 1.0, 0.0, FALSE, 5);
  gchar *big_cut = write_map (100, 80, 0.6, 0.1, FALSE, 5), *bytes;
  gchar *fifo = g_strdup_printf ("%s/co-map-fifo-%d.comap", g_get_tmp_dir (),
      (int) getpid ());
  gsize n;
  GRand *rand = g_rand_new_with_seed (5);
  GstCaps *caps = video_caps ("RGBA", 64, 48), *cur;
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstHarness *h;
  GstElement *lens;
  gchar *desc, *err, *launch;
  gint w = 0, hh = 0;
  const gchar *bad_text[] = { "NOT-A-MAP", "" };
  guint i;

  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, FALSE);
  for (i = 0; i < 3; i++) {
    /* every strategy: lut=none takes float tables from the map */
    desc = g_strdup_printf (CPU "map-file=\"%s\" lut=%s interpolation=%s",
        id, i == 0 ? "compressed" : i == 1 ? "two-table" : "none",
        i == 1 ? "bilinear" : "nearest");
    out = run_frame (desc, caps, in);
    fail_unless (frames_equal (&info, in, out, NULL), "%s changed it", desc);
    gst_buffer_unref (out);
    g_free (desc);
  }
  /* a hole: its row is the border colour (opaque black) */
  desc = g_strdup_printf (CPU "map-file=\"%s\"", holed);
  out = run_frame (desc, caps, in);
  {
    GstMapInfo m, mi;
    gst_buffer_map (out, &m, GST_MAP_READ);
    gst_buffer_map (in, &mi, GST_MAP_READ);
    fail_unless (m.data[0] == 0 && m.data[1] == 0 && m.data[2] == 0 &&
        m.data[3] == 255, "the hole is not the border colour");
    fail_unless (memcmp (m.data + 4 * 64 * 2, mi.data + 4 * 64 * 2, 4 * 64)
        == 0, "row 2 is not the input's");
    gst_buffer_unmap (in, &mi);
    gst_buffer_unmap (out, &m);
  }
  gst_buffer_unref (out);
  g_free (desc);
  /* the map's size is the output's */
  desc = g_strdup_printf (CPU "map-file=\"%s\"", big);
  h = co_harness (desc, gst_caps_ref (caps));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  cur = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_structure_get_int (gst_caps_get_structure (cur, 0),
          "width", &w) && gst_structure_get_int (gst_caps_get_structure (cur,
              0), "height", &hh));
  fail_unless_equals_int (w, 100);
  fail_unless_equals_int (hh, 80);
  fail_unless_equals_int (gst_buffer_get_size (out), 100 * 80 * 4);
  gst_caps_unref (cur);
  gst_buffer_unref (out);
  /* while PLAYING: another map renegotiates its size; one that cannot be
   * read keeps the map (and size) in use, with a warning */
  lens = gst_harness_find_element (h, "cudalensdistort");
  g_object_set (lens, "map-file", id, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless_equals_int (gst_buffer_get_size (out), 64 * 48 * 4);
  fail_unless (frames_equal (&info, in, out, NULL), "the identity map live");
  gst_buffer_unref (out);
  g_object_set (lens, "map-file", "/nonexistent/map.comap", NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless_equals_int (gst_buffer_get_size (out), 64 * 48 * 4);
  fail_unless (frames_equal (&info, in, out, NULL), "the map in use stays");
  gst_buffer_unref (out);
  /* a body cut short: its header's size is not negotiated either */
  g_object_set (lens, "map-file", big_cut, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless_equals_int (gst_buffer_get_size (out), 64 * 48 * 4);
  fail_unless (frames_equal (&info, in, out, NULL), "the map in use stays");
  gst_buffer_unref (out);
  /* the same path, repaired and set again, is read again */
  fail_unless (g_file_get_contents (big, &bytes, &n, NULL));
  fail_unless (g_file_set_contents (big_cut, bytes, n, NULL));
  g_free (bytes);
  g_object_set (lens, "map-file", big_cut, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless_equals_int (gst_buffer_get_size (out), 100 * 80 * 4);
  gst_buffer_unref (out);
  gst_object_unref (lens);
  gst_harness_teardown (h);
  g_free (desc);
  /* bad files */
  g_unlink (fifo);
  fail_unless (mkfifo (fifo, 0600) == 0);
  for (i = 0; i < G_N_ELEMENTS (bad_text) + 3; i++) {
    /* a FIFO with no writer must not block the state change */
    gchar *path = i == 0 ? g_strdup (cut) : i == 1 ?
        g_strdup ("/nonexistent/x.comap") : i == 2 ? g_strdup (fifo) : NULL;
    gchar *base;
    if (!path) {
      gint fd = g_file_open_tmp ("co-badmap-XXXXXX.comap", &path, NULL);
      close (fd);
      fail_unless (g_file_set_contents (path, bad_text[i - 3], -1, NULL));
    }
    launch = g_strdup_printf ("videotestsrc num-buffers=2 ! video/x-raw,"
        "width=64,height=48 ! " CPU "map-file=\"%s\" ! fakesink", path);
    err = run_pipeline (launch, NULL, NULL);
    base = g_path_get_basename (path);
    fail_unless (err != NULL, "no error for %s", path);
    fail_unless (strstr (err, base) != NULL, "error '%s' does not name %s",
        err, base);
    GST_INFO ("%s: %s", path, err);
    if (i == 2)
      fail_unless (strstr (err, "not a regular file") != NULL, "%s", err);
    if (i != 1)
      g_unlink (path);
    g_free (base);
    g_free (err);
    g_free (launch);
    g_free (path);
  }
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  g_rand_free (rand);
  g_unlink (id);
  g_unlink (big);
  g_unlink (holed);
  g_free (id);
  g_free (big);
  g_free (holed);
  g_free (cut);
  g_unlink (big_cut);
  g_free (big_cut);
  g_free (fifo);
}

GST_END_TEST;

/* Chromatic hmd: each colour channel equals the plain hmd remap run with
 * that channel's coefficients and scale (k1 + red-k1, scale * red-scale...),
 * in every format with colour channels, every lut strategy and sampling,
 * mono and stereo; grey and YUV frames get an error naming the format. */
GST_START_TEST (test_hmd_chromatic)
{
  const gchar *formats[] = { "RGBA", "BGRA", "RGBx", "BGRx", "RGB" };
  const gchar *luts[] = { "compressed", "two-table", "none" };
  const gdouble k1 = -0.31, k2 = 0.09, scale = 0.96;
  const gdouble dk1[3] = { 0.0, 0.025, -0.03 }, dk2[3] = { 0.0, -0.01, 0.012 };
  const gdouble cs[3] = { 1.0, 0.97, 1.04 };
  const gchar *grey[] = { "GRAY8", "NV12", "I420", "GRAY16_LE" };
  GRand *rand = g_rand_new_with_seed (11);
  guint f, l, interp, stereo, c;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstCaps *caps = video_caps (formats[f], 96, 54);
    GstVideoInfo info;
    GstBuffer *in;
    /* the byte of each colour: green 1, red and blue by the format's order */
    const gint red = formats[f][0] == 'B' ? 2 : 0;
    const gint byte[3] = { 1, red, 2 - red };

    gst_video_info_from_caps (&info, caps);
    in = make_frame (&info, rand, FALSE);
    for (l = 0; l < G_N_ELEMENTS (luts); l++)
      for (interp = 0; interp < 2; interp++)
        for (stereo = 0; stereo < 2; stereo++) {
          gchar *common = g_strdup_printf (CPU "lut=%s interpolation=%s "
              "stereo=%d border-color=0xff306090", luts[l],
              interp ? "bilinear" : "nearest", stereo);
          /* %.17g: the element reads back the very doubles summed here */
          gchar *desc = g_strdup_printf ("%s k1=%.17g k2=%.17g scale=%.17g "
              "red-k1=%.17g red-k2=%.17g red-scale=%.17g blue-k1=%.17g "
              "blue-k2=%.17g blue-scale=%.17g", common, k1, k2, scale, dk1[1],
              dk2[1], cs[1], dk1[2], dk2[2], cs[2]);
          GstBuffer *out = run_frame (desc, caps, in);
          GstMapInfo mo;
          gint moved = 0;

          gst_buffer_map (out, &mo, GST_MAP_READ);
          for (c = 0; c < 3; c++) {
            gchar *plain = g_strdup_printf ("%s k1=%.17g k2=%.17g "
                "scale=%.17g", common, k1 + dk1[c], k2 + dk2[c],
                scale * cs[c]);
            GstBuffer *ref = run_frame (plain, caps, in);
            GstMapInfo mr;
            gint bpp = GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0), x, y, n = 0;
            gint stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);

            gst_buffer_map (ref, &mr, GST_MAP_READ);
            for (y = 0; y < 54; y++)
              for (x = 0; x < 96; x++) {
                gsize o = (gsize) y * stride + (gsize) x * bpp;
                n += mo.data[o + byte[c]] != mr.data[o + byte[c]];
                /* alpha (or x) follows green */
                if (c == 0 && bpp == 4)
                  n += mo.data[o + 3] != mr.data[o + 3];
                /* red is not where the green geometry would put it */
                if (c == 0)
                  moved += mo.data[o + byte[1]] != mr.data[o + byte[1]];
              }
            fail_unless (n == 0, "%s [%s]: colour %u differs from the plain "
                "remap in %d pixels", formats[f], desc, c, n);
            gst_buffer_unmap (ref, &mr);
            gst_buffer_unref (ref);
            g_free (plain);
          }
          fail_unless (moved > 96 * 54 / 8, "%s [%s]: red is where green "
              "is", formats[f], desc);
          gst_buffer_unmap (out, &mo);
          gst_buffer_unref (out);
          g_free (desc);
          g_free (common);
        }
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
  for (f = 0; f < G_N_ELEMENTS (grey); f++) {
    gchar *launch = g_strdup_printf ("videotestsrc num-buffers=2 ! "
        "video/x-raw,format=%s,width=64,height=48 ! " CPU "k1=-0.2 "
        "red-scale=0.99 ! fakesink", grey[f]);
    gchar *err = run_pipeline (launch, NULL, NULL);
    fail_unless (err != NULL && strstr (err, "needs RGB") != NULL &&
        strstr (err, grey[f]) != NULL, "%s: error '%s'", grey[f], err);
    g_free (err);
    g_free (launch);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* rectification-file: stereo_calib's extrinsics.yml rectifies the
 * intrinsics.yml camera (a different picture than the intrinsics alone),
 * also when set while PLAYING; an unusable one fails the start naming it;
 * without a calibration-file it is ignored with a warning. */
GST_START_TEST (test_rectification_file)
{
  gchar *intr = data_path ("CO_SAMPLES_DIR", "stereo-intrinsics.yml");
  gchar *extr = data_path ("CO_SAMPLES_DIR", "stereo-extrinsics.yml");
  GstCaps *caps = video_caps ("GRAY8", 640, 480);
  GRand *rand = g_rand_new_with_seed (3);
  GstVideoInfo info;
  GstBuffer *in, *plain, *rect, *live;
  GstHarness *h;
  GstElement *lens;
  gchar *desc, *launch, *err;
  gint warnings = 0;

  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, TRUE);
  desc = g_strdup_printf (CPU "calibration-file=\"%s\" camera=right", intr);
  plain = run_frame (desc, caps, in);
  g_free (desc);
  desc = g_strdup_printf (CPU "calibration-file=\"%s\" camera=right "
      "rectification-file=\"%s\"", intr, extr);
  rect = run_frame (desc, caps, in);
  fail_if (frames_equal (&info, plain, rect, NULL), "R2 P2 changed nothing");
  g_free (desc);
  /* while PLAYING */
  desc = g_strdup_printf (CPU "calibration-file=\"%s\" camera=right", intr);
  h = co_harness (desc, gst_caps_ref (caps));
  gst_buffer_unref (gst_harness_push_and_pull (h, gst_buffer_ref (in)));
  lens = gst_harness_find_element (h, "cudalensdistort");
  g_object_set (lens, "rectification-file", extr, NULL);
  live = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (frames_equal (&info, rect, live, NULL), "set while PLAYING");
  gst_buffer_unref (live);
  /* the same path set again after an edit is read again: a copy of the
   * extrinsics, then R2 = I and P2 = [K | 0] written over it (no
   * rectification: the intrinsics' own picture) */
  {
    GstCoCalibration k;
    gchar *copy = g_strdup_printf ("%s/co-rect-edit-%d.yml",
        g_get_tmp_dir (), (int) getpid ()), *text, *noop;
    gsize n;
    fail_unless (gst_co_calibration_load (intr, "right", &k, NULL));
    fail_unless (g_file_get_contents (extr, &text, &n, NULL));
    fail_unless (g_file_set_contents (copy, text, n, NULL));
    g_object_set (lens, "rectification-file", copy, NULL);
    live = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (frames_equal (&info, rect, live, NULL), "the copy");
    gst_buffer_unref (live);
    noop = g_strdup_printf ("%%YAML:1.0\nR2: !!opencv-matrix\n  rows: 3\n"
        "  cols: 3\n  dt: d\n  data: [ 1., 0., 0., 0., 1., 0., 0., 0., 1. ]\n"
        "P2: !!opencv-matrix\n  rows: 3\n  cols: 4\n  dt: d\n"
        "  data: [ %.17g, 0., %.17g, 0., 0., %.17g, %.17g, 0., 0., 0., 1., "
        "0. ]\n", k.fx, k.cx, k.fy, k.cy);
    fail_unless (g_file_set_contents (copy, noop, -1, NULL));
    g_object_set (lens, "rectification-file", copy, NULL);
    live = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (frames_equal (&info, plain, live, NULL), "the edited copy "
        "was not read again");
    gst_buffer_unref (live);
    g_unlink (copy);
    g_free (copy);
    g_free (text);
    g_free (noop);
  }
  gst_object_unref (lens);
  gst_harness_teardown (h);
  g_free (desc);
  /* the intrinsics file holds no rectification: refused by name */
  launch = g_strdup_printf ("videotestsrc num-buffers=2 ! video/x-raw,"
      "width=64,height=48 ! " CPU "calibration-file=\"%s\" "
      "rectification-file=\"%s\" ! fakesink", intr, intr);
  err = run_pipeline (launch, NULL, NULL);
  fail_unless (err != NULL && strstr (err, "no rectification") != NULL &&
      strstr (err, "rectification file") != NULL, "error '%s'", err);
  g_free (err);
  g_free (launch);
  launch = g_strdup_printf ("videotestsrc num-buffers=2 ! video/x-raw,"
      "width=64,height=48 ! " CPU "rectification-file=\"%s\" ! fakesink",
      extr);
  err = run_pipeline (launch, &warnings, NULL);
  fail_unless (err == NULL, "%s", err);
  fail_unless (warnings >= 1);
  g_free (launch);
  gst_buffer_unref (in);
  gst_buffer_unref (plain);
  gst_buffer_unref (rect);
  gst_caps_unref (caps);
  g_rand_free (rand);
  g_free (intr);
  g_free (extr);
}

GST_END_TEST;

GST_START_TEST (test_bad_calibration_files)
{
  const gchar *bad[] = { "does-not-exist.yml", "calib-bad-junk.yml",
    "calib-bad-3x2.xml", "calib-bad-nan.yml", "calib-bad-truncated.yml",
    "calib-bad-truncated.xml", "calib-bad-absurd.yml",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *path = data_path ("CO_TEST_DATA_DIR", bad[i]);
    gchar *launch = g_strdup_printf ("videotestsrc num-buffers=2 ! "
        "video/x-raw,width=64,height=48 ! " CPU "calibration-file=\"%s\" ! "
        "fakesink", path);
    gchar *err = run_pipeline (launch, NULL, NULL);
    fail_unless (err != NULL, "no error for %s", bad[i]);
    fail_unless (strstr (err, bad[i]) != NULL, "error '%s' does not name %s",
        err, bad[i]);
    GST_INFO ("%s: %s", bad[i], err);
    g_free (err);
    g_free (launch);
    /* an empty map-file is no map: the error still says calibration */
    launch = g_strdup_printf ("videotestsrc num-buffers=2 ! video/x-raw,"
        "width=64,height=48 ! " CPU "map-file=\"\" calibration-file=\"%s\" ! "
        "fakesink", path);
    err = run_pipeline (launch, NULL, NULL);
    fail_unless (err != NULL && strstr (err, "calibration file") != NULL,
        "error '%s' does not say calibration file", err);
    g_free (err);
    g_free (launch);
    g_free (path);
  }
}

GST_END_TEST;

/* A bad file set while PLAYING keeps the previous geometry. */
GST_START_TEST (test_bad_calibration_while_playing)
{
  gchar *good = data_path ("CO_TEST_DATA_DIR", "calib-opencv.yml");
  gchar *bad = data_path ("CO_TEST_DATA_DIR", "calib-bad-junk.yml");
  GstCaps *caps = video_caps ("GRAY8", 640, 480);
  GRand *rand = g_rand_new_with_seed (9);
  GstVideoInfo info;
  GstHarness *h = co_harness (CPU, gst_caps_ref (caps));
  GstBuffer *in, *a, *b;

  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, FALSE);
  gst_harness_set (h, "cudalensdistort", "calibration-file", good, NULL);
  a = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  gst_harness_set (h, "cudalensdistort", "calibration-file", bad, NULL);
  b = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (a && b);
  fail_unless (frames_equal (&info, a, b, NULL));
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  gst_caps_unref (caps);
  g_rand_free (rand);
  g_free (good);
  g_free (bad);
}

GST_END_TEST;

/* A FIFO would block the state change forever: refused at once. */
GST_START_TEST (test_calibration_fifo)
{
  gchar *dir = g_dir_make_tmp ("co-lens-XXXXXX", NULL);
  gchar *fifo = g_build_filename (dir, "calib.yml", NULL);
  gchar *launch, *err;

  fail_unless (mkfifo (fifo, 0600) == 0);
  launch = g_strdup_printf ("videotestsrc num-buffers=2 ! "
      "video/x-raw,width=64,height=48 ! " CPU "calibration-file=\"%s\" ! "
      "fakesink", fifo);
  err = run_pipeline (launch, NULL, NULL);
  fail_unless (err != NULL && strstr (err, "not a regular file") != NULL,
      "error: %s", GST_STR_NULL (err));
  g_free (err);
  g_free (launch);
  g_unlink (fifo);
  g_rmdir (dir);
  g_free (fifo);
  g_free (dir);
}

GST_END_TEST;

/* Pops the bus: counts warnings, fails on an error. */
static gint
count_warnings (GstElement * pipe)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m;
  gint n = 0;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
              GST_MESSAGE_WARNING)) != NULL) {
    GError *e = NULL;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &e, NULL);
      fail ("error: %s", e->message);
    }
    gst_message_parse_warning (m, &e, NULL);
    GST_INFO ("warning: %s", e->message);
    g_error_free (e);
    gst_message_unref (m);
    n++;
  }
  gst_object_unref (bus);
  return n;
}

/* Pushes @in through the running @pipe (appsrc "src", appsink "sink") and
 * checks the frame equals a fresh element's @ref_props output. */
static void
push_expect (GstElement * pipe, GstCaps * caps, GstBuffer * in,
    const gchar * ref_props)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gchar *desc = g_strdup_printf (CPU "%s", ref_props);
  GstBuffer *want = run_frame (desc, caps, in);
  GstVideoInfo info;
  GstSample *got;

  gst_video_info_from_caps (&info, caps);
  g_object_set (src, "caps", caps, NULL);
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
          gst_buffer_ref (in)), GST_FLOW_OK);
  got = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
  fail_unless (got != NULL, "no frame");
  fail_unless (frames_equal (&info, gst_sample_get_buffer (got), want, NULL),
      "not the frame of [%s]", ref_props);
  gst_sample_unref (got);
  gst_buffer_unref (want);
  gst_object_unref (src);
  gst_object_unref (sink);
  g_free (desc);
}

/* A bad file set after PLAYING was asked for, before the first frame, is a
 * warning like any other change while running: the started file stays. */
GST_START_TEST (test_bad_calibration_before_first_frame)
{
  gchar *good = data_path ("CO_TEST_DATA_DIR", "calib-opencv.yml");
  gchar *bad = data_path ("CO_TEST_DATA_DIR", "calib-bad-junk.yml");
  gchar *launch = g_strdup_printf ("appsrc name=src format=time ! " CPU
      "name=lens calibration-file=\"%s\" ! appsink name=sink sync=false",
      good);
  gchar *started = g_strdup_printf ("calibration-file=\"%s\"", good);
  gchar *changed = g_strdup_printf ("calibration-file=\"%s\" alpha=0.5 "
      "border-color=0xff00ff00", good);
  GstCaps *caps = video_caps ("GRAY8", 640, 480);
  GRand *rand = g_rand_new_with_seed (10);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *lens = gst_bin_get_by_name (GST_BIN (pipe), "lens");
  GstVideoInfo info;
  GstBuffer *in;

  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, FALSE);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  g_object_set (lens, "calibration-file", bad, NULL);
  push_expect (pipe, caps, in, started);
  fail_unless_equals_int (count_warnings (pipe), 1);

  /* the other properties still apply, and the bad file is not re-read (nor
   * warned about) at each of their changes */
  g_object_set (lens, "alpha", 0.5, NULL);
  g_object_set (lens, "border-color", 0xff00ff00, NULL);
  push_expect (pipe, caps, in, changed);
  fail_unless_equals_int (count_warnings (pipe), 0);
  /* set again (the file may have been fixed): tried and warned again */
  g_object_set (lens, "calibration-file", bad, NULL);
  push_expect (pipe, caps, in, changed);
  fail_unless_equals_int (count_warnings (pipe), 1);
  gst_element_set_state (pipe, GST_STATE_NULL);

  gst_buffer_unref (in);
  gst_object_unref (lens);
  gst_object_unref (pipe);
  gst_caps_unref (caps);
  g_rand_free (rand);
  g_free (changed);
  g_free (started);
  g_free (launch);
  g_free (good);
  g_free (bad);
}

GST_END_TEST;

/* A bad file on an element that never had a usable one: the model in use
 * stays (a file selects model=camera only once it can be used), and the
 * other properties and renegotiation still apply. */
GST_START_TEST (test_bad_calibration_keeps_model)
{
  gchar *bad = data_path ("CO_TEST_DATA_DIR", "calib-bad-junk.yml");
  GstElement *pipe = gst_parse_launch ("appsrc name=src format=time ! " CPU
      "name=lens model=hmd k1=-0.3 k2=0.05 ! appsink name=sink sync=false",
      NULL);
  GstElement *lens = gst_bin_get_by_name (GST_BIN (pipe), "lens");
  GstCaps *caps = video_caps ("RGBA", 96, 64);
  GstCaps *caps2 = video_caps ("RGBA", 80, 60);
  GRand *rand = g_rand_new_with_seed (12);
  GstVideoInfo info, info2;
  GstBuffer *in, *in2;

  gst_video_info_from_caps (&info, caps);
  gst_video_info_from_caps (&info2, caps2);
  in = make_frame (&info, rand, FALSE);
  in2 = make_frame (&info2, rand, FALSE);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* before the first frame */
  g_object_set (lens, "calibration-file", bad, NULL);
  push_expect (pipe, caps, in, "model=hmd k1=-0.3 k2=0.05");
  fail_unless_equals_int (count_warnings (pipe), 1);
  g_object_set (lens, "border-color", 0xffffffff, "k1", 0.2, NULL);
  push_expect (pipe, caps, in, "model=hmd k1=0.2 k2=0.05 "
      "border-color=0xffffffff");
  push_expect (pipe, caps2, in2, "model=hmd k1=0.2 k2=0.05 "
      "border-color=0xffffffff");
  fail_unless_equals_int (count_warnings (pipe), 0);
  gst_element_set_state (pipe, GST_STATE_NULL);

  gst_buffer_unref (in);
  gst_buffer_unref (in2);
  gst_object_unref (lens);
  gst_object_unref (pipe);
  gst_caps_unref (caps);
  gst_caps_unref (caps2);
  g_rand_free (rand);
  g_free (bad);
}

GST_END_TEST;

/* model=fisheye asks for a fisheye: a pinhole file (OpenCV's camera_matrix
 * and 5 coefficients, no fisheye marker) is an error before the first
 * frame whichever property came first, not model=camera's picture in
 * silence.  While PLAYING it is a warning and the camera in use stays;
 * model=camera takes the same file. */
GST_START_TEST (test_fisheye_with_pinhole_file)
{
  gchar *dir = g_dir_make_tmp ("co-lens-XXXXXX", NULL);
  gchar *pin = g_build_filename (dir, "pinhole.yml", NULL);
  gchar *fish = data_path ("CO_TEST_DATA_DIR", "calib-opencv-fisheye.yml");
  const gchar *props[] = { "model=fisheye calibration-file=\"%s\"",
    "calibration-file=\"%s\" model=fisheye", "model=camera "
        "calibration-file=\"%s\""
  };
  gchar *launch, *fish_props, *pin_props, *err;
  GstStateChangeReturn sret;
  GstCaps *caps = video_caps ("GRAY8", 64, 48);
  GRand *rand = g_rand_new_with_seed (13);
  GstElement *pipe, *lens;
  GstVideoInfo info;
  GstBuffer *in;
  guint i;

  fail_unless (g_file_set_contents (pin, "%YAML:1.0\n---\n"
          "image_width: 64\nimage_height: 48\n"
          "camera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n"
          "   dt: d\n   data: [ 60., 0., 31.5, 0., 60., 23.5, 0., 0., 1. ]\n"
          "distortion_coefficients: !!opencv-matrix\n   rows: 5\n"
          "   cols: 1\n   dt: d\n"
          "   data: [ -0.2, 0.05, 0.001, -0.002, 0.01 ]\n", -1, NULL));
  for (i = 0; i < G_N_ELEMENTS (props); i++) {
    gchar *p = g_strdup_printf (props[i], pin);
    launch = g_strdup_printf ("videotestsrc num-buffers=2 ! video/x-raw,"
        "format=GRAY8,width=64,height=48 ! " CPU "%s ! fakesink", p);
    err = run_pipeline (launch, NULL, &sret);
    if (i < 2) {
      fail_unless (err != NULL, "[%s]: no error", p);
      fail_unless (strstr (err, "pinhole.yml") && strstr (err, "pinhole ") &&
          strstr (err, "fisheye"), "[%s]: error '%s'", p, err);
      fail_unless_equals_int (sret, GST_STATE_CHANGE_FAILURE);
    } else {
      fail_unless (err == NULL, "[%s]: %s", p, err);
    }
    g_free (err);
    g_free (launch);
    g_free (p);
  }

  /* while PLAYING */
  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, TRUE);
  fish_props = g_strdup_printf ("model=fisheye calibration-file=\"%s\"",
      fish);
  pin_props = g_strdup_printf ("model=camera calibration-file=\"%s\"", pin);
  launch = g_strdup_printf ("appsrc name=src format=time ! " CPU "name=lens "
      "%s ! appsink name=sink sync=false", fish_props);
  pipe = gst_parse_launch (launch, NULL);
  lens = gst_bin_get_by_name (GST_BIN (pipe), "lens");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  push_expect (pipe, caps, in, fish_props);
  fail_unless_equals_int (count_warnings (pipe), 0);
  g_object_set (lens, "calibration-file", pin, NULL);
  push_expect (pipe, caps, in, fish_props);
  fail_unless_equals_int (count_warnings (pipe), 1);
  /* the file was fine for another model: no memory of it as bad */
  gst_util_set_object_arg (G_OBJECT (lens), "model", "camera");
  push_expect (pipe, caps, in, pin_props);
  fail_unless_equals_int (count_warnings (pipe), 0);
  /* and back: the pinhole camera in use stays, said once more */
  gst_util_set_object_arg (G_OBJECT (lens), "model", "fisheye");
  push_expect (pipe, caps, in, pin_props);
  fail_unless_equals_int (count_warnings (pipe), 1);
  gst_element_set_state (pipe, GST_STATE_NULL);

  gst_object_unref (lens);
  gst_object_unref (pipe);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  g_rand_free (rand);
  g_unlink (pin);
  g_rmdir (dir);
  g_free (launch);
  g_free (fish_props);
  g_free (pin_props);
  g_free (fish);
  g_free (pin);
  g_free (dir);
}

GST_END_TEST;

/* A file name need not be UTF-8; the bus messages that name it must be. */
GST_START_TEST (test_warning_names_file_in_utf8)
{
  gchar *good = data_path ("CO_TEST_DATA_DIR", "calib-opencv.yml");
  gchar *dir = g_dir_make_tmp ("co-lens-XXXXXX", NULL);
  gchar *odd = g_build_filename (dir, "c\xff.yml", NULL);
  gchar *text, *launch;
  gsize len;
  GstElement *pipe;
  GstBus *bus;
  GstMessage *m;
  GError *e = NULL;

  fail_unless (g_file_get_contents (good, &text, &len, NULL));
  fail_unless (g_file_set_contents (odd, text, len, NULL));
  launch = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=640,height=8 ! " CPU "name=lens ! "
      "fakesink");
  pipe = gst_parse_launch (launch, NULL);
  {
    GstElement *lens = gst_bin_get_by_name (GST_BIN (pipe), "lens");
    g_object_set (lens, "calibration-file", odd, NULL);
    gst_object_unref (lens);
  }
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND, GST_MESSAGE_WARNING |
      GST_MESSAGE_ERROR);
  fail_unless (m != NULL && GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING);
  gst_message_parse_warning (m, &e, NULL);
  fail_unless (strstr (e->message, "aspect ratio") != NULL, "%s", e->message);
  fail_unless (g_utf8_validate (e->message, -1, NULL));
  g_error_free (e);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_unlink (odd);
  g_rmdir (dir);
  g_free (launch);
  g_free (text);
  g_free (odd);
  g_free (dir);
  g_free (good);
}

GST_END_TEST;

/* Settings that are valid but leave nothing to see say so on the bus, once;
 * so does a calibration made at another aspect ratio. */
GST_START_TEST (test_setting_warnings)
{
  gchar *file = data_path ("CO_TEST_DATA_DIR", "calib-opencv.yml");
  const struct
  {
    const gchar *size, *props;
    gint warnings;
  } cases[] = {
    {"width=64,height=48", "model=camera fx=10 cx=100000 k1=1000", 1},
    {"width=64,height=48", "model=hmd k1=-1000", 0},
    {"width=64,height=48", "calibration-file=\"%s\"", 0},
    {"width=640,height=1", "calibration-file=\"%s\"", 1},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *props = g_strdup_printf (cases[i].props, file);
    gchar *launch = g_strdup_printf ("videotestsrc num-buffers=3 ! "
        "video/x-raw,format=RGBA,%s ! " CPU "%s ! fakesink", cases[i].size,
        props);
    gint warnings;
    gchar *err = run_pipeline (launch, &warnings, NULL);

    fail_unless (err == NULL, "%s: %s", launch, err);
    fail_unless_equals_int (warnings, cases[i].warnings);
    g_free (launch);
    g_free (props);
  }
  g_free (file);
}

GST_END_TEST;

/* Downstream taking crop meta must not make upstream skip cropping: the
 * element remaps what it is given, so it proposes no geometry meta. */
GST_START_TEST (test_allocation_metas)
{
  GstCaps *caps = video_caps ("RGBA", 64, 48);
  GstHarness *h = gst_harness_new_parse (CPU "k1=-0.2");
  GstElement *lens;
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstQuery *q;

  gst_harness_add_propose_allocation_meta (h, GST_VIDEO_CROP_META_API_TYPE,
      NULL);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, NULL, TRUE);
  gst_buffer_add_video_crop_meta (in)->width = 32;
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  /* nor is the input's crop meta copied onto the remapped frame */
  fail_unless (gst_buffer_get_video_crop_meta (out) == NULL);
  gst_buffer_unref (out);

  q = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_if (gst_query_find_allocation_meta (q, GST_VIDEO_CROP_META_API_TYPE,
          NULL), "crop meta proposed upstream");
  fail_unless (gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE,
          NULL));
  gst_query_unref (q);
  lens = gst_harness_find_element (h, "cudalensdistort");
  fail_unless (gst_base_transform_is_qos_enabled (GST_BASE_TRANSFORM (lens)));
  gst_object_unref (lens);
  gst_harness_teardown (h);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* backend=cpu never produces CUDA memory (it has no context for a CUDA
 * pool), in READY, before start, too; it may still take it (mapped). */
GST_START_TEST (test_cpu_offers_no_cuda_memory)
{
  GstElement *e = gst_element_factory_make ("cudalensdistort", NULL);
  GstPad *src = gst_element_get_static_pad (e, "src");
  GstCaps *caps;
  guint i;

  g_object_set (e, "backend", GST_CO_BACKEND_CPU, NULL);
  fail_unless (gst_element_set_state (e, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  caps = gst_pad_query_caps (src, NULL);
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    fail_if (f && gst_caps_features_contains (f, "memory:CUDAMemory"),
        "the source pad offers %" GST_PTR_FORMAT, caps);
  }
  gst_caps_unref (caps);
  gst_object_unref (src);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_state_cycles)
{
  gint i;

  for (i = 0; i < 8; i++) {
    const gchar *fmt = all_formats[i % G_N_ELEMENTS (all_formats)];
    gchar *launch = g_strdup_printf ("videotestsrc num-buffers=3 ! "
        "video/x-raw,format=%s,width=%d,height=%d ! " CPU "k1=-0.2 "
        "lut=%s ! fakesink", fmt, 40 + i, 30 + i,
        i % 3 == 0 ? "compressed" : i % 3 == 1 ? "two-table" : "none");
    gchar *err = run_pipeline (launch, NULL, NULL);
    fail_unless (err == NULL, "%s: %s", launch, err);
    g_free (launch);
  }
}

GST_END_TEST;

/* The shared stress check (family-check.h) on the CPU backend. */
GST_START_TEST (test_properties_while_playing)
{
  check_properties_while_playing (CPU, CPU "k1=-0.3 model=hmd", 96, 64, FALSE,
      300, 100, 0);
}

GST_END_TEST;

GST_START_TEST (test_tiny_sizes)
{
  const gint sizes[][2] = { {1, 1}, {2, 1}, {1, 2}, {2, 2}, {3, 3}, {5, 7},
  {1, 9}
  };
  GRand *rand = g_rand_new_with_seed (4);
  guint i, s;

  for (i = 0; i < G_N_ELEMENTS (all_formats); i++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      GstCaps *caps = video_caps (all_formats[i], sizes[s][0], sizes[s][1]);
      GstVideoInfo info;
      GstBuffer *in, *out;
      gst_video_info_from_caps (&info, caps);
      in = make_frame (&info, rand, FALSE);
      out = run_frame (CPU, caps, in);
      fail_unless (frames_equal (&info, in, out, NULL));
      gst_buffer_unref (out);
      out = run_frame (CPU "k1=-0.8 k2=0.3 stereo=true", caps, in);
      gst_buffer_unref (out);
      out = run_frame (CPU "model=camera k1=0.4 alpha=1", caps, in);
      gst_buffer_unref (out);
      gst_buffer_unref (in);
      gst_caps_unref (caps);
    }
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* alpha=0 keeps only valid pixels, alpha=1 all source pixels (and so shows
 * border): the meaning of cv::getOptimalNewCameraMatrix. */
static gdouble
border_fraction (const gchar * props)
{
  GstCaps *caps = video_caps ("RGBA", 320, 240);
  GRand *rand = g_rand_new_with_seed (8);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstMapInfo map;
  gchar *desc = g_strdup_printf (CPU "border-color=0x00ff00ff %s", props);
  gsize i, n = 0;

  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, FALSE);
  /* no source pixel may look like the border: alpha 255 everywhere */
  gst_buffer_map (in, &map, GST_MAP_WRITE);
  for (i = 3; i < map.size; i += 4)
    map.data[i] = 255;
  gst_buffer_unmap (in, &map);
  out = run_frame (desc, caps, in);
  gst_buffer_map (out, &map, GST_MAP_READ);
  for (i = 0; i < map.size; i += 4)
    n += map.data[i + 3] == 0;
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_caps_unref (caps);
  g_rand_free (rand);
  g_free (desc);
  return (gdouble) n / (320 * 240);
}

GST_START_TEST (test_alpha)
{
  gchar *file = data_path ("CO_TEST_DATA_DIR", "calib-opencv.yml");
  gchar *p0 = g_strdup_printf ("calibration-file=\"%s\" alpha=0", file);
  gchar *p1 = g_strdup_printf ("calibration-file=\"%s\" alpha=1", file);
  gdouble f0 = border_fraction (p0), f1 = border_fraction (p1);

  GST_INFO ("border at alpha 0: %.4f, alpha 1: %.4f", f0, f1);
  fail_unless (f0 < 0.01, "alpha=0 left %.2f%% border", f0 * 100);
  fail_unless (f1 > 0.02
      && f1 > 4 * f0, "alpha=1 shows only %.2f%% border", f1 * 100);
  g_free (p0);
  g_free (p1);
  g_free (file);
}

GST_END_TEST;

/* k1 follows a control source: the property animates while PLAYING. */
GST_START_TEST (test_controllable)
{
  GstCaps *caps = video_caps ("GRAY8", 64, 48);
  GstHarness *h = co_harness (CPU, gst_caps_ref (caps));
  GstElement *e = gst_harness_find_element (h, "cudalensdistort");
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GRand *rand = g_rand_new_with_seed (6);
  GstVideoInfo info;
  GstBuffer *in, *a, *b, *c;
  gdouble k1;

  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs), 0, 0.5);     /* value 0.5 of [-1000, 1000] = 0 */
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs),
      GST_SECOND, 0.4998);
  gst_object_add_control_binding (GST_OBJECT (e),
      gst_direct_control_binding_new (GST_OBJECT (e), "k1", cs));
  gst_video_info_from_caps (&info, caps);
  in = make_frame (&info, rand, FALSE);
  GST_BUFFER_PTS (in) = 0;
  a = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  GST_BUFFER_PTS (in) = GST_SECOND;
  b = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  g_object_get (e, "k1", &k1, NULL);
  fail_unless (k1 < -0.3 && k1 > -0.5, "k1 = %g", k1);
  GST_BUFFER_PTS (in) = 0;
  c = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless (frames_equal (&info, in, a, NULL), "k1=0 at t=0");
  fail_unless (!frames_equal (&info, a, b, NULL), "no change at t=1s");
  fail_unless (frames_equal (&info, a, c, NULL), "not back at t=0");
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (c);
  gst_buffer_unref (in);
  gst_object_unref (cs);
  gst_object_unref (e);
  gst_harness_teardown (h);
  gst_caps_unref (caps);
  g_rand_free (rand);
}

GST_END_TEST;

/* auto without a device warns once and runs on the CPU; cuda without one
 * refuses to start.  On a GPU machine auto picks CUDA and warns nothing. */
GST_START_TEST (test_backend_selection)
{
  GstElement *e = gst_element_factory_make ("cudalensdistort", NULL);
  GstElement *pipe;
  gint warnings = 0, active;
  gchar *err;

  fail_unless (e != NULL);
  gst_object_unref (e);
  pipe = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,width=32,height=32 ! cudalensdistort name=ld ! fakesink",
      NULL);
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  gst_element_get_state (pipe, NULL, NULL, 10 * GST_SECOND);
  e = gst_bin_get_by_name (GST_BIN (pipe), "ld");
  g_object_get (e, "active-backend", &active, NULL);
  gst_object_unref (e);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);

  err = run_pipeline ("videotestsrc num-buffers=1 ! "
      "video/x-raw,width=32,height=32 ! cudalensdistort ! fakesink",
      &warnings, NULL);
  fail_unless (err == NULL, "%s", err);
  if (active == 2) {            /* cpu: no usable device here */
    fail_unless_equals_int (warnings, 1);
    err = run_pipeline ("videotestsrc num-buffers=1 ! "
        "video/x-raw,width=32,height=32 ! cudalensdistort backend=cuda ! "
        "fakesink", NULL, NULL);
    fail_unless (err != NULL && strstr (err, "CUDA") != NULL);
    GST_INFO ("backend=cuda without a device: %s", err);
    g_free (err);
  } else {
    fail_unless_equals_int (active, 1);
    fail_unless_equals_int (warnings, 0);
  }
}

GST_END_TEST;

GST_START_TEST (test_renegotiation)
{
  check_renegotiation (CPU "k1=-0.3 stereo=true", CPU "k1=-0.3 stereo=true");
}

GST_END_TEST;

/* The pads' planes as a CoFrame for the kernels' C reference. */
static void
co_frame_of (GstVideoFrame * vf, CoFrame * f)
{
  guint p;

  memset (f, 0, sizeof (*f));
  f->format = co_format_of (GST_VIDEO_FRAME_FORMAT (vf));
  f->width = GST_VIDEO_FRAME_WIDTH (vf);
  f->height = GST_VIDEO_FRAME_HEIGHT (vf);
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (vf); p++) {
    f->data[p] = GST_VIDEO_FRAME_PLANE_DATA (vf, p);
    f->pitch[p] = GST_VIDEO_FRAME_PLANE_STRIDE (vf, p);
  }
}

/* off-edge: a barrel pre-distortion (k1 < 0) samples outside the source
 * towards the corners; every mode
 * and lut strategy gives the bytes of the kernels' C reference with that
 * mode, and the three modes differ. */
GST_START_TEST (test_off_edge)
{
  static const gchar *edges[] = { "border", "clamp", "wrap" };
  static const gchar *luts[] = { "compressed", "two-table", "none" };
  static const gchar *formats[] = { "RGBA", "NV12", "GRAY16_LE", "RGB" };
  GRand *rand = g_rand_new_with_seed (9);
  const gint w = 97, h = 61;
  guint f, e, l, i;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstCaps *caps = video_caps (formats[f], w, h);
    GstVideoInfo info;
    GstBuffer *in;

    gst_video_info_from_caps (&info, caps);
    in = make_frame (&info, rand, FALSE);
    for (i = 0; i < 2; i++) {
      GstBuffer *by_edge[3] = { NULL };
      for (e = 0; e < 3; e++) {
        for (l = 0; l < 3; l++) {
          gchar *desc = g_strdup_printf (CPU "model=hmd k1=-0.3 k2=0 "
              "center-x=0.4 border-color=0xff204080 off-edge=%s lut=%s "
              "interpolation=%s", edges[e], luts[l],
              i ? "bilinear" : "nearest");
          GstBuffer *out = run_frame (desc, caps, in), *ref;
          GstVideoFrame vi, vr;
          CoFrame ci, cr;
          CoLensParams p;
          CoLut lut;
          uint32_t border[CO_MAX_PLANES];
          gint md;

          ref = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info),
              NULL);
          fail_unless (gst_video_frame_map (&vi, &info, in, GST_MAP_READ));
          fail_unless (gst_video_frame_map (&vr, &info, ref, GST_MAP_WRITE));
          co_frame_of (&vi, &ci);
          co_frame_of (&vr, &cr);
          co_lens_params_init_hmd (&p, w, h, -0.3, 0.0, 0.4, 0.5, FALSE);
          co_lut_layout_full (&lut, CO_LUT_COMPUTE, (CoInterp) i, (CoEdge) e,
              ci.format, w, h, w, h);
          co_format_border (ci.format, 0xff204080, border);
          co_lens_remap_cpu (&p, &lut, &ci, &cr, border);
          gst_video_frame_unmap (&vi);
          gst_video_frame_unmap (&vr);
          fail_unless (frames_equal (&info, out, ref, &md), "%s %s: differs "
              "from the C reference by %d", formats[f], desc, md);
          gst_buffer_unref (ref);
          if (by_edge[e] == NULL)
            by_edge[e] = out;
          else
            gst_buffer_unref (out);
          g_free (desc);
        }
      }
      fail_if (frames_equal (&info, by_edge[0], by_edge[1], NULL));
      fail_if (frames_equal (&info, by_edge[0], by_edge[2], NULL));
      fail_if (frames_equal (&info, by_edge[1], by_edge[2], NULL));
      for (e = 0; e < 3; e++)
        gst_buffer_unref (by_edge[e]);
    }
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* gst-inspect's property list: the names and defaults of 0.1 (lut,
 * interpolation and border-color now from GstCoRemapFilter), plus off-edge. */
GST_START_TEST (test_property_defaults)
{
  static const struct
  {
    const gchar *name, *def;
  } want[] = {
    {"model", "hmd"}, {"k1", "0"}, {"k2", "0"}, {"k3", "0"}, {"p1", "0"},
    {"p2", "0"}, {"center-x", "0.5"}, {"center-y", "0.5"},
    {"stereo", "FALSE"}, {"fx", "0"}, {"fy", "0"}, {"cx", "-1"},
    {"cy", "-1"}, {"calibration-file", "NULL"}, {"alpha", "-1"},
    {"lut", "compressed"}, {"interpolation", "bilinear"},
    {"border-color", "4278190080"}, {"off-edge", "border"},
    {"backend", "auto"}, {"device-id", "-1"},
  };
  GstElement *e = gst_element_factory_make ("cudalensdistort", NULL);
  GObjectClass *oc = G_OBJECT_GET_CLASS (e);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (want); i++) {
    GParamSpec *ps = g_object_class_find_property (oc, want[i].name);
    GValue v = G_VALUE_INIT;
    gchar *got;

    fail_unless (ps != NULL, "no property %s", want[i].name);
    g_value_init (&v, ps->value_type);
    g_object_get_property (G_OBJECT (e), want[i].name, &v);
    if (G_VALUE_HOLDS_ENUM (&v))
      got = g_strdup (g_enum_get_value (g_type_class_peek (ps->value_type),
              g_value_get_enum (&v))->value_nick);
    else if (G_VALUE_HOLDS_DOUBLE (&v))
      got = g_strdup_printf ("%g", g_value_get_double (&v));
    else if (G_VALUE_HOLDS_STRING (&v))
      got = g_strdup (g_value_get_string (&v) ? g_value_get_string (&v) :
          "NULL");
    else
      got = g_strdup_value_contents (&v);
    fail_unless_equals_string (got, want[i].def);
    fail_unless (g_param_value_defaults (ps, &v), "%s", want[i].name);
    g_free (got);
    g_value_unset (&v);
  }
  gst_object_unref (e);
}

GST_END_TEST;

/* A setter that renegotiates (map-file: the map's size is the output's)
 * must not hold the element's lock while it marks the source pad: another
 * thread holding the pad's lock and then asking for a property would wait
 * on the element forever (the order videoflip keeps). */
typedef struct
{
  GstElement *e;
  const gchar *map;
} SetMap;

static gpointer
set_map_thread (gpointer data)
{
  SetMap *m = data;
  g_object_set (m->e, "map-file", m->map, NULL);
  return NULL;
}

GST_START_TEST (test_reconfigure_outside_lock)
{
  GstElement *e = gst_element_factory_make ("cudalensdistort", NULL);
  GstPad *src = gst_element_get_static_pad (e, "src");
  gchar *map = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"),
      "map-5x3.comap", NULL);
  SetMap m = { e, map };
  GThread *t;
  gboolean got = FALSE;
  gint i;

  GST_OBJECT_LOCK (src);
  t = g_thread_new ("set-map", set_map_thread, &m);
  /* the setter now waits for the pad's lock; the element's must be free */
  g_usleep (100000);
  for (i = 0; i < 100 && !got; i++) {
    got = g_mutex_trylock (GST_OBJECT_GET_LOCK (e));
    if (got)
      g_mutex_unlock (GST_OBJECT_GET_LOCK (e));
    else
      g_usleep (10000);
  }
  GST_OBJECT_UNLOCK (src);
  g_thread_join (t);
  fail_unless (got, "the setter held the element's lock while waiting for "
      "the source pad's");
  gst_object_unref (src);
  gst_object_unref (e);
  g_free (map);
}

GST_END_TEST;

static Suite *
cudalensdistort_suite (void)
{
  Suite *s = suite_create ("cudalensdistort");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_reconfigure_outside_lock);
  tcase_add_test (tc, test_formats_negotiate);
  tcase_add_test (tc, test_unsupported_caps);
  tcase_add_test (tc, test_hmd_reference);
  tcase_add_test (tc, test_camera_reference);
  tcase_add_test (tc, test_calibration_file);
  tcase_add_test (tc, test_bad_calibration_files);
  tcase_add_test (tc, test_map_file);
  tcase_add_test (tc, test_hmd_chromatic);
  tcase_add_test (tc, test_rectification_file);
  tcase_add_test (tc, test_bad_calibration_while_playing);
  tcase_add_test (tc, test_calibration_fifo);
  tcase_add_test (tc, test_bad_calibration_before_first_frame);
  tcase_add_test (tc, test_setting_warnings);
  tcase_add_test (tc, test_allocation_metas);
  tcase_add_test (tc, test_cpu_offers_no_cuda_memory);
  tcase_add_test (tc, test_bad_calibration_keeps_model);
  tcase_add_test (tc, test_fisheye_with_pinhole_file);
  tcase_add_test (tc, test_warning_names_file_in_utf8);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_properties_while_playing);
  tcase_add_test (tc, test_tiny_sizes);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_alpha);
  tcase_add_test (tc, test_controllable);
  tcase_add_test (tc, test_backend_selection);
  tcase_add_test (tc, test_off_edge);
  tcase_add_test (tc, test_property_defaults);
  return s;
}

GST_CHECK_MAIN (cudalensdistort);
