/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:element-cudalensdistort
 * @title: cudalensdistort
 *
 * Lens distortion and correction by a backward-mapping look-up table
 * (Kim, Yang and Kim, "Real-Time Lens Distortion Algorithm on an Edge Device
 * With GPU", IEEE Access 2022), on CUDA or on the CPU.
 *
 * Two models:
 * - `hmd`: the paper's radial pre-distortion for head-mounted displays.  The
 *   output pixel x_o samples the input at
 *   x_s = c + (x_o - c) / (1 + k1 r^2 + k2 r^4), r = |x_o - c| / R, with c the
 *   lens centre (#GstCudaLensDistort:center-x, #GstCudaLensDistort:center-y,
 *   fractions of the eye's width and height) and R the eye's half-diagonal in
 *   pixels (r = 1 in the corners).  Negative k1 gives the barrel
 *   pre-distortion a pincushion headset lens cancels.  With
 *   #GstCudaLensDistort:stereo, each half of a side-by-side frame is an eye;
 *   the right eye's centre mirrors the left one's.
 * - `camera`: Brown-Conrady correction of a real camera, equal to OpenCV's
 *   cv::undistort: fx, fy, cx, cy, k1, k2, k3, p1, p2 (or an OpenCV
 *   calibration file).  #GstCudaLensDistort:alpha picks the new camera matrix
 *   like cv::getOptimalNewCameraMatrix.
 *
 * Every property may change while PLAYING; the table is rebuilt (on the
 * GPU) between two frames, so no frame mixes two geometries.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! cudaupload ! cudalensdistort k1=-0.25 stereo=true ! cudadownload ! autovideosink
 * ]| Barrel pre-distortion of a side-by-side stereo frame, all in GPU memory.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! cudalensdistort model=camera calibration-file=camera.yml alpha=0 ! videoconvert ! autovideosink
 * ]| Undistorts a webcam with an OpenCV calibration, keeping only valid pixels.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include "gstcudalensdistort.h"
#include "gstcocalibration.h"
#include "lensdistort.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_lens_distort_debug);
#define GST_CAT_DEFAULT gst_cuda_lens_distort_debug

#define FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB, GRAY8, GRAY16_LE, NV12, I420 }"

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_K1,
  PROP_K2,
  PROP_K3,
  PROP_P1,
  PROP_P2,
  PROP_CENTER_X,
  PROP_CENTER_Y,
  PROP_STEREO,
  PROP_FX,
  PROP_FY,
  PROP_CX,
  PROP_CY,
  PROP_CALIBRATION_FILE,
  PROP_ALPHA,
  PROP_LUT,
  PROP_INTERPOLATION,
  PROP_BORDER_COLOR,
};

#define DEFAULT_MODEL CO_LENS_HMD
#define DEFAULT_K 0.0
#define DEFAULT_CENTER 0.5
#define DEFAULT_FOCAL 0.0
#define DEFAULT_PRINCIPAL -1.0
#define DEFAULT_ALPHA -1.0
#define DEFAULT_LUT CO_LUT_COMPRESSED
#define DEFAULT_INTERPOLATION CO_INTERP_BILINEAR
#define DEFAULT_BORDER_COLOR 0xff000000u
/* a calibration file obeys the same ranges (gstcocalibration.h) */
#define MAX_COEFF GST_CO_CALIBRATION_MAX_COEFF
#define MAX_PIXELS GST_CO_CALIBRATION_MAX_PIXELS
/* grid on which a table that maps nothing is looked for */
#define EMPTY_GRID 129

typedef struct
{
  gint model, lut, interpolation;
  gdouble k1, k2, k3, p1, p2, center_x, center_y, fx, fy, cx, cy, alpha;
  gboolean stereo;
  guint border_color;
  gchar *calibration_file;
  guint calibration_gen;        /* counts sets, so a file may be fixed */
} Settings;

struct _GstCudaLensDistort
{
  GstCoBaseFilter parent;

  Settings set;                 /* properties, under the object lock */
  gboolean dirty;

  /* streaming thread only */
  gboolean ready;
  CoLensParams params;
  CoLut lut;
  uint32_t border[CO_MAX_PLANES];
  gpointer table[4];
  gsize table_size[4];
  gchar *calib_path;            /* the last usable file, and its contents */
  GstCoCalibration calib;
  gchar *bad_path;              /* the last file that could not be used */
  guint bad_gen;
  CoLensModel base_model;       /* of the table in use, or at start */
  gboolean warned_empty;        /* the border-only warning was posted */
};

