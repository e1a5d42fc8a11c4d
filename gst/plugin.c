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
  gboolean ok = TRUE;

  gst_co_metas_register ();
  ok &= gst_cuda_lens_distort_register (plugin);
  ok &= gst_cuda_omni_unwrap_register (plugin);
  ok &= gst_cuda_foveate_register (plugin);
  ok &= gst_cuda_sh_centroid_register (plugin);
  ok &= gst_cuda_aberration_register (plugin);
  ok &= gst_cuda_clt_correlate_register (plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudaoptics,
    "GPU imaging techniques from the literature, on CUDA with a CPU "
    "reference", plugin_init, VERSION, "LGPL", PACKAGE_NAME, PACKAGE_ORIGIN)
