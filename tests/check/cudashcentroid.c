/* cudaoptics — LGPL-2.1-or-later
 *
 * cudashcentroid: the results on the buffers equal the reference run
 * directly (kernels/shcentroid_cpu.c), and are close to the true places of
 * synthetic spots (tests/sh-spots.h); the bus messages carry the same;
 * slopes against the lenslet centres, a reference file, a captured
 * reference, in pixels and radians; pupil and mask; the overlay writes the
 * frame and only then; a grid change while PLAYING; bad input is an error.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <math.h>
#include <string.h>
#include "shcentroid_math.h"
#include "gstcodevice.h"
#include "family-check.h"
#include "../sh-spots.h"
#include "../../include/cudaoptics/co-results.h"

#define W 400
#define H 300
/* the CPU backend gives the reference's floats; CUDA is held to 1e-4
 * pixel of them (its moments are summed in another order) */
#define CLOSE(a, b) (fabs ((gdouble) (a) - (gdouble) (b)) <= 1e-4)

/* A GRAY8 or GRAY16_LE frame of spots on a grid of pitch 20 from
 * (0.37, 0.81); the true places into @tx, @ty (nx * ny). */
static GstBuffer *
spots_frame (gint bits, guint64 seed, gdouble shift, gdouble * tx,
    gdouble * ty, gint * nx, gint * ny)
{
  ShSpots s = { 20.0, 0.37 + shift, 0.81, 0, 0, 1.2,
    bits == 8 ? 1500.0 : 5000.0, 10.0, 2.0, 0.15, bits
  };
  gsize pitch = (gsize) W * (bits / 8);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, pitch * H, NULL);
  GstMapInfo map;

  s.nx = (gint) ((W - 0.37) / 20.0);
  s.ny = (gint) ((H - 0.81) / 20.0);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  sh_spots_draw (&s, seed, W, H, map.data, (gint) pitch, tx, ty);
  gst_buffer_unmap (buf, &map);
  *nx = s.nx;
  *ny = s.ny;
  return buf;
}

/* The element inside a harness (gst_harness_new_parse wraps it in a bin);
 * the harness keeps a reference. */
static GstElement *
shc (GstHarness * h)
{
  GstElement *e = gst_harness_find_element (h, "cudashcentroid");

  gst_object_unref (e);
  return e;
}

static GstCaps *
gray_caps (gint bits, gint w, gint h)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      bits == 16 ? "GRAY16_LE" : "GRAY8", "width", G_TYPE_INT, w, "height",
      G_TYPE_INT, h, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

/* The floats of an array field. */
static const gfloat *
field_floats (const GstStructure * s, const gchar * name, gint n)
{
  const GValue *v = gst_structure_get_value (s, name);
  GBytes *b;
  gsize size = 0;
  const gfloat *f;

  fail_unless (v != NULL && G_VALUE_HOLDS (v, G_TYPE_BYTES), "no %s", name);
  b = g_value_get_boxed (v);
  f = g_bytes_get_data (b, &size);
  fail_unless_equals_int ((gint) size, n * (gint) sizeof (gfloat));
  return f;
}

static const guint8 *
field_flags (const GstStructure * s, gint n)
{
  GBytes *b = g_value_get_boxed (gst_structure_get_value (s, "flags"));
  gsize size = 0;
  const guint8 *f = g_bytes_get_data (b, &size);

  fail_unless_equals_int ((gint) size, n);
  return f;
}

/* The reference itself on @in (an nx x ny grid of pitch 20 from
 * (0.37, 0.81), every lenslet measured, tcog's and brightest's defaults):
 * its centroids into @r (nx * ny each). */
static void
reference_on (GstBuffer * in, gint bits, gint nx, gint ny, CoShMethod method,
    const gfloat * weight, CoShResult * r)
{
  gint32 bx[64], by[64];
  guint8 measure[400];
  CoShGrid g;
  CoFrame f;
  GstMapInfo map;
  gint i;

  memset (&g, 0, sizeof g);
  for (i = 0; i <= nx; i++)
    bx[i] = co_sh_boundary (0.37, 20.0, i, W);
  for (i = 0; i <= ny; i++)
    by[i] = co_sh_boundary (0.81, 20.0, i, H);
  memset (measure, 1, sizeof measure);
  g.nx = nx;
  g.ny = ny;
  g.bx = bx;
  g.by = by;
  g.measure = measure;
  g.method = method;
  g.threshold = 0.2f;
  g.threshold_fraction = 1;
  g.brightest = 9;
  g.weight = weight;
  gst_buffer_map (in, &map, GST_MAP_READ);
  memset (&f, 0, sizeof f);
  f.data[0] = map.data;
  f.pitch[0] = W * (bits / 8);
  f.width = W;
  f.height = H;
  f.format = bits == 16 ? CO_FORMAT_GRAY16_LE : CO_FORMAT_GRAY8;
  fail_unless (co_sh_reference (&g, &f, r) == 0);
  gst_buffer_unmap (in, &map);
}

