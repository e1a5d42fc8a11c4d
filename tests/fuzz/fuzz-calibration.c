/* cudaoptics — LGPL-2.1-or-later */

/* Fuzz target: gst_co_calibration_parse() on arbitrary bytes.
 *
 * Built two ways (tests/fuzz/README.md): by .ci/fuzz.sh with clang
 * -fsanitize=fuzzer,address,undefined, and by meson with the ordinary
 * compiler and replay.c, as the test unit-fuzz-regressions-calibration that
 * replays tests/data (every calibration file and tests/data/fuzz/calibration/).
 *
 * Beyond memory safety it checks the parser's contract: a failure sets a
 * GError of GST_CO_CALIBRATION_ERROR with a message, a success gives finite
 * numbers within what cudalensdistort's properties accept. */

// Read by .ci/fuzz.sh (paths from the project root; seeds are globs):
// fuzz-sources: common/sources/gstcocalibration.c common/sources/gstcofile.c kernels/co_camera.c
// fuzz-seeds: tests/data/*.yml tests/data/*.xml tests/data/*.json pipelines/samples/*.yml
// fuzz-dict: tests/fuzz/calibration.dict

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib.h>

#include "gstcocalibration.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  GstCoCalibration calib;
  GError *err = NULL;
  gboolean ok;

  ok = gst_co_calibration_parse ((const gchar *) data, size, NULL, &calib,
      &err);
  co_fuzz_check_result ("gst_co_calibration_parse", ok, &calib, err);
  g_clear_error (&err);
  /* the second camera of stereo files and camchains */
  ok = gst_co_calibration_parse ((const gchar *) data, size, "right", &calib,
      &err);
  co_fuzz_check_result ("gst_co_calibration_parse", ok, &calib, err);
  g_clear_error (&err);
  /* as a rectification-file for a plain camera */
  co_camera_init (&calib, 500.0, 500.0, 320.0, 240.0);
  ok = gst_co_calibration_parse_rectification ((const gchar *) data, size,
      "right", &calib, &err);
  co_fuzz_check_result ("gst_co_calibration_parse_rectification", ok, &calib,
      err);
  g_clear_error (&err);
  return 0;
}
