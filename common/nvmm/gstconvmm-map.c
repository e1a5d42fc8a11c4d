/* cudaoptics — LGPL-2.1-or-later
 *
 * memory:NVMM, surface arrays (gstconvmm.h): the Jetson's default memory
 * (nvarguscamerasrc, nvvidconv, nvv4l2decoder) has no pointer, only a
 * dmabuf.  The CPU reaches it through NvBufSurfaceMap; CUDA through an
 * EGLImage of it (NvBufSurfaceMapEglImage) registered with CUDA's EGL
 * interop, which gives device pointers for a pitch-linear surface and
 * CUDA arrays for a block-linear one, as NVIDIA's Jetson samples read
 * camera frames.  libcuda's EGL functions are resolved at run time, so
 * this file needs neither EGL nor CUDA headers and builds everywhere
 * (CI's aarch64 cross build compiles it).
 */
#include "gstconvmm-private.h"

#include <string.h>
#include <gmodule.h>

/* cuGraphicsEGLRegisterImage's CU_GRAPHICS_REGISTER_FLAGS_NONE: read and
 * written */
#define CO_CU_REGISTER_FLAGS_NONE 0

static struct
{
  GModule *module;
  CoCuGraphicsEGLRegisterImageFunc register_image;
  CoCuGraphicsResourceGetMappedEglFrameFunc get_frame;
  CoCuGraphicsUnregisterResourceFunc unregister;
} cu;

static gpointer
load_cuda (gpointer unused)
{
  /* the driver the process already runs on (the CUDA runtime loaded it) */
  cu.module = g_module_open ("libcuda.so.1", G_MODULE_BIND_LAZY |
      G_MODULE_BIND_LOCAL);
  if (cu.module && (!g_module_symbol (cu.module, "cuGraphicsEGLRegisterImage",
              (gpointer *) & cu.register_image) ||
          !g_module_symbol (cu.module, "cuGraphicsResourceGetMappedEglFrame",
              (gpointer *) & cu.get_frame) ||
          !g_module_symbol (cu.module, "cuGraphicsUnregisterResource",
              (gpointer *) & cu.unregister))) {
    g_module_close (cu.module);
    memset (&cu, 0, sizeof (cu));
  }
  return NULL;
}

static gboolean
have_cuda_egl (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, load_cuda, NULL);
  return cu.module != NULL;
}

static CoNvBufSurfaceParamsHead *
params_of (GstCoNvmmPlanes * p)
{
  return ((CoNvBufSurfaceHead *) p->surf)->surfaceList;
}

gboolean
gst_co_nvmm_map_cpu (GstCoNvmmPlanes * p, gboolean write, gchar ** why)
{
  const CoNvmmFuncs *fn = co_nvmm_funcs ();
  CoNvBufSurfaceParamsHead *s;
  guint i;

  g_return_val_if_fail (p->access == GST_CO_NVMM_UNMAPPED, FALSE);
  if (p->layout != CO_NVBUF_LAYOUT_PITCH) {
    *why = g_strdup_printf ("a block-linear %s surface, which the CPU "
        "backend cannot read: use the CUDA backend, or have the producer "
        "give pitch-linear surfaces (nvvidconv bl-output=false)",
        gst_co_nvmm_mem_type_name (p->mem_type));
    return FALSE;
  }
  if (!fn || fn->map (p->surf, 0, -1, write ? CO_NVBUF_MAP_READ_WRITE :
          CO_NVBUF_MAP_READ) != 0) {
    *why = g_strdup_printf ("NvBufSurfaceMap failed on the %s surface",
        gst_co_nvmm_mem_type_name (p->mem_type));
    return FALSE;
  }
  p->access = GST_CO_NVMM_CPU_MAPPED;
  /* the CPU's caches see what the hardware wrote */
  fn->sync_cpu (p->surf, 0, -1);
  s = params_of (p);
  for (i = 0; i < p->n_planes; i++) {
    p->data[i] = s->mappedAddr.addr[i];
    if (!p->data[i]) {
      *why = g_strdup_printf ("NvBufSurfaceMap gave no address for plane "
          "%u", i);
      gst_co_nvmm_release (p, FALSE);
      return FALSE;
    }
  }
  p->host_visible = TRUE;
  return TRUE;
}

gboolean
gst_co_nvmm_map_egl (GstCoNvmmPlanes * p, gchar ** why)
{
  const CoNvmmFuncs *fn = co_nvmm_funcs ();
  CoCUeglFrame f;
  void *image;
  int err;
  guint i;

  g_return_val_if_fail (p->access == GST_CO_NVMM_UNMAPPED, FALSE);
  if (!fn || !fn->map_egl) {
    *why = g_strdup ("this libnvbufsurface has no NvBufSurfaceMapEglImage "
        "(not a Jetson's)");
    return FALSE;
  }
  if (!have_cuda_egl ()) {
    *why = g_strdup ("libcuda.so.1 has no EGL interop "
        "(cuGraphicsEGLRegisterImage)");
    return FALSE;
  }
  if (fn->map_egl (p->surf, 0) != 0) {
    *why = g_strdup ("NvBufSurfaceMapEglImage failed (no EGL display: "
        "a headless session without the Tegra EGL driver?)");
    return FALSE;
  }
  p->access = GST_CO_NVMM_EGL;
  if (!(image = params_of (p)->mappedAddr.eglImage)) {
    *why = g_strdup ("NvBufSurfaceMapEglImage gave no EGLImage");
    gst_co_nvmm_release (p, FALSE);
    return FALSE;
  }
  err = cu.register_image (&p->resource, image, CO_CU_REGISTER_FLAGS_NONE);
  if (err != 0) {
    *why = g_strdup_printf ("cuGraphicsEGLRegisterImage failed (CUresult "
        "%d)", err);
    p->resource = NULL;
    gst_co_nvmm_release (p, FALSE);
    return FALSE;
  }
  memset (&f, 0, sizeof (f));
  err = cu.get_frame (&f, p->resource, 0, 0);
  if (err != 0 || f.planeCount < p->n_planes) {
    *why = g_strdup_printf ("cuGraphicsResourceGetMappedEglFrame failed "
        "(CUresult %d, %u planes)", err, f.planeCount);
    gst_co_nvmm_release (p, FALSE);
    return FALSE;
  }
  for (i = 0; i < p->n_planes && i < CO_CU_EGL_MAX_PLANES; i++) {
    if (f.frameType == CO_CU_EGL_FRAME_TYPE_PITCH) {
      /* every plane of a pitch-linear frame has the first one's pitch */
      p->data[i] = f.frame.pPitch[i];
      p->pitch[i] = (gint) f.pitch;
    } else {
      p->data[i] = NULL;
      p->array[i] = f.frame.pArray[i];
    }
  }
  return TRUE;
}

void
gst_co_nvmm_release (GstCoNvmmPlanes * p, gboolean wrote)
{
  const CoNvmmFuncs *fn = co_nvmm_funcs ();

  switch (p->access) {
    case GST_CO_NVMM_CPU_MAPPED:
      /* the hardware sees what the CPU wrote */
      if (wrote)
        fn->sync_device (p->surf, 0, -1);
      fn->unmap (p->surf, 0, -1);
      break;
    case GST_CO_NVMM_EGL:
      if (p->resource)
        cu.unregister (p->resource);
      fn->unmap_egl (p->surf, 0);
      break;
    default:
      return;
  }
  p->resource = NULL;
  memset (p->data, 0, sizeof (p->data));
  memset (p->array, 0, sizeof (p->array));
  p->access = GST_CO_NVMM_UNMAPPED;
}
