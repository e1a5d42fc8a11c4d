/* cudaoptics — LGPL-2.1-or-later
 *
 * cudacltcorrelate's instance, shared by its three files: the element
 * (gstcudacltcorrelate.c: properties, caps, results to the buffer), what
 * rebuild makes of the settings and the pads (gstcudacltcorrelate-build.c:
 * pairs, the rig, the lens, the State) and a frame's correlations
 * (gstcudacltcorrelate-frame.c).
 */
#ifndef __GST_CUDA_CLT_CORRELATE_PRIVATE_H__
#define __GST_CUDA_CLT_CORRELATE_PRIVATE_H__

#include "gstcudacltcorrelate.h"
#include "clt.h"
#include "clt_corr.h"
#include "clt_search.h"

G_BEGIN_DECLS

#define MAX_INPUTS 16

typedef enum
{
  CORR_PAIRS = 0,
  CORR_TEMPORAL = 1,
} CorrMode;

typedef enum
{
  REF_PREVIOUS = 0,
  REF_KEEP = 1,
} CorrReference;

/* `peak`: the kernels' CoCltPeak values, and auto (resolved per frame by
 * gst_cuda_clt_correlate_peak) */
#define CORR_PEAK_AUTO 4

typedef enum
{
  OUTPUT_FRAMES = 0,
  OUTPUT_MAP = 1,
  OUTPUT_DISPARITY = 2,
} CorrOutput;

/* where max-shift's search looks */
typedef enum
{
  SEARCH_AUTO = 0,              /* a rig's baselines; else any direction */
  SEARCH_ANY = 1,
  SEARCH_HORIZONTAL = 2,
  SEARCH_VERTICAL = 3,
} CorrSearch;

/* the results' fields an output carries, and all the device copies back */
typedef enum
{
  RESULTS_SHIFT = 1 << 0,
  RESULTS_STRENGTH = 1 << 1,
  RESULTS_DISPARITY = 1 << 2,
  RESULTS_RIG = 1 << 3,
} CorrResults;
#define RESULTS_ALL 0xf

/* two inputs, by position in the base's pads */
typedef struct
{
  guint a, b;
} Pair;

typedef struct
{
  gint mode;
  gchar *pairs;
  gfloat fat_zero;
  gint peak;
  gint reference;
  guint refine;
  gfloat refine_fat_zero;
  gboolean post_messages;
  GBytes *pre_shift;
  gint output;
  gdouble map_range;
  gfloat lpf_sigma;
  guint results;
  guint max_shift;
  gint search;
  gdouble pre_shift_x, pre_shift_y;
  gfloat min_strength;
  gfloat lr_check;
  gfloat noise_floor;
} Settings;

/* What the backend reads, device (CUDA) or host (CPU) memory.  It moves
 * from one build to the next, so that ensure keeps what still fits (and
 * the colour path's tables while its files are being changed). */
typedef struct
{
  /* a grey plane and a CLT per slot (an input, or temporal's reference
   * and new frame) and one more CLT (a tile set moved by an estimate);
   * the results (CUDA) and a refinement's; the pre-shift's copy */
  gpointer planes, clt, res, rres, prior;
  gsize planes_size, clt_size, res_size, rres_size, prior_size;
  /* the tile processor's colour path: each input's kernel nodes (and
   * their grid: nodes across, down, stride, colours) and its tiles'
   * shifts (3 floats a tile: the kernels' offsets, the camera's
   * undistortion), the shifts of a moved tile set, the CPU's colours */
  gpointer nodes[MAX_INPUTS];
  gsize nodes_size[MAX_INPUTS];
  gint grid[MAX_INPUTS][4];
  gpointer bdx, bdy, cdx, cdy, colours;
  gsize bdx_size, bdy_size, cdx_size, cdy_size, colours_size;
  /* max-shift's search: every slot's pyramid above the frame (planes,
   * then the CLT of each level's tiles), each level's answer and the
   * tries' start shifts */
  gpointer pyr, pclt, found, starts;
  gsize pyr_size, pclt_size, found_size, starts_size;
  /* lr-check: the reversed pair's shift-x, shift-y, strength */
  gpointer lr;
  gsize lr_size;
} Memory;

/* A level of max-shift's pyramid: its plane's size and tiles, and where a
 * slot's plane, CLT and the level's answer (dx, dy, strength) sit in the
 * search's memory */
typedef struct
{
  gint w, h, tiles_x, tiles_y, n_tiles;
  gsize plane_at, clt_at, found_at;
} Level;

/* Everything rebuild makes from the settings and the pads, for the frames
 * until the next rebuild: built whole, or freed whole */
typedef struct
{
  gint w, h, tiles_x, tiles_y, n_tiles;
  gint mode;
  guint n_inputs;
  guint index[MAX_INPUTS];      /* the inputs' N of sink_N */
  gint n_slots;
  Pair *pairs;                  /* pairs mode; NULL with one input */
  guint n_pairs;                /* temporal: 1 */
  gchar *pairs_text;            /* the results' "pairs" */
  /* the rig's geometry, when every input names its calibration */
  gboolean have_rig;
  CoCltCorrRig rig;
  gdouble ref_baseline;         /* |o_b - o_a| of the first pair */
  /* the results' floats a tile: shift-x, shift-y, strength per pair; with
   * a rig, disparity per pair, rig-disparity, confidence */
  guint planes_per_tile;
  /* every input names its kernels: the tile processor's colour path */
  gboolean colour;
  /* max-shift: levels above the frame (0: no search), the top level's
   * sweep, each level (1..levels), and a slot's pyramid's floats (planes,
   * CLTs) */
  gint levels, reach;
  Level level[CO_CLT_SEARCH_MAX_LEVELS + 1];
  gsize pyr_floats, pclt_floats;
  Memory mem;
} State;

