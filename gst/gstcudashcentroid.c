/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:element-cudashcentroid
 * @title: cudashcentroid
 *
 * Shack-Hartmann wavefront-sensor centroids (after Mocci, Busato, Bombieri,
 * Bonora and Muradore, "Efficient implementation of the Shack-Hartmann
 * centroid extraction for edge computing", JOSA A 2020).  Frames pass
 * through unchanged (or with the lenslet grid and the centroids drawn on
 * them, #GstCudaShCentroid:overlay); each one yields a centroid per lenslet
 * of the grid #GstCudaShCentroid:pitch, #GstCudaShCentroid:origin-x and
 * #GstCudaShCentroid:origin-y describe, and its slope against a reference
 * (the lenslets' centres, a file, or frames captured with the
 * #GstCudaShCentroid::capture-reference action signal).
 *
 * Every buffer carries a `GstCoShCentroids` result
 * (include/cudaoptics/co-results.h): `lenslets-x`, `lenslets-y`, the
 * arrays `centroid-x`, `centroid-y`, `slope-x`, `slope-y`, `intensity`
 * (little-endian 32-bit floats, GBytes, lenslet rows one after another)
 * and `flags` (bytes: 1 measured, 2 outside the pupil or the mask, 4 no
 * light, 8 not wholly in the frame), `valid` (how many were measured),
 * `slope-units` ("pixels" or "radians"), `timestamp` and `frame`.  Every
 * #GstCudaShCentroid:message-interval frames the same structure is posted
 * as an element message, for applications (Python included) that read
 * the bus.
 *
 * The lenslets are measured on the GPU (warp-shuffle reductions, one
 * read-back of all results per frame) or on the CPU (the paper's
 * Algorithm 1 in double precision, OpenMP over lenslet rows); both give
 * the same centroids to 1e-4 pixel.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m filesrc location=pipelines/samples/sh-spots.png ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 ! imagefreeze num-buffers=3 ! cudashcentroid pitch=24 origin-x=8.5 origin-y=6.25 pupil-diameter=18 method=tcog ! fakesink
 * ]| Centroids of the bundled spot picture, printed from the bus.
 * |[
 * # needs: camera, display
 * gst-launch-1.0 v4l2src ! video/x-raw,format=GRAY8 ! cudashcentroid pitch=11.3 pupil-diameter=40 overlay=true ! videoconvert ! autovideosink
 * ]| A live sensor with its grid and centroids drawn, a 40-lenslet pupil.
 *
 * Since: 0.1
 */
#include "gstcudashcentroid.h"
#include "gstcofilesetting.h"
#include "shcentroid_math.h"
#include "gstcofile.h"
#include "gstcofilesetting.h"
#include "gstcoimage.h"
#include "gstcometa.h"
#include "gstcoshreference.h"

#include <math.h>
#include <string.h>

/* The properties, copied under the object lock. */
typedef struct
{
  gdouble pitch, origin_x, origin_y;
  gint lenslets_x, lenslets_y;  /* 0: as many as fit */
  gdouble pupil_diameter, central_obstruction;  /* lenslets */
  CoShMethod method;
  gdouble threshold;
  gboolean threshold_relative;
  gint window_margin;
  gdouble gamma;
  gint brightest;
  gdouble pixel_size;           /* micrometres */
  gdouble focal_length;         /* millimetres */
  guint message_interval;       /* frames; 0: none */
  gboolean overlay;
  gdouble overlay_scale;        /* slope lines: times the slope */
  gint reference_frames;
  gchar *mask_file, *reference_file, *lut_file;
  guint mask_gen, reference_gen, lut_gen;       /* count their sets */
} GstCoShSettings;

/* A file's arrays: given to its parser (GstCoFileParser) with how many
 * values the grid or the format wants, kept as it filled them. */
typedef struct
{
  gint n;
  gpointer x, y;
} FileArrays;

struct _GstCudaShCentroid
{
  GstCoBaseFilter parent;

  GstCoShSettings set;          /* under the object lock */
  gint capture_request;         /* under the object lock: frames to average */
  GstCoShSettings snap;         /* the frame's (no file names) */

  /* the files as read and checked (rebuild) */
  GstCoFileSetting mask_fs, ref_fs, lut_fs;
  guint8 *mask_px;
  gint mask_w, mask_h;
  FileArrays file_ref;          /* gdouble x, y */
  gchar *ref_path;
  FileArrays file_lut;          /* gfloat x */
  gboolean built;               /* a grid since start: bad files then warn */

  /* the grid for the negotiated size, and where its lenslets are */
  gint width, height;
  gdouble pitch, origin_x, origin_y;
  gint32 *bx, *by;
  guint8 *measure, *why;        /* per lenslet: measured; else its flags */
  gfloat *lut;                  /* gamma's weights, or NULL */
  CoShGrid grid;
  /* the frame's results: one block of memory per frame
   * (gst_co_element_alloc_results; pinned and written by the device on
   * the CUDA backend) handed to the buffer's results without a copy; cx ..
   * sy point into it while it is mapped, from process to finish */
  GstMemory *results;
  GstMapInfo results_map;
  gfloat *cx, *cy, *m00, *sx, *sy;
  guint8 *flags;
  gdouble *ref_x, *ref_y;
  gboolean ref_changed;         /* the device's copy is stale */
  /* CUDA: the grid, the references and the results in one device block */
  guint8 *dev;
  CoShGrid dgrid;
  CoShResult dres;
  const guint8 *dwhy;
  gdouble *dref_x, *dref_y;
  gchar *reference_source;      /* "centres", a file, or "captured" */
  /* capture-reference: sums over the frames still to come */
  gint capture_left, capture_total;
  gdouble *cap_x, *cap_y;
  gint *cap_n;
  guint64 frames;
};

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sh_centroid_debug);
#define GST_CAT_DEFAULT gst_cuda_sh_centroid_debug

#define RESULT_KIND "GstCoShCentroids"
#define FORMATS "{ GRAY8, GRAY16_LE }"
/* bounds on what a named file may hold before it is read: a text line per
 * lenslet, a float per pixel value */
#define MAX_REFERENCE_FILE (64 << 20)
#define MAX_LUT_FILE (1 << 20)

enum
{
  PROP_0,
  PROP_PITCH,
  PROP_ORIGIN_X,
  PROP_ORIGIN_Y,
  PROP_LENSLETS_X,
  PROP_LENSLETS_Y,
  PROP_PUPIL_DIAMETER,
  PROP_CENTRAL_OBSTRUCTION,
  PROP_MASK_FILE,
  PROP_METHOD,
  PROP_THRESHOLD,
  PROP_THRESHOLD_MODE,
  PROP_WINDOW_MARGIN,
  PROP_GAMMA,
  PROP_LUT_FILE,
  PROP_BRIGHTEST,
  PROP_REFERENCE_FILE,
  PROP_REFERENCE_FRAMES,
  PROP_PIXEL_SIZE,
  PROP_FOCAL_LENGTH,
  PROP_MESSAGE_INTERVAL,
  PROP_OVERLAY,
  PROP_OVERLAY_SCALE,
};

enum
{
  SIGNAL_CAPTURE_REFERENCE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_TYPE_WITH_CODE (GstCudaShCentroid, gst_cuda_sh_centroid,
    GST_TYPE_CO_BASE_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_sh_centroid_debug, "cudashcentroid", 0,
        "cudaoptics Shack-Hartmann centroids"));

static GST_CO_ENUM_TYPE (gst_co_sh_method_get_type, "GstCoShMethod",
    {CO_SH_COG, "Centre of gravity of the lenslet (the paper's)", "cog"},
    {CO_SH_TCOG, "Thresholded centre of gravity: the threshold subtracted, "
          "nothing below it", "tcog"},
    {CO_SH_BRIGHTEST, "Centre of gravity of the brightest pixels",
        "brightest"})

static GST_CO_ENUM_TYPE (gst_co_sh_threshold_mode_get_type,
    "GstCoShThresholdMode",
    {0, "In pixel values (after gamma)", "absolute"},
    {1, "A fraction of each lenslet's largest value", "relative"})

/* ---- the grid for a frame size ---- */

/* A frame's results let go of: by finish, which holds its own reference
 * to the block, or on an error on the way.  The base class waits for the
 * stream whenever a frame fails, so no read-back into the block is still
 * pending when it goes back to the cache. */
static void
drop_results (GstCudaShCentroid * self)
{
  if (self->results) {
    gst_memory_unmap (self->results, &self->results_map);
    gst_memory_unref (self->results);
    self->results = NULL;
  }
  self->cx = self->cy = self->m00 = self->sx = self->sy = NULL;
  self->flags = NULL;
}

/* A block for this frame's results, mapped (co_sh_result_in's layout with
 * the slopes: the device fills it in one read-back, and the buffer's arrays
 * are all slices of it); cx .. flags into it. */
static gboolean
new_results (GstCudaShCentroid * self, gint n)
{
  CoShResult r;

  drop_results (self);
  self->results = gst_co_element_alloc_results (GST_CO_BASE_FILTER (self),
      co_sh_result_bytes (n, TRUE));
  if (!self->results)
    return FALSE;
  if (!gst_memory_map (self->results, &self->results_map, GST_MAP_WRITE)) {
    gst_memory_unref (self->results);
    self->results = NULL;
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Could not map the results' "
            "memory"), (NULL));
    return FALSE;
  }
  co_sh_result_in (&r, self->results_map.data, n, TRUE);
  self->cx = r.cx;
  self->cy = r.cy;
  self->m00 = r.m00;
  self->sx = r.sx;
  self->sy = r.sy;
  self->flags = r.flags;
  return TRUE;
}

