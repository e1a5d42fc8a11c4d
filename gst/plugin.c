/* cudaoptics — LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include "gstcudalensdistort.h"
#include "gstcudaomniunwrap.h"
#include "gstcudafoveate.h"
#include "gstcudashcentroid.h"
#include "gstcudaaberration.h"
#include "gstcudacltcorrelate.h"
#include "gstcometa.h"

/* Every element registers whether or not a GPU is present: the backend is
 * picked when an element starts, and the CPU reference always works. */
static gboolean
plugin_init (GstPlugin * plugin)
{
  static const struct
  {
    const gchar *name;
    GType (*get_type) (void);
  } elements[] = {
    {"cudalensdistort", gst_cuda_lens_distort_get_type},
    {"cudaomniunwrap", gst_cuda_omni_unwrap_get_type},
    {"cudafoveate", gst_cuda_foveate_get_type},
    {"cudashcentroid", gst_cuda_sh_centroid_get_type},
    {"cudaaberration", gst_cuda_aberration_get_type},
    {"cudacltcorrelate", gst_cuda_clt_correlate_get_type},
  };
  gboolean ok = TRUE;
  guint i;

  gst_co_metas_register ();
  for (i = 0; i < G_N_ELEMENTS (elements); i++)
    ok &= gst_element_register (plugin, elements[i].name, GST_RANK_NONE,
        elements[i].get_type ());
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudaoptics,
    "GPU imaging techniques from the literature, on CUDA with a CPU "
    "reference", plugin_init, VERSION, "LGPL", PACKAGE_NAME, PACKAGE_ORIGIN)
