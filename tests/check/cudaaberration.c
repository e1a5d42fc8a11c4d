/* cudaoptics — LGPL-2.1-or-later
 *
 * cudaaberration: natural pictures mosaiced in every Bayer order and
 * sample size come back in colour close to the original (and no worse
 * than a bilinear demosaic by more than the CLT product's known cost);
 * every output format holds the same picture; a blurred picture is
 * restored by kernels built from its blur; model=camera undistorts as
 * cudalensdistort does with the same numbers; bad files and sizes are
 * clear errors, a bad file set while PLAYING a warning; CUDA gives the
 * CPU's bytes (where a device is usable).
 */
#include <unistd.h>
#include "family-check.h"
#include <gst/app/gstappsink.h>
#include <glib/gstdio.h>
#include <math.h>
#include "../clt-kernels-file.h"

static const gchar *patterns[] = { "rggb", "bggr", "grbg", "gbrg" };

/* 16 bits a colour where GStreamer has the format (1.20+) */
#if GST_CHECK_VERSION (1, 20, 0)
#define DEEP "RGBA64_LE"
#define DEEP_ROUNDING (0.5 / 255)       /* against an 8-bit output */
#else
#define DEEP "RGBA"
#define DEEP_ROUNDING (1.0 / 255)       /* both rounded to 8 bits */
#endif

/* A PNG of tests/data/natural as packed RGB, rows of 3 w bytes. */
static guint8 *
load_rgb (const gchar * name, gint * w, gint * h)
{
  gchar *path = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"), "natural",
      name, NULL);
  GError *err = NULL;
  GstElement *p = gst_parse_launch ("filesrc name=src ! pngdec ! "
      "videoconvert ! video/x-raw,format=RGB ! appsink name=sink", &err);
  GstElement *src, *sink;
  GstSample *s;
  guint8 *rgb = NULL;

  fail_unless (p != NULL && err == NULL, "%s", err ? err->message : "");
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  g_object_set (src, "location", path, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 30 * GST_SECOND);
  if (s) {
    GstVideoInfo info;
    GstVideoFrame f;
    gint y;
    gst_video_info_from_caps (&info, gst_sample_get_caps (s));
    *w = GST_VIDEO_INFO_WIDTH (&info);
    *h = GST_VIDEO_INFO_HEIGHT (&info);
    rgb = g_malloc ((gsize) 3 * *w * *h);
    fail_unless (gst_video_frame_map (&f, &info, gst_sample_get_buffer (s),
            GST_MAP_READ));
    for (y = 0; y < *h; y++)
      memcpy (rgb + (gsize) 3 * *w * y, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA
          (&f, 0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0),
          (gsize) 3 * *w);
    gst_video_frame_unmap (&f);
    gst_sample_unref (s);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (p);
  fail_unless (rgb != NULL, "could not read %s", path);
  g_free (path);
  return rgb;
}

/* Colour (0 red, 1 green, 2 blue) of pixel (x, y) under @pattern */
static gint
site_colour (const gchar * pattern, gint x, gint y)
{
  gchar c = pattern[(y & 1) * 2 + (x & 1)];
  return c == 'r' ? 0 : c == 'g' ? 1 : 2;
}

/* @rgb as a mosaic of @pattern: 8-bit (bayer2rgb's stride) or, with @bps 2,
 * 16-bit little-endian values v << @shift; @video: as GRAY16_LE caps. */
static GstBuffer *
mosaic (const guint8 * rgb, gint w, gint h, const gchar * pattern, gint bps,
    gint shift, gboolean video, GstCaps ** caps)
{
  gint stride = (video ? GST_ROUND_UP_4 (w * bps) : GST_ROUND_UP_4 (w) * bps);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) stride * h, NULL);
  GstMapInfo m;
  gint x, y;

  gst_buffer_map (buf, &m, GST_MAP_WRITE);
  memset (m.data, 0xa5, m.size);        /* padding: never read */
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      guint v = rgb[3 * ((gsize) y * w + x) + site_colour (pattern, x, y)];
      guint8 *p = m.data + (gsize) y * stride + (gsize) x * bps;
      if (bps == 1) {
        p[0] = (guint8) v;
      } else {
        /* 16 bits: 0..255 to 0..65535 exactly; fewer: shifted up */
        v = shift == 8 ? v * 257 : v << shift;
        p[0] = (guint8) v;
        p[1] = (guint8) (v >> 8);
      }
    }
  gst_buffer_unmap (buf, &m);
  if (video) {
    *caps = video_caps ("GRAY16_LE", w, h);
  } else {
    gchar *f = g_strdup_printf ("%s%s", pattern, bps == 2 ? "16le" : "");
    *caps = gst_caps_new_simple ("video/x-bayer", "format", G_TYPE_STRING, f,
        "width", G_TYPE_INT, w, "height", G_TYPE_INT, h, "framerate",
        GST_TYPE_FRACTION, 30, 1, NULL);
    g_free (f);
  }
  return buf;
}

