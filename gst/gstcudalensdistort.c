/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:element-cudalensdistort
 * @title: cudalensdistort
 *
 * Lens distortion and correction by a backward-mapping look-up table
 * (Kim, Yang and Kim, "Real-Time Lens Distortion Algorithm on an Edge Device
 * With GPU", IEEE Access 2022), on CUDA or on the CPU.
 *
 * Three models, or a table from a file:
 * - `hmd`: the paper's radial pre-distortion for head-mounted displays.  The
 *   output pixel x_o samples the input at
 *   x_s = c + s (x_o - c) / (1 + k1 r^2 + k2 r^4), r = |x_o - c| / R, s the
 *   #GstCudaLensDistort:scale, with c the
 *   lens centre (#GstCudaLensDistort:center-x, #GstCudaLensDistort:center-y,
 *   fractions of the eye's width and height) and R the eye's half-diagonal in
 *   pixels (r = 1 in the corners).  Negative k1 gives the barrel
 *   pre-distortion a pincushion headset lens cancels.  With
 *   #GstCudaLensDistort:stereo, each half of a side-by-side frame is an eye;
 *   the right eye's centre mirrors the left one's.
 * - `camera`: correction of a real camera, equal to OpenCV's cv::undistort
 *   with its whole pinhole model: fx, fy, cx, cy, k1, k2, p1, p2, k3, the
 *   rational k4, k5, k6, the thin prism s1..s4, the sensor tilt tau-x,
 *   tau-y (or an OpenCV calibration file).  #GstCudaLensDistort:alpha picks
 *   the new camera matrix like cv::getOptimalNewCameraMatrix.
 * - `fisheye`: OpenCV's fisheye model (Kannala-Brandt, equidistant), equal to
 *   cv::fisheye::undistortImage: fx, fy, cx, cy and k1..k4.
 *   #GstCudaLensDistort:balance and #GstCudaLensDistort:fov-scale pick the
 *   new camera matrix like
 *   cv::fisheye::estimateNewCameraMatrixForUndistortRectify.
 * - #GstCudaLensDistort:map-file: any geometry, OpenCV's map1/map2 in the
 *   CO-MAP1 file format (docs/cudalensdistort.md).
 *
 * #GstCudaLensDistort:red-scale and #GstCudaLensDistort:blue-scale
 * pre-compensate a headset lens's lateral colour in the same pass.
 *
 * Every geometry setting may change while PLAYING (backend and device-id
 * in READY); the table is rebuilt, on the backend in use, between two
 * frames, so no frame mixes two geometries.  The table, its
 * strategies (`lut`), sampling (`interpolation`) and what samples off the
 * source take (`off-edge`, `border-color`) are #GstCoRemapFilter's; this
 * element gives the lens model (kernels/lensdistort_math.h and the camera
 * of kernels/co_camera.h) and writes the table straight from it.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,width=2560,height=1440 ! cudalensdistort k1=-0.25 stereo=true ! fakesink
 * ]| Barrel pre-distortion of a side-by-side stereo frame.
 * |[
 * # needs: gpu, display
 * gst-launch-1.0 videotestsrc ! video/x-raw,width=2560,height=1440 ! cudaupload ! cudalensdistort k1=-0.25 stereo=true ! cudadownload ! autovideosink
 * ]| The same all in GPU memory, to the screen.
 * |[
 * gst-launch-1.0 filesrc location=pipelines/samples/left01.jpg ! jpegdec ! videoconvert ! cudalensdistort calibration-file=pipelines/samples/left_intrinsics.yml alpha=0 ! videoconvert ! pngenc ! filesink location=/tmp/undistorted.png
 * ]| Undistorts a camera frame with its OpenCV calibration, keeping only
 * valid pixels.
 * |[
 * # needs: camera, display
 * gst-launch-1.0 v4l2src ! videoconvert ! cudalensdistort model=fisheye fx=285 fy=285 cx=320 cy=240 k1=-0.01 k2=0.04 k3=-0.04 k4=0.01 balance=0.5 ! videoconvert ! autovideosink
 * ]| Undistorts a fisheye camera calibrated with cv::fisheye::calibrate.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include "gstcudalensdistort.h"
#include "gstcocalibration.h"
#include "gstcocamerasource.h"
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
  PROP_K4,
  PROP_K5,
  PROP_K6,
  PROP_S1,
  PROP_S2,
  PROP_S3,
  PROP_S4,
  PROP_TAU_X,
  PROP_TAU_Y,
  PROP_BALANCE,
  PROP_FOV_SCALE,
  PROP_CAMERA,
  PROP_MAP_FILE,
  PROP_SCALE,
  PROP_RED_K1,
  PROP_RED_K2,
  PROP_RED_SCALE,
  PROP_BLUE_K1,
  PROP_BLUE_K2,
  PROP_BLUE_SCALE,
  PROP_RECTIFICATION_FILE,
};

