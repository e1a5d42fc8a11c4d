/* cudaoptics — LGPL-2.1-or-later */
#include "gstcocamerasource.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_co_camera_source_debug);
#define GST_CAT_DEFAULT gst_co_camera_source_debug

static void
init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_co_camera_source_debug, "cocamerasource", 0,
        "cudaoptics calibration files");
    g_once_init_leave (&once, 1);
  }
}

void
gst_co_camera_source_clear (GstCoCameraSource * src)
{
  g_free (src->path);
  g_free (src->camera);
  g_free (src->rect);
  memset (src, 0, sizeof (*src));
}

static gboolean
same_file (const GstCoCameraSource * src, const GstCoCameraFile * f)
{
  return src->have && f->gen == src->fs.loaded_gen &&
      !g_strcmp0 (f->path, src->path)
      && !g_strcmp0 (f->camera, src->camera) && !g_strcmp0 (f->rect,
      src->rect);
}

/* A pinhole calibration where a fisheye was asked for: the error names
 * the file and what makes one a fisheye. */
static gboolean
model_ok (const GstCoCameraFile * f, const GstCoCalibration * c,
    gboolean fisheye, GError ** error)
{
  gchar *name;

  if (!fisheye || c->model == CO_CAMERA_FISHEYE)
    return TRUE;
  name = g_filename_display_name (f->path);
  g_set_error (error, GST_CO_CALIBRATION_ERROR,
      GST_CO_CALIBRATION_ERROR_UNSUPPORTED, "%s holds a pinhole calibration, "
      "and model=fisheye needs a fisheye one (a file says so with "
      "fisheye_model: 1 or distortion_model: equidistant); model=camera "
      "takes this file", name);
  g_free (name);
  return FALSE;
}

gboolean
gst_co_camera_source_load_full (GstCoCameraSource * src,
    const GstCoCameraFile * f, gboolean fisheye, GError ** error)
{
  GstCoCalibration fresh;

  init_debug ();
  if (same_file (src, f)) {
    /* the model may have changed since: the file in use may not do */
    if (!model_ok (f, &src->calib, fisheye, error))
      return FALSE;
    /* fine for this model: asked for a fisheye once more, a pinhole file
     * is warned about again */
    gst_co_file_setting_forget_failure (&src->fs);
    return TRUE;
  }
  if (!gst_co_calibration_load (f->path, f->camera, &fresh, error))
    return FALSE;
  if (f->rect && *f->rect && !gst_co_calibration_load_rectification (f->rect,
          f->camera, &fresh, error)) {
    g_prefix_error (error, "rectification file ");
    return FALSE;
  }
  if (!model_ok (f, &fresh, fisheye, error))
    return FALSE;
  gst_co_file_setting_forget_failure (&src->fs);
  src->calib = fresh;
  src->have = TRUE;
  g_free (src->path);
  g_free (src->camera);
  g_free (src->rect);
  src->path = g_strdup (f->path);
  src->camera = g_strdup (f->camera);
  src->rect = g_strdup (f->rect);
  gst_co_file_setting_loaded (&src->fs, f->gen);
  src->warned_w = src->warned_h = 0;
  GST_INFO ("calibration %s (camera %s): %s, fx %g fy %g cx %g cy %g (%dx%d)",
      f->path, f->camera ? f->camera : "first",
      fresh.model == CO_CAMERA_FISHEYE ? "fisheye" : "pinhole", fresh.fx,
      fresh.fy, fresh.cx, fresh.cy, fresh.image_width, fresh.image_height);
  return TRUE;
}

gboolean
gst_co_camera_source_load (GstCoCameraSource * src,
    const GstCoCameraFile * f, GError ** error)
{
  return gst_co_camera_source_load_full (src, f, FALSE, error);
}

