/* cudaoptics — LGPL-2.1-or-later
 *
 * Each mode of GstCoBaseFilter through a small test-only subclass, on both
 * backends (the CUDA one where a device is usable): a nearest scaler
 * (RESIZE), GRAY8 and Bayer to RGBA (CONVERT), a mean-intensity analyser
 * (ANALYSE) with its results on the buffers; caps cases (size fixed
 * downstream, a size change while PLAYING, passthrough kept, system and
 * CUDA memory both ways) and a frame from a foreign CUDA context.
 */
#include "family-check.h"
#include "gstcobasefilter.h"
#include <gst/app/gstappsink.h>
#include "modes-ops.h"
#include "gstcometa.h"
#include "gstcohostmemory.h"
#include "../../include/cudaoptics/co-results.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#else
int
mo_scale_cuda (const CoFrame * in, const CoFrame * out, void *stream)
{
  return 999;
}

int
mo_to_rgba_cuda (const CoFrame * in, const CoFrame * out, void *stream)
{
  return 999;
}

int
mo_sum_cuda (const CoFrame * in, unsigned long long *dev_sum, void *stream)
{
  return 999;
}
#endif

/* every test element runs its maths per pixel on the host, or launches */
#define FOR_EACH_PX(f, body) G_STMT_START { gint x, y; \
  for (y = 0; y < (f)->height; y++) for (x = 0; x < (f)->width; x++) body; \
} G_STMT_END

/* ---- RESIZE: nearest scaler by an integer factor ---- */

typedef struct
{
  GstCoBaseFilter parent;
  gint factor;
} TestScale;
typedef GstCoBaseFilterClass TestScaleClass;
GType test_scale_get_type (void);
G_DEFINE_TYPE (TestScale, test_scale, GST_TYPE_CO_BASE_FILTER);

static void
test_scale_get_output_size (GstCoBaseFilter * base, const GstVideoInfo * in,
    gint * w, gint * h)
{
  gint f;

  GST_OBJECT_LOCK (base);
  f = ((TestScale *) base)->factor;
  GST_OBJECT_UNLOCK (base);
  *w = GST_VIDEO_INFO_WIDTH (in) * f;
  *h = GST_VIDEO_INFO_HEIGHT (in) * f;
}

static GstFlowReturn
test_scale_process (GstCoBaseFilter * base, const CoFrame * in, CoFrame * out)
{
  if (base->engine.device)
    return gst_co_element_cuda_ok (base, mo_scale_cuda (in, out,
            base->engine.stream), "scaling") ? GST_FLOW_OK : GST_FLOW_ERROR;
  FOR_EACH_PX (out, mo_scale_px (in, out, x, y));
  return GST_FLOW_OK;
}

static void
test_scale_set_property (GObject * o, guint id, const GValue * v,
    GParamSpec * p)
{
  GST_OBJECT_LOCK (o);
  ((TestScale *) o)->factor = g_value_get_int (v);
  GST_OBJECT_UNLOCK (o);
  /* the only thing a size property does: the next frame renegotiates */
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (o));
}

static void
test_scale_get_property (GObject * o, guint id, GValue * v, GParamSpec * p)
{
  GST_OBJECT_LOCK (o);
  g_value_set_int (v, ((TestScale *) o)->factor);
  GST_OBJECT_UNLOCK (o);
}

static void
test_scale_class_init (TestScaleClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);

  oc->set_property = test_scale_set_property;
  oc->get_property = test_scale_get_property;
  g_object_class_install_property (oc, 1, g_param_spec_int ("factor",
          "Factor", "Scale factor", 1, 4, 2, G_PARAM_READWRITE));
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "test scale", "Filter/Video", "nearest scaler", "cudaoptics tests");
  gst_co_base_filter_class_add_video_templates (GST_ELEMENT_CLASS (klass),
      "{ GRAY8, RGBA }", 8192);
  klass->mode = GST_CO_FILTER_RESIZE;
  klass->get_output_size = test_scale_get_output_size;
  klass->process = test_scale_process;
}

static void
test_scale_init (TestScale * self)
{
  self->factor = 2;
}

/* ---- CONVERT: GRAY8 or Bayer to RGBA ---- */

static GstFlowReturn
test_rgba_process (GstCoBaseFilter * base, const CoFrame * in, CoFrame * out)
{
  if (in->bayer != base->in.bayer || (out->format != CO_FORMAT_RGBA &&
          out->format != CO_FORMAT_RGBA64_LE))
    return GST_FLOW_NOT_NEGOTIATED;
  if (base->engine.device)
    return gst_co_element_cuda_ok (base, mo_to_rgba_cuda (in, out,
            base->engine.stream), "converting") ? GST_FLOW_OK : GST_FLOW_ERROR;
  FOR_EACH_PX (out, mo_to_rgba_px (in, out, x, y));
  return GST_FLOW_OK;
}

typedef GstCoBaseFilter TestGray;
typedef GstCoBaseFilterClass TestGrayClass;
GType test_gray_get_type (void);
G_DEFINE_TYPE (TestGray, test_gray, GST_TYPE_CO_BASE_FILTER);