/* One frame through "@desc ! @format caps"; the output's pixels as RGB
 * doubles 0..1 (RGBA64_LE at its 16 bits). */
static gdouble *
run_rgb (const gchar * desc, const gchar * format, GstCaps * caps,
    GstBuffer * in, GstBuffer ** out_buf)
{
  gchar *full = g_strdup_printf ("%s ! capsfilter caps=video/x-raw,format=%s",
      desc, format);
  GstHarness *hr = gst_harness_new_parse (full);
  GstBuffer *out;
  GstVideoInfo info;
  GstVideoFrame f;
  GstCaps *oc;
  gdouble *rgb;
  gint x, y, c, w, h;

  gst_harness_set_src_caps (hr, gst_caps_ref (caps));
  out = gst_harness_push_and_pull (hr, gst_buffer_ref (in));
  fail_unless (out != NULL, "no output from %s", full);
  oc = gst_pad_get_current_caps (hr->sinkpad);
  fail_unless (gst_video_info_from_caps (&info, oc));
  w = GST_VIDEO_INFO_WIDTH (&info);
  h = GST_VIDEO_INFO_HEIGHT (&info);
  rgb = g_new (gdouble, (gsize) 3 * w * h);
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (y = 0; y < h; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    for (x = 0; x < w; x++)
      for (c = 0; c < 3; c++) {
        const GstVideoFormatInfo *fi = info.finfo;
        const guint8 *p = row + (gsize) x * GST_VIDEO_FORMAT_INFO_PSTRIDE (fi,
            0) + GST_VIDEO_FORMAT_INFO_POFFSET (fi, c);
        rgb[3 * ((gsize) y * w + x) + c] = GST_VIDEO_FORMAT_INFO_DEPTH (fi,
            c) == 16 ? (p[0] | p[1] << 8) / 65535.0 : p[0] / 255.0;
      }
  }
  gst_video_frame_unmap (&f);
  gst_caps_unref (oc);
  if (out_buf)
    *out_buf = out;
  else
    gst_buffer_unref (out);
  gst_harness_teardown (hr);
  g_free (full);
  return rgb;
}

/* PSNR of @a against 8-bit @ref, the 8-pixel border left out */
static gdouble
psnr (const gdouble * a, const guint8 * ref, gint w, gint h)
{
  gdouble se = 0;
  gint x, y, c, n = 0;

  for (y = 8; y < h - 8; y++)
    for (x = 8; x < w - 8; x++)
      for (c = 0; c < 3; c++, n++) {
        gdouble d = a[3 * ((gsize) y * w + x) + c] -
            ref[3 * ((gsize) y * w + x) + c] / 255.0;
        se += d * d;
      }
  return 10 * log10 (n / se);
}

/* The bilinear demosaic of a mosaic of @rgb (edges repeated), for scale. */
static gdouble
bilinear_psnr (const guint8 * rgb, gint w, gint h, const gchar * pattern)
{
  gdouble *out = g_new (gdouble, (gsize) 3 * w * h), r;
  gint x, y, c, dx, dy;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      for (c = 0; c < 3; c++) {
        gdouble acc = 0, wsum = 0;
        for (dy = -1; dy <= 1; dy++)
          for (dx = -1; dx <= 1; dx++) {
            gint sx = CLAMP (x + dx, 0, w - 1), sy = CLAMP (y + dy, 0, h - 1);
            gdouble k = (dx ? 0.5 : 1) * (dy ? 0.5 : 1);
            if (c == 1 && dx && dy)
              continue;
            if (site_colour (pattern, sx, sy) == c) {
              acc += k * rgb[3 * ((gsize) sy * w + sx) + c];
              wsum += k;
            }
          }
        out[3 * ((gsize) y * w + x) + c] = acc / wsum / 255.0;
      }
  r = psnr (out, rgb, w, h);
  g_free (out);
  return r;
}

/* Every Bayer order and sample size, and GRAY16_LE with bayer-pattern and
 * bit-depth, give the picture back: PSNR within 2 dB of a bilinear
 * demosaic, 8-bit and 16-bit input the same picture. */
