/* cudaoptics — LGPL-2.1-or-later */

/* Fuzz target: gst_co_map_file_parse() (cudalensdistort's map-file) on
 * arbitrary bytes, built as fuzz-calibration.c is (tests/fuzz/README.md).
 * Beyond memory safety it checks the contract: a failure says why in its
 * own error domain, a success has sizes within the header's bounds and
 * exactly the file's numbers. */

// Read by .ci/fuzz.sh (paths from the project root; seeds are globs):
// fuzz-sources: common/sources/gstcomapfile.c common/sources/gstcofile.c
// fuzz-seeds: tests/data/map-*.comap

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "gstcomapfile.h"
#include "fuzz-fail.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  GstCoMapFile m;
  GError *err = NULL;

  if (!gst_co_map_file_parse (data, size, &m, &err)) {
    if (!err || err->domain != GST_CO_MAP_FILE_ERROR || !err->message ||
        !*err->message || !g_utf8_validate (err->message, -1, NULL))
      CO_FUZZ_FAIL ("a failure without a map-file GError");
    g_error_free (err);
    return 0;
  }
  if (err)
    CO_FUZZ_FAIL ("a success with an error: %s", err->message);
  if (m.width < 1 || m.height < 1 || m.width > GST_CO_MAP_FILE_MAX_SIZE ||
      m.height > GST_CO_MAP_FILE_MAX_SIZE || m.src_width < 0 ||
      m.src_height < 0)
    CO_FUZZ_FAIL ("sizes out of bounds: %dx%d from %dx%d", m.width,
        m.height, m.src_width, m.src_height);
  if (size != GST_CO_MAP_FILE_HEADER + (size_t) m.width * m.height * 8)
    CO_FUZZ_FAIL ("%zu bytes for a %dx%d map", size, m.width, m.height);
  if (memcmp (m.x, data + GST_CO_MAP_FILE_HEADER, (size_t) m.width *
          m.height * 8) != 0 && G_BYTE_ORDER == G_LITTLE_ENDIAN)
    CO_FUZZ_FAIL ("the numbers are not the file's");
  gst_co_map_file_clear (&m);
  return 0;
}
