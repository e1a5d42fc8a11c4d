/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:element-cudacltcorrelate
 * @title: cudacltcorrelate
 *
 * Sub-pixel phase correlation, tile by tile, in the complex lapped
 * transform domain of the tile processor (Filippov 2018, the step after
 * `cudaaberration`'s): every 16x16 tile of a frame, stepped by 8 pixels,
 * is transformed, and for each pair of inputs the normalised cross-power
 * of the two tiles goes back to a 15x15 correlation whose peak, fitted
 * with the correlation's own kernel, gives the shift of the second
 * input's content against the first's to a few hundredths of a pixel.
 *
 * Inputs are request pads `sink_0`, `sink_1`... (the cameras of a rig,
 * frames matched by running time, #GstCoBaseAggregator:max-skew), all of
 * one size: grey (GRAY8, GRAY16_LE) and raw Bayer (8 or 16 bits, its luma
 * taken at each site by a filter that cancels the colour carriers) in
 * system memory, or the luma of NV12 and I420 (what the NVDEC decoders
 * give) and of RGBA, BGRA, RGBx, BGRx, in system or CUDA memory.  Each pad
 * may name its camera's calibration (`sink_N::calibration-file`): with
 * every camera's, the rig's geometry gives each pair's disparity along its
 * baseline and the rig's combined disparity.  With every camera's lens
 * kernels (`sink_N::kernels-file`, as cudaaberration reads them) raw
 * Bayer frames take the tile processor's own path: each colour's tiles
 * are placed by the kernels (and the calibration's undistortion and
 * rectification), multiplied by them and summed, and correlated without
 * going back to pixels.  With
 * #GstCudaCltCorrelate:mode `temporal` one input is correlated with its
 * previous frame (or a kept reference): per-tile flow.
 *
 * Each output buffer is `sink_0`'s frame with a `GstCoCltCorrelation`
 * result (and, with #GstCudaCltCorrelate:post-messages, an element
 * message of the same structure): `tiles-x`, `tiles-y`, `tile-step` (8:
 * tile (tx, ty) is centred on the pixel corner (8 tx, 8 ty)), `pairs`
 * (e.g. "0-1,0-2": the inputs' numbers; "ref-0" in temporal mode),
 * `shift-x`, `shift-y`, `strength` (GBytes of little-endian floats, pair
 * after pair, tiles row by row), `timestamp`, `frame`.  A shift is where
 * the second input's content lies against the first's (pixels, x right,
 * y down); strength is the correlation's peak (1: identical tiles).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m cudacltcorrelate name=c ! fakesink \
 *   videotestsrc pattern=snow num-buffers=3 ! video/x-raw,format=GRAY8,width=320,height=240 ! c.sink_0 \
 *   videotestsrc pattern=snow num-buffers=3 ! video/x-raw,format=GRAY8,width=320,height=240 ! c.sink_1
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstcudacltcorrelate-private.h"
#include "gstcudacltcorrelate-pad.h"
#include "gstcudacltcorrelate-map.h"
#include "gstcometa.h"

GST_DEBUG_CATEGORY (gst_cuda_clt_correlate_debug);
#define GST_CAT_DEFAULT gst_cuda_clt_correlate_debug

#define RESULT_KIND "GstCoCltCorrelation"
#define MAX_SIZE 16384
#define MIN_SIZE 16                /* one tile */
/* grey, the luma plane of what decoders give, or luma from RGB: the last
 * ones also in CUDA memory (GstCudaMemory holds no grey formats) */
#define FORMATS "{ GRAY8, GRAY16_LE, NV12, I420, RGBA, BGRA, RGBx, BGRx }"

static void
output_free (Output * o)
{
  if (o->results)
    gst_memory_unref (o->results);
  g_free (o->pairs_text);
  g_free (o);
}

#define gst_cuda_clt_correlate_parent_class parent_class
G_DEFINE_TYPE (GstCudaCltCorrelate, gst_cuda_clt_correlate,
    GST_TYPE_CO_BASE_AGGREGATOR);

enum
{
  PROP_0,
  PROP_MODE,
  PROP_PAIRS,
  PROP_FAT_ZERO,
  PROP_LPF_SIGMA,
  PROP_PEAK,
  PROP_REFERENCE,
  PROP_REFINE,
  PROP_REFINE_FAT_ZERO,
  PROP_POST_MESSAGES,
  PROP_OUTPUT,
  PROP_MAP_RANGE,
  PROP_PRE_SHIFT,
  PROP_RESULTS,
  PROP_MAX_SHIFT,
  PROP_SEARCH,
  PROP_PRE_SHIFT_X,
  PROP_PRE_SHIFT_Y,
  PROP_MIN_STRENGTH,
  PROP_LR_CHECK,
  PROP_NOISE_FLOOR,
};

#define GST_TYPE_CO_CORR_MODE (co_corr_mode_get_type ())
static GST_CO_ENUM_TYPE (co_corr_mode_get_type, "GstCoCorrMode",
    {CORR_PAIRS, "Pairs of inputs (the cameras of a rig)", "pairs"},
    {CORR_TEMPORAL, "One input against its previous frame (flow)",
        "temporal"})

#define GST_TYPE_CO_CORR_PEAK (co_corr_peak_get_type ())
static GST_CO_ENUM_TYPE (co_corr_peak_get_type, "GstCoCorrPeak",
    {CORR_PEAK_AUTO, "dirichlet where every frequency weighs alike, newton "
          "where lpf-sigma, fat-zero or a raw mosaic weigh them", "auto"},
    {CO_CLT_PEAK_DIRICHLET, "The correlation's own kernel fitted to the "
          "peak and its larger neighbour (most accurate with flat weights)",
        "dirichlet"},
    {CO_CLT_PEAK_PARABOLA, "A parabola per axis through three samples",
        "parabola"},
    {CO_CLT_PEAK_CENTROID, "Centroid of the positive 3x3 around the peak",
        "centroid"},
    {CO_CLT_PEAK_NEWTON, "Newton's step to the peak of the continuous "
          "correlation from its best sample (any weighting)", "newton"})

#define GST_TYPE_CO_CORR_REFERENCE (co_corr_reference_get_type ())
static GST_CO_ENUM_TYPE (co_corr_reference_get_type, "GstCoCorrReference",
    {REF_PREVIOUS, "Each frame against the one before", "previous"},
    {REF_KEEP, "Every frame against the reference held when this was set "
          "(the first frame, if set before it)", "keep"})

#define GST_TYPE_CO_CORR_OUTPUT (co_corr_output_get_type ())
static GST_CO_ENUM_TYPE (co_corr_output_get_type, "GstCoCorrOutput",
    {OUTPUT_FRAMES, "sink_0's frames, unchanged, with the results",
        "frames"},
    {OUTPUT_MAP, "A false-coloured map of the disparity or flow (RGBA), "
          "with the results", "map"},
    {OUTPUT_DISPARITY, "The disparity as 16-bit grey (KITTI: value / 256 "
          "= pixels, 0 = no answer), with the results", "disparity"})

#define GST_TYPE_CO_CORR_SEARCH (co_corr_search_get_type ())
static GST_CO_ENUM_TYPE (co_corr_search_get_type, "GstCoCorrSearch",
    {SEARCH_AUTO, "Along each pair's baseline with a rig, else any "
          "direction", "auto"},
    {SEARCH_ANY, "Any direction", "any"},
    {SEARCH_HORIZONTAL, "Along the rows (a rectified pair)", "horizontal"},
    {SEARCH_VERTICAL, "Along the columns", "vertical"})

#define GST_TYPE_CO_CORR_RESULTS (co_corr_results_get_type ())
static GST_CO_FLAGS_TYPE (co_corr_results_get_type, "GstCoCorrResults",
    {RESULTS_SHIFT, "Each pair's shift-x and shift-y", "shift"},
    {RESULTS_STRENGTH, "Each pair's strength", "strength"},
    {RESULTS_DISPARITY, "With a rig: each pair's disparity", "disparity"},
    {RESULTS_RIG, "With a rig: rig-disparity and confidence", "rig"})

/* ---- the base's steps ---- */

static gboolean
gst_cuda_clt_correlate_check_info (GstCoBaseAggregator * base,
    GstCoAggregatorPad * pad, const GstVideoInfo * info, CoBayer bayer,
    gchar ** why)
{
  const CoFormat format =
      gst_co_format_from_video (GST_VIDEO_INFO_FORMAT (info));

  /* the template's formats (a Bayer mosaic comes as GRAY8 or GRAY16_LE) */
  if (format == CO_FORMAT_UNKNOWN || format == CO_FORMAT_RGB ||
      (bayer != CO_BAYER_NONE && format != CO_FORMAT_GRAY8 &&
          format != CO_FORMAT_GRAY16_LE)) {
    *why = g_strdup_printf ("%s frames are not correlated",
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)));
    return FALSE;
  }
  if (GST_VIDEO_INFO_WIDTH (info) < MIN_SIZE ||
      GST_VIDEO_INFO_HEIGHT (info) < MIN_SIZE) {
    *why = g_strdup_printf ("%dx%d is smaller than one %dx%d tile",
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), MIN_SIZE,
        MIN_SIZE);
    return FALSE;
  }
  return TRUE;
}

