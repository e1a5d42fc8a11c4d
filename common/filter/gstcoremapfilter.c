/* cudaoptics — LGPL-2.1-or-later */
/**
 * SECTION:gstcoremapfilter
 * @title: GstCoRemapFilter
 * @short_description: base class of backward-mapping elements
 *
 * Owns the look-up table of a remapping element, its strategies
 * (#GstCoRemapFilter:lut), sampling (#GstCoRemapFilter:interpolation) and
 * what happens off the source's edges (#GstCoRemapFilter:off-edge,
 * #GstCoRemapFilter:border-color).  A subclass gives the map
 * (gstcoremapfilter.h).
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include "gstcoremapfilter.h"
#include "gstcocompat.h"
#include "gstcofilesetting.h"
#include "gstcomapfile.h"
#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_co_remap_filter_debug);
#define GST_CAT_DEFAULT gst_co_remap_filter_debug

enum
{
  PROP_0,
  PROP_LUT,
  PROP_INTERPOLATION,
  PROP_BORDER_COLOR,
  PROP_OFF_EDGE,
};

#define DEFAULT_LUT CO_LUT_COMPRESSED
#define DEFAULT_INTERPOLATION CO_INTERP_BILINEAR
#define DEFAULT_BORDER_COLOR 0xff000000u
#define DEFAULT_OFF_EDGE CO_EDGE_BORDER

typedef struct
{
  gint lut, interpolation, off_edge;
  guint border_color;
  gboolean table_only;          /* the subclass's: no lut=none just now */
} Settings;

struct _GstCoRemapFilterPrivate
{
  Settings set;                 /* properties, under the object lock */

  /* streaming thread only: the table of the last rebuild */
  CoLut lut;
  guint32 border[CO_MAX_PLANES];
  /* [2 g]: packed or x, [2 g + 1]: y, for each geometry g (co_remap.h) */
  gpointer table[2 * CO_LUT_MAX_GEOMETRIES];
  gsize table_size[2 * CO_LUT_MAX_GEOMETRIES];
  gpointer map[CO_LUT_MAX_GEOMETRIES];  /* the float maps, CUDA backend */
  gsize map_size[CO_LUT_MAX_GEOMETRIES];
  /* the subclass's map file: what its setting gave (streaming thread), and
   * its size (object lock: get_output_size) */
  GstCoMapFile file;
  GstCoFileSetting file_fs;
  gint file_w, file_h;
};

#define gst_co_remap_filter_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCoRemapFilter, gst_co_remap_filter,
    GST_TYPE_CO_BASE_FILTER);

/* ---- enums ---- */

GST_CO_ENUM_TYPE (gst_co_lut_mode_get_type, "GstCoLutMode",
    {CO_LUT_COMPRESSED, "One 32-bit entry per output pixel", "compressed"},
    {CO_LUT_TWO_TABLE, "Separate float x and y tables", "two-table"},
    {CO_LUT_COMPUTE, "No table: evaluate the model per pixel", "none"})

GST_CO_ENUM_TYPE (gst_co_interpolation_get_type, "GstCoInterpolation",
    {CO_INTERP_NEAREST, "Nearest source pixel", "nearest"},
    {CO_INTERP_BILINEAR, "Bilinear, sub-pixel positions in the table",
        "bilinear"})

GST_CO_ENUM_TYPE (gst_co_off_edge_get_type, "GstCoOffEdge",
    {CO_EDGE_BORDER, "The border colour (cv::remap BORDER_CONSTANT)",
        "border"},
    {CO_EDGE_CLAMP, "The nearest edge pixel (BORDER_REPLICATE)", "clamp"},
    {CO_EDGE_WRAP, "x modulo the width (a 360-degree seam), y clamped",
        "wrap"})

void
gst_co_remap_filter_mark_dirty (GstCoRemapFilter * self)
{
  gst_co_base_filter_mark_dirty (GST_CO_BASE_FILTER (self));
}

/* ---- the table ---- */

/* The map of geometry g through map_cpu, on the host; uploaded and encoded
 * on the device for the CUDA backend (rebuilds are rare: one sync). */