#define gst_cuda_lens_distort_parent_class parent_class
G_DEFINE_TYPE (GstCudaLensDistort, gst_cuda_lens_distort,
    GST_TYPE_CO_BASE_FILTER);

#define GST_TYPE_CO_LENS_MODEL (gst_co_lens_model_get_type ())
static GType
gst_co_lens_model_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CO_LENS_HMD, "Radial pre-distortion for head-mounted displays", "hmd"},
    {CO_LENS_CAMERA, "Brown-Conrady camera correction (cv::undistort)",
        "camera"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCoLensModel",
            values));
  return (GType) type;
}

#define GST_TYPE_CO_LUT_MODE (gst_co_lut_mode_get_type ())
static GType
gst_co_lut_mode_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CO_LUT_COMPRESSED, "One 32-bit entry per output pixel", "compressed"},
    {CO_LUT_TWO_TABLE, "Separate float x and y tables", "two-table"},
    {CO_LUT_COMPUTE, "No table: evaluate the model per pixel", "none"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCoLutMode", values));
  return (GType) type;
}

#define GST_TYPE_CO_INTERPOLATION (gst_co_interpolation_get_type ())
static GType
gst_co_interpolation_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CO_INTERP_NEAREST, "Nearest source pixel", "nearest"},
    {CO_INTERP_BILINEAR, "Bilinear, sub-pixel positions in the table",
        "bilinear"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCoInterpolation",
            values));
  return (GType) type;
}

/* ---- calibration ---- */

/* Loads @path (cached) into K and distortion for a w x h stream.  A file
 * calibrated at another resolution is scaled, as intrinsics scale. */
static gboolean
load_calibration (GstCudaLensDistort * self, const gchar * path, int w, int h,
    double k[4], double dist[5], GError ** error)
{
  GstCoCalibration *c = &self->calib;
  double sx = 1.0, sy = 1.0;
  /* warn once per file and negotiation, not at each animated rebuild */
  gboolean news = !self->ready;

  if (g_strcmp0 (path, self->calib_path) != 0) {
    GstCoCalibration fresh;
    news = TRUE;
    if (!gst_co_calibration_load (path, &fresh, error))
      return FALSE;
    *c = fresh;
    g_free (self->calib_path);
    self->calib_path = g_strdup (path);
    GST_INFO_OBJECT (self, "calibration %s: fx %g fy %g cx %g cy %g k1 %g "
        "k2 %g p1 %g p2 %g k3 %g (%dx%d)", path, c->fx, c->fy, c->cx, c->cy,
        c->dist[CO_DIST_K1], c->dist[CO_DIST_K2], c->dist[CO_DIST_P1],
        c->dist[CO_DIST_P2], c->dist[CO_DIST_K3], c->image_width,
        c->image_height);
  }
  if (c->image_width > 0 && c->image_height > 0 &&
      (c->image_width != w || c->image_height != h)) {
    sx = (double) w / c->image_width;
    sy = (double) h / c->image_height;
    if (fabs (sx / sy - 1.0) > 0.01 && news) {
      /* messages are UTF-8, file names need not be */
      gchar *name = g_filename_display_name (self->calib_path);
      GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("Calibration %s was made "
              "at %dx%d; the stream is %dx%d, another aspect ratio: its "
              "intrinsics are scaled by %g x %g", name, c->image_width,
              c->image_height, w, h, sx, sy), (NULL));
      g_free (name);
    }
  }
  k[0] = c->fx * sx;
  k[1] = c->fy * sy;
  k[2] = (c->cx + 0.5) * sx - 0.5;
  k[3] = (c->cy + 0.5) * sy - 0.5;
  memcpy (dist, c->dist, sizeof (double) * CO_CAMERA_N_DIST_USED);
  return TRUE;
}

/* ---- table ---- */

static void
intrinsics_from_settings (const Settings * s, int w, int h, double k[4],
    double dist[5])
{
  k[0] = s->fx > 0 ? s->fx : w;
  k[1] = s->fy > 0 ? s->fy : k[0];
  k[2] = s->cx >= 0 ? s->cx : (w - 1) * 0.5;
  k[3] = s->cy >= 0 ? s->cy : (h - 1) * 0.5;
  dist[0] = s->k1;
  dist[1] = s->k2;
  dist[2] = s->p1;
  dist[3] = s->p2;
  dist[4] = s->k3;
}