/* Pixels to radians when both sizes are given (micrometres over
 * millimetres), else 1: slopes in pixels. */
static gdouble
slope_scale (const GstCoShSettings * s)
{
  return s->pixel_size > 0.0 && s->focal_length > 0.0 ?
      s->pixel_size * 1e-3 / s->focal_length : 1.0;
}

static void
clear_arrays (FileArrays * a)
{
  g_clear_pointer (&a->x, g_free);
  g_clear_pointer (&a->y, g_free);
}

static void
clear_grid (GstCudaShCentroid * self)
{
  g_clear_pointer (&self->bx, g_free);
  g_clear_pointer (&self->by, g_free);
  g_clear_pointer (&self->measure, g_free);
  g_clear_pointer (&self->why, g_free);
  g_clear_pointer (&self->lut, g_free);
  drop_results (self);
  gst_co_element_free (GST_CO_BASE_FILTER (self), self->dev);
  self->dev = NULL;
  g_clear_pointer (&self->ref_x, g_free);
  g_clear_pointer (&self->ref_y, g_free);
  g_clear_pointer (&self->cap_x, g_free);
  g_clear_pointer (&self->cap_y, g_free);
  g_clear_pointer (&self->cap_n, g_free);
  g_clear_pointer (&self->reference_source, g_free);
  self->capture_left = 0;
  memset (&self->grid, 0, sizeof self->grid);
}

/* The files as read and checked, and what each setting gave
 * (gstcofilesetting.h). */
static void
clear_files (GstCudaShCentroid * self)
{
  g_clear_pointer (&self->mask_px, g_free);
  clear_arrays (&self->file_ref);
  clear_arrays (&self->file_lut);
  g_clear_pointer (&self->ref_path, g_free);
  gst_co_file_setting_reset (&self->mask_fs);
  gst_co_file_setting_reset (&self->ref_fs);
  gst_co_file_setting_reset (&self->lut_fs);
}

/* A weight per pixel value from n little-endian 32-bit floats (256 for
 * GRAY8, 65536 for GRAY16_LE: what numpy's a.astype("<f4").tofile()
 * writes), each finite, not negative and not absurd. */
static gboolean
parse_lut (const guint8 * data, gsize size, gpointer out, GError ** error)
{
  FileArrays *a = out;
  const gint levels = a->n;
  gfloat *lut;
  gint i;

  if (size != (gsize) levels * 4) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%"
        G_GSIZE_FORMAT " bytes: %s frames need %d weights, %d bytes of "
        "little-endian floats", size, levels == 256 ? "GRAY8" : "GRAY16_LE",
        levels, levels * 4);
    return FALSE;
  }
  lut = g_new (gfloat, levels);
  for (i = 0; i < levels; i++) {
    guint32 u;
    memcpy (&u, data + 4 * i, 4);
    u = GUINT32_FROM_LE (u);
    memcpy (&lut[i], &u, 4);
    /* bounded too: weights of 3e38 summed over a lenslet are inf */
    if (!isfinite (lut[i]) || lut[i] < 0.0f || lut[i] > 1e12f) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "weight %d is "
          "%g: weights are finite, not negative and at most 1e12", i, lut[i]);
      g_free (lut);
      return FALSE;
    }
  }
  a->x = lut;
  return TRUE;
}

