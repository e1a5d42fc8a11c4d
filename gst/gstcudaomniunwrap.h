/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CUDA_OMNI_UNWRAP_H__
#define __GST_CUDA_OMNI_UNWRAP_H__

#include "gstcoremapfilter.h"
#include "omni_math.h"
#include "omni_mirror.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_OMNI_UNWRAP (gst_cuda_omni_unwrap_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaOmniUnwrap, gst_cuda_omni_unwrap, GST,
    CUDA_OMNI_UNWRAP, GstCoRemapFilter)

typedef enum
{
  GST_CO_OMNI_POLAR = 0,
  GST_CO_OMNI_CYLINDER = 1,
  GST_CO_OMNI_CUBOID = 2,
} GstCoOmniProjection;

typedef enum
{
  GST_CO_OMNI_COUNTERCLOCKWISE = 0,
  GST_CO_OMNI_CLOCKWISE = 1,
} GstCoOmniDirection;

/* The properties, copied under the object lock. */
typedef struct
{
  GstCoOmniProjection projection;
  gdouble center_x, center_y;   /* < 0: the frame's centre */
  gdouble inner_radius;
  gdouble outer_radius;         /* 0: half the frame's shorter side */
  gdouble start_angle;          /* degrees */
  GstCoOmniDirection direction;
  gdouble mirror_radius, mirror_distance, focal_length;
  gdouble plane_distance;       /* the cylinder's radius, the cuboid's
                                 * half-width, mirror units */
  gint plane_gap;               /* cuboid: output columns between faces */
} GstCoOmniSettings;

/* The cylinder panorama's rows, from the image radii of the window. */
typedef struct
{
  CoMirror mirror;
  double top, span;             /* z of the top edge, height in units */
  double r_top, r_bot;          /* mirror points of the top, bottom row */
} GstCoOmniWindow;

struct _GstCudaOmniUnwrap
{
  GstCoRemapFilter parent;

  GstCoOmniSettings set;        /* under the object lock */
  CoOmniPolar polar;            /* the geometry of the table being built */
  GstCoOmniSettings snap;       /* the settings it was built from */
  GstCoOmniWindow window;       /* cylinder: the rows */
  gboolean warned_outside;
  gpointer dev_tables;          /* CUDA: radii, column (cos, sin), distances
                                 * and the solve's failure flag */
  gsize dev_size;
  gint *host_fail;              /* pinned: the flag read back */
  gboolean propagate;           /* CO_OMNI_PROPAGATE: the paper's guesses */
};

gboolean gst_cuda_omni_unwrap_register (GstPlugin * plugin);

G_END_DECLS
#endif
