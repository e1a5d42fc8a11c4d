/* cudaoptics — LGPL-2.1-or-later
 *
 * cudaaberration's kernel files (common/sources/gstcocltkernels.h): the bundled
 * example reads to its numbers and writes back to the same bytes; each way
 * a file can be wrong is refused with an error that says what is wrong
 * (and, from a path, names the file); a FIFO does not block.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "gstcocltkernels.h"

static gchar *
data_path (const gchar * name)
{
  return g_build_filename (g_getenv ("CO_TEST_DATA_DIR"), name, NULL);
}

static GBytes *
example (void)
{
  gchar *path = data_path ("clt-identity-3x3.cltk"), *d;
  gsize n;
  g_assert_true (g_file_get_contents (path, &d, &n, NULL));
  g_free (path);
  return g_bytes_new_take (d, n);
}

static void
test_example (void)
{
  gchar *path = data_path ("clt-identity-3x3.cltk");
  GstCoCltKernels k;
  GError *err = NULL;
  GBytes *orig = example (), *back;
  const gfloat *node;

  g_assert_true (gst_co_clt_kernels_load (path, &k, &err));
  g_assert_no_error (err);
  g_assert_cmpint (k.colours, ==, 3);
  g_assert_cmpint (k.grid_w, ==, 3);
  g_assert_cmpint (k.grid_h, ==, 3);
  g_assert_cmpint (k.stride, ==, 16);
  g_assert_cmpint (k.width, ==, 33);
  node = gst_co_clt_kernels_node (&k, 2, 1, 2);  /* blue */
  g_assert_cmpfloat (node[0], ==, 0.25f);
  g_assert_cmpfloat (node[1], ==, -0.125f);
  g_assert_cmpfloat (node[2], ==, 1.0f);
  g_assert_cmpfloat (node[2 + 64], ==, 0.0f);
  back = gst_co_clt_kernels_serialize (&k);
  g_assert_true (g_bytes_equal (orig, back));
  g_bytes_unref (back);
  g_bytes_unref (orig);
  gst_co_clt_kernels_clear (&k);
  g_free (path);
}

/* the example with @len bytes changed at @offset (or cut to @cut) */
static void
bad (gsize offset, const void *bytes, gsize len, gssize cut, const gchar * why)
{
  GBytes *orig = example ();
  gsize n = g_bytes_get_size (orig);
  guint8 *d = g_malloc (n);
  GstCoCltKernels k;
  GError *err = NULL;

  /* (g_memdup2 is GLib 2.68; Debian 11 has 2.66) */
  memcpy (d, g_bytes_get_data (orig, NULL), n);
  if (len)
    memcpy (d + offset, bytes, len);
  if (cut >= 0)
    n = (gsize) cut;
  g_assert_false (gst_co_clt_kernels_parse (d, n, &k, &err));
  g_assert_error (err, GST_CO_CLT_KERNELS_ERROR,
      GST_CO_CLT_KERNELS_ERROR_PARSE);
  if (!strstr (err->message, why))
    g_error ("'%s' does not say '%s'", err->message, why);
  g_test_message ("%s", err->message);
  g_clear_error (&err);
  g_free (d);
  g_bytes_unref (orig);
}

static void
test_bad_files (void)
{
  const guint32 two = 2, zero = 0, big = 5000, narrow = 8;
  const gfloat nan = 0.0f / 0.0f, far = 65.0f;

  bad (0, "CO-MAP1\n", 8, -1, "not a kernel file");
  bad (0, NULL, 0, 20, "shorter than a kernel file's header");
  bad (0, NULL, 0, 27903, "27904 bytes, the file 27903");
  bad (8, &two, 4, -1, "version 2");
  bad (12, &two, 4, -1, "2 colours");
  bad (16, &zero, 4, -1, "grid width is 0");
  bad (20, &big, 4, -1, "grid height is 5000");
  bad (24, &narrow, 4, -1, "does not reach the corner");
  bad (28, &zero, 4, -1, "width is 0");
  bad (36, &two, 4, -1, "reserved word is 2");
  bad (40 + 4 * 258 * 4 + 8, &nan, 4, -1, "node (1, 0), colour 1: "
      "a coefficient is not a finite number");
  bad (40, &far, 4, -1, "shift 65 is beyond 64 pixels");
}

static void
test_read_errors (void)
{
  gchar *fifo = g_strdup_printf ("%s/co-cltk-fifo-%d", g_get_tmp_dir (), (int) getpid ());
  GstCoCltKernels k;
  GError *err = NULL;

  g_assert_false (gst_co_clt_kernels_load ("/nonexistent/k.cltk", &k, &err));
  g_assert_error (err, GST_CO_CLT_KERNELS_ERROR,
      GST_CO_CLT_KERNELS_ERROR_READ);
  g_assert_nonnull (strstr (err->message, "/nonexistent/k.cltk"));
  g_clear_error (&err);
  g_unlink (fifo);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_false (gst_co_clt_kernels_load (fifo, &k, &err));
  g_assert_nonnull (strstr (err->message, "not a regular file"));
  g_clear_error (&err);
  g_unlink (fifo);
  g_free (fifo);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/clt-kernels/example", test_example);
  g_test_add_func ("/clt-kernels/bad-files", test_bad_files);
  g_test_add_func ("/clt-kernels/read-errors", test_read_errors);
  return g_test_run ();
}
