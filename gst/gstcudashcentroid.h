/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CUDA_SH_CENTROID_H__
#define __GST_CUDA_SH_CENTROID_H__

#include "gstcobasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_SH_CENTROID (gst_cuda_sh_centroid_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaShCentroid, gst_cuda_sh_centroid, GST,
    CUDA_SH_CENTROID, GstCoBaseFilter)

G_END_DECLS
#endif