/* The element's results for one frame equal the reference's on the same
 * pixels, and the truth within the method's bound. */
static void
check_results (gint bits, const gchar * props, CoShMethod method,
    gdouble bound)
{
  gdouble tx[400], ty[400];
  gint nx, ny, n, k, valid = 0, lx = 0, ly = 0;
  GstBuffer *in = spots_frame (bits, 3, 0.0, tx, ty, &nx, &ny), *out;
  gchar *desc = g_strdup_printf ("cudashcentroid pitch=20 origin-x=0.37 "
      "origin-y=0.81 %s", props);
  GstHarness *h = gst_harness_new_parse (desc);
  const GstStructure *s;
  const gfloat *cx, *cy, *m00, *sx, *sy;
  const guint8 *flags;
  gfloat rx[400], ry[400], rm[400];
  guint8 rf[400];
  CoShResult r = { rx, ry, rm, rf, NULL, NULL };
  gdouble e2 = 0.0;

  gst_harness_set_src_caps (h, gray_caps (bits, W, H));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  s = gst_co_buffer_get_results (out, "GstCoShCentroids");
  fail_unless (s != NULL, "no GstCoShCentroids on the buffer");
  fail_unless (gst_structure_get_int (s, "lenslets-x", &lx) &&
      gst_structure_get_int (s, "lenslets-y", &ly));
  fail_unless_equals_int (lx, nx);
  fail_unless_equals_int (ly, ny);
  n = nx * ny;
  cx = field_floats (s, "centroid-x", n);
  cy = field_floats (s, "centroid-y", n);
  m00 = field_floats (s, "intensity", n);
  sx = field_floats (s, "slope-x", n);
  sy = field_floats (s, "slope-y", n);
  flags = field_flags (s, n);
  reference_on (in, bits, nx, ny, method, NULL, &r);
  for (k = 0; k < n; k++) {
    fail_unless_equals_int (flags[k], CO_SH_VALID);
    /* against the lenslet centres, from the element's own centroids: the
     * same floats on either backend */
    fail_unless (sx[k] == (gfloat) ((gdouble) cx[k] - (0.37 + (k % nx + 0.5)
                * 20.0)) && sy[k] == (gfloat) ((gdouble) cy[k] - (0.81 +
                (k / nx + 0.5) * 20.0)), "lenslet %d: slopes %g,%g", k, sx[k],
        sy[k]);
    fail_unless (CLOSE (cx[k], rx[k]) && CLOSE (cy[k], ry[k]) &&
        fabsf (m00[k] - rm[k]) <= 1e-5f * rm[k],
        "lenslet %d: %g,%g against the reference's %g,%g", k, cx[k], cy[k],
        rx[k], ry[k]);
    e2 += (cx[k] - tx[k]) * (cx[k] - tx[k]) + (cy[k] - ty[k]) * (cy[k] -
        ty[k]);
    valid++;
  }
  GST_INFO ("%d-bit %s: RMS error %.4f pixels over %d lenslets", bits, props,
      sqrt (e2 / n), valid);
  fail_unless (sqrt (e2 / n) < bound, "%d-bit %s: RMS error %g >= %g", bits,
      props, sqrt (e2 / n), bound);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  g_free (desc);
}

/* @in through "cudashcentroid pitch=20 ... overlay=true @props". */
static GstBuffer *
overlay_frame (gint bits, const gchar * props, GstBuffer * in)
{
  gchar *desc = g_strdup_printf ("cudashcentroid pitch=20 origin-x=0.37 "
      "origin-y=0.81 overlay=true %s", props);
  GstHarness *h = gst_harness_new_parse (desc);
  GstBuffer *out;

  gst_harness_set_src_caps (h, gray_caps (bits, W, H));
  out = gst_harness_push_and_pull (h, gst_buffer_copy_deep (in));
  fail_unless (out != NULL);
  gst_harness_teardown (h);
  g_free (desc);
  return out;
}

static gint
differing_pixels (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gsize i;
  gint n = 0;

  gst_buffer_map (a, &ma, GST_MAP_READ);
  gst_buffer_map (b, &mb, GST_MAP_READ);
  fail_unless_equals_int ((gint) ma.size, (gint) mb.size);
  for (i = 0; i < ma.size; i++)
    n += ma.data[i] != mb.data[i];
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return n;
}

