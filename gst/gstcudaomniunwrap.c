/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:element-cudaomniunwrap
 * @title: cudaomniunwrap
 *
 * 360-degree unwrapping of omnidirectional frames into panoramas, on CUDA or
 * on the CPU (after Chong, Wong and Kho, "Accelerated catadioptric
 * omnidirectional view image unwrapping processing using GPU
 * parallelisation", 2013).
 *
 * Projections (#GstCudaOmniUnwrap:projection):
 * - `polar`: the donut a 360-degree lens or a mirror draws, unrolled into a
 *   strip.  The donut is centred on (#GstCudaOmniUnwrap:center-x,
 *   #GstCudaOmniUnwrap:center-y) with radii #GstCudaOmniUnwrap:inner-radius
 *   and #GstCudaOmniUnwrap:outer-radius (source pixels); the strip's top
 *   row is the outer rim, its columns go round from
 *   #GstCudaOmniUnwrap:start-angle (degrees, 0 = to the right of the
 *   centre) in #GstCudaOmniUnwrap:direction.
 *
 * The panorama's size follows the geometry (as many columns as the circle
 * of mid radius has pixels, as many rows as the donut is thick) unless
 * downstream caps fix one; a radius change while PLAYING renegotiates.  The
 * centre and the start angle are controllable, so a GstController pans the
 * view with no torn frame.  The table, its sampling and `off-edge` are
 * #GstCoRemapFilter's.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=donut.jpg ! jpegdec ! videoconvert ! imagefreeze num-buffers=1 ! cudaomniunwrap inner-radius=80 ! videoconvert ! pngenc ! filesink location=panorama.png
 * ]| Unrolls a 360-degree donut picture, its outer rim half the frame's
 * shorter side, into a strip.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! cudaupload ! cudaomniunwrap center-x=960 center-y=540 inner-radius=120 outer-radius=500 ! cudadownload ! autovideosink
 * ]| A live 360-degree camera, unwrapped on the GPU.
 *
 * Since: 0.1
 */
#include "gstcudaomniunwrap.h"

#include <math.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_omni_unwrap_debug);
#define GST_CAT_DEFAULT gst_cuda_omni_unwrap_debug

enum
{
  PROP_0,
  PROP_PROJECTION,
  PROP_CENTER_X,
  PROP_CENTER_Y,
  PROP_INNER_RADIUS,
  PROP_OUTER_RADIUS,
  PROP_START_ANGLE,
  PROP_DIRECTION,
  PROP_MIRROR_RADIUS,
  PROP_MIRROR_DISTANCE,
  PROP_FOCAL_LENGTH,
  PROP_PLANE_DISTANCE,
  PROP_PLANE_GAP,
};

#define FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB, GRAY8, GRAY16_LE, NV12, I420 }"
#define MAX_COORD 65536.0

G_DEFINE_TYPE_WITH_CODE (GstCudaOmniUnwrap, gst_cuda_omni_unwrap,
    GST_TYPE_CO_REMAP_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_omni_unwrap_debug, "cudaomniunwrap", 0,
        "cudaoptics omnidirectional unwrapping"));

static GType
gst_co_omni_projection_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CO_OMNI_POLAR, "Donut unrolled into a strip (no mirror model)",
        "polar"},
    {GST_CO_OMNI_CYLINDER, "Spherical mirror seen on a cylinder around the "
          "axis (plane-distance its radius)", "cylinder"},
    {GST_CO_OMNI_CUBOID, "Spherical mirror seen on four planes round the "
          "axis, plane-distance from it (the paper's cuboid)", "cuboid"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCoOmniProjection",
            values));
  return (GType) type;
}

static GType
gst_co_omni_direction_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CO_OMNI_COUNTERCLOCKWISE, "Counter-clockwise on screen",
        "counterclockwise"},
    {GST_CO_OMNI_CLOCKWISE, "Clockwise on screen", "clockwise"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCoOmniDirection",
            values));
  return (GType) type;
}

