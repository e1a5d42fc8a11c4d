/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoEngine, frames: a buffer mapped where the device can read it, for
 * any base class (gstcoengine.h).  Memory paths with the CUDA backend:
 * - memory:CUDAMemory of our context: used in place (GST_MAP_CUDA);
 * - our pool's pinned memory: read in place through its device alias
 *   (integrated GPUs), else copied asynchronously on the element's stream;
 * - any other host memory: copied once through a device staging frame.
 */
#include "gstcocompat.h"
#include "gstcoengine-private.h"
#include "gstcohostmemory.h"

#include <string.h>

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

void
gst_co_frame_from_video (const GstVideoFrame * vf, CoFormat format, CoBayer bayer,
    CoFrame * f)
{
  guint i;

  memset (f, 0, sizeof (*f));
  f->format = format;
  f->bayer = bayer;
  f->width = GST_VIDEO_FRAME_WIDTH (vf);
  f->height = GST_VIDEO_FRAME_HEIGHT (vf);
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (vf) && i < CO_MAX_PLANES; i++) {
    f->data[i] = GST_VIDEO_FRAME_PLANE_DATA (vf, i);
    f->pitch[i] = GST_VIDEO_FRAME_PLANE_STRIDE (vf, i);
  }
}

GstBuffer *
gst_co_bayer_view (GstElement * element, GstBuffer * buf,
    const GstCoVideoInfo * vinfo)
{
  GstVideoMeta *meta;

  if (vinfo->bayer == CO_BAYER_NONE ||
      !(meta = gst_buffer_get_video_meta (buf)) ||
      meta->format == GST_VIDEO_INFO_FORMAT (&vinfo->info))
    return NULL;
  GST_LOG_OBJECT (element, "ignoring the %s video meta of a Bayer frame",
      gst_video_format_to_string (meta->format));
  return gst_buffer_copy_region (buf, GST_BUFFER_COPY_MEMORY, 0, -1);
}

void
gst_co_stage_free (GstCoEngine * e, GstCoStage * stage)
{
  gst_co_engine_free (e, stage->mem);
  stage->mem = NULL;
  stage->size = 0;
}

static gboolean
map_failed (GstCoEngine * e, const gchar * step, const gchar * what)
{
  GST_ELEMENT_ERROR (e->element, STREAM, FAILED, ("Could not %s the %s frame",
          step, what), (NULL));
  return FALSE;
}

#ifdef HAVE_CUDA
/* Lays out a device staging frame for @host's format and size, one
 * allocation: rows as long as @host's where they are 4-byte aligned (each
 * plane is then one contiguous copy, far faster than a 2D one from
 * pageable memory), else aligned to 256 bytes as cudaMallocPitch would. */
static gboolean
ensure_stage (GstCoEngine * e, GstCoStage * stage, const CoFrame * host)
{
  CoFrame *f = &stage->frame;
  const CoFormat format = host->format;
  const int w = host->width, h = host->height;
  gsize offsets[CO_MAX_PLANES], total = 0;
  int i;

  for (i = 0; i < co_format_n_planes (format); i++) {
    int pw, ph;
    co_plane_size (w, h, co_format_plane_shift (format, i), &pw, &ph);
    f->pitch[i] = host->pitch[i] % 4 == 0 ? host->pitch[i] :
        GST_ROUND_UP_N (pw * co_pix_bpp (co_format_plane_kind (format, i)),
        256);
    offsets[i] = total;
    total += GST_ROUND_UP_N ((gsize) f->pitch[i] * ph, 256);
  }
  if (!gst_co_engine_ensure (e, &stage->mem, &stage->size, total))
    return FALSE;
  for (i = 0; i < co_format_n_planes (format); i++)
    f->data[i] = (uint8_t *) stage->mem + offsets[i];
  f->width = w;
  f->height = h;
  f->format = format;
  return TRUE;
}

/* Plane @i of @f: the bytes of one of its rows, and *@rows */
static size_t
plane_row (const CoFrame * f, int i, int *rows)
{
  int pw;

  co_plane_size (f->width, f->height, co_format_plane_shift (f->format, i),
      &pw, rows);
  return (size_t) pw * co_pix_bpp (co_format_plane_kind (f->format, i));
}

static gboolean
copy_planes (GstCoEngine * e, const CoFrame * dst, const CoFrame * src,
    enum cudaMemcpyKind kind)
{
  int i;

  if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost) {
    GST_OBJECT_LOCK (e->element);
    e->host_copies++;
    GST_OBJECT_UNLOCK (e->element);
  }
  for (i = 0; i < co_format_n_planes (src->format); i++) {
    int ph;
    const size_t row = plane_row (src, i, &ph);
    cudaError_t err = dst->pitch[i] == src->pitch[i] ?
        /* one run of bytes (the padding of the last row left out) */
        cudaMemcpyAsync (dst->data[i], src->data[i], (size_t) src->pitch[i] *
        (ph - 1) + row, kind, (cudaStream_t) e->stream) :
        cudaMemcpy2DAsync (dst->data[i], dst->pitch[i], src->data[i],
        src->pitch[i], row, ph, kind, (cudaStream_t) e->stream);
    if (!GST_CO_CUDA_OK (e->element, err))
      return FALSE;
  }
  return TRUE;
}
#endif

#ifdef HAVE_CUDA
gboolean
co_engine_ensure_stage (GstCoEngine * e, GstCoStage * stage,
    const CoFrame * host)
{
  return ensure_stage (e, stage, host);
}