/* A reference centroid for each of the n lenslets (gstcoshreference.h) */
static gboolean
parse_reference (const guint8 * data, gsize size, gpointer out,
    GError ** error)
{
  FileArrays *a = out;
  gdouble *rx = g_new (gdouble, a->n), *ry = g_new (gdouble, a->n);
  gchar *why = NULL;
  gint k;

  k = gst_co_sh_parse_reference ((const gchar *) data, size, a->n, rx, ry,
      &why);
  if (k >= 0 && k != a->n)
    why = g_strdup_printf ("%d reference centroids for %d lenslets", k, a->n);
  if (why) {
    g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, why);
    g_free (why);
    g_free (rx);
    g_free (ry);
    return FALSE;
  }
  a->x = rx;
  a->y = ry;
  return TRUE;
}

/* @why about the file @path, with its name first (display form) */
static gchar *
about (const gchar * path, gchar * why)
{
  gchar *name = g_filename_display_name (path);
  gchar *msg = g_strdup_printf ("%s: %s", name, why);

  g_free (name);
  g_free (why);
  return msg;
}

/* The end of reading one file setting: TRUE when it loaded (no @err), the
 * caller then taking what it gave; else, @err freed, what
 * gstcofilesetting.h says, *ok FALSE after an error. */
static gboolean
file_loaded (GstCudaShCentroid * self, GstCoFileSetting * fs, guint gen,
    const gchar * what, GError * err, gboolean * ok)
{
  if (!err) {
    gst_co_file_setting_loaded (fs, gen);
    return TRUE;
  }
  *ok = gst_co_file_setting_failed (fs, GST_ELEMENT (self), gen,
      self->built, what, err->message);
  g_error_free (err);
  return FALSE;
}

/* The file @path names (none: nothing) through @parse into @a: NULL, or
 * why not, the file's name first */
static GError *
load (const gchar * path, gsize max, GstCoFileParser parse, FileArrays * a)
{
  GError *err = NULL;

  if (path && *path)
    gst_co_file_load (path, max, G_FILE_ERROR, G_FILE_ERROR_FAILED, parse, a,
        &err);
  return err;
}

/* Reads and checks the files whose setting changed, for a grid of nx x ny
 * lenslets and @levels sample values.  A file that fails keeps what the
 * previous setting gave once a grid was built (a warning, once), and is an
 * error before.  FALSE after posting an error. */
static gboolean
read_files (GstCudaShCentroid * self, const GstCoShSettings * s, gint nx,
    gint ny, gint levels)
{
  gboolean ok = TRUE;

  if (gst_co_file_setting_needs_read (&self->mask_fs, s->mask_gen)) {
    guint8 *px = NULL;
    gint w = 0, h = 0;
    gchar *why = NULL;
    GError *err = NULL;
    if (s->mask_file && *s->mask_file &&
        (px = gst_co_decode_gray (s->mask_file, &w, &h, &why)) &&
        (w != nx || h != ny)) {
      why = about (s->mask_file, g_strdup_printf ("%dx%d pixels, the grid "
              "%dx%d lenslets: it needs one pixel per lenslet", w, h, nx, ny));
      g_clear_pointer (&px, g_free);
    }
    if (why)
      err = g_error_new_literal (G_FILE_ERROR, G_FILE_ERROR_FAILED, why);
    g_free (why);
    if (file_loaded (self, &self->mask_fs, s->mask_gen, "lenslet mask", err,
            &ok)) {
      g_free (self->mask_px);
      self->mask_px = px;
      self->mask_w = w;
      self->mask_h = h;
    }
  }
  if (ok && gst_co_file_setting_needs_read (&self->ref_fs, s->reference_gen)) {
    FileArrays a = { nx * ny, NULL, NULL };
    if (file_loaded (self, &self->ref_fs, s->reference_gen,
            "reference centroids", load (s->reference_file,
                MAX_REFERENCE_FILE, parse_reference, &a), &ok)) {
      clear_arrays (&self->file_ref);
      self->file_ref = a;
      g_free (self->ref_path);
      self->ref_path = a.x ? g_strdup (s->reference_file) : NULL;
    }
  }
  if (ok && gst_co_file_setting_needs_read (&self->lut_fs, s->lut_gen)) {
    FileArrays a = { levels, NULL, NULL };
    if (file_loaded (self, &self->lut_fs, s->lut_gen, "weight table",
            load (s->lut_file, MAX_LUT_FILE, parse_lut, &a), &ok)) {
      clear_arrays (&self->file_lut);
      self->file_lut = a;
    }
  }
  return ok;
}

/* A grid that cannot be made: an error before the first grid and after new
 * caps (nothing fits them), else a warning that keeps the grid in use. */
static gboolean
grid_failed (GstCudaShCentroid * self, gboolean may_keep, gchar * msg)
{
  if (may_keep)
    GST_ELEMENT_WARNING (self, RESOURCE, READ, ("%s; keeping the previous "
            "grid", msg), (NULL));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("%s", msg), (NULL));
  g_free (msg);
  return may_keep;
}

/* A capture that a new grid ends: its message still comes, saying so. */
static void
capture_interrupted (GstCudaShCentroid * self)
{
  gint n = self->grid.nx * self->grid.ny;

  GST_ELEMENT_WARNING (self, STREAM, FAILED, ("The reference capture was "
          "interrupted after %d of %d frames: the lenslet grid changed",
          self->capture_total - self->capture_left, self->capture_total),
      (NULL));
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("cudashcentroid-reference", "frames", G_TYPE_INT,
              self->capture_total - self->capture_left, "lenslets",
              G_TYPE_INT, n, "missing", G_TYPE_INT, n, "interrupted",
              G_TYPE_BOOLEAN, TRUE, NULL)));
  self->capture_left = 0;
}

/* Builds the grid, the weights and the reference for the negotiated size
 * from @s and the files as read; everything is checked before the grid in
 * use is touched.  A captured reference (and a capture under way) stays
 * while the lenslets stay where they were and no reference file was set.
 * FALSE after posting an error. */