GST_START_TEST (test_results)
{
  guint bits;

  for (bits = 8; bits <= 16; bits += 8) {
    /* the plain CoG is pulled towards the lenslet centres by the
     * background (10 counts a pixel against 1500-5000 photons a spot) */
    check_results (bits, "backend=cpu", CO_SH_COG, 3.0);
    check_results (bits, "backend=cpu method=tcog", CO_SH_TCOG, 0.1);
    check_results (bits, "backend=cpu method=brightest", CO_SH_BRIGHTEST,
        0.2);
  }
}

GST_END_TEST;

/* The CUDA backend: the same checks, and the same overlay as the CPU's
 * wherever the centroids round to the same pixels. */
GST_START_TEST (test_cuda)
{
  guint bits;

  for (bits = 8; bits <= 16; bits += 8) {
    gdouble tx[400], ty[400];
    gint nx, ny, md = 0;
    GstBuffer *in = spots_frame (bits, 9, 0.0, tx, ty, &nx, &ny);
    GstBuffer *a, *b;

    check_results (bits, "backend=cuda", CO_SH_COG, 3.0);
    check_results (bits, "backend=cuda method=tcog", CO_SH_TCOG, 0.1);
    check_results (bits, "backend=cuda method=brightest", CO_SH_BRIGHTEST,
        0.2);
    a = overlay_frame (bits, "backend=cpu", in);
    b = overlay_frame (bits, "backend=cuda", in);
    md = differing_pixels (a, b);
    GST_INFO ("%d-bit overlay: %d pixels differ between CPU and CUDA", bits,
        md);
    /* a centroid within 1e-4 of a pixel edge may move its four ticks */
    fail_unless (md <= 16, "%d-bit overlay: %d pixels differ", bits, md);
    gst_buffer_unref (a);
    gst_buffer_unref (b);
    gst_buffer_unref (in);
  }
}

GST_END_TEST;

/* Frames pass through as they came (no overlay): the same bytes, the same
 * buffer memory. */
GST_START_TEST (test_passthrough)
{
  gdouble tx[400], ty[400];
  gint nx, ny;
  GstBuffer *in = spots_frame (8, 5, 0.0, tx, ty, &nx, &ny), *out;
  GstHarness *h = gst_harness_new_parse ("cudashcentroid pitch=20");
  GstMapInfo a, b;

  gst_harness_set_src_caps (h, gray_caps (8, W, H));
  out = gst_harness_push_and_pull (h, gst_buffer_copy_deep (in));
  gst_buffer_map (in, &a, GST_MAP_READ);
  gst_buffer_map (out, &b, GST_MAP_READ);
  fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0);
  gst_buffer_unmap (in, &a);
  gst_buffer_unmap (out, &b);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The overlay draws the grid and the centroids: the output differs. */
GST_START_TEST (test_overlay)
{
  gdouble tx[400], ty[400];
  gint nx, ny;
  GstBuffer *in = spots_frame (8, 5, 0.0, tx, ty, &nx, &ny), *out;
  GstHarness *h = gst_harness_new_parse ("cudashcentroid pitch=20 "
      "origin-x=0.37 origin-y=0.81 overlay=true");
  GstMapInfo a, b;
  gint x0 = co_sh_boundary (0.37, 20.0, 1, W), y;
  gboolean line = TRUE;

  gst_harness_set_src_caps (h, gray_caps (8, W, H));
  out = gst_harness_push_and_pull (h, gst_buffer_copy_deep (in));
  gst_buffer_map (in, &a, GST_MAP_READ);
  gst_buffer_map (out, &b, GST_MAP_READ);
  fail_unless (memcmp (a.data, b.data, a.size) != 0);
  /* the second lenslet column's left border at half the largest value */
  for (y = 20; y < 260; y++)
    line &= b.data[y * W + x0] == 127;
  fail_unless (line);
  gst_buffer_unmap (in, &a);
  gst_buffer_unmap (out, &b);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* message-interval=2: two of four frames post the results, as the buffers
 * carry them; 0: none. */
GST_START_TEST (test_messages)
{
  guint interval;

  for (interval = 0; interval <= 2; interval += 2) {
    gdouble tx[400], ty[400];
    gint nx, ny, i, seen = 0;
    gchar *desc = g_strdup_printf ("cudashcentroid pitch=20 "
        "message-interval=%u", interval);
    GstHarness *h = gst_harness_new_parse (desc);
    GstBus *bus = gst_bus_new ();
    GstMessage *m;

    gst_element_set_bus (h->element, bus);
    gst_harness_set_src_caps (h, gray_caps (8, W, H));
    for (i = 0; i < 4; i++) {
      GstBuffer *out = gst_harness_push_and_pull (h, spots_frame (8, 9 + i,
              0.0, tx, ty, &nx, &ny));
      const GstStructure *r = gst_co_buffer_get_results (out,
          "GstCoShCentroids");
      gint lx = 0, ly = 0;

      fail_unless (r != NULL);
      fail_unless (gst_structure_get_int (r, "lenslets-x", &lx) &&
          gst_structure_get_int (r, "lenslets-y", &ly));
      while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
        const GstStructure *ms = gst_message_get_structure (m);
        guint64 frame = 99;
        if (gst_structure_has_name (ms, "GstCoShCentroids")) {
          fail_unless (gst_structure_get_uint64 (ms, "frame", &frame));
          fail_unless_equals_int ((gint) frame, i);
          /* the same arrays as the buffer's */
          fail_unless (memcmp (field_floats (ms, "centroid-x", lx * ly),
                  field_floats (r, "centroid-x", lx * ly),
                  sizeof (gfloat) * lx * ly) == 0);
          seen++;
        }
        gst_message_unref (m);
      }
      gst_buffer_unref (out);
    }
    fail_unless_equals_int (seen, interval ? 4 / interval : 0);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
    g_free (desc);
  }
}