static gboolean
rebuild (GstCudaLensDistort * self, const Settings * s)
{
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (self);
  int w = GST_VIDEO_INFO_WIDTH (&base->in_info);
  int h = GST_VIDEO_INFO_HEIGHT (&base->in_info);
  CoLensModel model = (CoLensModel) s->model;
  double k[4], dist[5], nk[4];
  gboolean have_k = FALSE;
  CoLensParams p;
  CoLut lut;
  int g;

  if (model == CO_LENS_CAMERA && s->calibration_file &&
      *s->calibration_file) {
    GError *err = NULL;
    /* a file that failed is not read again at each property change */
    gboolean known_bad = s->calibration_gen == self->bad_gen &&
        g_strcmp0 (s->calibration_file, self->bad_path) == 0;

    have_k = !known_bad && load_calibration (self, s->calibration_file, w, h,
        k, dist, &err);
    /* start() refused an unusable file, so this one was set while running:
     * the geometry in use stays, and the other properties still apply */
    if (!have_k && !known_bad) {
      GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ,
          ("Could not use calibration file, keeping the previous geometry: "
              "%s", err->message), (NULL));
      g_clear_error (&err);
      g_free (self->bad_path);
      self->bad_path = g_strdup (s->calibration_file);
      self->bad_gen = s->calibration_gen;
    }
    if (!have_k && self->calib_path)
      have_k = load_calibration (self, self->calib_path, w, h, k, dist, NULL);
    /* no usable file ever: the model in use before it was set */
    if (!have_k)
      model = self->base_model;
  }

  if (model == CO_LENS_HMD) {
    co_lens_params_init_hmd (&p, w, h, s->k1, s->k2, s->center_x,
        s->center_y, s->stereo);
  } else {
    if (!have_k)
      intrinsics_from_settings (s, w, h, k, dist);
    memcpy (nk, k, sizeof (nk));
    if (s->alpha >= 0 &&
        !co_lens_optimal_new_camera (k, dist, w, h, s->alpha, nk)) {
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
          ("alpha=%g: this distortion folds the image border over itself; "
              "keeping the camera matrix", s->alpha), (NULL));
      memcpy (nk, k, sizeof (nk));
    }
    co_lens_params_init_camera (&p, w, h, k, dist, nk);
  }

  co_lut_layout (&lut, s->lut, s->interpolation, base->in_format, w, h);
  /* the tables are reallocated and rewritten below: until that succeeds
   * self->lut may point at freed or half-built memory */
  self->ready = FALSE;
  for (g = 0; g < lut.n_geometries; g++) {
    gsize bytes = co_lut_table_bytes (&lut, g);
    int t;
    for (t = 0; bytes && t < (s->lut == CO_LUT_TWO_TABLE ? 2 : 1); t++)
      if (!gst_co_base_filter_ensure (base, &self->table[g * 2 + t],
              &self->table_size[g * 2 + t], bytes))
        return FALSE;
    if (s->lut == CO_LUT_COMPRESSED) {
      lut.plane[g].packed = self->table[g * 2];
    } else if (s->lut == CO_LUT_TWO_TABLE) {
      lut.plane[g].x = self->table[g * 2];
      lut.plane[g].y = self->table[g * 2 + 1];
    }
  }
  if (base->active_backend == GST_CO_BACKEND_CUDA) {
    if (!gst_co_base_filter_cuda_ok (base, co_lens_build_lut_cuda (&p, &lut,
                base->stream), "building the LUT"))
      return FALSE;
  } else {
    co_lens_build_lut_cpu (&p, &lut);
  }
  co_format_border (base->in_format, s->border_color, self->border);
  self->params = p;
  self->lut = lut;
  self->ready = TRUE;
  self->base_model = model;
  if (!co_lens_maps_any (&p, s->interpolation, lut.frac[0], EMPTY_GRID)) {
    if (!self->warned_empty)
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("These settings map no "
              "output pixel inside the source: every pixel is the border "
              "colour"), ("model %d, %dx%d", s->model, w, h));
    self->warned_empty = TRUE;
  } else {
    self->warned_empty = FALSE;
  }
  GST_DEBUG_OBJECT (self, "table rebuilt: model %d, lut %d, interpolation %d, "
      "%d fractional bits", s->model, s->lut, s->interpolation, lut.frac[0]);
  return TRUE;
}