#define DEFAULT_MODEL CO_LENS_HMD
#define DEFAULT_K 0.0
#define DEFAULT_CENTER 0.5
#define DEFAULT_ALPHA -1.0
#define DEFAULT_BALANCE -1.0
#define DEFAULT_FOV_SCALE 1.0
#define DEFAULT_SCALE 1.0
/* the colours' coefficients obey the camera's ranges (gstcocalibration.h) */
#define MAX_COEFF GST_CO_CALIBRATION_MAX_COEFF
/* grid on which a table that maps nothing is looked for */
#define EMPTY_GRID 129

typedef struct
{
  gint model;
  GstCoCameraSettings cam;      /* camera, fisheye */
  gdouble center_x, center_y, alpha, balance, fov_scale;
  /* hmd: magnification, and red's and blue's against green's */
  gdouble scale, red_k1, red_k2, red_scale, blue_k1, blue_k2, blue_scale;
  gboolean stereo;
  gchar *map_file;
  guint map_gen;                /* counts sets: setting it again re-reads */
} Settings;

struct _GstCudaLensDistort
{
  GstCoRemapFilter parent;

  Settings set;                 /* properties, under the object lock */

  /* streaming thread only */
  CoLensParams params;          /* of the table being built or in use */
  CoLensModel model;            /* likewise, once a file was resolved */
  GstCoCameraSource camsrc;     /* the calibration file in use */
  CoLensModel base_model;       /* of the table in use, or at start */
  gboolean warned_empty;        /* the border-only warning was posted */
  gboolean warned_fisheye;      /* pinhole-only coefficients were ignored */
};

#define gst_cuda_lens_distort_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstCudaLensDistort, gst_cuda_lens_distort,
    GST_TYPE_CO_REMAP_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_lens_distort_debug, "cudalensdistort", 0,
        "cudalensdistort"));

#define GST_TYPE_CO_LENS_MODEL (gst_co_lens_model_get_type ())
static GST_CO_ENUM_TYPE (gst_co_lens_model_get_type, "GstCoLensModel",
    {CO_LENS_HMD, "Radial pre-distortion for head-mounted displays", "hmd"},
    {CO_LENS_CAMERA, "Camera correction, OpenCV's pinhole model "
          "(cv::undistort: Brown-Conrady, rational, thin prism, tilt)",
        "camera"},
    {CO_LENS_FISHEYE, "Fisheye camera correction, OpenCV's equidistant "
          "model (cv::fisheye::undistortImage)", "fisheye"})

/* ---- table ---- */

/* The camera of the calibration file in @s, or FALSE: no usable file ever
 * (start() refuses one that cannot be used, so a bad file here was set
 * while running: warned once, the geometry in use stays, and the other
 * properties still apply). */
static gboolean
camera_from_file (GstCudaLensDistort * self, const Settings * s, int w, int h,
    CoCamera * cam)
{
  GstCoCameraFile f = { s->cam.calibration_file, s->cam.camera,
    s->cam.rectification_file, s->cam.calibration_gen
  };

  return gst_co_camera_source_get_full (&self->camsrc, GST_ELEMENT (self), &f,
      s->model == CO_LENS_FISHEYE, w, h, TRUE, cam, NULL);
}

/* ---- map file ---- */

/* GstCoBaseFilter::get_output_size: a map file's size, else the input's. */
static void
gst_cuda_lens_distort_get_output_size (GstCoBaseFilter * base,
    const GstVideoInfo * in, gint * width, gint * height)
{
  gchar *path;

  GST_OBJECT_LOCK (base);
  path = g_strdup (GST_CUDA_LENS_DISTORT (base)->set.map_file);
  GST_OBJECT_UNLOCK (base);
  gst_co_remap_filter_map_file_size (GST_CO_REMAP_FILTER (base), path, width,
      height);
  g_free (path);
}