GST_START_TEST (test_demosaic)
{
  gint w, h, i;
  guint8 *rgb = load_rgb ("coffee.png", &w, &h);

  for (i = 0; i < (gint) G_N_ELEMENTS (patterns); i++) {
    GstCaps *caps;
    GstBuffer *in = mosaic (rgb, w, h, patterns[i], 1, 0, FALSE, &caps);
    GstCaps *caps16, *caps12;
    GstBuffer *in16 = mosaic (rgb, w, h, patterns[i], 2, 8, FALSE, &caps16);
    GstBuffer *in12 = mosaic (rgb, w, h, patterns[i], 2, 4, TRUE, &caps12);
    gchar *d12 = g_strdup_printf ("cudaaberration backend=cpu "
        "bayer-pattern=%s bit-depth=12", patterns[i]);
    gdouble *a = run_rgb ("cudaaberration backend=cpu", "RGB", caps, in, NULL);
    gdouble *b = run_rgb ("cudaaberration backend=cpu", DEEP, caps16,
        in16, NULL);
    gdouble *c = run_rgb (d12, DEEP, caps12, in12, NULL);
    gdouble pa = psnr (a, rgb, w, h), pb = psnr (b, rgb, w, h);
    gdouble pc = psnr (c, rgb, w, h), bil = bilinear_psnr (rgb, w, h,
        patterns[i]), md = 0;
    gsize k;

    GST_INFO ("%s: 8-bit %.2f dB, 16-bit %.2f dB, 12 bits in GRAY16_LE "
        "%.2f dB; bilinear %.2f dB", patterns[i], pa, pb, pc, bil);
    /* the built-in kernels are bilinear demosaicing, compensated for the
     * windows (co_clt_spectrum_kernel): the same picture */
    fail_unless (fabs (pa - bil) < 0.1 && pa > 28.0, "%s: %.2f dB (bilinear "
        "%.2f)", patterns[i], pa, bil);
    for (k = 0; k < (gsize) 3 * w * h; k++)
      md = MAX (md, fabs (a[k] - b[k]));
    /* the same float planes, rounded to 8 or 16 bits */
    fail_unless (md <= DEEP_ROUNDING + 1e-4, "%s: 8/16-bit differ by %g",
        patterns[i], md);
    /* v << 4 of 4095 is v / 255.94: 0.02% darker, and rounded */
    for (k = 0, md = 0; k < (gsize) 3 * w * h; k++)
      md = MAX (md, fabs (b[k] - c[k]));
    fail_unless (md <= 1.5 / 255, "%s: 16/12-bit differ by %g", patterns[i],
        md);
    g_free (a);
    g_free (b);
    g_free (c);
    g_free (d12);
    gst_buffer_unref (in);
    gst_buffer_unref (in16);
    gst_buffer_unref (in12);
    gst_caps_unref (caps);
    gst_caps_unref (caps16);
    gst_caps_unref (caps12);
  }
  g_free (rgb);
}

GST_END_TEST;

/* A flat field of each colour comes back flat, to the edges and in every
 * order: no ripple from the interpolation, no rim from the borders. */
