/* cudaoptics — LGPL-2.1-or-later
 *
 * cudaomniunwrap's instance, shared by its two files: the element
 * (gstcudaomniunwrap.c) and its maps (gstcudaomniunwrap-map.c).
 */
#ifndef __GST_CUDA_OMNI_UNWRAP_PRIVATE_H__
#define __GST_CUDA_OMNI_UNWRAP_PRIVATE_H__

#include "gstcudaomniunwrap.h"
#include "omni_math.h"
#include "omni_mirror.h"

G_BEGIN_DECLS

typedef enum
{
  GST_CO_OMNI_POLAR = 0,
  GST_CO_OMNI_CYLINDER = 1,
  GST_CO_OMNI_CUBOID = 2,
  GST_CO_OMNI_GROUND = 3,
} GstCoOmniProjection;

typedef enum
{
  GST_CO_OMNI_COUNTERCLOCKWISE = 0,
  GST_CO_OMNI_CLOCKWISE = 1,
} GstCoOmniDirection;

typedef enum
{
  GST_CO_OMNI_LAYOUT_ONE = 1,
  GST_CO_OMNI_LAYOUT_TWO = 2,
  GST_CO_OMNI_LAYOUT_FOUR = 4,
} GstCoOmniLayout;

/* The properties, copied under the object lock. */
typedef struct
{
  GstCoOmniProjection projection;
  GstCoOmniLayout layout;
  gdouble center_x, center_y;   /* < 0: the frame's centre */
  gdouble inner_radius;
  gdouble outer_radius;         /* 0: half the frame's shorter side */
  gdouble start_angle;          /* degrees */
  gdouble zoom;
  GstCoOmniDirection direction;
  gdouble mirror_radius, mirror_distance, focal_length;
  gdouble plane_distance;       /* the cylinder's radius, the cuboid's
                                 * half-width, the ground's distance */
  gint plane_gap;               /* cuboid: output columns between faces */
  gboolean auto_center;
  gdouble found_radius;         /* auto-center's circle (no property): the
                                 * mirror's image when focal-length is 0 */
} GstCoOmniSettings;

/* A plane geometry's solved radii, kept while only the pan (start angle,
 * direction) or the centre changes: those turn and move the picture but
 * see the same image radii. */
typedef struct
{
  guint8 key[128];              /* what the radii depend on (memcmp) */
  gsize key_len;
  gdouble *ax;                  /* the columns' distances */
  gint n_ax;
  gfloat *rho;                  /* CPU: the radii, n_ax per row */
  gpointer dev;                 /* CUDA: rho, ax, then the failure flag */
  gsize dev_size;
  gint valid;                   /* 0, or where the radii are kept */
} GstCoOmniSolved;

/* A plane geometry's columns: their angles before the pan (cos, sin) and
 * distances, kept while the layout, zoom and sizes stay; trig is the
 * table of the current pan (cos, sin, distance index per column). */
typedef struct
{
  guint8 key[128];
  gsize key_len;
  gsize n_cells;                /* columns x panel rows */
  gdouble *base;
  gfloat *trig;
  gdouble *ax;                  /* the distinct distances, sorted */
  gint n_ax;
} GstCoOmniColumns;

struct _GstCudaOmniUnwrap
{
  GstCoRemapFilter parent;

  GstCoOmniSettings set;        /* under the object lock */
  GstCoOmniSettings snap;       /* the settings the table is built from */
  CoOmniView view;              /* its geometry */
  CoOmniRows window;            /* mirror projections: the window */
  gboolean warned_outside;
  GstCoOmniColumns columns[2];  /* per plane geometry */
  GstCoOmniSolved solved[2];
  gboolean no_keep;             /* CO_OMNI_NO_KEEP: solve on every rebuild
                                 * (the paper's transition state) */
  gboolean no_share;            /* CO_OMNI_NO_SHARE: no column shares a
                                 * solve (tests the symmetry) */
  gpointer dev_trig;            /* CUDA: the columns */
  gsize dev_trig_size;
  gint *host_fail;              /* pinned: the solve's flag read back */

  /* auto-center: frames looked at so far, and whether it is settled */
  gint auto_frames;
  gboolean auto_done;
  const gchar *auto_why;        /* the last frame's reason (static) */
};


/* gstcudaomniunwrap-map.c: the map from the prepared geometry */
gboolean gst_cuda_omni_unwrap_map_cpu (GstCoRemapFilter * remap,
    const CoLut * lut, gint g, gfloat * x, gfloat * y, gint pitch);
gboolean gst_cuda_omni_unwrap_map_cuda (GstCoRemapFilter * remap,
    const CoLut * lut, gint g, gfloat * x, gfloat * y, gint pitch);
void gst_cuda_omni_unwrap_free_maps (GstCudaOmniUnwrap * self);

G_END_DECLS
#endif