/* GstCoRemapFilter::prepare: the snapshot, the calibration and the lens
 * parameters the table is built from. */
static gboolean
gst_cuda_lens_distort_prepare (GstCoRemapFilter * remap, CoLut * lut,
    gboolean new_caps)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (remap);
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (remap);
  /* K describes the input; the model's pixels are the output's (the table's) */
  int w = GST_VIDEO_INFO_WIDTH (&base->in.info);
  int h = GST_VIDEO_INFO_HEIGHT (&base->in.info);
  int ow = lut->plane[0].width, oh = lut->plane[0].height;
  CoLensModel model;
  gboolean have_cam = FALSE, mapped;
  CoCamera cam;
  Settings s;

  gst_co_base_filter_snapshot (base, &s);

  /* a map needs a table: if the filter chose lut=none before a map was set,
   * the map waits for the rebuild its setter asked for */
  if (lut->mode != CO_LUT_COMPUTE || !s.map_file || !*s.map_file)
    gst_co_remap_filter_use_map_file (remap, s.map_file, s.map_gen, TRUE);
  mapped = gst_co_remap_filter_mapped (remap, lut);
  g_clear_pointer (&s.map_file, g_free);
  model = (CoLensModel) s.model;
  if (model != CO_LENS_HMD && s.cam.calibration_file &&
      *s.cam.calibration_file) {
    have_cam = camera_from_file (self, &s, w, h, &cam);
    /* no usable file ever: the model in use before it was set */
    if (!have_cam)
      model = self->base_model;
  }

  if (model == CO_LENS_HMD) {
    const gdouble k1 = s.cam.k1, k2 = s.cam.k2;
    co_lens_params_init_hmd (&self->params, ow, oh, k1, k2, s.center_x,
        s.center_y, s.stereo);
    co_lens_params_set_colour (&self->params, 0, k1, k2, s.scale);
    co_lens_params_set_colour (&self->params, 1, k1 + s.red_k1,
        k2 + s.red_k2, s.scale * s.red_scale);
    co_lens_params_set_colour (&self->params, 2, k1 + s.blue_k1,
        k2 + s.blue_k2, s.scale * s.blue_scale);
    co_lens_params_set_source (&self->params, w, h);
    /* a map file replaces the model, colours included */
    if (co_lens_params_chromatic (&self->params) && !mapped &&
        !co_lut_set_chroma (lut)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Chromatic correction "
              "(red-* and blue-* properties) needs RGB frames (RGBA, BGRA, "
              "RGBx, BGRx or RGB), not %s: convert before cudalensdistort, or "
              "leave red-* and blue-* at their defaults",
              gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
                  (&base->in.info))), (NULL));
      gst_co_base_filter_snapshot_clear (base, &s);
      return FALSE;
    }
  } else {
    const GstCoCameraSettings *c = &s.cam;
    double nk[4];

    if (!have_cam)
      gst_co_camera_from_settings (&s.cam, w, h, model == CO_LENS_FISHEYE,
          &cam);
    /* a calibration file says which model it describes */
    model = cam.model == CO_CAMERA_FISHEYE ? CO_LENS_FISHEYE : CO_LENS_CAMERA;
    if (model == CO_LENS_FISHEYE && !have_cam && (c->p1 != 0 || c->p2 != 0
            || c->k5 != 0 || c->k6 != 0 || c->s1 != 0 || c->s2 != 0 ||
            c->s3 != 0 || c->s4 != 0 || c->tau_x != 0 || c->tau_y != 0) &&
        !self->warned_fisheye) {
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("model=fisheye takes "
              "k1..k4 only: p1, p2, k5, k6, s1..s4, tau-x and tau-y are "
              "ignored"), (NULL));
      self->warned_fisheye = TRUE;
    }
    if (model == CO_LENS_FISHEYE && s.balance >= 0) {
      if (co_camera_fisheye_new_camera (&cam, w, h, s.balance, s.fov_scale,
              nk))
        co_camera_set_new_camera (&cam, nk);
      else
        GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
            ("balance=%g: the border of this fisheye does not undistort to a "
                "usable rectangle; keeping the camera matrix", s.balance),
            (NULL));
    } else if (model == CO_LENS_CAMERA && s.alpha >= 0) {
      if (co_camera_optimal_new_camera (&cam, w, h, s.alpha, nk))
        co_camera_set_new_camera (&cam, nk);
      else
        GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
            ("alpha=%g: this distortion folds the image border over itself; "
                "keeping the camera matrix", s.alpha), (NULL));
    }
    if (ow != w || oh != h) {
      /* another output size: P's pixels scale as an image resized */
      double sx = (double) ow / w, sy = (double) oh / h;
      int i;
      for (i = 0; i < 4; i++) {
        cam.p[i] = cam.p[i] * sx + (0.5 * sx - 0.5) * cam.p[8 + i];
        cam.p[4 + i] = cam.p[4 + i] * sy + (0.5 * sy - 0.5) * cam.p[8 + i];
      }
    }
    co_lens_params_init_pinhole (&self->params, ow, oh, &cam);
  }
  self->model = model;
  gst_co_base_filter_snapshot_clear (base, &s);
  return TRUE;
}

