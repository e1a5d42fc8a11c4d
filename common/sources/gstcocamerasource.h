/* cudaoptics — LGPL-2.1-or-later
 *
 * The one camera source of the family: the calibration file an element
 * (cudalensdistort, cudaaberration) is given, read once per setting and
 * cached, with the memory of the last file that could not be used.  A
 * file set again is read again (it may have been edited); a file that
 * cannot be used while frames flow is one warning on the bus, naming it
 * and the reason, and the last usable calibration stays; before any
 * calibration was usable it is an error for the caller to post.
 */
#ifndef __GST_CO_CAMERA_SOURCE_H__
#define __GST_CO_CAMERA_SOURCE_H__

#include <gst/gst.h>
#include "gstcocalibration.h"
#include "gstcofilesetting.h"
#include "gstcosettings.h"

G_BEGIN_DECLS

typedef struct
{
  /*< private >*/
  gboolean have;                /* calib holds a usable file's camera */
  GstCoCalibration calib;
  gchar *path, *camera, *rect;  /* what it was read for */
  GstCoFileSetting fs;          /* which setting was read, which failed */
  gboolean bad_fisheye;         /* the failed one was asked for a fisheye */
  gint warned_w, warned_h;      /* the size the aspect warning was for */
} GstCoCameraSource;

/* The camera settings the family shares: OpenCV's camera model
 * (kernels/co_camera.h; pinhole, rational, thin prism and tilt, or the
 * fisheye's k1..k4), or a calibration file, which of its cameras and a
 * rectification file.  An element has the properties of the rows it
 * installs; the others stay 0 (NULL). */
typedef struct
{
  gdouble fx, fy, cx, cy, k1, k2, k3, k4, k5, k6, p1, p2;
  gdouble s1, s2, s3, s4, tau_x, tau_y;
  gchar *calibration_file, *camera, *rectification_file;
  guint calibration_gen;        /* counts the sets of any of the files */
} GstCoCameraSettings;

/* The rows of GstCoCameraSettings: the family's one declaration of each
 * camera property (name, range, default, blurb); every change rebuilds. */
typedef enum
{
  GST_CO_CAMERA_FX, GST_CO_CAMERA_FY, GST_CO_CAMERA_CX, GST_CO_CAMERA_CY,
  GST_CO_CAMERA_K1, GST_CO_CAMERA_K2, GST_CO_CAMERA_K3, GST_CO_CAMERA_K4,
  GST_CO_CAMERA_K5, GST_CO_CAMERA_K6, GST_CO_CAMERA_P1, GST_CO_CAMERA_P2,
  GST_CO_CAMERA_S1, GST_CO_CAMERA_S2, GST_CO_CAMERA_S3, GST_CO_CAMERA_S4,
  GST_CO_CAMERA_TAU_X, GST_CO_CAMERA_TAU_Y,
  /* the strings: every set counts in calibration_gen */
  GST_CO_CAMERA_CALIBRATION_FILE, GST_CO_CAMERA_CAMERA,
  GST_CO_CAMERA_RECTIFICATION_FILE,
} GstCoCameraRow;

/* The settings-table row @row of the GstCoCameraSettings at @offset in an
 * element's settings struct. */
GstCoSetting gst_co_camera_setting (GstCoCameraRow row, gsize offset);
/* In a table tied to an element's PROP_ ids, named as the rows are:
 * GST_CO_CAMERA_ROW (FX, offset) is [PROP_FX - 1] = its row. */
#define GST_CO_CAMERA_ROW(row, offset) \
  [PROP_##row - 1] = gst_co_camera_setting (GST_CO_CAMERA_##row, offset)
/* @s's camera for a w x h frame from its properties: 0 focal lengths and
 * -1 principal points are the frame's; fisheye takes k1..k4 only. */
void gst_co_camera_from_settings (const GstCoCameraSettings * s, int w,
    int h, gboolean fisheye, CoCamera * cam);

/* A setting: the file, its camera, the rectification file, and a counter
 * the element bumps on every set of any of them. */
typedef struct
{
  const gchar *path, *camera, *rect;
  guint gen;
} GstCoCameraFile;

/* The camera of @file for a w x h stream into @cam.  A file that cannot
 * be used: with @keep (frames flowed), a warning on @element's bus, once
 * per setting, and the last usable camera; without, FALSE with @error for
 * the caller to post.  FALSE (@error set) also when no file was ever
 * usable: the caller falls back on its own camera. */
gboolean gst_co_camera_source_get (GstCoCameraSource * src,
    GstElement * element, const GstCoCameraFile * file, int w, int h,
    gboolean keep, CoCamera * cam, GError ** error);
/* Reads @file now (at start): FALSE with @error when it cannot be used. */
gboolean gst_co_camera_source_load (GstCoCameraSource * src,
    const GstCoCameraFile * file, GError ** error);
/* The same two for an element asked for a fisheye (@fisheye): a pinhole
 * file is then one that cannot be used, since its model winning would give
 * another model's picture in silence. */
gboolean gst_co_camera_source_get_full (GstCoCameraSource * src,
    GstElement * element, const GstCoCameraFile * file, gboolean fisheye,
    int w, int h, gboolean keep, CoCamera * cam, GError ** error);
gboolean gst_co_camera_source_load_full (GstCoCameraSource * src,
    const GstCoCameraFile * file, gboolean fisheye, GError ** error);
/* Forgets everything: the next get reads the file again. */
void gst_co_camera_source_clear (GstCoCameraSource * src);

G_END_DECLS
#endif