GST_START_TEST (test_flat)
{
  const gint w = 61, h = 37;
  guint8 *rgb = g_malloc ((gsize) 3 * w * h);
  guint i, k;

  for (k = 0; k < (guint) w * h; k++) {
    rgb[3 * k] = 200;
    rgb[3 * k + 1] = 120;
    rgb[3 * k + 2] = 40;
  }
  for (i = 0; i < G_N_ELEMENTS (patterns); i++) {
    GstCaps *caps;
    GstBuffer *in = mosaic (rgb, w, h, patterns[i], 1, 0, FALSE, &caps);
    gdouble *o = run_rgb ("cudaaberration backend=cpu", "RGB", caps, in, NULL);
    gdouble md = 0;
    gint off = 0;
    for (k = 0; k < 3u * w * h; k++) {
      md = MAX (md, fabs (o[k] - rgb[k] / 255.0));
      off += fabs (o[k] - rgb[k] / 255.0) > 0.1 / 255;
    }
    GST_INFO ("%s: a flat field off by %g at most, %d of %d samples off",
        patterns[i], md * 255, off, 3 * w * h);
    /* exact: 2.3% of the level before the interpolation was compensated
     * (co_clt_spectrum_kernel), 1 level in a border row while tiles read
     * zeros less than a tile past the edge (co_clt_source) */
    fail_unless (off == 0, "%s: a flat field off by %g, %d samples",
        patterns[i], md * 255, off);
    g_free (o);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
  g_free (rgb);
}

GST_END_TEST;

/* Every output format holds the same picture, odd sizes included. */
GST_START_TEST (test_formats)
{
  const gchar *formats[] = { "RGBA", "BGRA", "RGBx", "BGRx", "RGB" };
  const gint sizes[][2] = { {77, 41}, {2, 2}, {16, 3}, {203, 151} };
  GRand *r = g_rand_new_with_seed (7);
  guint s, f;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    gint w = sizes[s][0], h = sizes[s][1];
    guint8 *rgb = g_malloc ((gsize) 3 * w * h);
    GstCaps *caps;
    GstBuffer *in;
    gdouble *ref;
    gsize k;

    for (k = 0; k < (gsize) 3 * w * h; k++)
      rgb[k] = (guint8) g_rand_int (r);
    in = mosaic (rgb, w, h, "grbg", 1, 0, FALSE, &caps);
    ref = run_rgb ("cudaaberration backend=cpu", DEEP, caps, in, NULL);
    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      gdouble *o = run_rgb ("cudaaberration backend=cpu", formats[f], caps, in,
          NULL);
      for (k = 0; k < (gsize) 3 * w * h; k++)
        fail_unless (fabs (o[k] - ref[k]) <= 0.5 / 255 + 1e-4,
            "%s %dx%d: sample %" G_GSIZE_FORMAT " %g against %g",
            formats[f], w, h, k, o[k], ref[k]);
      g_free (o);
    }
    g_free (ref);
    g_free (rgb);
    gst_buffer_unref (in);
    gst_caps_unref (caps);
  }
  g_rand_free (r);
}

GST_END_TEST;

/* A kernel file of @lens on a grid at @stride covering w x h, in @path */
static void
write_kernels (const CoCltLens * lens, gint stride, gint w, gint h,
    const gchar * path)
{
  fail_unless (co_test_write_kernels (lens, stride, w, h, path));
}

/* A picture blurred by a Gaussian that widens towards the corners, then
 * mosaiced, is restored by the Wiener kernels of that blur: a clear gain
 * over demosaicing alone.  lpf-sigma softens it. */
GST_START_TEST (test_deconvolution)
{
  gint w, h, x, y, c, dx, dy, bw;
  guint8 *rgb = load_rgb ("astronaut.png", &w, &h), *blurred;
  gdouble *psfs;
  gchar *path = g_strdup_printf ("%s/co-ab-test-%d.cltk", g_get_tmp_dir (),
      (int) getpid ());
  gchar *desc = g_strdup_printf ("cudaaberration backend=cpu kernels-file=%s",
      path);
  gchar *lpf = g_strdup_printf ("%s lpf-sigma=1.5", desc);
  CoCltLens lens;
  GstCaps *caps;
  GstBuffer *in;
  gdouble *plain, *restored, *soft, pp, pr, ps;

  co_clt_lens_init (&lens, w, h);
  lens.sigma0 = 1.0;
  lens.sigma1 = 1.0;
  lens.nsr = 0.03;
  lens.bayer = 1;
  write_kernels (&lens, 16, w, h, path);
  /* the blur itself, each 4x4 block of pixels by the PSF of its centre
   * (the kernels sample it every 16 pixels) */
  blurred = g_malloc ((gsize) 3 * w * h);
  bw = (w + 3) / 4;
  psfs = g_new (gdouble, (gsize) bw * ((h + 3) / 4) * 225);
  for (y = 0; y < h; y += 4)
    for (x = 0; x < w; x += 4) {
      gdouble ox, oy;
      co_clt_lens_psf (&lens, x + 1.5, y + 1.5, 1, psfs + ((gsize) (y / 4) * bw
              + x / 4) * 225, 15, &ox, &oy);
    }
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      const gdouble *psf = psfs + ((gsize) (y / 4) * bw + x / 4) * 225;
      for (c = 0; c < 3; c++) {
        gdouble acc = 0;
        for (dy = -7; dy <= 7; dy++)
          for (dx = -7; dx <= 7; dx++)
            acc += psf[(dy + 7) * 15 + dx + 7] * rgb[3 * ((gsize) CLAMP (y -
                        dy, 0, h - 1) * w + CLAMP (x - dx, 0, w - 1)) + c];
        blurred[3 * ((gsize) y * w + x) + c] = (guint8) CLAMP (acc + 0.5, 0,
            255);
      }
    }
  g_free (psfs);
  in = mosaic (blurred, w, h, "rggb", 1, 0, FALSE, &caps);
  plain = run_rgb ("cudaaberration backend=cpu", "RGB", caps, in, NULL);
  restored = run_rgb (desc, "RGB", caps, in, NULL);
  soft = run_rgb (lpf, "RGB", caps, in, NULL);
  pp = psnr (plain, rgb, w, h);
  pr = psnr (restored, rgb, w, h);
  ps = psnr (soft, rgb, w, h);
  GST_INFO ("astronaut.png blurred (sigma 1 to 2) and mosaiced: demosaiced "
      "%.2f dB, restored %.2f dB, restored with lpf-sigma=1.5 %.2f dB", pp,
      pr, ps);
  /* 26.40 -> 28.60 dB when written; wider blurs gain less, and from
   * sigma 2.5 the Wiener kernels outgrow what a tile product holds */
  fail_unless (pr > pp + 1.5, "restored %.2f dB, demosaiced %.2f dB", pr, pp);
  fail_unless (ps < pr, "the low-pass did not soften: %.2f dB", ps);
  g_free (plain);
  g_free (restored);
  g_free (soft);
  g_free (blurred);
  g_free (rgb);
  g_unlink (path);
  g_free (path);
  g_free (desc);
  g_free (lpf);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* model=camera with cudalensdistort's numbers undistorts as
 * cudalensdistort does (bilinear, after a plain demosaic); the
 * difference is the tile-wise shift (one offset per 8x8 step). */
