/* cudaoptics — LGPL-2.1-or-later
 *
 * cudaomniunwrap's map, from the geometry prepare resolved (self->view,
 * self->window), on either backend; gstcudaomniunwrap.c holds the element.
 *
 * Panoramas are separable: a table of image radii, one per output row and
 * distinct distance from a face's centre line (polar: the radius is
 * linear; cylinder: one solve per row; cuboid: the columns at the same
 * distance share a solve, so one quarter of a face, the paper's symmetry),
 * and a table of every column's (cos, sin, entry) per panel row.  Both
 * backends fill the map from these same floats, the radii solved on the
 * device on CUDA in the same order, to the same bits, and kept while only
 * the pan or the centre changes (GstCoOmniSolved).  The ground view is not
 * separable once it turns: every pixel is solved on its own.
 */
#include "gstcudaomniunwrap-private.h"

#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_omni_unwrap_debug);
#define GST_CAT_DEFAULT gst_cuda_omni_unwrap_debug

/* GstCoOmniSolved.valid: where the kept radii are */
enum
{ SOLVED_HOST = 1, SOLVED_DEVICE = 2 };

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Cuboid: the face and the offset x from its centre line of the point at
 * fraction @a of the unrolled faces; FALSE in a gap. */
static gboolean
cuboid_column (const GstCudaOmniUnwrap * self, double a, gint * face,
    double *x)
{
  gint plane_w = MAX ((gint) (2 * self->snap.plane_distance), 1);
  gint gap = self->snap.layout == GST_CO_OMNI_LAYOUT_ONE ?
      self->snap.plane_gap : 0;
  double pos = a * (4.0 * plane_w + 3.0 * gap), local;

  *face = (gint) floor (pos / (plane_w + gap));
  local = pos - (double) *face * (plane_w + gap);
  if (*face < 0 || *face > 3 || local >= plane_w)
    return FALSE;
  *x = local - plane_w / 2.0;
  return TRUE;
}

/* A key of the values that @n bytes at @key depend on; TRUE when it is
 * the one stored in @stored (which then keeps the new one). */
static gboolean
same_key (guint8 * stored, gsize * stored_len, const guint8 * key, gsize n)
{
  gboolean same = *stored_len == n && memcmp (stored, key, n) == 0;

  memcpy (stored, key, n);
  *stored_len = n;
  return same;
}

#define KEY_PUT(key, n, v) G_STMT_START { \
    g_assert (n + sizeof (v) <= sizeof (key)); \
    memcpy (key + n, &(v), sizeof (v)); n += sizeof (v); } G_STMT_END

/* co_omni_s in double: the columns are the host's alone, and mirrored
 * columns must find the same distance to share a solve. */
static double
column_s (const CoOmniView * v, double u, gint pr, gint * k)
{
  gint c = CLAMP ((gint) floor ((u + 0.5) / v->pw), 0, v->cols - 1);

  *k = pr * v->cols + c;
  return 0.5 + (((u + 0.5) - c * (double) v->pw) / v->pw - 0.5) / v->zoom;
}

/* The columns' angles before the pan, beta (theta = start - dir beta), as
 * (cos, sin), and each column's distance from its face's centre line,
 * replaced by its index among the distinct ones. */
