/* cudaoptics — LGPL-2.1-or-later
 *
 * What an element of the family calls to work on its backend, whatever its
 * base: @element is a GstCoBaseFilter or a GstCoBaseAggregator (or a
 * subclass of either), whose embedded GstCoEngine these calls find.  One
 * predicate says which backend runs; memory, copies, waits and CUDA errors
 * go through the calls below, so an element neither tests the engine's
 * device nor calls the engine itself.  The work is queued on the element's
 * stream (its base's engine.stream, read-only), which kernels take.
 */
#ifndef __GST_CO_ELEMENT_H__
#define __GST_CO_ELEMENT_H__

#include "gstcoengine.h"

G_BEGIN_DECLS

/* TRUE when frames are processed by CUDA (device memory in process); the
 * one test elements make.  Streaming thread. */
gboolean gst_co_element_on_cuda (gpointer element);

/* Memory for the active backend: device memory for CUDA, host for CPU.
 * Posts an element error and returns NULL when it cannot be had. */
gpointer gst_co_element_alloc  (gpointer element, gsize size);
void     gst_co_element_free   (gpointer element, gpointer mem);
/* Grows *mem to at least @size (contents are not kept). */
gboolean gst_co_element_ensure (gpointer element, gpointer * mem,
                                gsize * cur_size, gsize size);
/* Host memory for results read back on the host: pinned and written by
 * cudaMemcpyAsync on the element's stream (CUDA backend), plain on the CPU
 * backend.  Complete when finish runs. */
gpointer gst_co_element_alloc_host (gpointer element, gsize size);
void     gst_co_element_free_host  (gpointer element, gpointer mem);
/* One frame's results as memory applications may keep after the frame
 * (gst_co_bytes_from_memory): pinned on the CUDA backend, so
 * gst_co_element_download fills it (blocks are cached and reused as
 * applications let them go, and outlive the element safely); system memory
 * on the CPU backend.  Posts an element error and returns NULL when it
 * cannot be had. */
GstMemory *gst_co_element_alloc_results (gpointer element, gsize size);

/* Host to memory of gst_co_element_alloc, and back (into
 * gst_co_element_alloc_host's or _alloc_results' memory, complete when
 * finish runs): on the element's stream with the CUDA backend (the device
 * pushed, as in process, rebuild and set_info; a pageable source is staged
 * by the driver), memcpy on the CPU backend.  FALSE after posting an
 * element error naming @what. */
gboolean gst_co_element_upload   (gpointer element, gpointer dst,
                                  gconstpointer src, gsize size,
                                  const gchar * what);
gboolean gst_co_element_download (gpointer element, gpointer dst,
                                  gconstpointer src, gsize size,
                                  const gchar * what);
/* As gst_co_element_download, on a stream of its own behind the work
 * queued so far, so that the element's next kernels run while it copies.
 * @src must not be written again before gst_co_element_join_copies.  The
 * frame's wait or mark covers it. */
gboolean gst_co_element_download_behind (gpointer element, gpointer dst,
                                         gconstpointer src, gsize size,
                                         const gchar * what);
/* The element's stream waits (on the device) for the downloads behind:
 * before it writes what they read. */
gboolean gst_co_element_join_copies (gpointer element);
/* Waits for the work queued on the element's stream (a value read back
 * that decides what to build next); a no-op on the CPU backend.  FALSE
 * after posting an element error naming @what.  Never per frame: the base
 * synchronises each frame once, where needed. */
gboolean gst_co_element_sync (gpointer element, const gchar * what);
/* For kernel launches (@err a cudaError_t, 0 on the CPU): FALSE after
 * posting an element error naming @what. */
gboolean gst_co_element_cuda_ok (gpointer element, int err,
                                 const gchar * what);

G_END_DECLS
#endif
