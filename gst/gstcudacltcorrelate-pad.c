/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCudaCltCorrelatePad: one camera of cudacltcorrelate's rig
 * (gstcudacltcorrelate-pad.h).
 */
#include "gstcocompat.h"
#include "gstcudacltcorrelate-pad.h"
#include <string.h>

enum
{
  PROP_0,
  PROP_CALIBRATION_FILE,
  PROP_CAMERA,
  PROP_RECTIFICATION_FILE,
  PROP_KERNELS_FILE,
};

struct _GstCudaCltCorrelatePad
{
  GstCoAggregatorPad parent;

  /* properties, under the pad's object lock */
  gchar *calibration_file, *camera, *rectification_file;
  guint calibration_gen;        /* counts the sets of any of them */
  gchar *kernels_file;
  guint kernels_gen;            /* counts its sets */
  GstCoCameraSource source;     /* streaming thread */
  GstCoCltSource kernels;       /* streaming thread */
};

G_DEFINE_TYPE (GstCudaCltCorrelatePad, gst_cuda_clt_correlate_pad,
    GST_TYPE_CO_AGGREGATOR_PAD);

static gchar **
field_of (GstCudaCltCorrelatePad * pad, guint prop_id)
{
  switch (prop_id) {
    case PROP_CALIBRATION_FILE:
      return &pad->calibration_file;
    case PROP_CAMERA:
      return &pad->camera;
    case PROP_RECTIFICATION_FILE:
      return &pad->rectification_file;
    case PROP_KERNELS_FILE:
      return &pad->kernels_file;
    default:
      return NULL;
  }
}

static void
gst_cuda_clt_correlate_pad_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaCltCorrelatePad *pad = GST_CUDA_CLT_CORRELATE_PAD (object);
  gchar **field = field_of (pad, prop_id);
  GstObject *parent;

  if (!field) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  GST_OBJECT_LOCK (pad);
  g_free (*field);
  *field = g_value_dup_string (value);
  /* a file set again is read again: it may have been edited */
  if (prop_id == PROP_KERNELS_FILE)
    pad->kernels_gen++;
  else
    pad->calibration_gen++;
  GST_OBJECT_UNLOCK (pad);

  /* the pad's lock is not held with the element's */
  parent = gst_object_get_parent (GST_OBJECT (pad));
  if (parent && GST_IS_CO_BASE_AGGREGATOR (parent)) {
    GST_OBJECT_LOCK (parent);
    gst_co_base_aggregator_mark_dirty (GST_CO_BASE_AGGREGATOR (parent));
    GST_OBJECT_UNLOCK (parent);
  }
  if (parent)
    gst_object_unref (parent);
}

static void
gst_cuda_clt_correlate_pad_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaCltCorrelatePad *pad = GST_CUDA_CLT_CORRELATE_PAD (object);
  gchar **field = field_of (pad, prop_id);

  if (!field) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  GST_OBJECT_LOCK (pad);
  g_value_set_string (value, *field);
  GST_OBJECT_UNLOCK (pad);
}

static void
gst_cuda_clt_correlate_pad_finalize (GObject * object)
{
  GstCudaCltCorrelatePad *pad = GST_CUDA_CLT_CORRELATE_PAD (object);

  g_free (pad->calibration_file);
  g_free (pad->camera);
  g_free (pad->rectification_file);
  g_free (pad->kernels_file);
  gst_co_camera_source_clear (&pad->source);
  gst_co_clt_source_clear (&pad->kernels);
  G_OBJECT_CLASS (gst_cuda_clt_correlate_pad_parent_class)->finalize (object);
}

