/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CUDA_FOVEATE_H__
#define __GST_CUDA_FOVEATE_H__

#include "gstcobasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_FOVEATE (gst_cuda_foveate_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaFoveate, gst_cuda_foveate, GST, CUDA_FOVEATE,
    GstCoBaseFilter)

G_END_DECLS
#endif