typedef gboolean (*MapFunc) (GstCoRemapFilter * self, const CoLut * lut,
    gint g, gfloat * x, gfloat * y, gint pitch);

static gboolean
build_from_cpu_map (GstCoRemapFilter * self, MapFunc map_cpu,
    const CoLut * lut, int g)
{
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (self);
  const CoLutPlane *pl = &lut->plane[g];
  gsize n = (gsize) pl->pitch * pl->height;
  gfloat *x = g_try_new (gfloat, 2 * n), *y;
  gboolean ok;

  if (x == NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Out of memory for "
            "the %dx%d map", pl->width, pl->height), (NULL));
    return FALSE;
  }
  y = x + n;
  ok = map_cpu (self, lut, g, x, y, pl->pitch);
  if (ok && !gst_co_element_on_cuda (base)) {
    co_lut_from_map_cpu (lut, g, x, y, pl->pitch);
  } else if (ok) {
    GstCoRemapFilterPrivate *priv = self->priv;

    /* from pageable memory: staged before the upload returns, so x may
     * go below */
    ok = gst_co_element_ensure (base, &priv->map[g], &priv->map_size[g],
        2 * n * sizeof (gfloat)) && gst_co_element_upload (base,
        priv->map[g], x, 2 * n * sizeof (gfloat), "uploading the map") &&
        gst_co_element_cuda_ok (base, co_lut_from_map_cuda (lut, g,
            priv->map[g], (gfloat *) priv->map[g] + n, pl->pitch,
            base->engine.stream), "building the LUT");
  }
  g_free (x);
  return ok;
}

static gboolean
build_from_cuda_map (GstCoRemapFilter * self, GstCoRemapFilterClass * klass,
    const CoLut * lut, int g)
{
  GstCoBaseFilter *base = GST_CO_BASE_FILTER (self);
  GstCoRemapFilterPrivate *priv = self->priv;
  const CoLutPlane *pl = &lut->plane[g];
  gsize n = (gsize) pl->pitch * pl->height;
  gfloat *x;

  if (!gst_co_element_ensure (base, &priv->map[g], &priv->map_size[g],
          2 * n * sizeof (gfloat)))
    return FALSE;
  x = priv->map[g];
  return klass->map_cuda (self, lut, g, x, x + n, pl->pitch) &&
      gst_co_element_cuda_ok (base, co_lut_from_map_cuda (lut, g, x,
          x + n, pl->pitch, base->engine.stream), "building the LUT");
}

/* ---- the map file ---- */

/* MapFunc of the map file: each plane pixel's centre (centre-sited
 * chroma) into the map's pixels, its source position into the source
 * plane's; the scalings only where sizes differ, so a map of the output's
 * and the source's sizes gives plane 0 its values as they are. */
static gboolean
map_file_cpu (GstCoRemapFilter * self, const CoLut * lut, gint g,
    gfloat * x, gfloat * y, gint pitch)
{
  const GstCoMapFile *m = &self->priv->file;
  const CoLutPlane *pl = &lut->plane[g], *p0 = &lut->plane[0];
  /* output plane -> map pixels, map's source -> source plane */
  double ax = (double) m->width / pl->width, ay = (double) m->height /
      pl->height;
  double sw = m->src_width ? m->src_width : p0->src_width;
  double sh = m->src_height ? m->src_height : p0->src_height;
  double bx = pl->src_width / sw, by = pl->src_height / sh;
  int i, j;

  for (j = 0; j < pl->height; j++)
    for (i = 0; i < pl->width; i++) {
      float sx, sy;
      gst_co_map_file_sample (m, ax == 1.0 ? i : (i + 0.5) * ax - 0.5,
          ay == 1.0 ? j : (j + 0.5) * ay - 0.5, &sx, &sy);
      if (bx != 1.0)
        sx = (float) ((sx + 0.5) * bx - 0.5);
      if (by != 1.0)
        sy = (float) ((sy + 0.5) * by - 0.5);
      x[(size_t) j * pitch + i] = sx;
      y[(size_t) j * pitch + i] = sy;
    }
  return TRUE;
}

