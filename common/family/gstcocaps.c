/* cudaoptics — LGPL-2.1-or-later
 *
 * The family's caps (gstcocaps.h): template caps in both memory domains,
 * formats, and each pad's caps parsed, video/x-bayer included.
 */
#include "gstcocompat.h"
#include "gstcocaps.h"
#include "gstconvmm.h"

#include <string.h>

CoFormat
gst_co_format_from_video (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
      return CO_FORMAT_RGBA;
    case GST_VIDEO_FORMAT_BGRA:
      return CO_FORMAT_BGRA;
    case GST_VIDEO_FORMAT_RGBx:
      return CO_FORMAT_RGBX;
    case GST_VIDEO_FORMAT_BGRx:
      return CO_FORMAT_BGRX;
    case GST_VIDEO_FORMAT_RGB:
      return CO_FORMAT_RGB;
    case GST_VIDEO_FORMAT_GRAY8:
      return CO_FORMAT_GRAY8;
    case GST_VIDEO_FORMAT_GRAY16_LE:
      return CO_FORMAT_GRAY16_LE;
    case GST_VIDEO_FORMAT_NV12:
      return CO_FORMAT_NV12;
    case GST_VIDEO_FORMAT_I420:
      return CO_FORMAT_I420;
#ifdef CO_HAVE_RGBA64
    case GST_VIDEO_FORMAT_RGBA64_LE:
      return CO_FORMAT_RGBA64_LE;
#endif
    default:
      return CO_FORMAT_UNKNOWN;
  }
}

/* bayer2rgb's names; the 16-bit ones are little-endian, 10 to 16 bits used */
static const struct
{
  const gchar *name;
  CoBayer order;
  gint bytes;
} bayer_formats[] = {
  {"rggb", CO_BAYER_RGGB, 1}, {"bggr", CO_BAYER_BGGR, 1},
  {"grbg", CO_BAYER_GRBG, 1}, {"gbrg", CO_BAYER_GBRG, 1},
  {"rggb16le", CO_BAYER_RGGB, 2}, {"bggr16le", CO_BAYER_BGGR, 2},
  {"grbg16le", CO_BAYER_GRBG, 2}, {"gbrg16le", CO_BAYER_GBRG, 2},
};

gboolean
gst_co_info_from_caps (GstVideoInfo * info, CoBayer * bayer,
    const GstCaps * caps)
{
  const GstStructure *s;
  const gchar *format;
  gint w = 0, h = 0, n = 0, d = 1;
  guint i;

  *bayer = CO_BAYER_NONE;
  if (!caps || gst_caps_get_size (caps) < 1 || !gst_caps_is_fixed (caps))
    return FALSE;
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, "video/x-bayer"))
    return gst_video_info_from_caps (info, caps);

  format = gst_structure_get_string (s, "format");
  if (!format || !gst_structure_get_int (s, "width", &w) ||
      !gst_structure_get_int (s, "height", &h) || w < 1 || h < 1 ||
      w > G_MAXINT / 8 || h > G_MAXINT / 8)
    return FALSE;
  for (i = 0; i < G_N_ELEMENTS (bayer_formats); i++) {
    if (strcmp (format, bayer_formats[i].name) != 0)
      continue;
    gst_video_info_init (info);
    gst_video_info_set_format (info, bayer_formats[i].bytes == 1 ?
        GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_GRAY16_LE, w, h);
    /* bayer2rgb's layout: rows of whole pixels rounded up to 4 */
    info->stride[0] = GST_ROUND_UP_4 (w) * bayer_formats[i].bytes;
    if ((guint64) info->stride[0] * h > G_MAXINT32)
      return FALSE;
    info->size = (gsize) info->stride[0] * h;
    if (gst_structure_get_fraction (s, "framerate", &n, &d)) {
      info->fps_n = n;
      info->fps_d = d;
    }
    if (gst_structure_get_fraction (s, "pixel-aspect-ratio", &n, &d)) {
      info->par_n = n;
      info->par_d = d;
    }
    *bayer = bayer_formats[i].order;
    return TRUE;
  }
  return FALSE;
}

void
gst_co_video_info_init (GstCoVideoInfo * vinfo)
{
  gst_video_info_init (&vinfo->info);
  vinfo->format = CO_FORMAT_UNKNOWN;
  vinfo->bayer = CO_BAYER_NONE;
  vinfo->nvmm = FALSE;
}

gboolean
gst_co_video_info_from_caps (GstCoVideoInfo * vinfo, const GstCaps * caps)
{
  if (!gst_co_info_from_caps (&vinfo->info, &vinfo->bayer, caps))
    return FALSE;
  vinfo->format = gst_co_format_from_video (GST_VIDEO_INFO_FORMAT
      (&vinfo->info));
  /* read and written through its surface's planes (gstconvmm.h) */
  vinfo->nvmm = gst_co_caps_is_nvmm (caps, 0);
  return vinfo->format != CO_FORMAT_UNKNOWN;
}