static gboolean upload_grid (GstCudaShCentroid * self, gint levels);

/* How many lenslets @s gives a width x height frame */
static void
lenslets (const GstCoShSettings * s, gint width, gint height, gint * nx,
    gint * ny)
{
  *nx = s->lenslets_x;
  *ny = s->lenslets_y;
  if (*nx == 0)
    *nx = (gint) floor ((width - s->origin_x) / s->pitch + 1e-9);
  if (*ny == 0)
    *ny = (gint) floor ((height - s->origin_y) / s->pitch + 1e-9);
}

static gboolean
build_grid (GstCudaShCentroid * self, const GstCoShSettings * s,
    gint width, gint height, gint levels, gboolean may_keep)
{
  gint nx, ny, i, j, n;
  gdouble *rx = NULL, *ry = NULL;
  gfloat *lut = NULL;
  gboolean same_lenslets, keep_capture;

  lenslets (s, width, height, &nx, &ny);
  if (nx < 1 || ny < 1)
    return grid_failed (self, may_keep, g_strdup_printf ("No lenslet of "
            "pitch %g pixels fits the %dx%d frame from origin %g,%g",
            s->pitch, width, height, s->origin_x, s->origin_y));
  n = nx * ny;
  /* the files in use were checked against another grid or format */
  if (self->mask_px && (self->mask_w != nx || self->mask_h != ny))
    return grid_failed (self, may_keep, g_strdup_printf ("The lenslet mask "
            "is %dx%d, the grid %dx%d lenslets: it needs one pixel per "
            "lenslet", self->mask_w, self->mask_h, nx, ny));
  if (self->file_ref.x && self->file_ref.n != n)
    return grid_failed (self, may_keep, g_strdup_printf ("The reference "
            "centroids hold %d lenslets, the grid %d", self->file_ref.n, n));
  if (self->file_lut.x && self->file_lut.n != levels)
    return grid_failed (self, may_keep, g_strdup_printf ("The weight table "
            "holds %d weights, the frames have %d sample values",
            self->file_lut.n, levels));
  if (self->file_ref.x) {
    rx = g_new (gdouble, n);
    ry = g_new (gdouble, n);
    memcpy (rx, self->file_ref.x, sizeof (gdouble) * n);
    memcpy (ry, self->file_ref.y, sizeof (gdouble) * n);
  }
  if (self->file_lut.x) {
    lut = g_new (gfloat, levels);
    memcpy (lut, self->file_lut.x, sizeof (gfloat) * levels);
  }

  /* everything fits: the new grid replaces the one in use */
  same_lenslets = self->bx && nx == self->grid.nx && ny == self->grid.ny &&
      width == self->width && height == self->height &&
      s->pitch == self->pitch && s->origin_x == self->origin_x &&
      s->origin_y == self->origin_y;
  keep_capture = same_lenslets && !rx &&
      !g_strcmp0 (self->reference_source, "captured");
  if (self->capture_left > 0 && !same_lenslets)
    capture_interrupted (self);
  if (!keep_capture && !g_strcmp0 (self->reference_source, "captured"))
    GST_ELEMENT_WARNING (self, STREAM, FAILED, ("The captured reference "
            "was for another lenslet grid or replaced by a file: the "
            "reference is now %s", rx ? "the file's" : "the lenslet centres"),
        (NULL));
  if (keep_capture || (same_lenslets && self->capture_left > 0)) {
    /* the captured reference and the sums of a capture under way survive */
    gdouble *ox = g_steal_pointer (&self->ref_x);
    gdouble *oy = g_steal_pointer (&self->ref_y);
    gdouble *cx = g_steal_pointer (&self->cap_x);
    gdouble *cy = g_steal_pointer (&self->cap_y);
    gint *cn = g_steal_pointer (&self->cap_n);
    gint left = self->capture_left;
    gchar *src = g_steal_pointer (&self->reference_source);
    clear_grid (self);
    self->capture_left = left;
    self->cap_x = cx;
    self->cap_y = cy;
    self->cap_n = cn;
    if (keep_capture) {
      rx = ox;
      ry = oy;
      g_free (src);
      src = g_strdup ("captured");
    } else {
      g_free (ox);
      g_free (oy);
      g_clear_pointer (&src, g_free);
    }
    self->reference_source = src;
  } else {
    clear_grid (self);
  }
  self->width = width;
  self->height = height;
  self->pitch = s->pitch;
  self->origin_x = s->origin_x;
  self->origin_y = s->origin_y;
  self->bx = g_new (gint32, nx + 1);
  self->by = g_new (gint32, ny + 1);
  self->measure = g_new0 (guint8, n);
  self->why = g_new0 (guint8, n);
  for (i = 0; i <= nx; i++)
    self->bx[i] = co_sh_boundary (s->origin_x, s->pitch, i, width);
  for (j = 0; j <= ny; j++)
    self->by[j] = co_sh_boundary (s->origin_y, s->pitch, j, height);
  if (!self->reference_source)
    self->reference_source = rx ? g_strdup (self->ref_path) :
        g_strdup ("centres");
  if (!rx) {
    rx = g_new (gdouble, n);
    ry = g_new (gdouble, n);
    for (j = 0; j < ny; j++)
      for (i = 0; i < nx; i++) {
        rx[j * nx + i] = s->origin_x + (i + 0.5) * s->pitch;
        ry[j * nx + i] = s->origin_y + (j + 0.5) * s->pitch;
      }
  }
  self->ref_x = rx;
  self->ref_y = ry;
  for (j = 0; j < ny; j++)
    for (i = 0; i < nx; i++) {
      gint k = j * nx + i;
      guint8 why_not = 0;
      if (!co_sh_inside (s->origin_x, s->pitch, i, width) ||
          !co_sh_inside (s->origin_y, s->pitch, j, height))
        why_not |= CO_SH_CLIPPED;
      if (!co_sh_in_pupil (i, j, nx, ny, s->pupil_diameter,
              s->central_obstruction) || (self->mask_px && !self->mask_px[k]))
        why_not |= CO_SH_OUT_OF_PUPIL;
      self->measure[k] = !why_not;
      self->why[k] = why_not;
    }
  if (lut) {
    self->lut = lut;
  } else if (s->gamma != 1.0) {
    /* v^gamma, scaled so the largest value keeps its own */
    gdouble top = levels - 1;
    self->lut = g_new (gfloat, levels);
    for (i = 0; i < levels; i++)
      self->lut[i] = (gfloat) (top * pow (i / top, s->gamma));
  }
  self->grid.nx = nx;
  self->grid.ny = ny;
  self->grid.bx = self->bx;
  self->grid.by = self->by;
  self->grid.measure = self->measure;
  self->grid.margin = s->window_margin;
  self->grid.method = s->method;
  self->grid.threshold = (gfloat) s->threshold;
  self->grid.threshold_fraction = s->threshold_relative;
  self->grid.brightest = s->brightest;
  self->grid.weight = self->lut;
  self->grid.ref_x = self->ref_x;
  self->grid.ref_y = self->ref_y;
  co_sh_plan (&self->grid, levels == 65536 ? 2 : 1);
  if (2.0 * s->window_margin >= s->pitch)
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("window-margin %d leaves "
            "no pixel of a %g-pixel lenslet: every lenslet is flagged no "
            "light; keep it below pitch / 2", s->window_margin, s->pitch),
        (NULL));
  self->ref_changed = TRUE;
  GST_INFO_OBJECT (self, "%dx%d lenslets of %g pixels from %g,%g on %dx%d, "
      "%d levels", nx, ny, s->pitch, s->origin_x, s->origin_y, width, height,
      levels);
  return gst_co_element_on_cuda (GST_CO_BASE_FILTER (self)) ?
      upload_grid (self, levels) : TRUE;
}