static void
set_map_file (GstCoRemapFilter * self, GstCoMapFile * fresh)
{
  GstCoRemapFilterPrivate *priv = self->priv;

  gst_co_map_file_clear (&priv->file);
  priv->file = *fresh;
  GST_OBJECT_LOCK (self);
  priv->file_w = fresh->width;
  priv->file_h = fresh->height;
  GST_OBJECT_UNLOCK (self);
}

gboolean
gst_co_remap_filter_use_map_file (GstCoRemapFilter * self,
    const gchar * path, guint gen, gboolean keep)
{
  GstCoRemapFilterPrivate *priv = self->priv;
  GstCoMapFile fresh = { 0 };
  GError *err = NULL;
  gboolean ok;

  if (!keep) {
    set_map_file (self, &fresh);
    gst_co_file_setting_reset (&priv->file_fs);
  }
  if (!gst_co_file_setting_needs_read (&priv->file_fs, gen))
    return TRUE;
  if (path && *path && !gst_co_map_file_load (path, &fresh, &err)) {
    /* the message names the file */
    ok = gst_co_file_setting_failed (&priv->file_fs, GST_ELEMENT (self), gen,
        keep, "map file", err->message);
    g_error_free (err);
    return ok;
  }
  set_map_file (self, &fresh);
  gst_co_file_setting_loaded (&priv->file_fs, gen);
  if (fresh.x)
    GST_INFO_OBJECT (self, "map %s: %dx%d, source %dx%d", path, fresh.width,
        fresh.height, fresh.src_width, fresh.src_height);
  return TRUE;
}

gboolean
gst_co_remap_filter_mapped (GstCoRemapFilter * self, const CoLut * lut)
{
  return self->priv->file.x && lut->mode != CO_LUT_COMPUTE;
}

gboolean
gst_co_remap_filter_map_file_size (GstCoRemapFilter * self,
    const gchar * path, gint * width, gint * height)
{
  GstCoRemapFilterPrivate *priv = self->priv;
  gint w, h;

  if (!path || !*path)
    return FALSE;
  if (gst_co_map_file_size (path, width, height, NULL))
    return TRUE;
  GST_OBJECT_LOCK (self);
  w = priv->file_w;
  h = priv->file_h;
  GST_OBJECT_UNLOCK (self);
  if (w <= 0)
    return FALSE;
  *width = w;
  *height = h;
  return TRUE;
}

gboolean
gst_co_remap_filter_build_from_maps (GstCoRemapFilter * self,
    const CoLut * lut)
{
  GstCoRemapFilterClass *klass = GST_CO_REMAP_FILTER_GET_CLASS (self);
  gboolean cuda = gst_co_element_on_cuda (GST_CO_BASE_FILTER (self));
  gboolean file = gst_co_remap_filter_mapped (self, lut);
  int g;

  for (g = 0; g < CO_LUT_MAX_GEOMETRIES; g++)
    if (co_lut_has_geometry (lut, g) && !(cuda && klass->map_cuda && !file ?
            build_from_cuda_map (self, klass, lut, g) :
            build_from_cpu_map (self, file ? map_file_cpu : klass->map_cpu,
                lut, g)))
      return FALSE;
  return TRUE;
}

void
gst_co_remap_filter_set_table_only (GstCoRemapFilter * self,
    gboolean table_only)
{
  self->priv->set.table_only = table_only;
  gst_co_remap_filter_mark_dirty (self);
}

/* GstCoBaseFilter::rebuild: the table for the negotiated sizes from a
 * snapshot of the settings (the subclass's taken by prepare).  The base
 * has cleared ready: until this succeeds priv->lut is never used. */
