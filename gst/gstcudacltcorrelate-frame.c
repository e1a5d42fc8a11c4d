/* cudaoptics — LGPL-2.1-or-later
 *
 * cudacltcorrelate's frames: each input's tiles transformed (its luma, or
 * on the colour path its raw mosaic through its kernels), every pair
 * correlated and refined, the rig's pairs combined, and the fields asked
 * for copied back, on either backend, with what the last rebuild made
 * (the State); gstcudacltcorrelate.c holds the element.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include "gstcudacltcorrelate-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_clt_correlate_debug);
#define GST_CAT_DEFAULT gst_cuda_clt_correlate_debug

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
gboolean
gst_cuda_clt_correlate_transform (GstCudaCltCorrelate * self, gint slot,
    const gfloat * dx, const gfloat * dy, gfloat * clt)
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

/* Frame @in into @slot: its grey plane (which the luma path transforms
 * and max-shift's pyramid halves) and the CLT of it */
static gboolean
forward (GstCudaCltCorrelate * self, const CoFrame * in, gint slot)
{
  State *st = self->state;

  self->slot_frame[slot] = in;
  if (!st->colour || st->levels > 0) {
    if (!gst_co_element_on_cuda (self))
      co_clt_corr_plane_cpu (in, plane_of (self, slot));
    else if (!gst_co_element_cuda_ok (self, co_clt_corr_plane_cuda (in,
                plane_of (self, slot), stream_of (self)), "reading a frame"))
      return FALSE;
    if (st->levels > 0 && !gst_cuda_clt_correlate_pyramid (self, slot))
      return FALSE;
  }
  return gst_cuda_clt_correlate_transform (self, slot, NULL, NULL,
      clt_of (self, slot));
}

/* The first pass's estimator: `peak`, auto resolved by the frame's
 * weights (self->cp) */
CoCltPeak
gst_cuda_clt_correlate_peak (GstCudaCltCorrelate * self)
{
  if (self->snap.peak != CORR_PEAK_AUTO)
    return (CoCltPeak) self->snap.peak;
  return self->cp.weighted ? CO_CLT_PEAK_NEWTON : CO_CLT_PEAK_DIRICHLET;
}

/* Tiles @a against tiles @b, @n of each (those whose @on is 0 left out;
 * NULL: none), normalised as @cp says */
static gboolean
correlate_with (GstCudaCltCorrelate * self, const CoCltCorrParams * cp,
    const gfloat * a, const gfloat * b, gint n, CoCltPeak peak,
    const gfloat * on, gfloat * dx, gfloat * dy, gfloat * strength)
{
  if (!gst_co_element_on_cuda (self)) {
    co_clt_correlate_some_cpu (a, b, n, cp, peak, on, dx, dy, strength);
    return TRUE;
  }
  return gst_co_element_cuda_ok (self, co_clt_correlate_some_cuda (a, b, n,
          cp, peak, on, dx, dy, strength, stream_of (self)),
      "correlating tiles");
}

/* The first measurement's correlation (self->cp) */
gboolean
gst_cuda_clt_correlate_tiles (GstCudaCltCorrelate * self, const gfloat * a,
    const gfloat * b, gint n, CoCltPeak peak, const gfloat * on, gfloat * dx,
    gfloat * dy, gfloat * strength)
{
  return correlate_with (self, &self->cp, a, b, n, peak, on, dx, dy,
      strength);
}

/* Slot @b against slot @a into (@dx, @dy, @strength), device memory on
 * the CUDA backend (@bl: the pair's baseline with a rig).  The first
 * measurement (from no shift, or
 * from b's tiles moved by a @prior, the pre-shift where the backend reads
 * it) uses the `peak` estimator; each refinement moves b's tiles by the
 * estimate so far and adds the residual.  The residual is near zero,
 * where the centroid is unbiased whatever the peak's shape while the
 * Dirichlet fit, made for a clean peak, picks a side
 * (tests/ref/corr-baselines.py measures both); but the centroid of a
 * weighted (broad) peak reads only part of the residual, which Newton's
 * step on the continuous correlation reads whole: the centroid with
 * frequencies weighed alike, Newton's step with a low-pass, a fat zero
 * or a mosaic's weight (tests/ref/bayer-bias.py). */
