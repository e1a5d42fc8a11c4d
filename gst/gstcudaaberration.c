/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:element-cudaaberration
 * @title: cudaaberration
 *
 * Space-variant aberration correction of raw Bayer frames in the complex
 * lapped transform (CLT) domain, on CUDA or on the CPU (after Filippov,
 * "GPU Implementation of the Tile Processor", Elphel 2018).  The frame is
 * cut into 16x16 tiles at a stride of 8; each colour of each tile is
 * transformed (four DCT-IV/DST-IV layers of 8x8), shifted by a fraction of
 * a pixel in the frequency domain, multiplied by the kernel of its place
 * in the field (deconvolution, the colour's interpolation, a low-pass) and
 * transformed back, overlapping its neighbours.  Out comes a demosaiced,
 * deconvolved colour picture (kernels/clt_math.h has the maths).
 *
 * Kernels come from #GstCudaAberration:kernels-file, written by the
 * `co-clt-kernels` tool from a lens model; without one the element only
 * demosaics (bilinear, as kernels) and shifts.  With
 * #GstCudaAberration:model set, each tile also moves by the camera's
 * distortion (the parameters and calibration files of cudalensdistort), so
 * the output is undistorted by phase shifts rather than by resampling.
 *
 * Input is `video/x-bayer` (8 or 16-bit) in system memory (GstCudaMemory
 * has no Bayer layout): the element's pinned pool makes its upload fast.
 * GRAY16_LE frames are taken as a mosaic of #GstCudaAberration:bayer-pattern.
 * Output is RGBA, BGRA, RGBx, BGRx, RGB (system or `memory:CUDAMemory`)
 * or RGBA64_LE (system memory).  With a region of interest (roi-x, roi-y,
 * roi-width, roi-height) only the tiles over it are worked, and the rest
 * of the frame is black.
 *
 * ## Example launch lines
 * |[
 * co-clt-kernels --size 640x480 --sigma1 1.5 --nsr 0.03 --bayer -o /tmp/lens.cltk
 * gst-launch-1.0 videotestsrc num-buffers=1 ! video/x-raw,format=ARGB,width=640,height=480 ! rgb2bayer ! video/x-bayer,format=rggb ! cudaaberration kernels-file=/tmp/lens.cltk model=camera k1=-0.12 ! videoconvert ! pngenc ! filesink location=/tmp/developed.png
 * ]| A synthetic Bayer stream through a lens whose blur grows towards the
 * corners, demosaiced, deconvolved and undistorted.
 * |[
 * # needs: camera, gpu, display
 * co-clt-kernels --size 2592x1936 --sigma1 1.5 --nsr 0.03 --bayer -o lens.cltk
 * gst-launch-1.0 v4l2src ! video/x-bayer,format=rggb,width=2592,height=1936 ! cudaaberration kernels-file=lens.cltk model=camera k1=-0.12 ! "video/x-raw(memory:CUDAMemory),format=RGBA" ! cudadownload ! autovideosink
 * ]| A camera whose blur grows towards the corners, deconvolved and
 * undistorted on the GPU.
 *
 * Since: 0.1
 */
#include "gstcocompat.h"
#include "gstcudaaberration.h"
#include "gstcocamerasource.h"
#include "gstcocltsource.h"
#include "clt.h"

#include <math.h>
#include <string.h>

typedef enum
{
  GST_CO_ABERRATION_MODEL_NONE = 0,
  GST_CO_ABERRATION_MODEL_CAMERA = 1,
  GST_CO_ABERRATION_MODEL_FISHEYE = 2,
} GstCoAberrationModel;

/* The properties, copied under the object lock. */
typedef struct
{
  gchar *kernels_file;
  guint kernels_gen;            /* bumped by every set: a re-read */
  gdouble lpf_sigma;
  CoBayer bayer;                /* of GRAY16_LE input */
  gint bit_depth;               /* 0: the sample size's */
  GstCoAberrationModel model;
  GstCoCameraSettings cam;      /* the family's camera settings */
  gint roi_x, roi_y, roi_width, roi_height;
} GstCoAberrationSettings;

struct _GstCudaAberration
{
  GstCoBaseFilter parent;

  GstCoAberrationSettings set;  /* the settings table's, object lock */

  /* streaming thread: what rebuild made */
  GstCoCltSource kernels;       /* the kernels file in use */
  GstCoCameraSource camsrc;     /* the calibration file in use */
  gboolean built;               /* once since start: a bad file then warns */
  guint unused_gen;             /* the calibration setting model=none
                                 * was warned of */
  CoBayer bayer;                /* of GRAY16_LE input */
  gint grid_w, grid_h, stride, colours;
  gfloat scale;                 /* raw sample to 1 = full scale */
  gint roi[4];                  /* x, y, width, height within the frame */
  /* backend memory */
  gpointer nodes, dx, dy, clt[3], planes[3];
  gsize nodes_size, dx_size, dy_size, clt_size[3], planes_size[3];
};

GST_DEBUG_CATEGORY_STATIC (gst_cuda_aberration_debug);
#define GST_CAT_DEFAULT gst_cuda_aberration_debug

enum
{
  PROP_0,
  PROP_KERNELS_FILE,
  PROP_LPF_SIGMA,
  PROP_BAYER_PATTERN,
  PROP_BIT_DEPTH,
  PROP_MODEL,
  PROP_FX,
  PROP_FY,
  PROP_CX,
  PROP_CY,
  PROP_K1,
  PROP_K2,
  PROP_K3,
  PROP_K4,
  PROP_P1,
  PROP_P2,
  PROP_CALIBRATION_FILE,
  PROP_CAMERA,
  PROP_ROI_X,
  PROP_ROI_Y,
  PROP_ROI_WIDTH,
  PROP_ROI_HEIGHT,
};

#define MAX_SIZE GST_CO_MAX_SIZE
#ifdef CO_HAVE_RGBA64
#define OUT_FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB, RGBA64_LE }"
#else /* RGBA64_LE came with 1.20 */
#define OUT_FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB }"
#endif

G_DEFINE_TYPE_WITH_CODE (GstCudaAberration, gst_cuda_aberration,
    GST_TYPE_CO_BASE_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_aberration_debug, "cudaaberration", 0,
        "cudaoptics aberration correction"));