/* Output: sink_0's frames, as they came, or pictures of their size and
 * rate in system memory: RGBA (output=map), GRAY16 in either byte order
 * (output=disparity: the first downstream takes) */
static GstCaps *
gst_cuda_clt_correlate_src_caps (GstCoBaseAggregator * base,
    GstCaps * downstream)
{
  GstCudaCltCorrelate *self = GST_CUDA_CLT_CORRELATE (base);
  GstCaps *caps = NULL, *ret;
  GList *l;
  GstCoAggregatorPad *first = NULL;
  guint best = G_MAXUINT;
  gint out;

  GST_OBJECT_LOCK (base);
  out = self->settings.output;
  for (l = GST_ELEMENT (base)->sinkpads; l; l = l->next)
    if (GST_CO_AGGREGATOR_PAD (l->data)->index < best) {
      best = GST_CO_AGGREGATOR_PAD (l->data)->index;
      first = l->data;
    }
  if (first)
    gst_object_ref (first);
  GST_OBJECT_UNLOCK (base);
  if (!first)
    return NULL;
  if (out != OUTPUT_FRAMES && first->configured) {
    const GstVideoFormat formats[3] = { GST_VIDEO_FORMAT_RGBA,
      GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_GRAY16_BE
    };
    const GstVideoInfo *in = &first->in.info;
    gint k;
    caps = gst_caps_new_empty ();
    for (k = out == OUTPUT_MAP ? 0 : 1; k < (out == OUTPUT_MAP ? 1 : 3); k++) {
      GstVideoInfo info;
      gst_video_info_set_format (&info, formats[k],
          GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in));
      GST_VIDEO_INFO_FPS_N (&info) = GST_VIDEO_INFO_FPS_N (in);
      GST_VIDEO_INFO_FPS_D (&info) = GST_VIDEO_INFO_FPS_D (in);
      GST_VIDEO_INFO_PAR_N (&info) = GST_VIDEO_INFO_PAR_N (in);
      GST_VIDEO_INFO_PAR_D (&info) = GST_VIDEO_INFO_PAR_D (in);
      gst_caps_append (caps, gst_video_info_to_caps (&info));
    }
  } else if (out == OUTPUT_FRAMES) {
    caps = gst_pad_get_current_caps (GST_PAD (first));
  }
  gst_object_unref (first);
  if (!caps)
    return NULL;
  ret = downstream ? gst_caps_intersect (downstream, caps) :
      gst_caps_ref (caps);
  gst_caps_unref (caps);
  /* process follows what was negotiated, not a later setting */
  if (!gst_caps_is_empty (ret)) {
    ret = gst_caps_truncate (ret);
    self->out = out;
    self->out_be = out == OUTPUT_DISPARITY &&
        !g_strcmp0 (gst_structure_get_string (gst_caps_get_structure (ret,
                0), "format"), "GRAY16_BE");
  }
  return ret;
}