GST_END_TEST;

/* Slopes: against the lenslet centres by default; after capture-reference
 * over two frames, a frame whose spots all moved by 0.5 pixel gives slopes
 * of 0.5 pixel, or 0.5 x 5.5 um / 4 mm in radians. */
GST_START_TEST (test_slopes)
{
  gdouble tx[400], ty[400];
  gint nx, ny, k, n, i;
  GstHarness *h = gst_harness_new_parse ("cudashcentroid pitch=20 "
      "origin-x=0.37 origin-y=0.81 method=tcog reference-frames=2");
  GstBus *bus = gst_bus_new ();
  GstBuffer *out;
  const GstStructure *s;
  const gfloat *sx, *sy;
  const gchar *units;
  GstMessage *m;
  gdouble mean = 0.0, worst = 0.0;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, gray_caps (16, W, H));
  /* the centres: slopes are the spots' offsets, up to 15% of the pitch */
  out = gst_harness_push_and_pull (h, spots_frame (16, 21, 0.0, tx, ty, &nx,
          &ny));
  n = nx * ny;
  s = gst_co_buffer_get_results (out, "GstCoShCentroids");
  sx = field_floats (s, "slope-x", n);
  for (k = 0; k < n; k++)
    fail_unless (fabs (sx[k] - (tx[k] - (0.37 + (k % nx + 0.5) * 20.0))) <
        0.3);
  gst_buffer_unref (out);
  /* capture over the same frame twice (the same spots) */
  g_signal_emit_by_name (shc (h), "capture-reference");
  for (i = 0; i < 2; i++)
    gst_buffer_unref (gst_harness_push_and_pull (h, spots_frame (16, 21, 0.0,
                tx, ty, &nx, &ny)));
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    if (gst_structure_has_name (gst_message_get_structure (m),
            "cudashcentroid-reference"))
      mean = 1.0;
    gst_message_unref (m);
  }
  fail_unless (mean == 1.0, "no cudashcentroid-reference message");
  /* the same spots 0.5 pixel to the right (the same draws: same seed) */
  g_object_set (shc (h), "pixel-size", 5.5, "lenslet-focal-length", 4.0,
      NULL);
  out = gst_harness_push_and_pull (h, spots_frame (16, 21, 0.5, tx, ty, &nx,
          &ny));
  s = gst_co_buffer_get_results (out, "GstCoShCentroids");
  units = gst_structure_get_string (s, "slope-units");
  fail_unless_equals_string (units, "radians");
  fail_unless_equals_string (gst_structure_get_string (s, "reference"),
      "captured");
  sx = field_floats (s, "slope-x", n);
  sy = field_floats (s, "slope-y", n);
  mean = 0.0;
  for (k = 0; k < n; k++) {
    mean += sx[k];
    worst = MAX (worst, fabs (sy[k]));
  }
  mean /= n;
  GST_INFO ("mean slope-x %g rad for 0.5 pixel (%g expected), worst |y| %g",
      mean, 0.5 * 5.5e-3 / 4.0, worst);
  fail_unless (fabs (mean - 0.5 * 5.5e-3 / 4.0) < 0.02 * 5.5e-3 / 4.0);
  fail_unless (worst < 0.2 * 5.5e-3 / 4.0);
  gst_buffer_unref (out);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The first "cudashcentroid-reference" message on @bus, or NULL; every
 * message is taken, the warnings counted in *warnings */
static GstStructure *
reference_message (GstBus * bus, gint * warnings)
{
  GstStructure *ret = NULL;
  GstMessage *m;

  *warnings = 0;
  while ((m = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING)
      (*warnings)++;
    else if (!ret && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT &&
        gst_structure_has_name (gst_message_get_structure (m),
            "cudashcentroid-reference"))
      ret = gst_structure_copy (gst_message_get_structure (m));
    gst_message_unref (m);
  }
  return ret;
}