static void
test_gray_class_init (TestGrayClass * klass)
{
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);

  gst_element_class_set_static_metadata (ec, "test gray", "Filter/Video",
      "GRAY8 to RGBA", "cudaoptics tests");
  gst_co_base_filter_class_add_template (ec, GST_PAD_SINK, "video/x-raw",
      "GRAY8", 8192);
  gst_co_base_filter_class_add_template (ec, GST_PAD_SRC, "video/x-raw",
      "{ RGBA, RGBA64_LE }", 8192);
  klass->mode = GST_CO_FILTER_CONVERT;
  klass->process = test_rgba_process;
}

static void
test_gray_init (TestGray * self)
{
}

typedef GstCoBaseFilter TestBayer;
typedef GstCoBaseFilterClass TestBayerClass;
GType test_bayer_get_type (void);
G_DEFINE_TYPE (TestBayer, test_bayer, GST_TYPE_CO_BASE_FILTER);

static void
test_bayer_class_init (TestBayerClass * klass)
{
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);

  gst_element_class_set_static_metadata (ec, "test bayer", "Filter/Video",
      "Bayer to RGBA", "cudaoptics tests");
  gst_co_base_filter_class_add_template (ec, GST_PAD_SINK, "video/x-bayer",
      "{ rggb, bggr, grbg, gbrg }", 8192);
  gst_co_base_filter_class_add_template (ec, GST_PAD_SRC, "video/x-raw",
      "RGBA", 8192);
  klass->mode = GST_CO_FILTER_CONVERT;
  klass->process = test_rgba_process;
}

static void
test_bayer_init (TestBayer * self)
{
}

/* ---- ANALYSE: mean byte value, optional overlay (first row white) ---- */

#define MEAN_KIND "GstCoTestMean"

typedef struct
{
  GstCoBaseFilter parent;
  guint64 *host_sum;            /* pinned on CUDA */
  gpointer dev_sum;
  gsize dev_size;
  guint64 cpu_sum;
  gint finishes;
} TestMean;
typedef GstCoBaseFilterClass TestMeanClass;
GType test_mean_get_type (void);
G_DEFINE_TYPE (TestMean, test_mean, GST_TYPE_CO_BASE_FILTER);

static GstFlowReturn
test_mean_process (GstCoBaseFilter * base, const CoFrame * in, CoFrame * out)
{
  TestMean *self = (TestMean *) base;
  gint y;

  if (!base->engine.device) {
    self->cpu_sum = 0;
    for (y = 0; y < in->height; y++)
      self->cpu_sum += mo_row_sum (in, y);
    if (out)
      memset (out->data[0], 255, out->width * co_pix_bpp
          (co_format_plane_kind (out->format, 0)));
    return GST_FLOW_OK;
  }
#ifdef HAVE_CUDA
  if (!self->host_sum && !(self->host_sum =
          gst_co_element_alloc_host (base, sizeof (guint64))))
    return GST_FLOW_ERROR;
  if (!gst_co_element_ensure (base, &self->dev_sum, &self->dev_size,
          sizeof (guint64)))
    return GST_FLOW_ERROR;
  if (!gst_co_element_cuda_ok (base, cudaMemsetAsync (self->dev_sum, 0,
              sizeof (guint64), (cudaStream_t) base->engine.stream), "clearing") ||
      !gst_co_element_cuda_ok (base, mo_sum_cuda (in, self->dev_sum,
              base->engine.stream), "summing") ||
      !gst_co_element_cuda_ok (base, cudaMemcpyAsync (self->host_sum,
              self->dev_sum, sizeof (guint64), cudaMemcpyDeviceToHost,
              (cudaStream_t) base->engine.stream), "reading back"))
    return GST_FLOW_ERROR;
  /* the overlay after the sum, on the same stream */
  if (out && !gst_co_element_cuda_ok (base, cudaMemsetAsync (out->data[0],
              255, out->width * co_pix_bpp (co_format_plane_kind (out->format,
                      0)), (cudaStream_t) base->engine.stream), "drawing"))
    return GST_FLOW_ERROR;
#endif
  return GST_FLOW_OK;
}

/* after the sync: the pinned sum is complete */
static GstFlowReturn
test_mean_finish (GstCoBaseFilter * base, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  TestMean *self = (TestMean *) base;
  guint64 sum = base->engine.device ? *self->host_sum : self->cpu_sum;
  gsize n = (gsize) GST_VIDEO_INFO_WIDTH (&base->in.info) *
      GST_VIDEO_INFO_HEIGHT (&base->in.info) *
      GST_VIDEO_INFO_COMP_PSTRIDE (&base->in.info, 0);
  GstStructure *s;

  fail_unless (inbuf == outbuf);
  s = gst_co_buffer_add_results (outbuf, MEAN_KIND);
  fail_unless (s != NULL);
  gst_structure_set (s, "mean", G_TYPE_DOUBLE, (gdouble) sum / n, "sum",
      G_TYPE_UINT64, sum, NULL);
  self->finishes++;
  return GST_FLOW_OK;
}