static gboolean
gst_co_remap_filter_rebuild (GstCoBaseFilter * base, gboolean caps_changed)
{
  GstCoRemapFilter *self = GST_CO_REMAP_FILTER (base);
  GstCoRemapFilterClass *klass = GST_CO_REMAP_FILTER_GET_CLASS (self);
  GstCoRemapFilterPrivate *priv = self->priv;
  Settings snap;
  const Settings *s = &snap;
  CoLutMode mode;
  CoLut lut;
  int g;

  GST_OBJECT_LOCK (self);
  snap = priv->set;
  GST_OBJECT_UNLOCK (self);
  mode = (CoLutMode) s->lut;

  /* no per-pixel map to evaluate: float tables give the same pixels */
  if (mode == CO_LUT_COMPUTE && (!klass->remap || s->table_only))
    mode = CO_LUT_TWO_TABLE;
  co_lut_layout_full (&lut, mode, (CoInterp) s->interpolation,
      (CoEdge) s->off_edge, base->in.format,
      GST_VIDEO_INFO_WIDTH (&base->out.info),
      GST_VIDEO_INFO_HEIGHT (&base->out.info),
      GST_VIDEO_INFO_WIDTH (&base->in.info),
      GST_VIDEO_INFO_HEIGHT (&base->in.info));
  if (klass->prepare && !klass->prepare (self, &lut, caps_changed))
    return FALSE;
  for (g = 0; g < CO_LUT_MAX_GEOMETRIES; g++) {
    gsize bytes = co_lut_table_bytes (&lut, g);
    int t;
    if (!bytes)
      continue;
    for (t = 0; bytes && t < (mode == CO_LUT_TWO_TABLE ? 2 : 1); t++)
      if (!gst_co_element_ensure (base, &priv->table[g * 2 + t],
              &priv->table_size[g * 2 + t], bytes))
        return FALSE;
    if (mode == CO_LUT_COMPRESSED) {
      lut.plane[g].packed = priv->table[g * 2];
    } else if (mode == CO_LUT_TWO_TABLE) {
      lut.plane[g].x = priv->table[g * 2];
      lut.plane[g].y = priv->table[g * 2 + 1];
    }
  }
  if (klass->build_lut && !gst_co_remap_filter_mapped (self, &lut)) {
    if (!klass->build_lut (self, &lut))
      return FALSE;
  } else if (mode != CO_LUT_COMPUTE) {
    if (!gst_co_remap_filter_build_from_maps (self, &lut))
      return FALSE;
  }
  co_format_border (base->in.format, s->border_color, priv->border);
  priv->lut = lut;
  GST_DEBUG_OBJECT (self, "table rebuilt: %dx%d from %dx%d, lut %d, "
      "interpolation %d, off-edge %d, %d fractional bits", lut.plane[0].width,
      lut.plane[0].height, lut.plane[0].src_width, lut.plane[0].src_height,
      lut.mode, lut.interp, lut.edge, lut.frac[0]);
  return TRUE;
}

static GstFlowReturn
gst_co_remap_filter_process (GstCoBaseFilter * base, const CoFrame * in,
    CoFrame * out)
{
  GstCoRemapFilter *self = GST_CO_REMAP_FILTER (base);
  GstCoRemapFilterClass *klass = GST_CO_REMAP_FILTER_GET_CLASS (self);
  GstCoRemapFilterPrivate *priv = self->priv;
  const CoLut *lut = &priv->lut;

  if (lut->mode == CO_LUT_COMPUTE)
    return klass->remap (self, lut, in, out, priv->border);
  if (!gst_co_element_on_cuda (base)) {
    co_remap_cpu (lut, in, out, priv->border);
    return GST_FLOW_OK;
  }
  return gst_co_element_cuda_ok (base, co_remap_cuda (lut, in, out,
          priv->border, base->engine.stream), "remapping") ? GST_FLOW_OK :
      GST_FLOW_ERROR;
}

static void
gst_co_remap_filter_release (GstCoBaseFilter * base)
{
  GstCoRemapFilterPrivate *priv = GST_CO_REMAP_FILTER (base)->priv;
  int i;

  for (i = 0; i < 2 * CO_LUT_MAX_GEOMETRIES; i++) {
    gst_co_element_free (base, priv->table[i]);
    priv->table[i] = NULL;
    priv->table_size[i] = 0;
  }
  for (i = 0; i < CO_LUT_MAX_GEOMETRIES; i++) {
    gst_co_element_free (base, priv->map[i]);
    priv->map[i] = NULL;
    priv->map_size[i] = 0;
  }
}

