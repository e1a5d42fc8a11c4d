/* cudaoptics — LGPL-2.1-or-later
 *
 * memory:NVMM, the library (gstconvmm.h): libnvbufsurface opened with
 * GModule at the first question (plugin load: pad templates are made at
 * class_init), its layout version told from its symbols, and surfaces
 * made, freed and wrapped in buffers as NVIDIA's elements wrap theirs.
 */
#include "gstconvmm-private.h"

#include <string.h>
#include <gmodule.h>

GST_DEBUG_CATEGORY_STATIC (co_nvmm_debug);
#define GST_CAT_DEFAULT co_nvmm_debug

/* Where NVIDIA puts it: the soname and the dev link first (ld.so's paths,
 * as NVIDIA's own ctypes loader tries them), then the Jetson BSP
 * directories (tegra/, newer nvidia/) and DeepStream's on dGPU. */
static const gchar *const lib_paths[] = {
  "libnvbufsurface.so.1.0.0",
  "libnvbufsurface.so",
  "/usr/lib/aarch64-linux-gnu/tegra/libnvbufsurface.so",
  "/usr/lib/aarch64-linux-gnu/nvidia/libnvbufsurface.so",
  "/opt/nvidia/deepstream/deepstream/lib/libnvbufsurface.so",
};

static struct
{
  GModule *module;
  GstCoNvmmAbi abi;
  CoNvBufSurfaceCreateFunc create;
  CoNvBufSurfaceDestroyFunc destroy;
  CoNvmmFuncs fn;
  /* only the tests' library (tests/nvmm/) has it: its CUDA_DEVICE
   * surfaces are host memory on a machine without a GPU */
  int (*device_is_host) (void);
} lib;

static gboolean
resolve (const gchar * name, gpointer * fn)
{
  return g_module_symbol (lib.module, name, fn) && *fn;
}

static gboolean
open_library (const gchar * path)
{
  gpointer probe;

  lib.module = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (!lib.module) {
    GST_DEBUG ("%s: %s", path, g_module_error ());
    return FALSE;
  }
  if (!resolve ("NvBufSurfaceCreate", (gpointer *) & lib.create) ||
      !resolve ("NvBufSurfaceDestroy", (gpointer *) & lib.destroy) ||
      !resolve ("NvBufSurfaceMap", (gpointer *) & lib.fn.map) ||
      !resolve ("NvBufSurfaceUnMap", (gpointer *) & lib.fn.unmap) ||
      !resolve ("NvBufSurfaceSyncForCpu", (gpointer *) & lib.fn.sync_cpu) ||
      !resolve ("NvBufSurfaceSyncForDevice", (gpointer *) & lib.fn.sync_device)) {
    GST_WARNING ("%s lacks NvBufSurface functions: no memory:NVMM", path);
    g_module_close (lib.module);
    memset (&lib, 0, sizeof (lib));
    return FALSE;
  }
  /* Jetson only; their absence only closes the EGL path */
  if (!resolve ("NvBufSurfaceMapEglImage", (gpointer *) & lib.fn.map_egl) ||
      !resolve ("NvBufSurfaceUnMapEglImage", (gpointer *) & lib.fn.unmap_egl))
    lib.fn.map_egl = NULL, lib.fn.unmap_egl = NULL;
  if (!resolve ("co_test_nvbufsurface_device_is_host",
          (gpointer *) & lib.device_is_host))
    lib.device_is_host = NULL;
  /* NvBufSurfaceAllocate came with V2's paramex (DeepStream 6.1),
   * NvBufSurfaceGetDeviceInfo with V3 (DeepStream 8.0; inferred from the
   * references, see gst_co_nvmm_describe for the size check) */
  if (resolve ("NvBufSurfaceGetDeviceInfo", &probe))
    lib.abi = GST_CO_NVMM_ABI_V3;
  else if (resolve ("NvBufSurfaceAllocate", &probe))
    lib.abi = GST_CO_NVMM_ABI_V2;
  else
    lib.abi = GST_CO_NVMM_ABI_V1;
  GST_INFO ("memory:NVMM through %s (layout V%d)", path, lib.abi);
  return TRUE;
}

static gpointer
load (gpointer unused)
{
  const gchar *env = g_getenv ("CO_NVBUFSURFACE_LIB");
  guint i;

  GST_DEBUG_CATEGORY_INIT (co_nvmm_debug, "convmm", 0,
      "cudaoptics memory:NVMM");
  if (!g_module_supported ())
    return NULL;
  if (env && *env) {
    if (g_strcmp0 (env, "none") != 0 && !open_library (env))
      GST_WARNING ("CO_NVBUFSURFACE_LIB=%s could not be loaded", env);
    return NULL;
  }
  for (i = 0; i < G_N_ELEMENTS (lib_paths) && !lib.module; i++)
    open_library (lib_paths[i]);
  return NULL;
}