static void
test_mean_release (GstCoBaseFilter * base)
{
  TestMean *self = (TestMean *) base;

  gst_co_element_free_host (base, self->host_sum);
  gst_co_element_free (base, self->dev_sum);
  self->host_sum = NULL;
  self->dev_sum = NULL;
  self->dev_size = 0;
}

static void
test_mean_set_property (GObject * o, guint id, const GValue * v,
    GParamSpec * p)
{
  gst_co_base_filter_set_writes (GST_CO_BASE_FILTER (o),
      g_value_get_boolean (v));
}

static void
test_mean_class_init (TestMeanClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);

  oc->set_property = test_mean_set_property;
  g_object_class_install_property (oc, 1, g_param_spec_boolean ("overlay",
          "Overlay", "Draw", FALSE, G_PARAM_WRITABLE));
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "test mean", "Filter/Analyzer/Video", "mean intensity",
      "cudaoptics tests");
  gst_co_base_filter_class_add_video_templates (GST_ELEMENT_CLASS (klass),
      "{ GRAY8, RGBA }", 8192);
  klass->mode = GST_CO_FILTER_ANALYSE;
  klass->process = test_mean_process;
  klass->finish = test_mean_finish;
  klass->release = test_mean_release;
  gst_co_results_register (MEAN_KIND);
}

static void
test_mean_init (TestMean * self)
{
}

/* ---- helpers ---- */

static GstHarness *
harness_for (GType type, gint backend, GstCaps * caps)
{
  GstElement *e = g_object_new (type, "backend", backend ?
      GST_CO_BACKEND_CUDA : GST_CO_BACKEND_CPU, NULL);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");

  gst_object_unref (e);
  gst_harness_set_src_caps (h, caps);
  return h;
}

static GstBuffer *
random_frame (const GstVideoInfo * info, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  GstBuffer *b = make_frame (info, r, FALSE);
  g_rand_free (r);
  return b;
}

static GstCaps *
bayer_caps (const gchar * order, gint w, gint h)
{
  return gst_caps_new_simple ("video/x-bayer", "format", G_TYPE_STRING, order,
      "width", G_TYPE_INT, w, "height", G_TYPE_INT, h, "framerate",
      GST_TYPE_FRACTION, 30, 1, NULL);
}

static void
output_size (GstHarness * h, gint * w, gint * hh)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstStructure *s;

  fail_unless (caps != NULL);
  s = gst_caps_get_structure (caps, 0);
  gst_structure_get_int (s, "width", w);
  gst_structure_get_int (s, "height", hh);
  gst_caps_unref (caps);
}

/* The frame @out of @oinfo is @in of @iinfo scaled by nearest neighbour. */
static void
check_scaled (const GstVideoInfo * iinfo, GstBuffer * in,
    const GstVideoInfo * oinfo, GstBuffer * out)
{
  GstVideoFrame a, b;
  gint x, y, c, bpp = GST_VIDEO_INFO_COMP_PSTRIDE (iinfo, 0);
  gint iw = GST_VIDEO_INFO_WIDTH (iinfo), ih = GST_VIDEO_INFO_HEIGHT (iinfo);
  gint ow = GST_VIDEO_INFO_WIDTH (oinfo), oh = GST_VIDEO_INFO_HEIGHT (oinfo);

  fail_unless (gst_video_frame_map (&a, (GstVideoInfo *) iinfo, in,
          GST_MAP_READ));
  fail_unless (gst_video_frame_map (&b, (GstVideoInfo *) oinfo, out,
          GST_MAP_READ));
  for (y = 0; y < oh; y++)
    for (x = 0; x < ow; x++)
      for (c = 0; c < bpp; c++) {
        const guint8 *s = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, 0) +
            (gsize) (y * ih / oh) * GST_VIDEO_FRAME_PLANE_STRIDE (&a, 0) +
            (x * iw / ow) * bpp + c;
        const guint8 *d = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 0) +
            (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, 0) + x * bpp + c;
        if (*s != *d)
          fail ("pixel %d,%d of %dx%d: %u, expected %u", x, y, ow, oh, *d, *s);
      }
  gst_video_frame_unmap (&a);
  gst_video_frame_unmap (&b);
}

/* ---- RESIZE ---- */

