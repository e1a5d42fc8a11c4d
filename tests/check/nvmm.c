/* cudaoptics — LGPL-2.1-or-later
 *
 * memory:NVMM through the elements, with the tests' libnvbufsurface
 * (tests/nvmm/, CO_NVBUFSURFACE_LIB; check-nvmm-none runs without one):
 * - every element's pads offer memory:NVMM where a surface can hold one
 *   of their formats, and none without the library;
 * - NVMM in -> cudalensdistort -> NVMM out (and either side alone) gives
 *   the system-memory path's bytes, on random and natural frames, through
 *   surfaces whose rows are wider than the frame and whose NV12 chroma
 *   lies at its own offset;
 * - a chain of two elements fed NVMM keeps NVMM between them;
 * - cudacltcorrelate measures the same shifts from NVMM inputs as from
 *   system memory, and passes sink_0's surfaces on;
 * - SURFACE_ARRAY surfaces (the Jetson's default) in and out give the
 *   same bytes on the CPU backend (NvBufSurfaceMap); where EGL fails, as
 *   the library's does (no display), the CUDA backend refuses them with a
 *   message that says what to set, and the CPU backend block-linear ones;
 * - a surface of another GPU is refused with a message that says what to
 *   set, and so is an output the backend cannot write.
 * The surfaces come from appsrc, wrapped here from the library's
 * NvBufSurfaceCreate as NVIDIA's elements wrap theirs.  Where a GPU
 * answers, the library's CUDA surfaces are real device, managed and
 * pinned memory: planes are copied with its co_test_nvbufsurface_copy,
 * and the CPU backend is fed unified memory where a test asks for device
 * memory on its own GPU (the CPU cannot read that).
 */
#include <string.h>
#include <gmodule.h>
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include "family-check.h"
#include "gstconvmm.h"
#include "gstcoimage.h"
#include "../../include/cudaoptics/co-results.h"

static gboolean on_cuda;
/* every input surface of this memory (0: the tests' mix), block-linear */
static guint32 force_mem_type;
static gboolean block_linear;

/* the test library's extras (tests/nvmm/nvbufsurface-test.c) */
static int (*lib_copy) (void *dst, const void *src, size_t n);
static int (*lib_device_is_host) (void);
static int (*lib_egl) (void);

static void
open_test_library (void)
{
  const gchar *path = g_getenv ("CO_NVBUFSURFACE_LIB");
  GModule *m;

  if (!path || !strcmp (path, "none") || !(m = g_module_open (path,
              G_MODULE_BIND_LOCAL)))
    return;
  if (!g_module_symbol (m, "co_test_nvbufsurface_copy", (gpointer *) & lib_copy))
    lib_copy = NULL;
  if (!g_module_symbol (m, "co_test_nvbufsurface_device_is_host",
          (gpointer *) & lib_device_is_host))
    lib_device_is_host = NULL;
  if (!g_module_symbol (m, "co_test_nvbufsurface_egl", (gpointer *) & lib_egl))
    lib_egl = NULL;
  g_module_make_resident (m);
}

/* @n bytes between a plane and host memory, whichever side each is on */
static void
copy_bytes (gpointer dst, gconstpointer src, gsize n)
{
  if (lib_copy)
    fail_unless (lib_copy (dst, src, n) == 0, "co_test_nvbufsurface_copy");
  else
    memcpy (dst, src, n);
}

/* The memory a test's surface of @mem_type on GPU @gpu is made of: device
 * memory the CPU backend cannot read is given as unified memory */
static guint32
readable_type (guint32 mem_type, guint32 gpu)
{
  if (!on_cuda && mem_type == CO_NVBUF_MEM_CUDA_DEVICE && gpu == 0 &&
      lib_device_is_host && !lib_device_is_host ())
    return CO_NVBUF_MEM_CUDA_UNIFIED;
  return mem_type;
}

static const gchar *elements[] = {
  "cudalensdistort", "cudaomniunwrap", "cudafoveate", "cudashcentroid",
  "cudaaberration", "cudacltcorrelate",
};

/* Whether @caps has a memory:NVMM structure */
static gboolean
has_nvmm (GstCaps * caps)
{
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++)
    if (gst_co_caps_is_nvmm (caps, i))
      return TRUE;
  return FALSE;
}

