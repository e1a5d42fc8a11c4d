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

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gstcudacltcorrelate.h"
#include "gstcudacltcorrelate-pad.h"
#include "gstcudacltcorrelate-map.h"
#include "gstcometa.h"
#include "clt.h"
#include "clt_corr.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_clt_correlate_debug);
#define GST_CAT_DEFAULT gst_cuda_clt_correlate_debug

#define RESULT_KIND "GstCoCltCorrelation"
#define MAX_SIZE 16384
#define MIN_SIZE 16                /* one tile */
#define MAX_INPUTS 16
/* grey, the luma plane of what decoders give, or luma from RGB: the last
 * ones also in CUDA memory (GstCudaMemory holds no grey formats) */
#define FORMATS "{ GRAY8, GRAY16_LE, NV12, I420, RGBA, BGRA, RGBx, BGRx }"

typedef enum
{
  CORR_PAIRS = 0,
  CORR_TEMPORAL = 1,
} CorrMode;

typedef enum
{
  REF_PREVIOUS = 0,
  REF_KEEP = 1,
} CorrReference;

typedef enum
{
  OUTPUT_FRAMES = 0,
  OUTPUT_MAP = 1,
} CorrOutput;

/* the results' fields an output carries, and all the device copies back */
typedef enum
{
  RESULTS_SHIFT = 1 << 0,
  RESULTS_STRENGTH = 1 << 1,
  RESULTS_DISPARITY = 1 << 2,
  RESULTS_RIG = 1 << 3,
} CorrResults;
#define RESULTS_ALL 0xf

/* two inputs, by position in the base's pads */
typedef struct
{
  guint a, b;
} Pair;

typedef struct
{
  gint mode;
  gchar *pairs;
  gfloat fat_zero;
  gint peak;
  gint reference;
  guint refine;
  gboolean post_messages;
  GBytes *pre_shift;
  gint output;
  gdouble map_range;
  gfloat lpf_sigma;
  guint results;
} Settings;

/* What the backend reads, device (CUDA) or host (CPU) memory.  It moves
 * from one build to the next, so that ensure keeps what still fits (and
 * the colour path's tables while its files are being changed). */
typedef struct
{
  /* a grey plane and a CLT per slot (an input, or temporal's reference
   * and new frame) and one more CLT (a tile set moved by an estimate);
   * the results (CUDA) and a refinement's; the pre-shift's copy */
  gpointer planes, clt, res, rres, prior;
  gsize planes_size, clt_size, res_size, rres_size, prior_size;
  /* the tile processor's colour path: each input's kernel nodes (and
   * their grid: nodes across, down, stride, colours) and its tiles'
   * shifts (3 floats a tile: the kernels' offsets, the camera's
   * undistortion), the shifts of a moved tile set, the CPU's colours */
  gpointer nodes[MAX_INPUTS];
  gsize nodes_size[MAX_INPUTS];
  gint grid[MAX_INPUTS][4];
  gpointer bdx, bdy, cdx, cdy, colours;
  gsize bdx_size, bdy_size, cdx_size, cdy_size, colours_size;
} Memory;

/* Everything rebuild makes from the settings and the pads, for the frames
 * until the next rebuild: built whole, or freed whole */
typedef struct
{
  gint w, h, tiles_x, tiles_y, n_tiles;
  gint mode;
  guint n_inputs;
  guint index[MAX_INPUTS];      /* the inputs' N of sink_N */
  gint n_slots;
  Pair *pairs;                  /* pairs mode; NULL with one input */
  guint n_pairs;                /* temporal: 1 */
  gchar *pairs_text;            /* the results' "pairs" */
  /* the rig's geometry, when every input names its calibration */
  gboolean have_rig;
  CoCltCorrRig rig;
  gdouble ref_baseline;         /* |o_b - o_a| of the first pair */
  /* the results' floats a tile: shift-x, shift-y, strength per pair; with
   * a rig, disparity per pair, rig-disparity, confidence */
  guint planes_per_tile;
  /* every input names its kernels: the tile processor's colour path */
  gboolean colour;
  Memory mem;
} State;

struct _GstCudaCltCorrelate
{
  GstCoBaseAggregator parent;

  Settings settings;            /* the properties (settings table) */

  /* streaming thread */
  State *state;                 /* NULL until a rebuild succeeds */
  Settings snap;                /* of the frame being processed */
  CoCltCorrParams cp;           /* of the frame being processed */
  const CoFrame *slot_frame[MAX_INPUTS];        /* each slot's last frame */
  /* temporal: slot of the reference CLT (0 or 1), and whether it holds one */
  gint ref_slot;
  gboolean have_ref;
  GBytes *warned_prior;         /* the last pre-shift warned about */

  /* output=map as negotiated (src_caps) */
  gboolean map_out;

  guint64 frames;               /* outputs finished since start */
};

/* One output's results and what they were made with, from process to
 * finish (which may run after the next instant's process and rebuild) */
typedef struct
{
  GstMemory *results;           /* NULL: none (pairs mode, one input) */
  guint pairs;
  gboolean temporal, rig, map_out, post;
  guint fields;                 /* CorrResults attached */
  gdouble ref_baseline, map_range;
  gchar *pairs_text;
  gint w, h, tiles_x, tiles_y, n_tiles;
} Output;

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
  PROP_POST_MESSAGES,
  PROP_OUTPUT,
  PROP_MAP_RANGE,
  PROP_PRE_SHIFT,
  PROP_RESULTS,
};

#define GST_TYPE_CO_CORR_MODE (co_corr_mode_get_type ())
static GST_CO_ENUM_TYPE (co_corr_mode_get_type, "GstCoCorrMode",
    {CORR_PAIRS, "Pairs of inputs (the cameras of a rig)", "pairs"},
    {CORR_TEMPORAL, "One input against its previous frame (flow)",
        "temporal"})

#define GST_TYPE_CO_CORR_PEAK (co_corr_peak_get_type ())
static GST_CO_ENUM_TYPE (co_corr_peak_get_type, "GstCoCorrPeak",
    {CO_CLT_PEAK_DIRICHLET, "The correlation's own kernel fitted to the "
          "peak and its larger neighbour (most accurate)", "dirichlet"},
    {CO_CLT_PEAK_PARABOLA, "A parabola per axis through three samples",
        "parabola"},
    {CO_CLT_PEAK_CENTROID, "Centroid of the positive 3x3 around the peak",
        "centroid"})

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
          "with the results", "map"})

#define GST_TYPE_CO_CORR_RESULTS (co_corr_results_get_type ())
static GST_CO_FLAGS_TYPE (co_corr_results_get_type, "GstCoCorrResults",
    {RESULTS_SHIFT, "Each pair's shift-x and shift-y", "shift"},
    {RESULTS_STRENGTH, "Each pair's strength", "strength"},
    {RESULTS_DISPARITY, "With a rig: each pair's disparity", "disparity"},
    {RESULTS_RIG, "With a rig: rig-disparity and confidence", "rig"})

