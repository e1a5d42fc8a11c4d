/* cudaoptics — LGPL-2.1-or-later */

#include <errno.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#include "gstcocalibration.h"

#define EPS 1e-12

static const gchar *data_dir;

/* the same camera in each: FileStorage YAML and XML, and its matrices as
 * lists of rows in YAML and JSON */
static const gchar *const good_files[] = { "calib-opencv.yml",
  "calib-opencv.xml", "calib-nested.yml", "calib-nested.json"
};

static const struct
{
  const gchar *file;
  GstCoCalibrationError code;
  const gchar *needle;          /* must also appear in the message */
} bad_files[] = {
  {"calib-bad-truncated.yml", GST_CO_CALIBRATION_ERROR_PARSE, "YAML, line 20"},
  {"calib-bad-truncated.xml", GST_CO_CALIBRATION_ERROR_PARSE, "XML, line"},
  {"calib-bad-3x2.xml", GST_CO_CALIBRATION_ERROR_PARSE, "camera_matrix"},
  {"calib-bad-nan.yml", GST_CO_CALIBRATION_ERROR_PARSE, "camera_matrix"},
  {"calib-bad-junk.yml", GST_CO_CALIBRATION_ERROR_PARSE, "mapping"},
  {"calib-bad-absurd.yml", GST_CO_CALIBRATION_ERROR_PARSE, "fx is 1e-300"},
};

static const gchar yaml_4coef_alias[] =
    "%YAML:1.0\n---\n"
    "cameraMatrix: !!opencv-matrix\n"
    "   rows: 3\n   cols: 3\n   dt: d\n"
    "   data: [ 500., 0., 320., 0., 510., 240., 0., 0., 1. ]\n"
    "dist_coeffs: !!opencv-matrix\n"
    "   rows: 4\n   cols: 1\n   dt: d\n"
    "   data: [ -1.0e-01, 1.0e-02, 1.0e-03, -2.0e-03 ]\n";

static const gchar yaml_8coef_zero_tail[] =
    "%YAML:1.0\n---\n"
    "camera_matrix: !!opencv-matrix\n"
    "   rows: 3\n   cols: 3\n   dt: d\n"
    "   data: [ 600., 0., 320., 0., 600., 240., 0., 0., 1. ]\n"
    "distCoeffs: !!opencv-matrix\n"
    "   rows: 1\n   cols: 8\n   dt: d\n"
    "   data: [ -2.0e-01, 5.0e-02, 1.0e-03, 2.0e-03, -1.0e-02, 0., 0.,\n"
    "       0. ]\n";

/* the _old node comes first and is invalid: taking it would fail */
static const gchar yaml_old_node[] =
    "%YAML:1.0\n---\n"
    "note: \"camera_matrix: [ 7., 0., 1., 0., 7., 1., 0., 0., 1. ]\"\n"
    "camera_matrix_old: !!opencv-matrix\n"
    "   rows: 3\n   cols: 3\n   dt: d\n"
    "   data: [ -1., 0., 2., 0., 1., 2., 0., 0., 0. ]\n"
    "camera_matrix: !!opencv-matrix\n"
    "   rows: 3\n   cols: 3\n   dt: d\n"
    "   data: [ 700., 0., 330., 0., 705., 250., 0., 0., 1. ]\n"
    "distortion_coefficients: !!opencv-matrix\n"
    "   rows: 5\n   cols: 1\n   dt: d\n" "   data: [ 1., 2., 3., 4., 5. ]\n";

static const gchar xml_alias_old[] =
    "<?xml version=\"1.0\"?>\n<opencv_storage>\n"
    "<camera_matrix_old type_id=\"opencv-matrix\"><rows>3</rows><cols>3</cols>"
    "<dt>d</dt><data>-1. 0. 0. 0. 1. 0. 0. 0. 0.</data></camera_matrix_old>\n"
    "<other><camera_matrix type_id=\"opencv-matrix\"><data>1. 0. 0. 0. 1. 0."
    " 0. 0. 1.</data></camera_matrix></other>\n"
    "<cameraMatrix type_id=\"opencv-matrix\"><rows>3</rows><cols>3</cols>"
    "<dt>f</dt><data>\n  8.0e+02 0. 3.2e+02\n 0. 8.1e+02 2.4e+02\n"
    " 0. 0. 1.</data></cameraMatrix>\n"
    "<distCoeffs type_id=\"opencv-matrix\"><rows>1</rows><cols>14</cols>"
    "<dt>d</dt><data>0.1 0.2 0.3 0.4 0.5 0. 0. 0. 0. 0. 0. 0. 0. 0.</data>"
    "</distCoeffs>\n<image_width>1280</image_width>\n"
    "<image_height>720</image_height>\n</opencv_storage>\n";

/* what ROS's camera_calibration_parsers write */
static const gchar ros_camera_info[] =
    "image_width: 640\nimage_height: 480\ncamera_name: narrow_stereo\n"
    "camera_matrix:\n  rows: 3\n  cols: 3\n"
    "  data: [520.1, 0, 321.5, 0, 519.8, 244.2, 0, 0, 1]\n"
    "distortion_model: plumb_bob\n"
    "distortion_coefficients:\n  rows: 1\n  cols: 5\n"
    "  data: [-0.21, 0.05, 0.001, -0.002, 0]\n"
    "rectification_matrix:\n  rows: 3\n  cols: 3\n"
    "  data: [1, 0, 0, 0, 1, 0, 0, 0, 1]\n";

