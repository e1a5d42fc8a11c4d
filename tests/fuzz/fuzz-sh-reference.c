/* cudaoptics — LGPL-2.1-or-later */

/* Fuzz target: gst_co_sh_parse_reference() (cudashcentroid's
 * reference-file) on arbitrary bytes, built as fuzz-calibration.c is
 * (tests/fuzz/README.md).  Beyond memory safety it checks the contract: a
 * failure says why, a success counts the pairs and keeps only finite
 * numbers, never more than the arrays hold. */

// Read by .ci/fuzz.sh (paths from the project root; seeds are globs):
// fuzz-sources: common/sources/gstcoshreference.c
// fuzz-seeds: tests/data/sh-reference*.txt
// fuzz-dict: tests/fuzz/sh-reference.dict

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib.h>

#include "gstcoshreference.h"
#include "fuzz-fail.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  enum
  { N = 16 };
  gdouble rx[N + 1], ry[N + 1];
  gchar *why = NULL;
  gint k, i;

  rx[N] = ry[N] = 12345.0;      /* a guard past what the parser may fill */
  k = gst_co_sh_parse_reference ((const gchar *) data, size, N, rx, ry, &why);
  if (k < 0) {
    if (!why || !*why)
      CO_FUZZ_FAIL ("a failure without a reason");
  } else {
    if (why)
      CO_FUZZ_FAIL ("a success with a reason: %s", why);
    for (i = 0; i < MIN (k, N); i++)
      if (!isfinite (rx[i]) || !isfinite (ry[i]))
        CO_FUZZ_FAIL ("pair %d is not finite", i);
  }
  if (rx[N] != 12345.0 || ry[N] != 12345.0)
    CO_FUZZ_FAIL ("written past the arrays");
  g_free (why);
  return 0;
}
