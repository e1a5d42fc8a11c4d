/* cudaoptics — LGPL-2.1-or-later
 *
 * memory:NVMM, reading (gstconvmm.h): which formats and caps an NVMM
 * surface may carry, and a mapped surface checked against its caps and
 * given as planes, or the reason it cannot be read here.
 */
#include "gstcocompat.h"
#include "gstconvmm.h"
#include "gstcocaps.h"

#include <string.h>

gboolean
gst_co_nvmm_format (GstVideoFormat format, guint32 * color)
{
  guint32 c;

  switch (format) {
    case GST_VIDEO_FORMAT_NV12:
      c = CO_NVBUF_COLOR_NV12;
      break;
    case GST_VIDEO_FORMAT_RGBA:
      c = CO_NVBUF_COLOR_RGBA;
      break;
    case GST_VIDEO_FORMAT_BGRA:
      c = CO_NVBUF_COLOR_BGRA;
      break;
    case GST_VIDEO_FORMAT_RGBx:
      c = CO_NVBUF_COLOR_RGBx;
      break;
    case GST_VIDEO_FORMAT_BGRx:
      c = CO_NVBUF_COLOR_BGRx;
      break;
    case GST_VIDEO_FORMAT_GRAY8:
      c = CO_NVBUF_COLOR_GRAY8;
      break;
    default:
      return FALSE;
  }
  if (color)
    *color = c;
  return TRUE;
}

/* A surface's colour format is the caps' layout: NV12's range and
 * matrix variants are the same planes */
static gboolean
color_matches (guint32 want, guint32 have)
{
  if (want == CO_NVBUF_COLOR_NV12)
    return have == CO_NVBUF_COLOR_NV12 || have == CO_NVBUF_COLOR_NV12_ER ||
        have == CO_NVBUF_COLOR_NV12_709 || have == CO_NVBUF_COLOR_NV12_709_ER
        || have == CO_NVBUF_COLOR_NV12_2020;
  return want == have;
}

gboolean
gst_co_caps_is_nvmm (const GstCaps * caps, guint i)
{
  GstCapsFeatures *f = caps && i < gst_caps_get_size (caps) ?
      gst_caps_get_features (caps, i) : NULL;

  return f && !gst_caps_features_is_any (f) &&
      gst_caps_features_contains (f, GST_CO_CAPS_FEATURE_MEMORY_NVMM);
}

static gboolean
nvmm_format_name (const gchar * format)
{
  return gst_co_nvmm_format (gst_video_format_from_string (format), NULL);
}

GstStructure *
gst_co_nvmm_structure (const GstStructure * sys)
{
  if (!gst_co_nvmm_available ())
    return NULL;
  return gst_co_structure_with_formats (sys, nvmm_format_name);
}

const gchar *
gst_co_nvmm_mem_type_name (guint32 mem_type)
{
  static const gchar *const names[] = {
    "NVBUF_MEM_DEFAULT", "NVBUF_MEM_CUDA_PINNED", "NVBUF_MEM_CUDA_DEVICE",
    "NVBUF_MEM_CUDA_UNIFIED", "NVBUF_MEM_SURFACE_ARRAY", "NVBUF_MEM_HANDLE",
    "NVBUF_MEM_SYSTEM", "NVBUF_MEM_CUDA_ARRAY",
  };

  return mem_type < G_N_ELEMENTS (names) ? names[mem_type] :
      "an unknown NvBufSurfaceMemType";
}

/* Why the planes of @p cannot hold @info's frame, or NULL; a block-linear
 * surface's pitches and offsets count blocks, not rows: not checked */
static gchar *
check_planes (const CoNvBufSurfaceParamsHead * s, const GstVideoInfo * info)
{
  const CoNvBufPlaneParams *pp = &s->planeParams;
  const guint n = GST_VIDEO_INFO_N_PLANES (info);
  guint i;

  if (s->width != (guint32) GST_VIDEO_INFO_WIDTH (info) ||
      s->height != (guint32) GST_VIDEO_INFO_HEIGHT (info))
    return g_strdup_printf ("the surface is %ux%u, the caps %dx%d",
        s->width, s->height, GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info));
  if (pp->num_planes != n)
    return g_strdup_printf ("the surface has %u planes, %s has %u",
        pp->num_planes, GST_VIDEO_INFO_NAME (info), n);
  for (i = 0; i < n && s->layout == CO_NVBUF_LAYOUT_PITCH; i++) {
    const GstVideoFormatInfo *fi = info->finfo;
    guint64 row = (guint64) GST_VIDEO_INFO_COMP_WIDTH (info, i) *
        GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, i);
    guint64 rows = GST_VIDEO_INFO_COMP_HEIGHT (info, i);
    guint64 need = (guint64) pp->pitch[i] * (rows - 1) + row;

    if (pp->pitch[i] < row || pp->height[i] < rows)
      return g_strdup_printf ("plane %u is %u rows of %u bytes, the caps need "
          "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, i, pp->height[i],
          pp->pitch[i], rows, row);
    if (pp->offset[i] + need > s->dataSize)
      return g_strdup_printf ("plane %u ends at byte %" G_GUINT64_FORMAT
          " of a %u-byte surface", i, pp->offset[i] + need, s->dataSize);
  }
  return NULL;
}