/* the element's CUDA stream, which the launchers take */
static gpointer
stream_of (GstCudaCltCorrelate * self)
{
  return GST_CO_BASE_AGGREGATOR (self)->engine.stream;
}

/* ---- pairs ---- */

/* One input number of a pairs list at *@s (digits only), moving past it */
static gboolean
pair_number (const gchar ** s, guint * v)
{
  gchar *end;
  guint64 n;

  if (!g_ascii_isdigit (**s))
    return FALSE;
  n = g_ascii_strtoull (*s, &end, 10);
  if (n >= MAX_INPUTS * 1000)
    return FALSE;
  *v = (guint) n;
  *s = end;
  return TRUE;
}

/* "all", or "a-b,c-d" of sink pad numbers, into positions among @pads;
 * NULL and *why on a bad list (a pair that is not two different existing
 * inputs, one listed twice, more than a rig holds) */
static Pair *
parse_pairs (const gchar * text, GstCoAggregatorPad ** pads, guint n,
    guint * n_pairs, gchar ** label, gchar ** why)
{
  Pair *out = NULL;
  GString *lab = g_string_new (NULL);
  guint i, j, k = 0;

  *n_pairs = 0;
  if (!text || !*text || g_ascii_strcasecmp (text, "all") == 0) {
    out = g_new (Pair, n * (n - 1) / 2 + 1);
    for (i = 0; i < n; i++)
      for (j = i + 1; j < n; j++) {
        out[k].a = i;
        out[k].b = j;
        g_string_append_printf (lab, "%s%u-%u", k ? "," : "", pads[i]->index,
            pads[j]->index);
        k++;
      }
  } else {
    gchar **items = g_strsplit (text, ",", -1);
    out = g_new (Pair, g_strv_length (items) + 1);
    for (i = 0; items[i]; i++) {
      guint a, b, pa = n, pb = n, m;
      const gchar *c = g_strstrip (items[i]);
      if (!pair_number (&c, &a) || *c++ != '-' || !pair_number (&c, &b) ||
          *c || a == b) {
        *why = g_strdup_printf ("\"%s\" is not a pair of two different "
            "input numbers (e.g. 0-1)", items[i]);
        break;
      }
      for (m = 0; m < n; m++) {
        if (pads[m]->index == a)
          pa = m;
        if (pads[m]->index == b)
          pb = m;
      }
      if (pa == n || pb == n) {
        *why = g_strdup_printf ("pair %u-%u names an input that does not "
            "exist (sink_%u)", a, b, pa == n ? a : b);
        break;
      }
      for (m = 0; m < k && (out[m].a != pa || out[m].b != pb); m++);
      if (m < k) {
        *why = g_strdup_printf ("pair %u-%u is listed twice", a, b);
        break;
      }
      if (k == CO_CLT_CORR_MAX_PAIRS) {
        *why = g_strdup_printf ("%u pairs listed: at most %d are "
            "correlated", g_strv_length (items), CO_CLT_CORR_MAX_PAIRS);
        break;
      }
      out[k].a = pa;
      out[k].b = pb;
      g_string_append_printf (lab, "%s%u-%u", k ? "," : "", a, b);
      k++;
    }
    g_strfreev (items);
    if (*why) {
      g_free (out);
      g_string_free (lab, TRUE);
      return NULL;
    }
  }
  *n_pairs = k;
  *label = g_string_free (lab, FALSE);
  return out;
}

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

/* Output: sink_0's frames, as they came, or (output=map) RGBA pictures
 * of their size and rate in system memory */
static GstCaps *
gst_cuda_clt_correlate_src_caps (GstCoBaseAggregator * base,
    GstCaps * downstream)
{
  GstCudaCltCorrelate *self = GST_CUDA_CLT_CORRELATE (base);
  GstCaps *caps = NULL, *ret;
  GList *l;
  GstCoAggregatorPad *first = NULL;
  guint best = G_MAXUINT;
  gboolean map;

  GST_OBJECT_LOCK (base);
  map = self->settings.output == OUTPUT_MAP;
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
  if (map) {
    GstVideoInfo info;
    const GstVideoInfo *in = &first->in.info;
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA,
        GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in));
    GST_VIDEO_INFO_FPS_N (&info) = GST_VIDEO_INFO_FPS_N (in);
    GST_VIDEO_INFO_FPS_D (&info) = GST_VIDEO_INFO_FPS_D (in);
    GST_VIDEO_INFO_PAR_N (&info) = GST_VIDEO_INFO_PAR_N (in);
    GST_VIDEO_INFO_PAR_D (&info) = GST_VIDEO_INFO_PAR_D (in);
    caps = first->configured ? gst_video_info_to_caps (&info) : NULL;
  } else {
    caps = gst_pad_get_current_caps (GST_PAD (first));
  }
  gst_object_unref (first);
  if (!caps)
    return NULL;
  ret = downstream ? gst_caps_intersect (downstream, caps) :
      gst_caps_ref (caps);
  gst_caps_unref (caps);
  /* process follows what was negotiated, not a later setting */
  if (!gst_caps_is_empty (ret))
    self->map_out = map;
  return ret;
}

/* A file each input's pad may name, read into @out (@size bytes an
 * input) by @get */
typedef gboolean (*PadFile) (GstCoAggregatorPad * pad, GstElement * element,
    gboolean keep, gpointer out, GError ** error);

static gboolean
pad_camera (GstCoAggregatorPad * pad, GstElement * element, gboolean keep,
    gpointer out, GError ** error)
{
  return gst_cuda_clt_correlate_pad_camera (GST_CUDA_CLT_CORRELATE_PAD (pad),
      element, keep, out, error);
}

static gboolean
pad_kernels (GstCoAggregatorPad * pad, GstElement * element, gboolean keep,
    gpointer out, GError ** error)
{
  return gst_cuda_clt_correlate_pad_kernels (GST_CUDA_CLT_CORRELATE_PAD (pad),
      element, keep, out, error);
}

/* How many inputs name their @prop (every input or none): -1 after an
 * element error when a file cannot be used (its @noun) or only some
 * inputs name one (@why every one is needed).  While streaming, files
 * are set one pad after the other: a partial set is then a warning and
 * KEEP (the element keeps what it had until every input names one). */
#define KEEP (-2)

static gint
every_or_none (GstCudaCltCorrelate * self, PadFile get, gpointer out,
    gsize size, const gchar * prop, const gchar * noun, const gchar * why)
{
  GstCoBaseAggregator *base = GST_CO_BASE_AGGREGATOR (self);
  gint missing = -1, n_have = 0;
  guint i;

  for (i = 0; i < base->n_pads; i++) {
    GError *err = NULL;
    if (get (base->pads[i], GST_ELEMENT (self), self->frames > 0,
            (guint8 *) out + i * size, &err)) {
      n_have++;
    } else if (err && self->frames > 0) {
      /* streaming, a file that never was usable (its source warned): the
       * pad is as one that names none, and the last state stays */
      GST_DEBUG_OBJECT (self, "%s: %s", GST_PAD_NAME (base->pads[i]),
          err->message);
      g_error_free (err);
      missing = i;
    } else if (err) {
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s: could not use its "
              "%s: %s", GST_PAD_NAME (base->pads[i]), noun, err->message),
          (NULL));
      g_error_free (err);
      return -1;
    } else {
      missing = i;
    }
  }
  if (n_have > 0 && missing >= 0 && self->frames > 0) {
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND, ("%s has no %s yet: %s "
            "(or none); until it has, the last state stays",
            GST_PAD_NAME (base->pads[missing]), prop, why), (NULL));
    return KEEP;
  }
  if (n_have > 0 && missing >= 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s has no %s: %s (or "
            "none)", GST_PAD_NAME (base->pads[missing]), prop, why), (NULL));
    return -1;
  }
  return n_have;
}

