/* cudaoptics — LGPL-2.1-or-later */

/* Fuzz target: gst_co_clt_kernels_parse() (cudaaberration's kernels-file)
 * on arbitrary bytes, built as fuzz-calibration.c is (tests/fuzz/README.md).
 * Beyond memory safety it checks the contract: a failure says why in its
 * own error domain, a success has sizes within bounds, a grid that reaches
 * the frame's corner, finite numbers, and writes back to the same bytes. */

// Read by .ci/fuzz.sh (paths from the project root; seeds are globs):
// fuzz-sources: common/sources/gstcocltkernels.c common/sources/gstcofile.c
// fuzz-seeds: tests/data/clt-*.cltk

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <glib.h>

#include "gstcocltkernels.h"
#include "fuzz-fail.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  GstCoCltKernels k;
  GError *err = NULL;
  GBytes *back;
  gsize i, n;

  if (!gst_co_clt_kernels_parse (data, size, &k, &err)) {
    if (!err || err->domain != GST_CO_CLT_KERNELS_ERROR || !err->message ||
        !*err->message || !g_utf8_validate (err->message, -1, NULL))
      CO_FUZZ_FAIL ("a failure without a kernel-file GError");
    g_error_free (err);
    return 0;
  }
  if (err)
    CO_FUZZ_FAIL ("a success with an error: %s", err->message);
  if ((k.colours != 1 && k.colours != 3) || k.grid_w < 1 || k.grid_h < 1 ||
      k.stride < 1 || k.width < 1 || k.height < 1 ||
      (gint64) (k.grid_w - 1) * k.stride < k.width - 1 ||
      (gint64) (k.grid_h - 1) * k.stride < k.height - 1)
    CO_FUZZ_FAIL ("a grid out of bounds: %dx%d at %d for %dx%d", k.grid_w,
        k.grid_h, k.stride, k.width, k.height);
  n = (gsize) k.grid_w * k.grid_h * k.colours * GST_CO_CLT_KERNELS_NODE_FLOATS;
  for (i = 0; i < n; i++)
    if (!isfinite (k.nodes[i]))
      CO_FUZZ_FAIL ("a number that is not finite at %zu", (size_t) i);
  back = gst_co_clt_kernels_serialize (&k);
  if (g_bytes_get_size (back) != size ||
      memcmp (g_bytes_get_data (back, NULL), data, size) != 0)
    CO_FUZZ_FAIL ("written back, the file is not the same");
  g_bytes_unref (back);
  gst_co_clt_kernels_clear (&k);
  return 0;
}