GST_START_TEST (test_resize_follows_element)
{
  const gchar *formats[] = { "GRAY8", "RGBA" };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstCaps *caps = video_caps (formats[f], 33, 17);
    GstHarness *h = harness_for (test_scale_get_type (), __i__,
        gst_caps_ref (caps));
    GstVideoInfo ii, oi;
    GstBuffer *in, *out;
    gint w = 0, hh = 0;

    gst_video_info_from_caps (&ii, caps);
    in = random_frame (&ii, 7 + f);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    output_size (h, &w, &hh);
    fail_unless_equals_int (w, 66);
    fail_unless_equals_int (hh, 34);
    gst_video_info_set_format (&oi, gst_video_format_from_string (formats[f]),
        w, hh);
    fail_unless (gst_buffer_get_size (out) >= oi.size);
    check_scaled (&ii, in, &oi, out);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Downstream fixes 100x30: the element's 2x gives way; PAR follows input. */
GST_START_TEST (test_resize_downstream_fixed)
{
  GstCaps *caps = video_caps ("RGBA", 64, 48), *cur;
  GstHarness *h;
  GstVideoInfo ii, oi;
  GstBuffer *in, *out;
  gint w = 0, hh = 0, pn = 0, pd = 0;

  gst_caps_set_simple (caps, "pixel-aspect-ratio", GST_TYPE_FRACTION, 4, 3,
      NULL);
  h = harness_for (test_scale_get_type (), __i__, gst_caps_ref (caps));
  gst_harness_set_sink_caps_str (h, "video/x-raw, width=(int)100, "
      "height=(int)30");
  gst_video_info_from_caps (&ii, caps);
  in = random_frame (&ii, 3);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  output_size (h, &w, &hh);
  fail_unless_equals_int (w, 100);
  fail_unless_equals_int (hh, 30);
  cur = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_structure_get_fraction (gst_caps_get_structure (cur, 0),
          "pixel-aspect-ratio", &pn, &pd));
  fail_unless (pn == 4 && pd == 3);
  gst_caps_unref (cur);
  gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_RGBA, 100, 30);
  check_scaled (&ii, in, &oi, out);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A size property while PLAYING: every frame after it has the new size and
 * no frame is ever written into a buffer of the old one. */
