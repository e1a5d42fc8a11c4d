/* cudaoptics — LGPL-2.1-or-later
 *
 * cudacltcorrelate's max-shift: shifts beyond one correlation's -7..7
 * pixels found coarse to fine on a pyramid of each input's grey plane
 * (kernels/clt_search_math.h says how), on either backend.  The frame's
 * own level is the last: its answer is the first measurement the
 * refinement passes start from (gstcudacltcorrelate-frame.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacltcorrelate-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_clt_correlate_debug);
#define GST_CAT_DEFAULT gst_cuda_clt_correlate_debug

gboolean
gst_cuda_clt_correlate_plan (GstCudaCltCorrelate * self, State * st,
    guint max_shift)
{
  Memory *m = &st->mem;
  gsize planes = 0, clts = 0, found = 0;
  gint l;

  co_clt_search_plan ((gint) MIN (max_shift, G_MAXINT), st->w, st->h,
      &st->levels, &st->reach);
  st->level[0] = (Level) {
  st->w, st->h, st->tiles_x, st->tiles_y, st->n_tiles, 0, 0, 0};
  for (l = 1; l <= st->levels; l++) {
    Level *v = &st->level[l];
    co_clt_search_half_size (st->level[l - 1].w, st->level[l - 1].h, &v->w,
        &v->h);
    co_clt_tiles (v->w, v->h, &v->tiles_x, &v->tiles_y);
    v->n_tiles = v->tiles_x * v->tiles_y;
    v->plane_at = planes;
    v->clt_at = clts;
    v->found_at = found;
    planes += (gsize) v->w * v->h;
    clts += (gsize) CO_CLT_COEFFS * v->n_tiles;
    found += 3 * (gsize) v->n_tiles;
  }
  st->pyr_floats = planes;
  st->pclt_floats = clts;
  if (st->levels == 0)
    return TRUE;
  GST_INFO_OBJECT (self, "max-shift %u: %d levels, the top %dx%d (%dx%d "
      "tiles) sweeping +-%d px in %d tries", max_shift, st->levels,
      st->level[st->levels].w, st->level[st->levels].h,
      st->level[st->levels].tiles_x, st->level[st->levels].tiles_y,
      st->reach, co_clt_search_sweep_tries (st->reach, FALSE));
  /* the tries' starts and which tiles they are new to (the frame's level
   * is the largest), and a rig's reference answer; a rig's pre-shift */
  return gst_co_element_ensure (self, &m->pyr, &m->pyr_size,
      sizeof (gfloat) * planes * st->n_slots) &&
      gst_co_element_ensure (self, &m->pclt, &m->pclt_size,
      sizeof (gfloat) * clts * st->n_slots) &&
      gst_co_element_ensure (self, &m->found, &m->found_size,
      sizeof (gfloat) * found) &&
      gst_co_element_ensure (self, &m->starts, &m->starts_size,
      sizeof (gfloat) * 6 * st->n_tiles) &&
      (!st->have_rig || gst_co_element_ensure (self, &m->prior,
          &m->prior_size, sizeof (gfloat) * st->n_tiles));
}

/* @slot's plane at level @l (0: the frame's) and its CLT (l > 0) */
static gfloat *
level_plane (GstCudaCltCorrelate * self, gint slot, gint l)
{
  const State *st = self->state;

  if (l == 0)
    return plane_of (self, slot);
  return (gfloat *) st->mem.pyr + (gsize) slot * st->pyr_floats +
      st->level[l].plane_at;
}

static gfloat *
level_clt (GstCudaCltCorrelate * self, gint slot, gint l)
{
  const State *st = self->state;

  return (gfloat *) st->mem.pclt + (gsize) slot * st->pclt_floats +
      st->level[l].clt_at;
}

/* The CLT of level @l's plane of @slot, its tiles moved by (@dx, @dy) or
 * not (NULL), those whose @on is 0 left out (NULL: none) */
static gboolean
level_transform (GstCudaCltCorrelate * self, gint slot, gint l,
    const gfloat * dx, const gfloat * dy, const gfloat * on, gfloat * clt)
{
  const Level *v = &self->state->level[l];
  const gfloat *plane = level_plane (self, slot, l);

  if (!gst_co_element_on_cuda (self)) {
    co_clt_forward_some_cpu (plane, v->w, v->h, v->w, dx, dy, on, clt);
    return TRUE;
  }
  return gst_co_element_cuda_ok (self, co_clt_forward_some_cuda (plane, v->w,
          v->h, v->w, dx, dy, on, clt, stream_of (self)),
      "transforming a level");
}

gboolean
gst_cuda_clt_correlate_pyramid (GstCudaCltCorrelate * self, gint slot)
{
  const State *st = self->state;
  const gboolean cuda = gst_co_element_on_cuda (self);
  gint l;

  for (l = 1; l <= st->levels; l++) {
    const Level *below = &st->level[l - 1];
    const gfloat *src = level_plane (self, slot, l - 1);
    gfloat *dst = level_plane (self, slot, l);

    if (!cuda)
      co_clt_search_half_cpu (src, below->w, below->h, dst);
    else if (!gst_co_element_cuda_ok (self, co_clt_search_half_cuda (src,
                below->w, below->h, dst, stream_of (self)),
            "halving a level"))
      return FALSE;
    if (!level_transform (self, slot, l, NULL, NULL, NULL, level_clt (self,
                slot, l)))
      return FALSE;
  }
  return TRUE;
}