gboolean
gst_co_nvmm_describe (gconstpointer surf, gsize size,
    const GstVideoInfo * info, GstCoNvmmPlanes * p, gchar ** why)
{
  const CoNvBufSurfaceHead *h = surf;
  const CoNvBufSurfaceParamsHead *s;
  guint32 want;
  guint i;

  memset (p, 0, sizeof (*p));
  *why = NULL;
  /* every producer's memory is its library's sizeof (NvBufSurface): 64
   * or 72 bytes; less is no NvBufSurface at all */
  if (!h || size < sizeof (CoNvBufSurfaceV2)) {
    *why = g_strdup_printf ("a memory:NVMM buffer of %" G_GSIZE_FORMAT
        " bytes holds no NvBufSurface (%" G_GSIZE_FORMAT " at least)", size,
        sizeof (CoNvBufSurfaceV2));
    return FALSE;
  }
  if (h->batchSize > 1 || h->numFilled > 1) {
    *why = g_strdup_printf ("a batch of %u surfaces (%u filled): one "
        "surface a buffer is read here; batch before nvstreammux, not "
        "after", h->batchSize, h->numFilled);
    return FALSE;
  }
  if (!h->surfaceList) {
    *why = g_strdup ("an NvBufSurface without a surface list");
    return FALSE;
  }
  s = h->surfaceList;
  p->mem_type = h->memType;
  p->gpu_id = h->gpuId;
  p->color_format = s->colorFormat;
  p->layout = s->layout;
  p->surf = (gpointer) surf;
  switch (h->memType) {
    case CO_NVBUF_MEM_CUDA_PINNED:
    case CO_NVBUF_MEM_CUDA_DEVICE:
    case CO_NVBUF_MEM_CUDA_UNIFIED:
    case CO_NVBUF_MEM_SYSTEM:
      p->access = GST_CO_NVMM_DIRECT;
      break;
    case CO_NVBUF_MEM_SURFACE_ARRAY:
    case CO_NVBUF_MEM_HANDLE:
      /* behind a dmabuf: the library maps it (gstconvmm-map.c) */
      p->access = GST_CO_NVMM_UNMAPPED;
      break;
    default:
      *why = g_strdup_printf ("%s (%u) surfaces are not read here",
          gst_co_nvmm_mem_type_name (h->memType), h->memType);
      return FALSE;
  }
  if (s->layout != CO_NVBUF_LAYOUT_PITCH &&
      p->access != GST_CO_NVMM_UNMAPPED) {
    *why = g_strdup_printf ("a block-linear %s surface: only surface "
        "arrays may be block-linear here (nvvidconv/nvvideoconvert give "
        "pitch-linear output)", gst_co_nvmm_mem_type_name (h->memType));
    return FALSE;
  }
  if (!gst_co_nvmm_format (GST_VIDEO_INFO_FORMAT (info), &want) ||
      !color_matches (want, s->colorFormat)) {
    *why = g_strdup_printf ("the surface's NvBufSurfaceColorFormat %u is "
        "not the caps' %s", s->colorFormat, GST_VIDEO_INFO_NAME (info));
    return FALSE;
  }
  if (!s->dataPtr && p->access == GST_CO_NVMM_DIRECT) {
    *why = g_strdup ("a surface without a data pointer");
    return FALSE;
  }
  if ((*why = check_planes (s, info)))
    return FALSE;
  p->host_visible = p->access == GST_CO_NVMM_DIRECT &&
      gst_co_nvmm_host_visible (h->memType);
  p->n_planes = s->planeParams.num_planes;
  for (i = 0; i < p->n_planes; i++) {
    p->offset[i] = s->planeParams.offset[i];
    p->pitch[i] = (gint) s->planeParams.pitch[i];
    if (p->access == GST_CO_NVMM_DIRECT)
      p->data[i] = (guint8 *) s->dataPtr + s->planeParams.offset[i];
  }
  return TRUE;
}
