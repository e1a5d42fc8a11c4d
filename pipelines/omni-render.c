/* cudaoptics — LGPL-2.1-or-later
 *
 * Renders what the pinhole camera of kernels/omni_mirror.h sees in its
 * spherical mirror, from known pictures, so that cudaomniunwrap can be
 * checked on a scene whose right answer is known.  The world: the floor,
 * the plane z = +G on the camera's side (the camera looks up at a mirror
 * above it; --ground, or a checkerboard with an arrow pointing to the
 * image's right), and a band of the cylinder of radius D round the axis
 * wrapped in a panorama (--scene) from --z-top to --z-bottom; rays that
 * miss both end in the sky.  The defaults are the element's (R 30, h 150,
 * f 800, D 229); z-top -174.8 and z-bottom 485.4 are the cylinder's
 * heights seen at image radii 155 and 40 (co_mirror_cylinder_z), so that
 * `projection=cylinder inner-radius=40 outer-radius=155`, whose top row is
 * the outer edge, gives the whole scene back, upright and unmirrored; G is
 * z-bottom, so the building stands on the floor, seen in the middle.
 *
 *   omni-render --scene building.jpg --ground fruits.jpg -o mirror.png
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <math.h>
#include <string.h>

#include "omni_mirror.h"

typedef struct
{
  gint w, h;
  guint8 *rgba;                 /* w * 4 bytes a row */
} Picture;

static const double sky[3] = { 205, 215, 225 }, mount[3] = { 40, 40, 40 },
    off_ground[3] = { 120, 125, 110 };

static CoMirror mirror = { 30.0, 150.0, 800.0 };

static double plane_d = 229.0, ground_d = 485.4, ground_scale = 1.0;
static double z_top = -174.8, z_bottom = 485.4;
static gint size = 1024, samples = 4;
static gchar *scene_file, *ground_file, *out_file = (gchar *) "mirror.png";
static Picture scene, ground;

#define DECODE "filesrc name=file ! decodebin ! videoconvert ! " \
  "video/x-raw,format=RGBA ! appsink name=sink"

/* Runs @desc on @file (its element "file"), so that decoding and encoding
 * are GStreamer's own: with @pic, to the first picture at appsink "sink"
 * (a sink prerolls on it), else pushing @out into appsrc "src" to the end
 * of the stream.  FALSE, said, on a missing file or the bus's error. */
static gboolean
run (const gchar * desc, const gchar * file, Picture * pic, GstBuffer * out)
{
  GError *err = NULL;
  GstElement *pipe, *el;
  GstBus *bus;
  GstMessage *msg;
  GstSample *sample;
  GstStructure *s;
  gboolean ok = TRUE;

  if (pic && !g_file_test (file, G_FILE_TEST_IS_REGULAR)) {
    g_printerr ("omni-render: %s: no such file\n", file);
    return FALSE;
  }
  pipe = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
  if (!pipe) {                  /* a plugin is missing */
    g_printerr ("omni-render: %s\n", err->message);
    return FALSE;
  }
  el = gst_bin_get_by_name (GST_BIN (pipe), "file");
  g_object_set (el, "location", file, NULL);    /* no quoting to get wrong */
  gst_object_unref (el);
  el = gst_bin_get_by_name (GST_BIN (pipe), pic ? "sink" : "src");
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, pic ? GST_STATE_PAUSED : GST_STATE_PLAYING);
  if (out) {                    /* once started: appsrc refuses data before */
    gst_app_src_push_buffer (GST_APP_SRC (el), out);
    gst_app_src_end_of_stream (GST_APP_SRC (el));
  }
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_ERROR | (pic ? GST_MESSAGE_ASYNC_DONE : GST_MESSAGE_EOS));
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("omni-render: %s: %s\n", file, err->message);
    g_error_free (err);
    ok = FALSE;
  } else if (pic && (sample = gst_app_sink_pull_preroll (GST_APP_SINK (el)))) {
    /* appsink offers no video meta, so the rows are packed: RGBA's
     * default stride is w * 4 */
    s = gst_caps_get_structure (gst_sample_get_caps (sample), 0);
    gst_structure_get_int (s, "width", &pic->w);
    gst_structure_get_int (s, "height", &pic->h);
    pic->rgba = g_malloc ((gsize) pic->w * pic->h * 4);
    gst_buffer_extract (gst_sample_get_buffer (sample), 0, pic->rgba,
        (gsize) pic->w * pic->h * 4);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_object_unref (el);
  gst_object_unref (pipe);
  return ok && (!pic || pic->rgba);
}