/* The donut in source pixels, from settings and the source size. */
static void
resolve (const GstCoOmniSettings * s, gint src_w, gint src_h,
    CoOmniPolar * p)
{
  p->cx = (float) (s->center_x < 0 ? (src_w - 1) / 2.0 : s->center_x);
  p->cy = (float) (s->center_y < 0 ? (src_h - 1) / 2.0 : s->center_y);
  p->r_out = (float) (s->outer_radius > 0 ? s->outer_radius :
      MIN (src_w, src_h) / 2.0);
  p->r_in = (float) s->inner_radius;
  p->start = (float) (s->start_angle * G_PI / 180.0);
  p->dir = s->direction == GST_CO_OMNI_CLOCKWISE ? -1.0f : 1.0f;
}

/* cylinder: the rows between the window's image radii; FALSE with *why. */
static gboolean
cylinder_window (const GstCoOmniSettings * s, const CoOmniPolar * p,
    GstCoOmniWindow * w, gchar ** why)
{
  CoMirror *m = &w->mirror;
  double za = 0, zb = 0, ra = 0, rb = 0, limb, D = s->plane_distance;

  m->R = s->mirror_radius;
  m->h = s->mirror_distance;
  m->f = s->focal_length;
  if (!(m->h > m->R)) {
    *why = g_strdup_printf ("mirror-distance (%g) must be larger than "
        "mirror-radius (%g): the camera sits outside the sphere", m->h, m->R);
    return FALSE;
  }
  if (!(D > m->R)) {
    *why = g_strdup_printf ("plane-distance (%g) must be larger than "
        "mirror-radius (%g)", D, m->R);
    return FALSE;
  }
  limb = co_mirror_limb (m);
  if (p->r_out > limb) {
    *why = g_strdup_printf ("outer-radius (%g pixels) reaches beyond the "
        "mirror, whose image radius is %.1f pixels for this mirror-radius, "
        "mirror-distance and focal-length", p->r_out, limb);
    return FALSE;
  }
  if (!co_mirror_cylinder_z (m, D, p->r_in, &za, &ra) ||
      !co_mirror_cylinder_z (m, D, p->r_out, &zb, &rb)) {
    *why = g_strdup_printf ("the rays seen at inner-radius %g and "
        "outer-radius %g do not both reach the cylinder (inner-radius 0 "
        "looks straight back at the camera)", p->r_in, p->r_out);
    return FALSE;
  }
  w->top = za > zb ? za : zb;
  w->r_top = za > zb ? ra : rb;
  w->r_bot = za > zb ? rb : ra;
  w->span = fabs (za - zb);
  return TRUE;
}

static void
projection_size (const GstCoOmniSettings * s, const CoOmniPolar * p, gint * w,
    gint * h)
{
  GstCoOmniWindow win;
  gchar *why = NULL;

  if (s->projection == GST_CO_OMNI_POLAR) {
    co_omni_polar_size (p->r_in, p->r_out, w, h);
  } else if (cylinder_window (s, p, &win, &why)) {
    /* one unit of the projection surface is one output pixel */
    if (s->projection == GST_CO_OMNI_CYLINDER)
      *w = MAX ((gint) (2 * G_PI * s->plane_distance), 1);
    else
      *w = 4 * MAX ((gint) (2 * s->plane_distance), 1) + 3 * s->plane_gap;
    *h = MAX ((gint) win.span, 1);
  }
  g_free (why);
}

static void
gst_cuda_omni_unwrap_get_output_size (GstCoBaseFilter * base,
    const GstVideoInfo * in, gint * w, gint * h)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (base);
  GstCoOmniSettings s;
  CoOmniPolar p;

  GST_OBJECT_LOCK (self);
  s = self->set;
  GST_OBJECT_UNLOCK (self);
  resolve (&s, GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in), &p);
  /* an impossible geometry keeps the input's size: prepare reports it */
  if (p.r_in < p.r_out)
    projection_size (&s, &p, w, h);
}