static GST_CO_ENUM_TYPE (gst_co_bayer_pattern_get_type, "GstCoBayerPattern",
    {CO_BAYER_RGGB, "Red first, then green (first row RGRG)", "rggb"},
    {CO_BAYER_BGGR, "Blue first, then green (first row BGBG)", "bggr"},
    {CO_BAYER_GRBG, "Green first, then red (first row GRGR)", "grbg"},
    {CO_BAYER_GBRG, "Green first, then blue (first row GBGB)", "gbrg"})

static GST_CO_ENUM_TYPE (gst_co_aberration_model_get_type,
    "GstCoAberrationModel",
    {GST_CO_ABERRATION_MODEL_NONE, "No distortion: tiles move only by the "
          "kernels' own offsets", "none"},
    {GST_CO_ABERRATION_MODEL_CAMERA, "OpenCV's pinhole model (Brown-Conrady)"
          ", as cudalensdistort model=camera", "camera"},
    {GST_CO_ABERRATION_MODEL_FISHEYE, "OpenCV's equidistant fisheye model, "
          "as cudalensdistort model=fisheye", "fisheye"})

/* ---- kernels ---- */

/* The camera of @s for a w x h frame, or FALSE with @error (no usable
 * calibration file ever). */
static gboolean
make_camera (GstCudaAberration * self, const GstCoAberrationSettings * s,
    int w, int h, CoCamera * cam, GError ** error)
{
  if (s->cam.calibration_file && *s->cam.calibration_file) {
    GstCoCameraFile f = { s->cam.calibration_file, s->cam.camera, NULL,
      s->cam.calibration_gen
    };
    GError *err = NULL;
    if (gst_co_camera_source_get (&self->camsrc, GST_ELEMENT (self), &f, w,
            h, self->built, cam, &err))
      return TRUE;
    if (!self->built) {
      g_propagate_error (error, err);
      return FALSE;
    }
    /* warned; no file was ever usable: the properties' camera stays */
    g_clear_error (&err);
  }
  gst_co_camera_from_settings (&s->cam, w, h,
      s->model == GST_CO_ABERRATION_MODEL_FISHEYE, cam);
  return TRUE;
}

