/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoEngine: what a cudaoptics element owns to work on a device, whatever
 * its GStreamer base (GstCoBaseFilter for one input, GstCoBaseAggregator
 * for several): the backend choice and its properties, the device and the
 * GstCudaContext shared with the pipeline, the element's CUDA stream,
 * memory for the element's tables and results, CUDA errors as element
 * errors, and the test-only fault injection that proves those paths.  The
 * base classes embed one; elements reach it through gstcoelement.h.
 */
#ifndef __GST_CO_ENGINE_H__
#define __GST_CO_ENGINE_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include "gstcodevice.h"
#include "co_frame.h"
#include "gstcosettings.h"
#include "gstcocaps.h"
#include "gstconvmm.h"

G_BEGIN_DECLS

typedef enum
{
  GST_CO_BACKEND_AUTO = 0,
  GST_CO_BACKEND_CUDA = 1,
  GST_CO_BACKEND_CPU = 2,
} GstCoBackend;

#define GST_TYPE_CO_BACKEND (gst_co_backend_get_type ())
GType gst_co_backend_get_type (void);

typedef struct
{
  /*< public: read-only, valid while streaming >*/
  GstCoBackend active_backend;  /* CUDA or CPU once started; AUTO before */
  GstCoDevice *device;          /* NULL on the CPU backend */
  gpointer stream;              /* cudaStream_t of this element */

  /*< private >*/
  GstElement *element;          /* errors go there (not a reference) */
  GstCoBackend backend;         /* properties, under the object lock */
  gint device_id;
  gpointer cuda_context;        /* GstCudaContext *, under the object lock */
  GstAllocator *host_alloc;     /* pinned memory of the device */
  gpointer gst_stream;          /* GstCudaStream * wrapping stream (1.24+) */
  gpointer event;               /* cudaEvent_t ordering foreign streams */
  gboolean downloaded;          /* the frame read results back */
  gpointer retire;              /* inputs held for the device (1.24+) */
  gboolean always_sync;         /* CO_SYNC_EVERY_FRAME at start: the
                                 * 1.22 behaviour, for comparisons */
  gboolean unusable;            /* an adoption failed: every frame errs */
  GSList *marks;                /* spare cudaEvent_t (gst_co_engine_mark) */
  gpointer copy_stream;         /* cudaStream_t of downloads behind */
  gpointer copy_from, copied;   /* cudaEvent_t: where they start, end */
  gboolean copying;             /* one was queued since the last join */
  /* called from a CUDA thread once each mark's work is done (no CUDA call
   * there), before the mark completes: the owner's wake-up */
  void (*on_done) (gpointer data);
  gpointer on_done_data;
  gchar *fault_step;            /* CO_FAULT_INJECT, armed at start */
  gint fault_nth, fault_seen;
  gint nvmm_mem_type;           /* property: NvBufSurfaceMemType of the
                                 * memory:NVMM output surfaces */
  guint64 host_copies;          /* read-only property, under the object
                                 * lock: frames copied host <-> device */
} GstCoEngine;

/* The five properties every element has (backend, device-id, the
 * read-only active-backend, nvmm-memory-type and the read-only
 * host-copies), in that order, as rows
 * of its base's settings table: @rows has GST_CO_ENGINE_N_PROPS,
 * @engine_offset is the engine's offset in the instance. */
#define GST_CO_ENGINE_N_PROPS 5
void     gst_co_engine_settings (GstCoSetting * rows, gssize engine_offset);

void     gst_co_engine_init     (GstCoEngine * e, GstElement * element);
/* Drops the context and what start armed (dispose) */
void     gst_co_engine_clear    (GstCoEngine * e);

/* The backend the properties ask for, the device opened when it is CUDA
 * (a warning and the CPU for auto without a device); @host_only: no CUDA
 * path.  FALSE after posting an element error. */
gboolean gst_co_engine_start    (GstCoEngine * e, gboolean host_only);
/* Device, context (shared, or made) and stream on @device_id */
gboolean gst_co_engine_open     (GstCoEngine * e, gint device_id,
    gchar ** why);
/* Everything open made, @release first (with the device pushed) for what
 * the element allocated on it; the context stays. */
void     gst_co_engine_close    (GstCoEngine * e,
    void (*release) (gpointer data), gpointer data);

/* context sharing */
void     gst_co_engine_set_context (GstCoEngine * e, GstContext * context);
gboolean gst_co_engine_query_context (GstCoEngine * e, GstQuery * query);
void     gst_co_engine_drop_context (GstCoEngine * e);
/* Adopts @ctx (a GstCudaContext) as the element's */
void     gst_co_engine_replace_context (GstCoEngine * e, gpointer ctx);
/* The GstCudaContext (a reference) of @buf's CUDA memory when it is not
 * ours and the device-id property allows its device (*@dev_id): a
 * decoder's own, another pipeline's.  The element takes it, as
 * GstCudaBaseTransform does, so that frames stay on the device instead of
 * crossing the host: everything made on the old context is released, the
 * device opened again on @ctx, everything rebuilt.  NULL: nothing to
 * adopt. */