static GstFlowReturn
gst_cuda_lens_distort_process (GstCoBaseFilter * base, const CoFrame * in,
    CoFrame * out)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (base);
  Settings snap;
  gboolean need;

  GST_OBJECT_LOCK (self);
  need = self->dirty || !self->ready;
  if (need) {
    snap = self->set;
    snap.calibration_file = g_strdup (self->set.calibration_file);
    self->dirty = FALSE;
  }
  GST_OBJECT_UNLOCK (self);

  if (need) {
    /* outside the lock: setters never wait for the GPU */
    gboolean ok = rebuild (self, &snap);
    g_free (snap.calibration_file);
    if (!ok)
      return GST_FLOW_ERROR;
  }
  if (base->active_backend == GST_CO_BACKEND_CPU) {
    co_lens_remap_cpu (&self->params, &self->lut, in, out, self->border);
    return GST_FLOW_OK;
  }
  return gst_co_base_filter_cuda_ok (base, co_lens_remap_cuda (&self->params,
          &self->lut, in, out, self->border, base->stream), "remapping") ?
      GST_FLOW_OK : GST_FLOW_ERROR;
}

static gboolean
gst_cuda_lens_distort_set_info (GstCoBaseFilter * base,
    GstCaps * incaps, const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (base);

  GST_OBJECT_LOCK (self);
  self->dirty = TRUE;
  GST_OBJECT_UNLOCK (self);
  self->ready = FALSE;
  return TRUE;
}

static void
gst_cuda_lens_distort_release (GstCoBaseFilter * base)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (base);
  int i;

  for (i = 0; i < 4; i++) {
    gst_co_base_filter_free (base, self->table[i]);
    self->table[i] = NULL;
    self->table_size[i] = 0;
  }
  self->ready = FALSE;
}

/* A calibration file that cannot be used fails the state change. */
static gboolean
gst_cuda_lens_distort_start (GstBaseTransform * bt)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (bt);
  GstCoCalibration c;
  GError *err = NULL;
  gchar *path;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->start (bt))
    return FALSE;
  GST_OBJECT_LOCK (self);
  path = g_strdup (self->set.calibration_file);
  self->base_model = (CoLensModel) self->set.model;
  self->dirty = TRUE;
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&self->calib_path, g_free);
  g_clear_pointer (&self->bad_path, g_free);
  if (path && *path) {
    if (!gst_co_calibration_load (path, &c, &err)) {
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
          ("Could not use calibration file: %s", err->message), (NULL));
      g_error_free (err);
      g_free (path);
      GST_BASE_TRANSFORM_CLASS (parent_class)->stop (bt);
      return FALSE;
    }
    /* the first table is built from this, not from a second read */
    self->calib = c;
    self->calib_path = g_steal_pointer (&path);
  }
  g_free (path);
  return TRUE;
}

/* ---- properties ---- */