/* CUDA: the grid's tables into one device block, laid out widest first:
 * references (double), results (floats, then flags: the block read back
 * in one copy, the slopes worked out on the device), the weight table (float), boundaries (int32), measure and
 * why (bytes). */
static gboolean
upload_grid (GstCudaShCentroid * self, gint levels)
{
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (self);
  const CoShGrid *g = &self->grid;
  const gint n = g->nx * g->ny;
  const gsize refs = 2 * sizeof (gdouble) * n;
  const gsize res = GST_ROUND_UP_8 (co_sh_result_bytes (n, TRUE));
  const gsize lut = g->weight ? sizeof (gfloat) * levels : 0;
  const gsize bounds = sizeof (gint32) * (g->nx + g->ny + 2);
  guint8 *d;

  self->dev = d = gst_co_element_alloc (base, refs + res + lut + bounds +
      2 * (gsize) n);
  if (!d)
    return FALSE;
  self->dref_x = (gdouble *) d;
  self->dref_y = self->dref_x + n;
  co_sh_result_in (&self->dres, d + refs, n, TRUE);
  self->dgrid = *g;
  self->dgrid.ref_x = self->dref_x;
  self->dgrid.ref_y = self->dref_y;
  self->dgrid.weight = g->weight ? (const gfloat *) (d + refs + res) : NULL;
  self->dgrid.bx = (const gint32 *) (d + refs + res + lut);
  self->dgrid.by = self->dgrid.bx + g->nx + 1;
  self->dgrid.measure = d + refs + res + lut + bounds;
  self->dwhy = self->dgrid.measure + n;
  return gst_co_element_upload (base, (gpointer) self->dgrid.bx, g->bx,
      sizeof (gint32) * (g->nx + 1), "uploading the lenslet grid") &&
      gst_co_element_upload (base, (gpointer) self->dgrid.by, g->by,
      sizeof (gint32) * (g->ny + 1), "uploading the lenslet grid") &&
      gst_co_element_upload (base, (gpointer) self->dgrid.measure,
      self->measure, n, "uploading the lenslet grid") &&
      gst_co_element_upload (base, (gpointer) self->dwhy, self->why, n,
      "uploading the lenslet grid") &&
      gst_co_element_upload (base, (gpointer) self->dgrid.weight,
      g->weight, lut, "uploading the weight table");
}

/* GstCoBaseFilter::rebuild: the grid for the negotiated size and format
 * (the weights have as many levels as the samples) from a snapshot of the
 * settings. */
static gboolean
gst_cuda_sh_centroid_rebuild (GstCoBaseFilter * base, gboolean caps_changed)
{
  GstCudaShCentroid *self = GST_CUDA_SH_CENTROID (base);
  GstCoShSettings s;
  gint levels = GST_VIDEO_INFO_FORMAT (&base->in.info) ==
      GST_VIDEO_FORMAT_GRAY16_LE ? 65536 : 256;
  gboolean ok;
  const gint w = GST_VIDEO_INFO_WIDTH (&base->in.info);
  const gint h = GST_VIDEO_INFO_HEIGHT (&base->in.info);
  gint nx, ny;

  gst_co_base_filter_snapshot (base, &s);
  lenslets (&s, w, h, &nx, &ny);
  ok = read_files (self, &s, MAX (nx, 1), MAX (ny, 1), levels) &&
      build_grid (self, &s, w, h, levels, self->built && !caps_changed &&
      self->bx != NULL);
  if (ok)
    self->built = TRUE;
  gst_co_base_filter_snapshot_clear (base, &s);
  return ok;
}

/* ---- one frame ---- */

/* One frame: the centroids (and the overlay) on the active backend.  On
 * CUDA, three calls on the element's stream (measure, draw, read back) and
 * no wait: the base class synchronises once before finish. */