gboolean
gst_co_camera_source_get_full (GstCoCameraSource * src, GstElement * element,
    const GstCoCameraFile * f, gboolean fisheye, int w, int h, gboolean keep,
    CoCamera * cam, GError ** error)
{
  GError *err = NULL;
  double sx, sy;

  init_debug ();
  /* a setting that failed is not read again at every other change; one
   * that failed asked for a fisheye may do for another model: read (and
   * warned of) again */
  if (!fisheye && src->bad_fisheye)
    gst_co_file_setting_forget_failure (&src->fs);
  if (!gst_co_file_setting_has_failed (&src->fs, f->gen) &&
      !gst_co_camera_source_load_full (src, f, fisheye, &err)) {
    /* the message carries the file's name and the reason; it promises the
     * previous camera only where there is one */
    if (!gst_co_file_setting_fail (&src->fs, element, f->gen, keep,
            src->have ? "Could not use the calibration, keeping the "
            "previous camera" : "Could not use the calibration", &err)) {
      g_propagate_error (error, err);
      return FALSE;
    }
    src->bad_fisheye = fisheye;
  }
  if (!src->have) {
    g_set_error (error, GST_CO_CALIBRATION_ERROR,
        GST_CO_CALIBRATION_ERROR_READ, "no usable calibration");
    return FALSE;
  }
  if (!gst_co_calibration_for_size (&src->calib, w, h, cam, &sx, &sy) &&
      (src->warned_w != w || src->warned_h != h)) {
    /* messages are UTF-8, file names need not be */
    gchar *name = g_filename_display_name (src->path);
    GST_ELEMENT_WARNING (element, STREAM, FORMAT, ("Calibration %s was made "
            "at %dx%d; the stream is %dx%d, another aspect ratio: its "
            "intrinsics are scaled by %g x %g", name, src->calib.image_width,
            src->calib.image_height, w, h, sx, sy), (NULL));
    g_free (name);
    src->warned_w = w;
    src->warned_h = h;
  }
  return TRUE;
}

gboolean
gst_co_camera_source_get (GstCoCameraSource * src, GstElement * element,
    const GstCoCameraFile * f, int w, int h, gboolean keep, CoCamera * cam,
    GError ** error)
{
  return gst_co_camera_source_get_full (src, element, f, FALSE, w, h, keep,
      cam, error);
}

#define PIX GST_CO_CALIBRATION_MAX_PIXELS
#define COEFF GST_CO_CALIBRATION_MAX_COEFF
#define CAM(f) G_STRUCT_OFFSET (GstCoCameraSettings, f)
/* OpenCV's names; a fisheye's k1..k4 are those of
 * theta_d = theta (1 + k1 theta^2 + k2 theta^4 + k3 theta^6 + k4 theta^8) */