static gboolean
correlate_into (GstCudaCltCorrelate * self, gint a, gint b,
    const CoCltCorrBaseline * bl, const gfloat * prior, gfloat * dx,
    gfloat * dy, gfloat * strength)
{
  State *st = self->state;
  const gsize n = st->n_tiles;
  const gboolean cuda = gst_co_element_on_cuda (self);
  gfloat *rr = st->mem.rres;
  gfloat *moved = clt_of (self, st->n_slots);
  guint k, passes = self->snap.refine;

  if (prior) {
    if (!cuda)
      co_clt_corr_prior_cpu (prior, bl, n, dx, dy);
    else if (!gst_co_element_cuda_ok (self, co_clt_corr_prior_cuda (prior,
                bl, n, dx, dy, stream_of (self)), "pre-shifting tiles"))
      return FALSE;
    passes++;
  } else if (st->levels > 0) {
    /* max-shift: the search gives the first measurement */
    CoCltSearchLine line = { 0, 0.0f, 0.0f };
    if (self->snap.search == SEARCH_HORIZONTAL)
      line = (CoCltSearchLine) { 1, 1.0f, 0.0f };
    else if (self->snap.search == SEARCH_VERTICAL)
      line = (CoCltSearchLine) { 1, 0.0f, 1.0f };
    else if (self->snap.search == SEARCH_AUTO && bl)
      line = (CoCltSearchLine) { 1, bl->ux, bl->uy };
    if (!gst_cuda_clt_correlate_search (self, a, b, line, dx, dy, strength))
      return FALSE;
  } else if (!gst_cuda_clt_correlate_tiles (self, clt_of (self, a),
          clt_of (self, b), n, gst_cuda_clt_correlate_peak (self), NULL, dx,
          dy,
          strength)) {
    return FALSE;
  }
  for (k = 0; k < passes; k++) {
    /* a pre-shift's pass is the first measurement; the others refine */
    const gboolean first = prior && k == 0;
    const CoCltCorrParams *cp = first ? &self->cp : &self->cp_refine;
    const CoCltPeak peak = first ? gst_cuda_clt_correlate_peak (self) :
        cp->weighted ? CO_CLT_PEAK_NEWTON : CO_CLT_PEAK_CENTROID;
    if (!gst_cuda_clt_correlate_transform (self, b, dx, dy, moved) ||
        !correlate_with (self, cp, clt_of (self, a), moved, n, peak, NULL,
            rr, rr + n, rr + 2 * n))
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

/* lr-check: pair (@a, @b)'s answers kept where (@b, @a), measured on its
 * own (searched, or started from the rig's pre-shift along the reversed
 * baseline), lands back within the limit; elsewhere strength 0.  A pairs'
 * pre-shift has no reversed form on b's tiles: the check is left out
 * then, with one warning. */
static gboolean
check_lr (GstCudaCltCorrelate * self, gint a, gint b,
    const CoCltCorrBaseline * bl, const gfloat * prior, gfloat * dx,
    gfloat * dy, gfloat * strength)
{
  /* the pair seen from b: its baseline turned round */
  CoCltCorrBaseline back;
  State *st = self->state;
  const gsize n = st->n_tiles;
  gfloat *l;

  if (prior && !bl) {
    if (!self->warned_lr)
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("lr-check left out: "
              "a pre-shift without a rig has no reversed form"), (NULL));
    self->warned_lr = TRUE;
    return TRUE;
  }
  if (!gst_co_element_ensure (self, &st->mem.lr, &st->mem.lr_size,
          sizeof (gfloat) * 3 * n))
    return FALSE;
  l = st->mem.lr;
  if (bl) {
    back = *bl;
    back.ux = -bl->ux;
    back.uy = -bl->uy;
  }
  if (!correlate_into (self, b, a, bl ? &back : NULL, prior, l, l + n,
          l + 2 * n))
    return FALSE;
  if (!gst_co_element_on_cuda (self))
    co_clt_corr_lr_cpu (st->tiles_x, st->tiles_y, dx, dy, l, l + n,
        self->snap.lr_check, strength);
  else if (!gst_co_element_cuda_ok (self, co_clt_corr_lr_cuda (st->tiles_x,
              st->tiles_y, dx, dy, l, l + n, self->snap.lr_check, strength,
              stream_of (self)), "checking left against right"))
    return FALSE;
  return TRUE;
}

/* Slot @b against slot @a as pair @p of @n_pairs, into the results (CPU:
 * @host) or the device's (CUDA), laid out as all pairs' shift-x, then
 * shift-y, then strength; lr-check after */
static gboolean
correlate (GstCudaCltCorrelate * self, gint a, gint b, guint p,
    guint n_pairs, const gfloat * prior, gfloat * host)
{
  State *st = self->state;
  const gsize n = st->n_tiles;
  gfloat *r = gst_co_element_on_cuda (self) ? st->mem.res : host;
  gfloat *dx = r + p * n, *dy = r + (n_pairs + p) * n,
      *strength = r + (2 * n_pairs + p) * n;
  const CoCltCorrBaseline *bl = st->have_rig ? &st->rig.pair[p] : NULL;

  return correlate_into (self, a, b, bl, prior, dx, dy, strength) &&
      (self->snap.lr_check <= 0 || check_lr (self, a, b, bl, prior, dx, dy,
          strength));
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

  /* the picture and the messages' summary read these */
  if (o->out != OUTPUT_FRAMES || o->post)
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

/* pre-shift-x and -y as a pre-shift block (NULL: both 0): a rig's one
 * disparity a tile, the reference pair's shift along its baseline, or
 * every tile's x then every tile's y */
static gboolean
global_prior (GstCudaCltCorrelate * self, const gfloat ** prior)
{
  State *st = self->state;
  const gsize n = st->n_tiles, floats = n * (st->have_rig ? 1 : 2);
  const gfloat x = self->snap.pre_shift_x, y = self->snap.pre_shift_y;
  gfloat *block;
  gsize i;
  gboolean ok;

  if (x == 0 && y == 0)
    return TRUE;
  block = g_new (gfloat, floats);
  if (st->have_rig) {
    const CoCltCorrBaseline *bl = &st->rig.pair[0];
    const CoCltSearchLine line = { 1, bl->ux, bl->uy };
    co_clt_search_along_at (0, &x, &y, line, bl->scale, block);
    for (i = 1; i < n; i++)
      block[i] = block[0];
  } else {
    for (i = 0; i < n; i++) {
      block[i] = x;
      block[n + i] = y;
    }
  }
  /* a plain copy on the CPU backend */
  ok = gst_co_element_ensure (self, &st->mem.prior, &st->mem.prior_size,
      sizeof (gfloat) * floats) && gst_co_element_upload (self,
      st->mem.prior, block, sizeof (gfloat) * floats, "pre-shift");
  g_free (block);
  *prior = ok ? st->mem.prior : NULL;
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
  if (st->mode == CORR_PAIRS && st->n_pairs == 0)
    return TRUE;
  if (!bytes)
    return global_prior (self, prior);
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

/* noise-floor (a standard deviation in grey levels of @f's depth) as the
 * cross-power modulus it gives in the tiles the correlation reads
 * (co_clt_corr_noise_floor): in the plane's units, 0..1, through the
 * filter that makes the plane (a Bayer mosaic's luma, [1 2 1] x [1 2 1] /
 * 16, passes 36/256 of white noise's variance; RGB's luma counts as
 * grey). */
static gfloat
noise_floor (GstCudaCltCorrelate * self, const CoFrame * f)
{
  const gfloat levels = f->format == CO_FORMAT_GRAY16_LE ? 65535.0f : 255.0f;
  gfloat sigma = self->snap.noise_floor / levels;

  if (f->bayer != CO_BAYER_NONE && !self->state->colour)
    sigma *= 0.375f;            /* sqrt (36 / 256) */
  return co_clt_corr_noise_floor (sigma);
}

GstFlowReturn
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
  gfloat floor;
  Output *o;

  gst_co_base_aggregator_snapshot_clear (base, &self->snap);
  gst_co_base_aggregator_snapshot (base, &self->snap);
  floor = noise_floor (self, &frames[0]);
  co_clt_corr_params_init (&self->cp, self->snap.fat_zero, floor,
      self->snap.lpf_sigma, frames[0].bayer != CO_BAYER_NONE);
  co_clt_corr_params_init (&self->cp_refine, self->snap.refine_fat_zero > 0.0f ?
      self->snap.refine_fat_zero : self->snap.fat_zero, floor,
      self->snap.lpf_sigma, frames[0].bayer != CO_BAYER_NONE);
  if (self->out == OUTPUT_FRAMES) {
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
  o->out = self->out;
  o->out_be = self->out_be;
  o->min_strength = self->snap.min_strength;
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
  /* max-shift on a rig: one search, along the reference pair's baseline,
   * gives every pair its start (a pre-shift, when set, is the start) */
  if (ok && !prior && st->levels > 0 && st->have_rig &&
      self->snap.search == SEARCH_AUTO)
    ok = gst_cuda_clt_correlate_search_rig (self, &prior);
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