/* GstCoRemapFilter::build_lut: the lens model straight into the table, on
 * the active backend. */
static gboolean
gst_cuda_lens_distort_build_lut (GstCoRemapFilter * remap, const CoLut * lut)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (remap);
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (remap);
  const CoLensParams *p = &self->params;

  if (gst_co_element_on_cuda (base)) {
    if (!gst_co_element_cuda_ok (base, co_lens_build_lut_cuda (p, lut,
                base->engine.stream), "building the LUT"))
      return FALSE;
  } else {
    co_lens_build_lut_cpu (p, lut);
  }
  self->base_model = self->model;
  if (!co_lens_maps_any (p, lut, EMPTY_GRID)) {
    if (!self->warned_empty)
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("These settings map no "
              "output pixel inside the source: every pixel is the border "
              "colour"), ("model %d, %dx%d", self->model, p->width, p->height));
    self->warned_empty = TRUE;
  } else {
    self->warned_empty = FALSE;
  }
  return TRUE;
}

/* GstCoRemapFilter::remap, for lut=none: the model per output pixel. */
static GstFlowReturn
gst_cuda_lens_distort_remap (GstCoRemapFilter * remap, const CoLut * lut,
    const CoFrame * in, CoFrame * out, const guint32 border[CO_MAX_PLANES])
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (remap);
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (remap);

  if (!gst_co_element_on_cuda (base)) {
    co_lens_remap_cpu (&self->params, lut, in, out, border);
    return GST_FLOW_OK;
  }
  return gst_co_element_cuda_ok (base, co_lens_remap_cuda (&self->params,
          lut, in, out, border, base->engine.stream), "remapping") ? GST_FLOW_OK :
      GST_FLOW_ERROR;
}

/* A map or calibration file that cannot be used fails the state change. */
static gboolean
gst_cuda_lens_distort_start (GstBaseTransform * bt)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (bt);
  GError *err = NULL;
  gchar *path, *camera, *map, *rect;
  guint map_gen, calib_gen;
  gboolean fisheye, ok;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->start (bt))
    return FALSE;
  GST_OBJECT_LOCK (self);
  path = g_strdup (self->set.cam.calibration_file);
  camera = g_strdup (self->set.cam.camera);
  rect = g_strdup (self->set.cam.rectification_file);
  map = g_strdup (self->set.map_file);
  map_gen = self->set.map_gen;
  calib_gen = self->set.cam.calibration_gen;
  fisheye = self->set.model == CO_LENS_FISHEYE;
  self->base_model = (CoLensModel) self->set.model;
  gst_co_remap_filter_mark_dirty (GST_CO_REMAP_FILTER (self));
  GST_OBJECT_UNLOCK (self);
  gst_co_camera_source_clear (&self->camsrc);
  ok = gst_co_remap_filter_use_map_file (GST_CO_REMAP_FILTER (self), map,
      map_gen, FALSE);
  if (ok && path && *path) {
    GstCoCameraFile f = { path, camera, rect, calib_gen };
    /* the first table is built from this, not from a second read; the
     * error names the file, calibration or rectification */
    ok = gst_co_camera_source_load_full (&self->camsrc, &f, fisheye, &err);
    if (!ok) {
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("Could not use "
              "calibration file: %s", err->message), (NULL));
      g_error_free (err);
    }
  } else if (ok && rect && *rect) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("rectification-file is "
            "used with a calibration-file only: it is ignored"), (NULL));
  }
  g_free (map);
  g_free (path);
  g_free (camera);
  g_free (rect);
  if (!ok)
    GST_BASE_TRANSFORM_CLASS (parent_class)->stop (bt);
  return ok;
}

