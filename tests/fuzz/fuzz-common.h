/* cudaoptics — LGPL-2.1-or-later */

/* Checks shared by the fuzz targets: a broken contract aborts, so libFuzzer
 * (and the replay test) report it like a crash. */

#ifndef __CO_FUZZ_COMMON_H__
#define __CO_FUZZ_COMMON_H__

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib.h>

#include "gstcocalibration.h"

#include "fuzz-fail.h"

/* A failure: exactly one GError of the calibration domain with a message.
 * A success: no error, finite values in the ranges the header promises. */
static inline void
co_fuzz_check_result (const char *fn, gboolean ok,
    const GstCoCalibration * c, const GError * err)
{
  double v[4 + CO_CAMERA_N_DIST];
  unsigned i;

  if (!ok) {
    if (err == NULL || err->domain != GST_CO_CALIBRATION_ERROR
        || err->message == NULL || err->message[0] == '\0')
      CO_FUZZ_FAIL ("%s failed without a calibration GError", fn);
    /* GError messages must be UTF-8: they end up in GstMessages, logs and
     * Python (PyGObject decodes them); the parser escapes the file's bytes
     * it quotes (found by this fuzzer: tests/data/fuzz/calibration/
     * error-message-not-utf8-*) */
    if (!g_utf8_validate (err->message, -1, NULL))
      CO_FUZZ_FAIL ("%s: error message is not UTF-8: %s", fn, err->message);
    return;
  }
  if (err != NULL)
    CO_FUZZ_FAIL ("%s succeeded but set an error: %s", fn, err->message);
  v[0] = c->fx;
  v[1] = c->fy;
  v[2] = c->cx;
  v[3] = c->cy;
  for (i = 0; i < CO_CAMERA_N_DIST; i++)
    v[4 + i] = c->dist[i];
  if (!co_camera_is_supported (c))
    CO_FUZZ_FAIL ("%s: a model or coefficients the maps cannot evaluate", fn);
  for (i = 0; i < 9; i++)
    if (!isfinite (c->r[i]))
      CO_FUZZ_FAIL ("%s: R[%u] is not finite", fn, i);
  for (i = 0; i < 12; i++)
    if (!isfinite (c->p[i]))
      CO_FUZZ_FAIL ("%s: P[%u] is not finite", fn, i);
  for (i = 0; i < G_N_ELEMENTS (v); i++)
    if (!isfinite (v[i]))
      CO_FUZZ_FAIL ("%s: value %u is not finite (%g)", fn, i, v[i]);
  if (!(c->fx > 0) || !(c->fy > 0))
    CO_FUZZ_FAIL ("%s: fx %g fy %g not positive", fn, c->fx, c->fy);
  if (c->image_width < 0 || c->image_height < 0)
    CO_FUZZ_FAIL ("%s: negative image size %d x %d", fn, c->image_width,
        c->image_height);
#if defined (GST_CO_CALIBRATION_MAX_PIXELS) && !defined (CO_FUZZ_SKIP_RANGE_CHECK)
  /* the ranges of cudalensdistort's properties (gstcocalibration.h) */
  if (c->fx < GST_CO_CALIBRATION_MIN_FOCAL
      || c->fy < GST_CO_CALIBRATION_MIN_FOCAL
      || c->fx > GST_CO_CALIBRATION_MAX_PIXELS
      || c->fy > GST_CO_CALIBRATION_MAX_PIXELS)
    CO_FUZZ_FAIL ("%s: focal length out of range: fx %g fy %g", fn, c->fx,
        c->fy);
  if (fabs (c->cx) > GST_CO_CALIBRATION_MAX_PIXELS
      || fabs (c->cy) > GST_CO_CALIBRATION_MAX_PIXELS)
    CO_FUZZ_FAIL ("%s: principal point out of range: cx %g cy %g", fn, c->cx,
        c->cy);
  for (i = 4; i < G_N_ELEMENTS (v); i++)
    if (fabs (v[i]) > GST_CO_CALIBRATION_MAX_COEFF)
      CO_FUZZ_FAIL ("%s: distortion coefficient %u out of range: %g", fn,
          i - 4, v[i]);
  if (c->image_width > GST_CO_CALIBRATION_MAX_SIZE
      || c->image_height > GST_CO_CALIBRATION_MAX_SIZE)
    CO_FUZZ_FAIL ("%s: image size out of range: %d x %d", fn,
        c->image_width, c->image_height);
#endif
}

#endif /* __CO_FUZZ_COMMON_H__ */
