/* cudaoptics — LGPL-2.1-or-later */
#include "gstcodevice.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_co_device_debug);
#define GST_CAT_DEFAULT gst_co_device_debug

G_DEFINE_TYPE_WITH_CODE (GstCoDevice, gst_co_device, GST_TYPE_OBJECT,
    GST_DEBUG_CATEGORY_INIT (gst_co_device_debug, "codevice", 0,
        "cudaoptics CUDA device"));

static void
gst_co_device_finalize (GObject * object)
{
  GstCoDevice *self = GST_CO_DEVICE (object);

  g_free (self->name);
#ifdef HAVE_GST_CUDA
  gst_clear_object ((GstCudaContext **) & self->cuda_context);
#endif
  G_OBJECT_CLASS (gst_co_device_parent_class)->finalize (object);
}

static void
gst_co_device_class_init (GstCoDeviceClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_co_device_finalize;
}

static void
gst_co_device_init (GstCoDevice * self)
{
  self->device_id = -1;
}

const gchar *
gst_co_cuda_error_text (int err)
{
#ifdef HAVE_CUDA
  return cudaGetErrorString ((cudaError_t) err);
#else
  return err ? "built without CUDA" : "no error";
#endif
}

gboolean
gst_co_cuda_check (GstObject * obj, int err, const gchar * what,
    const gchar * file, gint line)
{
  if (G_LIKELY (err == 0))
    return TRUE;
#ifdef HAVE_CUDA
  gst_debug_log (GST_CAT_DEFAULT, GST_LEVEL_ERROR, file, "", line,
      G_OBJECT (obj), "%s failed: %s (%s, %d)", what,
      cudaGetErrorString ((cudaError_t) err),
      cudaGetErrorName ((cudaError_t) err), err);
#else
  gst_debug_log (GST_CAT_DEFAULT, GST_LEVEL_ERROR, file, "", line,
      G_OBJECT (obj), "%s failed: built without CUDA", what);
#endif
  return FALSE;
}

#ifdef HAVE_CUDA
/* Why no device: the runtime says "driver version is insufficient" when
 * there is no driver at all (no libcuda), which misleads a user on a
 * machine without an NVIDIA GPU. */
static gchar *
no_device_reason (cudaError_t err)
{
  void *libcuda;

  if (err == cudaSuccess || err == cudaErrorNoDevice)
    return g_strdup ("no NVIDIA GPU found");
  libcuda = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!libcuda)
    return g_strdup ("no NVIDIA driver or GPU found: libcuda.so.1 is not "
        "installed");
  dlclose (libcuda);
  if (err == cudaErrorInsufficientDriver)
    return g_strdup_printf ("the NVIDIA driver is older than CUDA %d.%d, "
        "which this build needs", CUDART_VERSION / 1000,
        CUDART_VERSION % 1000 / 10);
  return g_strdup_printf ("no usable NVIDIA GPU: %s",
      cudaGetErrorString (err));
}
#endif

gboolean
gst_co_cuda_probe (gint device_id, gchar ** why)
{
#ifdef HAVE_CUDA
  int count = 0;
  cudaError_t err = cudaGetDeviceCount (&count);

  if (err != cudaSuccess || count == 0) {
    if (why)
      *why = no_device_reason (err);
    /* clear the sticky "no device" status for later callers */
    cudaGetLastError ();
    return FALSE;
  }
  if (device_id >= count) {
    if (why)
      *why = g_strdup_printf ("CUDA device %d requested but only %d present",
          device_id, count);
    return FALSE;
  }
  return TRUE;
#else
  (void) device_id;
  if (why)
    *why = g_strdup ("cudaoptics was built without CUDA");
  return FALSE;
#endif
}

GstCoDevice *
gst_co_device_new (gint device_id, gpointer cuda_context)
{
  GstCoDevice *self = g_object_new (GST_TYPE_CO_DEVICE, NULL);

  gst_object_ref_sink (self);
  self->device_id = MAX (device_id, 0);
#ifdef HAVE_GST_CUDA
  if (cuda_context) {
    guint id = 0;
    self->cuda_context = gst_object_ref (cuda_context);
    g_object_get (cuda_context, "cuda-device-id", &id, NULL);
    self->device_id = (gint) id;
  }
#else
  (void) cuda_context;
#endif
#ifdef HAVE_CUDA
  if (gst_co_device_push (self)) {
    struct cudaDeviceProp prop;
    int integrated = 0;
    gboolean have_prop = GST_CO_CUDA_OK (self,
        cudaGetDeviceProperties (&prop, self->device_id));
    if (have_prop)
      self->name = g_strdup (prop.name);
    /* integrated decides whether frames are read in place (mapped host
     * memory): a failed query must not silently read as "discrete" */
    if (!GST_CO_CUDA_OK (self, cudaDeviceGetAttribute (&integrated,
                cudaDevAttrIntegrated, self->device_id))) {
      integrated = have_prop ? prop.integrated : 0;
      GST_WARNING_OBJECT (self, "could not ask whether device %d is "
          "integrated; taking it as %s", self->device_id,
          integrated ? "integrated" : "discrete");
    }
    self->integrated = integrated != 0;
    gst_co_device_pop (self);
  }
#endif
  GST_INFO_OBJECT (self, "device %d (%s)%s", self->device_id,
      GST_STR_NULL (self->name), self->integrated ? ", integrated" : "");
  return self;
}

gboolean
gst_co_device_push (GstCoDevice * dev)
{
#ifdef HAVE_GST_CUDA
  if (dev->cuda_context)
    return gst_cuda_context_push (dev->cuda_context);
#endif
#ifdef HAVE_CUDA
  return GST_CO_CUDA_OK (dev, cudaSetDevice (dev->device_id));
#else
  return FALSE;
#endif
}

void
gst_co_device_pop (GstCoDevice * dev)
{
#ifdef HAVE_GST_CUDA
  if (dev->cuda_context)
    gst_cuda_context_pop (NULL);
#else
  (void) dev;
#endif
}
