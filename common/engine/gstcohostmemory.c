/* cudaoptics — LGPL-2.1-or-later */
#include "gstcohostmemory.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_co_host_memory_debug);
#define GST_CAT_DEFAULT gst_co_host_memory_debug

#define GST_CO_HOST_MEMORY_NAME "CoHostMemory"

typedef struct
{
  GstMemory mem;
  guint8 *host;                 /* start of the whole allocation */
  guint8 *device;               /* its device alias (integrated), or NULL */
} GstCoHostMemory;

/* Freed pinned blocks kept for the next allocations: cudaHostAlloc and
 * cudaFreeHost cost hundreds of microseconds (cudaFreeHost also waits for
 * the device), and a renegotiation replaces whole pools, so that caps
 * changing every frame would otherwise pay them for every buffer. */
#define CACHE_MAX_BLOCKS 16
#define CACHE_MAX_BYTES (128u << 20)

typedef struct
{
  guint8 *host, *device;
  gsize size;
} Block;

struct _GstCoHostAllocator
{
  GstAllocator parent;
  GstCoDevice *device;

  GMutex lock;
  GQueue cache;                 /* Block *, most recently freed first */
  gsize cached_bytes;
};

G_DEFINE_TYPE_WITH_CODE (GstCoHostAllocator, gst_co_host_allocator,
    GST_TYPE_ALLOCATOR,
    GST_DEBUG_CATEGORY_INIT (gst_co_host_memory_debug, "cohostmemory", 0,
        "cudaoptics pinned/mapped host memory"));

static GstCoHostMemory *
wrap (GstAllocator * alloc, GstMemory * parent, guint8 * host, guint8 * dev,
    gsize maxsize, gsize align, gsize offset, gsize size, GstMemoryFlags flags)
{
  GstCoHostMemory *m = g_new0 (GstCoHostMemory, 1);

  gst_memory_init (GST_MEMORY_CAST (m), flags, alloc, parent, maxsize, align,
      offset, size);
  m->host = host;
  m->device = dev;
  return m;
}

static GstMemory *
gst_co_host_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstCoHostAllocator *self = GST_CO_HOST_ALLOCATOR (allocator);
  gsize maxsize = params->prefix + size + params->padding;
  guint8 *host = NULL, *dev = NULL;

  /* page-aligned allocations satisfy any alignment GStreamer asks for */
  if (params->align >= 4096) {
    GST_ERROR_OBJECT (self, "alignment %" G_GSIZE_FORMAT " not supported",
        params->align + 1);
    return NULL;
  }
  /* a cached block that fits without wasting much */
  g_mutex_lock (&self->lock);
  {
    GList *l;
    for (l = self->cache.head; l; l = l->next) {
      Block *b = l->data;
      if (b->size >= maxsize && b->size <= MAX (2 * maxsize,
              maxsize + (4u << 20))) {
        host = b->host;
        dev = b->device;
        maxsize = b->size;
        self->cached_bytes -= b->size;
        g_queue_delete_link (&self->cache, l);
        g_free (b);
        break;
      }
    }
  }
  g_mutex_unlock (&self->lock);
#ifdef HAVE_CUDA
  if (host) {
    GST_TRACE_OBJECT (self, "reusing a cached block of %" G_GSIZE_FORMAT
        " bytes", maxsize);
  } else {
    if (!gst_co_device_push (self->device))
      return NULL;
    if (self->device->integrated) {
      if (GST_CO_CUDA_OK (self, cudaHostAlloc ((void **) &host, maxsize,
                  cudaHostAllocPortable | cudaHostAllocMapped)))
        GST_CO_CUDA_OK (self, cudaHostGetDevicePointer ((void **) &dev, host,
                0));
    } else {
      GST_CO_CUDA_OK (self, cudaHostAlloc ((void **) &host, maxsize,
              cudaHostAllocPortable));
    }
    gst_co_device_pop (self->device);
  }
#endif
  if (!host) {
    GST_ERROR_OBJECT (self, "could not allocate %" G_GSIZE_FORMAT
        " bytes of pinned host memory", maxsize);
    return NULL;
  }
  if (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED && params->prefix)
    memset (host, 0, params->prefix);
  if (params->flags & GST_MEMORY_FLAG_ZERO_PADDED && params->padding)
    memset (host + params->prefix + size, 0, params->padding);
  return GST_MEMORY_CAST (wrap (allocator, NULL, host, dev, maxsize,
          params->align, params->prefix, size, params->flags));
}

static void
free_block (GstCoHostAllocator * self, guint8 * host)
{
#ifdef HAVE_CUDA
  if (gst_co_device_push (self->device)) {
    GST_CO_CUDA_OK (self, cudaFreeHost (host));
    gst_co_device_pop (self->device);
  }
#else
  (void) self;
  (void) host;
#endif
}