static void
columns_base (GstCudaOmniUnwrap * self, const CoLutPlane * pl, gint g,
    GstCoOmniColumns * t)
{
  const CoOmniView *v = &self->view;
  gboolean cuboid = self->snap.projection == GST_CO_OMNI_CUBOID;
  float scale = g ? 2.0f : 1.0f;
  gsize n_cells = (gsize) v->rows * pl->width, i;
  GArray *xs = g_array_new (FALSE, FALSE, sizeof (double));
  gdouble *cell_ax = g_new (gdouble, n_cells);
  guint n = 0, j;

  g_free (t->base);
  g_free (t->trig);
  g_free (t->ax);
  t->n_cells = n_cells;
  t->base = g_new (gdouble, 2 * n_cells);
  t->trig = g_new (gfloat, 3 * n_cells);
  for (i = 0; i < n_cells; i++) {
    gint pr = (gint) (i / pl->width), c = (gint) (i % pl->width), k, face;
    double s = column_s (v, (c + 0.5) * scale - 0.5, pr, &k);
    double a = (k + s) / (v->rows * v->cols), beta, x, ax = 0.0;

    if (!(s >= 0.0 && s <= 1.0) || (cuboid && !cuboid_column (self, a, &face,
                &x))) {
      t->base[2 * i] = t->base[2 * i + 1] = NAN;        /* no source */
      cell_ax[i] = -1.0;
      continue;
    }
    if (cuboid) {
      /* on a 2^-20 grid: mirrored columns whose positions differ in the
       * last bits (float panel coordinates) share their solve */
      ax = nearbyint (fabs (x) * 1048576.0) / 1048576.0;
      beta = face * G_PI / 2 + atan2 (x, self->snap.plane_distance);
    } else {
      beta = 2 * G_PI * a;
    }
    t->base[2 * i] = cos (beta);
    t->base[2 * i + 1] = sin (beta);
    cell_ax[i] = ax;
    g_array_append_val (xs, ax);
  }
  /* CO_OMNI_NO_SHARE: every column solved on its own (the test of the
   * shared solves) */
  if (!self->no_share) {
    g_array_sort (xs, cmp_double);
    for (j = 0; j < xs->len; j++)
      if (n == 0 || g_array_index (xs, double, j) != g_array_index (xs,
              double, n - 1))
        g_array_index (xs, double, n++) = g_array_index (xs, double, j);
  } else {
    n = xs->len;
  }
  if (n == 0) {
    double zero = 0.0;
    g_array_append_val (xs, zero);
    n = 1;
  }
  for (i = 0, j = 0; i < n_cells; i++) {
    guint lo = 0, hi = n - 1;

    if (cell_ax[i] < 0.0) {
      t->trig[3 * i + 2] = 0.0f;
      continue;
    }
    if (self->no_share) {
      t->trig[3 * i + 2] = (gfloat) j++;
      continue;
    }
    /* the distances are sorted: find this column's */
    while (lo < hi) {
      guint mid = (lo + hi) / 2;
      if (g_array_index (xs, double, mid) < cell_ax[i])
        lo = mid + 1;
      else
        hi = mid;
    }
    t->trig[3 * i + 2] = (gfloat) lo;
  }
  g_free (cell_ax);
  GST_DEBUG_OBJECT (self, "plane %d: %" G_GSIZE_FORMAT " columns, %u "
      "solved distances", g, n_cells, n);
  t->n_ax = (gint) n;
  t->ax = (gdouble *) g_array_free (xs, FALSE);
}

/* The columns of plane @g: their base kept while the layout, zoom and
 * sizes stay, then turned by the pan (a product per column, so a pan
 * costs no trigonometry). */
static GstCoOmniColumns *
map_columns (GstCudaOmniUnwrap * self, const CoLutPlane * pl, gint g)
{
  GstCoOmniColumns *t = &self->columns[g];
  const CoOmniView *v = &self->view;
  double cs = cos (v->start), ss = sin (v->start), d = v->dir;
  guint8 key[sizeof t->key];
  gsize n = 0, i;

  KEY_PUT (key, n, self->snap.projection);
  KEY_PUT (key, n, self->snap.layout);
  KEY_PUT (key, n, self->snap.plane_distance);
  KEY_PUT (key, n, self->snap.plane_gap);
  KEY_PUT (key, n, v->pw);
  KEY_PUT (key, n, v->ph);
  KEY_PUT (key, n, v->zoom);
  KEY_PUT (key, n, pl->width);
  KEY_PUT (key, n, g);
  KEY_PUT (key, n, self->no_share);
  if (!same_key (t->key, &t->key_len, key, n) || !t->base)
    columns_base (self, pl, g, t);
  else
    GST_LOG_OBJECT (self, "plane %d: columns kept", g);
  for (i = 0; i < t->n_cells; i++) {
    double cb = t->base[2 * i], sb = t->base[2 * i + 1];
    t->trig[3 * i] = (gfloat) (cs * cb + d * ss * sb);
    t->trig[3 * i + 1] = (gfloat) (ss * cb - d * cs * sb);
  }
  return t;
}

static gboolean
solve_failed (GstCudaOmniUnwrap * self)
{
  const CoMirror *m = &self->window.m;

  GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("The mirror model did not "
          "converge for every pixel of the panorama (mirror-radius %g, "
          "mirror-distance %g, focal-length %g, plane-distance %g, radii "
          "%g..%g pixels): lower outer-radius to stay inside the mirror's "
          "image, or check mirror-distance and focal-length", m->R, m->h, m->f,
          self->snap.plane_distance, self->view.r_in, self->view.r_out),
      (NULL));
  return FALSE;
}

/* What a plane's radii depend on: the window, the rows' t (layout, panel
 * height, zoom), the plane's height and scale, and the distances; TRUE
 * when they are those of the radii kept @where. */