/* Try @k's start shifts for level @l into @sx, @sy: the sweep on the top
 * level, the level above's answers below it (and into @on which tiles
 * they are new to) */
static gboolean
starts (GstCudaCltCorrelate * self, gint l, gint k, CoCltSearchLine line,
    gfloat * sx, gfloat * sy, gfloat * on)
{
  const State *st = self->state;
  const Level *v = &st->level[l], *up = &st->level[l + 1];
  const gfloat *pf = (const gfloat *) st->mem.found + up->found_at;
  const gboolean cuda = gst_co_element_on_cuda (self);

  if (l == st->levels) {
    if (!cuda) {
      co_clt_search_sweep_cpu (k, st->reach, line, v->n_tiles, sx, sy);
      return TRUE;
    }
    return gst_co_element_cuda_ok (self, co_clt_search_sweep_cuda (k,
            st->reach, line, v->n_tiles, sx, sy, stream_of (self)),
        "sweeping");
  }
  if (!cuda) {
    co_clt_search_parent_cpu (k, v->tiles_x, v->tiles_y, up->tiles_x,
        up->tiles_y, pf, pf + up->n_tiles, line, sx, sy, on);
    return TRUE;
  }
  return gst_co_element_cuda_ok (self, co_clt_search_parent_cuda (k,
          v->tiles_x, v->tiles_y, up->tiles_x, up->tiles_y, pf,
          pf + up->n_tiles, line, sx, sy, on, stream_of (self)),
      "passing answers down");
}

gboolean
gst_cuda_clt_correlate_search (GstCudaCltCorrelate * self, gint a, gint b,
    CoCltSearchLine line, gfloat * dx, gfloat * dy, gfloat * strength)
{
  const State *st = self->state;
  const gboolean cuda = gst_co_element_on_cuda (self);
  gfloat *sx = st->mem.starts, *sy = sx + st->n_tiles, *on = sy + st->n_tiles;
  gfloat *rr = st->mem.rres, *moved = clt_of (self, st->n_slots);
  gint l, k;

  for (l = st->levels; l >= 0; l--) {
    const Level *v = &st->level[l];
    const gint n = v->n_tiles;
    const gboolean sweep = l == st->levels;
    const gint tries = sweep ? co_clt_search_sweep_tries (st->reach,
        line.along) : CO_CLT_SEARCH_PARENTS;
    /* the sweep's starts are all new; a parent's only where it differs */
    const gfloat *live = sweep ? NULL : on;
    gfloat *f = (gfloat *) st->mem.found + v->found_at;
    gfloat *ox = l ? f : dx, *oy = l ? f + n : dy, *os = l ? f + 2 * n :
        strength;
    gboolean ok;

    for (k = 0; k < tries; k++) {
      if (!starts (self, l, k, line, sx, sy, on))
        return FALSE;
      /* the frame's level moves b's frame as the refinement will (the
       * colour path's whole tile set); the others b's plane there */
      if (l > 0 || !st->colour)
        ok = level_transform (self, b, l, sx, sy, live, moved);
      else
        ok = gst_cuda_clt_correlate_transform (self, b, sx, sy, moved);
      if (!ok || !gst_cuda_clt_correlate_tiles (self, l ? level_clt (self, a,
                  l) : clt_of (self, a), moved, n,
              gst_cuda_clt_correlate_peak (self), live, rr, rr + n,
              rr + 2 * n))
        return FALSE;
      if (!cuda)
        co_clt_search_keep_cpu (k == 0, n, sx, sy, live, rr, rr + n,
            rr + 2 * n, ox, oy, os);
      else if (!gst_co_element_cuda_ok (self, co_clt_search_keep_cuda (k == 0,
                  n, sx, sy, live, rr, rr + n, rr + 2 * n, ox, oy, os,
                  stream_of (self)), "keeping the best try"))
        return FALSE;
    }
  }
  return TRUE;
}

gboolean
gst_cuda_clt_correlate_search_rig (GstCudaCltCorrelate * self,
    const gfloat ** prior)
{
  const State *st = self->state;
  const gsize n = st->n_tiles;
  const CoCltCorrBaseline *bl = &st->rig.pair[0];
  const CoCltSearchLine line = { 1, bl->ux, bl->uy };
  gfloat *r = (gfloat *) st->mem.starts + 3 * n;
  gfloat *d = st->mem.prior;

  if (!gst_cuda_clt_correlate_search (self, st->pairs[0].a, st->pairs[0].b,
          line, r, r + n, r + 2 * n))
    return FALSE;
  /* the rig's pre-shift is in the reference pair's pixels */
  if (!gst_co_element_on_cuda (self))
    co_clt_search_along_cpu (n, r, r + n, line, bl->scale, d);
  else if (!gst_co_element_cuda_ok (self, co_clt_search_along_cuda (n, r,
              r + n, line, bl->scale, d, stream_of (self)),
          "reading the rig's disparity"))
    return FALSE;
  *prior = d;
  return TRUE;
}
