/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CO_CALIBRATION_H__
#define __GST_CO_CALIBRATION_H__
#include <glib.h>
G_BEGIN_DECLS
typedef struct {
  gdouble fx, fy, cx, cy;          /* camera_matrix [fx 0 cx; 0 fy cy; 0 0 1] */
  gdouble k1, k2, p1, p2, k3;      /* OpenCV order: k1 k2 p1 p2 [k3] */
  gint image_width, image_height;  /* 0 when the file does not give them */
} GstCoCalibration;
#define GST_CO_CALIBRATION_ERROR (gst_co_calibration_error_quark ())
typedef enum { GST_CO_CALIBRATION_ERROR_READ, GST_CO_CALIBRATION_ERROR_PARSE, GST_CO_CALIBRATION_ERROR_UNSUPPORTED } GstCoCalibrationError;
GQuark gst_co_calibration_error_quark (void);
gboolean gst_co_calibration_load (const gchar * path, GstCoCalibration * calib, GError ** error);
gboolean gst_co_calibration_parse (const gchar * text, gsize len, GstCoCalibration * calib, GError ** error);
G_END_DECLS
#endif