static void
gst_cuda_lens_distort_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (object);
  Settings *s = &self->set;
  gdouble *d = NULL;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      s->model = g_value_get_enum (value);
      break;
    case PROP_K1:
      d = &s->k1;
      break;
    case PROP_K2:
      d = &s->k2;
      break;
    case PROP_K3:
      d = &s->k3;
      break;
    case PROP_P1:
      d = &s->p1;
      break;
    case PROP_P2:
      d = &s->p2;
      break;
    case PROP_CENTER_X:
      d = &s->center_x;
      break;
    case PROP_CENTER_Y:
      d = &s->center_y;
      break;
    case PROP_FX:
      d = &s->fx;
      break;
    case PROP_FY:
      d = &s->fy;
      break;
    case PROP_CX:
      d = &s->cx;
      break;
    case PROP_CY:
      d = &s->cy;
      break;
    case PROP_ALPHA:
      d = &s->alpha;
      break;
    case PROP_STEREO:
      s->stereo = g_value_get_boolean (value);
      break;
    case PROP_CALIBRATION_FILE:
      g_free (s->calibration_file);
      s->calibration_file = g_value_dup_string (value);
      s->calibration_gen++;
      /* a calibration describes a camera */
      if (s->calibration_file && *s->calibration_file)
        s->model = CO_LENS_CAMERA;
      break;
    case PROP_LUT:
      s->lut = g_value_get_enum (value);
      break;
    case PROP_INTERPOLATION:
      s->interpolation = g_value_get_enum (value);
      break;
    case PROP_BORDER_COLOR:
      s->border_color = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (self);
      return;
  }
  if (d)
    *d = g_value_get_double (value);
  self->dirty = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_lens_distort_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (object);
  Settings *s = &self->set;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      g_value_set_enum (value, s->model);
      break;
    case PROP_K1:
      g_value_set_double (value, s->k1);
      break;
    case PROP_K2:
      g_value_set_double (value, s->k2);
      break;
    case PROP_K3:
      g_value_set_double (value, s->k3);
      break;
    case PROP_P1:
      g_value_set_double (value, s->p1);
      break;
    case PROP_P2:
      g_value_set_double (value, s->p2);
      break;
    case PROP_CENTER_X:
      g_value_set_double (value, s->center_x);
      break;
    case PROP_CENTER_Y:
      g_value_set_double (value, s->center_y);
      break;
    case PROP_FX:
      g_value_set_double (value, s->fx);
      break;
    case PROP_FY:
      g_value_set_double (value, s->fy);
      break;
    case PROP_CX:
      g_value_set_double (value, s->cx);
      break;
    case PROP_CY:
      g_value_set_double (value, s->cy);
      break;
    case PROP_ALPHA:
      g_value_set_double (value, s->alpha);
      break;
    case PROP_STEREO:
      g_value_set_boolean (value, s->stereo);
      break;
    case PROP_CALIBRATION_FILE:
      g_value_set_string (value, s->calibration_file);
      break;
    case PROP_LUT:
      g_value_set_enum (value, s->lut);
      break;
    case PROP_INTERPOLATION:
      g_value_set_enum (value, s->interpolation);
      break;
    case PROP_BORDER_COLOR:
      g_value_set_uint (value, s->border_color);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_lens_distort_finalize (GObject * object)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (object);

  g_free (self->set.calibration_file);
  g_free (self->calib_path);
  g_free (self->bad_path);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define PARAM_LIVE (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_PLAYING)
#define PARAM_ANIM (PARAM_LIVE | GST_PARAM_CONTROLLABLE)

static void
install_double (GObjectClass * oc, guint id, const gchar * name,
    const gchar * nick, const gchar * blurb, gdouble min, gdouble max,
    gdouble def)
{
  g_object_class_install_property (oc, id, g_param_spec_double (name, nick,
          blurb, min, max, def, PARAM_ANIM));
}