static gboolean
gst_cuda_omni_unwrap_prepare (GstCoRemapFilter * remap, const CoLut * lut,
    gboolean new_caps)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (remap);
  const CoLutPlane *pl = &lut->plane[0];
  GstCoOmniSettings s;
  CoOmniPolar *p = &self->polar;

  GST_OBJECT_LOCK (self);
  s = self->set;
  GST_OBJECT_UNLOCK (self);
  resolve (&s, pl->src_width, pl->src_height, p);
  p->out_w = pl->width;
  p->out_h = pl->height;
  if (!(p->r_in < p->r_out)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("inner-radius (%g) must be "
            "smaller than outer-radius (%g pixels)", p->r_in, p->r_out),
        ("outer-radius 0 is half the frame's shorter side"));
    return FALSE;
  }
  self->snap = s;
  self->propagate = g_getenv ("CO_OMNI_PROPAGATE") != NULL;
  if (s.projection != GST_CO_OMNI_POLAR) {
    gchar *why = NULL;
    if (!cylinder_window (&s, p, &self->window, &why)) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Impossible mirror "
              "geometry: %s", why), (NULL));
      g_free (why);
      return FALSE;
    }
  }
  if (p->cx - p->r_out < -0.5f || p->cy - p->r_out < -0.5f ||
      p->cx + p->r_out > pl->src_width - 0.5f ||
      p->cy + p->r_out > pl->src_height - 0.5f) {
    if (!self->warned_outside)
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("The donut (centre %g,%g, "
              "outer radius %g) reaches beyond the %dx%d frame: that part "
              "of the panorama takes off-edge", p->cx, p->cy, p->r_out,
              pl->src_width, pl->src_height), (NULL));
    self->warned_outside = TRUE;
  } else {
    self->warned_outside = FALSE;
  }
  GST_DEBUG_OBJECT (self, "polar: centre %g,%g radii %g..%g, %dx%d",
      p->cx, p->cy, p->r_in, p->r_out, p->out_w, p->out_h);
  return TRUE;
}

/* The map of plane @g as two tables: image radii, @n_rho per row (the
 * projection's job: linear for polar; the mirror model's Newton solve for
 * the cylinder, one per row, and for the cuboid one per distinct distance
 * from a face's centre line and row, a quarter of a face's columns by
 * symmetry), and every column's (cos, sin, entry).  Both backends fill the
 * map from these same floats; on CUDA the radii are solved on the device,
 * in the same order, to the same bits. */
typedef struct
{
  gfloat *rho, *trig;
  gdouble *ax;                  /* the distances, n_rho of them */
  gint n_rho;
} OmniTables;

static void
tables_free (OmniTables * t)
{
  g_free (t->rho);
  g_free (t->trig);
  g_free (t->ax);
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Cuboid columns: the face and the offset x from its centre line; FALSE
 * for a column in a gap. */
static gboolean
cuboid_column (const GstCudaOmniUnwrap * self, float u, gint * face,
    double *x)
{
  gint plane_w = MAX ((gint) (2 * self->snap.plane_distance), 1);
  gint gap = self->snap.plane_gap;
  double pos = (double) u + 0.5, local;

  *face = (gint) floor (pos / (plane_w + gap));
  local = pos - (double) *face * (plane_w + gap);
  if (*face < 0 || *face > 3 || local >= plane_w)
    return FALSE;
  *x = local - plane_w / 2.0;
  return TRUE;
}

static void
rows_of (const GstCudaOmniUnwrap * self, CoOmniRows * rows)
{
  rows->m = self->window.mirror;
  rows->top = self->window.top;
  rows->span = self->window.span;
  rows->r_top = self->window.r_top;
  rows->r_bot = self->window.r_bot;
  rows->propagate = self->propagate;
  rows->ys = self->snap.plane_distance;
  rows->out_h = self->polar.out_h;
}

/* The columns: (cos, sin, entry) of each, and the distinct distances. */
static void
map_columns (GstCudaOmniUnwrap * self, const CoLutPlane * pl, gint g,
    OmniTables * t)
{
  GstCoOmniProjection proj = self->snap.projection;
  float scale = g ? 2.0f : 1.0f;
  GArray *xs = g_array_new (FALSE, FALSE, sizeof (double));
  guint n = 0, i;
  gint c;

  t->trig = g_new (gfloat, 3 * pl->width);
  for (c = 0; c < pl->width; c++) {
    float u = ((float) c + 0.5f) * scale - 0.5f, az;
    gint face;
    double x, ax = 0.0;
    if (proj != GST_CO_OMNI_CUBOID) {
      az = co_omni_azimuth (&self->polar, u);
    } else if (cuboid_column (self, u, &face, &x)) {
      ax = fabs (x);
      az = self->polar.start - self->polar.dir * (float) (face * G_PI / 2 +
          atan2 (x, self->snap.plane_distance));
    } else {
      t->trig[3 * c] = t->trig[3 * c + 1] = NAN;    /* a gap: no source */
      t->trig[3 * c + 2] = -1.0f;
      continue;
    }
    t->trig[3 * c] = cosf (az);
    t->trig[3 * c + 1] = sinf (az);
    t->trig[3 * c + 2] = (gfloat) ax;   /* replaced by its index below */
    g_array_append_val (xs, ax);
  }
  g_array_sort (xs, cmp_double);
  for (i = 0; i < xs->len; i++)
    if (n == 0 || g_array_index (xs, double, i) != g_array_index (xs, double,
            n - 1))
      g_array_index (xs, double, n++) = g_array_index (xs, double, i);
  if (n == 0) {
    double zero = 0.0;
    g_array_append_val (xs, zero);
    n = 1;
  }
  for (c = 0; c < pl->width; c++) {
    gfloat key = t->trig[3 * c + 2];
    if (key < 0.0f) {
      t->trig[3 * c + 2] = 0.0f;
      continue;
    }
    {
      /* the distances are sorted: find the one this column stored */
      guint lo = 0, hi = n - 1;
      while (lo < hi) {
        guint mid = (lo + hi) / 2;
        if ((gfloat) g_array_index (xs, double, mid) < key)
          lo = mid + 1;
        else
          hi = mid;
      }
      i = lo;
    }
    t->trig[3 * c + 2] = (gfloat) i;
  }
  t->n_rho = (gint) n;
  t->ax = (gdouble *) g_array_free (xs, FALSE);
}

static gboolean
solve_failed (GstCudaOmniUnwrap * self)
{
  const CoMirror *m = &self->window.mirror;

  GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("The mirror model did not "
          "converge for every pixel of the panorama"),
      ("R %g h %g f %g plane-distance %g, inner/outer radius %g/%g", m->R,
          m->h, m->f, self->snap.plane_distance, self->polar.r_in,
          self->polar.r_out));
  return FALSE;
}