/* a Kalibr camchain (stereo, radtan and equidistant) */
static const gchar kalibr_camchain[] =
    "cam0:\n"
    "  camera_model: pinhole\n"
    "  intrinsics: [461.6, 460.3, 363.0, 248.1]\n"
    "  distortion_model: radtan\n"
    "  distortion_coeffs: [-0.2917, 0.08228, 5.333e-05, -1.578e-04]\n"
    "  resolution: [752, 480]\n"
    "  rostopic: /cam0/image_raw\n"
    "cam1:\n"
    "  T_cn_cnm1:\n"
    "  - [1.0, 0.0023, -0.0003, -0.11]\n"
    "  - [-0.0023, 1.0, -0.0001, 0.0004]\n"
    "  - [0.0003, 0.0001, 1.0, -0.0008]\n"
    "  - [0.0, 0.0, 0.0, 1.0]\n"
    "  camera_model: pinhole\n"
    "  intrinsics: [280.1, 279.9, 379.2, 241.7]\n"
    "  distortion_model: equidistant\n"
    "  distortion_coeffs: [-0.013, 0.041, -0.037, 0.0095]\n"
    "  resolution: [752, 480]\n";

/* cv::stereoRectify's results as OpenCV's stereo_calib sample saves them */
static const gchar opencv_stereo[] =
    "%YAML:1.0\n---\n"
    "M1: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
    "   data: [ 533., 0., 341., 0., 533., 235., 0., 0., 1. ]\n"
    "D1: !!opencv-matrix\n   rows: 1\n   cols: 5\n   dt: d\n"
    "   data: [ -0.28, 0.1, 0.001, -0.0002, -0.03 ]\n"
    "M2: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
    "   data: [ 537., 0., 327., 0., 536., 249., 0., 0., 1. ]\n"
    "D2: !!opencv-matrix\n   rows: 1\n   cols: 5\n   dt: d\n"
    "   data: [ -0.27, 0.09, -0.0006, 0.0007, -0.02 ]\n"
    "R: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
    "   data: [ 0.9999, -0.0042, -0.0107, 0.0043, 0.9999, 0.0053, 0.0107,"
    " -0.0054, 0.9999 ]\n"
    "R1: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
    "   data: [ 0.999812, -0.006789, -0.018176, 0.006740, 0.999974,"
    " -0.002752, 0.018194, 0.002629, 0.999831 ]\n"
    "P1: !!opencv-matrix\n   rows: 3\n   cols: 4\n   dt: d\n"
    "   data: [ 500., 0., 333., 0., 0., 500., 242., 0., 0., 0., 1., 0. ]\n"
    "P2: !!opencv-matrix\n   rows: 3\n   cols: 4\n   dt: d\n"
    "   data: [ 500., 0., 333., -1670., 0., 500., 242., 0., 0., 0., 1., 0. ]\n"
    "R2: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
    "   data: [ 0.999924, -0.002506, -0.011981, 0.002537, 0.999994,"
    " 0.002522, 0.011975, -0.002552, 0.999925 ]\n";

static gchar *
data_path (const gchar * file)
{
  return g_build_filename (data_dir, file, NULL);
}

/* The camera model's fields a file does not set: pinhole, R = I,
 * P = [K | 0], the coefficients past k3 zero. */
static void
assert_camera_defaults (const GstCoCalibration * c)
{
  int i;

  g_assert_cmpint (c->model, ==, CO_CAMERA_PINHOLE);
  for (i = 0; i < 9; i++)
    g_assert_cmpfloat (c->r[i], ==, (i % 4 == 0) ? 1.0 : 0.0);
  g_assert_cmpfloat (c->p[0], ==, c->fx);
  g_assert_cmpfloat (c->p[2], ==, c->cx);
  g_assert_cmpfloat (c->p[5], ==, c->fy);
  g_assert_cmpfloat (c->p[6], ==, c->cy);
  g_assert_cmpfloat (c->p[10], ==, 1.0);
  g_assert_cmpfloat (c->p[1] + c->p[3] + c->p[4] + c->p[7] + c->p[8] +
      c->p[9] + c->p[11], ==, 0.0);
  for (i = CO_DIST_K4; i < CO_CAMERA_N_DIST; i++)
    g_assert_cmpfloat (c->dist[i], ==, 0.0);
  g_assert_true (co_camera_is_supported (c));
}

/* the camera of good_files[], with or without its image size */
static void
assert_expected_camera (const GstCoCalibration * c)
{
  g_assert_cmpfloat_with_epsilon (c->fx, 5.3590869472741565e+02, EPS);
  g_assert_cmpfloat_with_epsilon (c->fy, 5.3590869472741565e+02, EPS);
  g_assert_cmpfloat_with_epsilon (c->cx, 3.4228954136734012e+02, EPS);
  g_assert_cmpfloat_with_epsilon (c->cy, 2.3557367287018937e+02, EPS);
  g_assert_cmpfloat_with_epsilon (c->dist[CO_DIST_K1], -2.6635836741432600e-01,
      EPS);
  g_assert_cmpfloat_with_epsilon (c->dist[CO_DIST_K2], -3.8720512336087143e-02,
      EPS);
  g_assert_cmpfloat_with_epsilon (c->dist[CO_DIST_P1], 1.7800719357420375e-03,
      EPS);
  g_assert_cmpfloat_with_epsilon (c->dist[CO_DIST_P2], -2.8906148301532150e-04,
      EPS);
  g_assert_cmpfloat_with_epsilon (c->dist[CO_DIST_K3], 2.3822659064741392e-01,
      EPS);
  assert_camera_defaults (c);
}

static void
assert_expected (const GstCoCalibration * c)
{
  assert_expected_camera (c);
  g_assert_cmpint (c->image_width, ==, 640);
  g_assert_cmpint (c->image_height, ==, 480);
}

static void
parse_ok (const gchar * text, GstCoCalibration * c)
{
  GError *err = NULL;

  memset (c, 0xff, sizeof (*c));
  g_assert_true (gst_co_calibration_parse (text, strlen (text), NULL, c, &err));
  g_assert_no_error (err);
}

