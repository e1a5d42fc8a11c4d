/* cudaoptics — LGPL-2.1-or-later */
#ifndef __GST_CUDA_OMNI_UNWRAP_H__
#define __GST_CUDA_OMNI_UNWRAP_H__

#include "gstcoremapfilter.h"
#include "omni_math.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_OMNI_UNWRAP (gst_cuda_omni_unwrap_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaOmniUnwrap, gst_cuda_omni_unwrap, GST,
    CUDA_OMNI_UNWRAP, GstCoRemapFilter)

typedef enum
{
  GST_CO_OMNI_POLAR = 0,
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
} GstCoOmniSettings;

struct _GstCudaOmniUnwrap
{
  GstCoRemapFilter parent;

  GstCoOmniSettings set;        /* under the object lock */
  CoOmniPolar polar;            /* the geometry of the table being built */
  gboolean warned_outside;
};

gboolean gst_cuda_omni_unwrap_register (GstPlugin * plugin);

G_END_DECLS
#endif