static void
state_free (GstCudaCltCorrelate * self, State * st)
{
  Memory *m;
  guint i;

  if (!st)
    return;
  m = &st->mem;
  for (i = 0; i < MAX_INPUTS; i++)
    gst_co_element_free (self, m->nodes[i]);
  gst_co_element_free (self, m->bdx);
  gst_co_element_free (self, m->bdy);
  gst_co_element_free (self, m->cdx);
  gst_co_element_free (self, m->cdy);
  gst_co_element_free (self, m->colours);
  gst_co_element_free (self, m->planes);
  gst_co_element_free (self, m->clt);
  gst_co_element_free (self, m->res);
  gst_co_element_free (self, m->rres);
  gst_co_element_free (self, m->prior);
  g_free (st->pairs);
  g_free (st->pairs_text);
  g_free (st);
}

/* The built state, and the reference its memory held */
static void
drop_state (GstCudaCltCorrelate * self)
{
  state_free (self, self->state);
  self->state = NULL;
  self->have_ref = FALSE;
}

/* The tile processor's colour path when the inputs name their kernels
 * (every input's, or none: *colour FALSE): each input's kernel nodes and
 * where its tiles sample the frame (the kernels' offsets and, with a
 * calibration, the camera's undistortion and rectification at each
 * tile's centre), where the backend reads them.  Element errors: some
 * inputs without kernels, a file that cannot be used, input that is not
 * raw Bayer.  While streaming, some inputs without kernels keep the last
 * build's set (@old's path, and the tables @st took over from it) when
 * @same_inputs (the same pads, the same size) and fall back to the luma
 * path otherwise. */
static gboolean
setup_lens (GstCudaCltCorrelate * self, State * st, const State * old,
    gboolean same_inputs)
{
  GstCoBaseAggregator *base = GST_CO_BASE_AGGREGATOR (self);
  Memory *m = &st->mem;
  GstCoCltGrid grids[MAX_INPUTS];
  CoCamera cams[MAX_INPUTS];
  const gint w = st->w, h = st->h, roi[4] = { 0, 0, w, h };
  const gsize t3 = (gsize) 3 * st->n_tiles * sizeof (gfloat);
  gfloat *dx = NULL, *dy = NULL;
  guint i;
  gint n_have, n_cams;
  gboolean ok = FALSE;

  st->colour = FALSE;
  memset (grids, 0, sizeof (grids));
  n_have = every_or_none (self, pad_kernels, grids, sizeof (grids[0]),
      "kernels-file", "kernels", "the tile processor's colour path needs "
      "every camera's kernels");
  if (n_have == KEEP && old && old->colour && same_inputs) {
    /* the path and tables of the last usable set stay (the same cameras
     * at the same size: their tables fit) */
    st->colour = ok = TRUE;
    goto done;
  }
  if (n_have <= 0) {
    ok = n_have == 0 || n_have == KEEP;
    goto done;
  }
  n_cams = every_or_none (self, pad_camera, cams, sizeof (cams[0]),
      "calibration-file", "calibration", "the tiles' undistortion needs "
      "every camera's calibration");
  if (n_cams == KEEP)           /* placed without the cameras' maps */
    n_cams = 0;
  if (n_cams < 0)
    goto done;
  dx = g_malloc (t3 * base->n_pads);
  dy = g_malloc (t3 * base->n_pads);
  for (i = 0; i < base->n_pads; i++) {
    GstCoAggregatorPad *pad = base->pads[i];
    if (pad->in.bayer == CO_BAYER_NONE) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: kernels-file takes "
              "raw Bayer frames (video/x-bayer); %s frames are correlated "
              "by their luma, without kernels", GST_PAD_NAME (pad),
              gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
                  (&pad->in.info))), (NULL));
      goto done;
    }
    gst_co_clt_grid_shifts (&grids[i], n_cams ? &cams[i] : NULL, w, h, roi,
        (gfloat *) ((guint8 *) dx + i * t3),
        (gfloat *) ((guint8 *) dy + i * t3));
    if (!gst_co_element_ensure (self, &m->nodes[i], &m->nodes_size[i],
            gst_co_clt_grid_bytes (&grids[i])) ||
        !gst_co_element_upload (self, m->nodes[i], grids[i].nodes,
            gst_co_clt_grid_bytes (&grids[i]), "uploading the kernels"))
      goto done;
    m->grid[i][0] = grids[i].grid_w;
    m->grid[i][1] = grids[i].grid_h;
    m->grid[i][2] = grids[i].stride;
    m->grid[i][3] = grids[i].colours;
  }
  ok = gst_co_element_ensure (self, &m->bdx, &m->bdx_size,
      t3 * base->n_pads) && gst_co_element_ensure (self, &m->bdy,
      &m->bdy_size, t3 * base->n_pads) && gst_co_element_ensure (self,
      &m->cdx, &m->cdx_size, t3) && gst_co_element_ensure (self, &m->cdy,
      &m->cdy_size, t3) && (gst_co_element_on_cuda (self) ||
      gst_co_element_ensure (self, &m->colours, &m->colours_size,
          t3 * CO_CLT_COEFFS)) && gst_co_element_upload (self, m->bdx, dx,
      t3 * base->n_pads, "uploading the tile shifts") &&
      gst_co_element_upload (self, m->bdy, dy, t3 * base->n_pads,
      "uploading the tile shifts");
  st->colour = ok;

done:
  for (i = 0; i < MAX_INPUTS; i++)
    gst_co_clt_grid_clear (&grids[i]);
  g_free (dx);
  g_free (dy);
  return ok;
}

/* The largest |P's fourth column| taken for a camera's place: f times
 * the baseline, in pixels (10^4 px focal length times 10 km) */
#define MAX_PLACE 1e8

/* The rig of @pairs from the inputs' calibrations (GstCudaCltCorrelatePad's
 * calibration-file) into @rig: *have FALSE when no input names one.  An
 * element error when only some do, a file cannot be used, or a pair's
 * cameras stand at one place (or nowhere finite); while streaming, a
 * warning and *keep (the last rig stays) instead. */