GST_START_TEST (test_resize_renegotiates_while_playing)
{
  GstCaps *caps = video_caps ("GRAY8", 40, 30);
  GstHarness *h;
  GstVideoInfo ii, oi;
  gint i, w, hh;

  h = harness_for (test_scale_get_type (), __i__, gst_caps_ref (caps));
  gst_video_info_from_caps (&ii, caps);
  for (i = 0; i < 12; i++) {
    GstBuffer *in = random_frame (&ii, 100 + i), *out;
    if (i % 3 == 0)
      g_object_set (h->element, "factor", 1 + (i / 3) % 4, NULL);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    output_size (h, &w, &hh);
    fail_unless_equals_int (w, 40 * (1 + (i / 3) % 4));
    fail_unless_equals_int (hh, 30 * (1 + (i / 3) % 4));
    gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_GRAY8, w, hh);
    fail_unless (gst_buffer_get_size (out) >= oi.size);
    check_scaled (&ii, in, &oi, out);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- CONVERT ---- */

static void
check_rgba (GstBuffer * in, const GstVideoInfo * ii, CoBayer bayer,
    GstBuffer * out, const GstVideoInfo * oi)
{
  GstMapInfo a;
  GstVideoFrame b;
  CoFrame fi, fo;
  GstBuffer *expect = gst_buffer_new_allocate (NULL, oi->size, NULL);
  GstMapInfo e;
  gint y;

  /* the expectation from the shared maths on the host, compared row by
   * row with what the element wrote (through its own stride) */
  memset (&fi, 0, sizeof (fi));
  memset (&fo, 0, sizeof (fo));
  gst_buffer_map (in, &a, GST_MAP_READ);
  gst_buffer_map (expect, &e, GST_MAP_WRITE);
  fi.data[0] = a.data;
  fi.pitch[0] = GST_VIDEO_INFO_PLANE_STRIDE (ii, 0);
  fi.width = GST_VIDEO_INFO_WIDTH (ii);
  fi.height = GST_VIDEO_INFO_HEIGHT (ii);
  fi.format = CO_FORMAT_GRAY8;
  fi.bayer = bayer;
  fo.data[0] = e.data;
  fo.pitch[0] = GST_VIDEO_INFO_PLANE_STRIDE (oi, 0);
  fo.width = fi.width;
  fo.height = fi.height;
  fo.format = gst_co_format_from_video (GST_VIDEO_INFO_FORMAT (oi));
  FOR_EACH_PX (&fo, mo_to_rgba_px (&fi, &fo, x, y));
  fail_unless (gst_video_frame_map (&b, (GstVideoInfo *) oi, out,
          GST_MAP_READ));
  for (y = 0; y < fo.height; y++)
    fail_unless (memcmp (e.data + (gsize) y * fo.pitch[0],
            (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 0) +
            (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, 0),
            fo.width * GST_VIDEO_INFO_COMP_PSTRIDE (oi, 0)) == 0,
        "row %d differs", y);
  gst_video_frame_unmap (&b);
  gst_buffer_unmap (expect, &e);
  gst_buffer_unmap (in, &a);
  gst_buffer_unref (expect);
}

/* GRAY8 to RGBA, and to RGBA64_LE when downstream asks for it (8-byte
 * pixels through pools, staging and mapping) */
GST_START_TEST (test_convert_gray_to_rgba)
{
  /* RGBA64_LE is a GstVideoFormat since 1.20 */
  const gchar *outs[] = { NULL,
#if GST_CHECK_VERSION (1, 20, 0)
    "RGBA64_LE"
#endif
  };
  guint o;

  for (o = 0; o < G_N_ELEMENTS (outs); o++) {
    GstCaps *caps = video_caps ("GRAY8", 37, 21);
    GstHarness *h = harness_for (test_gray_get_type (), __i__,
        gst_caps_ref (caps));
    GstVideoInfo ii, oi;
    GstBuffer *in, *out;
    GstCaps *cur;

    if (outs[o])
      gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA64_LE");
    gst_video_info_from_caps (&ii, caps);
    in = random_frame (&ii, 11 + o);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    cur = gst_pad_get_current_caps (h->sinkpad);
    gst_video_info_from_caps (&oi, cur);
    gst_caps_unref (cur);
    fail_unless_equals_string (gst_video_format_to_string
        (GST_VIDEO_INFO_FORMAT (&oi)), outs[o] ? outs[o] : "RGBA");
    check_rgba (in, &ii, CO_BAYER_NONE, out, &oi);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Every order, odd sizes (rows of bayer2rgb's stride: width rounded to 4) */
GST_START_TEST (test_convert_bayer_to_rgba)
{
  const gchar *orders[] = { "rggb", "bggr", "grbg", "gbrg" };
  const CoBayer codes[] = { CO_BAYER_RGGB, CO_BAYER_BGGR, CO_BAYER_GRBG,
    CO_BAYER_GBRG
  };
  guint o;

  for (o = 0; o < G_N_ELEMENTS (orders); o++) {
    GstCaps *caps = bayer_caps (orders[o], 33, 17);
    GstHarness *h = harness_for (test_bayer_get_type (), __i__,
        gst_caps_ref (caps));
    GstVideoInfo ii, oi;
    CoBayer bayer;
    GstBuffer *in, *out;

    fail_unless (gst_co_info_from_caps (&ii, &bayer, caps));
    fail_unless_equals_int (bayer, codes[o]);
    fail_unless_equals_int (GST_VIDEO_INFO_PLANE_STRIDE (&ii, 0), 36);
    fail_unless_equals_int (GST_VIDEO_INFO_SIZE (&ii), 36 * 17);
    gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_RGBA, 33, 17);
    in = random_frame (&ii, 20 + o);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    check_rgba (in, &ii, bayer, out, &oi);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* ---- ANALYSE ---- */

static gdouble
expected_mean (GstBuffer * buf, const GstVideoInfo * info)
{
  GstVideoFrame f;
  guint64 sum = 0;
  gint x, y, n = GST_VIDEO_INFO_WIDTH (info) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);

  fail_unless (gst_video_frame_map (&f, (GstVideoInfo *) info, buf,
          GST_MAP_READ));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++)
    for (x = 0; x < n; x++)
      sum += ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(gsize) y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x];
  gst_video_frame_unmap (&f);
  return (gdouble) sum / ((gdouble) n * GST_VIDEO_INFO_HEIGHT (info));
}

/* The very buffer comes out, pixels and memory untouched, with the mean. */
GST_START_TEST (test_analyse_passthrough_with_results)
{
  GstCaps *caps = video_caps ("RGBA", 45, 23);
  GstHarness *h;
  GstVideoInfo ii;
  gint i;

  h = harness_for (test_mean_get_type (), __i__, gst_caps_ref (caps));
  gst_video_info_from_caps (&ii, caps);
  for (i = 0; i < 3; i++) {
    GstBuffer *in = random_frame (&ii, 40 + i), *out;
    GstMemory *mem = gst_buffer_peek_memory (in, 0);
    GstBuffer *copy = gst_buffer_copy_deep (in);
    const GstStructure *s;
    gdouble mean = -1;

    out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL);
    fail_unless (gst_buffer_peek_memory (out, 0) == mem,
        "the frame was copied");
    fail_unless (frames_equal (&ii, copy, out, NULL));
    s = gst_co_buffer_get_results (out, MEAN_KIND);
    fail_unless (s != NULL);
    fail_unless (gst_structure_get_double (s, "mean", &mean));
    fail_unless (fabs (mean - expected_mean (copy, &ii)) < 1e-9);
    gst_buffer_unref (copy);
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (((TestMean *) h->element)->finishes, 3);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* overlay: measured first, then the first row drawn white, in place */
GST_START_TEST (test_analyse_writes)
{
  GstCaps *caps = video_caps ("GRAY8", 31, 9);
  GstHarness *h;
  GstVideoInfo ii;
  GstBuffer *in, *out;
  GstVideoFrame f;
  const GstStructure *s;
  gdouble mean = -1, want;
  gint x;

  h = harness_for (test_mean_get_type (), __i__, gst_caps_ref (caps));
  g_object_set (h->element, "overlay", TRUE, NULL);
  gst_video_info_from_caps (&ii, caps);
  in = random_frame (&ii, 77);
  want = expected_mean (in, &ii);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  s = gst_co_buffer_get_results (out, MEAN_KIND);
  fail_unless (s && gst_structure_get_double (s, "mean", &mean));
  fail_unless (fabs (mean - want) < 1e-9);
  fail_unless (gst_video_frame_map (&f, &ii, out, GST_MAP_READ));
  for (x = 0; x < 31; x++)
    fail_unless_equals_int (((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f,
                0))[x], 255);
  fail_unless (((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))
      [GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0)] != 255 ||
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))
      [GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + 1] != 255);
  gst_video_frame_unmap (&f);
  gst_buffer_unref (out);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- memory domains on the CUDA backend: cudaupload/cudadownload ---- */

/* Every frame of @desc's appsink "sink"; NULL after an error or a stall
 * (the pipeline is torn down before the caller asserts). */
static GPtrArray *
run_chain (const gchar * desc, gint * w, gint * hh)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstElement *sink;
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstSample *sample;
  GstMessage *msg;
  GstBus *bus;

  if (!p || err) {
    GST_ERROR ("%s: %s", desc, err ? err->message : "no pipeline");
    g_clear_error (&err);
    gst_clear_object (&p);
    g_ptr_array_free (frames, TRUE);
    return NULL;
  }
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND))) {
    GstStructure *s = gst_caps_get_structure (gst_sample_get_caps (sample), 0);
    gst_structure_get_int (s, "width", w);
    gst_structure_get_int (s, "height", hh);
    g_ptr_array_add (frames, gst_buffer_ref (gst_sample_get_buffer (sample)));
    gst_sample_unref (sample);
  }
  bus = gst_element_get_bus (p);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg || !gst_app_sink_is_eos (GST_APP_SINK (sink))) {
    GST_ERROR ("%s: %" GST_PTR_FORMAT, desc, msg);
    g_ptr_array_free (frames, TRUE);
    frames = NULL;
  }
  gst_clear_message (&msg);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  return frames;
}