static void
gst_co_host_allocator_free (GstAllocator * allocator, GstMemory * mem)
{
  GstCoHostAllocator *self = GST_CO_HOST_ALLOCATOR (allocator);
  GstCoHostMemory *m = (GstCoHostMemory *) mem;
  guint8 *evict = NULL;

  if (!mem->parent) {
    g_mutex_lock (&self->lock);
    if (mem->maxsize <= CACHE_MAX_BYTES) {
      Block *b = g_new (Block, 1);
      b->host = m->host;
      b->device = m->device;
      b->size = mem->maxsize;
      g_queue_push_head (&self->cache, b);
      self->cached_bytes += b->size;
    } else {
      evict = m->host;
    }
    g_mutex_unlock (&self->lock);
    if (evict)
      free_block (self, evict);
    /* the oldest blocks go back to the driver beyond the cache's bounds */
    for (;;) {
      Block *b = NULL;
      g_mutex_lock (&self->lock);
      if (self->cache.length > CACHE_MAX_BLOCKS ||
          self->cached_bytes > CACHE_MAX_BYTES) {
        b = g_queue_pop_tail (&self->cache);
        self->cached_bytes -= b->size;
      }
      g_mutex_unlock (&self->lock);
      if (!b)
        break;
      free_block (self, b->host);
      g_free (b);
    }
  }
  g_free (m);
}

static gpointer
host_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  return ((GstCoHostMemory *) mem)->host;
}

static void
host_unmap (GstMemory * mem)
{
}

static GstMemory *
host_share (GstMemory * mem, gssize offset, gssize size)
{
  GstCoHostMemory *m = (GstCoHostMemory *) mem;
  GstMemory *parent = mem->parent ? mem->parent : mem;

  if (size == -1)
    size = mem->size - offset;
  return GST_MEMORY_CAST (wrap (mem->allocator, parent, m->host, m->device,
          mem->maxsize, mem->align, mem->offset + offset, size,
          GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY));
}

static gboolean
host_is_span (GstMemory * m1, GstMemory * m2, gsize * offset)
{
  if (offset)
    *offset = m1->offset - m1->parent->offset;
  return ((GstCoHostMemory *) m1)->host == ((GstCoHostMemory *) m2)->host &&
      m1->offset + m1->size == m2->offset;
}

static void
gst_co_host_allocator_dispose (GObject * object)
{
  GstCoHostAllocator *self = GST_CO_HOST_ALLOCATOR (object);
  Block *b;

  /* no memory of ours is left (each holds a ref): empty the cache while
   * the device is still known */
  while ((b = g_queue_pop_head (&self->cache))) {
    if (self->device)
      free_block (self, b->host);
    g_free (b);
  }
  self->cached_bytes = 0;
  gst_clear_object (&self->device);
  G_OBJECT_CLASS (gst_co_host_allocator_parent_class)->dispose (object);
}

static void
gst_co_host_allocator_finalize (GObject * object)
{
  g_mutex_clear (&GST_CO_HOST_ALLOCATOR (object)->lock);
  G_OBJECT_CLASS (gst_co_host_allocator_parent_class)->finalize (object);
}

static void
gst_co_host_allocator_class_init (GstCoHostAllocatorClass * klass)
{
  GstAllocatorClass *aclass = GST_ALLOCATOR_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = gst_co_host_allocator_dispose;
  G_OBJECT_CLASS (klass)->finalize = gst_co_host_allocator_finalize;
  aclass->alloc = gst_co_host_allocator_alloc;
  aclass->free = gst_co_host_allocator_free;
}

static void
gst_co_host_allocator_init (GstCoHostAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (self);

  g_mutex_init (&self->lock);
  g_queue_init (&self->cache);
  alloc->mem_type = GST_CO_HOST_MEMORY_NAME;
  alloc->mem_map = host_map;
  alloc->mem_unmap = host_unmap;
  alloc->mem_share = host_share;
  alloc->mem_is_span = host_is_span;
  /* a plain mem_copy (map, memcpy) is what the default gives us */
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_co_host_allocator_new (GstCoDevice * device)
{
  GstCoHostAllocator *self = g_object_new (GST_TYPE_CO_HOST_ALLOCATOR, NULL);

  gst_object_ref_sink (self);
  self->device = gst_object_ref (device);
  return GST_ALLOCATOR_CAST (self);
}

gboolean
gst_is_co_host_memory (GstMemory * mem)
{
  return mem && mem->allocator && GST_IS_CO_HOST_ALLOCATOR (mem->allocator);
}

gpointer
gst_co_host_memory_device_ptr (GstMemory * mem, gpointer host)
{
  GstCoHostMemory *m = (GstCoHostMemory *) mem;

  if (!gst_is_co_host_memory (mem) || !m->device)
    return NULL;
  return m->device + ((guint8 *) host - m->host);
}