struct _GstCudaCltCorrelate
{
  GstCoBaseAggregator parent;

  Settings settings;            /* the properties (settings table) */

  /* streaming thread */
  State *state;                 /* NULL until a rebuild succeeds */
  Settings snap;                /* of the frame being processed */
  CoCltCorrParams cp;           /* of the frame being processed */
  CoCltCorrParams cp_refine;    /* its refinement passes' */
  const CoFrame *slot_frame[MAX_INPUTS];        /* each slot's last frame */
  /* temporal: slot of the reference CLT (0 or 1), and whether it holds one */
  gint ref_slot;
  gboolean have_ref;
  GBytes *warned_prior;         /* the last pre-shift warned about */
  gboolean warned_lr;           /* lr-check beside a pairs' pre-shift */

  /* the output as negotiated (src_caps): a CorrOutput, and for
   * output=disparity whether its 16 bits are big-endian */
  gint out;
  gboolean out_be;

  guint64 frames;               /* outputs finished since start */
};

/* One output's results and what they were made with, from process to
 * finish (which may run after the next instant's process and rebuild) */
typedef struct
{
  GstMemory *results;           /* NULL: none (pairs mode, one input) */
  guint pairs;
  gboolean temporal, rig, post;
  gint out;                     /* CorrOutput */
  gboolean out_be;
  guint fields;                 /* CorrResults attached */
  gdouble ref_baseline, map_range;
  gfloat min_strength;
  gchar *pairs_text;
  gint w, h, tiles_x, tiles_y, n_tiles;
} Output;

/* gstcudacltcorrelate-build.c: the base's rebuild, and the State (with
 * the temporal reference its memory held) freed */
gboolean gst_cuda_clt_correlate_rebuild (GstCoBaseAggregator * base,
    gboolean caps_changed);
void gst_cuda_clt_correlate_drop_state (GstCudaCltCorrelate * self);

/* gstcudacltcorrelate-frame.c: the base's process */
GstFlowReturn gst_cuda_clt_correlate_process (GstCoBaseAggregator * base,
    GstBuffer * const *inbufs, const CoFrame * frames, guint n,
    GstBuffer ** outbuf, gpointer * output);

/* gstcudacltcorrelate-frame.c, for the search: the CLT of @slot's frame
 * (its plane, or on the colour path its raw frame) moved by (@dx, @dy)
 * into @clt; tiles @a against @b (those whose @on is 0 left out) */
gboolean gst_cuda_clt_correlate_transform (GstCudaCltCorrelate * self,
    gint slot, const gfloat * dx, const gfloat * dy, gfloat * clt);
gboolean gst_cuda_clt_correlate_tiles (GstCudaCltCorrelate * self,
    const gfloat * a, const gfloat * b, gint n, CoCltPeak peak,
    const gfloat * on, gfloat * dx, gfloat * dy, gfloat * strength);
CoCltPeak gst_cuda_clt_correlate_peak (GstCudaCltCorrelate * self);

/* gstcudacltcorrelate-search.c: max-shift's levels planned for the State
 * and their memory; @slot's pyramid (its plane halved, each level's
 * CLT); pair (@a, @b) searched from the top level down (along @line),
 * the frame's answer into (@dx, @dy, @strength) */
gboolean gst_cuda_clt_correlate_plan (GstCudaCltCorrelate * self, State * st,
    guint max_shift);
gboolean gst_cuda_clt_correlate_pyramid (GstCudaCltCorrelate * self,
    gint slot);
gboolean gst_cuda_clt_correlate_search (GstCudaCltCorrelate * self, gint a,
    gint b, CoCltSearchLine line, gfloat * dx, gfloat * dy,
    gfloat * strength);
/* A rig: its reference pair searched along its baseline, the answer into
 * *@prior as the rig's pre-shift (one disparity a tile), which every pair
 * then starts from */
gboolean gst_cuda_clt_correlate_search_rig (GstCudaCltCorrelate * self,
    const gfloat ** prior);

/* the element's CUDA stream, which the launchers take */
static inline gpointer
stream_of (GstCudaCltCorrelate * self)
{
  return GST_CO_BASE_AGGREGATOR (self)->engine.stream;
}

static inline gfloat *
plane_of (GstCudaCltCorrelate * self, gint slot)
{
  const State *st = self->state;

  return (gfloat *) st->mem.planes + (gsize) slot * st->w * st->h;
}

static inline gfloat *
clt_of (GstCudaCltCorrelate * self, gint slot)
{
  const State *st = self->state;

  return (gfloat *) st->mem.clt + (gsize) slot * CO_CLT_COEFFS * st->n_tiles;
}

G_END_DECLS
#endif