/* Whether @caps has a system-memory format a surface holds */
static gboolean
has_nvmm_format (GstCaps * caps)
{
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_co_nvmm_structure (gst_caps_get_structure (caps, i));
    if (s) {
      gst_structure_free (s);
      return TRUE;
    }
  }
  return FALSE;
}

/* As gst-inspect-1.0 shows them: the factory's templates (the registry's,
 * renewed when the plugin loads) and the element's own */
GST_START_TEST (test_templates)
{
  const gboolean lib = gst_co_nvmm_available ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstElement *e = gst_element_factory_make (elements[i], NULL);
    GstElementFactory *f;
    const GList *l;
    gint n_nvmm = 0;

    fail_unless (e != NULL, "%s", elements[i]);
    f = gst_element_get_factory (e);
    for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
      GstStaticPadTemplate *t = l->data;
      GstCaps *caps = gst_static_pad_template_get_caps (t);
      GstPadTemplate *own = gst_element_class_get_pad_template
          (GST_ELEMENT_GET_CLASS (e), t->name_template);
      gboolean want = lib && has_nvmm_format (caps);

      fail_unless_equals_int (has_nvmm (caps), want);
      fail_unless_equals_int (has_nvmm (GST_PAD_TEMPLATE_CAPS (own)), want);
      n_nvmm += want;
      gst_caps_unref (caps);
    }
    /* every element writes a surface format on its source pad at least */
    fail_unless (!lib || n_nvmm >= 1, "%s offers no memory:NVMM", elements[i]);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* ---- surfaces in and out ---- */

static const guint32 mem_types[] = {
  CO_NVBUF_MEM_CUDA_DEVICE, CO_NVBUF_MEM_CUDA_PINNED,
  CO_NVBUF_MEM_CUDA_UNIFIED, CO_NVBUF_MEM_SYSTEM,
};

/* Frame @vf's planes into the surface's @p (@to_surface) or back, row by
 * row: the test library's rows are wider than the frame's */
static void
copy_frame (const GstCoNvmmPlanes * p, GstVideoFrame * vf,
    const GstVideoInfo * info, gboolean to_surface)
{
  guint i;
  gint y;

  for (i = 0; i < p->n_planes; i++) {
    const gint rows = GST_VIDEO_INFO_COMP_HEIGHT (info, i);
    const gint row = GST_VIDEO_INFO_COMP_WIDTH (info, i) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, i);
    fail_unless (p->pitch[i] > row);
    for (y = 0; y < rows; y++) {
      guint8 *surf = p->data[i] + (gsize) y * p->pitch[i];
      guint8 *frame = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (vf, i) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (vf, i);
      if (to_surface)
        copy_bytes (surf, frame, row);
      else
        copy_bytes (frame, surf, row);
    }
  }
}

/* @sys's pixels in a new surface of @mem_type on GPU @gpu (a surface
 * array's written through the library's CPU mapping; then marked
 * block-linear where a test asks) */
static GstBuffer *
to_nvmm (GstBuffer * sys, const GstVideoInfo * info, guint32 mem_type,
    guint32 gpu)
{
  gchar *why = NULL;
  gpointer surf = gst_co_nvmm_surface_new (info, readable_type (mem_type,
          gpu), gpu, &why);
  GstCoNvmmPlanes p;
  GstVideoFrame vf;
  GstBuffer *buf;

  fail_unless (surf != NULL, "%s", why);
  fail_unless (gst_co_nvmm_describe (surf, gst_co_nvmm_surface_size (), info,
          &p, &why), "%s", why);
  if (p.access == GST_CO_NVMM_UNMAPPED)
    fail_unless (gst_co_nvmm_map_cpu (&p, TRUE, &why), "%s", why);
  fail_unless (gst_video_frame_map (&vf, (GstVideoInfo *) info, sys,
          GST_MAP_READ));
  copy_frame (&p, &vf, info, TRUE);
  gst_video_frame_unmap (&vf);
  gst_co_nvmm_release (&p, TRUE);
  if (block_linear)
    ((CoNvBufSurfaceHead *) surf)->surfaceList->layout =
        CO_NVBUF_LAYOUT_BLOCK_LINEAR;
  buf = gst_co_nvmm_buffer_wrap (surf);
  GST_BUFFER_PTS (buf) = GST_BUFFER_PTS (sys);
  GST_BUFFER_DURATION (buf) = GST_BUFFER_DURATION (sys);
  return buf;
}

/* An output surface's pixels as a packed system frame; it must be one of
 * ours: one memory of the library's struct size, its rows padded */