static void
parse_fails (const gchar * text, gsize len, GstCoCalibrationError code,
    const gchar * needle)
{
  GstCoCalibration c;
  GError *err = NULL;

  g_assert_false (gst_co_calibration_parse (text, len, NULL, &c, &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, (gint) code);
  if (needle != NULL && strstr (err->message, needle) == NULL)
    g_error ("message '%s' lacks '%s'", err->message, needle);
  g_error_free (err);
}

/* parse_fails() on @src with its first @from replaced by @to */
static void
edit_fails (const gchar * src, const gchar * from, const gchar * to,
    GstCoCalibrationError code, const gchar * needle)
{
  const gchar *at = strstr (src, from);
  gchar *t;

  g_assert_nonnull (at);
  t = g_strdup_printf ("%.*s%s%s", (gint) (at - src), src, to,
      at + strlen (from));
  parse_fails (t, strlen (t), code, needle);
  g_free (t);
}

/* parse_ok() on @src with its first @from replaced by @to */
static void
edit_ok (const gchar * src, const gchar * from, const gchar * to)
{
  const gchar *at = strstr (src, from);
  GstCoCalibration c;
  gchar *t;

  g_assert_nonnull (at);
  t = g_strdup_printf ("%.*s%s%s", (gint) (at - src), src, to,
      at + strlen (from));
  parse_ok (t, &c);
  g_free (t);
}

static void
test_good_files (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (good_files); i++) {
    gchar *path = data_path (good_files[i]);
    GstCoCalibration c;
    GError *err = NULL;

    memset (&c, 0, sizeof (c));
    g_assert_true (gst_co_calibration_load (path, NULL, &c, &err));
    g_assert_no_error (err);
    assert_expected (&c);
    g_free (path);
  }
}

/* mtx and dist, as OpenCV's Python tutorial names calibrateCamera's
 * results and scripts dump them (json.dump of tolist(), with ret, rvecs
 * and tvecs beside them and no image size); the same names in YAML */
static void
test_mtx_dist (void)
{
  static const gchar yaml[] =
      "mtx: [[535.9086947274157, 0, 342.2895413673401],\n"
      "      [0, 535.9086947274157, 235.57367287018937], [0, 0, 1]]\n"
      "dist: [[-0.266358367414326, -0.03872051233608714,\n"
      "        0.0017800719357420375, -0.0002890614830153215,\n"
      "        0.23822659064741392]]\n"
      "image_width: 640\nimage_height: 480\n";
  gchar *path = data_path ("calib-mtx-dist.json");
  GstCoCalibration c;
  GError *err = NULL;

  memset (&c, 0, sizeof (c));
  g_assert_true (gst_co_calibration_load (path, NULL, &c, &err));
  g_assert_no_error (err);
  assert_expected_camera (&c);
  g_assert_cmpint (c.image_width, ==, 0);
  g_free (path);

  parse_ok (yaml, &c);
  assert_expected (&c);
}

static void
test_bad_files (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad_files); i++) {
    gchar *path = data_path (bad_files[i].file);
    GstCoCalibration c;
    GError *err = NULL;

    g_assert_false (gst_co_calibration_load (path, NULL, &c, &err));
    g_assert_error (err, GST_CO_CALIBRATION_ERROR, (gint) bad_files[i].code);
    g_test_message ("%s", err->message);
    if (strstr (err->message, bad_files[i].file) == NULL
        || strstr (err->message, bad_files[i].needle) == NULL)
      g_error ("message '%s' lacks '%s' or '%s'", err->message,
          bad_files[i].file, bad_files[i].needle);
    g_error_free (err);
    g_free (path);
  }
}

