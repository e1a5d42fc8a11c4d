/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CUDA_LENS_DISTORT_H__
#define __GST_CUDA_LENS_DISTORT_H__

#include "gstcoremapfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_LENS_DISTORT (gst_cuda_lens_distort_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaLensDistort, gst_cuda_lens_distort, GST,
    CUDA_LENS_DISTORT, GstCoRemapFilter)

G_END_DECLS
#endif
