/* cudaoptics — LGPL-2.1-or-later
 *
 * cudacltcorrelate's input: the base's pad (GstCoAggregatorPad) with the
 * files that place its camera in the rig (calibration-file, camera,
 * rectification-file, read through the family's GstCoCameraSource) and
 * correct its lens (kernels-file, through GstCoCltSource).  Set while
 * PLAYING, the element rebuilds before its next frame.
 */
#ifndef __GST_CUDA_CLT_CORRELATE_PAD_H__
#define __GST_CUDA_CLT_CORRELATE_PAD_H__

#include "gstcobaseaggregator.h"
#include "gstcocamerasource.h"
#include "gstcocltsource.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CLT_CORRELATE_PAD (gst_cuda_clt_correlate_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaCltCorrelatePad, gst_cuda_clt_correlate_pad,
    GST, CUDA_CLT_CORRELATE_PAD, GstCoAggregatorPad)

/* The camera this pad's calibration properties name, for its current
 * caps' size (gst_co_camera_source_get: with @keep, a file that cannot be
 * used is a warning and the last usable camera stays).  FALSE with @error
 * unset when the pad names no file; FALSE with @error when it cannot be
 * used. */
gboolean gst_cuda_clt_correlate_pad_camera (GstCudaCltCorrelatePad * pad,
    GstElement * element, gboolean keep, CoCamera * cam, GError ** error);
/* The kernel nodes of this pad's kernels-file for its caps' size into
 * @grid (gst_co_clt_grid_clear; gst_co_clt_source_update's @keep).  FALSE
 * with @error unset when the pad names no file (or only a file that never
 * could be used was kept from); FALSE with @error when it cannot be used. */
gboolean gst_cuda_clt_correlate_pad_kernels (GstCudaCltCorrelatePad * pad,
    GstElement * element, gboolean keep, GstCoCltGrid * grid,
    GError ** error);

G_END_DECLS
#endif