static GstBuffer *
from_nvmm (GstBuffer * nv, const GstVideoInfo * info)
{
  GstBuffer *out = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstCoNvmmPlanes p;
  GstVideoFrame vf;
  GstMapInfo map;
  gchar *why = NULL;
  guint i;

  fail_unless_equals_int (gst_buffer_n_memory (nv), 1);
  fail_unless (gst_buffer_map (nv, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, gst_co_nvmm_surface_size ());
  fail_unless (gst_co_nvmm_describe (map.data, map.size, info, &p, &why),
      "%s", why);
  if (p.access == GST_CO_NVMM_UNMAPPED)
    fail_unless (gst_co_nvmm_map_cpu (&p, FALSE, &why), "%s", why);
  fail_unless (gst_video_frame_map (&vf, (GstVideoInfo *) info, out,
          GST_MAP_WRITE));
  /* each further plane at its own offset, not where the last one ends */
  for (i = 1; i < p.n_planes; i++)
    fail_unless (p.offset[i] != p.offset[i - 1] + p.pitch[i - 1] *
        GST_VIDEO_INFO_COMP_HEIGHT (info, i - 1));
  copy_frame (&p, &vf, info, FALSE);
  gst_video_frame_unmap (&vf);
  gst_co_nvmm_release (&p, FALSE);
  gst_buffer_unmap (nv, &map);
  return out;
}

/* A natural picture (tests/data/natural) as a frame of @info: its grey
 * levels in every byte of a pixel, each channel shifted a little */
static GstBuffer *
natural_frame (const GstVideoInfo * info)
{
  gchar *path = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"), "natural",
      "coffee.png", NULL), *why = NULL;
  gint w = 0, h = 0, x, y;
  guint8 *g = gst_co_decode_gray (path, &w, &h, &why);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame vf;
  guint i;

  fail_unless (g != NULL, "%s: %s", path, GST_STR_NULL (why));
  fail_unless (gst_video_frame_map (&vf, (GstVideoInfo *) info, buf,
          GST_MAP_WRITE));
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (&vf); i++) {
    const gint rows = GST_VIDEO_INFO_COMP_HEIGHT (info, i);
    const gint row = GST_VIDEO_INFO_COMP_WIDTH (info, i) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, i);
    for (y = 0; y < rows; y++)
      for (x = 0; x < row; x++)
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, i))[(gsize) y *
            GST_VIDEO_FRAME_PLANE_STRIDE (&vf, i) + x] =
            g[(gsize) (y % h) * w + (x + 7 * i) % w] + 3 * (x % 4);
  }
  gst_video_frame_unmap (&vf);
  g_free (g);
  g_free (path);
  return buf;
}

/* The caps element "a" of the last run gave downstream (NULL: none), and
 * element "b"'s host-copies (G_MAXUINT64: no b) */
static GstCaps *mid_caps;
static guint64 b_host_copies;

/* appsrc (@in_nvmm) ! @element ! appsink (@out_nvmm) with @n frames of
 * @info: the outputs as packed system frames, or NULL and *@error the
 * first error's text */
