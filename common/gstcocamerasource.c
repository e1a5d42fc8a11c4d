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
  g_free (src->bad_path);
  memset (src, 0, sizeof (*src));
}

static gboolean
same_file (const GstCoCameraSource * src, const GstCoCameraFile * f)
{
  return src->have && f->gen == src->gen && !g_strcmp0 (f->path, src->path)
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
    g_clear_pointer (&src->bad_path, g_free);
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
  g_clear_pointer (&src->bad_path, g_free);
  src->calib = fresh;
  src->have = TRUE;
  g_free (src->path);
  g_free (src->camera);
  g_free (src->rect);
  src->path = g_strdup (f->path);
  src->camera = g_strdup (f->camera);
  src->rect = g_strdup (f->rect);
  src->gen = f->gen;
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
   * that failed asked for a fisheye may do for another model */
  if (!(f->gen == src->bad_gen && !g_strcmp0 (f->path, src->bad_path) &&
          (fisheye || !src->bad_fisheye)) &&
      !gst_co_camera_source_load_full (src, f, fisheye, &err)) {
    if (!keep) {
      g_propagate_error (error, err);
      return FALSE;
    }
    /* the message carries the file's name and the reason */
    GST_ELEMENT_WARNING (element, RESOURCE, OPEN_READ, ("Could not use the "
            "calibration, keeping the previous camera: %s", err->message),
        (NULL));
    g_clear_error (&err);
    g_free (src->bad_path);
    src->bad_path = g_strdup (f->path);
    src->bad_gen = f->gen;
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

void
gst_co_camera_source_settings (GstCoSetting rows[GST_CO_CAMERA_N_SETTINGS],
    gsize offset)
{
#define CAM(f) (offset + G_STRUCT_OFFSET (GstCoCameraSettings, f))
#define ROW(i, name, blurb, lo, hi, def, f) \
  rows[i] = (GstCoSetting) { g_param_spec_double (name, name, blurb, lo, hi, \
      def, GST_CO_PARAM_ANIM), CAM (f), GST_CO_SETTING_REBUILD, -1 }
  ROW (0, "fx", "Focal length in x, pixels; 0: the frame's width", 0, 1e6, 0,
      fx);
  ROW (1, "fy", "Focal length in y, pixels; 0: fx", 0, 1e6, 0, fy);
  ROW (2, "cx", "Principal point x, pixels; -1: the frame's centre", -1, 1e6,
      -1, cx);
  ROW (3, "cy", "Principal point y, pixels; -1: the frame's centre", -1, 1e6,
      -1, cy);
  ROW (4, "k1", "Radial distortion k1 (fisheye: theta^3)", -1000, 1000, 0,
      k1);
  ROW (5, "k2", "Radial distortion k2 (fisheye: theta^5)", -1000, 1000, 0,
      k2);
  ROW (6, "k3", "Radial distortion k3 (fisheye: theta^7)", -1000, 1000, 0,
      k3);
  ROW (7, "k4", "Fisheye distortion k4 (theta^9)", -1000, 1000, 0, k4);
  ROW (8, "p1", "Tangential distortion p1 (camera)", -1000, 1000, 0, p1);
  ROW (9, "p2", "Tangential distortion p2 (camera)", -1000, 1000, 0, p2);
#undef ROW
  rows[10] = (GstCoSetting) {
  g_param_spec_string ("calibration-file", "Calibration file",
        "OpenCV, ROS or Kalibr calibration (YAML or XML); it replaces "
        "fx..p2, and setting it again reads it again", NULL,
        GST_CO_PARAM_LIVE), CAM (calibration_file), GST_CO_SETTING_REBUILD,
        CAM (calibration_gen)};
  rows[11] = (GstCoSetting) {
  g_param_spec_string ("camera", "Camera",
        "Which camera of a stereo calibration file: left, right, camN",
        NULL, GST_CO_PARAM_LIVE), CAM (camera), GST_CO_SETTING_REBUILD,
        CAM (calibration_gen)};
#undef CAM
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
  }
}