static GstFlowReturn
gst_cuda_sh_centroid_process (GstCoBaseFilter * base, const CoFrame * in,
    CoFrame * out)
{
  GstCudaShCentroid *self = GST_CUDA_SH_CENTROID (base);
  CoShResult r;
  CoShMarks marks;
  gint capture, n;

  /* the settings read per frame; the grid's are rebuild's */
  GST_OBJECT_LOCK (self);
  self->snap = self->set;
  self->snap.mask_file = self->snap.reference_file = NULL;
  self->snap.lut_file = NULL;
  capture = self->capture_request;
  self->capture_request = 0;
  GST_OBJECT_UNLOCK (self);
  n = self->grid.nx * self->grid.ny;
  if (!new_results (self, n))
    return GST_FLOW_ERROR;
  GST_TRACE_OBJECT (self, "results block ready");
  if (capture > 0) {
    g_free (self->cap_x);
    g_free (self->cap_y);
    g_free (self->cap_n);
    self->cap_x = g_new0 (gdouble, n);
    self->cap_y = g_new0 (gdouble, n);
    self->cap_n = g_new0 (gint, n);
    self->capture_left = self->capture_total = capture;
  }
  marks.gain = self->snap.overlay_scale;
  self->grid.slope_scale = self->dgrid.slope_scale = slope_scale (&self->snap);
  if (gst_co_element_on_cuda (base)) {
    /* the slopes' and the overlay's references follow a capture or a new
     * file */
    if (self->ref_changed) {
      if (!gst_co_element_upload (base, self->dref_x, self->ref_x,
              sizeof (gdouble) * n, "uploading the reference centroids") ||
          !gst_co_element_upload (base, self->dref_y, self->ref_y,
              sizeof (gdouble) * n, "uploading the reference centroids"))
        return GST_FLOW_ERROR;
      self->ref_changed = FALSE;
    }
    marks.cx = self->dres.cx;
    marks.cy = self->dres.cy;
    marks.flags = self->dres.flags;
    marks.rx = self->dref_x;
    marks.ry = self->dref_y;
    if (!gst_co_element_cuda_ok (base, co_sh_cuda (&self->dgrid,
                self->dwhy, in, &self->dres, base->engine.stream),
            "measuring centroids"))
      return GST_FLOW_ERROR;
    GST_TRACE_OBJECT (self, "measurement queued");
    if (out && !gst_co_element_cuda_ok (base,
            co_sh_overlay_cuda (&self->dgrid, &marks, out, base->engine.stream),
            "drawing the overlay"))
      return GST_FLOW_ERROR;
    /* one read-back of every result: finish reads them after the frame's
     * synchronisation */
    return gst_co_element_download (base, self->cx, self->dres.cx,
        co_sh_result_bytes (n, TRUE), "reading the centroids back") ?
        GST_FLOW_OK : GST_FLOW_ERROR;
  }
  memcpy (self->flags, self->why, n);
  r.cx = self->cx;
  r.cy = self->cy;
  r.m00 = self->m00;
  r.sx = self->sx;
  r.sy = self->sy;
  r.flags = self->flags;
  if (co_sh_reference (&self->grid, in, &r) != 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Out of memory measuring "
            "centroids"), (NULL));
    return GST_FLOW_ERROR;
  }
  if (out) {
    marks.cx = self->cx;
    marks.cy = self->cy;
    marks.flags = self->flags;
    marks.rx = self->ref_x;
    marks.ry = self->ref_y;
    co_sh_overlay (&self->grid, &marks, out);
  }
  return GST_FLOW_OK;
}

/* @n floats as little-endian bytes: a plain copy on little-endian hosts */
static GBytes *
floats (const gfloat * v, gint n)
{
  gfloat *a;
  gint k;

  if (G_BYTE_ORDER == G_LITTLE_ENDIAN)
    return g_bytes_new (v, sizeof (gfloat) * n);
  a = g_malloc (sizeof (gfloat) * (gsize) MAX (n, 0));
  for (k = 0; k < n; k++) {
    guint32 u;
    memcpy (&u, &v[k], 4);
    u = GUINT32_SWAP_LE_BE (u);
    memcpy (&a[k], &u, 4);
  }
  return g_bytes_new_take (a, sizeof (gfloat) * n);
}

/* How many of @n flags say measured: eight at a time (the flags were just
 * written by the device, so this is the first read of them). */
static gint
count_valid (const guint8 * flags, gint n)
{
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101) * CO_SH_VALID;
  gint k = 0, valid = 0;

  for (; k + 8 <= n; k += 8) {
    guint64 w;
    memcpy (&w, flags + k, 8);
    /* one bit per byte: their sum fits the top byte */
    valid += (gint) ((((w & ones) / CO_SH_VALID) * G_GUINT64_CONSTANT
            (0x0101010101010101)) >> 56);
  }
  for (; k < n; k++)
    valid += (flags[k] & CO_SH_VALID) != 0;
  return valid;
}

/* capture-reference: the frame's valid centroids into the sums; the mean
 * becomes the reference after the last frame. */
static void
capture_frame (GstCudaShCentroid * self)
{
  gint n = self->grid.nx * self->grid.ny, k, missing = 0;

  for (k = 0; k < n; k++)
    if (self->flags[k] & CO_SH_VALID) {
      self->cap_x[k] += self->cx[k];
      self->cap_y[k] += self->cy[k];
      self->cap_n[k]++;
    }
  if (--self->capture_left > 0)
    return;
  for (k = 0; k < n; k++) {
    if (!self->cap_n[k]) {
      missing++;
      continue;
    }
    self->ref_x[k] = self->cap_x[k] / self->cap_n[k];
    self->ref_y[k] = self->cap_y[k] / self->cap_n[k];
  }
  g_free (self->reference_source);
  self->reference_source = g_strdup ("captured");
  self->ref_changed = TRUE;
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("cudashcentroid-reference", "frames", G_TYPE_INT,
              self->capture_total, "lenslets", G_TYPE_INT, n, "missing",
              G_TYPE_INT, missing, NULL)));
  GST_INFO_OBJECT (self, "reference captured over %d frames (%d lenslets "
      "never measured keep theirs)", self->capture_total, missing);
}