GST_START_TEST (test_model)
{
  gint w, h, i;
  guint8 *rgb = load_rgb ("astronaut.png", &w, &h);
  const gchar *cam = "model=camera k1=-0.25 k2=0.05 p1=0.002";
  gchar *ab = g_strdup_printf ("cudaaberration backend=cpu %s", cam);
  gchar *ld = g_strdup_printf ("cudaaberration backend=cpu ! "
      "cudalensdistort backend=cpu %s interpolation=bilinear", cam);
  GstCaps *caps;
  GstBuffer *in = mosaic (rgb, w, h, "bggr", 1, 0, FALSE, &caps);
  gdouble *a = run_rgb (ab, "RGBx", caps, in, NULL);
  gdouble *b = run_rgb (ld, "RGBx", caps, in, NULL);
  gdouble *plain = run_rgb ("cudaaberration backend=cpu", "RGBx", caps, in,
      NULL);
  guint8 *b8 = g_malloc ((gsize) 3 * w * h), *p8 = g_malloc ((gsize) 3 * w * h);
  gdouble agree, moved;

  for (i = 0; i < 3 * w * h; i++) {
    b8[i] = (guint8) (b[i] * 255 + 0.5);
    p8[i] = (guint8) (plain[i] * 255 + 0.5);
  }
  agree = psnr (a, b8, w, h);
  moved = psnr (a, p8, w, h);
  GST_INFO ("model=camera against cudalensdistort %.2f dB (against no "
      "model: %.2f dB)", agree, moved);
  fail_unless (agree > 30.0 && agree > moved + 10.0, "%.2f / %.2f dB",
      agree, moved);
  g_free (a);
  g_free (b);
  g_free (plain);
  g_free (b8);
  g_free (p8);
  g_free (ab);
  g_free (ld);
  g_free (rgb);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* The first error from a w x h RGGB frame pushed through @desc, or NULL */
static GstMessage *
error_of (const gchar * desc, gint w, gint h)
{
  GstHarness *hr = gst_harness_new_parse (desc);
  GstBus *bus = gst_bus_new ();
  guint8 *rgb = g_malloc ((gsize) 3 * w * h);
  GstCaps *caps;
  GstBuffer *in;
  GstMessage *m;
  gint i;

  for (i = 0; i < 3 * w * h; i++)
    rgb[i] = (guint8) (i * 13);
  in = mosaic (rgb, w, h, "rggb", 1, 0, FALSE, &caps);
  gst_element_set_bus (hr->element, bus);
  gst_harness_set_src_caps (hr, caps);
  gst_harness_push (hr, in);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (hr->element, NULL);
  gst_harness_teardown (hr);
  gst_object_unref (bus);
  g_free (rgb);
  return m;
}

/* Missing, truncated or too small kernel files and 1-pixel frames are
 * errors that say what is wrong; a bad file set while PLAYING is a warning
 * and the frames go on with the kernels in use. */
GST_START_TEST (test_bad_input)
{
  gchar *dir = g_dir_make_tmp ("co-ab-XXXXXX", NULL);
  gchar *good = g_build_filename (dir, "good.cltk", NULL);
  gchar *small = g_build_filename (dir, "small.cltk", NULL);
  gchar *cut = g_build_filename (dir, "cut.cltk", NULL);
  gchar *desc, *contents;
  gsize len;
  CoCltLens lens;
  GstHarness *hr;
  GstCaps *caps;
  GstBuffer *in, *out;
  GstBus *bus = gst_bus_new ();
  GstMessage *m;
  guint8 *rgb = g_malloc0 (3 * 64 * 48);
  gint i;

  for (i = 0; i < 3 * 64 * 48; i++)
    rgb[i] = (guint8) (i * 7);
  co_clt_lens_init (&lens, 64, 48);
  lens.bayer = 1;
  write_kernels (&lens, 16, 64, 48, good);
  write_kernels (&lens, 16, 32, 32, small);
  fail_unless (g_file_get_contents (good, &contents, &len, NULL));
  fail_unless (g_file_set_contents (cut, contents, len - 5, NULL));
  g_free (contents);

  desc = g_strdup_printf ("cudaaberration backend=cpu kernels-file=%s/none",
      dir);
  expect_error (error_of (desc, 64, 48), GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ, "none");
  g_free (desc);
  desc = g_strdup_printf ("cudaaberration backend=cpu kernels-file=%s", cut);
  expect_error (error_of (desc, 64, 48), GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ, "cut.cltk");
  g_free (desc);
  desc = g_strdup_printf ("cudaaberration backend=cpu kernels-file=%s", small);
  expect_error (error_of (desc, 64, 48), GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ, "not the 64x48 frame");
  g_free (desc);
  expect_error (error_of ("cudaaberration backend=cpu", 1, 1),
      GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, "2x2");
  fail_unless (error_of ("cudaaberration backend=cpu", 3, 5) == NULL);

  /* while PLAYING: the good file, then the cut one (a warning, the same
   * pictures), then the good one again, read again */
  desc = g_strdup_printf ("cudaaberration name=ab backend=cpu "
      "kernels-file=%s", good);
  hr = gst_harness_new_parse (desc);
  gst_element_set_bus (hr->element, bus);
  in = mosaic (rgb, 64, 48, "rggb", 1, 0, FALSE, &caps);
  gst_harness_set_src_caps (hr, caps);
  out = gst_harness_push_and_pull (hr, gst_buffer_ref (in));
  fail_unless (out != NULL);
  {
    GstElement *e = GST_IS_BIN (hr->element) ?
        gst_bin_get_by_name (GST_BIN (hr->element), "ab") :
        gst_object_ref (hr->element);
    GstBuffer *o2;
    g_object_set (e, "kernels-file", cut, NULL);
    o2 = gst_harness_push_and_pull (hr, gst_buffer_ref (in));
    fail_unless (o2 != NULL);
    m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
    fail_unless (m != NULL, "no warning for a bad file while PLAYING");
    gst_message_unref (m);
    {
      GstMapInfo a, b;
      gst_buffer_map (out, &a, GST_MAP_READ);
      gst_buffer_map (o2, &b, GST_MAP_READ);
      fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0,
          "a bad file changed the pictures");
      gst_buffer_unmap (out, &a);
      gst_buffer_unmap (o2, &b);
    }
    gst_buffer_unref (o2);
    g_object_set (e, "kernels-file", good, NULL);
    o2 = gst_harness_push_and_pull (hr, gst_buffer_ref (in));
    fail_unless (o2 != NULL);
    fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
            GST_MESSAGE_WARNING) == NULL);
    gst_buffer_unref (o2);
    gst_object_unref (e);
  }
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  /* queued messages hold the element, which holds the bus: break that */
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (hr->element, NULL);
  gst_harness_teardown (hr);
  gst_object_unref (bus);
  g_free (desc);

  g_unlink (good);
  g_unlink (small);
  g_unlink (cut);
  g_rmdir (dir);
  g_free (good);
  g_free (small);
  g_free (cut);
  g_free (dir);
  g_free (rgb);
}

