/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CUDA_FOVEATE_H__
#define __GST_CUDA_FOVEATE_H__

#include "gstcobasefilter.h"
#include "foveate_math.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_FOVEATE (gst_cuda_foveate_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaFoveate, gst_cuda_foveate, GST, CUDA_FOVEATE,
    GstCoBaseFilter)

/* The properties, copied under the object lock. */
typedef struct
{
  gdouble fixation_x, fixation_y;       /* 0..1 of the frame */
  gboolean follow_pointer;
  gint fragment;
  CoFoveaModel model;
  GstClockTime gaze_time;       /* when the fixation arrived (clock time) */
  gboolean show_map;
  gchar *blur_map;
  guint blur_map_gen;           /* counts its sets: read again */
} GstCoFoveaSettings;

struct _GstCudaFoveate
{
  GstCoBaseFilter parent;

  GstCoFoveaSettings set;       /* the settings table's, object lock */
  GstCoFoveaSettings snap;      /* of the last rebuild: the frame's */
  CoFovea fovea;                /* its blur, table pointers on the backend */
  gpointer table;               /* backend memory: offsets then taps */
  gsize table_size;

  gboolean built;               /* once since start: a bad map then warns */
  gchar *map_path;              /* the map loaded into map_mem */
  guint map_gen, bad_map_gen;   /* the setting loaded, and one that failed */
  gpointer map_mem;             /* backend memory */
  gsize map_size;
  gint map_w, map_h;
};

gboolean gst_cuda_foveate_register (GstPlugin * plugin);

G_END_DECLS
#endif