/* GstCoBaseFilter::rebuild: kernels, shifts and work planes on the active
 * backend for the negotiated size, from a snapshot of the settings.  A bad
 * file while PLAYING keeps what it would have replaced (the kernels and
 * camera sources); everything else applies. */
static gboolean
gst_cuda_aberration_rebuild (GstCoBaseFilter * base, gboolean caps_changed)
{
  GstCudaAberration *self = GST_CUDA_ABERRATION (base);
  const int w = GST_VIDEO_INFO_WIDTH (&base->in.info);
  const int h = GST_VIDEO_INFO_HEIGHT (&base->in.info);
  const gboolean gray8 =
      GST_VIDEO_INFO_FORMAT (&base->in.info) == GST_VIDEO_FORMAT_GRAY8;
  GstCoAberrationSettings s;
  GError *err = NULL;
  CoCamera cam;
  GstCoCltGrid grid = { 0 };
  gfloat *dx = NULL, *dy = NULL;
  gboolean ok;
  gsize nodes_bytes, shift_bytes, plane_bytes, clt_bytes;
  int tx_n, ty_n, c, bits;

  gst_co_base_filter_snapshot (base, &s);

  bits = s.bit_depth > 0 ? s.bit_depth : gray8 ? 8 : 16;
  if (gray8)
    bits = MIN (bits, 8);
  self->scale = (gfloat) (1.0 / ((1 << bits) - 1));
  self->bayer = s.bayer;
  if (s.model == GST_CO_ABERRATION_MODEL_NONE && s.cam.calibration_file &&
      *s.cam.calibration_file && s.cam.calibration_gen != self->unused_gen) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("calibration-file is used "
            "with model=camera or model=fisheye only: model=none ignores it"),
        (NULL));
    self->unused_gen = s.cam.calibration_gen;
  }
  ok = gst_co_clt_source_update (&self->kernels, GST_ELEMENT (self),
      s.kernels_file, s.kernels_gen, w, h, self->built, &err);
  if (ok && s.model != GST_CO_ABERRATION_MODEL_NONE)
    ok = make_camera (self, &s, w, h, &cam, &err);
  if (ok)
    ok = gst_co_clt_source_grid (&self->kernels, GST_ELEMENT (self),
        s.lpf_sigma, w, h, &grid, &err);
  if (!ok) {
    /* nothing usable for these caps: the stream cannot go on */
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("Could not set up the "
            "aberration correction: %s", err->message), (NULL));
    g_clear_error (&err);
    goto done;
  }
  /* the region, within the frame (0: to its edge) */
  self->roi[0] = MIN (s.roi_x, w - 1);
  self->roi[1] = MIN (s.roi_y, h - 1);
  self->roi[2] = s.roi_width > 0 ? MIN (s.roi_width, w - self->roi[0]) :
      w - self->roi[0];
  self->roi[3] = s.roi_height > 0 ? MIN (s.roi_height, h - self->roi[1]) :
      h - self->roi[1];
  co_clt_tiles (self->roi[2], self->roi[3], &tx_n, &ty_n);
  shift_bytes = (gsize) tx_n * ty_n * 3 * sizeof (gfloat);
  dx = g_malloc (shift_bytes);
  dy = g_malloc (shift_bytes);
  gst_co_clt_grid_shifts (&grid,
      s.model != GST_CO_ABERRATION_MODEL_NONE ? &cam : NULL, w, h, self->roi,
      dx, dy);
  self->grid_w = grid.grid_w;
  self->grid_h = grid.grid_h;
  self->stride = grid.stride;
  self->colours = grid.colours;
  nodes_bytes = gst_co_clt_grid_bytes (&grid);
  clt_bytes = (gsize) tx_n * ty_n * CO_CLT_COEFFS * sizeof (gfloat);
  plane_bytes = (gsize) self->roi[2] * self->roi[3] * sizeof (gfloat);
  /* from pageable memory: staged before each call returns */
  ok = gst_co_element_ensure (base, &self->nodes, &self->nodes_size,
      nodes_bytes) && gst_co_element_ensure (base, &self->dx,
      &self->dx_size, shift_bytes) && gst_co_element_ensure (base,
      &self->dy, &self->dy_size, shift_bytes);
  /* the CPU backend keeps each colour's coefficients; CUDA chains the
   * steps tile by tile and needs none */
  for (c = 0; ok && c < 3; c++)
    ok = (gst_co_element_on_cuda (base) ||
        gst_co_element_ensure (base, &self->clt[c], &self->clt_size[c],
            clt_bytes)) && gst_co_element_ensure (base, &self->planes[c],
        &self->planes_size[c], plane_bytes);
  ok = ok && gst_co_element_upload (base, self->nodes, grid.nodes,
      nodes_bytes, "uploading the kernels") &&
      gst_co_element_upload (base, self->dx, dx, shift_bytes,
      "uploading the tile shifts") && gst_co_element_upload (base,
      self->dy, dy, shift_bytes, "uploading the tile shifts");
  if (ok) {
    self->built = TRUE;
    GST_DEBUG_OBJECT (self, "%dx%d, region %dx%d at %d,%d: %dx%d tiles, "
        "%dx%d kernel nodes, %d colour(s), %d bits", w, h, self->roi[2],
        self->roi[3], self->roi[0], self->roi[1], tx_n, ty_n, self->grid_w,
        self->grid_h, self->colours, bits);
  }