static GstFlowReturn
gst_cuda_sh_centroid_finish (GstCoBaseFilter * base, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaShCentroid *self = GST_CUDA_SH_CENTROID (base);
  const GstCoShSettings *s = &self->snap;
  gint n = self->grid.nx * self->grid.ny, k, valid = 0;
  gboolean radians = s->pixel_size > 0.0 && s->focal_length > 0.0;
  GstStructure *st;
  /* the reference this frame's slopes were measured from: a capture that
   * ends with it replaces it for the next frame only */
  gchar *measured_from = g_strdup (self->reference_source);

  if (self->capture_left > 0)
    capture_frame (self);
  st = gst_co_buffer_add_results (outbuf, RESULT_KIND);
  if (!st) {
    drop_results (self);
    g_free (measured_from);
    return GST_FLOW_OK;
  }
  {
    GBytes *b[6] = { NULL }, *whole;
    GstMemory *block = gst_memory_ref (self->results);
    const gsize f = sizeof (gfloat) * n;
    valid = count_valid (self->flags, n);
    if (G_BYTE_ORDER == G_BIG_ENDIAN) {
      b[0] = floats (self->cx, n);
      b[1] = floats (self->cy, n);
      b[2] = floats (self->sx, n);
      b[3] = floats (self->sy, n);
      b[4] = floats (self->m00, n);
    }
    /* the frame's block itself goes to the buffer: no copy */
    drop_results (self);
    whole = gst_co_bytes_from_memory (block);
    if (!whole) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Could not map the "
              "results' memory"), (NULL));
      for (k = 0; k < 6; k++)
        if (b[k])
          g_bytes_unref (b[k]);
      g_free (measured_from);
      return GST_FLOW_ERROR;
    }
    if (G_BYTE_ORDER == G_LITTLE_ENDIAN) {
      b[0] = g_bytes_new_from_bytes (whole, 0, f);
      b[1] = g_bytes_new_from_bytes (whole, f, f);
      b[2] = g_bytes_new_from_bytes (whole, 3 * f, f);
      b[3] = g_bytes_new_from_bytes (whole, 4 * f, f);
      b[4] = g_bytes_new_from_bytes (whole, 2 * f, f);
    }
    b[5] = g_bytes_new_from_bytes (whole, 5 * f, n);
    g_bytes_unref (whole);
    gst_structure_set (st, "lenslets-x", G_TYPE_INT, self->grid.nx,
        "lenslets-y", G_TYPE_INT, self->grid.ny, "valid", G_TYPE_INT, valid,
        "centroid-x", G_TYPE_BYTES, b[0], "centroid-y", G_TYPE_BYTES, b[1],
        "slope-x", G_TYPE_BYTES, b[2], "slope-y", G_TYPE_BYTES, b[3],
        "intensity", G_TYPE_BYTES, b[4], "flags", G_TYPE_BYTES, b[5],
        "slope-units", G_TYPE_STRING, radians ? "radians" : "pixels",
        "reference", G_TYPE_STRING, measured_from,
        "timestamp", G_TYPE_UINT64, (guint64) GST_BUFFER_PTS (outbuf),
        "frame", G_TYPE_UINT64, self->frames, NULL);
    for (k = 0; k < 6; k++)
      g_bytes_unref (b[k]);
    GST_TRACE_OBJECT (self, "results attached");
  }
  if (s->message_interval && self->frames % s->message_interval == 0)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), gst_structure_copy (st)));
  self->frames++;
  g_free (measured_from);
  return GST_FLOW_OK;
}

static void
gst_cuda_sh_centroid_release (GstCoBaseFilter * base)
{
  GstCudaShCentroid *self = GST_CUDA_SH_CENTROID (base);

  clear_grid (self);
  /* the next start reads the files again */
  clear_files (self);
  self->built = FALSE;
  self->frames = 0;
}

/* ---- properties ---- */

static void
capture_reference (GstCudaShCentroid * self)
{
  GST_OBJECT_LOCK (self);
  self->capture_request = self->set.reference_frames;
  GST_OBJECT_UNLOCK (self);
}

/* The frames are written only while the overlay is on. */
static void
gst_cuda_sh_centroid_setting_changed (GstCoBaseFilter * base, guint prop_id)
{
  if (prop_id == PROP_OVERLAY)
    gst_co_base_filter_set_writes_locked (base,
        GST_CUDA_SH_CENTROID (base)->set.overlay);
}

static void
gst_cuda_sh_centroid_finalize (GObject * object)
{
  GstCudaShCentroid *self = GST_CUDA_SH_CENTROID (object);

  clear_grid (self);
  clear_files (self);
  G_OBJECT_CLASS (gst_cuda_sh_centroid_parent_class)->finalize (object);
}

#define SET(f) G_STRUCT_OFFSET (GstCoShSettings, f)
#define GRID GST_CO_SETTING_REBUILD
#define FRAME GST_CO_SETTING_FRAME

