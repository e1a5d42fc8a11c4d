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
#include "gstcobasefilter.h"

G_BEGIN_DECLS

typedef struct
{
  /*< private >*/
  gboolean have;                /* calib holds a usable file's camera */
  GstCoCalibration calib;
  gchar *path, *camera, *rect;  /* what it was read for */
  guint gen;
  gchar *bad_path;              /* the last setting that failed */
  guint bad_gen;
  gboolean bad_fisheye;         /* it was asked for a fisheye */
  gint warned_w, warned_h;      /* the size the aspect warning was for */
} GstCoCameraSource;

/* The camera settings the family shares (cudalensdistort's subset and
 * cudaaberration's): OpenCV's pinhole intrinsics and coefficients, or a
 * calibration file and which of its cameras. */
typedef struct
{
  gdouble fx, fy, cx, cy, k1, k2, k3, k4, p1, p2;
  gchar *calibration_file, *camera;
  guint calibration_gen;        /* counts the sets of either */
} GstCoCameraSettings;

#define GST_CO_CAMERA_N_SETTINGS 12

/* The settings-table rows of GstCoCameraSettings at @offset in an
 * element's settings struct, in the order fx fy cx cy k1 k2 k3 k4 p1 p2
 * calibration-file camera; every change rebuilds. */
void gst_co_camera_source_settings (GstCoSetting rows[GST_CO_CAMERA_N_SETTINGS],
    gsize offset);
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