static gboolean
build_rig (GstCudaCltCorrelate * self, const Pair * pairs, guint n_pairs,
    CoCltCorrRig * rig, gdouble * ref_baseline, gboolean * have,
    gboolean * keep)
{
  GstCoBaseAggregator *base = GST_CO_BASE_AGGREGATOR (self);
  CoCamera cams[MAX_INPUTS];
  gint n_have;
  guint i;
  gdouble ref = 0.0;

  *have = *keep = FALSE;
  n_have = every_or_none (self, pad_camera, cams, sizeof (cams[0]),
      "calibration-file", "calibration", "the rig's geometry needs every "
      "camera's calibration");
  if (n_have == KEEP) {
    *keep = TRUE;
    return TRUE;
  }
  if (n_have < 0)
    return FALSE;
  if (n_have == 0 || n_pairs == 0)
    return TRUE;
  g_assert (n_pairs <= CO_CLT_CORR_MAX_PAIRS);
  /* o_k, P's fourth column, places camera k in the rectified images */
  for (i = 0; i < n_pairs; i++) {
    const CoCamera *a = &cams[pairs[i].a], *b = &cams[pairs[i].b];
    const gdouble ox = b->p[3] - a->p[3], oy = b->p[7] - a->p[7];
    const gdouble len = sqrt (ox * ox + oy * oy);
    CoCltCorrBaseline *bl = &rig->pair[i];
    if (!(len > 1e-9) || !(len < MAX_PLACE)) {
      const guint ia = base->pads[pairs[i].a]->index;
      const guint ib = base->pads[pairs[i].b]->index;
      gchar *msg = len > 1e-9 ? g_strdup_printf ("Pair %u-%u: the two "
          "calibrations place the cameras %g px apart (their projections' "
          "fourth columns, f times the baseline): no usable baseline", ia,
          ib, len) : g_strdup_printf ("Pair %u-%u: the two calibrations "
          "place the cameras at one point (their projections' fourth "
          "columns are equal): no baseline", ia, ib);
      if (self->frames > 0) {
        GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("%s; the last rig "
                "stays", msg), (NULL));
        *keep = TRUE;
      } else {
        GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", msg), (NULL));
      }
      g_free (msg);
      return *keep;
    }
    if (i == 0)
      ref = len;
    bl->ux = (gfloat) (ox / len);
    bl->uy = (gfloat) (oy / len);
    bl->scale = (gfloat) (ref / len);
    bl->inv_scale = (gfloat) (len / ref);
  }
  rig->n_pairs = n_pairs;
  *ref_baseline = ref;
  *have = TRUE;
  return TRUE;
}

static gboolean
gst_cuda_clt_correlate_rebuild (GstCoBaseAggregator * base,
    gboolean caps_changed)
{
  GstCudaCltCorrelate *self = GST_CUDA_CLT_CORRELATE (base);
  State *old = self->state, *st = g_new0 (State, 1);
  Memory *m = &st->mem;
  Settings s;
  gchar *why = NULL;
  guint slots, i;
  gboolean ok = FALSE, keep = FALSE, same;

  gst_co_base_aggregator_snapshot (base, &s);
  /* the memory goes on to the new build (ensure keeps what fits); the old
   * one, described still, says what may be kept below */
  if (old) {
    st->mem = old->mem;
    memset (&old->mem, 0, sizeof (old->mem));
  }
  if (base->n_pads > MAX_INPUTS) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%u inputs: at most %d are "
            "correlated", base->n_pads, MAX_INPUTS), (NULL));
    goto done;
  }
  if (s.mode == CORR_TEMPORAL && base->n_pads != 1) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("mode=temporal correlates "
            "one input with its own frames, but there are %u inputs",
            base->n_pads), (NULL));
    goto done;
  }
  if (s.mode == CORR_PAIRS && base->n_pads < 2) {
    /* a rig whose other cameras are still being added: frames pass */
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("mode=pairs with one "
            "input: nothing to correlate until another is added (request "
            "sink_1), or use mode=temporal"), (NULL));
    st->pairs_text = g_strdup ("");
  } else if (s.mode == CORR_PAIRS) {
    st->pairs = parse_pairs (s.pairs, base->pads, base->n_pads, &st->n_pairs,
        &st->pairs_text, &why);
    if (!st->pairs) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Bad pairs: %s", why),
          (NULL));
      goto done;
    }
    if (!build_rig (self, st->pairs, st->n_pairs, &st->rig,
            &st->ref_baseline, &st->have_rig, &keep))
      goto done;
    /* the last rig stays while its pairs do (the same inputs' numbers) */
    if (keep) {
      st->have_rig = old && old->have_rig &&
          g_strcmp0 (st->pairs_text, old->pairs_text) == 0;
      if (st->have_rig) {
        st->rig = old->rig;
        st->ref_baseline = old->ref_baseline;
      }
    }
  } else {
    st->pairs_text = g_strdup_printf ("ref-%u", base->pads[0]->index);
    st->n_pairs = 1;
  }

  st->mode = s.mode;
  st->n_inputs = base->n_pads;
  for (i = 0; i < base->n_pads; i++)
    st->index[i] = base->pads[i]->index;
  st->w = GST_VIDEO_INFO_WIDTH (&base->pads[0]->info);
  st->h = GST_VIDEO_INFO_HEIGHT (&base->pads[0]->info);
  co_clt_tiles (st->w, st->h, &st->tiles_x, &st->tiles_y);
  st->n_tiles = st->tiles_x * st->tiles_y;
  /* the same cameras at the same size as the last build: what was built
   * for them may stay while some of their files are being changed */
  same = old && old->n_inputs == st->n_inputs && old->w == st->w &&
      old->h == st->h &&
      memcmp (old->index, st->index, sizeof (guint) * st->n_inputs) == 0;
  /* a CLT per input; temporal: the reference and the new frame */
  st->n_slots = slots = s.mode == CORR_TEMPORAL ? 2 : base->n_pads;
  if (caps_changed || !old || old->mode != st->mode ||
      old->n_inputs != st->n_inputs)
    self->have_ref = FALSE;
  st->planes_per_tile = st->have_rig ? 4 * st->n_pairs + 2 :
      3 * MAX (st->n_pairs, 1);
  if (!setup_lens (self, st, old, same))
    goto done;
  /* the grey planes the luma path transforms (the colour path reads the
   * raw frames themselves) */
  if ((!st->colour && !gst_co_element_ensure (self, &m->planes,
              &m->planes_size, sizeof (gfloat) * st->w * st->h * slots)) ||
      !gst_co_element_ensure (self, &m->clt, &m->clt_size,
          sizeof (gfloat) * CO_CLT_COEFFS * st->n_tiles * (slots + 1)) ||
      !gst_co_element_ensure (self, &m->rres, &m->rres_size,
          sizeof (gfloat) * 7 * st->n_tiles) ||
      (gst_co_element_on_cuda (self) && !gst_co_element_ensure (self,
              &m->res, &m->res_size,
              sizeof (gfloat) * st->planes_per_tile * st->n_tiles)))
    goto done;
  GST_INFO_OBJECT (self, "%dx%d: %dx%d tiles, pairs %s%s%s", st->w, st->h,
      st->tiles_x, st->tiles_y, st->pairs_text,
      st->have_rig ? ", rig geometry from the calibrations" : "",
      st->colour ? ", colour tiles through each camera's kernels" : "");
  state_free (self, old);
  self->state = st;
  ok = TRUE;

