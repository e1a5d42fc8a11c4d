/* cudaoptics — LGPL-2.1-or-later */

#include <errno.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "gstcocalibration.h"

#define EPS 1e-12

static const gchar *data_dir;

static const gchar *const good_files[] = { "calib-opencv.yml",
  "calib-opencv.xml"
};

static const struct
{
  const gchar *file;
  GstCoCalibrationError code;
  const gchar *needle;          /* must also appear in the message */
} bad_files[] = {
  {"calib-bad-truncated.yml", GST_CO_CALIBRATION_ERROR_PARSE, "camera_matrix"},
  {"calib-bad-truncated.xml", GST_CO_CALIBRATION_ERROR_PARSE, "truncated"},
  {"calib-bad-3x2.xml", GST_CO_CALIBRATION_ERROR_PARSE, "camera_matrix"},
  {"calib-bad-rational.yml", GST_CO_CALIBRATION_ERROR_UNSUPPORTED,
      "rational"},
  {"calib-bad-nan.yml", GST_CO_CALIBRATION_ERROR_PARSE, "camera_matrix"},
  {"calib-bad-fisheye.yml", GST_CO_CALIBRATION_ERROR_UNSUPPORTED, "fisheye"},
  {"calib-bad-junk.yml", GST_CO_CALIBRATION_ERROR_PARSE, "camera_matrix"},
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

static gchar *
data_path (const gchar * file)
{
  return g_build_filename (data_dir, file, NULL);
}

static void
assert_expected (const GstCoCalibration * c)
{
  g_assert_cmpfloat_with_epsilon (c->fx, 5.3590869472741565e+02, EPS);
  g_assert_cmpfloat_with_epsilon (c->fy, 5.3590869472741565e+02, EPS);
  g_assert_cmpfloat_with_epsilon (c->cx, 3.4228954136734012e+02, EPS);
  g_assert_cmpfloat_with_epsilon (c->cy, 2.3557367287018937e+02, EPS);
  g_assert_cmpfloat_with_epsilon (c->k1, -2.6635836741432600e-01, EPS);
  g_assert_cmpfloat_with_epsilon (c->k2, -3.8720512336087143e-02, EPS);
  g_assert_cmpfloat_with_epsilon (c->p1, 1.7800719357420375e-03, EPS);
  g_assert_cmpfloat_with_epsilon (c->p2, -2.8906148301532150e-04, EPS);
  g_assert_cmpfloat_with_epsilon (c->k3, 2.3822659064741392e-01, EPS);
  g_assert_cmpint (c->image_width, ==, 640);
  g_assert_cmpint (c->image_height, ==, 480);
}

static void
parse_ok (const gchar * text, GstCoCalibration * c)
{
  GError *err = NULL;

  memset (c, 0xff, sizeof (*c));
  g_assert_true (gst_co_calibration_parse (text, strlen (text), c, &err));
  g_assert_no_error (err);
}

static void
parse_fails (const gchar * text, gsize len, GstCoCalibrationError code,
    const gchar * needle)
{
  GstCoCalibration c;
  GError *err = NULL;

  g_assert_false (gst_co_calibration_parse (text, len, &c, &err));
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

static void
test_good_files (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (good_files); i++) {
    gchar *path = data_path (good_files[i]);
    GstCoCalibration c;
    GError *err = NULL;

    memset (&c, 0, sizeof (c));
    g_assert_true (gst_co_calibration_load (path, &c, &err));
    g_assert_no_error (err);
    assert_expected (&c);
    g_free (path);
  }
}

static void
test_bad_files (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad_files); i++) {
    gchar *path = data_path (bad_files[i].file);
    GstCoCalibration c;
    GError *err = NULL;

    g_assert_false (gst_co_calibration_load (path, &c, &err));
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

  g_assert_false (gst_co_calibration_load (path, &c, &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, GST_CO_CALIBRATION_ERROR_READ);
  g_assert_nonnull (strstr (err->message, "no-such-calibration.yml"));
  g_assert_nonnull (strstr (err->message, g_strerror (ENOENT)));
  g_clear_error (&err);
  g_free (path);

  /* a directory opens but cannot be read */
  g_assert_false (gst_co_calibration_load (data_dir, &c, &err));
  g_assert_error (err, GST_CO_CALIBRATION_ERROR, GST_CO_CALIBRATION_ERROR_READ);
  g_clear_error (&err);

  fd = g_file_open_tmp ("co-calib-XXXXXX.yml", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  big = g_malloc0 (1024 * 1024 + 1);
  memset (big, '#', 1024 * 1024);
  g_assert_true (g_file_set_contents (path, big, 1024 * 1024 + 1, NULL));
  g_assert_false (gst_co_calibration_load (path, &c, &err));
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
      if (gst_co_calibration_parse (buf, n, &c, &err)) {
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
  g_assert_cmpfloat_with_epsilon (c.p2, -2.0e-03, EPS);
  g_assert_cmpfloat (c.k3, ==, 0.0);
  g_assert_cmpint (c.image_width, ==, 0);
  g_assert_cmpint (c.image_height, ==, 0);

  parse_ok (yaml_8coef_zero_tail, &c);
  g_assert_cmpfloat_with_epsilon (c.k1, -0.2, EPS);
  g_assert_cmpfloat_with_epsilon (c.k3, -0.01, EPS);

  parse_ok (yaml_old_node, &c);
  g_assert_cmpfloat_with_epsilon (c.fx, 700.0, EPS);
  g_assert_cmpfloat_with_epsilon (c.fy, 705.0, EPS);
  g_assert_cmpfloat_with_epsilon (c.k3, 5.0, EPS);

  parse_ok (xml_alias_old, &c);
  g_assert_cmpfloat_with_epsilon (c.fx, 800.0, EPS);
  g_assert_cmpfloat_with_epsilon (c.cy, 240.0, EPS);
  g_assert_cmpfloat_with_epsilon (c.k3, 0.5, EPS);
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
      "camera_matrix");
  parse_fails ("{ \"camera_matrix\": 1 }", 22,
      GST_CO_CALIBRATION_ERROR_UNSUPPORTED, "JSON");
  parse_fails ("\x01\xff\xfe<\x80\x00garbage", 12,
      GST_CO_CALIBRATION_ERROR_PARSE, NULL);
  parse_fails ("<?xml version=\"1.0\"?>\n<storage></storage>\n", 42,
      GST_CO_CALIBRATION_ERROR_PARSE, "opencv_storage");

  /* only the _old node: not taken */
  s = g_strndup (yaml_old_node, strstr (yaml_old_node, "\ncamera_matrix:")
      + 1 - yaml_old_node);
  parse_fails (s, strlen (s), GST_CO_CALIBRATION_ERROR_PARSE,
      "no camera_matrix");
  g_free (s);

  edit_fails (yaml_4coef_alias, "510.", "-510.", GST_CO_CALIBRATION_ERROR_PARSE,
      "cameraMatrix: fx and fy");
  edit_fails (yaml_4coef_alias, "240., 0., 0., 1.", "240., 2., 0., 1.",
      GST_CO_CALIBRATION_ERROR_PARSE, "element [6]");
  edit_fails (yaml_4coef_alias, "0., 0., 1. ]", "0., 0., 2. ]",
      GST_CO_CALIBRATION_ERROR_PARSE, "element [8]");
  edit_fails (yaml_4coef_alias, "0., 510.", "0.5, 510.",
      GST_CO_CALIBRATION_ERROR_PARSE, "element [3]");
  edit_fails (yaml_4coef_alias, "500.", "5.0x2", GST_CO_CALIBRATION_ERROR_PARSE,
      "cameraMatrix: value 1 is not a finite number");
  edit_fails (yaml_4coef_alias, "500.", "1e999", GST_CO_CALIBRATION_ERROR_PARSE,
      "cameraMatrix: value 1");
  edit_fails (yaml_4coef_alias, "500.", "-.Inf", GST_CO_CALIBRATION_ERROR_PARSE,
      "cameraMatrix: value 1");
  edit_fails (yaml_4coef_alias, "500.", "nan", GST_CO_CALIBRATION_ERROR_PARSE,
      "cameraMatrix: value 1");
  edit_fails (yaml_4coef_alias, "rows: 4", "rows: 5",
      GST_CO_CALIBRATION_ERROR_PARSE, "dist_coeffs is 5x1 but its data has 4");
  edit_fails (yaml_4coef_alias, "rows: 4", "rows: four",
      GST_CO_CALIBRATION_ERROR_PARSE, "dist_coeffs.rows");
  edit_fails (yaml_4coef_alias, "[ -1.0e-01, ", "[ ",
      GST_CO_CALIBRATION_ERROR_PARSE, "dist_coeffs is 4x1 but");
  edit_fails (yaml_4coef_alias, "[ -1.0e-01, 1.0e-02, 1.0e-03, -2.0e-03 ]",
      "[ ]", GST_CO_CALIBRATION_ERROR_PARSE,
      "dist_coeffs is 4x1 but its data has 0 values");
  edit_fails (yaml_4coef_alias, "dist_coeffs:", "dist_coeffs_x:",
      GST_CO_CALIBRATION_ERROR_PARSE, "no distortion_coefficients");
  edit_fails (yaml_4coef_alias, "]\ndist", "\ndist",
      GST_CO_CALIBRATION_ERROR_PARSE, "cameraMatrix.data: unterminated [");
  edit_fails (yaml_8coef_zero_tail, "0.,\n       0. ]", "3.,\n       0. ]",
      GST_CO_CALIBRATION_ERROR_UNSUPPORTED, "rational");
  edit_fails (yaml_8coef_zero_tail, "cols: 8", "cols: 6",
      GST_CO_CALIBRATION_ERROR_PARSE, "distCoeffs is 1x6");
  edit_fails (xml_alias_old, "0.5 0. 0. 0. 0. 0. 0. 0. 0. 0.",
      "0.5 0. 0. 0. 0. 0. 0. 0. 0. 1e-3", GST_CO_CALIBRATION_ERROR_UNSUPPORTED,
      "tilt");
  edit_fails (xml_alias_old, "0.5 0. 0. 0. 0.", "0.5 0. 0. 0. 4.",
      GST_CO_CALIBRATION_ERROR_UNSUPPORTED, "thin-prism");
  edit_fails (xml_alias_old, "<image_width>1280", "<image_width>12.5",
      GST_CO_CALIBRATION_ERROR_PARSE, "image_width");
  edit_fails (xml_alias_old, "</distCoeffs>", "</distCoeffs",
      GST_CO_CALIBRATION_ERROR_PARSE, "XML");
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
  g_test_add_func ("/calibration/bad-files", test_bad_files);
  g_test_add_func ("/calibration/read-errors", test_read_errors);
  g_test_add_func ("/calibration/prefixes", test_prefixes);
  g_test_add_func ("/calibration/inline", test_inline);
  g_test_add_func ("/calibration/inline-errors", test_inline_errors);
  return g_test_run ();
}
