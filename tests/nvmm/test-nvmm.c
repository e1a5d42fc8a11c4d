/* cudaoptics — LGPL-2.1-or-later
 *
 * memory:NVMM's foundation without GStreamer pipelines:
 * - the declarations (common/nvmm/gstconvmm-abi.h) against the sizes and
 *   offsets NVIDIA's references give on 64-bit Linux (V1/V2 and V3);
 * - the loader with the tests' library of each layout (--abi=2, --abi=3)
 *   and without one (--abi=0, CO_NVBUFSURFACE_LIB=none);
 * - surfaces described (pitch, plane offsets) or refused with a reason.
 */
#include <stddef.h>
#include <string.h>
#include <gst/gst.h>
#include "gstconvmm.h"
#include "gstcocaps.h"

static gint want_abi = 2;

#define OFF(type, field, v) g_assert_cmpuint (offsetof (type, field), ==, (v))
#define SIZE(type, v) g_assert_cmpuint (sizeof (type), ==, (v))

static void
test_layout (void)
{
  if (sizeof (void *) != 8) {
    g_test_skip ("the references' figures are for 64-bit Linux");
    return;
  }
  SIZE (CoNvBufPlaneParams, 232);
  OFF (CoNvBufPlaneParams, num_planes, 0);
  OFF (CoNvBufPlaneParams, width, 4);
  OFF (CoNvBufPlaneParams, height, 20);
  OFF (CoNvBufPlaneParams, pitch, 36);
  OFF (CoNvBufPlaneParams, offset, 52);
  OFF (CoNvBufPlaneParams, psize, 68);
  OFF (CoNvBufPlaneParams, bytesPerPix, 84);
  OFF (CoNvBufPlaneParams, _reserved, 104);

  /* NvBufSurfaceParams: the same up to mappedAddr.eglImage everywhere */
  OFF (CoNvBufSurfaceParamsHead, width, 0);
  OFF (CoNvBufSurfaceParamsHead, height, 4);
  OFF (CoNvBufSurfaceParamsHead, pitch, 8);
  OFF (CoNvBufSurfaceParamsHead, colorFormat, 12);
  OFF (CoNvBufSurfaceParamsHead, layout, 16);
  OFF (CoNvBufSurfaceParamsHead, bufferDesc, 24);
  OFF (CoNvBufSurfaceParamsHead, dataSize, 32);
  OFF (CoNvBufSurfaceParamsHead, dataPtr, 40);
  OFF (CoNvBufSurfaceParamsHead, planeParams, 48);
  OFF (CoNvBufSurfaceParamsHead, mappedAddr, 280);
  OFF (CoNvBufSurfaceParamsHead, mappedAddr.eglImage, 312);
  SIZE (CoNvBufSurfaceParamsHead, 320);
  /* V1/V2: NvBufSurfaceMappedAddr 72 B, paramex at 352, params 384 */
  OFF (CoNvBufSurfaceParamsV2, paramex, 352);
  OFF (CoNvBufSurfaceParamsV2, _reserved, 360);
  SIZE (CoNvBufSurfaceParamsV2, 384);
  /* V3: NvBufSurfaceMappedAddr 88 B, paramex 368, cudaBuffer 376, 416 */
  OFF (CoNvBufSurfaceParamsV3, paramex, 368);
  OFF (CoNvBufSurfaceParamsV3, cudaBuffer, 376);
  OFF (CoNvBufSurfaceParamsV3, _reserved, 384);
  SIZE (CoNvBufSurfaceParamsV3, 416);

  OFF (CoNvBufSurfaceHead, gpuId, 0);
  OFF (CoNvBufSurfaceHead, batchSize, 4);
  OFF (CoNvBufSurfaceHead, numFilled, 8);
  OFF (CoNvBufSurfaceHead, isContiguous, 12);
  OFF (CoNvBufSurfaceHead, memType, 16);
  OFF (CoNvBufSurfaceHead, surfaceList, 24);
  SIZE (CoNvBufSurfaceHead, 32);
  OFF (CoNvBufSurfaceV2, _reserved, 32);
  SIZE (CoNvBufSurfaceV2, 64);
  OFF (CoNvBufSurfaceV3, isImportedBuf, 32);
  OFF (CoNvBufSurfaceV3, _reserved, 40);
  SIZE (CoNvBufSurfaceV3, 72);

  /* CUDA's CUeglFrame (cudaEGL.h, 64-bit) */
  OFF (CoCUeglFrame, frame.pPitch, 0);
  OFF (CoCUeglFrame, width, 24);
  OFF (CoCUeglFrame, pitch, 36);
  OFF (CoCUeglFrame, planeCount, 40);
  OFF (CoCUeglFrame, frameType, 48);
  OFF (CoCUeglFrame, cuFormat, 56);
  SIZE (CoCUeglFrame, 64);

  OFF (CoNvBufCreateParams, gpuId, 0);
  OFF (CoNvBufCreateParams, width, 4);
  OFF (CoNvBufCreateParams, height, 8);
  OFF (CoNvBufCreateParams, size, 12);
  OFF (CoNvBufCreateParams, isContiguous, 16);
  OFF (CoNvBufCreateParams, colorFormat, 20);
  OFF (CoNvBufCreateParams, layout, 24);
  OFF (CoNvBufCreateParams, memType, 28);
  SIZE (CoNvBufCreateParams, 32);
  OFF (CoNvBufCreateParamsV3, _reserved, 32);
  SIZE (CoNvBufCreateParamsV3, 64);
}