/* Bilinear at (x, y), texel i spanning [i, i + 1): x wraps round when
 * @wrap (the panorama's seam), else the taps clamp to the edge. */
static void
bilinear (const Picture * p, double x, double y, gboolean wrap, double rgb[3])
{
  double fx = x - 0.5, fy = y - 0.5, x0 = floor (fx), y0 = floor (fy);
  double ax = fx - x0, ay = fy - y0;
  gint i, c, xs[2] = { x0, x0 + 1 }, ys[2] = { y0, y0 + 1 };

  for (i = 0; i < 2; i++) {
    xs[i] = wrap ? ((xs[i] % p->w) + p->w) % p->w : CLAMP (xs[i], 0, p->w - 1);
    ys[i] = CLAMP (ys[i], 0, p->h - 1);
  }
#define T(i, j) p->rgba[((gsize) ys[j] * p->w + xs[i]) * 4 + c]
  for (c = 0; c < 3; c++)
    rgb[c] = (1 - ay) * ((1 - ax) * T (0, 0) + ax * T (1, 0)) +
        ay * ((1 - ax) * T (0, 1) + ax * T (1, 1));
#undef T
}

/* The ground at world (X, Y), in the image's axes (x right, y down). */
static void
ground_at (double X, double Y, double rgb[3])
{
  double gx = ground.w / 2.0 + X / ground_scale;
  double gy = ground.h / 2.0 + Y / ground_scale;

  if (ground.rgba && gx >= 0 && gy >= 0 && gx <= ground.w && gy <= ground.h)
    bilinear (&ground, gx, gy, FALSE, rgb);
  else if (ground.rgba)
    memcpy (rgb, off_ground, sizeof off_ground);
  else if ((X > 0 && X < 120 && fabs (Y) < 8) ||
      (X >= 120 && X < 170 && fabs (Y) < 0.6 * (170 - X))) {
    /* an arrow along +X: where "east" lands shows the handedness */
    rgb[0] = 200, rgb[1] = 30, rgb[2] = 30;
  } else {                      /* 40-unit squares */
    rgb[0] = rgb[1] = rgb[2] = ((gint) floor (X / 40) +
        (gint) floor (Y / 40)) & 1 ? 70 : 185;
  }
}

/* What the camera sees at image offset (dx, dy) from the mirror's centre;
 * the world point's azimuth is the image angle phi (no flip). */
static void
trace (double dx, double dy, double rgb[3])
{
  double rho = sqrt (dx * dx + dy * dy), phi = atan2 (dy, dx);
  double mr, mz, dr, dz, z, t;

  if (rho > co_mirror_limb (&mirror) ||
      !co_mirror_ray (&mirror, rho, &mr, &mz, &dr, &dz)) {
    memcpy (rgb, mount, sizeof mount);
  } else if (dr > 0 && (z = mz + (plane_d - mr) / dr * dz) <= ground_d &&
      (z - z_top) * (z - z_bottom) <= 0) {
    /* the band, reached before the floor.  The element's column u sees
     * theta = -2 pi (u + 1/2) / W: the scene's column -phi / 2 pi of its
     * width; its rows go linearly from z-top to z-bottom */
    bilinear (&scene, -phi / (2 * G_PI) * scene.w,
        (z - z_top) / (z_bottom - z_top) * scene.h, TRUE, rgb);
  } else if (dz > 0) {
    t = (ground_d - mz) / dz;
    ground_at ((mr + t * dr) * cos (phi), (mr + t * dr) * sin (phi), rgb);
  } else {
    memcpy (rgb, sky, sizeof sky);
  }
}

