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

typedef struct
{
  gchar *calibration_file, *camera, *rectification_file;
  guint calibration_gen;        /* counts the sets of any of them */
  gchar *kernels_file;
  guint kernels_gen;            /* counts its sets */
} Settings;

struct _GstCudaCltCorrelatePad
{
  GstCoAggregatorPad parent;

  Settings set;                 /* properties, under the pad's object lock */
  GstCoCameraSource source;     /* streaming thread */
  GstCoCltSource kernels;       /* streaming thread */
};

G_DEFINE_TYPE (GstCudaCltCorrelatePad, gst_cuda_clt_correlate_pad,
    GST_TYPE_CO_AGGREGATOR_PAD);

static void
gst_cuda_clt_correlate_pad_finalize (GObject * object)
{
  GstCudaCltCorrelatePad *pad = GST_CUDA_CLT_CORRELATE_PAD (object);

  gst_co_settings_finalize (object);
  gst_co_camera_source_clear (&pad->source);
  gst_co_clt_source_clear (&pad->kernels);
  G_OBJECT_CLASS (gst_cuda_clt_correlate_pad_parent_class)->finalize (object);
}

/* a file set again is read again (it may have been edited), and the
 * element rebuilds */
#define FILE_ROW(name, nick, blurb, field, gen) GST_CO_ROW_FILE (name, nick, \
    blurb, G_STRUCT_OFFSET (Settings, field), GST_CO_SETTING_REBUILD, \
    G_STRUCT_OFFSET (Settings, gen))

static void
gst_cuda_clt_correlate_pad_class_init (GstCudaCltCorrelatePadClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  const GstCoSetting settings[] = {
    /**
     * GstCudaCltCorrelatePad:calibration-file:
     *
     * This input's camera: an OpenCV FileStorage (YAML/XML), ROS
     * camera_info, Kalibr camchain or JSON file, as cudalensdistort reads.  For
     * a rig, each camera's rectified projection P: its fourth column
     * places the camera in the rig.
     */
    [PROP_CALIBRATION_FILE - 1] =
        FILE_ROW ("calibration-file", "Calibration file", "This input's "
        "camera calibration (OpenCV YAML/XML, ROS camera_info, Kalibr "
        "camchain, JSON)", calibration_file, calibration_gen),
    /**
     * GstCudaCltCorrelatePad:camera:
     *
     * Which camera of a file that holds several: "left" (the first),
     * "right", or Kalibr's "camN".
     */
    [PROP_CAMERA - 1] = FILE_ROW ("camera", "Camera", "Which camera of "
        "the calibration file (left, right, camN)", camera, calibration_gen),
    /**
     * GstCudaCltCorrelatePad:rectification-file:
     *
     * The rectification (R1 P1 / R2 P2) when it is a file of its own, as
     * OpenCV's stereo_calib sample writes extrinsics.yml.
     */
    [PROP_RECTIFICATION_FILE - 1] =
        FILE_ROW ("rectification-file", "Rectification file", "The "
        "rectification of this camera when apart from its calibration "
        "(OpenCV extrinsics.yml)", rectification_file, calibration_gen),
    /**
     * GstCudaCltCorrelatePad:kernels-file:
     *
     * This camera's lens as the tile processor corrects it: a kernel file
     * (`co-clt-kernels`, the format cudaaberration reads) for an element
     * that works its raw Bayer frames in the transform domain.
     */
    [PROP_KERNELS_FILE - 1] =
        FILE_ROW ("kernels-file", "Kernels file", "This camera's "
        "aberration kernels (CO-CLTK, as cudaaberration reads) for the tile "
        "processor's colour path", kernels_file, kernels_gen),
  };

  oc->finalize = gst_cuda_clt_correlate_pad_finalize;
  GST_CO_AGGREGATOR_PAD_CLASS_INSTALL (GST_CO_AGGREGATOR_PAD_CLASS (klass),
      GstCudaCltCorrelatePad, set, settings);
}

static void
gst_cuda_clt_correlate_pad_init (GstCudaCltCorrelatePad * pad)
{
  gst_co_settings_init_instance (G_OBJECT (pad));
}

gboolean
gst_cuda_clt_correlate_pad_camera (GstCudaCltCorrelatePad * pad,
    GstElement * element, gboolean keep, CoCamera * cam, GError ** error)
{
  const GstVideoInfo *info = &pad->parent.in.info;
  GstCoCameraFile file;
  gboolean ok;

  GST_OBJECT_LOCK (pad);
  if (!pad->set.calibration_file || !*pad->set.calibration_file) {
    GST_OBJECT_UNLOCK (pad);
    return FALSE;
  }
  file.path = g_strdup (pad->set.calibration_file);
  file.camera = g_strdup (pad->set.camera);
  file.rect = g_strdup (pad->set.rectification_file);
  file.gen = pad->set.calibration_gen;
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
  path = g_strdup (pad->set.kernels_file);
  gen = pad->set.kernels_gen;
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