/* output=map or disparity: the frame's results as a picture into
 * @outbuf (black, or no answer, without results: pairs mode with one
 * input) */
static void
draw_picture (const Output * o, GstBuffer * outbuf)
{
  GstVideoInfo info;
  GstVideoFrame out;
  GstMapInfo res;
  const gsize n = o->n_tiles;
  const guint np = o->pairs;
  const gboolean map = o->out == OUTPUT_MAP;
  guint8 *pix;
  gint stride, y;

  /* a pool downstream may pad the rows: its video meta says how */
  gst_video_info_set_format (&info, map ? GST_VIDEO_FORMAT_RGBA :
      o->out_be ? GST_VIDEO_FORMAT_GRAY16_BE : GST_VIDEO_FORMAT_GRAY16_LE,
      o->w, o->h);
  if (!gst_video_frame_map (&out, &info, outbuf, GST_MAP_WRITE))
    return;
  pix = GST_VIDEO_FRAME_PLANE_DATA (&out, 0);
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&out, 0);
  if (!o->results || !gst_memory_map (o->results, &res, GST_MAP_READ)) {
    for (y = 0; y < o->h; y++)
      memset (pix + (gsize) y * stride, 0, (gsize) o->w * (map ? 4 : 2));
  } else {
    const gfloat *r = (const gfloat *) res.data;
    /* a rig: its disparity and confidence; else the first pair's shift */
    const gfloat *rig = o->rig ? r + 4 * np * n : NULL;
    const gfloat *weight = rig ? rig + n : r + 2 * np * n;
    if (map)
      gst_co_corr_map_render (pix, o->w, o->h, stride, o->tiles_x,
          o->tiles_y, rig, r, r + np * n, weight, o->map_range);
    else
      /* a rectified pair's disparity is the content's move to the left */
      gst_co_corr_disparity_render (pix, o->w, o->h, stride, o->tiles_x,
          o->tiles_y, rig ? rig : r, rig ? 1.0f : -1.0f, weight,
          o->min_strength, o->out_be);
    gst_memory_unmap (o->results, &res);
  }
  gst_video_frame_unmap (&out);
}

/* @name: @len bytes of @whole from @at, without a copy */
static void
set_slice (GstStructure * s, const gchar * name, GBytes * whole, gsize at,
    gsize len)
{
  GBytes *b = g_bytes_new_from_bytes (whole, at, len);

  gst_structure_set (s, name, G_TYPE_BYTES, b, NULL);
  g_bytes_unref (b);
}

/* post-messages: a line a reader takes in at a glance (gst-launch-1.0 -m
 * prints it among the arrays): each pair's median shift over its
 * confident tiles and their share, or the rig's median disparity */