done:
  gst_co_clt_grid_clear (&grid);
  g_free (dx);
  g_free (dy);
  gst_co_base_filter_snapshot_clear (base, &s);
  return ok;
}

/* ---- GstCoBaseFilter ---- */

static gboolean
gst_cuda_aberration_set_info (GstCoBaseFilter * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info)
{
  GstCudaAberration *self = GST_CUDA_ABERRATION (base);

  if (GST_VIDEO_INFO_WIDTH (in_info) < 2 ||
      GST_VIDEO_INFO_HEIGHT (in_info) < 2) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("A %dx%d frame holds no 2x2 "
            "Bayer cell", GST_VIDEO_INFO_WIDTH (in_info),
            GST_VIDEO_INFO_HEIGHT (in_info)), (NULL));
    return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
gst_cuda_aberration_process (GstCoBaseFilter * base, const CoFrame * in,
    CoFrame * out)
{
  GstCudaAberration *self = GST_CUDA_ABERRATION (base);
  const int w = in->width, h = in->height;
  const int bps = in->format == CO_FORMAT_GRAY8 ? 1 : 2;
  CoBayer bayer = in->bayer;
  float *clt[3];
  const float *planes[3];
  int c, e, x0, y0, rw, rh;

  for (c = 0; c < 3; c++) {
    clt[c] = self->clt[c];
    planes[c] = self->planes[c];
  }
  x0 = self->roi[0];
  y0 = self->roi[1];
  rw = self->roi[2];
  rh = self->roi[3];
  if (bayer == CO_BAYER_NONE)
    bayer = self->bayer;
  if (gst_co_element_on_cuda (base)) {
    /* the three steps as one chain: the same bits as the CPU's, and no
     * coefficient planes in device memory */
    float *const fp[3] = { self->planes[0], self->planes[1], self->planes[2] };
    e = co_clt_chain_bayer_cuda (in->data[0], w, h, in->pitch[0], bps,
        self->scale, bayer, self->roi, self->dx, self->dy, self->nodes,
        self->grid_w, self->grid_h, self->stride, self->colours, fp, rw,
        base->engine.stream);
    if (!e)
      e = co_clt_pack_cuda (planes, rw, self->roi, out, base->engine.stream);
    return gst_co_element_cuda_ok (base, e, "correcting a frame") ?
        GST_FLOW_OK : GST_FLOW_ERROR;
  }
  co_clt_forward_bayer_cpu (in->data[0], w, h, in->pitch[0], bps,
      self->scale, bayer, self->roi, self->dx, self->dy, clt);
  for (c = 0; c < 3; c++) {
    co_clt_convolve_grid_cpu (clt[c], x0, y0, rw, rh, self->nodes,
        self->grid_w, self->grid_h, self->stride, self->colours, c);
    co_clt_inverse_cpu (clt[c], rw, rh, self->planes[c], rw);
  }
  co_clt_pack_cpu (planes, rw, self->roi, out);
  return GST_FLOW_OK;
}