#define SRC "videotestsrc num-buffers=4 pattern=zone-plate kx2=20 ky2=20 kt=1 ! "
/* GstCudaMemory has no grey layout: GRAY8 comes in system memory only */
static const gchar *chain_cases[][2] = {
  {"coscale", "RGBA"}, {"cogray", "GRAY8"}, {"comean", "RGBA"},
  {"comean overlay=true", "RGBA"},
};

/* The CPU backend in system memory against the CUDA backend in every
 * memory combination: the same bytes, the sizes the mode gives. */
GST_START_TEST (test_memory_domains)
{
  static const gchar *up = "cudaupload ! video/x-raw(memory:CUDAMemory) ! ";
  static const gchar *down = " ! video/x-raw(memory:CUDAMemory) ! "
      "cudadownload ! ";
  guint c, m, i;
  GstElementFactory *f = gst_element_factory_find ("cudaupload");

  if (!f) {
    g_print ("no cudaupload: memory domains not run\n");
    return;
  }
  gst_object_unref (f);
  for (c = 0; c < G_N_ELEMENTS (chain_cases); c++) {
    gchar *ref_desc = g_strdup_printf (SRC "video/x-raw, format=%s, "
        "width=64, height=48 ! %s backend=cpu ! appsink name=sink sync=false",
        chain_cases[c][1], chain_cases[c][0]);
    gint rw = 0, rh = 0;
    GPtrArray *ref = run_chain (ref_desc, &rw, &rh);

    fail_unless (ref != NULL && ref->len == 4, "%s", ref_desc);
    for (m = 0; m < 4; m++) {
      gchar *desc = g_strdup_printf (SRC "video/x-raw, format=%s, width=64, "
          "height=48 ! %s%s backend=cuda%s video/x-raw ! appsink name=sink "
          "sync=false", chain_cases[c][1], (m & 1) ? up : "",
          chain_cases[c][0], (m & 2) ? down : " ! ");
      gint w = 0, hh = 0;
      GPtrArray *got;
      GstVideoInfo oi;

      /* no grey layout in CUDA memory; an analyser keeps the memory it
       * got, so it is only run system to system and CUDA to CUDA */
      if (((m & 1) && strcmp (chain_cases[c][1], "GRAY8") == 0) ||
          (g_str_has_prefix (chain_cases[c][0], "comean") &&
              (m == 1 || m == 2))) {
        g_free (desc);
        continue;
      }
      GST_INFO ("%s", desc);
      got = run_chain (desc, &w, &hh);
      fail_unless (got != NULL && got->len == 4, "%s", desc);
      fail_unless (w == rw && hh == rh, "%s: %dx%d", desc, w, hh);
      gst_video_info_set_format (&oi, g_str_has_prefix (chain_cases[c][0],
              "cogray") ? GST_VIDEO_FORMAT_RGBA :
          gst_video_format_from_string (chain_cases[c][1]), w, hh);
      for (i = 0; i < got->len; i++)
        fail_unless (frames_equal (&oi, g_ptr_array_index (ref, i),
                g_ptr_array_index (got, i), NULL), "%s: frame %u", desc, i);
      g_ptr_array_free (got, TRUE);
      g_free (desc);
    }
    g_ptr_array_free (ref, TRUE);
    g_free (ref_desc);
  }
}