GST_END_TEST;

/* A region of interest: only its tiles are worked, the rest is black.  On
 * the 8-pixel tile grid its pixels are the whole frame's to the bit (the
 * same tiles, kernels and shifts); off the grid, within rounding of them. */
GST_START_TEST (test_roi)
{
  const gint rois[][4] = { {64, 40, 200, 120}, {37, 21, 151, 97} };
  gint w, h, i, x, y, c;
  guint8 *rgb = load_rgb ("coffee.png", &w, &h);
  GstCaps *caps;
  GstBuffer *in = mosaic (rgb, w, h, "gbrg", 1, 0, FALSE, &caps);
  const gchar *model = "model=camera k1=-0.15 lpf-sigma=0.5";
  gchar *full_desc = g_strdup_printf ("cudaaberration backend=cpu %s", model);
  gdouble *full = run_rgb (full_desc, "RGB", caps, in, NULL);

  for (i = 0; i < 2; i++) {
    const gint *r = rois[i];
    gchar *desc = g_strdup_printf ("cudaaberration backend=cpu %s roi-x=%d "
        "roi-y=%d roi-width=%d roi-height=%d", model, r[0], r[1], r[2], r[3]);
    gdouble *o = run_rgb (desc, "RGB", caps, in, NULL), md = 0, sum = 0;

    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        for (c = 0; c < 3; c++) {
          gsize k = 3 * ((gsize) y * w + x) + c;
          if (x >= r[0] && x < r[0] + r[2] && y >= r[1] && y < r[1] + r[3]) {
            md = MAX (md, fabs (o[k] - full[k]));
            sum += fabs (o[k] - full[k]);
          } else
            fail_unless (o[k] == 0.0, "%s: (%d, %d) outside is %g", desc, x,
                y, o[k]);
        }
    sum /= 3.0 * r[2] * r[3];
    GST_INFO ("%s: from the whole frame, max %g, mean %g", desc, md, sum);
    if (r[0] % 8 == 0 && r[1] % 8 == 0)
      fail_unless (md == 0.0, "%s: %g from the whole frame", desc, md);
    else                        /* other tiles: the distortion's tile-wise
                                 * shifts sampled at other centres */
      fail_unless (md <= 12.0 / 255 && sum < 0.5 / 255, "%s: max %g, mean "
          "%g from the whole frame", desc, md, sum);
    g_free (o);
    g_free (desc);
  }
  g_free (full);
  g_free (full_desc);
  g_free (rgb);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* Properties set while PLAYING apply from the next frame: the same bytes
 * as a fresh element with those settings. */
GST_START_TEST (test_live_properties)
{
  gint w, h;
  guint8 *rgb = load_rgb ("coffee.png", &w, &h);
  GstCaps *caps;
  GstBuffer *in = mosaic (rgb, w, h, "rggb", 1, 0, FALSE, &caps), *o1, *o2,
      *ref;
  GstHarness *hr = gst_harness_new ("cudaaberration");
  GstMapInfo a, b;

  g_object_set (hr->element, "backend", 2, NULL);
  gst_harness_set_src_caps (hr, gst_caps_ref (caps));
  o1 = gst_harness_push_and_pull (hr, gst_buffer_ref (in));
  g_object_set (hr->element, "lpf-sigma", 1.0, "model", 1, "k1", 0.1, NULL);
  o2 = gst_harness_push_and_pull (hr, gst_buffer_ref (in));
  ref = run_frame ("cudaaberration backend=cpu lpf-sigma=1 model=camera "
      "k1=0.1", caps, in);
  fail_unless (o1 && o2);
  gst_buffer_map (o2, &a, GST_MAP_READ);
  gst_buffer_map (ref, &b, GST_MAP_READ);
  fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0);
  gst_buffer_unmap (ref, &b);
  gst_buffer_map (o1, &b, GST_MAP_READ);
  fail_unless (memcmp (a.data, b.data, a.size) != 0);
  gst_buffer_unmap (o1, &b);
  gst_buffer_unmap (o2, &a);
  gst_buffer_unref (o1);
  gst_buffer_unref (o2);
  gst_buffer_unref (ref);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  gst_harness_teardown (hr);
  g_free (rgb);
}

