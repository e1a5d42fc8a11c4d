/* cudaoptics — LGPL-2.1-or-later
 *
 * The family's caps, for every base class: the template caps a pad of any
 * element offers (both memory domains, video/x-bayer included), the
 * mapping of video formats to the kernels' CoFormat, and what a pad
 * carries once its caps are set (GstCoVideoInfo), with the metadata every
 * element class sets beside its templates.  No base class: a filter's
 * negotiation (gstcobasefilter-caps.c) and an aggregator's pads
 * (gstcobaseaggregator.c) both build on it.
 */
#ifndef __GST_CO_CAPS_H__
#define __GST_CO_CAPS_H__

#include <stdarg.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include "co_frame.h"

G_BEGIN_DECLS

/* The largest frame side the family takes (the remapping elements: the
 * table's CO_REMAP_MAX_SIZE, smaller) */
#define GST_CO_MAX_SIZE 32768

/* The raw Bayer formats the family takes (video/x-bayer, 8 or 16 bits) */
#define GST_CO_BAYER_FORMATS "{ rggb, bggr, grbg, gbrg, rggb16le, " \
  "bggr16le, grbg16le, gbrg16le }"

/**
 * GstCoVideoInfo:
 * @info: the video info; a Bayer pad's is GRAY8/GRAY16_LE at the stride
 *   bayer2rgb uses
 * @format: the kernels' name of its format
 * @bayer: the mosaic's order, CO_BAYER_NONE unless video/x-bayer
 * @nvmm: memory:NVMM: each buffer maps to an NvBufSurface, whose planes
 *   hold the frame (gstconvmm.h)
 *
 * What one pad carries, as its caps say.
 */
typedef struct
{
  GstVideoInfo info;
  CoFormat format;
  CoBayer bayer;
  gboolean nvmm;
} GstCoVideoInfo;

/* Empty: no caps yet */
void     gst_co_video_info_init (GstCoVideoInfo * vinfo);
/* Fixed caps into @vinfo; FALSE (and @vinfo unspecified) when they are not
 * video the kernels read. */
gboolean gst_co_video_info_from_caps (GstCoVideoInfo * vinfo,
    const GstCaps * caps);

CoFormat gst_co_format_from_video (GstVideoFormat format);
/* Video caps, or video/x-bayer caps as a GRAY8/GRAY16_LE info with the
 * stride bayer2rgb uses; *bayer is CO_BAYER_NONE for video caps.  Any
 * video format: where only the layout matters (pools, sizes). */
gboolean gst_co_info_from_caps (GstVideoInfo * info, CoBayer * bayer,
    const GstCaps * caps);

/* The caps of a template of several media types, e.g. "video/x-bayer",
 * "{ rggb, bggr }", "video/x-raw", "GRAY16_LE", NULL: each in both memory
 * domains (memory:CUDAMemory first, for the formats GstCudaMemory holds),
 * and memory:NVMM before them where NVIDIA's library is (gstconvmm.h),
 * sizes 1 to @max_size. */
GstCaps *gst_co_template_caps (gint max_size, const gchar * media_type,
    const gchar * formats, ...) G_GNUC_NULL_TERMINATED;
GstCaps *gst_co_template_caps_valist (gint max_size, const gchar * media_type,
    const gchar * formats, va_list args);

/* A copy of the video/x-raw structure @sys with the formats @keep takes
 * (its other fields as they are); NULL when it keeps none or @sys is not
 * video/x-raw with a format */
GstStructure *gst_co_structure_with_formats (const GstStructure * sys,
    gboolean (*keep) (const gchar * format));

/* The family's element metadata: @klass_name gets "/Hardware" (the
 * elements run on the GPU), and one author string. */
void     gst_co_element_class_set_metadata (GstElementClass * klass,
    const gchar * longname, const gchar * klass_name,
    const gchar * description);

G_END_DECLS
#endif