gboolean
co_engine_copy_planes (GstCoEngine * e, const CoFrame * dst,
    const CoFrame * src, int kind)
{
  return copy_planes (e, dst, src, (enum cudaMemcpyKind) kind);
}

gboolean
co_engine_copy_arrays (GstCoEngine * e, const CoFrame * f,
    gpointer const *arrays, gboolean to_arrays)
{
  int i;

  for (i = 0; i < co_format_n_planes (f->format); i++) {
    int ph;
    const size_t row = plane_row (f, i, &ph);
    cudaError_t err = to_arrays ?
        cudaMemcpy2DToArrayAsync ((cudaArray_t) arrays[i], 0, 0, f->data[i],
        f->pitch[i], row, ph, cudaMemcpyDeviceToDevice,
        (cudaStream_t) e->stream) :
        cudaMemcpy2DFromArrayAsync (f->data[i], f->pitch[i],
        (cudaArray_const_t) arrays[i], 0, 0, row, ph,
        cudaMemcpyDeviceToDevice, (cudaStream_t) e->stream);
    if (!GST_CO_CUDA_OK (e->element, err))
      return FALSE;
  }
  return TRUE;
}
#endif

gboolean
gst_co_engine_stream_wait (GstCoEngine * e, gpointer a, gpointer b)
{
#ifdef CO_CUDA_STREAMS
  cudaEvent_t ev = (cudaEvent_t) e->event;

  return GST_CO_CUDA_OK (e->element, cudaEventRecord (ev, (cudaStream_t) a))
      && GST_CO_CUDA_OK (e->element, cudaStreamWaitEvent ((cudaStream_t) b,
          ev, 0));
#else
  return TRUE;
#endif
}

gboolean
gst_co_engine_map_frame (GstCoEngine * e, GstCoStage * stage,
    GstBuffer * buf, GstCoVideoInfo * vinfo, GstMapFlags flags,
    const gchar * what, gboolean * warned, GstVideoFrame * vf,
    CoFrame * dev, GstCoSideKind * kind, gboolean * ordered,
    gpointer * foreign)
{
#ifdef HAVE_CUDA
  GstVideoInfo *info = &vinfo->info;
  const CoFormat format = vinfo->format;
  const CoBayer bayer = vinfo->bayer;
  GstMemory *mem = gst_buffer_n_memory (buf) == 1 ?
      gst_buffer_peek_memory (buf, 0) : NULL;
  CoFrame host;
  int i;

  *ordered = FALSE;
  *foreign = NULL;
#ifdef HAVE_GST_CUDA
  if (mem && gst_is_cuda_memory (mem)) {
    if (GST_CUDA_MEMORY_CAST (mem)->context == e->cuda_context) {
#ifdef CO_CUDA_STREAMS
      GstCudaStream *ms;
#endif
      /* the map queues any pending upload on the memory's own stream */
      if (!gst_video_frame_map (vf, info, buf, flags | GST_MAP_CUDA))
        return map_failed (e, "map", what);
      gst_co_frame_from_video (vf, format, bayer, dev);
      *kind = GST_CO_SIDE_CUDA;
#ifdef CO_CUDA_STREAMS
      ms = gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (mem));
      *ordered = ms != NULL;
      if (ms && ms != e->gst_stream) {
        *foreign = gst_cuda_stream_get_handle (ms);
        if (!gst_co_engine_stream_wait (e, *foreign, e->stream)) {
          gst_video_frame_unmap (vf);
          return map_failed (e, "order", what);
        }
      }
#endif
      return TRUE;
    }
    if (warned && !*warned) {
      GST_ELEMENT_WARNING (e->element, STREAM, FAILED,
          ("CUDA memory from another CUDA context: frames go through host "
              "memory (slow); give the elements one context or one "
              "device-id"), (NULL));
      *warned = TRUE;
    }
  }
#endif
  if (!gst_video_frame_map (vf, info, buf, flags))
    return map_failed (e, "map", what);
  gst_co_frame_from_video (vf, format, bayer, &host);
  if (mem && gst_co_host_memory_device_ptr (mem, host.data[0])) {
    *dev = host;
    for (i = 0; i < co_format_n_planes (format); i++)
      dev->data[i] = gst_co_host_memory_device_ptr (mem, host.data[i]);
    *kind = GST_CO_SIDE_MAPPED;
    return TRUE;
  }
  *kind = GST_CO_SIDE_STAGED;
  GST_TRACE_OBJECT (e->element, "host frame mapped, staging");
  /* an allocation failure has posted its own error */
  if (ensure_stage (e, stage, &host)) {
    *dev = stage->frame;
    dev->bayer = bayer;
    if (!(flags & GST_MAP_READ) ||
        copy_planes (e, dev, &host, cudaMemcpyHostToDevice))
      return TRUE;
    map_failed (e, "upload", what);
  }
  gst_video_frame_unmap (vf);
  return FALSE;
#else
  return map_failed (e, "map", what);
#endif
}

gboolean
gst_co_engine_download_frame (GstCoEngine * e, GstVideoFrame * vf,
    CoFormat format, const CoFrame * dev)
{
#ifdef HAVE_CUDA
  CoFrame host;

  gst_co_frame_from_video (vf, format, CO_BAYER_NONE, &host);
  return copy_planes (e, &host, dev, cudaMemcpyDeviceToHost);
#else
  return FALSE;
#endif
}
