/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CUDA_ABERRATION_H__
#define __GST_CUDA_ABERRATION_H__

#include "gstcobasefilter.h"
#include "gstcocamerasource.h"
#include "gstcocltkernels.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_ABERRATION (gst_cuda_aberration_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaAberration, gst_cuda_aberration, GST,
    CUDA_ABERRATION, GstCoBaseFilter)

typedef enum
{
  GST_CO_ABERRATION_MODEL_NONE = 0,
  GST_CO_ABERRATION_MODEL_CAMERA = 1,
  GST_CO_ABERRATION_MODEL_FISHEYE = 2,
} GstCoAberrationModel;

/* The properties, copied under the object lock. */
typedef struct
{
  gchar *kernels_file;
  guint kernels_gen;            /* bumped by every set: a re-read */
  gdouble lpf_sigma;
  CoBayer bayer;                /* of GRAY16_LE input */
  gint bit_depth;               /* 0: the sample size's */
  GstCoAberrationModel model;
  GstCoCameraSettings cam;      /* the family's camera settings */
  gint roi_x, roi_y, roi_width, roi_height;
} GstCoAberrationSettings;

struct _GstCudaAberration
{
  GstCoBaseFilter parent;

  GstCoAberrationSettings set;  /* the settings table's, object lock */

  /* streaming thread: what rebuild made */
  GstCoCltKernels kernels;      /* the file in use; nodes NULL: built in */
  gchar *kernels_path;          /* and what it was read for */
  guint kernels_gen;
  gchar *bad_path;              /* the last kernels file that failed */
  guint bad_gen;
  gint warned_w, warned_h;      /* the size warned of for these kernels */
  GstCoCameraSource camsrc;     /* the calibration file in use */
  gboolean built;               /* once since start: a bad file then warns */
  CoBayer bayer;                /* of GRAY16_LE input */
  gint grid_w, grid_h, stride, colours;
  gfloat scale;                 /* raw sample to 1 = full scale */
  gint roi[4];                  /* x, y, width, height within the frame */
  /* backend memory */
  gpointer nodes, dx, dy, clt[3], planes[3];
  gsize nodes_size, dx_size, dy_size, clt_size[3], planes_size[3];
};

gboolean gst_cuda_aberration_register (GstPlugin * plugin);

G_END_DECLS
#endif