static GstBuffer **
run (const gchar * element, const GstVideoInfo * info, GstBuffer ** frames,
    gint n, gboolean in_nvmm, gboolean out_nvmm, guint32 mem_type,
    guint32 gpu, gchar ** error)
{
  const gchar *fmt = GST_VIDEO_INFO_NAME (info);
  gchar *launch = g_strdup_printf ("appsrc name=src format=time caps=\""
      "video/x-raw%s,format=%s,width=%d,height=%d,framerate=30/1\" ! %s "
      "backend=%s ! appsink name=sink sync=false caps=\"video/x-raw%s\"",
      in_nvmm ? "(memory:NVMM)" : "", fmt, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), element, on_cuda ? "cuda" : "cpu",
      out_nvmm ? "(memory:NVMM)" : "");
  GstElement *pipe = gst_parse_launch (launch, NULL), *src, *sink, *a;
  GstBuffer **outs = g_new0 (GstBuffer *, n);
  GstBus *bus;
  GstMessage *m;
  gint i;

  fail_unless (pipe != NULL, "%s", launch);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (i = 0; i < n; i++) {
    GstBuffer *b = in_nvmm ? to_nvmm (frames[i], info, force_mem_type ?
        force_mem_type : mem_types[i % G_N_ELEMENTS (mem_types)] ==
        CO_NVBUF_MEM_CUDA_DEVICE ? mem_type : mem_types[i %
            G_N_ELEMENTS (mem_types)], gpu) : gst_buffer_ref (frames[i]);
    GST_BUFFER_PTS (b) = gst_util_uint64_scale (i, GST_SECOND, 30);
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  for (i = 0; i < n; i++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        10 * GST_SECOND);
    GstCaps *caps;
    if (!s)
      break;
    caps = gst_sample_get_caps (s);
    fail_unless_equals_int (gst_co_caps_is_nvmm (caps, 0), out_nvmm);
    outs[i] = out_nvmm ? from_nvmm (gst_sample_get_buffer (s), info) :
        gst_buffer_ref (gst_sample_get_buffer (s));
    gst_sample_unref (s);
  }
  bus = gst_element_get_bus (pipe);
  m = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR |
      GST_MESSAGE_EOS);
  /* a chain's first element, named a: what it gave the next */
  g_clear_pointer (&mid_caps, gst_caps_unref);
  if ((a = gst_bin_get_by_name (GST_BIN (pipe), "a"))) {
    GstPad *pad = gst_element_get_static_pad (a, "src");
    mid_caps = gst_pad_get_current_caps (pad);
    gst_object_unref (pad);
    gst_object_unref (a);
  }
  b_host_copies = G_MAXUINT64;
  if ((a = gst_bin_get_by_name (GST_BIN (pipe), "b"))) {
    g_object_get (a, "host-copies", &b_host_copies, NULL);
    gst_object_unref (a);
  }
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    *error = g_strdup (err->message);
    g_error_free (err);
    for (i = 0; i < n; i++)
      gst_clear_buffer (&outs[i]);
    g_clear_pointer (&outs, g_free);
  }
  if (m)
    gst_message_unref (m);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  return outs;
}

static gboolean
all_zero (GstBuffer * b)
{
  GstMapInfo map;
  gsize i;
  gboolean zero = TRUE;

  gst_buffer_map (b, &map, GST_MAP_READ);
  for (i = 0; i < map.size && zero; i++)
    zero = map.data[i] == 0;
  gst_buffer_unmap (b, &map);
  return zero;
}

static void
free_frames (GstBuffer ** f, gint n)
{
  gint i;

  for (i = 0; f && i < n; i++)
    gst_clear_buffer (&f[i]);
  g_free (f);
}

/* The system path's bytes through NVMM on either side and both */
static void
same_bytes (const gchar * element, GstVideoFormat format, gint w, gint h)
{
  const gint n = 6;
  GRand *rand = g_rand_new_with_seed (42 + format);
  GstBuffer **in = g_new0 (GstBuffer *, n), **ref, **got;
  GstVideoInfo info;
  gchar *error = NULL;
  gint i, k, md;

  gst_video_info_set_format (&info, format, w, h);
  for (i = 0; i < n; i++)
    in[i] = i % 2 ? natural_frame (&info) : make_frame (&info, rand, FALSE);
  ref = run (element, &info, in, n, FALSE, FALSE, 0, 0, &error);
  fail_unless (ref != NULL, "%s", error);
  for (k = 1; k < 4; k++) {
    got = run (element, &info, in, n, (k & 1) != 0, (k & 2) != 0,
        CO_NVBUF_MEM_CUDA_DEVICE, 0, &error);
    fail_unless (got != NULL, "%s %s in %d out %d: %s", element,
        GST_VIDEO_INFO_NAME (&info), k & 1, (k & 2) / 2, error);
    for (i = 0; i < n; i++) {
      fail_unless (got[i] != NULL && ref[i] != NULL, "frame %d missing", i);
      fail_if (all_zero (ref[i]), "frame %d is black", i);
      fail_unless (frames_equal (&info, ref[i], got[i], &md),
          "%s %s %dx%d frame %d (in %d out %d): off by %d", element,
          GST_VIDEO_INFO_NAME (&info), w, h, i, k & 1, (k & 2) / 2, md);
    }
    free_frames (got, n);
  }
  free_frames (ref, n);
  free_frames (in, n);
  g_rand_free (rand);
}

