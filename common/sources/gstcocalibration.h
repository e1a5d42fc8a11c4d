/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CO_CALIBRATION_H__
#define __GST_CO_CALIBRATION_H__

#include <glib.h>
#include "co_camera.h"

G_BEGIN_DECLS

/* What a calibration may hold: the same ranges as cudalensdistort's
 * properties, so a file cannot set what a property could not. */
#define GST_CO_CALIBRATION_MAX_PIXELS 1.0e6   /* fx fy cx cy, in pixels */
#define GST_CO_CALIBRATION_MIN_FOCAL 1.0      /* below: > 90 degrees a pixel */
#define GST_CO_CALIBRATION_MAX_COEFF 1000.0   /* every coefficient */
/* a larger file is refused before it is parsed: calibrations are small */
#define GST_CO_CALIBRATION_MAX_FILE_SIZE (1024 * 1024)
#define GST_CO_CALIBRATION_MAX_SIZE 65536     /* image_width, image_height */

/* A calibration is the camera model of kernels/co_camera.h, read from
 * OpenCV FileStorage YAML/XML, ROS camera_info YAML, a Kalibr camchain or
 * JSON with the same names (any matrix flat or a list of rows): the model
 * (pinhole, or fisheye where the file says so), K, the distortion vector
 * in OpenCV's order (fisheye: k1..k4 in the K1 K2 K3 K4 slots), R and P
 * where the file gives them (else the identity and [K | 0]);
 * image_width/image_height 0 when the file does not give them.
 * @camera picks one of several: NULL, "" or "left" the first, "right" the
 * second, "camN" Kalibr's camN (a stereo FileStorage's M1 D1 R1 P1 are
 * left, M2 D2 R2 P2 right). */
typedef CoCamera GstCoCalibration;

#define GST_CO_CALIBRATION_ERROR (gst_co_calibration_error_quark ())

typedef enum
{
  GST_CO_CALIBRATION_ERROR_READ,
  GST_CO_CALIBRATION_ERROR_PARSE,
  GST_CO_CALIBRATION_ERROR_UNSUPPORTED,
} GstCoCalibrationError;

GQuark gst_co_calibration_error_quark (void);

gboolean gst_co_calibration_load (const gchar * path, const gchar * camera,
    GstCoCalibration * calib, GError ** error);
gboolean gst_co_calibration_parse (const gchar * text, gsize len,
    const gchar * camera, GstCoCalibration * calib, GError ** error);
/* The rectification of @calib's camera from a second file: OpenCV's
 * stereo_calib sample writes intrinsics.yml (M1 D1 M2 D2) and
 * extrinsics.yml (R T R1 R2 P1 P2 Q) apart.  R and P of @camera (R1 P1
 * left, R2 P2 right; or a camera_info's rectification_matrix and
 * projection_matrix) replace @calib's; a file with neither is an error. */
gboolean gst_co_calibration_load_rectification (const gchar * path,
    const gchar * camera, GstCoCalibration * calib, GError ** error);
gboolean gst_co_calibration_parse_rectification (const gchar * text,
    gsize len, const gchar * camera, GstCoCalibration * calib,
    GError ** error);

/* @calib as the camera of a w x h stream.  A file calibrated at another
 * resolution is scaled as intrinsics scale: K, and P's first two rows
 * (pixel centres on integers).  Returns FALSE when the two axes scale by
 * factors more than 1% apart (another aspect ratio: the caller warns);
 * *sx and *sy say by how much. */
gboolean gst_co_calibration_for_size (const GstCoCalibration * calib,
    int w, int h, CoCamera * cam, double *sx, double *sy);

G_END_DECLS

#endif /* __GST_CO_CALIBRATION_H__ */