static void
gst_cuda_lens_distort_class_init (GstCudaLensDistortClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *bc = GST_BASE_TRANSFORM_CLASS (klass);
  GstCoBaseFilterClass *fc = GST_CO_BASE_FILTER_CLASS (klass);

  oc->set_property = gst_cuda_lens_distort_set_property;
  oc->get_property = gst_cuda_lens_distort_get_property;
  oc->finalize = gst_cuda_lens_distort_finalize;

  g_object_class_install_property (oc, PROP_MODEL,
      g_param_spec_enum ("model", "Model", "Lens model: hmd pre-distortion or "
          "camera correction", GST_TYPE_CO_LENS_MODEL, DEFAULT_MODEL,
          PARAM_LIVE));
  install_double (oc, PROP_K1, "k1", "k1", "Radial coefficient of r^2 "
      "(both models)", -MAX_COEFF, MAX_COEFF, DEFAULT_K);
  install_double (oc, PROP_K2, "k2", "k2", "Radial coefficient of r^4 "
      "(both models)", -MAX_COEFF, MAX_COEFF, DEFAULT_K);
  install_double (oc, PROP_K3, "k3", "k3", "Radial coefficient of r^6 "
      "(camera)", -MAX_COEFF, MAX_COEFF, DEFAULT_K);
  install_double (oc, PROP_P1, "p1", "p1", "First tangential coefficient "
      "(camera)", -MAX_COEFF, MAX_COEFF, DEFAULT_K);
  install_double (oc, PROP_P2, "p2", "p2", "Second tangential coefficient "
      "(camera)", -MAX_COEFF, MAX_COEFF, DEFAULT_K);
  install_double (oc, PROP_CENTER_X, "center-x", "Centre x", "Lens centre "
      "as a fraction of the eye's width (hmd)", 0.0, 1.0, DEFAULT_CENTER);
  install_double (oc, PROP_CENTER_Y, "center-y", "Centre y", "Lens centre "
      "as a fraction of the height (hmd)", 0.0, 1.0, DEFAULT_CENTER);
  g_object_class_install_property (oc, PROP_STEREO,
      g_param_spec_boolean ("stereo", "Stereo", "Side-by-side frame: each "
          "half is an eye with its own (mirrored) centre (hmd)", FALSE,
          PARAM_LIVE));
  install_double (oc, PROP_FX, "fx", "fx", "Focal length in pixels "
      "(camera; 0 = frame width)", 0.0, MAX_PIXELS, DEFAULT_FOCAL);
  install_double (oc, PROP_FY, "fy", "fy", "Focal length in pixels "
      "(camera; 0 = fx)", 0.0, MAX_PIXELS, DEFAULT_FOCAL);
  install_double (oc, PROP_CX, "cx", "cx", "Principal point x in pixels "
      "(camera; -1 = frame centre)", -1.0, MAX_PIXELS, DEFAULT_PRINCIPAL);
  install_double (oc, PROP_CY, "cy", "cy", "Principal point y in pixels "
      "(camera; -1 = frame centre)", -1.0, MAX_PIXELS, DEFAULT_PRINCIPAL);
  g_object_class_install_property (oc, PROP_CALIBRATION_FILE,
      g_param_spec_string ("calibration-file", "Calibration file",
          "OpenCV calibration (YAML or XML with camera_matrix and "
          "distortion_coefficients); replaces fx..k3 and selects "
          "model=camera", NULL, PARAM_LIVE));
  install_double (oc, PROP_ALPHA, "alpha", "Alpha", "Free scaling of "
      "cv::getOptimalNewCameraMatrix: 0 keeps only valid pixels, 1 keeps all "
      "source pixels, -1 keeps the camera matrix (cv::undistort)", -1.0, 1.0,
      DEFAULT_ALPHA);
  g_object_class_install_property (oc, PROP_LUT,
      g_param_spec_enum ("lut", "LUT", "Look-up table strategy",
          GST_TYPE_CO_LUT_MODE, DEFAULT_LUT, PARAM_LIVE));
  g_object_class_install_property (oc, PROP_INTERPOLATION,
      g_param_spec_enum ("interpolation", "Interpolation", "Sampling of the "
          "source", GST_TYPE_CO_INTERPOLATION, DEFAULT_INTERPOLATION,
          PARAM_LIVE));
  g_object_class_install_property (oc, PROP_BORDER_COLOR,
      g_param_spec_uint ("border-color", "Border colour", "Colour of output "
          "pixels with no source pixel, as 0xAARRGGBB", 0, G_MAXUINT32,
          DEFAULT_BORDER_COLOR, PARAM_LIVE));

  gst_element_class_set_static_metadata (ec, "CUDA lens distortion",
      "Filter/Effect/Video/Hardware",
      "Lens (pre)distortion and camera undistortion by compressed LUT "
      "backward mapping on CUDA or the CPU", "cudaoptics developers");
  gst_co_base_filter_class_add_video_templates (ec, FORMATS, CO_REMAP_MAX_SIZE);

  bc->start = GST_DEBUG_FUNCPTR (gst_cuda_lens_distort_start);
  fc->set_info = GST_DEBUG_FUNCPTR (gst_cuda_lens_distort_set_info);
  fc->process = GST_DEBUG_FUNCPTR (gst_cuda_lens_distort_process);
  fc->release = GST_DEBUG_FUNCPTR (gst_cuda_lens_distort_release);

  gst_type_mark_as_plugin_api (GST_TYPE_CO_LENS_MODEL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CO_LUT_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CO_INTERPOLATION, 0);
}

static void
gst_cuda_lens_distort_init (GstCudaLensDistort * self)
{
  Settings *s = &self->set;

  s->model = DEFAULT_MODEL;
  s->k1 = s->k2 = s->k3 = s->p1 = s->p2 = DEFAULT_K;
  s->center_x = s->center_y = DEFAULT_CENTER;
  s->fx = s->fy = DEFAULT_FOCAL;
  s->cx = s->cy = DEFAULT_PRINCIPAL;
  s->alpha = DEFAULT_ALPHA;
  s->lut = DEFAULT_LUT;
  s->interpolation = DEFAULT_INTERPOLATION;
  s->border_color = DEFAULT_BORDER_COLOR;
  self->dirty = TRUE;
}

gboolean
gst_cuda_lens_distort_register (GstPlugin * plugin)
{
  GST_DEBUG_CATEGORY_INIT (gst_cuda_lens_distort_debug, "cudalensdistort", 0,
      "cudalensdistort");
  return gst_element_register (plugin, "cudalensdistort", GST_RANK_NONE,
      GST_TYPE_CUDA_LENS_DISTORT);
}