static gboolean
solved_matches (GstCudaOmniUnwrap * self, GstCoOmniSolved * sv,
    const CoLutPlane * pl, gint g, const GstCoOmniColumns * t, gint where)
{
  guint8 key[sizeof sv->key];
  gsize n = 0;
  gboolean same;

  KEY_PUT (key, n, self->window.m);
  KEY_PUT (key, n, self->window.w0);
  KEY_PUT (key, n, self->window.w1);
  KEY_PUT (key, n, self->window.r0);
  KEY_PUT (key, n, self->window.r1);
  KEY_PUT (key, n, self->window.ys);
  KEY_PUT (key, n, self->window.propagate);
  KEY_PUT (key, n, self->view.rows);
  KEY_PUT (key, n, self->view.ph);
  KEY_PUT (key, n, self->view.zoom);
  KEY_PUT (key, n, pl->height);
  KEY_PUT (key, n, g);
  same = same_key (sv->key, &sv->key_len, key, n) && sv->valid == where &&
      sv->n_ax == t->n_ax && memcmp (sv->ax, t->ax,
      t->n_ax * sizeof (gdouble)) == 0 && !self->no_keep;
  if (!same) {
    g_free (sv->ax);
    sv->ax = g_new (gdouble, t->n_ax);
    memcpy (sv->ax, t->ax, t->n_ax * sizeof (gdouble));
    sv->n_ax = t->n_ax;
    sv->valid = 0;
  }
  return same;
}

/* The radii on the host: polar's line, or the mirror solve, one distance
 * at a time, as the device does. */
static gboolean
rows_cpu (GstCudaOmniUnwrap * self, const CoLutPlane * pl, gint g,
    const GstCoOmniColumns * t, gfloat * rho)
{
  float scale = g ? 2.0f : 1.0f;
  gint r, k, pr;

  for (r = 0; r < pl->height; r++) {
    float tr = co_omni_t (&self->view, ((float) r + 0.5f) * scale - 0.5f, &pr);
    if (self->snap.projection == GST_CO_OMNI_POLAR)
      rho[(gsize) r * t->n_ax] = co_omni_polar_radius (&self->view, tr);
  }
  if (self->snap.projection == GST_CO_OMNI_POLAR)
    return TRUE;
  for (k = 0; k < t->n_ax; k++) {
    double root = -1.0;
    for (r = 0; r < pl->height; r++) {
      float tr = co_omni_t (&self->view, ((float) r + 0.5f) * scale - 0.5f,
          &pr);
      if (!self->window.propagate)
        root = -1.0;
      if (!co_omni_solve_cell (&self->window, t->ax[k], tr, &root,
              &rho[(gsize) r * t->n_ax + k]))
        return solve_failed (self);
    }
  }
  return TRUE;
}

gboolean
gst_cuda_omni_unwrap_map_cpu (GstCoRemapFilter * remap, const CoLut * lut,
    gint g, gfloat * x, gfloat * y, gint pitch)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (remap);
  const CoLutPlane *pl = &lut->plane[g];
  GstCoOmniSolved *sv = &self->solved[g];
  float scale = g ? 2.0f : 1.0f;
  GstCoOmniColumns *t;
  gint r, c;

  if (self->snap.projection == GST_CO_OMNI_GROUND) {
    for (r = 0; r < pl->height; r++)
      for (c = 0; c < pl->width; c++)
        if (!co_omni_ground_px (&self->view, &self->window, c, r, scale, x, y,
                pitch))
          return solve_failed (self);
    return TRUE;
  }
  t = map_columns (self, pl, g);
  if (!solved_matches (self, sv, pl, g, t, SOLVED_HOST) ||
      self->snap.projection == GST_CO_OMNI_POLAR) {
    g_free (sv->rho);
    sv->rho = g_new (gfloat, (gsize) pl->height * t->n_ax);
    if (!rows_cpu (self, pl, g, t, sv->rho))
      return FALSE;
    sv->valid = SOLVED_HOST;
  } else {
    GST_LOG_OBJECT (self, "plane %d: radii kept", g);
  }
  for (r = 0; r < pl->height; r++)
    for (c = 0; c < pl->width; c++)
      co_omni_fill_px (&self->view, sv->rho, t->n_ax, t->trig, pl->width, c,
          r, scale, x, y, pitch);
  return TRUE;
}

/* Waits for the device's failure flag: the one wait of a rebuild. */
static gboolean
check_flag (GstCudaOmniUnwrap * self, const gint * dev_flag)
{
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (self);

  if (!self->host_fail && !(self->host_fail =
          gst_co_element_alloc_host (base, sizeof (gint))))
    return FALSE;
  if (!gst_co_element_download (base, self->host_fail, dev_flag,
          sizeof (gint), "solving the mirror model") ||
      !gst_co_element_sync (base, "solving the mirror model"))
    return FALSE;
  return !*self->host_fail || solve_failed (self);
}