GST_START_TEST (test_lensdistort_same_bytes)
{
  if (!gst_co_nvmm_available ())
    return;
  same_bytes ("cudalensdistort k1=-0.2", GST_VIDEO_FORMAT_NV12, 320, 240);
  same_bytes ("cudalensdistort k1=-0.2", GST_VIDEO_FORMAT_NV12, 161, 97);
  same_bytes ("cudalensdistort k1=0.15", GST_VIDEO_FORMAT_RGBA, 200, 120);
  same_bytes ("cudalensdistort k1=0.15", GST_VIDEO_FORMAT_BGRx, 67, 45);
  same_bytes ("cudalensdistort k1=-0.1", GST_VIDEO_FORMAT_GRAY8, 99, 64);
}

GST_END_TEST;

/* Two elements in NVMM: the link between them stays in NVMM untold (the
 * sink pad asks for it first, an NVMM input's output offers it first),
 * the bytes are the system chain's, and the second element copies no
 * frame to or from the host (its property host-copies) */
GST_START_TEST (test_chain_stays_nvmm)
{
  gchar *chain = g_strdup_printf ("cudalensdistort name=a k1=-0.2 "
      "backend=%s ! cudalensdistort name=b k1=0.1", on_cuda ? "cuda" : "cpu");

  if (!gst_co_nvmm_available ()) {
    g_free (chain);
    return;
  }
  same_bytes (chain, GST_VIDEO_FORMAT_NV12, 160, 120);
  /* the last run: NVMM in and out */
  if (!(mid_caps != NULL && gst_co_caps_is_nvmm (mid_caps, 0))) {
    gchar *c = mid_caps ? gst_caps_to_string (mid_caps) : g_strdup ("none");
    fail ("the chain left NVMM: %s", c);
    g_free (c);
  }
  fail_unless (b_host_copies == 0, "the second element copied %"
      G_GUINT64_FORMAT " frames through the host", b_host_copies);
  g_clear_pointer (&mid_caps, gst_caps_unref);
  g_free (chain);
}

GST_END_TEST;

/* One frame of @mem_type on GPU @gpu refused: the error says @words */
static void
refused (guint32 mem_type, guint32 gpu, const gchar * const *words)
{
  GstVideoInfo info;
  GstBuffer *in[1];
  GstBuffer **got;
  gchar *error = NULL;
  GRand *rand = g_rand_new_with_seed (7);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  in[0] = make_frame (&info, rand, FALSE);
  got = run ("cudalensdistort k1=-0.2", &info, in, 1, TRUE, TRUE, mem_type,
      gpu, &error);
  fail_unless (got == NULL && error != NULL, "not refused");
  for (; *words; words++)
    fail_unless (strstr (error, *words) != NULL, "\"%s\" lacks \"%s\"", error,
        *words);
  g_free (error);
  gst_buffer_unref (in[0]);
  g_rand_free (rand);
}

GST_START_TEST (test_other_gpu_refused)
{
  const gchar *words[] = { "GPU 1", "device-id=1", NULL };

  if (!gst_co_nvmm_available ())
    return;
  refused (CO_NVBUF_MEM_CUDA_DEVICE, 1, words);
}

GST_END_TEST;

/* Surface arrays, the Jetson's default: the CPU backend reads and writes
 * them through NvBufSurfaceMap, the system path's bytes; the CUDA backend
 * through EGL, which fails with the tests' library as without a display:
 * refused, saying what to set.  Where the library makes real EGL images
 * (CO_TEST_NVBUF_EGL on a machine with NVIDIA's EGL driver; 4-byte
 * formats), the CUDA backend reads and writes them through CUDA's EGL
 * interop: their CUDA arrays, in and out, block-linear marked or not. */
GST_START_TEST (test_surface_array)
{
  const gchar *words[] = { "NVBUF_MEM_SURFACE_ARRAY", "EGL",
    "nvbuf-memory-type", "system memory", "backend=cpu", NULL
  };

  if (!gst_co_nvmm_available ())
    return;
  force_mem_type = CO_NVBUF_MEM_SURFACE_ARRAY;
  /* run-built-tests.sh's check-nvmm-cuda-egl: no silent refusal */
  if (on_cuda && !g_strcmp0 (g_getenv ("CO_TEST_NVBUF_EGL"), "require"))
    fail_unless (lib_egl && lib_egl (), "no EGL images here");
  if (on_cuda && lib_egl && lib_egl ()) {
    GST_INFO ("real EGL images");
    same_bytes ("cudalensdistort k1=0.15 nvmm-memory-type=surface-array",
        GST_VIDEO_FORMAT_RGBA, 200, 120);
    same_bytes ("cudalensdistort k1=-0.3 nvmm-memory-type=surface-array",
        GST_VIDEO_FORMAT_BGRx, 67, 45);
    block_linear = TRUE;
    same_bytes ("cudalensdistort k1=0.15 nvmm-memory-type=surface-array",
        GST_VIDEO_FORMAT_RGBA, 128, 64);
    block_linear = FALSE;
  } else if (on_cuda) {
    refused (CO_NVBUF_MEM_SURFACE_ARRAY, 0, words);
  } else {
    same_bytes ("cudalensdistort k1=-0.2 nvmm-memory-type=surface-array",
        GST_VIDEO_FORMAT_NV12, 161, 97);
    same_bytes ("cudalensdistort k1=0.15 nvmm-memory-type=surface-array",
        GST_VIDEO_FORMAT_RGBA, 200, 120);
  }
  force_mem_type = 0;
}

