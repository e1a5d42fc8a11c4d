/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CUDA_CLT_CORRELATE_H__
#define __GST_CUDA_CLT_CORRELATE_H__

#include "gstcobaseaggregator.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CLT_CORRELATE (gst_cuda_clt_correlate_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaCltCorrelate, gst_cuda_clt_correlate, GST,
    CUDA_CLT_CORRELATE, GstCoBaseAggregator)

G_END_DECLS
#endif