static void
gst_cuda_aberration_release (GstCoBaseFilter * base)
{
  GstCudaAberration *self = GST_CUDA_ABERRATION (base);
  int c;

  gst_co_element_free (base, self->nodes);
  gst_co_element_free (base, self->dx);
  gst_co_element_free (base, self->dy);
  self->nodes = self->dx = self->dy = NULL;
  self->nodes_size = self->dx_size = self->dy_size = 0;
  for (c = 0; c < 3; c++) {
    gst_co_element_free (base, self->clt[c]);
    gst_co_element_free (base, self->planes[c]);
    self->clt[c] = self->planes[c] = NULL;
    self->clt_size[c] = self->planes_size[c] = 0;
  }
  /* the next start reads the files again, on its backend */
  gst_co_clt_source_clear (&self->kernels);
  gst_co_camera_source_clear (&self->camsrc);
  self->built = FALSE;
}

/* ---- properties ---- */

static void
gst_cuda_aberration_finalize (GObject * object)
{
  GstCudaAberration *self = GST_CUDA_ABERRATION (object);

  gst_co_clt_source_clear (&self->kernels);
  gst_co_camera_source_clear (&self->camsrc);
  G_OBJECT_CLASS (gst_cuda_aberration_parent_class)->finalize (object);
}

#define SET(f) G_STRUCT_OFFSET (GstCoAberrationSettings, f)
#define REBUILD GST_CO_SETTING_REBUILD
#define CAM(row) GST_CO_CAMERA_ROW (row, SET (cam))
/* an edge or a size of the region of interest, in pixels: 0 by default,
 * animatable, and a new region rebuilds the tile list */
#define ROI(name, nick, blurb, f) GST_CO_ROW_INT (name, nick, blurb, 0, \
    MAX_SIZE, 0, GST_CO_PARAM_ANIM, SET (f), REBUILD)