static void
gst_cuda_clt_correlate_pad_class_init (GstCudaCltCorrelatePadClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);

  oc->set_property = gst_cuda_clt_correlate_pad_set_property;
  oc->get_property = gst_cuda_clt_correlate_pad_get_property;
  oc->finalize = gst_cuda_clt_correlate_pad_finalize;

  /**
   * GstCudaCltCorrelatePad:calibration-file:
   *
   * This input's camera: an OpenCV FileStorage (YAML/XML), ROS
   * camera_info or Kalibr camchain file, as cudalensdistort reads.  For a
   * rig, each camera's rectified projection P: its fourth column places
   * the camera in the rig.
   */
  g_object_class_install_property (oc, PROP_CALIBRATION_FILE,
      g_param_spec_string ("calibration-file", "Calibration file",
          "This input's camera calibration (OpenCV YAML/XML, ROS "
          "camera_info, Kalibr camchain)", NULL, GST_CO_PARAM_LIVE));
  /**
   * GstCudaCltCorrelatePad:camera:
   *
   * Which camera of a file that holds several: "left" (the first),
   * "right", or Kalibr's "camN".
   */
  g_object_class_install_property (oc, PROP_CAMERA,
      g_param_spec_string ("camera", "Camera",
          "Which camera of the calibration file (left, right, camN)", NULL,
          GST_CO_PARAM_LIVE));
  /**
   * GstCudaCltCorrelatePad:rectification-file:
   *
   * The rectification (R1 P1 / R2 P2) when it is a file of its own, as
   * OpenCV's stereo_calib sample writes extrinsics.yml.
   */
  g_object_class_install_property (oc, PROP_RECTIFICATION_FILE,
      g_param_spec_string ("rectification-file", "Rectification file",
          "The rectification of this camera when apart from its "
          "calibration (OpenCV extrinsics.yml)", NULL, GST_CO_PARAM_LIVE));
  /**
   * GstCudaCltCorrelatePad:kernels-file:
   *
   * This camera's lens as the tile processor corrects it: a kernel file
   * (`co-clt-kernels`, the format cudaaberration reads) for an element
   * that works its raw Bayer frames in the transform domain.
   */
  g_object_class_install_property (oc, PROP_KERNELS_FILE,
      g_param_spec_string ("kernels-file", "Kernels file",
          "This camera's aberration kernels (CO-CLTK, as cudaaberration "
          "reads) for the tile processor's colour path", NULL,
          GST_CO_PARAM_LIVE));
}

static void
gst_cuda_clt_correlate_pad_init (GstCudaCltCorrelatePad * pad)
{
}

gboolean
gst_cuda_clt_correlate_pad_camera (GstCudaCltCorrelatePad * pad,
    GstElement * element, gboolean keep, CoCamera * cam, GError ** error)
{
  const GstVideoInfo *info = &pad->parent.in.info;
  GstCoCameraFile file;
  gboolean ok;

  GST_OBJECT_LOCK (pad);
  if (!pad->calibration_file || !*pad->calibration_file) {
    GST_OBJECT_UNLOCK (pad);
    return FALSE;
  }
  file.path = g_strdup (pad->calibration_file);
  file.camera = g_strdup (pad->camera);
  file.rect = g_strdup (pad->rectification_file);
  file.gen = pad->calibration_gen;
  GST_OBJECT_UNLOCK (pad);

  ok = gst_co_camera_source_get (&pad->source, element, &file,
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      keep, cam, error);
  g_free ((gchar *) file.path);
  g_free ((gchar *) file.camera);
  g_free ((gchar *) file.rect);
  return ok;
}

gboolean
gst_cuda_clt_correlate_pad_kernels (GstCudaCltCorrelatePad * pad,
    GstElement * element, gboolean keep, GstCoCltGrid * grid,
    GError ** error)
{
  const GstVideoInfo *info = &pad->parent.in.info;
  gchar *path;
  guint gen;
  gboolean ok;

  memset (grid, 0, sizeof (*grid));
  GST_OBJECT_LOCK (pad);
  path = g_strdup (pad->kernels_file);
  gen = pad->kernels_gen;
  GST_OBJECT_UNLOCK (pad);
  ok = gst_co_clt_source_update (&pad->kernels, element, path, gen,
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), keep,
      error) && gst_co_clt_source_has_file (&pad->kernels) &&
      gst_co_clt_source_grid (&pad->kernels, element, 0.0,
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      grid, error);
  g_free (path);
  return ok;
}
