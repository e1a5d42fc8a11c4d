/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CUDA_ABERRATION_H__
#define __GST_CUDA_ABERRATION_H__

#include "gstcobasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_ABERRATION (gst_cuda_aberration_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaAberration, gst_cuda_aberration, GST,
    CUDA_ABERRATION, GstCoBaseFilter)

G_END_DECLS
#endif