/* A captured reference survives a rebuild that leaves the lenslets where
 * they are (another threshold or method); a new grid ends it with a
 * warning.  A capture that a new grid interrupts still posts its message,
 * saying so. */
GST_START_TEST (test_capture_survives)
{
  gdouble tx[400], ty[400];
  gint nx, ny, i;
  GstHarness *h = gst_harness_new_parse ("cudashcentroid pitch=20 "
      "origin-x=0.37 origin-y=0.81 method=tcog reference-frames=2");
  GstBus *bus = gst_bus_new ();
  GstStructure *ref;
  GstBuffer *out;
  gint warnings = 0;
  gboolean interrupted = FALSE;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, gray_caps (16, W, H));
  gst_buffer_unref (gst_harness_push_and_pull (h, spots_frame (16, 21, 0.0,
              tx, ty, &nx, &ny)));
  g_signal_emit_by_name (shc (h), "capture-reference");
  for (i = 0; i < 2; i++) {
    /* every capture frame, the last too, was measured from the centres */
    out = gst_harness_push_and_pull (h, spots_frame (16, 21, 0.0, tx, ty, &nx,
            &ny));
    fail_unless_equals_string (gst_structure_get_string
        (gst_co_buffer_get_results (out, "GstCoShCentroids"), "reference"),
        "centres");
    gst_buffer_unref (out);
  }
  ref = reference_message (bus, &warnings);
  fail_unless (ref != NULL);
  gst_structure_free (ref);
  /* the method's settings: the lenslets stay, so does the reference */
  g_object_set (shc (h), "threshold", 0.3, NULL);
  gst_util_set_object_arg (G_OBJECT (shc (h)), "method", "cog");
  out = gst_harness_push_and_pull (h, spots_frame (16, 21, 0.0, tx, ty, &nx,
          &ny));
  fail_unless_equals_string (gst_structure_get_string
      (gst_co_buffer_get_results (out, "GstCoShCentroids"), "reference"),
      "captured");
  gst_buffer_unref (out);
  fail_unless (reference_message (bus, &warnings) == NULL && !warnings);

  /* a capture under way when the grid moves: its message, interrupted */
  g_signal_emit_by_name (shc (h), "capture-reference");
  gst_buffer_unref (gst_harness_push_and_pull (h, spots_frame (16, 21, 0.0,
              tx, ty, &nx, &ny)));
  g_object_set (shc (h), "origin-x", 1.37, NULL);
  out = gst_harness_push_and_pull (h, spots_frame (16, 21, 0.0, tx, ty, &nx,
          &ny));
  fail_unless_equals_string (gst_structure_get_string
      (gst_co_buffer_get_results (out, "GstCoShCentroids"), "reference"),
      "centres");
  gst_buffer_unref (out);
  ref = reference_message (bus, &warnings);
  fail_unless (ref != NULL, "no message for the interrupted capture");
  fail_unless (gst_structure_get_boolean (ref, "interrupted", &interrupted)
      && interrupted);
  gst_structure_free (ref);
  /* the interruption, and the captured reference the new grid drops */
  fail_unless_equals_int (warnings, 2);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A reference file of the true places: slopes near zero.  One line short:
 * an error naming the counts. */
