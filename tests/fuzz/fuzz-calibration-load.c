/* cudaoptics — LGPL-2.1-or-later */

/* Fuzz target: gst_co_calibration_load() on a file holding arbitrary bytes
 * (the reading and error-prefixing path around the parser), checked against
 * gst_co_calibration_parse() on the same bytes.  Slower than
 * fuzz-calibration (a file written and read per input). */

// Read by .ci/fuzz.sh (paths from the project root; seeds are globs):
// fuzz-sources: common/sources/gstcocalibration.c common/sources/gstcofile.c kernels/co_camera.c
// fuzz-seeds: tests/data/*.yml tests/data/*.xml tests/data/*.json pipelines/samples/*.yml tests/data/fuzz/calibration/*
// fuzz-dict: tests/fuzz/calibration.dict

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "gstcocalibration.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static gchar *tmp_path;

static void
remove_tmp (void)
{
  if (tmp_path)
    g_unlink (tmp_path);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  GstCoCalibration calib, pcalib;
  GError *err = NULL, *perr = NULL;
  gboolean ok, pok;
  FILE *f;

  if (tmp_path == NULL) {
    gint fd = g_file_open_tmp ("co-fuzz-calib-XXXXXX.yml", &tmp_path, NULL);

    if (fd < 0)
      abort ();
    close (fd);
    atexit (remove_tmp);
  }
  if ((f = fopen (tmp_path, "wb")) == NULL
      || (size > 0 && fwrite (data, 1, size, f) != size) || fclose (f) != 0) {
    fprintf (stderr, "cannot write %s: %s\n", tmp_path, g_strerror (errno));
    abort ();
  }
  ok = gst_co_calibration_load (tmp_path, NULL, &calib, &err);
  co_fuzz_check_result ("gst_co_calibration_load", ok, &calib, err);
  if (size > GST_CO_CALIBRATION_MAX_FILE_SIZE) {
    /* refused before parsing (the bundled stereo pictures are such) */
    if (ok || strstr (err->message, "larger than") == NULL)
      CO_FUZZ_FAIL ("a file of %zu bytes: %s", size,
          ok ? "loaded" : err->message);
    g_clear_error (&err);
    return 0;
  }

  /* loading a file is parsing its bytes: same verdict, same numbers, and
   * the same message behind the file's name */
  pok = gst_co_calibration_parse ((const gchar *) data, size, NULL, &pcalib,
      &perr);
  if (ok != pok)
    CO_FUZZ_FAIL ("load says %d, parse says %d (%s)", ok, pok,
        ok ? perr->message : err->message);
  if (ok && memcmp (&calib, &pcalib, sizeof (calib)) != 0)
    CO_FUZZ_FAIL ("load and parse give different calibrations");
  if (!ok) {
    gchar *base = g_path_get_basename (tmp_path);
    gsize ml = strlen (err->message), pl = strlen (perr->message);

    if (strstr (err->message, base) == NULL)
      CO_FUZZ_FAIL ("load error does not name the file: %s", err->message);
    if (err->code != perr->code || ml < pl
        || strcmp (err->message + ml - pl, perr->message) != 0)
      CO_FUZZ_FAIL ("load error \"%s\" is not parse error \"%s\"",
          err->message, perr->message);
    g_free (base);
  }
  g_clear_error (&err);
  g_clear_error (&perr);
  return 0;
}
