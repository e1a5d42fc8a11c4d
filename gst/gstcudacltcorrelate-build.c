/* cudaoptics — LGPL-2.1-or-later
 *
 * cudacltcorrelate's rebuild: from the settings and the pads, the pairs,
 * the rig's geometry (every camera's calibration), the tile processor's
 * colour path (every camera's kernels) and the memory the frames use, as
 * one State put in place only when whole; gstcudacltcorrelate.c holds the
 * element.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include "gstcudacltcorrelate-private.h"
#include "gstcudacltcorrelate-pad.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_clt_correlate_debug);
#define GST_CAT_DEFAULT gst_cuda_clt_correlate_debug

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
  gst_co_element_free (self, m->pyr);
  gst_co_element_free (self, m->pclt);
  gst_co_element_free (self, m->found);
  gst_co_element_free (self, m->starts);
  gst_co_element_free (self, m->lr);
  g_free (st->pairs);
  g_free (st->pairs_text);
  g_free (st);
}

void
gst_cuda_clt_correlate_drop_state (GstCudaCltCorrelate * self)
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

/* The inputs' calibrations read for their errors alone: temporal mode
 * places its tiles by a calibration only on the colour path, but a file
 * named and unusable is the user's mistake all the same, said as in pairs
 * mode (an error before the first frame, the pad's warning after) rather
 * than ignored */
static gboolean
check_cameras (GstCudaCltCorrelate * self)
{
  CoCamera cams[MAX_INPUTS];

  return every_or_none (self, pad_camera, cams, sizeof (cams[0]),
      "calibration-file", "calibration", "every camera's or none") != -1;
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

gboolean
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
  st->w = GST_VIDEO_INFO_WIDTH (&base->pads[0]->in.info);
  st->h = GST_VIDEO_INFO_HEIGHT (&base->pads[0]->in.info);
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
  if (!setup_lens (self, st, old, same) ||
      (st->mode == CORR_TEMPORAL && !st->colour && !check_cameras (self)))
    goto done;
  /* the grey planes the luma path transforms and the search halves (the
   * colour path reads the raw frames themselves) */
  if (!gst_cuda_clt_correlate_plan (self, st, s.max_shift) ||
      ((!st->colour || st->levels > 0) && !gst_co_element_ensure (self,
              &m->planes,
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
    gst_cuda_clt_correlate_drop_state (self);
  }
  g_free (why);
  gst_co_base_aggregator_snapshot_clear (base, &s);
  return ok;
}