GST_END_TEST;

/* A block-linear surface array: the CPU cannot read one (CUDA reads it as
 * arrays through EGL) */
GST_START_TEST (test_block_linear_refused)
{
  const gchar *cpu[] = { "block-linear", "bl-output", NULL };
  const gchar *cuda[] = { "NVBUF_MEM_SURFACE_ARRAY", "EGL", NULL };

  /* real EGL images (test_surface_array) are read */
  if (!gst_co_nvmm_available () || (on_cuda && lib_egl && lib_egl ()))
    return;
  block_linear = TRUE;
  refused (CO_NVBUF_MEM_SURFACE_ARRAY, 0, on_cuda ? cuda : cpu);
  block_linear = FALSE;
}

GST_END_TEST;

/* An output in surfaces the backend cannot write names the property: on
 * CUDA surface arrays (EGL fails here), on the CPU device memory (where a
 * GPU makes it real: nothing is refused otherwise) */
GST_START_TEST (test_output_memory_refused)
{
  const gboolean device = lib_device_is_host && !lib_device_is_host ();
  const gchar *words[] = { "write", on_cuda ? "NVBUF_MEM_SURFACE_ARRAY" :
    "NVBUF_MEM_CUDA_DEVICE", "nvmm-memory-type", NULL
  };
  gchar *element = g_strdup_printf ("cudalensdistort k1=-0.2 "
      "nvmm-memory-type=%s", on_cuda ? "surface-array" : "cuda-device");
  GstVideoInfo info;
  GstBuffer *in[1], **got;
  gchar *error = NULL;
  GRand *rand = g_rand_new_with_seed (9);
  const gchar *const *w;

  if (!gst_co_nvmm_available () || !(on_cuda || device) ||
      (on_cuda && lib_egl && lib_egl ())) {
    g_rand_free (rand);
    g_free (element);
    return;
  }
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  in[0] = make_frame (&info, rand, FALSE);
  got = run (element, &info, in, 1, FALSE, TRUE, 0, 0, &error);
  fail_unless (got == NULL && error != NULL, "not refused");
  for (w = words; *w; w++)
    fail_unless (strstr (error, *w) != NULL, "\"%s\" lacks \"%s\"", error,
        *w);
  g_free (error);
  g_free (element);
  gst_buffer_unref (in[0]);
  g_rand_free (rand);
}

GST_END_TEST;

/* ---- the aggregator ---- */

/* Two GRAY8 views of a natural picture 2 and 1 pixels apart, through
 * cudacltcorrelate from @nvmm memory: the results of each frame, and
 * (NVMM) the output buffers are sink_0's surfaces */