static void
test_loader (void)
{
  g_assert_cmpint (gst_co_nvmm_available (), ==, want_abi != 0);
  g_assert_cmpint (gst_co_nvmm_abi (), ==, want_abi);
  if (want_abi)
    g_assert_cmpuint (gst_co_nvmm_surface_size (), ==, want_abi == 3 ?
        72 : 64);
}

/* Template caps offer memory:NVMM exactly where the library is, for the
 * formats a surface holds */
static void
test_template_caps (void)
{
  GstCaps *caps = gst_co_template_caps (4096, "video/x-raw",
      "{ RGBA, GRAY16_LE, NV12 }", "video/x-bayer", "{ rggb }", NULL);
  GstCaps *want = gst_caps_from_string ("video/x-raw(memory:NVMM), "
      "format=(string){ RGBA, NV12 }, width=(int)[1, 4096], "
      "height=(int)[1, 4096], framerate=(fraction)[0/1, 2147483647/1]");
  guint i, n_nvmm = 0;

  for (i = 0; i < gst_caps_get_size (caps); i++)
    if (gst_co_caps_is_nvmm (caps, i)) {
      GstCaps *one = gst_caps_copy_nth (caps, i);
      g_assert_true (gst_caps_is_equal (one, want));
      gst_caps_unref (one);
      n_nvmm++;
    }
  g_assert_cmpuint (n_nvmm, ==, want_abi ? 1 : 0);
  gst_caps_unref (want);
  gst_caps_unref (caps);
}

static gpointer
new_surface (GstVideoFormat format, gint w, gint h, guint32 mem_type,
    GstVideoInfo * info)
{
  gchar *why = NULL;
  gpointer surf;

  gst_video_info_set_format (info, format, w, h);
  surf = gst_co_nvmm_surface_new (info, mem_type, 0, &why);
  g_assert_null (why);
  g_assert_nonnull (surf);
  return surf;
}

static void
assert_refused (gpointer surf, gsize size, const GstVideoInfo * info,
    const gchar * says)
{
  GstCoNvmmPlanes p;
  gchar *why = NULL;

  g_assert_false (gst_co_nvmm_describe (surf, size, info, &p, &why));
  g_assert_nonnull (why);
  if (!strstr (why, says))
    g_error ("\"%s\" does not say \"%s\"", why, says);
  g_free (why);
}