/* ---- properties ---- */


/* What goes with a setting: a calibration describes a camera; a map file
 * is read into tables only (lut=none cannot evaluate it). */
static void
gst_cuda_lens_distort_setting_changed (GstCoBaseFilter * base, guint prop_id)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (base);
  Settings *s = &self->set;

  if (prop_id == PROP_MAP_FILE)
    gst_co_remap_filter_set_table_only (GST_CO_REMAP_FILTER (self),
        s->map_file && *s->map_file);
  else if (prop_id == PROP_CALIBRATION_FILE && s->cam.calibration_file &&
      *s->cam.calibration_file && s->model == CO_LENS_HMD)
    s->model = CO_LENS_CAMERA;
}

static void
gst_cuda_lens_distort_finalize (GObject * object)
{
  GstCudaLensDistort *self = GST_CUDA_LENS_DISTORT (object);

  gst_co_camera_source_clear (&self->camsrc);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}



#define SET(f) G_STRUCT_OFFSET (Settings, f)
#define REBUILD GST_CO_SETTING_REBUILD
/* a coefficient of the model: animatable, rebuilds the table */
#define DOUBLE(name, nick, blurb, lo, hi, def, f) GST_CO_ROW_DOUBLE (name, \
    nick, blurb, lo, hi, def, GST_CO_PARAM_ANIM, SET (f), REBUILD)
#define CAM(row) GST_CO_CAMERA_ROW (row, SET (cam))