GST_END_TEST;

#ifdef HAVE_GST_CUDA
/* A pool of CUDA memory in a context of its own (*other) for frames of
 * @sys; @caps gets the CUDA memory feature. */
static GstBufferPool *
foreign_pool (GstCaps * caps, GstCaps * sys, GstVideoInfo * ii,
    GstCudaContext ** other)
{
  GstBufferPool *pool;
  GstStructure *config;

  gst_cuda_memory_init_once ();
  *other = gst_cuda_context_new (0);
  fail_unless (*other != NULL);
  gst_caps_set_features (caps, 0,
      gst_caps_features_new_single (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
  gst_video_info_from_caps (ii, sys);
  pool = gst_cuda_buffer_pool_new (*other);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, ii->size, 0, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

/* CUDA memory of a context the element did not start with (device-id -1):
 * it takes that context instead of crossing the host, without a warning,
 * and its output lives in that context from the next frame on. */
GST_START_TEST (test_adopts_foreign_context)
{
  GstCaps *caps = video_caps ("RGBA", 64, 48), *sys = gst_caps_copy (caps);
  GstCudaContext *other;
  GstBufferPool *pool;
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GstVideoInfo ii, oi;
  gint i;

  if (!gst_cuda_load_library ())
    goto out;
  pool = foreign_pool (caps, sys, &ii, &other);

  h = harness_for (test_scale_get_type (), 1, gst_caps_ref (caps));
  gst_element_set_bus (h->element, bus);
  gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_RGBA, 128, 96);
  for (i = 0; i < 4; i++) {
    GstBuffer *host = random_frame (&ii, 200 + i), *in = NULL, *out;
    GstVideoFrame a, b;
    GstMemory *mem;
    gint y;

    fail_unless (gst_buffer_pool_acquire_buffer (pool, &in, NULL) ==
        GST_FLOW_OK);
    fail_unless (gst_video_frame_map (&a, &ii, host, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&b, &ii, in, GST_MAP_WRITE));
    for (y = 0; y < 48; y++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 0) + y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&b, 0),
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, 0) + y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&a, 0), 64 * 4);
    gst_video_frame_unmap (&b);
    gst_video_frame_unmap (&a);
    out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL);
    check_scaled (&ii, host, &oi, out);
    mem = gst_buffer_peek_memory (out, 0);
    if (i > 0)
      fail_unless (gst_is_cuda_memory (mem) &&
          GST_CUDA_MEMORY_CAST (mem)->context == other,
          "frame %d: output not in the adopted context", i);
    gst_buffer_unref (host);
    gst_buffer_unref (out);
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "%" GST_PTR_FORMAT, msg);
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_object_unref (other);
out:
  gst_object_unref (bus);
  gst_caps_unref (sys);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* A context adoption that fails after the old context was given up leaves
 * nothing to run on: an error, and every later frame fails too, never
 * half switched (CUDA work on host memory, or host work on device
 * tables). */