/* The radii on the host: polar's line, or the mirror solve, one column
 * (distance) at a time from the closed-form top, as the device does. */
static gboolean
map_rows_cpu (GstCudaOmniUnwrap * self, const CoLutPlane * pl, gint g,
    OmniTables * t)
{
  float scale = g ? 2.0f : 1.0f;
  CoOmniRows rows;
  gint r, k;

  t->rho = g_new0 (gfloat, (gsize) pl->height * t->n_rho);
  if (self->snap.projection == GST_CO_OMNI_POLAR) {
    for (r = 0; r < pl->height; r++) {
      float v = ((float) r + 0.5f) * scale - 0.5f;
      t->rho[(gsize) r * t->n_rho] = co_omni_polar_radius (&self->polar, v);
    }
    return TRUE;
  }
  rows_of (self, &rows);
  for (k = 0; k < t->n_rho; k++) {
    double root = rows.r_top;
    for (r = 0; r < pl->height; r++) {
      if (!rows.propagate)
        root = co_omni_guess (&rows, r, scale);
      if (!co_omni_solve_cell (&rows, t->ax[k], co_omni_row_z (&rows, r,
                  scale), &root, &t->rho[(gsize) r * t->n_rho + k]))
        return solve_failed (self);
    }
  }
  return TRUE;
}

static gboolean
gst_cuda_omni_unwrap_map_cpu (GstCoRemapFilter * remap, const CoLut * lut,
    gint g, gfloat * x, gfloat * y, gint pitch)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (remap);
  const CoLutPlane *pl = &lut->plane[g];
  OmniTables t = { NULL, NULL, NULL, 0 };
  gboolean ok;
  gint r, c;

  map_columns (self, pl, g, &t);
  ok = map_rows_cpu (self, pl, g, &t);
  for (r = 0; ok && r < pl->height; r++)
    for (c = 0; c < pl->width; c++)
      co_omni_fill_px (&self->polar, t.rho, t.n_rho, t.trig, c, r,
          g ? 2.0f : 1.0f, x, y, pitch);
  tables_free (&t);
  return ok;
}

/* The same map on the device: the columns (small) are uploaded, the mirror
 * model is solved there, one thread per distinct column, and the map is
 * filled there.  A rebuild waits once, to read whether every cell
 * converged. */