static void
gst_cuda_lens_distort_class_init (GstCudaLensDistortClass * klass)
{
  GstBaseTransformClass *bc = GST_BASE_TRANSFORM_CLASS (klass);
  GstCoRemapFilterClass *rc = GST_CO_REMAP_FILTER_CLASS (klass);
  GstCoBaseFilterClass *fc = GST_CO_BASE_FILTER_CLASS (klass);

  const GstCoSetting settings[] = {
    [PROP_MODEL - 1] = GST_CO_ROW_ENUM ("model", "Model", "Lens model: "
        "hmd pre-distortion, camera or fisheye correction",
        GST_TYPE_CO_LENS_MODEL, DEFAULT_MODEL, GST_CO_PARAM_LIVE,
        SET (model), REBUILD),
    CAM (FX), CAM (FY), CAM (CX), CAM (CY), CAM (K1), CAM (K2), CAM (K3),
    CAM (K4), CAM (K5), CAM (K6), CAM (P1), CAM (P2), CAM (S1), CAM (S2),
    CAM (S3), CAM (S4), CAM (TAU_X), CAM (TAU_Y), CAM (CALIBRATION_FILE),
    CAM (CAMERA), CAM (RECTIFICATION_FILE),
    [PROP_CENTER_X - 1] = DOUBLE ("center-x", "Centre x", "Lens centre as a "
        "fraction of the eye's width (hmd)", 0.0, 1.0, DEFAULT_CENTER,
        center_x),
    [PROP_CENTER_Y - 1] = DOUBLE ("center-y", "Centre y", "Lens centre as a "
        "fraction of the height (hmd)", 0.0, 1.0, DEFAULT_CENTER, center_y),
    [PROP_STEREO - 1] = GST_CO_ROW_BOOLEAN ("stereo", "Stereo",
        "Side-by-side frame: each half is an eye with its own (mirrored) "
        "centre (hmd)", FALSE, GST_CO_PARAM_LIVE, SET (stereo), REBUILD),
    [PROP_ALPHA - 1] = DOUBLE ("alpha", "Alpha", "Free scaling of "
        "cv::getOptimalNewCameraMatrix: 0 keeps only valid pixels, 1 keeps "
        "all source pixels, -1 keeps the camera matrix (cv::undistort; camera)",
        -1.0, 1.0, DEFAULT_ALPHA, alpha),
    [PROP_BALANCE - 1] = DOUBLE ("balance", "Balance", "New focal length of "
        "cv::fisheye::estimateNewCameraMatrixForUndistortRectify: 0 keeps "
        "only valid pixels, 1 the field up to the border's midpoints, -1 "
        "keeps the camera matrix (fisheye)", -1.0, 1.0, DEFAULT_BALANCE,
        balance),
    [PROP_FOV_SCALE - 1] = DOUBLE ("fov-scale", "Field of view scale",
        "Divides the focal length balance chose: above 1 shows more of the "
        "field (fisheye, with balance)", 0.1, 10.0, DEFAULT_FOV_SCALE,
        fov_scale),
    [PROP_MAP_FILE - 1] = GST_CO_ROW_FILE ("map-file", "Map file",
        "A precomputed map for any model: each output pixel's source "
        "position (cv::remap's map1/map2) in the CO-MAP1 file format "
        "(docs/cudalensdistort.md); it replaces the model, and the output "
        "takes its size unless downstream asks for another", SET (map_file),
        REBUILD | GST_CO_SETTING_RESIZE, SET (map_gen)),
    [PROP_SCALE - 1] = DOUBLE ("scale", "Scale", "Source positions scaled "
        "about the lens centre: below 1 magnifies (hmd)", 0.1, 10.0,
        DEFAULT_SCALE, scale),
    [PROP_RED_K1 - 1] = DOUBLE ("red-k1", "Red k1", "Added to k1 for the red "
        "channel: lateral chromatic aberration pre-compensation (hmd, RGB "
        "formats)", -MAX_COEFF, MAX_COEFF, DEFAULT_K, red_k1),
    [PROP_RED_K2 - 1] = DOUBLE ("red-k2", "Red k2", "Added to k2 for the red "
        "channel (hmd, RGB formats)", -MAX_COEFF, MAX_COEFF, DEFAULT_K,
        red_k2),
    [PROP_RED_SCALE - 1] = DOUBLE ("red-scale", "Red scale", "Multiplies "
        "scale for the red channel, as a VR runtime's per-colour aberration "
        "scale (hmd, RGB formats)", 0.5, 2.0, DEFAULT_SCALE, red_scale),
    [PROP_BLUE_K1 - 1] = DOUBLE ("blue-k1", "Blue k1", "Added to k1 for the "
        "blue channel (hmd, RGB formats)", -MAX_COEFF, MAX_COEFF, DEFAULT_K,
        blue_k1),
    [PROP_BLUE_K2 - 1] = DOUBLE ("blue-k2", "Blue k2", "Added to k2 for the "
        "blue channel (hmd, RGB formats)", -MAX_COEFF, MAX_COEFF, DEFAULT_K,
        blue_k2),
    [PROP_BLUE_SCALE - 1] = DOUBLE ("blue-scale", "Blue scale", "Multiplies "
        "scale for the blue channel (hmd, RGB formats)", 0.5, 2.0,
        DEFAULT_SCALE, blue_scale),
  };

  GST_CO_BASE_FILTER_CLASS_INSTALL (fc, GstCudaLensDistort, set, settings);
  fc->setting_changed = gst_cuda_lens_distort_setting_changed;
  G_OBJECT_CLASS (klass)->finalize = gst_cuda_lens_distort_finalize;

  gst_co_base_filter_class_set_details (fc, "CUDA lens distortion",
      "Filter/Effect/Video",
      "Lens (pre)distortion and camera undistortion by compressed LUT "
      "backward mapping on CUDA or the CPU", FORMATS, CO_REMAP_MAX_SIZE);

  /* the input's size unless downstream asks for another: the output is
   * then the corrected image at that size */
  fc->mode = GST_CO_FILTER_RESIZE;
  bc->start = GST_DEBUG_FUNCPTR (gst_cuda_lens_distort_start);
  rc->prepare = GST_DEBUG_FUNCPTR (gst_cuda_lens_distort_prepare);
  rc->build_lut = GST_DEBUG_FUNCPTR (gst_cuda_lens_distort_build_lut);
  fc->get_output_size =
      GST_DEBUG_FUNCPTR (gst_cuda_lens_distort_get_output_size);
  rc->remap = GST_DEBUG_FUNCPTR (gst_cuda_lens_distort_remap);
}

/* the table's defaults are the pspecs' (set by the base) */
static void
gst_cuda_lens_distort_init (GstCudaLensDistort * self)
{
}