GST_START_TEST (test_reference_file)
{
  gdouble tx[400], ty[400];
  gint nx, ny, k, n;
  GstBuffer *in = spots_frame (16, 31, 0.0, tx, ty, &nx, &ny), *out;
  gchar *path = NULL, *desc;
  GString *text = g_string_new ("# x y, lenslet rows one after another\n");
  gint fd = g_file_open_tmp ("shref-XXXXXX.txt", &path, NULL);
  GstHarness *h;
  const GstStructure *s;
  const gfloat *sx;
  gdouble worst = 0.0;

  n = nx * ny;
  for (k = 0; k < n; k++)
    g_string_append_printf (text, "%.6f %.6f\n", tx[k], ty[k]);
  fail_unless (fd >= 0 && g_file_set_contents (path, text->str, -1, NULL));
  g_close (fd, NULL);
  desc = g_strdup_printf ("cudashcentroid pitch=20 origin-x=0.37 "
      "origin-y=0.81 method=tcog reference-file=%s", path);
  h = gst_harness_new_parse (desc);
  gst_harness_set_src_caps (h, gray_caps (16, W, H));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  s = gst_co_buffer_get_results (out, "GstCoShCentroids");
  sx = field_floats (s, "slope-x", n);
  for (k = 0; k < n; k++)
    worst = MAX (worst, fabs (sx[k]));
  fail_unless (worst < 0.2, "worst slope %g against the true places", worst);
  fail_unless_equals_string (gst_structure_get_string (s, "slope-units"),
      "pixels");
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (desc);

  /* one lenslet short */
  {
    gchar *cut = strrchr (text->str, '\n');
    *cut = '\0';
    cut = strrchr (text->str, '\n');
    cut[1] = '\0';
  }
  fail_unless (g_file_set_contents (path, text->str, -1, NULL));
  desc = g_strdup_printf ("appsrc name=src caps=\"video/x-raw,format=GRAY16_LE,"
      "width=%d,height=%d,framerate=30/1\" ! cudashcentroid pitch=20 "
      "origin-x=0.37 origin-y=0.81 reference-file=%s ! fakesink", W, H, path);
  {
    GstElement *p = gst_parse_launch (desc, NULL);
    GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
    GstBus *bus = gst_element_get_bus (p);
    GstMessage *m;
    GError *e = NULL;

    GstFlowReturn fr;

    gst_element_set_state (p, GST_STATE_PLAYING);
    g_signal_emit_by_name (src, "push-buffer", in, &fr);
    m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
    fail_unless (m != NULL, "a short reference file is not an error");
    gst_message_parse_error (m, &e, NULL);
    fail_unless (strstr (e->message, "reference centroids") != NULL);
    g_error_free (e);
    gst_message_unref (m);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (src);
    gst_object_unref (p);
  }
  g_unlink (path);
  g_free (path);
  g_free (desc);
  g_string_free (text, TRUE);
  gst_buffer_unref (in);
}

GST_END_TEST;

/* A 10-lenslet pupil with a 4-lenslet obstruction: the lenslets outside or
 * inside are flagged and have slope 0; the rest are measured. */