done:
  if (!ok) {
    /* nothing half built stays, nor the old build, whose memory went on
     * to this one: the next rebuild starts afresh */
    state_free (self, st);
    drop_state (self);
  }
  g_free (why);
  gst_co_base_aggregator_snapshot_clear (base, &s);
  return ok;
}

static gfloat *
plane_of (GstCudaCltCorrelate * self, gint slot)
{
  const State *st = self->state;

  return (gfloat *) st->mem.planes + (gsize) slot * st->w * st->h;
}

static gfloat *
clt_of (GstCudaCltCorrelate * self, gint slot)
{
  const State *st = self->state;

  return (gfloat *) st->mem.clt + (gsize) slot * CO_CLT_COEFFS * st->n_tiles;
}

/* The colour path's transform of @slot's raw frame into @clt: its three
 * colours' tiles, each sampling where the camera's kernels and geometry
 * say, moved by (@dx, @dy) (per tile, or NULL), multiplied by its kernel
 * (cudaaberration's correction, kept in the transform domain), and summed
 * as one picture's (co_clt_corr_mix_at). */
static gboolean
transform_colour (GstCudaCltCorrelate * self, gint slot, const gfloat * dx,
    const gfloat * dy, gfloat * clt)
{
  State *st = self->state;
  const gint in = st->mode == CORR_TEMPORAL ? 0 : slot;
  const CoFrame *f = self->slot_frame[slot];
  const gsize n = st->n_tiles, z = n * CO_CLT_COEFFS;
  const gfloat *bdx = (const gfloat *) st->mem.bdx + 3 * n * in;
  const gfloat *bdy = (const gfloat *) st->mem.bdy + 3 * n * in;
  const gint *g = st->mem.grid[in];
  const int bps = f->format == CO_FORMAT_GRAY16_LE ? 2 : 1;
  const float scale = bps == 2 ? 1.0f / 65535.0f : 1.0f / 255.0f;
  int err;

  if (!gst_co_element_on_cuda (self)) {
    /* the colours' tiles apart (the CPU keeps a plane each) */
    float *const cc = st->mem.colours;
    float *const planes[3] = { cc, cc + z, cc + 2 * z };
    gint c;
    co_clt_corr_shifts_cpu (bdx, bdy, dx, dy, n, st->mem.cdx, st->mem.cdy);
    co_clt_forward_bayer_cpu (f->data[0], f->width, f->height, f->pitch[0],
        bps, scale, f->bayer, NULL, st->mem.cdx, st->mem.cdy, planes);
    for (c = 0; c < 3; c++)
      co_clt_convolve_grid_cpu (planes[c], 0, 0, st->w, st->h,
          st->mem.nodes[in], g[0], g[1], g[2], g[3], c);
    co_clt_corr_mix_cpu (cc, n, clt);
    return TRUE;
  }
  /* the same steps in one pass, each tile kept on the chip */
  err = co_clt_corr_shifts_cuda (bdx, bdy, dx, dy, n, st->mem.cdx, st->mem.cdy,
      stream_of (self));
  if (!err)
    err = co_clt_corr_forward_bayer_cuda (f->data[0], f->width, f->height,
        f->pitch[0], bps, scale, f->bayer, st->mem.cdx, st->mem.cdy,
        st->mem.nodes[in], g[0], g[1], g[2], g[3], clt, stream_of (self));
  return gst_co_element_cuda_ok (self, err, "transforming colour tiles");
}

/* The CLT of @slot's plane (or, on the colour path, frame) into @clt,
 * each tile moved by (@dx, @dy) (per tile, or NULL) */
static gboolean
transform (GstCudaCltCorrelate * self, gint slot, const gfloat * dx,
    const gfloat * dy, gfloat * clt)
{
  State *st = self->state;

  if (st->colour)
    return transform_colour (self, slot, dx, dy, clt);
  if (!gst_co_element_on_cuda (self)) {
    co_clt_forward_cpu (plane_of (self, slot), st->w, st->h, st->w, dx,
        dy, clt);
    return TRUE;
  }
  return gst_co_element_cuda_ok (self, co_clt_forward_cuda (plane_of (self,
              slot), st->w, st->h, st->w, dx, dy, clt, stream_of (self)),
      "transforming tiles");
}

/* Frame @in into @slot: its grey plane and the CLT of it */
static gboolean
forward (GstCudaCltCorrelate * self, const CoFrame * in, gint slot)
{
  State *st = self->state;

  self->slot_frame[slot] = in;
  if (st->colour)
    return transform (self, slot, NULL, NULL, clt_of (self, slot));
  if (!gst_co_element_on_cuda (self))
    co_clt_corr_plane_cpu (in, plane_of (self, slot));
  else if (!gst_co_element_cuda_ok (self, co_clt_corr_plane_cuda (in,
              plane_of (self, slot), stream_of (self)), "reading a frame"))
    return FALSE;
  return transform (self, slot, NULL, NULL, clt_of (self, slot));
}

static gboolean
correlate_into (GstCudaCltCorrelate * self, const gfloat * a,
    const gfloat * b, CoCltPeak peak, gfloat * dx, gfloat * dy,
    gfloat * strength)
{
  State *st = self->state;
  const gint n = st->n_tiles;

  if (!gst_co_element_on_cuda (self)) {
    co_clt_correlate_cpu (a, b, n, &self->cp, peak, NULL, dx, dy, strength);
    return TRUE;
  }
  return gst_co_element_cuda_ok (self, co_clt_correlate_cuda (a, b, n,
          &self->cp, peak, NULL, dx, dy, strength, stream_of (self)),
      "correlating tiles");
}

/* Slot @b against slot @a as pair @p of the frame, into the results
 * (CPU: @host) or the device's (CUDA), laid out as all pairs' shift-x,
 * then shift-y, then strength.  The first measurement (from no shift, or
 * from b's tiles moved by a @prior, the pre-shift where the backend reads
 * it) uses the `peak` estimator; each refinement moves b's tiles by the
 * estimate so far and adds the residual, measured with the centroid: the
 * residual is near zero, where a symmetric estimator is unbiased whatever
 * the peak's shape (noise, blur, fat zero), while the Dirichlet fit, made
 * for a clean peak, picks a side (tests/ref/corr-baselines.py measures
 * both). */