static gchar *
summary_of (const Output * o)
{
  const gsize n = o->n_tiles, np = o->pairs;
  const gfloat *r;
  GstMapInfo res;
  gfloat *scratch = g_new (gfloat, n);
  GString *line = g_string_new (NULL);
  gchar **names = g_strsplit (o->pairs_text ? o->pairs_text : "", ",", -1);
  gint count = 0;
  guint p;

  if (!gst_memory_map (o->results, &res, GST_MAP_READ)) {
    g_strfreev (names);
    g_string_free (line, TRUE);
    return NULL;
  }
  r = (const gfloat *) res.data;
  if (o->rig) {
    const gfloat *d = r + 4 * np * n;
    const gfloat m = gst_co_corr_median (d, d + n, n, o->min_strength,
        scratch, &count);
    g_string_append_printf (line, "rig-disparity median %.3f px over "
        "%.1f%% of tiles (confidence >= %.2f)", m, 100.0 * count / n,
        o->min_strength);
  } else {
    g_string_append_printf (line, "median shift (x, y) px over the tiles "
        "with strength >= %.2f:", o->min_strength);
    for (p = 0; p < np; p++) {
      const gfloat *w = r + (2 * np + p) * n;
      const gfloat mx = gst_co_corr_median (r + p * n, w, n,
          o->min_strength, scratch, &count);
      const gfloat my = gst_co_corr_median (r + (np + p) * n, w, n,
          o->min_strength, scratch, &count);
      g_string_append_printf (line, "%s %s (%.3f, %.3f) %.1f%%",
          p ? ";" : "", p < g_strv_length (names) ? names[p] : "?", mx, my,
          100.0 * count / n);
    }
  }
  gst_memory_unmap (o->results, &res);
  g_strfreev (names);
  g_free (scratch);
  return g_string_free (line, FALSE);
}

static GstFlowReturn
gst_cuda_clt_correlate_finish (GstCoBaseAggregator * base, GstBuffer * outbuf,
    gpointer output)
{
  GstCudaCltCorrelate *self = GST_CUDA_CLT_CORRELATE (base);
  Output *o = output;
  const gsize f = sizeof (gfloat) * o->n_tiles * o->pairs;
  const gsize t = sizeof (gfloat) * o->n_tiles;
  GBytes *whole;
  GstStructure *s;
  gchar *summary;

  if (o->out != OUTPUT_FRAMES)
    draw_picture (o, outbuf);
  if (!o->results) {
    self->frames++;
    output_free (o);
    return GST_FLOW_OK;
  }
  /* read before the block turns little-endian */
  summary = o->post ? summary_of (o) : NULL;
  if (G_BYTE_ORDER == G_BIG_ENDIAN) {
    GstMapInfo map;
    if (gst_memory_map (o->results, &map, GST_MAP_READWRITE)) {
      guint32 *v = (guint32 *) map.data;
      gsize i;
      for (i = 0; i < map.size / 4; i++)
        v[i] = GUINT32_TO_LE (v[i]);
      gst_memory_unmap (o->results, &map);
    }
  }
  /* the frame's block itself goes to the buffer: no copy */
  whole = gst_co_bytes_from_memory (o->results);
  o->results = NULL;
  if (!whole) {
    output_free (o);
    g_free (summary);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Could not map the results' "
            "memory"), (NULL));
    return GST_FLOW_ERROR;
  }
  s = gst_co_buffer_add_results (outbuf, RESULT_KIND);
  if (s) {
    gst_structure_set (s, "mode", G_TYPE_STRING,
        o->temporal ? "temporal" : "pairs",
        "tiles-x", G_TYPE_INT, o->tiles_x, "tiles-y", G_TYPE_INT,
        o->tiles_y, "tile-step", G_TYPE_INT, 8,
        "pairs", G_TYPE_STRING, o->pairs_text,
        "timestamp", G_TYPE_UINT64, (guint64) GST_BUFFER_PTS (outbuf),
        "frame", G_TYPE_UINT64, self->frames, NULL);
    if (o->fields & RESULTS_SHIFT) {
      set_slice (s, "shift-x", whole, 0, f);
      set_slice (s, "shift-y", whole, f, f);
    }
    if (o->fields & RESULTS_STRENGTH)
      set_slice (s, "strength", whole, 2 * f, f);
    if (o->rig && (o->fields & RESULTS_DISPARITY))
      set_slice (s, "disparity", whole, 3 * f, f);
    if (o->rig && (o->fields & RESULTS_RIG)) {
      set_slice (s, "rig-disparity", whole, 4 * f, t);
      set_slice (s, "confidence", whole, 4 * f + t, t);
    }
    if (o->rig)
      gst_structure_set (s, "reference-baseline", G_TYPE_DOUBLE,
          o->ref_baseline, NULL);
    if (summary)
      gst_structure_set (s, "summary", G_TYPE_STRING, summary, NULL);
    if (o->post)
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_element (GST_OBJECT (self), gst_structure_copy (s)));
  }
  g_bytes_unref (whole);
  g_free (summary);
  self->frames++;
  output_free (o);
  return GST_FLOW_OK;
}

static void
gst_cuda_clt_correlate_drop_output (GstCoBaseAggregator * base,
    gpointer output)
{
  output_free (output);
}

static void
gst_cuda_clt_correlate_release (GstCoBaseAggregator * base)
{
  GstCudaCltCorrelate *self = GST_CUDA_CLT_CORRELATE (base);

  /* an adoption releases too: the reference goes with the memory, the
   * stream's count stays (start resets it) */
  gst_cuda_clt_correlate_drop_state (self);
}

static gboolean
gst_cuda_clt_correlate_start (GstAggregator * agg)
{
  GstCudaCltCorrelate *self = GST_CUDA_CLT_CORRELATE (agg);

  self->frames = 0;
  self->have_ref = FALSE;
  self->warned_lr = FALSE;
  return GST_AGGREGATOR_CLASS (parent_class)->start (agg);
}