GST_START_TEST (test_pupil)
{
  gdouble tx[400], ty[400];
  gint nx, ny, k, i, j, in = 0, out_ = 0;
  GstHarness *h = gst_harness_new_parse ("cudashcentroid pitch=20 "
      "origin-x=0.37 origin-y=0.81 pupil-diameter=10 central-obstruction=4");
  GstBuffer *out;
  const GstStructure *s;
  const guint8 *flags;
  const gfloat *sx;
  gint valid = 0;

  gst_harness_set_src_caps (h, gray_caps (8, W, H));
  out = gst_harness_push_and_pull (h, spots_frame (8, 41, 0.0, tx, ty, &nx,
          &ny));
  s = gst_co_buffer_get_results (out, "GstCoShCentroids");
  flags = field_flags (s, nx * ny);
  sx = field_floats (s, "slope-x", nx * ny);
  fail_unless (gst_structure_get_int (s, "valid", &valid));
  for (j = 0; j < ny; j++)
    for (i = 0; i < nx; i++) {
      k = j * nx + i;
      if (co_sh_in_pupil (i, j, nx, ny, 10.0, 4.0)) {
        fail_unless_equals_int (flags[k], CO_SH_VALID);
        in++;
      } else {
        fail_unless_equals_int (flags[k], CO_SH_OUT_OF_PUPIL);
        fail_unless (sx[k] == 0.0f);
        out_++;
      }
    }
  fail_unless (in > 20 && out_ > 0);
  fail_unless_equals_int (valid, in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void expect_error_saying (const gchar * caps, const gchar * props,
    const gchar * words);

/* A mask picture, one pixel per lenslet (tests/data/sh-mask-19x14.png,
 * written by pngenc: white but lenslets (3, 2) and the last): its zeros
 * are skipped and flagged, the rest measured; a mask of another size than
 * the grid is an error. */
GST_START_TEST (test_mask)
{
  gdouble tx[400], ty[400];
  gint nx, ny, k;
  GstBuffer *in = spots_frame (8, 61, 0.0, tx, ty, &nx, &ny), *out;
  gchar *path = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"),
      "sh-mask-19x14.png", NULL), *desc;
  GstHarness *h;
  const guint8 *flags;

  fail_unless (nx == 19 && ny == 14);
  desc = g_strdup_printf ("cudashcentroid pitch=20 origin-x=0.37 "
      "origin-y=0.81 mask-file=%s", path);
  h = gst_harness_new_parse (desc);
  gst_harness_set_src_caps (h, gray_caps (8, W, H));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  flags = field_flags (gst_co_buffer_get_results (out, "GstCoShCentroids"),
      nx * ny);
  for (k = 0; k < nx * ny; k++)
    fail_unless_equals_int (flags[k], k == 2 * nx + 3 || k == nx * ny - 1 ?
        CO_SH_OUT_OF_PUPIL : CO_SH_VALID);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (desc);
  /* the grid of a smaller pitch has more lenslets than the mask pixels */
  desc = g_strdup_printf ("pitch=10 mask-file=%s", path);
  expect_error_saying ("video/x-raw,format=GRAY8,width=400,height=300", desc,
      "needs one pixel per lenslet");
  g_free (desc);
  g_free (path);
  gst_buffer_unref (in);
}

GST_END_TEST;

/* lut-file: the weights of a file (here v above 60 as itself, 0 below)
 * give the reference's centroids with that table; a table of the wrong
 * length, or with a negative weight, is an error. */
GST_START_TEST (test_lut_file)
{
  gdouble tx[400], ty[400];
  gint nx, ny, i, k;
  GstBuffer *in = spots_frame (8, 71, 0.0, tx, ty, &nx, &ny), *out;
  gchar *path = NULL, *desc;
  gint fd = g_file_open_tmp ("shlut-XXXXXX.f32", &path, NULL);
  gfloat lut[256], rx[400], ry[400], rm[400];
  guint8 rf[400];
  CoShResult r = { rx, ry, rm, rf, NULL, NULL };
  GstHarness *h;
  const gfloat *cx;

  for (i = 0; i < 256; i++)
    lut[i] = i > 60 ? (gfloat) i : 0.0f;  /* little-endian hosts only */
  fail_unless (fd >= 0 && g_file_set_contents (path, (const gchar *) lut,
          sizeof lut, NULL));
  g_close (fd, NULL);
  desc = g_strdup_printf ("cudashcentroid pitch=20 origin-x=0.37 "
      "origin-y=0.81 lut-file=%s", path);
  h = gst_harness_new_parse (desc);
  gst_harness_set_src_caps (h, gray_caps (8, W, H));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  cx = field_floats (gst_co_buffer_get_results (out, "GstCoShCentroids"),
      "centroid-x", nx * ny);
  reference_on (in, 8, nx, ny, CO_SH_COG, lut, &r);
  for (k = 0; k < nx * ny; k++)
    fail_unless (CLOSE (cx[k], rx[k]), "lenslet %d: %g against %g", k, cx[k],
        rx[k]);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (desc);

  /* GRAY16 frames need 65536 weights */
  desc = g_strdup_printf ("lut-file=%s", path);
  expect_error_saying ("video/x-raw,format=GRAY16_LE,width=100,height=80",
      desc, "the weight table");
  g_free (desc);
  lut[7] = -1.0f;
  fail_unless (g_file_set_contents (path, (const gchar *) lut, sizeof lut,
          NULL));
  desc = g_strdup_printf ("lut-file=%s", path);
  expect_error_saying ("video/x-raw,format=GRAY8,width=100,height=80", desc,
      "the weight table");
  g_free (desc);
  g_unlink (path);
  g_free (path);
  gst_buffer_unref (in);
}

GST_END_TEST;

/* A dark frame: every lenslet flagged "no light", no NaN; a white one:
 * every centroid at its lenslet's pixel centre. */
GST_START_TEST (test_dark_and_white)
{
  GstHarness *h = gst_harness_new_parse ("cudashcentroid pitch=20");
  GstBuffer *buf = gst_buffer_new_allocate (NULL, W * H, NULL), *out;
  const GstStructure *s;
  const guint8 *flags;
  const gfloat *cx;
  gint k, n = 20 * 15, valid = -1;

  gst_harness_set_src_caps (h, gray_caps (8, W, H));
  gst_buffer_memset (buf, 0, 0, W * H);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (buf));
  s = gst_co_buffer_get_results (out, "GstCoShCentroids");
  flags = field_flags (s, n);
  cx = field_floats (s, "centroid-x", n);
  fail_unless (gst_structure_get_int (s, "valid", &valid));
  fail_unless_equals_int (valid, 0);
  for (k = 0; k < n; k++)
    fail_unless (flags[k] == CO_SH_NO_LIGHT && cx[k] == 0.0f);
  gst_buffer_unref (out);
  gst_buffer_memset (buf, 0, 255, W * H);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (buf));
  s = gst_co_buffer_get_results (out, "GstCoShCentroids");
  cx = field_floats (s, "centroid-x", n);
  for (k = 0; k < n; k++)
    fail_unless (cx[k] == (gfloat) ((k % 20) * 20 + 10));
  gst_buffer_unref (out);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The grid follows the properties while PLAYING: pitch 20 then 25. */