GstStructure *
gst_co_structure_with_formats (const GstStructure * sys,
    gboolean (*keep) (const gchar * format))
{
  const GValue *v = gst_structure_get_value (sys, "format");
  GValue list = G_VALUE_INIT;
  GstStructure *ret = NULL;
  guint i, n;

  if (!gst_structure_has_name (sys, "video/x-raw") || !v)
    return NULL;
  g_value_init (&list, GST_TYPE_LIST);
  n = GST_VALUE_HOLDS_LIST (v) ? gst_value_list_get_size (v) : 1;
  for (i = 0; i < n; i++) {
    const GValue *f = GST_VALUE_HOLDS_LIST (v) ?
        gst_value_list_get_value (v, i) : v;
    if (G_VALUE_HOLDS_STRING (f) && keep (g_value_get_string (f)))
      gst_value_list_append_value (&list, f);
  }
  if (gst_value_list_get_size (&list) > 0) {
    ret = gst_structure_copy (sys);
    if (gst_value_list_get_size (&list) == 1)
      gst_structure_set_value (ret, "format",
          gst_value_list_get_value (&list, 0));
    else
      gst_structure_set_value (ret, "format", &list);
  }
  g_value_unset (&list);
  return ret;
}

#ifdef HAVE_GST_CUDA
/* What GstCudaMemory can lay out (its allocator refuses, and 1.22's aborts
 * on, any other format: grey, 16-bit RGBA and Bayer have no CUDA-memory
 * layout up to 1.26), among the formats our kernels take. */
static const gchar *const cuda_memory_formats[] = {
  "RGBA", "BGRA", "RGBx", "BGRx", "RGB", "NV12", "I420",
};

static gboolean
cuda_memory_format (const gchar * format)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cuda_memory_formats); i++)
    if (g_strcmp0 (format, cuda_memory_formats[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The CUDA-memory copy of @sys: its formats that GstCudaMemory can hold;
 * NULL when none (a Bayer pad). */
static GstStructure *
cuda_memory_structure (const GstStructure * sys)
{
  return gst_co_structure_with_formats (sys, cuda_memory_format);
}
#endif

GstCaps *
gst_co_template_caps_valist (gint max_size, const gchar * media_type,
    const gchar * formats, va_list args)
{
  GstCaps *sys = gst_caps_new_empty (), *caps = gst_caps_new_empty ();
  guint i;

  while (media_type) {
    gchar *str = g_strdup_printf ("%s, format=(string)%s, "
        "width=(int)[1, %d], height=(int)[1, %d], "
        "framerate=(fraction)[0/1, 2147483647/1]", media_type, formats,
        max_size, max_size);
    GstCaps *one = gst_caps_from_string (str);
    g_assert (one != NULL);
    g_free (str);
    gst_caps_append (sys, one);
    media_type = va_arg (args, const gchar *);
    if (media_type)
      formats = va_arg (args, const gchar *);
  }
  /* NVIDIA's elements speak nothing but memory:NVMM: offered first where
   * their library is (gstconvmm.h), for the formats a surface holds */
  for (i = 0; i < gst_caps_get_size (sys); i++) {
    GstStructure *nvmm = gst_co_nvmm_structure (gst_caps_get_structure (sys,
            i));
    if (nvmm)
      gst_caps_append_structure_full (caps, nvmm,
          gst_caps_features_new_single (GST_CO_CAPS_FEATURE_MEMORY_NVMM));
  }
#ifdef HAVE_GST_CUDA
  for (i = 0; i < gst_caps_get_size (sys); i++) {
    GstStructure *cuda = cuda_memory_structure (gst_caps_get_structure (sys,
            i));
    if (cuda)
      gst_caps_append_structure_full (caps, cuda,
          gst_caps_features_new_single (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
  }
#endif
  gst_caps_append (caps, sys);
  return caps;
}

GstCaps *
gst_co_template_caps (gint max_size, const gchar * media_type,
    const gchar * formats, ...)
{
  GstCaps *caps;
  va_list args;

  va_start (args, formats);
  caps = gst_co_template_caps_valist (max_size, media_type, formats, args);
  va_end (args);
  return caps;
}

void
gst_co_element_class_set_metadata (GstElementClass * klass,
    const gchar * longname, const gchar * klass_name,
    const gchar * description)
{
  gchar *k = g_strconcat (klass_name, "/Hardware", NULL);

  /* the element class keeps the strings: metadata is set once per class */
  gst_element_class_set_metadata (klass, longname, k, description,
      "cudaoptics developers");
  g_free (k);
}
