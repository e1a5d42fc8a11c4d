/* cudaoptics — LGPL-2.1-or-later */

/* A libFuzzer-compatible driver for builds without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file named, directories recursively
 * (in sorted order).  The regression tests unit-fuzz-regressions-* are this
 * driver linked with one fuzz target, built by the ordinary compiler (and
 * so also under ASan/UBSan and valgrind).  Fails when no file was found, so
 * a wrong path cannot pass silently. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv) __attribute__((weak));

static int n_files;

static gint
cmp (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar * const *) a, *(const gchar * const *) b);
}

static void
replay (const gchar * path)
{
  GError *err = NULL;

  if (g_file_test (path, G_FILE_TEST_IS_DIR)) {
    GDir *dir = g_dir_open (path, 0, &err);
    GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
    const gchar *n;
    guint i;

    if (dir == NULL) {
      fprintf (stderr, "%s\n", err->message);
      exit (1);
    }
    while ((n = g_dir_read_name (dir)) != NULL)
      if (n[0] != '.')
        g_ptr_array_add (names, g_build_filename (path, n, NULL));
    g_dir_close (dir);
    g_ptr_array_sort (names, cmp);
    for (i = 0; i < names->len; i++)
      replay (g_ptr_array_index (names, i));
    g_ptr_array_unref (names);
  } else {
    gchar *data;
    gsize len;

    if (!g_file_get_contents (path, &data, &len, &err)) {
      fprintf (stderr, "%s\n", err->message);
      exit (1);
    }
    /* the exact bytes, in a buffer of exactly that size, as libFuzzer does:
     * g_file_get_contents NUL-terminates, which would hide an over-read */
    {
      uint8_t *copy = malloc (len ? len : 1);

      memcpy (copy, data, len);
      g_free (data);
      fprintf (stderr, "replay %s (%" G_GSIZE_FORMAT " bytes)\n", path, len);
      LLVMFuzzerTestOneInput (copy, len);
      free (copy);
    }
    n_files++;
  }
}

int
main (int argc, char **argv)
{
  int i;

  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize (&argc, &argv);
  if (argc < 2) {
    fprintf (stderr, "usage: %s FILE|DIR...\n", argv[0]);
    return 2;
  }
  for (i = 1; i < argc; i++)
    replay (argv[i]);
  if (n_files == 0) {
    fprintf (stderr, "no input files found\n");
    return 1;
  }
  printf ("%d inputs replayed, no failure\n", n_files);
  return 0;
}
