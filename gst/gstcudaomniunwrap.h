/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CUDA_OMNI_UNWRAP_H__
#define __GST_CUDA_OMNI_UNWRAP_H__

#include "gstcoremapfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_OMNI_UNWRAP (gst_cuda_omni_unwrap_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaOmniUnwrap, gst_cuda_omni_unwrap, GST,
    CUDA_OMNI_UNWRAP, GstCoRemapFilter)

G_END_DECLS
#endif