const CoNvmmFuncs *
co_nvmm_funcs (void)
{
  return gst_co_nvmm_available ()? &lib.fn : NULL;
}

gboolean
gst_co_nvmm_available (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, load, NULL);
  return lib.module != NULL;
}

GstCoNvmmAbi
gst_co_nvmm_abi (void)
{
  return gst_co_nvmm_available ()? lib.abi : GST_CO_NVMM_ABI_NONE;
}

gsize
gst_co_nvmm_surface_size (void)
{
  return gst_co_nvmm_abi () == GST_CO_NVMM_ABI_V3 ?
      sizeof (CoNvBufSurfaceV3) : sizeof (CoNvBufSurfaceV2);
}

const gchar *
gst_co_nvmm_library (void)
{
  return gst_co_nvmm_available ()? g_module_name (lib.module) : NULL;
}

/* What the CPU can read and write in place: host memory, pinned or
 * unified; device memory only where the tests' library says it is host
 * memory (no GPU there) */
gboolean
gst_co_nvmm_host_visible (guint32 mem_type)
{
  switch (mem_type) {
    case CO_NVBUF_MEM_SYSTEM:
    case CO_NVBUF_MEM_CUDA_PINNED:
    case CO_NVBUF_MEM_CUDA_UNIFIED:
      return TRUE;
    case CO_NVBUF_MEM_CUDA_DEVICE:
      return lib.device_is_host && lib.device_is_host ();
    default:
      return FALSE;
  }
}

gboolean
gst_co_nvmm_device_visible (guint32 mem_type)
{
  return mem_type == CO_NVBUF_MEM_CUDA_UNIFIED ||
      (mem_type == CO_NVBUF_MEM_CUDA_DEVICE && !(lib.device_is_host &&
          lib.device_is_host ()));
}

gpointer
gst_co_nvmm_surface_new (const GstVideoInfo * info, guint32 mem_type,
    guint32 gpu_id, gchar ** why)
{
  /* V3's size, zeroed: a V1/V2 library reads the head of it */
  CoNvBufCreateParamsV3 p;
  void *surf = NULL;
  guint32 color;

  if (!gst_co_nvmm_available ()) {
    *why = g_strdup ("no libnvbufsurface");
    return NULL;
  }
  if (!gst_co_nvmm_format (GST_VIDEO_INFO_FORMAT (info), &color)) {
    *why = g_strdup_printf ("%s has no NVMM surface here",
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)));
    return NULL;
  }
  memset (&p, 0, sizeof (p));
  p.params.gpuId = gpu_id;
  p.params.width = GST_VIDEO_INFO_WIDTH (info);
  p.params.height = GST_VIDEO_INFO_HEIGHT (info);
  p.params.colorFormat = color;
  p.params.layout = CO_NVBUF_LAYOUT_PITCH;
  p.params.memType = mem_type;
  if (lib.create (&surf, 1, &p) != 0 || !surf) {
    *why = g_strdup_printf ("NvBufSurfaceCreate failed (%ux%u %s, %s, "
        "GPU %u)", p.params.width, p.params.height,
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)),
        gst_co_nvmm_mem_type_name (mem_type), gpu_id);
    return NULL;
  }
  /* a created surface is filled by whoever writes it */
  ((CoNvBufSurfaceHead *) surf)->numFilled = 1;
  return surf;
}

void
gst_co_nvmm_surface_free (gpointer surf)
{
  if (surf && lib.destroy)
    lib.destroy (surf);
}

GstBuffer *
gst_co_nvmm_buffer_wrap (gpointer surf)
{
  const gsize size = gst_co_nvmm_surface_size ();
  GstBuffer *buf = gst_buffer_new ();

  /* mapping gives the NvBufSurface, sized as the library's struct, as
   * nvarguscamerasrc and DeepStream's elements make and check it */
  gst_buffer_append_memory (buf, gst_memory_new_wrapped (0, surf, size, 0,
          size, surf, (GDestroyNotify) gst_co_nvmm_surface_free));
  return buf;
}

GType
gst_co_nvmm_mem_type_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {CO_NVBUF_MEM_DEFAULT, "The platform's (CUDA device memory on dGPU, "
          "surface arrays on Jetson)", "default"},
    {CO_NVBUF_MEM_CUDA_PINNED, "Pinned host memory", "cuda-pinned"},
    {CO_NVBUF_MEM_CUDA_DEVICE, "CUDA device memory", "cuda-device"},
    {CO_NVBUF_MEM_CUDA_UNIFIED, "CUDA unified memory", "cuda-unified"},
    {CO_NVBUF_MEM_SURFACE_ARRAY, "Surface array (Jetson)", "surface-array"},
    {CO_NVBUF_MEM_SYSTEM, "System memory", "system"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&id)) {
    GType t = g_enum_register_static ("GstCoNvmmMemType", values);
    g_once_init_leave (&id, t);
  }
  return (GType) id;
}