static void
gst_co_remap_filter_finalize (GObject * object)
{
  gst_co_map_file_clear (&GST_CO_REMAP_FILTER (object)->priv->file);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- properties ---- */

/* Every setting of the base changes the table */
static void
settings_dirty (GObject * object)
{
  gst_co_remap_filter_mark_dirty (GST_CO_REMAP_FILTER (object));
}

/* A setting's offset from the instance: they live in the private struct */
#define SET_OFFSET(field) (GstCoRemapFilter_private_offset + \
    G_STRUCT_OFFSET (GstCoRemapFilterPrivate, set.field))

static void
gst_co_remap_filter_class_init (GstCoRemapFilterClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstCoBaseFilterClass *fc = GST_CO_BASE_FILTER_CLASS (klass);
  const GstCoSettingsHooks hooks = { .mark_dirty = settings_dirty };
  const GstCoSetting settings[] = {
    [PROP_LUT - 1] = {g_param_spec_enum ("lut", "LUT",
              "Look-up table strategy", GST_TYPE_CO_LUT_MODE, DEFAULT_LUT,
              GST_CO_PARAM_LIVE), SET_OFFSET (lut), GST_CO_SETTING_REBUILD,
        -1},
    [PROP_INTERPOLATION - 1] = {g_param_spec_enum ("interpolation",
              "Interpolation", "Sampling of the source",
              GST_TYPE_CO_INTERPOLATION, DEFAULT_INTERPOLATION,
              GST_CO_PARAM_LIVE), SET_OFFSET (interpolation),
        GST_CO_SETTING_REBUILD, -1},
    [PROP_BORDER_COLOR - 1] = {g_param_spec_uint ("border-color",
              "Border colour", "Colour of output pixels with no source "
              "pixel, as 0xAARRGGBB", 0, G_MAXUINT32, DEFAULT_BORDER_COLOR,
              GST_CO_PARAM_LIVE), SET_OFFSET (border_color),
        GST_CO_SETTING_REBUILD, -1},
    /**
     * GstCoRemapFilter:off-edge:
     *
     * What a sample falling outside the source takes: the border colour,
     * the nearest edge pixel, or (wrap) the pixel x modulo the width with
     * y clamped, which closes the seam of a 360-degree panorama.  A map's
     * "no source pixel" always takes the border colour.
     *
     * Since: 0.2
     */
    [PROP_OFF_EDGE - 1] = {g_param_spec_enum ("off-edge", "Off edge",
              "Samples outside the source: border colour, nearest edge "
              "pixel (clamp), or x modulo the width with y clamped (wrap, "
              "360-degree seams)", GST_TYPE_CO_OFF_EDGE, DEFAULT_OFF_EDGE,
              GST_CO_PARAM_LIVE), SET_OFFSET (off_edge),
        GST_CO_SETTING_REBUILD, -1},
  };

  GST_DEBUG_CATEGORY_INIT (gst_co_remap_filter_debug, "coremapfilter", 0,
      "cudaoptics remap base class");

  oc->finalize = gst_co_remap_filter_finalize;

  /* the base's own table, its own ids (the element's start again at 1);
   * rebuild snapshots the private struct itself */
  gst_co_settings_install (oc, 0, 0, settings, G_N_ELEMENTS (settings),
      &hooks);

  fc->rebuild = GST_DEBUG_FUNCPTR (gst_co_remap_filter_rebuild);
  fc->process = GST_DEBUG_FUNCPTR (gst_co_remap_filter_process);
  fc->release = GST_DEBUG_FUNCPTR (gst_co_remap_filter_release);

  gst_type_mark_as_plugin_api (GST_TYPE_CO_REMAP_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CO_LUT_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CO_INTERPOLATION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CO_OFF_EDGE, 0);
}

static void
gst_co_remap_filter_init (GstCoRemapFilter * self)
{
  GstCoRemapFilterPrivate *priv =
      gst_co_remap_filter_get_instance_private (self);

  /* the settings take their defaults from the table (constructed) */
  self->priv = priv;
}