static const struct
{
  const gchar *name, *nick, *blurb;
  gdouble lo, hi, def;
  gsize offset;
} rows[] = {
  [GST_CO_CAMERA_FX] = {"fx", "fx", "Focal length in x, pixels (0: the "
        "frame's width)", 0, PIX, 0, CAM (fx)},
  [GST_CO_CAMERA_FY] = {"fy", "fy", "Focal length in y, pixels (0: fx)", 0,
      PIX, 0, CAM (fy)},
  [GST_CO_CAMERA_CX] = {"cx", "cx", "Principal point x, pixels (-1: the "
        "frame's centre)", -1, PIX, -1, CAM (cx)},
  [GST_CO_CAMERA_CY] = {"cy", "cy", "Principal point y, pixels (-1: the "
        "frame's centre)", -1, PIX, -1, CAM (cy)},
  [GST_CO_CAMERA_K1] = {"k1", "k1", "Radial coefficient of r^2 (fisheye: "
        "of theta^2)", -COEFF, COEFF, 0, CAM (k1)},
  [GST_CO_CAMERA_K2] = {"k2", "k2", "Radial coefficient of r^4 (fisheye: "
        "of theta^4)", -COEFF, COEFF, 0, CAM (k2)},
  [GST_CO_CAMERA_K3] = {"k3", "k3", "Radial coefficient of r^6 (fisheye: "
        "of theta^6)", -COEFF, COEFF, 0, CAM (k3)},
  [GST_CO_CAMERA_K4] = {"k4", "k4", "Rational denominator's coefficient of "
        "r^2 (fisheye: radial coefficient of theta^8)", -COEFF, COEFF, 0,
      CAM (k4)},
  [GST_CO_CAMERA_K5] = {"k5", "k5", "Rational denominator's coefficient of "
        "r^4 (camera)", -COEFF, COEFF, 0, CAM (k5)},
  [GST_CO_CAMERA_K6] = {"k6", "k6", "Rational denominator's coefficient of "
        "r^6 (camera)", -COEFF, COEFF, 0, CAM (k6)},
  [GST_CO_CAMERA_P1] = {"p1", "p1", "First tangential coefficient (camera)",
      -COEFF, COEFF, 0, CAM (p1)},
  [GST_CO_CAMERA_P2] = {"p2", "p2", "Second tangential coefficient "
        "(camera)", -COEFF, COEFF, 0, CAM (p2)},
  [GST_CO_CAMERA_S1] = {"s1", "s1", "Thin prism: x's coefficient of r^2 "
        "(camera)", -COEFF, COEFF, 0, CAM (s1)},
  [GST_CO_CAMERA_S2] = {"s2", "s2", "Thin prism: x's coefficient of r^4 "
        "(camera)", -COEFF, COEFF, 0, CAM (s2)},
  [GST_CO_CAMERA_S3] = {"s3", "s3", "Thin prism: y's coefficient of r^2 "
        "(camera)", -COEFF, COEFF, 0, CAM (s3)},
  [GST_CO_CAMERA_S4] = {"s4", "s4", "Thin prism: y's coefficient of r^4 "
        "(camera)", -COEFF, COEFF, 0, CAM (s4)},
  [GST_CO_CAMERA_TAU_X] = {"tau-x", "Tilt x", "Sensor tilt about x, "
        "radians (camera: OpenCV's tauX)", -G_PI / 4, G_PI / 4, 0,
      CAM (tau_x)},
  [GST_CO_CAMERA_TAU_Y] = {"tau-y", "Tilt y", "Sensor tilt about y, "
        "radians (camera: OpenCV's tauY)", -G_PI / 4, G_PI / 4, 0,
      CAM (tau_y)},
  [GST_CO_CAMERA_CALIBRATION_FILE] = {"calibration-file", "Calibration file",
        "A calibration: OpenCV FileStorage YAML or XML (one camera, "
        "fisheye, or a stereo pair's M1 D1 R1 P1 / M2 D2 R2 P2), ROS "
        "camera_info YAML, a Kalibr camchain, or JSON with the same names "
        "(any matrix flat or a list of rows); it replaces the camera "
        "properties and its model (pinhole or fisheye) wins over "
        "model=camera; setting it again reads it again", 0, 0, 0,
      CAM (calibration_file)},
  [GST_CO_CAMERA_CAMERA] = {"camera", "Camera", "Which camera of a "
        "calibration file that has several: left (the first; default), "
        "right, or camN (Kalibr)", 0, 0, 0, CAM (camera)},
  [GST_CO_CAMERA_RECTIFICATION_FILE] = {"rectification-file",
        "Rectification file", "R and P for the calibration-file's camera "
        "from a second file, as OpenCV's stereo_calib writes them apart "
        "(intrinsics.yml M1 D1 M2 D2, extrinsics.yml R1 P1 R2 P2; camera "
        "picks left or right); they replace the calibration file's own", 0,
      0, 0, CAM (rectification_file)},
};

GstCoSetting
gst_co_camera_setting (GstCoCameraRow row, gsize offset)
{
  GstCoSetting s = { NULL, offset + rows[row].offset, GST_CO_SETTING_REBUILD,
    -1
  };

  if (row >= GST_CO_CAMERA_CALIBRATION_FILE) {
    s.pspec = g_param_spec_string (rows[row].name, rows[row].nick,
        rows[row].blurb, NULL, GST_CO_PARAM_LIVE);
    s.gen = offset + CAM (calibration_gen);
  } else {
    s.pspec = g_param_spec_double (rows[row].name, rows[row].nick,
        rows[row].blurb, rows[row].lo, rows[row].hi, rows[row].def,
        GST_CO_PARAM_ANIM);
  }
  return s;
}

void
gst_co_camera_from_settings (const GstCoCameraSettings * s, int w, int h,
    gboolean fisheye, CoCamera * cam)
{
  co_camera_init_frame (cam, w, h, s->fx, s->fy, s->cx, s->cy);
  cam->dist[CO_DIST_K1] = s->k1;
  cam->dist[CO_DIST_K2] = s->k2;
  cam->dist[CO_DIST_K3] = s->k3;
  cam->dist[CO_DIST_K4] = s->k4;
  if (fisheye) {
    cam->model = CO_CAMERA_FISHEYE;
  } else {
    cam->dist[CO_DIST_P1] = s->p1;
    cam->dist[CO_DIST_P2] = s->p2;
    cam->dist[CO_DIST_K5] = s->k5;
    cam->dist[CO_DIST_K6] = s->k6;
    cam->dist[CO_DIST_S1] = s->s1;
    cam->dist[CO_DIST_S2] = s->s2;
    cam->dist[CO_DIST_S3] = s->s3;
    cam->dist[CO_DIST_S4] = s->s4;
    cam->dist[CO_DIST_TAUX] = s->tau_x;
    cam->dist[CO_DIST_TAUY] = s->tau_y;
  }
}