GST_START_TEST (test_failed_adoption)
{
  GstCaps *caps = video_caps ("RGBA", 64, 48), *sys = gst_caps_copy (caps);
  GstCudaContext *other;
  GstBufferPool *pool;
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GstVideoInfo ii;
  gint i;

  if (!gst_cuda_load_library ())
    goto out;
  pool = foreign_pool (caps, sys, &ii, &other);

  /* read when the element starts */
  g_setenv ("CO_FAULT_INJECT", "adopting a context:1", TRUE);
  h = harness_for (test_scale_get_type (), 1, gst_caps_ref (caps));
  g_unsetenv ("CO_FAULT_INJECT");
  gst_element_set_bus (h->element, bus);
  for (i = 0; i < 3; i++) {
    GstBuffer *in = NULL;
    fail_unless (gst_buffer_pool_acquire_buffer (pool, &in, NULL) ==
        GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for the failed adoption");
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_object_unref (other);
out:
  gst_object_unref (bus);
  gst_caps_unref (sys);
  gst_caps_unref (caps);
}

GST_END_TEST;
#endif

/* GstCudaMemory holds no grey or Bayer frame: templates never offer them
 * in memory:CUDAMemory (1.22's allocator aborts on GRAY8) */
GST_START_TEST (test_cuda_memory_templates)
{
  GType types[] = { test_scale_get_type (), test_bayer_get_type () };
  guint t, i;

  for (t = 0; t < G_N_ELEMENTS (types); t++) {
    GstElementClass *ec = g_type_class_ref (types[t]);
    GstCaps *caps = gst_pad_template_get_caps
        (gst_element_class_get_pad_template (ec, "sink"));
    guint n_cuda = 0;

    for (i = 0; i < gst_caps_get_size (caps); i++) {
      GstCapsFeatures *f = gst_caps_get_features (caps, i);
      const GstStructure *s = gst_caps_get_structure (caps, i);
      if (!gst_caps_features_contains (f, "memory:CUDAMemory"))
        continue;
      n_cuda++;
      fail_unless (gst_structure_has_name (s, "video/x-raw"));
      fail_unless_equals_string (gst_structure_get_string (s, "format"),
          "RGBA");
    }
#ifdef HAVE_GST_CUDA
    fail_unless_equals_int (n_cuda, t == 0 ? 1 : 0);
#else
    fail_unless_equals_int (n_cuda, 0);
#endif
    gst_caps_unref (caps);
    g_type_class_unref (ec);
  }
}

GST_END_TEST;

/* An analyser works in place, so the allocation query goes downstream; when
 * downstream offers no pool (fakesink), the CUDA backend still gives
 * upstream its pinned pool and allocator (pinned frames cross the bus by
 * DMA at its full rate, or are read in place on integrated GPUs).
 * The CPU backend adds none. */
GST_START_TEST (test_analyse_offers_pinned_pool)
{
  GstElement *p, *e;
  GstPad *pad;
  GstCaps *caps = video_caps ("RGBA", 64, 48);
  GstQuery *q;
  GstBufferPool *pool = NULL;
  gboolean answered, pinned = FALSE, allocator_pinned = FALSE;
  guint n_pools;

  p = gst_parse_launch ("appsrc name=src ! comean name=e ! fakesink", NULL);
  fail_unless (p != NULL);
  e = gst_bin_get_by_name (GST_BIN (p), "e");
  g_object_set (e, "backend", __i__ ? GST_CO_BACKEND_CUDA :
      GST_CO_BACKEND_CPU, NULL);
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  pad = gst_element_get_static_pad (e, "sink");
  fail_unless (gst_pad_send_event (pad, gst_event_new_stream_start ("s")));
  fail_unless (gst_pad_send_event (pad, gst_event_new_caps (caps)));
  q = gst_query_new_allocation (caps, TRUE);
  answered = gst_pad_query (pad, q);
  n_pools = gst_query_get_n_allocation_pools (q);
  /* the allocator as well: GstBaseSrc configures the pool with the query's
   * first allocator (none: system memory) */
  if (gst_query_get_n_allocation_params (q) > 0) {
    GstAllocator *a = NULL;
    gst_query_parse_nth_allocation_param (q, 0, &a, NULL);
    allocator_pinned = a && !g_strcmp0 (a->mem_type, "CoHostMemory");
    g_clear_object (&a);
  }
  if (n_pools > 0) {
    GstBuffer *buf = NULL;
    gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
    if (pool && gst_buffer_pool_set_active (pool, TRUE) &&
        gst_buffer_pool_acquire_buffer (pool, &buf, NULL) == GST_FLOW_OK) {
      pinned = gst_is_co_host_memory (gst_buffer_peek_memory (buf, 0));
      gst_buffer_unref (buf);
    }
    if (pool) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
    }
  }
  gst_query_unref (q);
  gst_object_unref (pad);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (e);
  gst_object_unref (p);
  gst_caps_unref (caps);
  /* asserted after the teardown: a failure must not leave a pipeline up */
  fail_unless (answered, "the allocation query was refused");
  fail_unless_equals_int (n_pools, __i__ ? 1 : 0);
  fail_unless (!__i__ || pinned, "the pool offered is not of pinned memory");
  fail_unless (!__i__ || allocator_pinned, "the pinned allocator is not "
      "offered with the pool");
}

GST_END_TEST;

/* The CUDA cases apart: check-modes-cuda (family-check.h) */
static Suite *
modes_suite (gboolean cuda)
{
  Suite *s = suite_create ("modes");
  TCase *tc = tcase_create (cuda ? "cuda" : "modes");
  /* loop index: 0 the CPU backend, 1 CUDA */
  gint i = cuda ? 1 : 0;

  gst_element_register (NULL, "coscale", GST_RANK_NONE, test_scale_get_type ());
  gst_element_register (NULL, "cogray", GST_RANK_NONE, test_gray_get_type ());
  gst_element_register (NULL, "comean", GST_RANK_NONE, test_mean_get_type ());
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_loop_test (tc, test_resize_follows_element, i, i + 1);
  tcase_add_loop_test (tc, test_resize_downstream_fixed, i, i + 1);
  tcase_add_loop_test (tc, test_resize_renegotiates_while_playing, i, i + 1);
  tcase_add_loop_test (tc, test_convert_gray_to_rgba, i, i + 1);
  tcase_add_loop_test (tc, test_convert_bayer_to_rgba, i, i + 1);
  tcase_add_loop_test (tc, test_analyse_passthrough_with_results, i, i + 1);
  tcase_add_loop_test (tc, test_analyse_writes, i, i + 1);
  tcase_add_loop_test (tc, test_analyse_offers_pinned_pool, i, i + 1);
  if (!cuda) {
    tcase_add_test (tc, test_cuda_memory_templates);
    return s;
  }
  tcase_add_test (tc, test_memory_domains);
#ifdef HAVE_GST_CUDA
  tcase_add_test (tc, test_adopts_foreign_context);
  tcase_add_test (tc, test_failed_adoption);
#endif
  return s;
}

CO_CHECK_MAIN (modes);