static gboolean
correlate (GstCudaCltCorrelate * self, gint a, gint b, guint p,
    guint n_pairs, const gfloat * prior, gfloat * host)
{
  State *st = self->state;
  const gsize n = st->n_tiles;
  const gboolean cuda = gst_co_element_on_cuda (self);
  gfloat *r = cuda ? st->mem.res : host, *rr = st->mem.rres;
  gfloat *dx = r + p * n, *dy = r + (n_pairs + p) * n,
      *strength = r + (2 * n_pairs + p) * n;
  gfloat *moved = clt_of (self, st->n_slots);
  const CoCltCorrBaseline *bl = st->have_rig ? &st->rig.pair[p] : NULL;
  guint k, passes = self->snap.refine;

  if (prior) {
    if (!cuda)
      co_clt_corr_prior_cpu (prior, bl, n, dx, dy);
    else if (!gst_co_element_cuda_ok (self, co_clt_corr_prior_cuda (prior,
                bl, n, dx, dy, stream_of (self)), "pre-shifting tiles"))
      return FALSE;
    passes++;
  } else if (!correlate_into (self, clt_of (self, a), clt_of (self, b),
          (CoCltPeak) self->snap.peak, dx, dy, strength)) {
    return FALSE;
  }
  for (k = 0; k < passes; k++) {
    const CoCltPeak peak = prior && k == 0 ? (CoCltPeak) self->snap.peak :
        CO_CLT_PEAK_CENTROID;
    if (!transform (self, b, dx, dy, moved) ||
        !correlate_into (self, clt_of (self, a), moved, peak, rr, rr + n,
            rr + 2 * n))
      return FALSE;
    /* the secant counts the passes measured with the centroid */
    const gint pass = prior ? (gint) k - 1 : (gint) k;
    if (!cuda)
      co_clt_corr_refine_cpu (dx, dy, strength, rr, rr + n, rr + 2 * n,
          rr + 3 * n, n, pass);
    else if (!gst_co_element_cuda_ok (self, co_clt_corr_refine_cuda (dx, dy,
                strength, rr, rr + n, rr + 2 * n, rr + 3 * n, n, pass,
                stream_of (self)), "refining shifts"))
      return FALSE;
  }
  return TRUE;
}


/* The fields @o carries, and what output=map draws, copied back from the
 * device (behind the next kernels): a consumer of the rig's depth alone
 * reads 2 floats a tile instead of a quad's 26.  The block's layout is
 * the results' (shift-x, shift-y, strength, disparity per pair, then
 * rig-disparity and confidence); what is not copied stays unread. */
static gboolean
download_fields (GstCudaCltCorrelate * self, const Output * o, gfloat * host)
{
  State *st = self->state;
  const gsize f = (gsize) o->pairs * o->n_tiles, t = o->n_tiles;
  guint want = o->fields, k;
  /* per field: where it starts in the block and how long it is */
  const gsize at[4] = { 0, 2 * f, 3 * f, 4 * f };
  const gsize len[4] = { 2 * f, f, f, 2 * t };
  gsize from = 0, to = 0;
  gboolean ok = TRUE;

  if (o->map_out)
    want |= o->rig ? RESULTS_RIG : RESULTS_SHIFT | RESULTS_STRENGTH;
  if (!o->rig)
    want &= RESULTS_SHIFT | RESULTS_STRENGTH;
  /* neighbouring fields in one copy */
  for (k = 0; k <= 4 && ok; k++) {
    if (k < 4 && (want & (1u << k))) {
      if (to == from)
        from = at[k];
      to = at[k] + len[k];
    } else if (to > from) {
      ok = gst_co_element_download_behind (self, host + from,
          (const gfloat *) st->mem.res + from, sizeof (gfloat) * (to - from),
          "reading results");
      from = to = 0;
    }
  }
  return ok;
}

/* The frame's pre-shift where the backend reads it, or NULL: none set,
 * or a block of the wrong size (one warning a block) */
static gboolean
prior_of (GstCudaCltCorrelate * self, const gfloat ** prior)
{
  State *st = self->state;
  GBytes *bytes = self->snap.pre_shift;
  const gsize want = sizeof (gfloat) * st->n_tiles * (st->have_rig ? 1 : 2);
  gsize size = 0;
  gconstpointer data;
  gfloat *swapped = NULL;
  gboolean ok;

  *prior = NULL;
  if (!bytes || (st->mode == CORR_PAIRS && st->n_pairs == 0))
    return TRUE;
  data = g_bytes_get_data (bytes, &size);
  if (size != want) {
    if (self->warned_prior != bytes) {
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("pre-shift ignored: it "
              "holds %" G_GSIZE_FORMAT " bytes; %dx%d tiles take %"
              G_GSIZE_FORMAT " (%s)", size, st->tiles_x, st->tiles_y,
              want, st->have_rig ? "a float a tile: the rig's disparity" :
              "two floats a tile: all shifts x, then all y"), (NULL));
      if (self->warned_prior)
        g_bytes_unref (self->warned_prior);
      self->warned_prior = g_bytes_ref (bytes);
    }
    return TRUE;
  }
  if (G_BYTE_ORDER == G_BIG_ENDIAN) {
    /* little-endian, as the results */
    guint32 *v = g_malloc (size);
    gsize i;
    memcpy (v, data, size);
    for (i = 0; i < size / 4; i++)
      v[i] = GUINT32_FROM_LE (v[i]);
    data = swapped = (gfloat *) v;
  }
  {
    /* a shift beyond the frame (or NaN) would reach the tiles' integer
     * offsets: refused whole, once a block */
    const gfloat *v = data, lim = (gfloat) MAX (st->w, st->h);
    gsize i;
    for (i = 0; i < size / sizeof (gfloat) && fabsf (v[i]) <= lim; i++);
    if (i < size / sizeof (gfloat)) {
      if (self->warned_prior != bytes) {
        GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("pre-shift ignored: "
                "float %" G_GSIZE_FORMAT " is %g, not a shift within the "
                "frame (at most %g px)", i, v[i], lim), (NULL));
        if (self->warned_prior)
          g_bytes_unref (self->warned_prior);
        self->warned_prior = g_bytes_ref (bytes);
      }
      g_free (swapped);
      return TRUE;
    }
  }
  if (!gst_co_element_on_cuda (self)) {
    /* the snapshot holds the block until the next frame */
    if (!swapped) {
      *prior = data;
      return TRUE;
    }
    ok = gst_co_element_ensure (self, &st->mem.prior, &st->mem.prior_size,
        size);
    if (ok)
      memcpy (st->mem.prior, swapped, size);
  } else {
    ok = gst_co_element_ensure (self, &st->mem.prior, &st->mem.prior_size,
        size) && gst_co_element_upload (self, st->mem.prior, data, size, "pre-shift");
  }
  g_free (swapped);
  *prior = ok ? st->mem.prior : NULL;
  return ok;
}

