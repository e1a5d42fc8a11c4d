/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoBaseFilter, caps: the filter's pad templates, what each pad may
 * carry given the other (by the class's mode), fixation of a free output
 * size, the order of the sink pad's caps answer, and the caps set on both
 * pads.  The family's caps themselves (templates, formats, Bayer) are
 * gstcocaps.c's.
 */
#include "gstcocompat.h"
#include "gstcobasefilter-private.h"
#include "gstconvmm.h"

#include <stdarg.h>

#define GST_CAT_DEFAULT gst_co_base_filter_debug

void
gst_co_base_filter_class_add_template (GstElementClass * klass,
    GstPadDirection direction, const gchar * media_type,
    const gchar * formats, gint max_size)
{
  gst_co_base_filter_class_add_template_list (klass, direction, max_size,
      media_type, formats, NULL);
}

void
gst_co_base_filter_class_add_template_list (GstElementClass * klass,
    GstPadDirection direction, gint max_size, const gchar * media_type,
    const gchar * formats, ...)
{
  GstCaps *caps;
  va_list args;

  va_start (args, formats);
  caps = gst_co_template_caps_valist (max_size, media_type, formats, args);
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

void
gst_co_base_filter_class_set_details (GstCoBaseFilterClass * klass,
    const gchar * longname, const gchar * classification,
    const gchar * description, const gchar * formats, gint max_size)
{
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);

  gst_co_element_class_set_metadata (ec, longname, classification,
      description);
  gst_co_base_filter_class_add_video_templates (ec, formats, max_size);
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

/* @s in memory:NVMM, its formats that a surface holds (none: nothing;
 * no library: nothing, gstconvmm.h) */
static GstCaps *
append_nvmm (GstCaps * caps, const GstStructure * s)
{
  GstStructure *nvmm = gst_co_nvmm_structure (s);

  if (!nvmm)
    return caps;
  return gst_caps_merge_structure_full (caps, nvmm,
      gst_caps_features_new_single (GST_CO_CAPS_FEATURE_MEMORY_NVMM));
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

/* The sink pad asks for memory:NVMM first (where NVIDIA's library is),
 * then CUDA memory, so that a CUDA producer (cudaupload, nvh264dec,
 * another of ours) hands over device memory even without caps filters; the source pad offers the input's domain first, so
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
    /* NVIDIA's producers give nothing else: asked first on the sink pad,
     * and an NVMM input's output stays in NVMM first */
    gboolean nvmm_first = gst_co_caps_is_nvmm (caps, i) ||
        direction == GST_PAD_SRC;

    for (j = 0; j < outs->len; j++) {
      GstStructure *o = g_ptr_array_index (outs, j);
      if (nvmm_first)
        ret = append_nvmm (ret, o);
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
      if (!nvmm_first)
        ret = append_nvmm (ret, o);
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
/* Which pass of device_structures_first takes structure @i */
static gint
device_rank (GstCaps * caps, guint i)
{
  return gst_co_caps_is_nvmm (caps, i) ? 0 : co_caps_is_cuda (caps, i) ? 1 :
      2;
}

/* The same caps, memory:NVMM structures first (NVIDIA's producers give
 * nothing else), then CUDA memory's, then the others. */
static GstCaps *
device_structures_first (GstCaps * caps)
{
  GstCaps *ret = gst_caps_new_empty ();
  gint pass;
  guint i;

  for (pass = 0; pass < 3; pass++)
    for (i = 0; i < gst_caps_get_size (caps); i++)
      if (device_rank (caps, i) == pass)
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
    sorted = device_structures_first (caps);
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
  GstCoVideoInfo in, out, old_in = self->in, old_out = self->out;
  gboolean pushed, ok = TRUE;

  if (!gst_co_video_info_from_caps (&in, incaps) ||
      !gst_co_video_info_from_caps (&out, outcaps)) {
    GST_ERROR_OBJECT (self, "invalid caps or unsupported format in %"
        GST_PTR_FORMAT " / %" GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  /* what the mode does not free must match, whatever a peer forced */
  if ((!(klass->mode & GST_CO_FILTER_RESIZE) &&
          (GST_VIDEO_INFO_WIDTH (&in.info) != GST_VIDEO_INFO_WIDTH (&out.info)
              || GST_VIDEO_INFO_HEIGHT (&in.info) !=
              GST_VIDEO_INFO_HEIGHT (&out.info))) ||
      (!(klass->mode & GST_CO_FILTER_CONVERT) && (in.format != out.format ||
              in.bayer != out.bayer))) {
    GST_ERROR_OBJECT (self, "caps %" GST_PTR_FORMAT " and %" GST_PTR_FORMAT
        " differ where this element cannot change them", incaps, outcaps);
    return FALSE;
  }

  /* the staging frames are kept: they only ever grow, and a cudaFree per
   * renegotiation would wait for the device each time caps change.  The
   * new infos are in place before set_info, which may read them, and
   * set_info runs with the device current, as release does. */
  self->in = in;
  self->out = out;
  if (klass->set_info) {
    pushed = self->engine.device && gst_co_device_push (self->engine.device);
    ok = klass->set_info (self, incaps, &in.info, outcaps, &out.info);
    if (pushed)
      gst_co_device_pop (self->engine.device);
  }
  /* whatever was built from the old caps is rebuilt before the next
   * frame, whichever field changed */
  gst_co_rebuild_invalidate (&self->priv->rebuild);
  if (!ok) {
    self->in = old_in;
    self->out = old_out;
  }
  return ok;
}
