/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter, caps: pad templates, what each pad may carry given the
 * other (by the class's mode), fixation of a free output size, the order
 * of the sink pad's caps answer, and the parsing of each pad's caps into a
 * video info, video/x-bayer included.
 */
#include "gstcocompat.h"
#include "gstcobasefilter-private.h"

#include <stdarg.h>
#include <string.h>

#define GST_CAT_DEFAULT gst_co_base_filter_debug

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
    if (G_VALUE_HOLDS_STRING (f) && cuda_memory_format (g_value_get_string (f)))
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
#endif

void
gst_co_base_filter_class_add_template (GstElementClass * klass,
    GstPadDirection direction, const gchar * media_type,
    const gchar * formats, gint max_size)
{
  gst_co_base_filter_class_add_template_list (klass, direction, max_size,
      media_type, formats, NULL);
}

static GstCaps *
template_caps_valist (gint max_size, const gchar * media_type,
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
#ifdef HAVE_GST_CUDA
  for (i = 0; i < gst_caps_get_size (sys); i++) {
    GstStructure *cuda = cuda_memory_structure (gst_caps_get_structure (sys,
            i));
    if (cuda)
      gst_caps_append_structure_full (caps, cuda,
          gst_caps_features_new_single (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
  }
#else
  (void) i;
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
  caps = template_caps_valist (max_size, media_type, formats, args);
  va_end (args);
  return caps;
}

void
gst_co_base_filter_class_add_template_list (GstElementClass * klass,
    GstPadDirection direction, gint max_size, const gchar * media_type,
    const gchar * formats, ...)
{
  GstCaps *caps;
  va_list args;

  va_start (args, formats);
  caps = template_caps_valist (max_size, media_type, formats, args);
  va_end (args);

  gst_element_class_add_pad_template (klass,
      gst_pad_template_new (direction == GST_PAD_SINK ? "sink" : "src",
          direction, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

void
gst_co_base_filter_class_add_video_templates (GstElementClass * klass,
    const gchar * formats, gint max_size)
{
  gst_co_base_filter_class_add_template (klass, GST_PAD_SINK, "video/x-raw",
      formats, max_size);
  gst_co_base_filter_class_add_template (klass, GST_PAD_SRC, "video/x-raw",
      formats, max_size);
}

gboolean
co_caps_is_cuda (GstCaps * caps, guint i)
{
  return gst_co_caps_is_cuda (caps, i);
}

/* Whether only the CPU backend can run: the one in use once started, the
 * property's choice before (so that in READY a backend=cpu element offers no
 * CUDA memory).  Read from the pads' threads: under the object lock. */
gboolean
co_cpu_only (GstCoBaseFilter * self)
{
  gboolean r;

  GST_OBJECT_LOCK (self);
  r = self->priv->started ? self->engine.active_backend == GST_CO_BACKEND_CPU :
      self->engine.backend == GST_CO_BACKEND_CPU;
  GST_OBJECT_UNLOCK (self);
  return r;
}

static GstCaps *
append_in (GstCaps * caps, GstStructure * s, gboolean cuda)
{
  const gchar *feature = GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY;
#ifdef HAVE_GST_CUDA
  if (cuda)
    feature = GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY;
#endif
  return gst_caps_merge_structure_full (caps, gst_structure_copy (s),
      gst_caps_features_new_single (feature));
}

/* What the other pad may carry for structure @s, memory aside: the same
 * (SAME), any size (RESIZE: width, height and PAR are fixated later), the
 * other template's media types and formats (CONVERT). */
static GPtrArray *
other_structures (GstCoBaseFilter * self, const GstStructure * s,
    GstCaps * other_templ)
{
  GPtrArray *outs = g_ptr_array_new ();
  GstStructure *base = gst_structure_copy (s);
  guint i;

  if (CO_MODE (self) & GST_CO_FILTER_RESIZE) {
    gst_structure_set (base, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
        "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
    gst_structure_remove_field (base, "pixel-aspect-ratio");
  }
  if (!(CO_MODE (self) & GST_CO_FILTER_CONVERT) || !other_templ) {
    g_ptr_array_add (outs, base);
    return outs;
  }
  /* a colorimetry or chroma siting belongs to the format it came with */
  gst_structure_remove_fields (base, "colorimetry", "chroma-site", NULL);
  for (i = 0; i < gst_caps_get_size (other_templ); i++) {
    const GstStructure *t = gst_caps_get_structure (other_templ, i);
    GstStructure *o = gst_structure_copy (base);
    gst_structure_set_name (o, gst_structure_get_name (t));
    gst_structure_set_value (o, "format",
        gst_structure_get_value (t, "format"));
    g_ptr_array_add (outs, o);
  }
  gst_structure_free (base);
  return outs;
}

/* Nothing fits upstream's caps while the CPU backend runs: when it is
 * because downstream takes nothing but CUDA memory, negotiation is about
 * to fail with a bare not-negotiated, so say why, once. */
void
co_explain_empty_caps (GstCoBaseFilter * self, GstQuery * query)
{
  GstBaseTransform *bt = GST_BASE_TRANSFORM (self);
  GstCaps *result = NULL, *down;
  guint i, n;
  gboolean cuda_only = TRUE;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CAPS || !co_cpu_only (self) ||
      g_atomic_int_get (&self->priv->warned_cuda_caps))
    return;
  gst_query_parse_caps_result (query, &result);
  if (!result || !gst_caps_is_empty (result))
    return;
  down = gst_pad_peer_query_caps (bt->srcpad, NULL);
  n = down ? gst_caps_get_size (down) : 0;
  if (n == 0 || gst_caps_is_any (down))
    cuda_only = FALSE;
  for (i = 0; i < n && cuda_only; i++) {
    GstCapsFeatures *f = gst_caps_get_features (down, i);
    cuda_only = f && !gst_caps_features_is_any (f) &&
        gst_caps_features_contains (f, "memory:CUDAMemory");
  }
  if (down)
    gst_caps_unref (down);
  if (!cuda_only ||
      !g_atomic_int_compare_and_exchange (&self->priv->warned_cuda_caps, 0, 1))
    return;
  GST_ELEMENT_WARNING (self, CORE, NEGOTIATION, ("Downstream takes only "
          "memory:CUDAMemory, which the CPU backend cannot give (no usable "
          "CUDA device, or backend=cpu): let downstream take system memory "
          "(no CUDA caps filter; cudadownload takes both)"), (NULL));
}

/* The sink pad asks for CUDA memory first, so that a CUDA producer
 * (cudaupload, nvh264dec, another of ours) hands over device memory even
 * without caps filters; the source pad offers the input's domain first, so
 * that a chain stays where it is and `videotestsrc ! cudalensdistort !
 * appsink` stays in system memory.  ANALYSE keeps each structure's memory:
 * a passthrough element cannot move frames between domains. */
GstCaps *
co_transform_caps (GstBaseTransform * bt, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  GstCaps *ret = gst_caps_new_empty (), *other_templ = NULL;
  /* the CPU backend has no context for a CUDA pool on its source pad */
  gboolean cpu = co_cpu_only (self);
  gboolean cuda_ok = !(direction == GST_PAD_SINK && cpu);
  guint i, j;

  if (CO_MODE (self) & GST_CO_FILTER_ANALYSE) {
    gst_caps_unref (ret);
    ret = gst_caps_ref (caps);
    goto filter;
  }
  if (CO_MODE (self) & GST_CO_FILTER_CONVERT)
    other_templ = gst_pad_get_pad_template_caps (direction == GST_PAD_SINK ?
        bt->srcpad : bt->sinkpad);

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GPtrArray *outs = other_structures (self, gst_caps_get_structure (caps, i),
        other_templ);
    gboolean cuda_first = co_caps_is_cuda (caps, i) ||
        (direction == GST_PAD_SRC && !cpu);

    for (j = 0; j < outs->len; j++) {
      GstStructure *o = g_ptr_array_index (outs, j);
#ifdef HAVE_GST_CUDA
      if (cuda_first && cuda_ok)
        ret = append_in (ret, o, TRUE);
      ret = append_in (ret, o, FALSE);
      if (!cuda_first && cuda_ok)
        ret = append_in (ret, o, TRUE);
#else
      (void) cuda_first;
      (void) cuda_ok;
      ret = append_in (ret, o, FALSE);
#endif
      gst_structure_free (o);
    }
    g_ptr_array_free (outs, TRUE);
  }
  if (other_templ)
    gst_caps_unref (other_templ);

filter:
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  GST_DEBUG_OBJECT (self, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, ret);
  return ret;
}

/* RESIZE: the element's size unless downstream fixed one (nearest integer,
 * as the scalers do), the input's pixel aspect ratio unless downstream
 * asks for another. */
GstCaps *
co_fixate_caps (GstBaseTransform * bt, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstStructure *s;
  GstVideoInfo in;
  CoBayer bayer;
  gint w, h;

  if (!(klass->mode & GST_CO_FILTER_RESIZE) || direction != GST_PAD_SINK ||
      !gst_co_info_from_caps (&in, &bayer, caps))
    return CO_PARENT_CLASS->fixate_caps (bt, direction, caps, othercaps);

  othercaps = gst_caps_make_writable (gst_caps_truncate (othercaps));
  s = gst_caps_get_structure (othercaps, 0);
  w = GST_VIDEO_INFO_WIDTH (&in);
  h = GST_VIDEO_INFO_HEIGHT (&in);
  if (klass->get_output_size)
    klass->get_output_size (self, &in, &w, &h);
  gst_structure_fixate_field_nearest_int (s, "width", MAX (w, 1));
  gst_structure_fixate_field_nearest_int (s, "height", MAX (h, 1));
  /* caps without a pixel aspect ratio stay without one */
  if (gst_structure_has_field (s, "pixel-aspect-ratio"))
    gst_structure_fixate_field_nearest_fraction (s, "pixel-aspect-ratio",
        GST_VIDEO_INFO_PAR_N (&in), GST_VIDEO_INFO_PAR_D (&in));
  else if (gst_structure_has_field (gst_caps_get_structure (caps, 0),
          "pixel-aspect-ratio"))
    gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION,
        GST_VIDEO_INFO_PAR_N (&in), GST_VIDEO_INFO_PAR_D (&in), NULL);
  othercaps = gst_caps_fixate (othercaps);
  GST_DEBUG_OBJECT (self, "fixated to %" GST_PTR_FORMAT " (element: %dx%d)",
      othercaps, w, h);
  return othercaps;
}

#ifdef HAVE_GST_CUDA
/* The same caps, CUDA-memory structures first. */
static GstCaps *
cuda_structures_first (GstCaps * caps)
{
  GstCaps *ret = gst_caps_new_empty ();
  gint pass;
  guint i;

  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < gst_caps_get_size (caps); i++)
      if (co_caps_is_cuda (caps, i) == (pass == 0))
        gst_caps_append_structure_full (ret,
            gst_structure_copy (gst_caps_get_structure (caps, i)),
            gst_caps_features_copy (gst_caps_get_features (caps, i)));
  return ret;
}
#endif

/* GstBaseTransform orders its caps answer by the asking peer's filter, and
 * cudaupload lists its passthrough (system memory) first: state our own
 * preference so that CUDA producers hand over device memory.  FALSE when
 * the query is not one to sort (the caller chains up). */
gboolean
co_query_caps_sorted (GstBaseTransform * bt, GstPadDirection direction,
    GstQuery * query)
{
#ifdef HAVE_GST_CUDA
  GstCaps *caps = NULL, *sorted;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CAPS || direction != GST_PAD_SINK
      || co_cpu_only (GST_CO_BASE_FILTER (bt)))
    return FALSE;
  if (!CO_PARENT_CLASS->query (bt, direction, query))
    return FALSE;
  gst_query_parse_caps_result (query, &caps);
  if (caps) {
    sorted = cuda_structures_first (caps);
    gst_query_set_caps_result (query, sorted);
    gst_caps_unref (sorted);
  }
  return TRUE;
#else
  return FALSE;
#endif
}

gboolean
co_set_caps (GstBaseTransform * bt, GstCaps * incaps, GstCaps * outcaps)
{
  GstCoBaseFilter *self = GST_CO_BASE_FILTER (bt);
  GstCoBaseFilterClass *klass = GST_CO_BASE_FILTER_GET_CLASS (self);
  GstVideoInfo in, out, old_in = self->in_info, old_out = self->out_info;
  CoFormat in_format, out_format;
  CoFormat old_in_format = self->in_format, old_out_format = self->out_format;
  CoBayer in_bayer, out_bayer;
  CoBayer old_in_bayer = self->in_bayer, old_out_bayer = self->out_bayer;
  gboolean pushed, ok = TRUE;

  if (!gst_co_info_from_caps (&in, &in_bayer, incaps) ||
      !gst_co_info_from_caps (&out, &out_bayer, outcaps)) {
    GST_ERROR_OBJECT (self, "invalid caps %" GST_PTR_FORMAT " / %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  in_format = gst_co_format_from_video (GST_VIDEO_INFO_FORMAT (&in));
  out_format = gst_co_format_from_video (GST_VIDEO_INFO_FORMAT (&out));
  if (in_format == CO_FORMAT_UNKNOWN || out_format == CO_FORMAT_UNKNOWN) {
    GST_ERROR_OBJECT (self, "unsupported format in %" GST_PTR_FORMAT " / %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  /* what the mode does not free must match, whatever a peer forced */
  if ((!(klass->mode & GST_CO_FILTER_RESIZE) &&
          (GST_VIDEO_INFO_WIDTH (&in) != GST_VIDEO_INFO_WIDTH (&out) ||
              GST_VIDEO_INFO_HEIGHT (&in) != GST_VIDEO_INFO_HEIGHT (&out))) ||
      (!(klass->mode & GST_CO_FILTER_CONVERT) && (in_format != out_format ||
              in_bayer != out_bayer))) {
    GST_ERROR_OBJECT (self, "caps %" GST_PTR_FORMAT " and %" GST_PTR_FORMAT
        " differ where this element cannot change them", incaps, outcaps);
    return FALSE;
  }

  /* the staging frames are kept: they only ever grow, and a cudaFree per
   * renegotiation would wait for the device each time caps change.  The
   * new infos are in place before set_info, which may read them, and
   * set_info runs with the device current, as release does. */
  self->in_info = in;
  self->out_info = out;
  self->in_format = in_format;
  self->out_format = out_format;
  self->in_bayer = in_bayer;
  self->out_bayer = out_bayer;
  if (klass->set_info) {
    pushed = self->engine.device && gst_co_device_push (self->engine.device);
    ok = klass->set_info (self, incaps, &in, outcaps, &out);
    if (pushed)
      gst_co_device_pop (self->engine.device);
  }
  /* whatever was built from the old caps is rebuilt before the next
   * frame, whichever field changed */
  co_invalidate (self);
  if (!ok) {
    self->in_info = old_in;
    self->out_info = old_out;
    self->in_format = old_in_format;
    self->out_format = old_out_format;
    self->in_bayer = old_in_bayer;
    self->out_bayer = old_out_bayer;
  }
  return ok;
}

void
gst_co_base_filter_class_set_metadata (GstElementClass * klass,
    const gchar * longname, const gchar * klass_name,
    const gchar * description)
{
  gchar *k = g_strconcat (klass_name, "/Hardware", NULL);

  /* the element class keeps the strings: metadata is set once per class */
  gst_element_class_set_metadata (klass, longname, k, description,
      "cudaoptics developers");
  g_free (k);
}