static void
test_describe (void)
{
  const gsize size = gst_co_nvmm_surface_size ();
  GstVideoInfo info, other;
  CoNvBufSurfaceHead *h;
  GstCoNvmmPlanes p;
  gchar *why = NULL;
  gint64 row;

  if (!want_abi)
    return;
  /* NV12 at an odd size: chroma rounded up, rows padded, a real offset */
  h = new_surface (GST_VIDEO_FORMAT_NV12, 321, 241,
      CO_NVBUF_MEM_CUDA_DEVICE, &info);
  g_assert_true (gst_co_nvmm_describe (h, size, &info, &p, &why));
  g_assert_null (why);
  g_assert_cmpuint (p.n_planes, ==, 2);
  g_assert_cmpuint (p.mem_type, ==, CO_NVBUF_MEM_CUDA_DEVICE);
  g_assert_true (p.host_visible);       /* the tests' library says so */
  row = 321;
  g_assert_cmpint (p.pitch[0], >, row);
  g_assert_cmpint (p.pitch[1], >=, 2 * 161);
  g_assert_cmpuint (p.offset[1], !=, (guint) p.pitch[0] * 241);
  g_assert_true (p.data[1] == (guint8 *) h->surfaceList->dataPtr +
      p.offset[1]);

  assert_refused (h, 32, &info, "holds no NvBufSurface");
  gst_video_info_set_format (&other, GST_VIDEO_FORMAT_NV12, 320, 240);
  assert_refused (h, size, &other, "the surface is 321x241");
  gst_video_info_set_format (&other, GST_VIDEO_FORMAT_RGBA, 321, 241);
  assert_refused (h, size, &other, "not the caps' RGBA");
  h->batchSize = 4;
  assert_refused (h, size, &info, "a batch of 4 surfaces");
  h->batchSize = 1;
  h->memType = 9;
  assert_refused (h, size, &info, "not read here");
  h->memType = CO_NVBUF_MEM_CUDA_DEVICE;
  h->surfaceList->layout = CO_NVBUF_LAYOUT_BLOCK_LINEAR;
  assert_refused (h, size, &info, "block-linear");
  h->surfaceList->layout = CO_NVBUF_LAYOUT_PITCH;
  g_assert_true (gst_co_nvmm_describe (h, size, &info, &p, &why));
  gst_co_nvmm_surface_free (h);

  /* SURFACE_ARRAY: no pointer until mapped; the CPU's map gives the
   * library's addresses, EGL fails here (no display, as without one) */
  h = new_surface (GST_VIDEO_FORMAT_NV12, 64, 48, CO_NVBUF_MEM_SURFACE_ARRAY,
      &info);
  g_assert_true (gst_co_nvmm_describe (h, size, &info, &p, &why));
  g_assert_cmpint (p.access, ==, GST_CO_NVMM_UNMAPPED);
  g_assert_false (p.host_visible);
  g_assert_null (p.data[0]);
  g_assert_false (gst_co_nvmm_map_egl (&p, &why));
  g_assert_nonnull (why);
  g_assert_cmpint (p.access, ==, GST_CO_NVMM_UNMAPPED);
  g_clear_pointer (&why, g_free);
  g_assert_true (gst_co_nvmm_map_cpu (&p, TRUE, &why));
  g_assert_null (why);
  g_assert_cmpint (p.access, ==, GST_CO_NVMM_CPU_MAPPED);
  g_assert_true (p.host_visible);
  g_assert_true (p.data[1] == (guint8 *) h->surfaceList->mappedAddr.addr[1]);
  g_assert_true (p.data[1] - p.data[0] == (gssize) p.offset[1]);
  gst_co_nvmm_release (&p, TRUE);
  g_assert_cmpint (p.access, ==, GST_CO_NVMM_UNMAPPED);
  g_assert_null (p.data[0]);
  /* block-linear: CUDA's arrays only, the CPU says what to set */
  h->surfaceList->layout = CO_NVBUF_LAYOUT_BLOCK_LINEAR;
  g_assert_true (gst_co_nvmm_describe (h, size, &info, &p, &why));
  g_assert_false (gst_co_nvmm_map_cpu (&p, FALSE, &why));
  if (!strstr (why, "bl-output"))
    g_error ("\"%s\" does not say bl-output", why);
  g_clear_pointer (&why, g_free);
  gst_co_nvmm_surface_free (h);

  /* system memory: read in place, any gpuId */
  h = new_surface (GST_VIDEO_FORMAT_GRAY8, 17, 5, CO_NVBUF_MEM_SYSTEM, &info);
  g_assert_true (gst_co_nvmm_describe (h, size, &info, &p, &why));
  g_assert_cmpint (p.pitch[0], ==, 256 + 64);
  gst_co_nvmm_surface_free (h);
}

/* A buffer maps to the surface, sized as the library's struct */
static void
test_buffer_wrap (void)
{
  GstVideoInfo info;
  GstBuffer *buf;
  GstMapInfo map;
  gpointer surf;

  if (!want_abi)
    return;
  surf = new_surface (GST_VIDEO_FORMAT_BGRx, 40, 30, CO_NVBUF_MEM_CUDA_PINNED,
      &info);
  buf = gst_co_nvmm_buffer_wrap (surf);
  g_assert_true (gst_buffer_map (buf, &map, GST_MAP_READ));
  g_assert_true (map.data == surf);
  g_assert_cmpuint (map.size, ==, want_abi == 3 ? 72 : 64);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);       /* frees the surface (valgrind, ASan) */
}

int
main (int argc, char **argv)
{
  gint i, j;

  for (i = j = 1; i < argc; i++) {
    if (g_str_has_prefix (argv[i], "--abi="))
      want_abi = atoi (argv[i] + 6);
    else
      argv[j++] = argv[i];
  }
  argc = j;
  argv[j] = NULL;
  g_test_init (&argc, &argv, NULL);
  gst_init (&argc, &argv);
  g_test_add_func ("/nvmm/layout", test_layout);
  g_test_add_func ("/nvmm/loader", test_loader);
  g_test_add_func ("/nvmm/template-caps", test_template_caps);
  g_test_add_func ("/nvmm/describe", test_describe);
  g_test_add_func ("/nvmm/buffer-wrap", test_buffer_wrap);
  return g_test_run ();
}