static void
gst_cuda_aberration_class_init (GstCudaAberrationClass * klass)
{
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstCoBaseFilterClass *fc = GST_CO_BASE_FILTER_CLASS (klass);

  GstCoSetting settings[] = {
    [PROP_KERNELS_FILE - 1] = GST_CO_ROW_FILE ("kernels-file",
        "Kernels file", "A CO-CLTK kernel file (co-clt-kernels writes "
        "them); setting it again reads it again. None: demosaicing "
        "kernels only", SET (kernels_file), REBUILD, SET (kernels_gen)),
    [PROP_LPF_SIGMA - 1] = GST_CO_ROW_DOUBLE ("lpf-sigma", "Low-pass sigma",
        "A Gaussian low-pass folded into every kernel, in pixels; 0: none",
        0.0, 8.0, 0.0, GST_CO_PARAM_ANIM, SET (lpf_sigma), REBUILD),
    [PROP_BAYER_PATTERN - 1] = GST_CO_ROW_ENUM ("bayer-pattern",
        "Bayer pattern", "The colour filter of GRAY16_LE input "
        "(video/x-bayer says its own)", gst_co_bayer_pattern_get_type (),
        CO_BAYER_RGGB, GST_CO_PARAM_LIVE, SET (bayer), REBUILD),
    [PROP_BIT_DEPTH - 1] = GST_CO_ROW_INT ("bit-depth", "Bit depth",
        "Significant bits of 16-bit samples (10, 12, 14 for most "
        "sensors), so that 2^bits - 1 is white; 0: the sample size's", 0,
        16, 0, GST_CO_PARAM_LIVE, SET (bit_depth), REBUILD),
    [PROP_MODEL - 1] = GST_CO_ROW_ENUM ("model", "Model",
        "The distortion each tile's position follows (the output is "
        "undistorted by phase shifts); a calibration-file is used only "
        "with camera or fisheye", gst_co_aberration_model_get_type (),
        GST_CO_ABERRATION_MODEL_NONE, GST_CO_PARAM_LIVE, SET (model),
        REBUILD),
    CAM (FX), CAM (FY), CAM (CX), CAM (CY), CAM (K1), CAM (K2), CAM (K3),
    CAM (K4), CAM (P1), CAM (P2), CAM (CALIBRATION_FILE), CAM (CAMERA),
    [PROP_ROI_X - 1] = ROI ("roi-x", "ROI x", "Left edge of the region "
        "of interest, pixels (only its tiles are worked; the rest is "
        "black)", roi_x),
    [PROP_ROI_Y - 1] = ROI ("roi-y", "ROI y", "Top edge of the region of "
        "interest, pixels", roi_y),
    [PROP_ROI_WIDTH - 1] = ROI ("roi-width", "ROI width", "Width of the "
        "region of interest, pixels; 0: to the frame's right edge",
        roi_width),
    [PROP_ROI_HEIGHT - 1] = ROI ("roi-height", "ROI height", "Height of "
        "the region of interest, pixels; 0: to the frame's bottom edge",
        roi_height),
  };

  GST_CO_BASE_FILTER_CLASS_INSTALL (fc, GstCudaAberration, set, settings);
  G_OBJECT_CLASS (klass)->finalize = gst_cuda_aberration_finalize;

  gst_co_element_class_set_metadata (ec, "CUDA aberration correction",
      "Filter/Converter/Video",
      "Space-variant deconvolution, demosaicing and undistortion of raw "
      "Bayer frames in the CLT domain on CUDA (CPU fallback)");
  gst_co_base_filter_class_add_template_list (ec, GST_PAD_SINK, MAX_SIZE,
      "video/x-bayer", GST_CO_BAYER_FORMATS, "video/x-raw", "GRAY16_LE", NULL);
  gst_co_base_filter_class_add_template (ec, GST_PAD_SRC, "video/x-raw",
      OUT_FORMATS, MAX_SIZE);

  fc->mode = GST_CO_FILTER_CONVERT;
  fc->set_info = GST_DEBUG_FUNCPTR (gst_cuda_aberration_set_info);
  fc->rebuild = GST_DEBUG_FUNCPTR (gst_cuda_aberration_rebuild);
  fc->process = GST_DEBUG_FUNCPTR (gst_cuda_aberration_process);
  fc->release = GST_DEBUG_FUNCPTR (gst_cuda_aberration_release);
}

/* the table's defaults are the pspecs' (set by the base) */
static void
gst_cuda_aberration_init (GstCudaAberration * self)
{
}