static gboolean
gst_cuda_clt_correlate_flush (GstAggregator * agg)
{
  GstCudaCltCorrelate *self = GST_CUDA_CLT_CORRELATE (agg);

  /* a seek: the previous frame is no neighbour of the next */
  self->have_ref = FALSE;
  return GST_AGGREGATOR_CLASS (parent_class)->flush ?
      GST_AGGREGATOR_CLASS (parent_class)->flush (agg) : TRUE;
}

static void
gst_cuda_clt_correlate_finalize (GObject * object)
{
  GstCudaCltCorrelate *self = GST_CUDA_CLT_CORRELATE (object);

  /* released at stop: nothing of the device's is left */
  gst_cuda_clt_correlate_drop_state (self);
  gst_co_base_aggregator_snapshot_clear (GST_CO_BASE_AGGREGATOR (self),
      &self->snap);
  if (self->warned_prior)
    g_bytes_unref (self->warned_prior);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define SET(f) G_STRUCT_OFFSET (Settings, f)
/* read by the next frame, held as a gfloat */
#define FLOAT (GST_CO_SETTING_FRAME | GST_CO_SETTING_FLOAT)

static void
gst_cuda_clt_correlate_class_init (GstCudaCltCorrelateClass * klass)
{
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *ac = GST_AGGREGATOR_CLASS (klass);
  GstCoBaseAggregatorClass *bc = GST_CO_BASE_AGGREGATOR_CLASS (klass);
  GstCaps *caps;
  guint i;
  const GstCoSetting settings[] = {
    /**
     * GstCudaCltCorrelate:mode:
     *
     * `pairs` correlates the inputs two by two (#GstCudaCltCorrelate:pairs);
     * `temporal` correlates one input's frames with the previous one (or a
     * kept reference, #GstCudaCltCorrelate:reference): flow per tile.
     */
    [PROP_MODE - 1] =
        GST_CO_ROW_ENUM ("mode", "Mode", "pairs: inputs two by two; "
        "temporal: one input against its previous frame",
        GST_TYPE_CO_CORR_MODE, CORR_PAIRS, GST_CO_PARAM_LIVE, SET (mode),
        GST_CO_SETTING_REBUILD),
    /**
     * GstCudaCltCorrelate:pairs:
     *
     * `all` (every two inputs, in order), or a list of input numbers such
     * as `0-1,2-3,0-2` (the N of sink_N): each pair gives the shift of the
     * second's content against the first's.
     */
    [PROP_PAIRS - 1] =
        GST_CO_ROW_STRING ("pairs", "Pairs", "Pairs of inputs to "
        "correlate: \"all\" or e.g. \"0-1,0-2\"", "all", GST_CO_PARAM_LIVE,
        SET (pairs), GST_CO_SETTING_REBUILD),
    /**
     * GstCudaCltCorrelate:fat-zero:
     *
     * Added to each frequency's magnitude before it is normalised, as a
     * fraction of the tile's mean: 0 is pure phase correlation (sharpest
     * on clean tiles); larger values favour strong frequencies over noise.
     */
    [PROP_FAT_ZERO - 1] =
        GST_CO_ROW_DOUBLE ("fat-zero", "Fat zero", "Regulariser of the "
        "normalisation, times the tile's mean magnitude (0 = pure phase)",
        0.0, 100.0, 0.0, GST_CO_PARAM_ANIM, SET (fat_zero), FLOAT),
    /**
     * GstCudaCltCorrelate:lpf-sigma:
     *
     * A Gaussian low-pass of the correlation, of this many pixels, applied
     * to the normalised cross-power before it goes back to shifts (0:
     * none).  It damps the high frequencies where noise, blur and the
     * colours' aliasing leave little of the phase; the peak widens, so the
     * first pass's fit leans towards whole pixels: use it with refine >= 1,
     * whose Newton step reads the residual whole whatever the weights.
     * Raw Bayer input is always weighted away from the mosaic's colour
     * carriers too (docs: the raw Bayer section).
     */
    [PROP_LPF_SIGMA - 1] =
        GST_CO_ROW_DOUBLE ("lpf-sigma", "Low-pass sigma", "Gaussian "
        "low-pass of the correlation, pixels (0 = none)", 0.0, 8.0, 0.0,
        GST_CO_PARAM_ANIM, SET (lpf_sigma), FLOAT),
    /**
     * GstCudaCltCorrelate:peak:
     *
     * How the first pass finds the sub-pixel peak: `dirichlet` fits the
     * correlation's own kernel (a few hundredths of a pixel on textured
     * tiles, with frequencies weighed alike; a weighted, wider peak makes
     * it read a centred peak a quarter of a pixel off); `newton` takes
     * Newton's step to the peak of the correlation as a continuous
     * function, from its best sample (exact for any weighting, but it
     * weighs the high frequencies by their square: use it with a
     * low-pass); `auto` is `newton` where lpf-sigma, fat-zero or raw Bayer
     * input weigh the frequencies, `dirichlet` elsewhere; `parabola` and
     * `centroid` are the usual estimators, for comparison.
     */
    [PROP_PEAK - 1] =
        GST_CO_ROW_ENUM ("peak", "Peak", "Sub-pixel peak estimator",
        GST_TYPE_CO_CORR_PEAK, CORR_PEAK_AUTO, GST_CO_PARAM_LIVE,
        SET (peak), GST_CO_SETTING_FRAME),
    /**
     * GstCudaCltCorrelate:reference:
     *
     * Temporal mode: `previous` correlates each frame with the one before
     * it; `keep` holds the reference it has when set (the first frame if
     * set from the start), for drift against a fixed view.
     */
    [PROP_REFERENCE - 1] =
        GST_CO_ROW_ENUM ("reference", "Reference", "Temporal mode: each "
        "frame against the previous one, or keep the reference",
        GST_TYPE_CO_CORR_REFERENCE, REF_PREVIOUS, GST_CO_PARAM_LIVE,
        SET (reference), GST_CO_SETTING_FRAME),
    /**
     * GstCudaCltCorrelate:refine:
     *
     * Passes after the first: the second input's tiles are transformed
     * again, moved by the shift measured so far, and what is left is
     * measured and added: with the centroid (unbiased near zero whatever
     * the peak's shape) where every frequency weighs alike, with Newton's
     * step where lpf-sigma, fat-zero or a raw mosaic weigh them (the
     * centroid of a weighted, broad peak reads only part of the residual).
     * The window pulls shifts beyond half a pixel towards zero, and noise
     * and blur bias the first pass's fit: one refinement corrects both
     * (0.03-0.05 px on noisy or blurred textures where one pass gives
     * 0.1-0.2).  From the third refinement on, the step is scaled by the
     * gain the last one showed (a secant), so 4-6 passes converge where
     * plain steps would not.  Each costs a transform and a correlation per
     * pair.
     */
    [PROP_REFINE - 1] =
        GST_CO_ROW_UINT ("refine", "Refine", "Refinement passes: tiles "
        "moved by the estimate and correlated again", 0, 8, 0,
        GST_CO_PARAM_LIVE, SET (refine), GST_CO_SETTING_FRAME),
    /**
     * GstCudaCltCorrelate:refine-fat-zero:
     *
     * The fat zero of the refinement passes alone (0: fat-zero's).  The
     * first measurement wants pure phase, which finds a peak whatever the
     * tiles' contrast; a refinement measures a residual already near zero,
     * where whitening only gives noisy and blurred frequencies the weight
     * of sharp ones: 0.3 halves to quarters the median error on noisy or
     * blurred photographs (docs: Accuracy).  The refinements' strength is
     * then that of the weighted correlation (identical tiles peak below 1).
     */
    [PROP_REFINE_FAT_ZERO - 1] =
        GST_CO_ROW_DOUBLE ("refine-fat-zero", "Refinement fat zero",
        "Fat zero of the refinement passes (0 = fat-zero's)", 0.0, 100.0,
        0.0, GST_CO_PARAM_ANIM, SET (refine_fat_zero), FLOAT),
    /**
     * GstCudaCltCorrelate:post-messages:
     *
     * Post each frame's results as an element message too.
     */
    [PROP_POST_MESSAGES - 1] =
        GST_CO_ROW_BOOLEAN ("post-messages", "Post messages", "Post each "
        "frame's results as an element message", FALSE, GST_CO_PARAM_LIVE,
        SET (post_messages), GST_CO_SETTING_FRAME),
    /**
     * GstCudaCltCorrelate:output:
     *
     * `frames` passes sink_0's frames with the results attached; `map`
     * gives, for display, an RGBA picture of the frame's size: with a
     * rig, the rig's disparity on a colour scale (blue -map-range, green
     * 0, red +map-range); otherwise the first pair's shift (or the flow) on
     * a colour wheel (hue the direction, saturation the length, full at
     * map-range); tiles dimmed where the strength is below 0.5.
     * `disparity` gives GRAY16 (either byte order: pngenc takes it) in
     * KITTI's convention, value / 256 = disparity in pixels, 0 = no
     * answer (below #GstCudaCltCorrelate:min-strength): a rig's, else the
     * first pair's content moving left (-shift-x).  The results are
     * attached to each.  Changing it renegotiates.
     */
    [PROP_OUTPUT - 1] =
        GST_CO_ROW_ENUM ("output", "Output", "frames: sink_0's frames "
        "with the results; map: a false-coloured picture of the disparity "
        "or flow (RGBA); disparity: 16-bit grey, value / 256 = pixels, 0 = "
        "no answer", GST_TYPE_CO_CORR_OUTPUT, OUTPUT_FRAMES,
        GST_CO_PARAM_LIVE, SET (output), GST_CO_SETTING_RESIZE),
    /**
     * GstCudaCltCorrelate:map-range:
     *
     * The shift or disparity (pixels) at the ends of output=map's colour
     * scale, or of full saturation on its colour wheel.
     */
    [PROP_MAP_RANGE - 1] =
        GST_CO_ROW_DOUBLE ("map-range", "Map range", "Pixels at the ends "
        "of output=map's colours", 0.01, 1000.0, 4.0, GST_CO_PARAM_ANIM,
        SET (map_range), GST_CO_SETTING_FRAME),
    /**
     * GstCudaCltCorrelate:pre-shift:
     *
     * Where each tile's search starts, for shifts beyond the +-7 pixels
     * one correlation sees (or a better start than zero): little-endian
     * floats, tile by tile as the results.  With a rig (every input's
     * calibration set), one float a tile, a disparity in the reference
     * pair's pixels, as `rig-disparity` gives (each pair's second camera
     * is moved along its baseline); without, two blocks of a float a tile,
     * all x shifts then all y, as `shift-x` and `shift-y` give, for every
     * pair (temporal: the flow expected).  Each pair's tiles of the second
     * input are moved by it before the first correlation; the results are
     * the whole shift.  A block of another size is ignored with a warning.
     * Set from an application (e.g. the previous frame's result); from a
     * launch line, max-shift searches instead.
     */
    [PROP_PRE_SHIFT - 1] =
        GST_CO_ROW (g_param_spec_boxed ("pre-shift", "Pre-shift",
            "Starting shift per tile: floats, one a tile (a rig's "
            "disparity) or all x then all y", G_TYPE_BYTES,
            GST_CO_PARAM_LIVE), SET (pre_shift), GST_CO_SETTING_FRAME),
    /**
     * GstCudaCltCorrelate:results:
     *
     * The fields each output's results carry (`shift+strength`, `rig`...;
     * disparity and rig mean nothing without a rig).  On the CUDA backend
     * only those (and what output=map draws) are copied to the host: a
     * calibrated quad's block is 26 floats a tile, its depth and
     * confidence 2.  The structure's other fields are always there.
     */
    [PROP_RESULTS - 1] =
        GST_CO_ROW_FLAGS ("results", "Results", "The fields the results "
        "carry (and the device copies back)", GST_TYPE_CO_CORR_RESULTS,
        RESULTS_ALL, GST_CO_PARAM_LIVE, SET (results), GST_CO_SETTING_FRAME),
    /**
     * GstCudaCltCorrelate:max-shift:
     *
     * The largest shift (pixels, in any direction) each tile is searched
     * for.  Up to 7, one correlation sees it; beyond, every input's grey
     * picture is halved level by level until the shifts fit a 5x5 sweep
     * of starts 8 pixels apart on the top level, and each finer level
     * tries its tiles' nearest coarser answers (so a tile on a depth edge
     * can take its own side's); the frame's level gives the first
     * measurement the refinement passes start from.  A pre-shift, when
     * set, is the start instead.
     */
    [PROP_MAX_SHIFT - 1] = GST_CO_ROW_UINT ("max-shift", "Max shift",
        "Largest shift searched for, pixels (7: one correlation, no "
        "search)", 7, 4096, 7, GST_CO_PARAM_LIVE, SET (max_shift),
        GST_CO_SETTING_REBUILD),
    /**
     * GstCudaCltCorrelate:search:
     *
     * Where max-shift's search looks: `auto` along each pair's baseline
     * when every input's calibration is set (a rig), in any direction
     * otherwise (temporal flow, an uncalibrated pair); `horizontal` along
     * the rows (a rectified stereo pair: fewer tries, and no match found
     * across them); `vertical` along the columns.  The measured shift
     * keeps both components.
     */
    [PROP_SEARCH - 1] = GST_CO_ROW_ENUM ("search", "Search", "Where "
        "max-shift's search looks: along a rig's baselines (auto), any "
        "direction, or along rows or columns (a rectified pair)",
        GST_TYPE_CO_CORR_SEARCH, SEARCH_AUTO, GST_CO_PARAM_LIVE,
        SET (search), GST_CO_SETTING_FRAME),
    /**
     * GstCudaCltCorrelate:pre-shift-x:
     *
     * Where every tile's search starts, from a launch line: the shift of
     * the second input's content against the first's (pixels), as
     * `shift-x` gives; with #GstCudaCltCorrelate:pre-shift-y, a global
     * #GstCudaCltCorrelate:pre-shift (which wins when set).  With a rig,
     * the reference pair's shift, taken along its baseline as the rig's
     * disparity.  A rectified pair whose nearest object is 60 px apart
     * takes pre-shift-x=-60 max-shift=60 search=horizontal.
     */
    [PROP_PRE_SHIFT_X - 1] = GST_CO_ROW_DOUBLE ("pre-shift-x",
        "Pre-shift x", "Every tile's starting shift across, pixels (the "
        "second input's content against the first's)", -4096.0, 4096.0,
        0.0, GST_CO_PARAM_ANIM, SET (pre_shift_x), GST_CO_SETTING_FRAME),
    [PROP_PRE_SHIFT_Y - 1] = GST_CO_ROW_DOUBLE ("pre-shift-y",
        "Pre-shift y", "Every tile's starting shift down, pixels",
        -4096.0, 4096.0, 0.0, GST_CO_PARAM_ANIM, SET (pre_shift_y),
        GST_CO_SETTING_FRAME),
    /**
     * GstCudaCltCorrelate:min-strength:
     *
     * The strength (with a rig, the confidence) below which a tile has no
     * answer in output=disparity's picture and the messages' `summary`.
     * The results themselves keep every tile with its strength.
     */
    [PROP_MIN_STRENGTH - 1] = GST_CO_ROW_DOUBLE ("min-strength",
        "Minimum strength", "Tiles weaker than this have no answer in "
        "output=disparity and the summary", 0.0, 1.0, 0.3,
        GST_CO_PARAM_ANIM, SET (min_strength), FLOAT),
    /**
     * GstCudaCltCorrelate:lr-check:
     *
     * Left-right consistency, as stereo matchers check it: each pair is
     * measured the other way round too (b against a, searched on its own),
     * and a tile whose two answers do not cancel within this many pixels
     * (or whose match leaves the frame) gets strength 0: no answer in
     * output=disparity, the summary or a rig's combination.  Its shift is
     * kept.  0: off.  It doubles the pairs' cost; beside a pre-shift
     * without a rig it is left out (a warning).
     */
    [PROP_LR_CHECK - 1] = GST_CO_ROW_DOUBLE ("lr-check", "Left-right check",
        "Pixels within which a pair measured both ways must agree, else "
        "the tile's strength is 0 (0: no check)", 0.0, 64.0, 0.0,
        GST_CO_PARAM_ANIM, SET (lr_check), FLOAT),
    /**
     * GstCudaCltCorrelate:noise-floor:
     *
     * The pixels' noise, as a standard deviation in grey levels of the
     * input's bit depth (0-255 for 8-bit input, 0-65535 for 16-bit; for
     * RGB input, of the luma; for raw Bayer input, of the raw samples,
     * scaled here by the luma filter's noise gain).  The normalisation
     * adds the cross-power that this noise gives to each frequency's
     * magnitude, an absolute floor beside fat-zero's relative one:
     * frequencies at or below the noise weigh little, so flat tiles
     * correlate near strength 0 and noise-only tiles lower the closer the
     * floor is to their noise (pure phase whitens their noise, even 8-bit
     * rounding, to a peak of 0.2-0.3 at a random shift), while textured
     * tiles keep their weights.  Identical textured tiles then peak a
     * little below 1.  0: pure phase (fat-zero alone).
     */
    [PROP_NOISE_FLOOR - 1] = GST_CO_ROW_DOUBLE ("noise-floor",
        "Noise floor", "Pixel noise, standard deviation in grey levels of "
        "the input's depth: frequencies at or below it weigh little "
        "(0 = none)", 0.0, 65535.0, 0.5, GST_CO_PARAM_ANIM,
        SET (noise_floor), FLOAT),
  };

  GST_DEBUG_CATEGORY_INIT (gst_cuda_clt_correlate_debug, "cudacltcorrelate",
      0, "cudaoptics CLT phase correlation");
  GST_CO_BASE_AGGREGATOR_CLASS_INSTALL (bc, GstCudaCltCorrelate, settings,
      settings);
  G_OBJECT_CLASS (klass)->finalize = gst_cuda_clt_correlate_finalize;

  gst_co_element_class_set_metadata (ec, "CUDA CLT phase correlation",
      "Filter/Analyzer/Video",
      "Sub-pixel shift per tile between cameras or frames, by phase "
      "correlation in the tile processor's lapped transform domain");
  caps = gst_co_template_caps (MAX_SIZE, "video/x-raw", FORMATS,
      "video/x-bayer", GST_CO_BAYER_FORMATS, NULL);
  /* at least one tile: smaller frames are refused in the caps answer */
  for (i = 0; i < gst_caps_get_size (caps); i++)
    gst_structure_set (gst_caps_get_structure (caps, i), "width",
        GST_TYPE_INT_RANGE, MIN_SIZE, MAX_SIZE, "height", GST_TYPE_INT_RANGE,
        MIN_SIZE, MAX_SIZE, NULL);
  gst_co_base_aggregator_class_add_sink_template (ec, caps,
      GST_TYPE_CUDA_CLT_CORRELATE_PAD);
  /* output=disparity in the byte order pngenc takes, too */
  caps = gst_caps_make_writable (caps);
  gst_caps_append (caps, gst_caps_from_string ("video/x-raw, format=(string)"
          "GRAY16_BE, framerate=(fraction)[ 0/1, 2147483647/1 ]"));
  gst_caps_set_simple (caps, "width", GST_TYPE_INT_RANGE, MIN_SIZE, MAX_SIZE,
      "height", GST_TYPE_INT_RANGE, MIN_SIZE, MAX_SIZE, NULL);
  gst_element_class_add_pad_template (ec,
      gst_pad_template_new_with_gtype ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
          caps, GST_TYPE_AGGREGATOR_PAD));
  gst_caps_unref (caps);

  ac->flush = gst_cuda_clt_correlate_flush;
  ac->start = gst_cuda_clt_correlate_start;
  bc->max_pads = MAX_INPUTS;
  bc->check_info = gst_cuda_clt_correlate_check_info;
  bc->src_caps = gst_cuda_clt_correlate_src_caps;
  bc->rebuild = gst_cuda_clt_correlate_rebuild;
  bc->process = gst_cuda_clt_correlate_process;
  bc->finish = gst_cuda_clt_correlate_finish;
  bc->drop_output = gst_cuda_clt_correlate_drop_output;
  bc->release = gst_cuda_clt_correlate_release;

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CLT_CORRELATE_PAD, 0);
}

static void
gst_cuda_clt_correlate_init (GstCudaCltCorrelate * self)
{
}
