/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CUDA_SH_CENTROID_H__
#define __GST_CUDA_SH_CENTROID_H__

#include "gstcobasefilter.h"
#include "gstcofilesetting.h"
#include "shcentroid_math.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_SH_CENTROID (gst_cuda_sh_centroid_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaShCentroid, gst_cuda_sh_centroid, GST,
    CUDA_SH_CENTROID, GstCoBaseFilter)

/* The properties, copied under the object lock. */
typedef struct
{
  gdouble pitch, origin_x, origin_y;
  gint lenslets_x, lenslets_y;  /* 0: as many as fit */
  gdouble pupil_diameter, central_obstruction;  /* lenslets */
  CoShMethod method;
  gdouble threshold;
  gboolean threshold_relative;
  gint window_margin;
  gdouble gamma;
  gint brightest;
  gdouble pixel_size;           /* micrometres */
  gdouble focal_length;         /* millimetres */
  guint message_interval;       /* frames; 0: none */
  gboolean overlay;
  gdouble overlay_scale;        /* slope lines: times the slope */
  gint reference_frames;
  gchar *mask_file, *reference_file, *lut_file;
  guint mask_gen, reference_gen, lut_gen;       /* count their sets */
} GstCoShSettings;

struct _GstCudaShCentroid
{
  GstCoBaseFilter parent;

  GstCoShSettings set;          /* under the object lock */
  gint capture_request;         /* under the object lock: frames to average */
  GstCoShSettings snap;         /* the frame's (no file names) */

  /* the files as read and checked (rebuild) */
  GstCoFileSetting mask_fs, ref_fs, lut_fs;
  guint8 *mask_px;
  gint mask_w, mask_h;
  gdouble *file_ref_x, *file_ref_y;
  gint file_ref_n;
  gchar *ref_path;
  gfloat *file_lut;
  gint file_lut_levels;
  gboolean built;               /* a grid since start: bad files then warn */

  /* the grid for the negotiated size, and where its lenslets are */
  gint width, height;
  gdouble pitch, origin_x, origin_y;
  gint32 *bx, *by;
  guint8 *measure, *why;        /* per lenslet: measured; else its flags */
  gfloat *lut;                  /* gamma's weights, or NULL */
  CoShGrid grid;
  /* the frame's results: one block of memory per frame
   * (gst_co_base_filter_alloc_results; pinned and written by the device on
   * the CUDA backend) handed to the buffer's results without a copy; cx ..
   * sy point into it while it is mapped, from process to finish */
  GstMemory *results;
  GstMapInfo results_map;
  gfloat *cx, *cy, *m00, *sx, *sy;
  guint8 *flags;
  gdouble *ref_x, *ref_y;
  gboolean ref_changed;         /* the device's copy is stale */
  /* CUDA: the grid, the references and the results in one device block */
  guint8 *dev;
  CoShGrid dgrid;
  CoShResult dres;
  const guint8 *dwhy;
  gdouble *dref_x, *dref_y;
  gchar *reference_source;      /* "centres", a file, or "captured" */
  /* capture-reference: sums over the frames still to come */
  gint capture_left, capture_total;
  gdouble *cap_x, *cap_y;
  gint *cap_n;
  guint64 frames;
};

gboolean gst_cuda_sh_centroid_register (GstPlugin * plugin);

G_END_DECLS
#endif