GST_END_TEST;

/* CUDA gives the CPU's bytes: 8 and 16-bit mosaics of random and natural
 * pictures, each order, each output format, kernels from a file, the
 * camera model and the low-pass. */
GST_START_TEST (test_cuda_equals_cpu)
{
  const gchar *formats[] = { "RGBA", "BGRx", "RGB", DEEP };
  gchar *path = g_strdup_printf ("%s/co-ab-gpu-%d.cltk", g_get_tmp_dir (),
      (int) getpid ());
  gchar *props[5];
  gint w, h, i, f, n = 0;
  guint8 *nat = load_rgb ("coffee.png", &w, &h), *rnd;
  CoCltLens lens;
  GRand *r = g_rand_new_with_seed (3);

  co_clt_lens_init (&lens, w, h);
  lens.sigma0 = 0.7;
  lens.sigma1 = 1.0;
  lens.nsr = 0.02;
  lens.chroma[0] = 1.002;
  lens.chroma[2] = 0.998;
  lens.bayer = 1;
  write_kernels (&lens, 16, w, h, path);
  props[0] = g_strdup ("");
  props[1] = g_strdup_printf ("kernels-file=%s", path);
  props[2] = g_strdup_printf ("kernels-file=%s model=camera k1=-0.2 "
      "lpf-sigma=0.7", path);
  props[3] = g_strdup ("model=fisheye k1=0.1 fx=300");
  props[4] = g_strdup_printf ("kernels-file=%s model=camera k1=-0.2 "
      "roi-x=37 roi-y=22 roi-width=211 roi-height=150", path);
  rnd = g_malloc ((gsize) 3 * w * h);
  for (i = 0; i < 3 * w * h; i++)
    rnd[i] = (guint8) g_rand_int (r);
  for (i = 0; i < 5; i++)
    for (f = 0; f < (gint) G_N_ELEMENTS (formats); f++) {
      const gint bps = 1 + (i + f) % 2;
      GstCaps *caps;
      GstBuffer *in = mosaic ((i + f) % 3 ? nat : rnd, w, h, patterns[(i + f) %
              4], bps, 8, FALSE, &caps), *a, *b;
      gchar *cpu = g_strdup_printf ("cudaaberration backend=cpu %s", props[i]);
      gchar *cuda = g_strdup_printf ("cudaaberration backend=cuda %s",
          props[i]);
      GstMapInfo ma, mb;
      gdouble *da = run_rgb (cpu, formats[f], caps, in, &a);
      gdouble *db = run_rgb (cuda, formats[f], caps, in, &b);

      gst_buffer_map (a, &ma, GST_MAP_READ);
      gst_buffer_map (b, &mb, GST_MAP_READ);
      fail_unless (ma.size == mb.size && memcmp (ma.data, mb.data,
              ma.size) == 0, "%s, %s, %d-bit %s: CUDA differs from the CPU",
          props[i], formats[f], 8 * bps, patterns[(i + f) % 4]);
      gst_buffer_unmap (a, &ma);
      gst_buffer_unmap (b, &mb);
      n++;
      gst_buffer_unref (a);
      gst_buffer_unref (b);
      g_free (da);
      g_free (db);
      g_free (cpu);
      g_free (cuda);
      gst_buffer_unref (in);
      gst_caps_unref (caps);
    }
  GST_INFO ("CUDA equals the CPU in %d cases", n);
  for (i = 0; i < 5; i++)
    g_free (props[i]);
  g_unlink (path);
  g_free (path);
  g_free (nat);
  g_free (rnd);
  g_rand_free (r);
}