static GPtrArray *
correlate (gboolean nvmm)
{
  const gint w = 192, h = 144, n = 3;
  gchar *path = g_build_filename (g_getenv ("CO_TEST_DATA_DIR"), "natural",
      "chelsea.png", NULL), *why = NULL, *launch;
  gint gw = 0, gh = 0, i, v, y;
  guint8 *g = gst_co_decode_gray (path, &gw, &gh, &why);
  GstElement *pipe, *src[2], *sink;
  GPtrArray *res = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GstVideoInfo info;

  fail_unless (g != NULL && gw >= w + 4 && gh >= h + 4, "%s", why);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  launch = g_strdup_printf ("cudacltcorrelate name=c backend=%s ! appsink "
      "name=sink sync=false appsrc name=s0 format=time caps=\"video/x-raw%s,"
      "format=GRAY8,width=%d,height=%d,framerate=30/1\" ! c.sink_0 appsrc "
      "name=s1 format=time caps=\"video/x-raw%s,format=GRAY8,width=%d,"
      "height=%d,framerate=30/1\" ! c.sink_1", on_cuda ? "cuda" : "cpu",
      nvmm ? "(memory:NVMM)" : "", w, h, nvmm ? "(memory:NVMM)" : "", w, h);
  pipe = gst_parse_launch (launch, NULL);
  fail_unless (pipe != NULL, "%s", launch);
  src[0] = gst_bin_get_by_name (GST_BIN (pipe), "s0");
  src[1] = gst_bin_get_by_name (GST_BIN (pipe), "s1");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (i = 0; i < n; i++)
    for (v = 0; v < 2; v++) {
      GstBuffer *sys = gst_buffer_new_allocate (NULL, info.size, NULL), *b;
      GstMapInfo m;
      gst_buffer_map (sys, &m, GST_MAP_WRITE);
      for (y = 0; y < h; y++)
        memcpy (m.data + (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (&info, 0),
            g + (gsize) (y + v + i) * gw + 2 * v, w);
      gst_buffer_unmap (sys, &m);
      GST_BUFFER_PTS (sys) = gst_util_uint64_scale (i, GST_SECOND, 30);
      GST_BUFFER_DURATION (sys) = gst_util_uint64_scale (1, GST_SECOND, 30);
      b = nvmm ? to_nvmm (sys, &info, mem_types[(i + v) % 4], 0) :
          gst_buffer_ref (sys);
      gst_buffer_unref (sys);
      fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src[v]),
              b), GST_FLOW_OK);
    }
  gst_app_src_end_of_stream (GST_APP_SRC (src[0]));
  gst_app_src_end_of_stream (GST_APP_SRC (src[1]));
  for (i = 0; i < n; i++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        10 * GST_SECOND);
    const GstStructure *st;
    fail_unless (s != NULL, "output %d missing (nvmm %d)", i, nvmm);
    st = gst_co_buffer_get_results (gst_sample_get_buffer (s),
        "GstCoCltCorrelation");
    fail_unless (st != NULL);
    g_ptr_array_add (res, gst_structure_copy (st));
    /* output=frames: sink_0's frames as they came */
    fail_unless_equals_int (gst_co_caps_is_nvmm (gst_sample_get_caps (s), 0),
        nvmm);
    if (nvmm)
      gst_buffer_unref (from_nvmm (gst_sample_get_buffer (s), &info));
    gst_sample_unref (s);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src[0]);
  gst_object_unref (src[1]);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  g_free (path);
  g_free (g);
  return res;
}

GST_START_TEST (test_cltcorrelate_same_results)
{
  GPtrArray *ref, *got;
  guint i;

  if (!gst_co_nvmm_available ())
    return;
  ref = correlate (FALSE);
  got = correlate (TRUE);
  fail_unless_equals_int (ref->len, got->len);
  for (i = 0; i < ref->len; i++) {
    GstStructure *a = g_ptr_array_index (ref, i), *b =
        g_ptr_array_index (got, i);
    const gchar *fields[] = { "shift-x", "shift-y", "strength" };
    guint f;
    /* the timestamps aside: the same measures, bit for bit */
    for (f = 0; f < G_N_ELEMENTS (fields); f++) {
      GBytes *ba = g_value_get_boxed (gst_structure_get_value (a, fields[f]));
      GBytes *bb = g_value_get_boxed (gst_structure_get_value (b, fields[f]));
      fail_unless (g_bytes_equal (ba, bb), "frame %u: %s differs", i,
          fields[f]);
    }
  }
  g_ptr_array_unref (ref);
  g_ptr_array_unref (got);
}

GST_END_TEST;

static Suite *
nvmm_suite (gboolean cuda)
{
  Suite *s = suite_create ("nvmm");
  TCase *tc = tcase_create ("general");

  on_cuda = cuda;
  open_test_library ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_templates);
  tcase_add_test (tc, test_lensdistort_same_bytes);
  tcase_add_test (tc, test_chain_stays_nvmm);
  tcase_add_test (tc, test_other_gpu_refused);
  tcase_add_test (tc, test_surface_array);
  tcase_add_test (tc, test_block_linear_refused);
  tcase_add_test (tc, test_output_memory_refused);
  tcase_add_test (tc, test_cltcorrelate_same_results);
  return s;
}

CO_CHECK_MAIN (nvmm);