static gboolean
gst_cuda_omni_unwrap_map_cuda (GstCoRemapFilter * remap, const CoLut * lut,
    gint g, gfloat * x, gfloat * y, gint pitch)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (remap);
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (remap);
  const CoLutPlane *pl = &lut->plane[g];
  gboolean polar = self->snap.projection == GST_CO_OMNI_POLAR;
  OmniTables t = { NULL, NULL, NULL, 0 };
  gsize n_rho, n_trig, n_ax, n;
  guint8 *dev;
  CoOmniRows rows;
  gboolean ok;

  map_columns (self, pl, g, &t);
  if (polar && !map_rows_cpu (self, pl, g, &t)) {
    tables_free (&t);
    return FALSE;
  }
  n_rho = GST_ROUND_UP_64 ((gsize) pl->height * t.n_rho * sizeof (gfloat));
  n_trig = GST_ROUND_UP_64 (3 * (gsize) pl->width * sizeof (gfloat));
  n_ax = GST_ROUND_UP_64 ((gsize) t.n_rho * sizeof (gdouble));
  n = n_rho + n_trig + n_ax + sizeof (gint);
  ok = gst_co_base_filter_ensure (base, &self->dev_tables, &self->dev_size,
      n) && (self->host_fail || (self->host_fail =
          gst_co_base_filter_alloc_host (base, sizeof (gint))));
  dev = self->dev_tables;
  rows_of (self, &rows);
  /* cudaMemcpyAsync from pageable memory returns once the bytes are
   * staged: the host tables may go right after */
  ok = ok && gst_co_base_filter_cuda_ok (base, co_omni_upload_cuda (dev +
          n_rho, t.trig, 3 * (gsize) pl->width * sizeof (gfloat),
          base->stream), "uploading the unwrap tables");
  if (ok && polar)
    ok = gst_co_base_filter_cuda_ok (base, co_omni_upload_cuda (dev, t.rho,
            (gsize) pl->height * sizeof (gfloat), base->stream),
        "uploading the unwrap tables");
  else if (ok)
    ok = gst_co_base_filter_cuda_ok (base, co_omni_upload_cuda (dev +
            n_rho + n_trig, t.ax, (gsize) t.n_rho * sizeof (gdouble),
            base->stream), "uploading the unwrap tables") &&
        gst_co_base_filter_cuda_ok (base, co_omni_solve_cuda (&rows,
            (const gdouble *) (dev + n_rho + n_trig), t.n_rho, pl->height,
            g ? 2.0f : 1.0f, (gfloat *) dev, (gint *) (dev + n_rho + n_trig +
                n_ax), base->stream), "solving the mirror model") &&
        gst_co_base_filter_cuda_ok (base, co_omni_read_flag_cuda
        (self->host_fail, (const gint *) (dev + n_rho + n_trig + n_ax),
            base->stream), "solving the mirror model") &&
        (!*self->host_fail || solve_failed (self));
  ok = ok && gst_co_base_filter_cuda_ok (base, co_omni_fill_cuda
      (&self->polar, (const gfloat *) dev, t.n_rho, (const gfloat *) (dev +
              n_rho), pl->width, pl->height, g ? 2.0f : 1.0f, x, y, pitch,
          base->stream), "filling the unwrap map");
  tables_free (&t);
  return ok;
}

static void
gst_cuda_omni_unwrap_release (GstCoBaseFilter * base)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (base);

  gst_co_base_filter_free (base, self->dev_tables);
  gst_co_base_filter_free_host (base, self->host_fail);
  self->dev_tables = NULL;
  self->dev_size = 0;
  self->host_fail = NULL;
  GST_CO_BASE_FILTER_CLASS (gst_cuda_omni_unwrap_parent_class)->release
      (base);
}