GST_START_TEST (test_grid_while_playing)
{
  gdouble tx[400], ty[400];
  gint nx, ny, lx = 0;
  GstHarness *h = gst_harness_new_parse ("cudashcentroid pitch=20");
  GstBuffer *out;

  gst_harness_set_src_caps (h, gray_caps (8, W, H));
  out = gst_harness_push_and_pull (h, spots_frame (8, 51, 0.0, tx, ty, &nx,
          &ny));
  fail_unless (gst_structure_get_int (gst_co_buffer_get_results (out,
              "GstCoShCentroids"), "lenslets-x", &lx));
  fail_unless_equals_int (lx, 20);
  gst_buffer_unref (out);
  g_object_set (shc (h), "pitch", 25.0, NULL);
  out = gst_harness_push_and_pull (h, spots_frame (8, 52, 0.0, tx, ty, &nx,
          &ny));
  fail_unless (gst_structure_get_int (gst_co_buffer_get_results (out,
              "GstCoShCentroids"), "lenslets-x", &lx));
  fail_unless_equals_int (lx, 16);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The first error of "videotestsrc ! @caps ! cudashcentroid @props !
 * fakesink" says @words. */
static void
expect_error_saying (const gchar * caps, const gchar * props,
    const gchar * words)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=2 ! %s ! "
      "cudashcentroid %s ! fakesink", caps, props);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m;
  GError *e = NULL;

  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR |
      GST_MESSAGE_EOS);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR,
      "%s: no error (expected \"%s\")", desc, words);
  gst_message_parse_error (m, &e, NULL);
  fail_unless (strstr (e->message, words) != NULL, "%s: \"%s\" does not say "
      "\"%s\"", desc, e->message, words);
  g_error_free (e);
  gst_message_unref (m);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
}

GST_START_TEST (test_bad_input)
{
  const gchar *gray = "video/x-raw,format=GRAY8,width=100,height=80";

  expect_error_saying (gray, "pitch=500", "No lenslet of pitch 500");
  expect_error_saying ("video/x-raw,format=GRAY8,width=1,height=1", "pitch=3",
      "No lenslet");
  expect_error_saying (gray, "mask-file=/nonexistent/mask.png",
      "Could not read the lenslet mask");
  expect_error_saying (gray, "reference-file=/nonexistent/ref.txt",
      "Could not read the reference centroids");
  /* a margin that leaves no pixel: said, not silently "no light" */
  {
    gchar *launch = g_strdup_printf ("videotestsrc num-buffers=1 ! %s ! "
        "cudashcentroid backend=cpu pitch=8 window-margin=4 ! fakesink",
        gray);
    GstElement *p = gst_parse_launch (launch, NULL);
    GstBus *bus = gst_element_get_bus (p);
    GstMessage *m;
    GError *e = NULL;
    gst_element_set_state (p, GST_STATE_PLAYING);
    m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
        GST_MESSAGE_WARNING | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING, "%s",
        launch);
    gst_message_parse_warning (m, &e, NULL);
    fail_unless (strstr (e->message, "window-margin") != NULL, "%s",
        e->message);
    g_error_free (e);
    gst_message_unref (m);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (p);
    g_free (launch);
  }
  /* absurd but finite: every slope would be inf */
  {
    gchar *path = NULL, *spec;
    gint fd = g_file_open_tmp ("shref-XXXXXX.txt", &path, NULL), i;
    GString *text = g_string_new (NULL);
    fail_unless (fd >= 0);
    close (fd);
    /* 5 x 4 lenslets of pitch 20 on 100x80 */
    for (i = 0; i < 20; i++)
      g_string_append (text, i == 7 ? "1e300 3\n" : "10 10\n");
    fail_unless (g_file_set_contents (path, text->str, -1, NULL));
    spec = g_strdup_printf ("pitch=20 reference-file=%s", path);
    expect_error_saying (gray, spec, "no pixel position");
    g_unlink (path);
    g_free (spec);
    g_free (path);
    g_string_free (text, TRUE);
  }
}

GST_END_TEST;

/* The CUDA cases apart: check-cudashcentroid-cuda (family-check.h) */
static Suite *
cudashcentroid_suite (gboolean cuda)
{
  Suite *s = suite_create ("cudashcentroid");
  TCase *tc = tcase_create (cuda ? "cuda" : "general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  if (cuda) {
    tcase_add_test (tc, test_cuda);
    return s;
  }
  tcase_add_test (tc, test_results);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_overlay);
  tcase_add_test (tc, test_messages);
  tcase_add_test (tc, test_slopes);
  tcase_add_test (tc, test_capture_survives);
  tcase_add_test (tc, test_reference_file);
  tcase_add_test (tc, test_pupil);
  tcase_add_test (tc, test_mask);
  tcase_add_test (tc, test_lut_file);
  tcase_add_test (tc, test_dark_and_white);
  tcase_add_test (tc, test_grid_while_playing);
  tcase_add_test (tc, test_bad_input);
  return s;
}

CO_CHECK_MAIN (cudashcentroid);