static void
gst_cuda_sh_centroid_class_init (GstCudaShCentroidClass * klass)
{
  GstCoBaseFilterClass *fc = GST_CO_BASE_FILTER_CLASS (klass);

  const GstCoSetting settings[] = {
    [PROP_PITCH - 1] = GST_CO_ROW_DOUBLE ("pitch", "Pitch", "Lenslet pitch "
        "in pixels (fractional; at least 3: a lenslet needs 3x3 pixels)",
        3.0, 4096.0, 20.0, GST_CO_PARAM_LIVE, SET (pitch), GRID),
    [PROP_ORIGIN_X - 1] = GST_CO_ROW_DOUBLE ("origin-x", "Origin x",
        "Left edge of the first lenslet, pixels (fractional; pixel x spans "
        "x .. x+1)", -4096.0, 65536.0, 0.0, GST_CO_PARAM_LIVE,
        SET (origin_x), GRID),
    [PROP_ORIGIN_Y - 1] = GST_CO_ROW_DOUBLE ("origin-y", "Origin y",
        "Top edge of the first lenslet, pixels (fractional)", -4096.0,
        65536.0, 0.0, GST_CO_PARAM_LIVE, SET (origin_y), GRID),
    [PROP_LENSLETS_X - 1] = GST_CO_ROW_INT ("lenslets-x", "Lenslets x",
        "Lenslets across (0: as many as fit the frame; more are flagged "
        "not wholly in the frame)", 0, 4096, 0, GST_CO_PARAM_LIVE,
        SET (lenslets_x), GRID),
    [PROP_LENSLETS_Y - 1] = GST_CO_ROW_INT ("lenslets-y", "Lenslets y",
        "Lenslets down (0: as many as fit)", 0, 4096, 0, GST_CO_PARAM_LIVE,
        SET (lenslets_y), GRID),
    [PROP_PUPIL_DIAMETER - 1] = GST_CO_ROW_DOUBLE ("pupil-diameter",
        "Pupil diameter", "A circular pupil centred on the grid, in "
        "lenslets: lenslets whose centre lies outside are not measured (0: "
        "every lenslet)", 0.0, 8192.0, 0.0, GST_CO_PARAM_LIVE,
        SET (pupil_diameter), GRID),
    [PROP_CENTRAL_OBSTRUCTION - 1] = GST_CO_ROW_DOUBLE ("central-obstruction",
        "Central obstruction", "The pupil's central obstruction, a diameter "
        "in lenslets", 0.0, 8192.0, 0.0, GST_CO_PARAM_LIVE,
        SET (central_obstruction), GRID),
    [PROP_MASK_FILE - 1] = GST_CO_ROW_FILE ("mask-file", "Mask file",
        "A grey picture with one pixel per lenslet: 0 skips that lenslet "
        "(any format GStreamer decodes); with the pupil, both must admit "
        "a lenslet", SET (mask_file), GRID, SET (mask_gen)),
    [PROP_METHOD - 1] = GST_CO_ROW_ENUM ("method", "Method",
        "How a centroid is computed", gst_co_sh_method_get_type (),
        CO_SH_COG, GST_CO_PARAM_LIVE, SET (method), GRID),
    [PROP_THRESHOLD - 1] = GST_CO_ROW_DOUBLE ("threshold", "Threshold",
        "tcog: subtracted from every weight, nothing below it counts "
        "(see threshold-mode)", 0.0, 65535.0, 0.2, GST_CO_PARAM_LIVE,
        SET (threshold), GRID),
    [PROP_THRESHOLD_MODE - 1] = GST_CO_ROW_ENUM ("threshold-mode",
        "Threshold mode", "The threshold in pixel values, or relative to "
        "each lenslet's largest", gst_co_sh_threshold_mode_get_type (), 1,
        GST_CO_PARAM_LIVE, SET (threshold_relative), GRID),
    [PROP_WINDOW_MARGIN - 1] = GST_CO_ROW_INT ("window-margin",
        "Window margin", "Pixels left out at every lenslet edge (crosstalk "
        "from the neighbours)", 0, 1024, 0, GST_CO_PARAM_LIVE,
        SET (window_margin), GRID),
    [PROP_GAMMA - 1] = GST_CO_ROW_DOUBLE ("gamma", "Gamma",
        "Weights are (v / max)^gamma x max before any threshold (1: the "
        "values themselves)", 0.1, 10.0, 1.0, GST_CO_PARAM_LIVE,
        SET (gamma), GRID),
    [PROP_LUT_FILE - 1] = GST_CO_ROW_FILE ("lut-file", "Weight table file",
        "A weight per pixel value instead of gamma: 256 (GRAY8) or 65536 "
        "(GRAY16_LE) little-endian 32-bit floats, finite, not negative",
        SET (lut_file), GRID, SET (lut_gen)),
    [PROP_BRIGHTEST - 1] = GST_CO_ROW_INT ("brightest", "Brightest",
        "brightest: how many of each lenslet's largest weights count "
        "(with every pixel tied with the last of them)", 1, 1 << 20, 9,
        GST_CO_PARAM_LIVE, SET (brightest), GRID),
    [PROP_REFERENCE_FILE - 1] = GST_CO_ROW_FILE ("reference-file",
        "Reference file", "Reference centroids slopes are taken from: one "
        "\"x y\" line per lenslet, row after row, '#' comments (none: the "
        "lenslets' centres)", SET (reference_file), GRID,
        SET (reference_gen)),
    [PROP_REFERENCE_FRAMES - 1] = GST_CO_ROW_INT ("reference-frames",
        "Reference frames", "capture-reference averages this many frames",
        1, 100000, 10, GST_CO_PARAM_LIVE, SET (reference_frames), FRAME),
    [PROP_PIXEL_SIZE - 1] = GST_CO_ROW_DOUBLE ("pixel-size", "Pixel size",
        "Sensor pixel size in micrometres; with lenslet-focal-length, "
        "slopes are in radians", 0.0, 1000.0, 0.0, GST_CO_PARAM_LIVE,
        SET (pixel_size), FRAME),
    [PROP_FOCAL_LENGTH - 1] = GST_CO_ROW_DOUBLE ("lenslet-focal-length",
        "Lenslet focal length", "Lenslet focal length in millimetres; with "
        "pixel-size, slopes are in radians", 0.0, 10000.0, 0.0,
        GST_CO_PARAM_LIVE, SET (focal_length), FRAME),
    [PROP_MESSAGE_INTERVAL - 1] = GST_CO_ROW_UINT ("message-interval",
        "Message interval", "Post the results as an element message every "
        "this many frames (0: never; the buffers always carry them)", 0,
        G_MAXUINT, 1, GST_CO_PARAM_LIVE, SET (message_interval), FRAME),
    [PROP_OVERLAY - 1] = GST_CO_ROW_BOOLEAN ("overlay", "Overlay",
        "Draw the lenslet grid, the centroids and the slopes on the "
        "frames", FALSE, GST_CO_PARAM_LIVE, SET (overlay), FRAME),
    [PROP_OVERLAY_SCALE - 1] = GST_CO_ROW_DOUBLE ("overlay-scale",
        "Overlay scale", "The overlay's slope lines are this many times the "
        "slope (from each lenslet's reference point)", 0.0, 1000.0, 4.0,
        GST_CO_PARAM_LIVE, SET (overlay_scale), FRAME),
  };

  GST_CO_BASE_FILTER_CLASS_INSTALL (fc, GstCudaShCentroid, set, settings);
  fc->setting_changed = gst_cuda_sh_centroid_setting_changed;
  G_OBJECT_CLASS (klass)->finalize = gst_cuda_sh_centroid_finalize;

  /**
   * GstCudaShCentroid::capture-reference:
   *
   * Averages the centroids of the next #GstCudaShCentroid:reference-frames
   * frames into the reference slopes are measured from, then posts a
   * `cudashcentroid-reference` element message.
   */
  signals[SIGNAL_CAPTURE_REFERENCE] = g_signal_new_class_handler
      ("capture-reference", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (capture_reference),
      NULL, NULL, NULL, G_TYPE_NONE, 0);

  gst_co_base_filter_class_set_details (fc, "Shack-Hartmann centroids",
      "Filter/Analyzer/Video", "Centroids and slopes of a Shack-Hartmann "
      "wavefront sensor's frames", FORMATS, GST_CO_MAX_SIZE);

  fc->mode = GST_CO_FILTER_ANALYSE;
  fc->process = GST_DEBUG_FUNCPTR (gst_cuda_sh_centroid_process);
  fc->finish = GST_DEBUG_FUNCPTR (gst_cuda_sh_centroid_finish);
  fc->rebuild = GST_DEBUG_FUNCPTR (gst_cuda_sh_centroid_rebuild);
  fc->release = GST_DEBUG_FUNCPTR (gst_cuda_sh_centroid_release);
}

/* the table's defaults are the pspecs' (set by the base) */
static void
gst_cuda_sh_centroid_init (GstCudaShCentroid * self)
{
}