gpointer gst_co_engine_foreign_context (GstCoEngine * e, GstBuffer * buf,
    gint * dev_id);
/* With the device closed (gst_co_engine_close): takes @ctx and opens the
 * device on it.  FALSE after an element error: nothing to run on any more,
 * every frame must fail until a restart (never half on one backend and
 * half on the other). */
gboolean gst_co_engine_adopt (GstCoEngine * e, gpointer ctx, gint dev_id);

/* memory and copies (gstcoelement.h's gst_co_element_* say how) */
gboolean gst_co_engine_cuda_ok  (GstCoEngine * e, int err, const gchar * what);
gpointer gst_co_engine_alloc    (GstCoEngine * e, gsize size);
void     gst_co_engine_free     (GstCoEngine * e, gpointer mem);
gpointer gst_co_engine_alloc_host (GstCoEngine * e, gsize size);
void     gst_co_engine_free_host (GstCoEngine * e, gpointer mem);
GstMemory *gst_co_engine_alloc_results (GstCoEngine * e, gsize size);
gboolean gst_co_engine_ensure   (GstCoEngine * e, gpointer * mem,
    gsize * cur_size, gsize size);
gboolean gst_co_engine_upload   (GstCoEngine * e, gpointer dst,
    gconstpointer src, gsize size, const gchar * what);
gboolean gst_co_engine_download (GstCoEngine * e, gpointer dst,
    gconstpointer src, gsize size, const gchar * what);
gboolean gst_co_engine_sync     (GstCoEngine * e, const gchar * what);
/* As gst_co_engine_download, on a stream of its own behind the work queued
 * so far, so that the element's next kernels run while it copies (the
 * quad's results: 5.7 MB, 0.1 ms at the pinned rate).  @src must not be
 * written again before gst_co_engine_join_copies.  The frame's wait or
 * mark covers it. */
gboolean gst_co_engine_download_behind (GstCoEngine * e, gpointer dst,
    gconstpointer src, gsize size, const gchar * what);
/* The element's stream waits (on the device) for the downloads behind:
 * before it writes what they read */
gboolean gst_co_engine_join_copies (GstCoEngine * e);

/* ---- pools (gstcoengine-pool.c) ---- */

/* Whether structure @i of @caps is in memory:CUDAMemory */
gboolean gst_co_caps_is_cuda (GstCaps * caps, guint i);
/* A pool of frames of @caps (a Bayer mosaic as its grey layout), with
 * video meta: GstCudaMemory of the element's context (its stream, 1.24+)
 * for CUDA caps, else system memory, pinned once the CUDA backend runs.
 * *@size: the frame size asked, then the pool's. */
GstBufferPool *gst_co_engine_make_pool (GstCoEngine * e, GstCaps * caps,
    guint * size, guint min, guint max);
/* Answers an ALLOCATION query from upstream: video meta, and (with
 * @with_pool, when nobody downstream offered one) our pool and, for
 * system caps, our pinned allocator.  FALSE: caps that are no frame. */
gboolean gst_co_engine_propose_pool (GstCoEngine * e, GstQuery * query,
    gboolean with_pool);
/* Decides downstream's ALLOCATION query for what the element allocates:
 * downstream's first pool where it suits (a CUDA pool of our context for
 * CUDA caps; any pool for system caps on the CPU backend, where pinned
 * memory buys nothing), else ours, in the query's first place. */
gboolean gst_co_engine_decide_pool (GstCoEngine * e, GstQuery * query);

/* ---- frames (gstcoengine-frame.c) ---- */

/* How a buffer reached the device */
typedef enum
{
  GST_CO_SIDE_CUDA,             /* GstCudaMemory of our context, in place */
  GST_CO_SIDE_MAPPED,           /* our pinned host memory, device alias */
  GST_CO_SIDE_STAGED,           /* copied through a device staging frame */
} GstCoSideKind;

/* A device frame a host buffer is copied through (one per pad) */
typedef struct
{
  CoFrame frame;
  gpointer mem;
  gsize size;
} GstCoStage;

/* The planes of a mapped video frame as a CoFrame */
void     gst_co_frame_from_video (const GstVideoFrame * vf, CoFormat format,
    CoBayer bayer, CoFrame * f);
void     gst_co_stage_free      (GstCoEngine * e, GstCoStage * stage);
/* A Bayer frame has no video format, so a GstVideoMeta on one was carried
 * over from the picture it was made from (rgb2bayer copies its input's)
 * and describes another layout: such a frame is read as its caps (@vinfo)
 * say, through a buffer of the same memories without metas (to unref).  NULL: @buf is fine as it is. */