GST_END_TEST;

/* A calibration file with model=none is not silently ignored. */
GST_START_TEST (test_calibration_needs_model)
{
  gchar *calib = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"),
      "calib-opencv.yml", NULL);
  gchar *desc = g_strdup_printf ("cudaaberration backend=cpu "
      "calibration-file=\"%s\"", calib);
  GstMessage *m = first_message_after ("video/x-raw, format=GRAY16_LE, "
      "width=64, height=48", desc, GST_MESSAGE_WARNING);
  GError *e = NULL;

  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING, "%s", desc);
  gst_message_parse_warning (m, &e, NULL);
  fail_unless (strstr (e->message, "model=none") != NULL, "%s", e->message);
  g_error_free (e);
  gst_message_unref (m);
  g_free (desc);
  g_free (calib);
}

GST_END_TEST;

/* The CUDA cases apart: check-cudaaberration-cuda (family-check.h) */
static Suite *
cudaaberration_suite (gboolean cuda)
{
  Suite *s = suite_create ("cudaaberration");
  TCase *tc = tcase_create (cuda ? "cuda" : "aberration");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  if (cuda) {
    tcase_add_test (tc, test_cuda_equals_cpu);
    return s;
  }
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_flat);
  tcase_add_test (tc, test_demosaic);
  tcase_add_test (tc, test_deconvolution);
  tcase_add_test (tc, test_model);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_roi);
  tcase_add_test (tc, test_live_properties);
  tcase_add_test (tc, test_calibration_needs_model);
  return s;
}

CO_CHECK_MAIN (cudaaberration);
