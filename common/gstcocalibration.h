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
#define GST_CO_CALIBRATION_MAX_COEFF 1000.0   /* |k1| .. |k3|, |p1| |p2| */
#define GST_CO_CALIBRATION_MAX_SIZE 65536     /* image_width, image_height */

/* A calibration is the camera model of kernels/co_camera.h: model
 * CO_CAMERA_PINHOLE, K from camera_matrix, dist from
 * distortion_coefficients (OpenCV's order; zero past what the file gives,
 * and every coefficient past k3 zero, or the file is refused), R the
 * identity and P = [K | 0]; image_width/image_height 0 when the file does
 * not give them. */
typedef CoCamera GstCoCalibration;

#define GST_CO_CALIBRATION_ERROR (gst_co_calibration_error_quark ())

typedef enum
{
  GST_CO_CALIBRATION_ERROR_READ,
  GST_CO_CALIBRATION_ERROR_PARSE,
  GST_CO_CALIBRATION_ERROR_UNSUPPORTED,
} GstCoCalibrationError;

GQuark gst_co_calibration_error_quark (void);

gboolean gst_co_calibration_load (const gchar * path,
    GstCoCalibration * calib, GError ** error);
gboolean gst_co_calibration_parse (const gchar * text, gsize len,
    GstCoCalibration * calib, GError ** error);

G_END_DECLS

#endif /* __GST_CO_CALIBRATION_H__ */