GstBuffer *gst_co_bayer_view     (GstElement * element, GstBuffer * buf,
    const GstCoVideoInfo * vinfo);
/* Maps @buf for the device (the device pushed) and gives the frame the
 * kernels will use: CUDA memory of our context in place, our pinned memory
 * through its device alias, anything else copied through @stage (read
 * access uploads, on the stream).  *ordered: the memory carries a CUDA
 * stream (1.24+), so its users order their work after ours on the device;
 * *foreign: that stream when it is not ours (our stream waits for it here;
 * make it wait for ours once the frame's work is queued,
 * gst_co_engine_stream_wait).  *@warned: CUDA memory of another context
 * warned about once (NULL: never warn).  @what names the frame in errors
 * ("input", "sink_1"...); every failure has posted its element error. */
gboolean gst_co_engine_map_frame (GstCoEngine * e, GstCoStage * stage,
    GstBuffer * buf, GstCoVideoInfo * vinfo, GstMapFlags flags,
    const gchar * what, gboolean * warned,
    GstVideoFrame * vf, CoFrame * dev, GstCoSideKind * kind,
    gboolean * ordered, gpointer * foreign);
/* A staged frame @dev back to the host frame @vf it stands for (on the
 * stream) */
gboolean gst_co_engine_download_frame (GstCoEngine * e, GstVideoFrame * vf,
    CoFormat format, const CoFrame * dev);
/* Stream @b waits on the device for the work queued on @a so far (1.24+;
 * TRUE elsewhere) */
gboolean gst_co_engine_stream_wait (GstCoEngine * e, gpointer a, gpointer b);

/* ---- one frame's work, for every base (gstcoengine-run.c) ---- */

/* One picture of a frame's work: a buffer and how it is read or written.
 * The caller fills the first part; the runner maps it where the backend
 * works and gives @frame to process. */
typedef struct
{
  GstBuffer *buf;
  GstCoVideoInfo *vinfo;        /* what its pad carries */
  GstMapFlags flags;            /* READ, READWRITE (in place) or WRITE */
  const gchar *what;            /* "input", "sink_1": for errors */
  GstCoStage *stage;            /* its staging frame on the device */
  gboolean *warned;             /* foreign CUDA memory warned about (NULL:
                                 * never warn) */

  /*< public: for process >*/
  CoFrame frame;

  /*< private >*/
  GstVideoFrame vf;
  GstCoSideKind kind;
  gboolean mapped, ordered;
  gpointer foreign;
  /* memory:NVMM (gstcoengine-nvmm.c): the buffer mapped to its
   * NvBufSurface, the surface as mapped, its planes, whether the device
   * reads them in place, or copies them from CUDA arrays (block-linear
   * surface arrays) */
  gboolean nvmm, nvmm_device, nvmm_array;
  GstMapInfo nvmm_map;
  GstCoNvmmPlanes nvmm_planes;
  CoFrame nvmm_host;
} GstCoSide;

typedef struct
{
  /* the subclass's rebuild (gstcosettings.h's contract), or NULL */
  gboolean      (*rebuild) (gpointer owner, gboolean caps_changed);
  /* the subclass's work on the mapped sides: on e->stream (CUDA) or on
   * the host */
  GstFlowReturn (*process) (gpointer owner, GstCoSide * sides, guint n);
} GstCoRunOps;

/* One frame: the device current, a rebuild where @r says, every side
 * mapped (gst_co_engine_map_frame), process, staged written sides copied
 * back, foreign streams ordered after ours, unmapped, the device released.
 * The host waits for the device where the memory needs it: a side written
 * into memory without a stream, results read back
 * (gst_co_engine_download), an error, CO_SYNC_EVERY_FRAME, an input
 * without a stream that cannot be held until the device has read it
 * (gst_co_engine_hold).  With @mark, the host never waits here: *@mark is
 * an event after the frame's work (gst_co_engine_mark), which the caller
 * waits for (gst_co_engine_wait_mark) before anything of the frame is read
 * on the host or given back; it keeps the sides' buffers until then.
 * Every failure has posted its element error. */
GstFlowReturn gst_co_engine_run (GstCoEngine * e, GstCoRebuild * r,
    const GstCoRunOps * ops, gpointer owner, GstCoSide * sides, guint n,
    gpointer * mark);

/* Inputs without a stream kept out of their pools until the device has
 * read them, by a thread (gstcoengine-retire.c), once the device is open
 * on 1.24+; FALSE: wait instead */
gboolean gst_co_engine_hold (GstCoEngine * e, GstBuffer * buf);
/* An event recorded after the work queued so far (NULL after an element
 * error), and the host's wait for it, which gives it back */
gpointer gst_co_engine_mark (GstCoEngine * e);
gboolean gst_co_engine_wait_mark (GstCoEngine * e, gpointer mark);

G_END_DECLS
#endif