static GstFlowReturn
gst_cuda_clt_correlate_process (GstCoBaseAggregator * base,
    GstBuffer * const *inbufs, const CoFrame * frames, guint n,
    GstBuffer ** outbuf, gpointer * output)
{
  GstCudaCltCorrelate *self = GST_CUDA_CLT_CORRELATE (base);
  State *st = self->state;
  const gboolean cuda = gst_co_element_on_cuda (self);
  gfloat *host = NULL;
  GstMapInfo map;
  guint p, n_pairs = 0;
  gboolean ok = TRUE;
  const gfloat *prior = NULL;
  Output *o;

  gst_co_base_aggregator_snapshot_clear (base, &self->snap);
  gst_co_base_aggregator_snapshot (base, &self->snap);
  co_clt_corr_params_init (&self->cp, self->snap.fat_zero,
      self->snap.lpf_sigma);
  if (!self->map_out) {
    *outbuf = gst_buffer_ref (inbufs[0]);
  } else {
    GstFlowReturn ret = gst_co_base_aggregator_alloc (base, outbuf);
    if (ret != GST_FLOW_OK)
      return ret;
  }

  if (st->mode == CORR_TEMPORAL) {
    if (!self->have_ref)
      self->ref_slot = 1;
    ok = forward (self, &frames[0], 1 - self->ref_slot);
    n_pairs = 1;
  } else {
    for (p = 0; ok && p < n; p++)
      ok = forward (self, &frames[p], p);
    n_pairs = st->n_pairs;
  }
  if (!ok)
    return GST_FLOW_ERROR;
  o = g_new0 (Output, 1);
  *output = o;
  o->pairs = n_pairs;
  o->temporal = st->mode == CORR_TEMPORAL;
  o->rig = st->have_rig;
  o->ref_baseline = st->ref_baseline;
  o->pairs_text = g_strdup (st->pairs_text);
  o->map_out = self->map_out;
  o->post = self->snap.post_messages;
  o->map_range = self->snap.map_range;
  o->fields = self->snap.results;
  o->w = st->w;
  o->h = st->h;
  o->tiles_x = st->tiles_x;
  o->tiles_y = st->tiles_y;
  o->n_tiles = st->n_tiles;
  if (n_pairs == 0)
    goto temporal_slots;        /* pairs mode with one input */

  if (!prior_of (self, &prior))
    return GST_FLOW_ERROR;
  o->results = gst_co_element_alloc_results (self,
      sizeof (gfloat) * st->planes_per_tile * st->n_tiles);
  if (!o->results)
    return GST_FLOW_ERROR;
  if (!gst_memory_map (o->results, &map, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Could not map the results' "
            "memory"), (NULL));
    return GST_FLOW_ERROR;
  }
  host = (gfloat *) map.data;
  /* the last output's results may still be copying out of st->mem.res: the
   * forward transforms above ran beside that copy, the correlations wait */
  ok = gst_co_element_join_copies (self);
  if (ok && st->mode == CORR_TEMPORAL) {
    /* the first frame (after a start, new caps or a seek) is its own
     * reference: zero flow, so that every output carries results */
    ok = correlate (self, self->have_ref ? self->ref_slot : 1 -
        self->ref_slot, 1 - self->ref_slot, 0, 1, prior, host);
  } else {
    for (p = 0; ok && p < n_pairs; p++)
      ok = correlate (self, st->pairs[p].a, st->pairs[p].b, p, n_pairs,
          prior, host);
  }
  if (ok && st->have_rig) {
    /* after the pairs: their disparities, the rig's and its confidence */
    const gsize n = st->n_tiles;
    gfloat *r = cuda ? st->mem.res : host, *d = r + 3 * n_pairs * n;
    if (!cuda)
      co_clt_corr_rig_cpu (&st->rig, r, n, d, d + n_pairs * n,
          d + (n_pairs + 1) * n);
    else
      ok = gst_co_element_cuda_ok (self, co_clt_corr_rig_cuda (&st->rig, r, n,
              d, d + n_pairs * n, d + (n_pairs + 1) * n, stream_of (self)),
          "combining the rig's pairs");
  }
  if (ok && cuda)
    ok = download_fields (self, o, host);
  gst_memory_unmap (o->results, &map);
  if (!ok)
    return GST_FLOW_ERROR;

temporal_slots:
  if (st->mode == CORR_TEMPORAL) {
    /* the new frame becomes the reference, unless one is kept */
    if (!self->have_ref || self->snap.reference == REF_PREVIOUS)
      self->ref_slot = 1 - self->ref_slot;
    self->have_ref = TRUE;
  }
  return GST_FLOW_OK;
}

/* output=map: the frame's results as a picture into @outbuf (black
 * without results: pairs mode with one input) */
static void
draw_map (const Output * o, GstBuffer * outbuf)
{
  GstVideoInfo info;
  GstVideoFrame out;
  GstMapInfo res;
  const gsize n = o->n_tiles;
  const guint np = o->pairs;
  guint8 *pix;
  gint stride, y;

  /* a pool downstream may pad the rows: its video meta says how */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, o->w, o->h);
  if (!gst_video_frame_map (&out, &info, outbuf, GST_MAP_WRITE))
    return;
  pix = GST_VIDEO_FRAME_PLANE_DATA (&out, 0);
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&out, 0);
  if (!o->results || !gst_memory_map (o->results, &res, GST_MAP_READ)) {
    for (y = 0; y < o->h; y++)
      memset (pix + (gsize) y * stride, 0, (gsize) o->w * 4);
  } else {
    const gfloat *r = (const gfloat *) res.data;
    /* a rig: its disparity and confidence; else the first pair's shift */
    const gfloat *rig = o->rig ? r + 4 * np * n : NULL;
    gst_co_corr_map_render (pix, o->w, o->h, stride, o->tiles_x, o->tiles_y,
        rig, r, r + np * n, rig ? rig + n : r + 2 * np * n, o->map_range);
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

  if (o->map_out)
    draw_map (o, outbuf);
  if (!o->results) {
    self->frames++;
    output_free (o);
    return GST_FLOW_OK;
  }
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
    if (o->post)
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_element (GST_OBJECT (self), gst_structure_copy (s)));
  }
  g_bytes_unref (whole);
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
  drop_state (self);
}