static void
gst_cuda_omni_unwrap_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (object);
  GstCoOmniSettings *s = &self->set;
  gboolean resize = FALSE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PROJECTION:
      s->projection = g_value_get_enum (value);
      resize = TRUE;
      break;
    case PROP_CENTER_X:
      s->center_x = g_value_get_double (value);
      break;
    case PROP_CENTER_Y:
      s->center_y = g_value_get_double (value);
      break;
    case PROP_INNER_RADIUS:
      resize = s->inner_radius != g_value_get_double (value);
      s->inner_radius = g_value_get_double (value);
      break;
    case PROP_OUTER_RADIUS:
      resize = s->outer_radius != g_value_get_double (value);
      s->outer_radius = g_value_get_double (value);
      break;
    case PROP_START_ANGLE:
      s->start_angle = g_value_get_double (value);
      break;
    case PROP_DIRECTION:
      s->direction = g_value_get_enum (value);
      break;
    case PROP_MIRROR_RADIUS:
      s->mirror_radius = g_value_get_double (value);
      resize = TRUE;
      break;
    case PROP_MIRROR_DISTANCE:
      s->mirror_distance = g_value_get_double (value);
      resize = TRUE;
      break;
    case PROP_FOCAL_LENGTH:
      s->focal_length = g_value_get_double (value);
      resize = TRUE;
      break;
    case PROP_PLANE_DISTANCE:
      s->plane_distance = g_value_get_double (value);
      resize = TRUE;
      break;
    case PROP_PLANE_GAP:
      s->plane_gap = g_value_get_int (value);
      resize = TRUE;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (self);
      return;
  }
  gst_co_remap_filter_mark_dirty (GST_CO_REMAP_FILTER (self));
  GST_OBJECT_UNLOCK (self);
  /* the panorama's size follows the radii: the next frame renegotiates,
   * and its table is sized from the new output caps */
  if (resize)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_cuda_omni_unwrap_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaOmniUnwrap *self = GST_CUDA_OMNI_UNWRAP (object);
  GstCoOmniSettings *s = &self->set;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PROJECTION:
      g_value_set_enum (value, s->projection);
      break;
    case PROP_CENTER_X:
      g_value_set_double (value, s->center_x);
      break;
    case PROP_CENTER_Y:
      g_value_set_double (value, s->center_y);
      break;
    case PROP_INNER_RADIUS:
      g_value_set_double (value, s->inner_radius);
      break;
    case PROP_OUTER_RADIUS:
      g_value_set_double (value, s->outer_radius);
      break;
    case PROP_START_ANGLE:
      g_value_set_double (value, s->start_angle);
      break;
    case PROP_DIRECTION:
      g_value_set_enum (value, s->direction);
      break;
    case PROP_MIRROR_RADIUS:
      g_value_set_double (value, s->mirror_radius);
      break;
    case PROP_MIRROR_DISTANCE:
      g_value_set_double (value, s->mirror_distance);
      break;
    case PROP_FOCAL_LENGTH:
      g_value_set_double (value, s->focal_length);
      break;
    case PROP_PLANE_DISTANCE:
      g_value_set_double (value, s->plane_distance);
      break;
    case PROP_PLANE_GAP:
      g_value_set_int (value, s->plane_gap);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}


