/* cudaoptics — LGPL-2.1-or-later
 *
 * A kernel file (gstcocltkernels.h) of a parametric lens (clt_build.h),
 * for the tests of the elements that read them: every colour's node on a
 * grid at @stride covering w x h, written to @path.
 */
#ifndef CO_TEST_CLT_KERNELS_FILE_H
#define CO_TEST_CLT_KERNELS_FILE_H

#include <glib.h>
#include "clt_build.h"
#include "gstcocltkernels.h"

static inline gboolean
co_test_write_kernels (const CoCltLens * lens, gint stride, gint w, gint h,
    const gchar * path)
{
  GstCoCltKernels k = { 3, (w - 1 + stride - 1) / stride + 1,
    (h - 1 + stride - 1) / stride + 1, stride, w, h, NULL
  };
  GBytes *bytes;
  gboolean ok;
  gint i, j, c;

  k.nodes = g_new (gfloat, (gsize) k.grid_w * k.grid_h * 3 *
      GST_CO_CLT_KERNELS_NODE_FLOATS);
  for (j = 0; j < k.grid_h; j++)
    for (i = 0; i < k.grid_w; i++)
      for (c = 0; c < 3; c++)
        co_clt_lens_node (lens, i * stride, j * stride, c,
            (gfloat *) gst_co_clt_kernels_node (&k, i, j, c));
  bytes = gst_co_clt_kernels_serialize (&k);
  ok = g_file_set_contents (path, g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), NULL);
  g_bytes_unref (bytes);
  g_free (k.nodes);
  return ok;
}

#endif