static void
test_read_errors (void)
{
  gchar *path = data_path ("no-such-calibration.yml"), *big;
  GstCoCalibration c;
  GError *err = NULL;
  gint fd;

  g_assert_false (gst_co_calibration_load (path, NULL, &c, &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, GST_CO_CALIBRATION_ERROR_READ);
  g_assert_nonnull (strstr (err->message, "no-such-calibration.yml"));
  g_assert_nonnull (strstr (err->message, g_strerror (ENOENT)));
  g_clear_error (&err);
  g_free (path);

  /* a directory opens but cannot be read */
  g_assert_false (gst_co_calibration_load (data_dir, NULL, &c, &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, GST_CO_CALIBRATION_ERROR_READ);
  g_clear_error (&err);

  fd = g_file_open_tmp ("co-calib-XXXXXX.yml", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  big = g_malloc0 (1024 * 1024 + 1);
  memset (big, '#', 1024 * 1024);
  g_assert_true (g_file_set_contents (path, big, 1024 * 1024 + 1, NULL));
  g_assert_false (gst_co_calibration_load (path, NULL, &c, &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, GST_CO_CALIBRATION_ERROR_READ);
  g_assert_nonnull (strstr (err->message, "1 MiB"));
  g_clear_error (&err);
  g_close (fd, NULL);
  g_unlink (path);
  g_free (path);
  g_free (big);
}

/* Every prefix goes into a buffer of exactly that length, so valgrind
 * catches any read past @len. */
static void
test_prefixes (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (good_files); i++) {
    gchar *path = data_path (good_files[i]), *text;
    gsize len, n;
    guint ok = 0;

    g_assert_true (g_file_get_contents (path, &text, &len, NULL));
    for (n = 0; n <= len; n++) {
      gchar *buf = g_malloc (n);
      GstCoCalibration c;
      GError *err = NULL;

      if (n > 0)
        memcpy (buf, text, n);
      if (gst_co_calibration_parse (buf, n, NULL, &c, &err)) {
        g_assert_no_error (err);
        assert_expected (&c);
        ok++;
      } else {
        g_assert_error (err, GST_CO_CALIBRATION_ERROR,
            GST_CO_CALIBRATION_ERROR_PARSE);
        g_assert_cmpstr (err->message, !=, "");
        g_error_free (err);
      }
      g_free (buf);
    }
    g_assert_cmpuint (ok, >=, 1);
    g_test_message ("%s: %u of %" G_GSIZE_FORMAT " prefixes parse",
        good_files[i], ok, len + 1);
    g_free (text);
    g_free (path);
  }
}

static void
test_inline (void)
{
  GstCoCalibration c;

  parse_ok (yaml_4coef_alias, &c);
  g_assert_cmpfloat_with_epsilon (c.fx, 500.0, EPS);
  g_assert_cmpfloat_with_epsilon (c.fy, 510.0, EPS);
  g_assert_cmpfloat_with_epsilon (c.dist[CO_DIST_P2], -2.0e-03, EPS);
  g_assert_cmpfloat (c.dist[CO_DIST_K3], ==, 0.0);
  g_assert_cmpint (c.image_width, ==, 0);
  g_assert_cmpint (c.image_height, ==, 0);

  parse_ok (yaml_8coef_zero_tail, &c);
  g_assert_cmpfloat_with_epsilon (c.dist[CO_DIST_K1], -0.2, EPS);
  g_assert_cmpfloat_with_epsilon (c.dist[CO_DIST_K3], -0.01, EPS);

  parse_ok (yaml_old_node, &c);
  g_assert_cmpfloat_with_epsilon (c.fx, 700.0, EPS);
  g_assert_cmpfloat_with_epsilon (c.fy, 705.0, EPS);
  g_assert_cmpfloat_with_epsilon (c.dist[CO_DIST_K3], 5.0, EPS);

  parse_ok (xml_alias_old, &c);
  g_assert_cmpfloat_with_epsilon (c.fx, 800.0, EPS);
  g_assert_cmpfloat_with_epsilon (c.cy, 240.0, EPS);
  g_assert_cmpfloat_with_epsilon (c.dist[CO_DIST_K3], 0.5, EPS);
  g_assert_cmpint (c.image_width, ==, 1280);
  g_assert_cmpint (c.image_height, ==, 720);
}

static void
test_inline_errors (void)
{
  gchar *s;

  parse_fails (NULL, 0, GST_CO_CALIBRATION_ERROR_PARSE, "empty");
  parse_fails ("", 0, GST_CO_CALIBRATION_ERROR_PARSE, "empty");
  parse_fails ("%YAML:1.0\n---\n", 14, GST_CO_CALIBRATION_ERROR_PARSE,
      "mapping");
  parse_fails ("{ \"camera_matrix\": 1 }", 22,
      GST_CO_CALIBRATION_ERROR_PARSE, "camera_matrix must have 9 values");
  parse_fails ("\x01\xff\xfe<\x80\x00garbage", 12,
      GST_CO_CALIBRATION_ERROR_PARSE, NULL);
  parse_fails ("<?xml version=\"1.0\"?>\n<storage></storage>\n", 42,
      GST_CO_CALIBRATION_ERROR_PARSE, "mapping");

  /* only the _old node: not taken */
  s = g_strndup (yaml_old_node, strstr (yaml_old_node, "\ncamera_matrix:")
      + 1 - yaml_old_node);
  parse_fails (s, strlen (s), GST_CO_CALIBRATION_ERROR_PARSE,
      "no camera_matrix");
  g_free (s);

  edit_fails (yaml_4coef_alias, "510.", "-510.", GST_CO_CALIBRATION_ERROR_PARSE,
      "cameraMatrix: fy is -510");
  edit_fails (yaml_4coef_alias, "240., 0., 0., 1.", "240., 2., 0., 1.",
      GST_CO_CALIBRATION_ERROR_PARSE, "element [6]");
  edit_fails (yaml_4coef_alias, "0., 0., 1. ]", "0., 0., 2. ]",
      GST_CO_CALIBRATION_ERROR_PARSE, "element [8]");
  edit_fails (yaml_4coef_alias, "0., 510.", "0.5, 510.",
      GST_CO_CALIBRATION_ERROR_PARSE, "element [3]");
  edit_fails (yaml_4coef_alias, "500.", "5.0x2", GST_CO_CALIBRATION_ERROR_PARSE,
      "cameraMatrix: value 0 is not a finite number");
  edit_fails (yaml_4coef_alias, "500.", "1e999", GST_CO_CALIBRATION_ERROR_PARSE,
      "cameraMatrix: value 0");
  edit_fails (yaml_4coef_alias, "500.", "-.Inf", GST_CO_CALIBRATION_ERROR_PARSE,
      "cameraMatrix: value 0");
  edit_fails (yaml_4coef_alias, "500.", "nan", GST_CO_CALIBRATION_ERROR_PARSE,
      "cameraMatrix: value 0");
  edit_fails (yaml_4coef_alias, "rows: 4", "rows: 5",
      GST_CO_CALIBRATION_ERROR_PARSE, "dist_coeffs is 5x1 but its data has 4");
  edit_fails (yaml_4coef_alias, "rows: 4", "rows: four",
      GST_CO_CALIBRATION_ERROR_PARSE, "dist_coeffs's rows");
  edit_fails (yaml_4coef_alias, "[ -1.0e-01, ", "[ ",
      GST_CO_CALIBRATION_ERROR_PARSE, "dist_coeffs is 4x1 but");
  edit_fails (yaml_4coef_alias, "[ -1.0e-01, 1.0e-02, 1.0e-03, -2.0e-03 ]",
      "[ ]", GST_CO_CALIBRATION_ERROR_PARSE,
      "dist_coeffs is 4x1 but its data has 0 values");
  edit_fails (yaml_4coef_alias, "dist_coeffs:", "dist_coeffs_x:",
      GST_CO_CALIBRATION_ERROR_PARSE, "no distortion_coefficients");
  edit_fails (yaml_4coef_alias, "]\ndist", "\ndist",
      GST_CO_CALIBRATION_ERROR_PARSE, "YAML, line");
  edit_ok (yaml_8coef_zero_tail, "0.,\n       0. ]", "3.,\n       0. ]");
  edit_fails (yaml_8coef_zero_tail, "cols: 8", "cols: 6",
      GST_CO_CALIBRATION_ERROR_PARSE, "distCoeffs is 1x6");
  edit_ok (xml_alias_old, "0.5 0. 0. 0. 0. 0. 0. 0. 0. 0.",
      "0.5 0. 0. 0. 0. 0. 0. 0. 0. 1e-3");
  edit_ok (xml_alias_old, "0.5 0. 0. 0. 0.", "0.5 0. 0. 0. 4.");
  edit_fails (xml_alias_old, "<cols>14</cols>", "<cols>13</cols>",
      GST_CO_CALIBRATION_ERROR_PARSE, "distCoeffs is 1x13");
  edit_fails (xml_alias_old, "<image_width>1280", "<image_width>12.5",
      GST_CO_CALIBRATION_ERROR_PARSE, "image_width");
  edit_fails (xml_alias_old, "</distCoeffs>", "</distCoeffs",
      GST_CO_CALIBRATION_ERROR_PARSE, "XML");
}

/* Finite values outside the properties' own ranges, and models the element
 * does not implement, are refused by key rather than mapped to nothing. */
static void
test_absurd_values (void)
{
  GstCoCalibration c;

  parse_ok (ros_camera_info, &c);
  g_assert_cmpfloat_with_epsilon (c.fx, 520.1, EPS);
  g_assert_cmpfloat_with_epsilon (c.dist[CO_DIST_K1], -0.21, EPS);
  g_assert_cmpint (c.image_width, ==, 640);

  edit_fails (yaml_4coef_alias, "500.", "1e-300",
      GST_CO_CALIBRATION_ERROR_PARSE, "cameraMatrix: fx is 1e-300");
  edit_fails (yaml_4coef_alias, "500.", "1e308",
      GST_CO_CALIBRATION_ERROR_PARSE, "cameraMatrix: fx is 1e+308");
  edit_fails (yaml_4coef_alias, "510.", "0.5",
      GST_CO_CALIBRATION_ERROR_PARSE, "cameraMatrix: fy is 0.5");
  edit_fails (yaml_4coef_alias, "320.", "1e308",
      GST_CO_CALIBRATION_ERROR_PARSE, "cameraMatrix: cx is 1e+308");
  edit_fails (yaml_4coef_alias, "240.", "-5e3",
      GST_CO_CALIBRATION_ERROR_PARSE, "cameraMatrix: cy is -5000");
  edit_fails (yaml_4coef_alias, "-1.0e-01", "1e308",
      GST_CO_CALIBRATION_ERROR_PARSE, "dist_coeffs: coefficient 0 is 1e+308");
  edit_fails (yaml_4coef_alias, "-2.0e-03", "-1e308",
      GST_CO_CALIBRATION_ERROR_PARSE, "dist_coeffs: coefficient 3 is -1e+308");
  edit_fails (ros_camera_info, "image_width: 640", "image_width: 2147483647",
      GST_CO_CALIBRATION_ERROR_PARSE, "image_width is 2147483647");
  edit_fails (ros_camera_info, "image_height: 480", "image_height: 0",
      GST_CO_CALIBRATION_ERROR_PARSE, "image_height is 0");

  /* ROS names the model: fisheye's four coefficients are not k1 k2 p1 p2
   * (a fifth, zero, is allowed: ROS writes one) */
  edit_ok (ros_camera_info, "plumb_bob", "equidistant");
  edit_ok (ros_camera_info, "plumb_bob", "'fisheye'");
  edit_fails (ros_camera_info, "plumb_bob", "double_sphere",
      GST_CO_CALIBRATION_ERROR_UNSUPPORTED,
      "distortion_model is \"double_sphere\"");
  edit_fails (ros_camera_info, "plumb_bob", "",
      GST_CO_CALIBRATION_ERROR_UNSUPPORTED, "distortion_model is \"\"");
  edit_fails (ros_camera_info, "plumb_bob", "[a, b]",
      GST_CO_CALIBRATION_ERROR_PARSE, "distortion_model is not a name");
  edit_ok (ros_camera_info, "plumb_bob", "\"plumb_bob\"");
  edit_ok (ros_camera_info, "plumb_bob", "rational_polynomial");
  edit_fails (xml_alias_old, "<image_width>", "<distortion_model>equidistant"
      "</distortion_model><image_width>",
      GST_CO_CALIBRATION_ERROR_PARSE, "fisheye (equidistant) camera has 4");
}

static void
parse_camera (const gchar * text, const gchar * camera, GstCoCalibration * c)
{
  GError *err = NULL;

  g_assert_true (gst_co_calibration_parse (text, strlen (text), camera, c,
          &err));
  g_assert_no_error (err);
}

static void
camera_fails (const gchar * text, const gchar * camera, const gchar * needle)
{
  GstCoCalibration c;
  GError *err = NULL;

  g_assert_false (gst_co_calibration_parse (text, strlen (text), camera, &c,
          &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, GST_CO_CALIBRATION_ERROR_PARSE);
  if (!strstr (err->message, needle))
    g_error ("message '%s' lacks '%s'", err->message, needle);
  g_error_free (err);
}

/* Kalibr's camchain: camN picks the camera, radtan is OpenCV's k1 k2 p1 p2,
 * equidistant is the fisheye model. */
static void
test_kalibr (void)
{
  GstCoCalibration c;

  parse_camera (kalibr_camchain, NULL, &c);
  g_assert_cmpint (c.model, ==, CO_CAMERA_PINHOLE);
  g_assert_cmpfloat (c.fx, ==, 461.6);
  g_assert_cmpfloat (c.fy, ==, 460.3);
  g_assert_cmpfloat (c.cx, ==, 363.0);
  g_assert_cmpfloat (c.cy, ==, 248.1);
  g_assert_cmpfloat (c.dist[CO_DIST_K1], ==, -0.2917);
  g_assert_cmpfloat (c.dist[CO_DIST_P1], ==, 5.333e-05);
  g_assert_cmpfloat (c.dist[CO_DIST_P2], ==, -1.578e-04);
  g_assert_cmpint (c.image_width, ==, 752);
  g_assert_cmpint (c.image_height, ==, 480);
  parse_camera (kalibr_camchain, "cam1", &c);
  g_assert_cmpint (c.model, ==, CO_CAMERA_FISHEYE);
  g_assert_cmpfloat (c.fx, ==, 280.1);
  g_assert_cmpfloat (c.dist[CO_DIST_K3], ==, -0.037);
  g_assert_cmpfloat (c.dist[CO_DIST_K4], ==, 0.0095);
  g_assert_cmpfloat (c.dist[CO_DIST_P1], ==, 0.0);
  parse_camera (kalibr_camchain, "right", &c);
  g_assert_cmpfloat (c.fx, ==, 280.1);
  camera_fails (kalibr_camchain, "cam2", "no camera cam2");
  camera_fails (kalibr_camchain, "middle", "expected left, right or camN");
  edit_fails (kalibr_camchain, "camera_model: pinhole", "camera_model: omni",
      GST_CO_CALIBRATION_ERROR_UNSUPPORTED, "camera_model is \"omni\"");
  edit_fails (kalibr_camchain, "[461.6, 460.3, 363.0, 248.1]",
      "[461.6, 460.3, 363.0]", GST_CO_CALIBRATION_ERROR_PARSE,
      "intrinsics must have 4 values");
  edit_fails (kalibr_camchain, "[752, 480]", "[752, 0]",
      GST_CO_CALIBRATION_ERROR_PARSE, "resolution");
  edit_fails (kalibr_camchain, "radtan", "fov",
      GST_CO_CALIBRATION_ERROR_UNSUPPORTED, "distortion_model is \"fov\"");
}

/* A stereo FileStorage: M1 D1 R1 P1 for left, M2 D2 R2 P2 for right; R
 * (between the cameras) is not a rectification. */
static void
test_stereo (void)
{
  GstCoCalibration c;

  parse_camera (opencv_stereo, NULL, &c);
  g_assert_cmpfloat (c.fx, ==, 533.0);
  g_assert_cmpfloat (c.dist[CO_DIST_K3], ==, -0.03);
  g_assert_cmpfloat (c.r[0], ==, 0.999812);
  g_assert_cmpfloat (c.r[1], ==, -0.006789);
  g_assert_cmpfloat (c.p[0], ==, 500.0);
  g_assert_cmpfloat (c.p[3], ==, 0.0);
  g_assert_cmpfloat (c.p[6], ==, 242.0);
  g_assert_cmpfloat (c.p[10], ==, 1.0);
  parse_camera (opencv_stereo, "right", &c);
  g_assert_cmpfloat (c.fx, ==, 537.0);
  g_assert_cmpfloat (c.r[0], ==, 0.999924);
  g_assert_cmpfloat (c.p[3], ==, -1670.0);
  camera_fails (opencv_stereo, "cam2", "stereo calibration");
  edit_fails (opencv_stereo, "0.999812, -0.006789", "0.9, -0.006789",
      GST_CO_CALIBRATION_ERROR_PARSE, "R1 is not a rotation");
  edit_fails (opencv_stereo, "0., 0., 1., 0. ]\nP2", "0., 0., 2., 0. ]\nP2",
      GST_CO_CALIBRATION_ERROR_PARSE, "P1: its last row");
  edit_fails (opencv_stereo, "rows: 3\n   cols: 4\n   dt: d\n   data: [ 500.,",
      "rows: 3\n   cols: 3\n   dt: d\n   data: [ 500.,",
      GST_CO_CALIBRATION_ERROR_PARSE, "P1 is 3x3 but its data has 12");
  /* one camera's file: only the first */
  camera_fails (ros_camera_info, "right", "describes one camera");
}

/* stereo_calib's two files: intrinsics.yml's camera rectified by
 * extrinsics.yml's R1 P1 / R2 P2 (the real-world LibMultiSense pair); a file
 * without a rectification, as the second file, is refused by name. */
static void
test_rectification_file (void)
{
  gchar *intr = data_path ("calib-examples/opencv-stereo-intrinsics.yml");
  gchar *extr = data_path ("calib-examples/opencv-stereo-extrinsics.yml");
  GstCoCalibration c, plain;
  GError *err = NULL;
  gint cam;

  for (cam = 0; cam < 2; cam++) {
    const gchar *which = cam ? "right" : "left";
    g_assert_true (gst_co_calibration_load (intr, which, &plain, &err));
    c = plain;
    g_assert_true (gst_co_calibration_load_rectification (extr, which, &c,
            &err));
    g_assert_no_error (err);
    /* the camera stays, R and P are the second file's */
    g_assert_cmpfloat (c.fx, ==, plain.fx);
    g_assert_cmpfloat (c.dist[CO_DIST_K1], ==, plain.dist[CO_DIST_K1]);
    g_assert_cmpfloat (c.r[0], !=, 1.0);
    g_assert_cmpfloat (c.r[0], >, 0.99);
    g_assert_cmpfloat (c.p[10], ==, 1.0);
    /* the right camera's P carries the baseline */
    if (cam)
      g_assert_cmpfloat (c.p[3], <, -1.0);
    else
      g_assert_cmpfloat (c.p[3], ==, 0.0);
  }
  /* intrinsics as the rectification: it has none */
  c = plain;
  g_assert_false (gst_co_calibration_load_rectification (intr, NULL, &c,
          &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, GST_CO_CALIBRATION_ERROR_PARSE);
  g_assert_nonnull (strstr (err->message, "no rectification"));
  g_assert_nonnull (strstr (err->message, "opencv-stereo-intrinsics.yml"));
  g_clear_error (&err);
  g_assert_false (gst_co_calibration_load_rectification ("/nonexistent.yml",
          NULL, &c, &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, GST_CO_CALIBRATION_ERROR_READ);
  g_clear_error (&err);
  g_free (intr);
  g_free (extr);
}

/* Real-world files (tests/data/calib-examples/SOURCES.md: where each came
 * from and its licence) parse to the numbers in them. */
static void
test_real_world (void)
{
  GstCoCalibration c;
  GError *err = NULL;
  gchar *path;

  path = data_path ("calib-examples/ros-stereo-right.yaml");
  g_assert_true (gst_co_calibration_load (path, NULL, &c, &err));
  g_assert_no_error (err);
  g_assert_cmpint (c.model, ==, CO_CAMERA_PINHOLE);
  g_assert_cmpint (c.image_width, ==, 640);
  g_assert_cmpint (c.image_height, ==, 400);
  g_assert_cmpfloat_with_epsilon (c.p[3], -34.0834, 1e-3);
  g_assert_cmpfloat (c.r[0], !=, 1.0);
  g_free (path);

  path = data_path ("calib-examples/ros-mono-image-common.yaml");
  g_assert_true (gst_co_calibration_load (path, NULL, &c, &err));
  g_assert_cmpfloat_with_epsilon (c.dist[CO_DIST_K1], -1.04482, 1e-4);
  g_free (path);

  path = data_path ("calib-examples/kalibr-camchain-stereo.yaml");
  g_assert_true (gst_co_calibration_load (path, "cam1", &c, &err));
  g_assert_no_error (err);
  g_assert_cmpint (c.image_width, ==, 752);
  g_assert_cmpfloat (c.fx, >, 400.0);
  g_free (path);

  path = data_path ("calib-examples/opencv-stereo-intrinsics.yml");
  g_assert_true (gst_co_calibration_load (path, "right", &c, &err));
  g_assert_no_error (err);
  g_assert_cmpfloat (c.fy, >, 1.9 * c.fx);      /* as that sensor stores it */
  g_free (path);

  /* the sample's extrinsics alone hold no camera matrix: named, not mapped */
  path = data_path ("calib-examples/opencv-stereo-extrinsics.yml");
  g_assert_false (gst_co_calibration_load (path, NULL, &c, &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, GST_CO_CALIBRATION_ERROR_PARSE);
  g_assert_nonnull (strstr (err->message, "no M1"));
  g_clear_error (&err);
  g_free (path);
}

static void
test_xml_structure (void)
{
  edit_fails (xml_alias_old, "<rows>3</rows><cols>3</cols><dt>f",
      "<rows>3</cols><cols>3</cols><dt>f", GST_CO_CALIBRATION_ERROR_PARSE,
      "XML, line");
  edit_fails (xml_alias_old, "</opencv_storage>",
      "</opencv_storage><opencv_storage></opencv_storage>",
      GST_CO_CALIBRATION_ERROR_PARSE, "XML, line");
  edit_fails (xml_alias_old, "</opencv_storage>", "</opencv_storage></x>",
      GST_CO_CALIBRATION_ERROR_PARSE, "XML, line");
  edit_ok (xml_alias_old, "<image_height>", "<empty/><image_height>");
}

/* the example: JSON as json.dumps writes it, no blanks, the
 * coefficients flat */
static const gchar json_compact[] =
    "{\"camera_matrix\":[[500.5,0,320],[0,501,240],[0,0,1]],"
    "\"distortion_coefficients\":[-0.2,0.05,0.001,-0.002,0.01],"
    "\"image_width\":640,\"image_height\":480}";

/* a camera_info with every matrix a list of rows, R and P included */
static const gchar ros_nested[] =
    "image_width: 640\nimage_height: 480\n"
    "camera_matrix:\n  rows: 3\n  cols: 3\n"
    "  data: [[520.1, 0, 321.5], [0, 519.8, 244.2], [0, 0, 1]]\n"
    "distortion_model: plumb_bob\n"
    "distortion_coefficients: [[-0.21], [0.05], [0.001], [-0.002], [0]]\n"
    "rectification_matrix: [[0, -1, 0], [1, 0, 0], [0, 0, 1]]\n"
    "projection_matrix: [[500, 0, 330, -35], [0, 500, 240, 0], [0, 0, 1, 0]]\n";

/* Matrices as lists of rows read as their rows one after the other, the
 * same numbers as a flat list; what is wrong with a list that is not a
 * matrix is named. */
static void
test_nested (void)
{
  GstCoCalibration c;
  gchar *path;
  GError *err = NULL;
  gint fd;

  parse_ok (json_compact, &c);
  g_assert_cmpfloat (c.fx, ==, 500.5);
  g_assert_cmpfloat (c.fy, ==, 501.0);
  g_assert_cmpfloat (c.cx, ==, 320.0);
  g_assert_cmpfloat (c.cy, ==, 240.0);
  g_assert_cmpfloat (c.dist[CO_DIST_K1], ==, -0.2);
  g_assert_cmpfloat (c.dist[CO_DIST_K3], ==, 0.01);
  g_assert_cmpint (c.image_width, ==, 640);
  assert_camera_defaults (&c);

  parse_ok (ros_nested, &c);
  g_assert_cmpfloat (c.fx, ==, 520.1);
  g_assert_cmpfloat (c.cy, ==, 244.2);
  g_assert_cmpfloat (c.dist[CO_DIST_K2], ==, 0.05);
  g_assert_cmpfloat (c.dist[CO_DIST_P2], ==, -0.002);
  g_assert_cmpfloat (c.r[1], ==, -1.0);
  g_assert_cmpfloat (c.r[3], ==, 1.0);
  g_assert_cmpfloat (c.p[2], ==, 330.0);
  g_assert_cmpfloat (c.p[3], ==, -35.0);
  g_assert_cmpfloat (c.p[10], ==, 1.0);
  edit_ok (ros_nested, "[[-0.21], [0.05], [0.001], [-0.002], [0]]",
      "[[-0.21, 0.05, 0.001, -0.002, 0]]");
  edit_ok (ros_nested, "[[500, 0, 330, -35], [0, 500, 240, 0], [0, 0, 1, 0]]",
      "[[500, 0, 330], [0, 500, 240], [0, 0, 1]]");

  /* ragged: the field and each row's length */
  edit_fails (json_compact, "[0,501,240]", "[0,501]",
      GST_CO_CALIBRATION_ERROR_PARSE,
      "camera_matrix: its rows have 3, 2 and 3 values");
  edit_fails (ros_nested, "[0, 500, 240, 0]", "[0, 500, 240]",
      GST_CO_CALIBRATION_ERROR_PARSE,
      "projection_matrix: its rows have 4, 3 and 4 values");
  edit_fails (ros_nested, "[[-0.21], [0.05]", "[[-0.21, 0.05]",
      GST_CO_CALIBRATION_ERROR_PARSE,
      "distortion_coefficients: its rows have 2, 1, 1 and 1 values");
  /* rows and numbers mixed, a list too deep, a number that is not one */
  edit_fails (json_compact, "[0,0,1]]", "0,0,1]",
      GST_CO_CALIBRATION_ERROR_PARSE, "camera_matrix mixes numbers and lists");
  edit_fails (json_compact, "[[500.5,0,320]", "[500.5,0,320",
      GST_CO_CALIBRATION_ERROR_PARSE, "camera_matrix mixes numbers and lists");
  edit_fails (json_compact, "[0,0,1]]", "[0,0,[1]]]",
      GST_CO_CALIBRATION_ERROR_PARSE, "camera_matrix mixes numbers and lists");
  edit_fails (json_compact, "501", "\"x\"", GST_CO_CALIBRATION_ERROR_PARSE,
      "camera_matrix: row 1, value 1 is not a finite number");
  /* the right count in the wrong shape */
  edit_fails (json_compact, "[[500.5,0,320],[0,501,240],[0,0,1]]",
      "[[500.5,0,320,0,501,240,0,0,1]]", GST_CO_CALIBRATION_ERROR_PARSE,
      "camera_matrix is 1x9; it must be 3x3");
  edit_fails (ros_nested, "[[0, -1, 0], [1, 0, 0], [0, 0, 1]]",
      "[[0, -1, 0, 1, 0, 0, 0, 0, 1]]", GST_CO_CALIBRATION_ERROR_PARSE,
      "rectification_matrix is 1x9; it must be 3x3");
  edit_fails (ros_nested, "[[500, 0, 330, -35], [0, 500, 240, 0], [0, 0, 1, 0]]",
      "[[500, 0, 330], [-35, 0, 500], [240, 0, 0], [0, 1, 0]]",
      GST_CO_CALIBRATION_ERROR_PARSE,
      "projection_matrix is 4x3; it must be 3x3 or 3x4");
  edit_fails (ros_nested, "[[-0.21], [0.05], [0.001], [-0.002], [0]]",
      "[[-0.21, 0.05], [0.001, -0.002]]", GST_CO_CALIBRATION_ERROR_PARSE,
      "distortion_coefficients is 2x2; it must be one row or one column");
  /* rows and cols beside a list of rows must agree with it */
  edit_fails (ros_nested, "rows: 3\n  cols: 3\n  data: [[520.1, 0, 321.5], ",
      "rows: 3\n  cols: 3\n  data: [[520.1, 0, 321.5, 0], ",
      GST_CO_CALIBRATION_ERROR_PARSE, "camera_matrix: its rows have 4, 3");
  edit_fails (ros_nested, "rows: 3\n  cols: 3", "rows: 1\n  cols: 9",
      GST_CO_CALIBRATION_ERROR_PARSE,
      "camera_matrix has rows: 1, cols: 9 but its data is 3 rows of 3");
  edit_fails (ros_nested, "rows: 3\n  cols: 3", "rows: 9",
      GST_CO_CALIBRATION_ERROR_PARSE,
      "camera_matrix has rows: 9 but its data is 3 rows of 3");

  /* a .json file's syntax errors say JSON */
  fd = g_file_open_tmp ("co-calib-XXXXXX.json", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  g_close (fd, NULL);
  g_assert_true (g_file_set_contents (path, json_compact,
          sizeof json_compact - 2, NULL));
  g_assert_false (gst_co_calibration_load (path, NULL, &c, &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, GST_CO_CALIBRATION_ERROR_PARSE);
  if (!strstr (err->message, "JSON, line"))
    g_error ("message '%s' lacks 'JSON, line'", err->message);
  g_clear_error (&err);
  g_assert_true (g_file_set_contents (path, json_compact, -1, NULL));
  g_assert_true (gst_co_calibration_load (path, NULL, &c, &err));
  g_assert_no_error (err);
  g_assert_cmpfloat (c.fx, ==, 500.5);
  g_unlink (path);
  g_free (path);
}

/* A FIFO would block the state change forever: refused without a reader. */
static void
test_not_regular (void)
{
  gchar *dir = g_dir_make_tmp ("co-calib-XXXXXX", NULL);
  gchar *fifo = g_build_filename (dir, "calib.yml", NULL);
  GstCoCalibration c;
  GError *err = NULL;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_false (gst_co_calibration_load (fifo, NULL, &c, &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, GST_CO_CALIBRATION_ERROR_READ);
  g_assert_nonnull (strstr (err->message, "not a regular file"));
  g_clear_error (&err);
  g_assert_false (gst_co_calibration_load ("/dev/zero", NULL, &c, &err));
  g_assert_nonnull (strstr (err->message, "not a regular file"));
  g_clear_error (&err);
  g_unlink (fifo);
  g_rmdir (dir);
  g_free (fifo);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  data_dir = g_getenv ("CO_TEST_DATA_DIR");
#ifdef CO_TEST_DATA_DIR
  if (data_dir == NULL)
    data_dir = CO_TEST_DATA_DIR;
#endif
  if (data_dir == NULL)
    g_error ("set CO_TEST_DATA_DIR to the tests/data directory");

  g_test_add_func ("/calibration/good-files", test_good_files);
  g_test_add_func ("/calibration/mtx-dist", test_mtx_dist);
  g_test_add_func ("/calibration/bad-files", test_bad_files);
  g_test_add_func ("/calibration/read-errors", test_read_errors);
  g_test_add_func ("/calibration/prefixes", test_prefixes);
  g_test_add_func ("/calibration/inline", test_inline);
  g_test_add_func ("/calibration/inline-errors", test_inline_errors);
  g_test_add_func ("/calibration/absurd-values", test_absurd_values);
  g_test_add_func ("/calibration/xml-structure", test_xml_structure);
  g_test_add_func ("/calibration/kalibr", test_kalibr);
  g_test_add_func ("/calibration/stereo", test_stereo);
  g_test_add_func ("/calibration/real-world", test_real_world);
  g_test_add_func ("/calibration/rectification-file",
      test_rectification_file);
  g_test_add_func ("/calibration/not-regular", test_not_regular);
  g_test_add_func ("/calibration/nested", test_nested);
  return g_test_run ();
}