static void
gst_cuda_omni_unwrap_class_init (GstCudaOmniUnwrapClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstCoBaseFilterClass *fc = GST_CO_BASE_FILTER_CLASS (klass);
  GstCoRemapFilterClass *rc = GST_CO_REMAP_FILTER_CLASS (klass);

  oc->set_property = gst_cuda_omni_unwrap_set_property;
  oc->get_property = gst_cuda_omni_unwrap_get_property;

  g_object_class_install_property (oc, PROP_PROJECTION,
      g_param_spec_enum ("projection", "Projection",
          "How the 360-degree view is laid out (polar: a donut unrolled)",
          gst_co_omni_projection_get_type (), GST_CO_OMNI_POLAR, GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_CENTER_X,
      g_param_spec_double ("center-x", "Centre x",
          "Horizontal centre of the donut in source pixels (-1: the frame's "
          "centre)", -1.0, MAX_COORD, -1.0, GST_CO_PARAM_ANIM));
  g_object_class_install_property (oc, PROP_CENTER_Y,
      g_param_spec_double ("center-y", "Centre y",
          "Vertical centre of the donut in source pixels (-1: the frame's "
          "centre)", -1.0, MAX_COORD, -1.0, GST_CO_PARAM_ANIM));
  g_object_class_install_property (oc, PROP_INNER_RADIUS,
      g_param_spec_double ("inner-radius", "Inner radius",
          "Radius of the donut's hole in source pixels (the bottom row of "
          "the panorama)", 0.0, MAX_COORD, 0.0, GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_OUTER_RADIUS,
      g_param_spec_double ("outer-radius", "Outer radius",
          "Radius of the donut's rim in source pixels (the top row; 0: half "
          "the frame's shorter side)", 0.0, MAX_COORD, 0.0, GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_START_ANGLE,
      g_param_spec_double ("start-angle", "Start angle",
          "Azimuth of the panorama's left edge in degrees (0: right of the "
          "centre, 90: below it); pans the view", -360.0, 360.0, 0.0,
          GST_CO_PARAM_ANIM));
  g_object_class_install_property (oc, PROP_DIRECTION,
      g_param_spec_enum ("direction", "Direction",
          "Which way the panorama goes round the donut, left to right",
          gst_co_omni_direction_get_type (), GST_CO_OMNI_COUNTERCLOCKWISE,
          GST_CO_PARAM_LIVE));

  g_object_class_install_property (oc, PROP_MIRROR_RADIUS,
      g_param_spec_double ("mirror-radius", "Mirror radius",
          "cylinder, cuboid: radius R of the spherical mirror (any length unit, the "
          "same for every length)", 1e-3, 1e6, 30.0, GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_MIRROR_DISTANCE,
      g_param_spec_double ("mirror-distance", "Mirror distance",
          "cylinder, cuboid: distance h from the sphere's centre to the camera's "
          "projection centre (> mirror-radius)", 1e-3, 1e7, 150.0,
          GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_FOCAL_LENGTH,
      g_param_spec_double ("focal-length", "Focal length",
          "cylinder, cuboid: the camera's focal length in pixels", 1.0, 1e6, 800.0,
          GST_CO_PARAM_LIVE));
  g_object_class_install_property (oc, PROP_PLANE_DISTANCE,
      g_param_spec_double ("plane-distance", "Plane distance",
          "cylinder: radius of the projection cylinder around the axis; "
          "cuboid: distance of its four planes from the axis; in the "
          "mirror's unit, one unit of the surface being one output pixel "
          "(width 2 pi plane-distance, or 4 x 2 plane-distance)", 1e-3, 1e6,
          229.0, GST_CO_PARAM_LIVE));

  g_object_class_install_property (oc, PROP_PLANE_GAP,
      g_param_spec_int ("plane-gap", "Plane gap",
          "cuboid: empty output columns between two faces (the paper's "
          "alignment padding; border-color)", 0, 4096, 0, GST_CO_PARAM_LIVE));

  gst_element_class_set_static_metadata (ec, "CUDA omnidirectional unwrap",
      "Filter/Effect/Video",
      "Unwraps 360-degree frames into panoramas on CUDA (CPU fallback)",
      "cudaoptics");
  gst_co_base_filter_class_add_video_templates (ec, FORMATS,
      CO_REMAP_MAX_SIZE);

  fc->mode = GST_CO_FILTER_RESIZE;
  fc->get_output_size =
      GST_DEBUG_FUNCPTR (gst_cuda_omni_unwrap_get_output_size);
  rc->prepare = GST_DEBUG_FUNCPTR (gst_cuda_omni_unwrap_prepare);
  rc->map_cpu = GST_DEBUG_FUNCPTR (gst_cuda_omni_unwrap_map_cpu);
  rc->map_cuda = GST_DEBUG_FUNCPTR (gst_cuda_omni_unwrap_map_cuda);
  fc->release = GST_DEBUG_FUNCPTR (gst_cuda_omni_unwrap_release);

  gst_type_mark_as_plugin_api (gst_co_omni_projection_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_co_omni_direction_get_type (), 0);
}

static void
gst_cuda_omni_unwrap_init (GstCudaOmniUnwrap * self)
{
  self->set.projection = GST_CO_OMNI_POLAR;
  self->set.center_x = self->set.center_y = -1.0;
  self->set.direction = GST_CO_OMNI_COUNTERCLOCKWISE;
  self->set.mirror_radius = 30.0;
  self->set.mirror_distance = 150.0;
  self->set.focal_length = 800.0;
  self->set.plane_distance = 229.0;
}

gboolean
gst_cuda_omni_unwrap_register (GstPlugin * plugin)
{
  return gst_element_register (plugin, "cudaomniunwrap", GST_RANK_NONE,
      GST_TYPE_CUDA_OMNI_UNWRAP);
}