static gboolean
gst_cuda_clt_correlate_start (GstAggregator * agg)
{
  GstCudaCltCorrelate *self = GST_CUDA_CLT_CORRELATE (agg);

  self->frames = 0;
  self->have_ref = FALSE;
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
  drop_state (self);
  gst_co_base_aggregator_snapshot_clear (GST_CO_BASE_AGGREGATOR (self),
      &self->snap);
  if (self->warned_prior)
    g_bytes_unref (self->warned_prior);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_clt_correlate_class_init (GstCudaCltCorrelateClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
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
        {g_param_spec_enum ("mode", "Mode",
            "pairs: inputs two by two; temporal: one input against its "
            "previous frame", GST_TYPE_CO_CORR_MODE, CORR_PAIRS,
            GST_CO_PARAM_LIVE), G_STRUCT_OFFSET (Settings, mode),
        GST_CO_SETTING_REBUILD, -1},
    /**
     * GstCudaCltCorrelate:pairs:
     *
     * `all` (every two inputs, in order), or a list of input numbers such
     * as `0-1,2-3,0-2` (the N of sink_N): each pair gives the shift of the
     * second's content against the first's.
     */
    [PROP_PAIRS - 1] =
        {g_param_spec_string ("pairs", "Pairs",
            "Pairs of inputs to correlate: \"all\" or e.g. \"0-1,0-2\"",
            "all", GST_CO_PARAM_LIVE), G_STRUCT_OFFSET (Settings, pairs),
        GST_CO_SETTING_REBUILD, -1},
    /**
     * GstCudaCltCorrelate:fat-zero:
     *
     * Added to each frequency's magnitude before it is normalised, as a
     * fraction of the tile's mean: 0 is pure phase correlation (sharpest
     * on clean tiles); larger values favour strong frequencies over noise.
     */
    [PROP_FAT_ZERO - 1] =
        {g_param_spec_double ("fat-zero", "Fat zero",
            "Regulariser of the normalisation, times the tile's mean "
            "magnitude (0 = pure phase)", 0.0, 100.0, 0.0, GST_CO_PARAM_ANIM),
          G_STRUCT_OFFSET (Settings, fat_zero),
        GST_CO_SETTING_FRAME | GST_CO_SETTING_FLOAT, -1},
    /**
     * GstCudaCltCorrelate:lpf-sigma:
     *
     * A Gaussian low-pass of the correlation, of this many pixels, applied
     * to the normalised cross-power before it goes back to shifts (0:
     * none).  It damps the high frequencies where noise, blur and the
     * colours' aliasing leave little of the phase; the peak widens, so the
     * first pass's fit leans towards whole pixels: use it with refine >= 1,
     * whose centroid is unbiased near zero.
     */
    [PROP_LPF_SIGMA - 1] =
        {g_param_spec_double ("lpf-sigma", "Low-pass sigma",
            "Gaussian low-pass of the correlation, pixels (0 = none)", 0.0,
            8.0, 0.0, GST_CO_PARAM_ANIM), G_STRUCT_OFFSET (Settings,
            lpf_sigma), GST_CO_SETTING_FRAME | GST_CO_SETTING_FLOAT, -1},
    /**
     * GstCudaCltCorrelate:peak:
     *
     * How the sub-pixel peak is found: `dirichlet` fits the correlation's
     * own kernel (a few hundredths of a pixel on textured tiles);
     * `parabola` and `centroid` are the usual estimators, for comparison.
     */
    [PROP_PEAK - 1] =
        {g_param_spec_enum ("peak", "Peak", "Sub-pixel peak estimator",
            GST_TYPE_CO_CORR_PEAK, CO_CLT_PEAK_DIRICHLET, GST_CO_PARAM_LIVE),
          G_STRUCT_OFFSET (Settings, peak), GST_CO_SETTING_FRAME, -1},
    /**
     * GstCudaCltCorrelate:reference:
     *
     * Temporal mode: `previous` correlates each frame with the one before
     * it; `keep` holds the reference it has when set (the first frame if
     * set from the start), for drift against a fixed view.
     */
    [PROP_REFERENCE - 1] =
        {g_param_spec_enum ("reference", "Reference",
            "Temporal mode: each frame against the previous one, or keep "
            "the reference", GST_TYPE_CO_CORR_REFERENCE, REF_PREVIOUS,
            GST_CO_PARAM_LIVE), G_STRUCT_OFFSET (Settings, reference),
        GST_CO_SETTING_FRAME, -1},
    /**
     * GstCudaCltCorrelate:refine:
     *
     * Passes after the first: the second input's tiles are transformed
     * again, moved by the shift measured so far, and what is left is
     * measured (with the centroid, unbiased near zero whatever the peak's
     * shape) and added.  The window pulls shifts beyond half a pixel
     * towards zero, and noise and blur bias the first pass's fit: one
     * refinement corrects both (0.03-0.05 px on noisy or blurred textures
     * where one pass gives 0.1-0.2).  A blurred tile's broad peak makes
     * the centroid read only part of the residual: from the third
     * refinement on, the step is scaled by the gain the last one showed
     * (a secant), so 4-6 passes converge where plain steps would not.
     * Each costs a transform and a correlation per pair.
     */
    [PROP_REFINE - 1] =
        {g_param_spec_uint ("refine", "Refine",
            "Refinement passes: tiles moved by the estimate and correlated "
            "again", 0, 8, 0, GST_CO_PARAM_LIVE),
          G_STRUCT_OFFSET (Settings, refine), GST_CO_SETTING_FRAME, -1},
    /**
     * GstCudaCltCorrelate:post-messages:
     *
     * Post each frame's results as an element message too.
     */
    [PROP_POST_MESSAGES - 1] =
        {g_param_spec_boolean ("post-messages", "Post messages",
            "Post each frame's results as an element message", FALSE,
            GST_CO_PARAM_LIVE), G_STRUCT_OFFSET (Settings, post_messages),
        GST_CO_SETTING_FRAME, -1},
    /**
     * GstCudaCltCorrelate:output:
     *
     * `frames` passes sink_0's frames with the results attached; `map`
     * gives, for display, an RGBA picture of the frame's size: with a
     * rig, the rig's disparity on a colour scale (blue -map-range, green
     * 0, red +map-range); otherwise the first pair's shift (or the flow) on
     * a colour wheel (hue the direction, saturation the length, full at
     * map-range); tiles dimmed where the strength is below 0.5.  The
     * results are attached to either.  Changing it renegotiates.
     */
    [PROP_OUTPUT - 1] =
        {g_param_spec_enum ("output", "Output",
            "frames: sink_0's frames with the results; map: a false-coloured "
            "picture of the disparity or flow (RGBA)", GST_TYPE_CO_CORR_OUTPUT,
            OUTPUT_FRAMES, GST_CO_PARAM_LIVE), G_STRUCT_OFFSET (Settings,
            output), GST_CO_SETTING_RESIZE, -1},
    /**
     * GstCudaCltCorrelate:map-range:
     *
     * The shift or disparity (pixels) at the ends of output=map's colour
     * scale, or of full saturation on its colour wheel.
     */
    [PROP_MAP_RANGE - 1] =
        {g_param_spec_double ("map-range", "Map range",
            "Pixels at the ends of output=map's colours", 0.01, 1000.0, 4.0,
            GST_CO_PARAM_ANIM), G_STRUCT_OFFSET (Settings, map_range),
        GST_CO_SETTING_FRAME, -1},
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
     * Set from an application (e.g. the previous frame's result, or a
     * coarser pass's), not from a launch line.
     */
    [PROP_PRE_SHIFT - 1] =
        {g_param_spec_boxed ("pre-shift", "Pre-shift",
            "Starting shift per tile: floats, one a tile (a rig's "
            "disparity) or all x then all y", G_TYPE_BYTES,
            GST_CO_PARAM_LIVE), G_STRUCT_OFFSET (Settings, pre_shift),
        GST_CO_SETTING_FRAME, -1},
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
        {g_param_spec_flags ("results", "Results",
            "The fields the results carry (and the device copies back)",
            GST_TYPE_CO_CORR_RESULTS, RESULTS_ALL, GST_CO_PARAM_LIVE),
          G_STRUCT_OFFSET (Settings, results), GST_CO_SETTING_FRAME, -1},
  };

  GST_DEBUG_CATEGORY_INIT (gst_cuda_clt_correlate_debug, "cudacltcorrelate",
      0, "cudaoptics CLT phase correlation");
  gst_co_base_aggregator_class_install_settings (bc,
      G_STRUCT_OFFSET (GstCudaCltCorrelate, settings), sizeof (Settings),
      settings, G_N_ELEMENTS (settings));
  oc->finalize = gst_cuda_clt_correlate_finalize;

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