/* The same map on the device: the columns (small) are uploaded, the
 * mirror model is solved there, and the map is filled there. */
gboolean
gst_cuda_omni_unwrap_map_cuda (GstCoRemapFilter * remap, const CoLut * lut,
    gint g, gfloat * x, gfloat * y, gint pitch)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (remap);
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (remap);
  const CoLutPlane *pl = &lut->plane[g];
  GstCoOmniSolved *sv = &self->solved[g];
  float scale = g ? 2.0f : 1.0f;
  GstCoOmniColumns *t;
  gsize n_rho, n_ax, n_trig;
  gboolean ok, keep;
  guint8 *dev;

  if (self->snap.projection == GST_CO_OMNI_GROUND) {
    ok = gst_co_element_ensure (base, &sv->dev, &sv->dev_size,
        sizeof (gint));
    sv->valid = 0;
    return ok && gst_co_element_cuda_ok (base,
        co_omni_ground_cuda (&self->view, &self->window, pl->width,
            pl->height, scale, x, y, pitch, sv->dev, base->engine.stream),
        "solving the ground view") && check_flag (self, sv->dev);
  }
  t = map_columns (self, pl, g);
  n_rho = GST_ROUND_UP_64 ((gsize) pl->height * t->n_ax * sizeof (gfloat));
  n_ax = GST_ROUND_UP_64 ((gsize) t->n_ax * sizeof (gdouble));
  n_trig = 3 * t->n_cells * sizeof (gfloat);
  keep = solved_matches (self, sv, pl, g, t, SOLVED_DEVICE) &&
      self->snap.projection != GST_CO_OMNI_POLAR;
  ok = (keep || gst_co_element_ensure (base, &sv->dev, &sv->dev_size,
          n_rho + n_ax + sizeof (gint))) &&
      gst_co_element_ensure (base, &self->dev_trig, &self->dev_trig_size,
      n_trig);
  dev = sv->dev;
  /* cudaMemcpyAsync from pageable memory returns once the bytes are
   * staged: the host tables may go right after */
  ok = ok && gst_co_element_upload (base, self->dev_trig, t->trig,
      n_trig, "uploading the unwrap tables");
  if (ok && !keep && self->snap.projection == GST_CO_OMNI_POLAR) {
    gfloat *rho = g_new (gfloat, pl->height);
    rows_cpu (self, pl, g, t, rho);
    ok = gst_co_element_upload (base, dev, rho,
        (gsize) pl->height * sizeof (gfloat), "uploading the unwrap tables");
    g_free (rho);
  } else if (ok && !keep) {
    ok = gst_co_element_upload (base, dev + n_rho, t->ax,
        (gsize) t->n_ax * sizeof (gdouble), "uploading the unwrap tables") &&
        gst_co_element_cuda_ok (base, co_omni_solve_cuda (&self->window,
            &self->view, (const gdouble *) (dev + n_rho), t->n_ax, pl->height,
            scale, (gfloat *) dev, (gint *) (dev + n_rho + n_ax),
            base->engine.stream), "solving the mirror model") &&
        check_flag (self, (const gint *) (dev + n_rho + n_ax));
    sv->valid = ok ? SOLVED_DEVICE : 0;
  } else if (ok) {
    GST_LOG_OBJECT (self, "plane %d: radii kept", g);
  }
  ok = ok && gst_co_element_cuda_ok (base, co_omni_fill_cuda
      (&self->view, (const gfloat *) dev, t->n_ax, self->dev_trig, pl->width,
          pl->height, scale, x, y, pitch, base->engine.stream),
      "filling the unwrap map");
  return ok;
}

void
gst_cuda_omni_unwrap_free_maps (GstCudaOmniUnwrap * self)
{
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (self);
  gint g;

  for (g = 0; g < 2; g++) {
    GstCoOmniSolved *sv = &self->solved[g];
    GstCoOmniColumns *t = &self->columns[g];
    gst_co_element_free (base, sv->dev);
    g_free (sv->ax);
    g_free (sv->rho);
    memset (sv, 0, sizeof *sv);
    g_free (t->base);
    g_free (t->trig);
    g_free (t->ax);
    memset (t, 0, sizeof *t);
  }
  gst_co_element_free (base, self->dev_trig);
  gst_co_element_free_host (base, self->host_fail);
  self->dev_trig = NULL;
  self->dev_trig_size = 0;
  self->host_fail = NULL;
}