#define NUM(l, v, d) { l, 0, 0, G_OPTION_ARG_DOUBLE, v, d, "X" }
static GOptionEntry entries[] = {
  {"scene", 0, 0, G_OPTION_ARG_FILENAME, &scene_file,
      "Panorama round the cylinder (required)", "FILE"},
  {"ground", 0, 0, G_OPTION_ARG_FILENAME, &ground_file,
      "Picture of the ground plane (default: a checkerboard)", "FILE"},
  {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out_file,
      "PNG to write (mirror.png)", "FILE"},
  {"size", 0, 0, G_OPTION_ARG_INT, &size, "Output side in pixels (1024)", "N"},
  {"samples", 0, 0, G_OPTION_ARG_INT, &samples, "N x N rays a pixel (4)", "N"},
  NUM ("mirror-radius", &mirror.R, "R, the sphere's radius (30)"),
  NUM ("mirror-distance", &mirror.h, "h, sphere's centre to camera (150)"),
  NUM ("focal-length", &mirror.f, "f in pixels (800)"),
  NUM ("plane-distance", &plane_d, "D, the cylinder's radius (229)"),
  NUM ("ground-distance", &ground_d, "G, the floor's height (485.4)"),
  NUM ("ground-scale", &ground_scale, "World units a ground texel (1)"),
  NUM ("z-top", &z_top, "Height of the scene's top row (-174.8)"),
  NUM ("z-bottom", &z_bottom, "Height of its bottom row (485.4)"),
  {NULL, 0, 0, 0, NULL, NULL, NULL}
};

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("- render a spherical-mirror "
      "camera's picture");
  GError *err = NULL;
  const gchar *bad = NULL;
  gsize n;
  guint8 *out;
  gchar *desc;
  gint x, y, i, j, k;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("omni-render: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  /* what the model needs, named by option */
  if (argc > 1)
    bad = "unexpected argument (the options take FILE, N or X)";
  else if (!scene_file)
    bad = "--scene FILE is required";
  else if (size < 16 || size > 16384 || samples < 1 || samples > 16)
    bad = "--size must be 16..16384 and --samples 1..16";
  else if (!(mirror.R > 0 && mirror.f > 0 && isfinite (mirror.R + mirror.f)))
    bad = "--mirror-radius and --focal-length must be positive and finite";
  else if (!(mirror.h > mirror.R && isfinite (mirror.h)))
    bad = "--mirror-distance must exceed --mirror-radius (camera outside)";
  else if (!(plane_d > mirror.R && isfinite (plane_d)))
    bad = "--plane-distance must exceed --mirror-radius";
  else if (!(ground_d > mirror.h && isfinite (ground_d)))
    bad = "--ground-distance must exceed --mirror-distance (camera between)";
  else if (!(ground_scale > 0 && isfinite (ground_scale)))
    bad = "--ground-scale must be positive";
  else if (!(z_top != z_bottom && isfinite (z_top - z_bottom)))
    bad = "--z-top and --z-bottom must differ";
  if (bad) {
    g_printerr ("omni-render: %s\n", bad);
    return 2;
  }
  if (!run (DECODE, scene_file, &scene, NULL) ||
      (ground_file && !run (DECODE, ground_file, &ground, NULL)))
    return 1;

  n = (gsize) size * size * 4;
  out = g_malloc (n);
  for (y = 0; y < size; y++) {
    for (x = 0; x < size; x++) {
      /* samples x samples regular rays over the pixel, against aliasing
       * at the limb and where the mirror shrinks the scene most */
      double acc[3] = { 0, 0, 0 }, rgb[3], c = (size - 1) / 2.0;
      for (j = 0; j < samples; j++)
        for (i = 0; i < samples; i++) {
          trace (x - c + (i + 0.5) / samples - 0.5,
              y - c + (j + 0.5) / samples - 0.5, rgb);
          for (k = 0; k < 3; k++)
            acc[k] += rgb[k];
        }
      for (k = 0; k < 4; k++)
        out[((gsize) y * size + x) * 4 + k] =
            k < 3 ? acc[k] / (samples * samples) + 0.5 : 255;
    }
  }
  desc = g_strdup_printf ("appsrc name=src format=time caps=video/x-raw,"
      "format=RGBA,width=%d,height=%d,framerate=0/1 ! videoconvert ! "
      "video/x-raw,format=RGB ! pngenc ! filesink name=file", size, size);
  if (!run (desc, out_file, NULL, gst_buffer_new_wrapped (out, n)))
    return 1;
  g_print ("omni-render: wrote %s (%dx%d, the mirror's limb at radius %.1f)\n",
      out_file, size, size, co_mirror_limb (&mirror));
  g_free (desc);
  return 0;
}
