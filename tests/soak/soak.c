/* cudaoptics — LGPL-2.1-or-later
 *
 * Soak test: many frames (100,000 by default) through every element of the
 * plugin, chained in one pipeline
 *
 *   appsrc [! cudaupload ! memory:CUDAMemory] ! ELEMENT ! ELEMENT ... \
 *       [! memory:CUDAMemory ! cudadownload] ! fakesink
 *
 * while another thread sets properties at a steady rate to random values
 * inside each property's GParamSpec range (enums, booleans and the
 * calibration file included; now and then an unusable calibration file,
 * which may only give a warning).  It fails (exit 1, "SOAK FAIL: ...") on:
 *   - any ERROR message on the bus;
 *   - fewer frames at the sink than were pushed;
 *   - no frame at the sink (or no property set) for --stall seconds;
 *   - resident memory (VmRSS) or, with backend=cuda, device memory in use
 *     (cuMemGetInfo, libcuda loaded at run time) grown between the end of
 *     the warm-up and the end of the run by more than the tolerance.
 * Warnings on the bus are counted and listed, not failed on.
 * Exit 77: the configuration cannot run here (no CUDA device, no
 * cudaupload).
 *
 * Adding an element to the soak is one line in `elements[]` below; an element
 * of the plugin left out of that table is soaked anyway, with every property
 * that may change while PLAYING over its whole range.
 *
 *   soak [--frames N] [--backend cpu|cuda] [--memory system|cuda] ...  (--help)
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* What to animate                                                          */
/* ------------------------------------------------------------------------ */

typedef struct
{
  const gchar *name;
  /* numbers: the range most values are drawn from, clamped to the
   * GParamSpec's; lo == hi: the GParamSpec's whole range.  One value in
   * WHOLE_EVERY is drawn from the whole GParamSpec range anyway. */
  gdouble lo, hi;
  /* strings: a calibration file, good ones and now and then a bad one */
  gboolean calibration;
  /* never drawn from the whole range: values whose cost per frame (not
   * their correctness) is what the whole range would test */
  gboolean bounded;
} SoakProp;

typedef struct
{
  const gchar *element;
  /* NULL: every property writable while PLAYING, whole ranges */
  const SoakProp *props;
  /* NULL: what the element before gives; else the raw format it needs,
   * converted to in the chain (the analysis and raw-sensor elements take
   * grey frames, the others RGBA) */
  const gchar *takes;
  /* its output held at the input's size by caps after it (an unwrapped
   * panorama may be 4096 pixels square: too slow a frame for the CPU) */
  gboolean pin_size;
} SoakElement;

/* P: whole GParamSpec range; R: mostly within [lo, hi]; B: always within
 * [lo, hi]; CALIB: files */
#define P(name) {name, 0, 0, FALSE, FALSE}
#define R(name, lo, hi) {name, lo, hi, FALSE, FALSE}
#define B(name, lo, hi) {name, lo, hi, FALSE, TRUE}
#define CALIB(name) {name, 0, 0, TRUE, FALSE}

static const SoakProp lensdistort_props[] = {
  P ("model"), P ("lut"), P ("interpolation"), P ("stereo"),
  P ("border-color"), R ("k1", -1, 1), R ("k2", -1, 1), R ("k3", -1, 1),
  R ("p1", -0.1, 0.1), R ("p2", -0.1, 0.1), P ("center-x"), P ("center-y"),
  R ("fx", 0, 2000), R ("fy", 0, 2000), R ("cx", -1, 1000),
  R ("cy", -1, 1000), P ("alpha"), CALIB ("calibration-file"),
  P (NULL)
};

/* The mirror's geometry stays at its derived defaults (focal-length and
 * radii 0: taken from the frame), which fit any frame; a random focal
 * length or window is an impossible mirror, an error by design. */
static const SoakProp omni_props[] = {
  P ("projection"), P ("layout"), P ("lut"), P ("interpolation"),
  P ("off-edge"), P ("border-color"), P ("direction"), P ("start-angle"),
  R ("zoom", 0.5, 2), R ("center-x", 150, 170), R ("center-y", 110, 130),
  R ("plane-gap", 0, 8), R ("plane-distance", 100, 400),
  P (NULL)
};

/* A blur's cost grows with its sigma (up to 128 pixels): at sigma 60 one
 * 320x240 frame takes seconds on two cores, which would turn the soak into a
 * speed test; a min-sigma above the widest blur copies every frame, which
 * would soak nothing.  Whole-range values of the rest come now and then. */
static const SoakProp foveate_props[] = {
  B ("strength", 0.5, 2), B ("pixels-per-degree", 0, 20),
  B ("corner-eccentricity", 1, 60), B ("e2", 1, 100), B ("ct0", 0.005, 0.05),
  B ("alpha", 0.05, 0.2), B ("min-sigma", 0, 1), P ("fixation-x"),
  P ("fixation-y"), P ("fragment-size"), P ("show-map"), P ("follow-pointer"),
  P (NULL)
};

/* A grid of 4096 x 4096 lenslets is legal (beyond the frame they are
 * flagged) but carries 16 million results per frame, about 1 GB. */
static const SoakProp shcentroid_props[] = {
  P ("method"), P ("threshold-mode"), P ("threshold"), P ("gamma"),
  B ("brightest", 1, 400), P ("central-obstruction"), P ("pupil-diameter"),
  P ("lenslet-focal-length"), P ("pixel-size"), B ("lenslets-x", 0, 64),
  B ("lenslets-y", 0, 64), B ("pitch", 3, 64), R ("origin-x", -50, 100),
  R ("origin-y", -50, 100), P ("overlay"), P ("overlay-scale"),
  B ("reference-frames", 1, 100), P ("window-margin"),
  P ("message-interval"),
  P (NULL)
};

/* One line per element, in the chain's order: RGBA through the geometry
 * elements, then grey for the centroids and the raw-sensor element (which
 * gives RGBA again). */
static const SoakElement elements[] = {
  {"cudalensdistort", lensdistort_props, NULL, FALSE},
  {"cudafoveate", foveate_props, NULL, FALSE},
  {"cudaomniunwrap", omni_props, NULL, TRUE},
  {"cudashcentroid", shcentroid_props, "GRAY16_LE", FALSE},
  {"cudaaberration", NULL, "GRAY16_LE", FALSE},
};

#define PLUGIN_NAME "cudaoptics"
#define WHOLE_EVERY 8
#define N_FRAMES_POOL 8

/* ------------------------------------------------------------------------ */

typedef struct
{
  GstElement *element;
  GParamSpec *pspec;
  gdouble lo, hi;
  gboolean calibration, bounded;
} Target;

static struct
{
  gint64 frames, warmup;
  gint width, height;
  gchar *format, *backend, *memory, *data_dir, *samples_dir, *only;
  gdouble rate;
  gint bad_every;
  gint64 seed;
  gint stall, startup;
  gdouble rss_tol_mb, gpu_tol_mb;
} opt = {
  100000, -1, 320, 240, NULL, NULL, NULL, NULL, NULL, NULL, 200.0, 20, 0, 10,
  60,
  8.0, 16.0
};

static GPtrArray *targets;      /* Target* */
static GPtrArray *good_files, *bad_files;
static GstBuffer *pool[N_FRAMES_POOL];
static guint64 pushed;
static volatile gint frames_seen;       /* at the sink */
static volatile gint changes, bad_sets, stop_animator;

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */
/* ------------------------------------------------------------------------ */

/* kB of a /proc/self/status field, -1 if absent */
static gint64
proc_status_kb (const gchar * field)
{
  gchar *text = NULL, *p;
  gint64 v = -1;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return -1;
  p = strstr (text, field);
  if (p)
    v = g_ascii_strtoll (p + strlen (field) + 1, NULL, 10);
  g_free (text);
  return v;
}

/* Device memory in use on device 0, through the driver API loaded at run
 * time (the soak needs no CUDA to build). */
typedef int (*CuInitFn) (unsigned);
typedef int (*CuDeviceGetFn) (int *, int);
typedef int (*CuRetainFn) (void **, int);
typedef int (*CuPushFn) (void *);
typedef int (*CuPopFn) (void **);
typedef int (*CuMemGetInfoFn) (size_t *, size_t *);

static struct
{
  gboolean ok;
  void *ctx;
  CuPushFn push;
  CuPopFn pop;
  CuMemGetInfoFn mem_get_info;
} gpu;

static gboolean
gpu_open (void)
{
  void *h = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  CuInitFn init;
  CuDeviceGetFn device_get;
  CuRetainFn retain;
  int dev;

  if (!h)
    return FALSE;
  init = (CuInitFn) dlsym (h, "cuInit");
  device_get = (CuDeviceGetFn) dlsym (h, "cuDeviceGet");
  retain = (CuRetainFn) dlsym (h, "cuDevicePrimaryCtxRetain");
  gpu.push = (CuPushFn) dlsym (h, "cuCtxPushCurrent_v2");
  gpu.pop = (CuPopFn) dlsym (h, "cuCtxPopCurrent_v2");
  gpu.mem_get_info = (CuMemGetInfoFn) dlsym (h, "cuMemGetInfo_v2");
  if (!init || !device_get || !retain || !gpu.push || !gpu.pop ||
      !gpu.mem_get_info || init (0) != 0 || device_get (&dev, 0) != 0 ||
      retain (&gpu.ctx, dev) != 0)
    return FALSE;
  gpu.ok = TRUE;
  return TRUE;
}

/* bytes in use on the device (all processes), -1 if unknown */
static gint64
gpu_used (void)
{
  size_t fr = 0, total = 0;
  void *dummy;
  int r;

  if (!gpu.ok || gpu.push (gpu.ctx) != 0)
    return -1;
  r = gpu.mem_get_info (&fr, &total);
  gpu.pop (&dummy);
  return r == 0 ? (gint64) (total - fr) : -1;
}

typedef struct
{
  gint64 frames, rss_kb, hwm_kb, gpu_bytes, time_us;
} Sample;

static void
take_sample (Sample * s)
{
  s->frames = g_atomic_int_get (&frames_seen);
  s->time_us = g_get_monotonic_time ();
  s->rss_kb = proc_status_kb ("VmRSS:");
  s->hwm_kb = proc_status_kb ("VmHWM:");
  s->gpu_bytes = gpu_used ();
}

static gchar *
gpu_str (gint64 b)
{
  return b < 0 ? g_strdup ("n/a") : g_strdup_printf ("%.1f MiB",
      b / 1048576.0);
}

/* ------------------------------------------------------------------------ */
/* Frames                                                                   */
/* ------------------------------------------------------------------------ */

static void
make_frames (const GstVideoInfo * info)
{
  guint32 x = 0x9e3779b9u ^ (guint32) opt.seed;
  gint i;

  if (!x)
    x = 1;
  for (i = 0; i < N_FRAMES_POOL; i++) {
    GstMapInfo map;
    gsize k;
    pool[i] = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
    gst_buffer_map (pool[i], &map, GST_MAP_WRITE);
    for (k = 0; k < map.size; k++) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      map.data[k] = (guint8) (x >> 24);
    }
    gst_buffer_unmap (pool[i], &map);
  }
}

static void
need_data (GstAppSrc * src, guint length, gpointer data)
{
  GstBuffer *b;

  if (pushed >= (guint64) opt.frames) {
    gst_app_src_end_of_stream (src);
    return;
  }
  /* a new header over the same memory */
  b = gst_buffer_copy (pool[pushed % N_FRAMES_POOL]);
  GST_BUFFER_PTS (b) = pushed * GST_SECOND / 1000;
  GST_BUFFER_DURATION (b) = GST_SECOND / 1000;
  pushed++;
  gst_app_src_push_buffer (src, b);
}

/* self-tests of the checks themselves */
static gint64 stall_at = -1, error_at = -1;
static gint leak_bytes;

static GstPadProbeReturn
count_frame (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  gint n = g_atomic_int_add (&frames_seen, 1);

  if (n == stall_at)
    for (;;)
      g_usleep (G_USEC_PER_SEC);        /* the watchdog must catch this */
  if (n == error_at)
    GST_ELEMENT_ERROR (GST_PAD_PARENT (pad), STREAM, FAILED,
        ("self-test error"), (NULL));
  if (leak_bytes > 0)
    memset (g_malloc (leak_bytes), 1, leak_bytes);      /* the RSS check */
  return GST_PAD_PROBE_OK;
}

/* ------------------------------------------------------------------------ */
/* Property changes                                                         */
/* ------------------------------------------------------------------------ */

static gboolean
animatable (GParamSpec * p)
{
  GType t = G_TYPE_FUNDAMENTAL (G_PARAM_SPEC_VALUE_TYPE (p));

  if (!(p->flags & G_PARAM_WRITABLE) || (p->flags & G_PARAM_CONSTRUCT_ONLY)
      || !(p->flags & GST_PARAM_MUTABLE_PLAYING))
    return FALSE;
  return t == G_TYPE_DOUBLE || t == G_TYPE_FLOAT || t == G_TYPE_INT ||
      t == G_TYPE_UINT || t == G_TYPE_INT64 || t == G_TYPE_UINT64 ||
      t == G_TYPE_ENUM || t == G_TYPE_BOOLEAN || t == G_TYPE_FLAGS;
}

static void
add_target (GstElement * e, GParamSpec * p, gdouble lo, gdouble hi,
    gboolean calibration, gboolean bounded)
{
  Target *t = g_new0 (Target, 1);

  t->element = e;
  t->pspec = p;
  t->lo = lo;
  t->hi = hi;
  t->calibration = calibration;
  t->bounded = bounded;
  g_ptr_array_add (targets, t);
}

/* Range to draw from: the table's, clamped to the GParamSpec's, or the
 * whole GParamSpec range (always for one value in WHOLE_EVERY). */
static gdouble
draw (GRand * r, const Target * t, gdouble min, gdouble max)
{
  gdouble lo = min, hi = max;

  if (t->lo != t->hi && (t->bounded ||
          g_rand_int_range (r, 0, WHOLE_EVERY) != 0)) {
    lo = MAX (min, t->lo);
    hi = MIN (max, t->hi);
  }
  if (hi <= lo)
    return lo;
  return g_rand_double_range (r, lo, hi);
}

static void
set_random (GRand * r, const Target * t)
{
  GParamSpec *p = t->pspec;
  GType vt = G_PARAM_SPEC_VALUE_TYPE (p);
  GValue v = G_VALUE_INIT;

  g_value_init (&v, vt);
  switch (G_TYPE_FUNDAMENTAL (vt)) {
    case G_TYPE_DOUBLE:{
      GParamSpecDouble *d = G_PARAM_SPEC_DOUBLE (p);
      g_value_set_double (&v, draw (r, t, d->minimum, d->maximum));
      break;
    }
    case G_TYPE_FLOAT:{
      GParamSpecFloat *d = G_PARAM_SPEC_FLOAT (p);
      g_value_set_float (&v, draw (r, t, d->minimum, d->maximum));
      break;
    }
    case G_TYPE_INT:{
      GParamSpecInt *d = G_PARAM_SPEC_INT (p);
      g_value_set_int (&v, CLAMP ((gint64) floor (draw (r, t, d->minimum,
                      d->maximum + 0.999)), d->minimum, d->maximum));
      break;
    }
    case G_TYPE_UINT:{
      GParamSpecUInt *d = G_PARAM_SPEC_UINT (p);
      g_value_set_uint (&v, CLAMP ((guint64) floor (draw (r, t, d->minimum,
                      d->maximum + 0.999)), d->minimum, d->maximum));
      break;
    }
    case G_TYPE_INT64:{
      GParamSpecInt64 *d = G_PARAM_SPEC_INT64 (p);
      gdouble x = draw (r, t, (gdouble) d->minimum, (gdouble) d->maximum);
      g_value_set_int64 (&v, x <= (gdouble) d->minimum ? d->minimum :
          x >= (gdouble) d->maximum ? d->maximum : (gint64) x);
      break;
    }
    case G_TYPE_UINT64:{
      GParamSpecUInt64 *d = G_PARAM_SPEC_UINT64 (p);
      gdouble x = draw (r, t, (gdouble) d->minimum, (gdouble) d->maximum);
      g_value_set_uint64 (&v, x <= (gdouble) d->minimum ? d->minimum :
          x >= (gdouble) d->maximum ? d->maximum : (guint64) x);
      break;
    }
    case G_TYPE_BOOLEAN:
      g_value_set_boolean (&v, g_rand_boolean (r));
      break;
    case G_TYPE_ENUM:{
      GEnumClass *ec = G_PARAM_SPEC_ENUM (p)->enum_class;
      g_value_set_enum (&v,
          ec->values[g_rand_int_range (r, 0, ec->n_values)].value);
      break;
    }
    case G_TYPE_FLAGS:{
      GFlagsClass *fc = G_PARAM_SPEC_FLAGS (p)->flags_class;
      g_value_set_flags (&v, g_rand_int (r) & fc->mask);
      break;
    }
    case G_TYPE_STRING:{
      const gchar *s = NULL;
      if (bad_files->len && g_rand_int_range (r, 0, opt.bad_every) == 0) {
        s = g_ptr_array_index (bad_files, g_rand_int_range (r, 0,
                bad_files->len));
        g_atomic_int_inc (&bad_sets);
      } else {
        /* the good files, and now and then none (typed-in parameters) */
        gint i = g_rand_int_range (r, 0, good_files->len + 1);
        s = i < (gint) good_files->len ? g_ptr_array_index (good_files, i) :
            NULL;
      }
      g_value_set_string (&v, s);
      break;
    }
    default:
      g_value_unset (&v);
      return;
  }
  g_object_set_property (G_OBJECT (t->element), p->name, &v);
  g_value_unset (&v);
}

/* Sets one random property to a random value every 1/rate s, on a fixed
 * schedule. */
static gpointer
animator (gpointer data)
{
  GRand *r;
  gint64 period, next;

  if (opt.rate <= 0)            /* --rate 0: no property changes */
    return NULL;
  r = g_rand_new_with_seed ((guint32) (opt.seed * 2654435761u + 1));
  period = (gint64) (1e6 / opt.rate);

  /* from the first frame on: a setting that cannot work before the first
   * build is an error by design (while PLAYING, a warning that keeps the
   * last good state) */
  while (!g_atomic_int_get (&frames_seen) && !g_atomic_int_get (&stop_animator))
    g_usleep (1000);
  next = g_get_monotonic_time ();
  while (!g_atomic_int_get (&stop_animator)) {
    gint64 now = g_get_monotonic_time ();
    const Target *t;
    if (next > now)
      g_usleep (next - now);
    next += period;
    t = g_ptr_array_index (targets, g_rand_int_range (r, 0, targets->len));
    set_random (r, t);
    g_atomic_int_inc (&changes);
  }
  g_rand_free (r);
  return NULL;
}

/* @msg with every number as '#' */
static gchar *
normalise (const gchar * msg)
{
  GString *s = g_string_new (NULL);
  const gchar *p;

  for (p = msg; *p; p++) {
    if (g_ascii_isdigit (*p)) {
      while (g_ascii_isdigit (p[1]) || (p[1] == '.' && g_ascii_isdigit (p[2])))
        p++;
      if (s->len && s->str[s->len - 1] == '-')
        g_string_truncate (s, s->len - 1);
      g_string_append_c (s, '#');
    } else {
      g_string_append_c (s, *p);
    }
  }
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------------ */
/* Watchdog                                                                 */
/* ------------------------------------------------------------------------ */

/* The animated properties' values at a stall: what the stuck frame was
 * processed with. */
static void
dump_settings (void)
{
  guint i;

  for (i = 0; i < targets->len; i++) {
    Target *t = g_ptr_array_index (targets, i);
    GValue v = G_VALUE_INIT;
    gchar *s;
    g_value_init (&v, t->pspec->value_type);
    g_object_get_property (G_OBJECT (t->element), t->pspec->name, &v);
    s = gst_value_serialize (&v);
    fprintf (stderr, "  %s.%s = %s\n", GST_OBJECT_NAME (t->element),
        t->pspec->name, GST_STR_NULL (s));
    g_free (s);
    g_value_unset (&v);
  }
}

/* Dumps every thread's stack with gdb, when there is one. */
static void
dump_stacks (void)
{
  gchar *gdb = g_find_program_in_path ("gdb");
  gchar *cmd, *out = NULL;

  if (!gdb) {
    fprintf (stderr, "(no gdb on PATH: no stacks)\n");
    return;
  }
  cmd = g_strdup_printf ("%s -p %d -batch -nx -ex 'set pagination off' "
      "-ex 'thread apply all bt'", gdb, (int) getpid ());
  if (g_spawn_command_line_sync (cmd, &out, NULL, NULL, NULL))
    fprintf (stderr, "%s\n", out);
  g_free (out);
  g_free (cmd);
  g_free (gdb);
}

static volatile gint watchdog_stop;

static gpointer
watchdog (gpointer data)
{
  gint last_frames = -1, last_changes = -1;
  gint64 frames_at = g_get_monotonic_time (), changes_at = frames_at;

  while (!g_atomic_int_get (&watchdog_stop)) {
    gint f = g_atomic_int_get (&frames_seen), c = g_atomic_int_get (&changes);
    gint64 now = g_get_monotonic_time ();
    gint limit = f > 0 ? opt.stall : opt.startup;
    if (f != last_frames) {
      last_frames = f;
      frames_at = now;
    }
    if (c != last_changes) {
      last_changes = c;
      changes_at = now;
    }
    if (now - frames_at > limit * G_USEC_PER_SEC ||
        (opt.rate > 0 && now - changes_at > opt.stall * G_USEC_PER_SEC)) {
      fprintf (stderr, "SOAK FAIL: stalled: %s for %d s (frames at the sink "
          "%d of %" G_GINT64_FORMAT ", pushed %" G_GUINT64_FORMAT
          ", property changes %d)\n",
          now - frames_at > limit * G_USEC_PER_SEC ? "no frame" :
          "no property change (setter blocked)", limit, f, opt.frames,
          pushed, c);
      dump_settings ();
      dump_stacks ();
      fflush (NULL);
      _exit (1);
    }
    g_usleep (G_USEC_PER_SEC / 4);
  }
  return NULL;
}

/* ------------------------------------------------------------------------ */

static void
collect_files (void)
{
  const gchar *good[] = { "calib-opencv.yml", "calib-opencv.xml", NULL };
  GDir *d;
  const gchar *n;
  gint i;

  good_files = g_ptr_array_new_with_free_func (g_free);
  bad_files = g_ptr_array_new_with_free_func (g_free);
  for (i = 0; good[i]; i++)
    g_ptr_array_add (good_files, g_build_filename (opt.data_dir, good[i],
            NULL));
  g_ptr_array_add (good_files, g_build_filename (opt.samples_dir,
          "left_intrinsics.yml", NULL));
  for (i = 0; i < (gint) good_files->len; i++)
    if (!g_file_test (g_ptr_array_index (good_files, i), G_FILE_TEST_EXISTS)) {
      fprintf (stderr, "SOAK FAIL: missing %s (--data-dir, --samples-dir)\n",
          (gchar *) g_ptr_array_index (good_files, i));
      exit (1);
    }
  d = g_dir_open (opt.data_dir, 0, NULL);
  while (d && (n = g_dir_read_name (d)))
    if (g_str_has_prefix (n, "calib-bad-"))
      g_ptr_array_add (bad_files, g_build_filename (opt.data_dir, n, NULL));
  if (d)
    g_dir_close (d);
  g_ptr_array_add (bad_files, g_build_filename (opt.data_dir,
          "no-such-calibration.yml", NULL));
}

static const SoakElement *
table_entry (const gchar * factory)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (elements); i++)
    if (!strcmp (elements[i].element, factory))
      return &elements[i];
  return NULL;
}

/* Every element of the plugin: the table's first, in its order, then any
 * the table misses; with --elements, those named, in the table's order
 * (to find which element of the chain a failure comes from). */
static GPtrArray *
element_list (void)
{
  GPtrArray *names = g_ptr_array_new ();
  gchar **only = opt.only ? g_strsplit (opt.only, ",", -1) : NULL;
  GList *feats, *l;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (elements); i++)
    if (!only || g_strv_contains ((const gchar * const *) only,
            elements[i].element))
      g_ptr_array_add (names, (gpointer) elements[i].element);
  feats = gst_registry_get_feature_list_by_plugin (gst_registry_get (),
      PLUGIN_NAME);
  for (l = feats; l; l = l->next) {
    const gchar *n = gst_plugin_feature_get_name (l->data);
    if (!GST_IS_ELEMENT_FACTORY (l->data) || table_entry (n))
      continue;
    if (only && !g_strv_contains ((const gchar * const *) only, n))
      continue;
    printf ("note: %s is not in soak.c's table: soaking every property "
        "mutable while PLAYING over its whole range\n", n);
    g_ptr_array_add (names, (gpointer) g_intern_string (n));
  }
  if (!feats)
    fprintf (stderr, "warning: plugin %s not found in the registry\n",
        PLUGIN_NAME);
  gst_plugin_feature_list_free (feats);
  if (only && names->len < g_strv_length (only)) {
    fprintf (stderr, "SOAK FAIL: --elements %s names an element that is "
        "not in the plugin\n", opt.only);
    exit (1);
  }
  g_strfreev (only);
  return names;
}

static void
add_targets (GstElement * e, const gchar * factory)
{
  const SoakElement *se = table_entry (factory);
  guint i;

  if (se && se->props) {
    const SoakProp *sp;
    for (sp = se->props; sp->name; sp++) {
      GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          sp->name);
      if (!p) {
        fprintf (stderr, "SOAK FAIL: %s has no property %s (soak.c's "
            "table)\n", factory, sp->name);
        exit (1);
      }
      add_target (e, p, sp->lo, sp->hi, sp->calibration, sp->bounded);
    }
  } else {
    guint n;
    GParamSpec **ps = g_object_class_list_properties (G_OBJECT_GET_CLASS (e),
        &n);
    for (i = 0; i < n; i++)
      if (animatable (ps[i]))
        add_target (e, ps[i], 0, 0, FALSE, FALSE);
    g_free (ps);
  }
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT64, &opt.frames, "Frames to push "
          "(100000)", "N"},
    {"warmup", 0, 0, G_OPTION_ARG_INT64, &opt.warmup, "Frames before the "
          "first memory sample (frames/10)", "N"},
    {"width", 0, 0, G_OPTION_ARG_INT, &opt.width, "Frame width (320)", "W"},
    {"height", 0, 0, G_OPTION_ARG_INT, &opt.height, "Frame height (240)",
        "H"},
    {"format", 0, 0, G_OPTION_ARG_STRING, &opt.format, "Video format (RGBA)",
        "F"},
    {"backend", 0, 0, G_OPTION_ARG_STRING, &opt.backend, "cpu or cuda (cpu)",
        "B"},
    {"memory", 0, 0, G_OPTION_ARG_STRING, &opt.memory, "system, or cuda: "
          "memory:CUDAMemory through cudaupload/cudadownload (system)", "M"},
    {"rate", 0, 0, G_OPTION_ARG_DOUBLE, &opt.rate, "Property changes per "
          "second (200)", "R"},
    {"bad-every", 0, 0, G_OPTION_ARG_INT, &opt.bad_every, "One calibration "
          "file in N is a bad one (20)", "N"},
    {"seed", 0, 0, G_OPTION_ARG_INT64, &opt.seed, "Random seed (time)", "S"},
    {"elements", 0, 0, G_OPTION_ARG_STRING, &opt.only, "Only these elements "
          "of the chain, comma-separated (all)", "E1,E2"},
    {"stall", 0, 0, G_OPTION_ARG_INT, &opt.stall, "Fail when no frame "
          "arrives for this many seconds (10)", "S"},
    {"startup", 0, 0, G_OPTION_ARG_INT, &opt.startup, "Seconds allowed "
          "before the first frame (60)", "S"},
    {"rss-tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &opt.rss_tol_mb, "Allowed "
          "VmRSS growth after warm-up, MiB (8)", "MIB"},
    {"gpu-tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &opt.gpu_tol_mb, "Allowed "
          "device memory growth after warm-up, MiB (16)", "MIB"},
    {"self-test-stall", 0, 0, G_OPTION_ARG_INT64, &stall_at, "Self-test: "
          "block the sink at this frame (the watchdog must fail)", "N"},
    {"self-test-error", 0, 0, G_OPTION_ARG_INT64, &error_at, "Self-test: "
          "post an ERROR at this frame", "N"},
    {"self-test-leak", 0, 0, G_OPTION_ARG_INT, &leak_bytes, "Self-test: "
          "leak this many bytes per frame", "BYTES"},
    {"data-dir", 0, 0, G_OPTION_ARG_STRING, &opt.data_dir, "tests/data "
          "($CO_TEST_DATA_DIR)", "DIR"},
    {"samples-dir", 0, 0, G_OPTION_ARG_STRING, &opt.samples_dir,
        "pipelines/samples ($CO_SAMPLES_DIR)", "DIR"},
    {NULL}
  };
  GOptionContext *oc = g_option_context_new ("- soak every element of the "
      "plugin");
  GError *err = NULL;
  GString *desc;
  GPtrArray *names;
  GstElement *pipe, *src, *sink;
  GstPad *sink_pad;
  GstBus *bus;
  GstCaps *caps;
  GstVideoInfo info;
  GThread *anim, *dog;
  GHashTable *warn_kinds;
  Sample s0 = { 0 }, s_warm = { 0 }, s_end = { 0 }, s_prev;
  gboolean warm_done = FALSE, eos = FALSE, failed = FALSE;
  gint warnings = 0, errors = 0;
  gint64 next_report, t_first = 0;
  const gchar *format_now;
  gboolean caps_last = FALSE, on_cuda;
  GString *why = g_string_new (NULL);
  gboolean cuda_mem;
  guint i;

  g_option_context_add_main_entries (oc, entries, NULL);
  g_option_context_add_group (oc, gst_init_get_option_group ());
  if (!g_option_context_parse (oc, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  g_option_context_free (oc);
  if (!opt.format)
    opt.format = g_strdup ("RGBA");
  if (!opt.backend)
    opt.backend = g_strdup ("cpu");
  if (!opt.memory)
    opt.memory = g_strdup ("system");
  if (!opt.data_dir)
    opt.data_dir = g_strdup (g_getenv ("CO_TEST_DATA_DIR") ?
        g_getenv ("CO_TEST_DATA_DIR") : "tests/data");
  if (!opt.samples_dir)
    opt.samples_dir = g_strdup (g_getenv ("CO_SAMPLES_DIR") ?
        g_getenv ("CO_SAMPLES_DIR") : "pipelines/samples");
  if (opt.warmup < 0)
    opt.warmup = opt.frames / 10;
  if (!opt.seed)
    opt.seed = g_get_real_time () % 1000000007;
  if (opt.bad_every < 1)
    opt.bad_every = 1;
  cuda_mem = !strcmp (opt.memory, "cuda");
  gst_init (&argc, &argv);
  collect_files ();

  /* the GPU first: device memory is then sampled with the same context */
  if (!strcmp (opt.backend, "cuda") && !gpu_open ()) {
    printf ("SOAK SKIP: backend=cuda but no CUDA device usable\n");
    return 77;
  }
  if (cuda_mem && !gst_registry_check_feature_version (gst_registry_get (),
          "cudaupload", 1, 0, 0)) {
    printf ("SOAK SKIP: memory=cuda but no cudaupload element\n");
    return 77;
  }

  /* the pipeline */
  names = element_list ();
  format_now = opt.format;
  on_cuda = cuda_mem;
  desc = g_string_new ("appsrc name=src format=time ");
  if (cuda_mem)
    g_string_append (desc, "! cudaupload ! video/x-raw(memory:CUDAMemory) ");
  for (i = 0; i < names->len; i++) {
    const SoakElement *se = table_entry (g_ptr_array_index (names, i));
    const gchar *takes = se ? se->takes : NULL;
    /* no conversion where the element before already gives that format (the
     * centroids pass their grey frames through to the raw-sensor element) */
    if (takes && !g_strcmp0 (takes, format_now))
      takes = NULL;
    else if (takes)
      format_now = takes;
    /* a conversion goes through system memory (no CUDA converter in 1.22,
     * and 1.22's cudaupload takes no grey format): the chain stays there
     * after it.  CUDA caps before cudadownload only where no caps (the
     * pinned size) come just before: gst_parse_launch reads two caps in a
     * row as an element */
    if (takes && on_cuda) {
      g_string_append_printf (desc, "%scudadownload ! videoconvert ! "
          "video/x-raw,format=%s ", caps_last ? "! " :
          "! video/x-raw(memory:CUDAMemory) ! ", takes);
      on_cuda = FALSE;
    } else if (takes)
      g_string_append_printf (desc, "! videoconvert ! video/x-raw,format=%s ",
          takes);
    g_string_append_printf (desc, "! %s name=e%u backend=%s ",
        (gchar *) g_ptr_array_index (names, i), i, opt.backend);
    caps_last = se && se->pin_size;
    if (caps_last)
      g_string_append_printf (desc, "! video/x-raw%s,width=%d,height=%d ",
          on_cuda ? "(memory:CUDAMemory)" : "", opt.width, opt.height);
  }
  if (on_cuda)
    g_string_append (desc, "! video/x-raw(memory:CUDAMemory) ! cudadownload "
        "! video/x-raw ");
  g_string_append (desc, "! fakesink name=sink sync=false async=false");
  pipe = gst_parse_launch (desc->str, &err);
  if (!pipe || err) {
    fprintf (stderr, "SOAK FAIL: %s: %s\n", desc->str,
        err ? err->message : "?");
    return 1;
  }
  targets = g_ptr_array_new_with_free_func (g_free);
  for (i = 0; i < names->len; i++) {
    gchar *n = g_strdup_printf ("e%u", i);
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), n);
    add_targets (e, g_ptr_array_index (names, i));
    gst_object_unref (e);       /* the pipeline keeps it */
    g_free (n);
  }
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      opt.format, "width", G_TYPE_INT, opt.width, "height", G_TYPE_INT,
      opt.height, "framerate", GST_TYPE_FRACTION, 1000, 1, NULL);
  if (!gst_video_info_from_caps (&info, caps)) {
    fprintf (stderr, "SOAK FAIL: bad caps %" GST_PTR_FORMAT "\n", caps);
    return 1;
  }
  make_frames (&info);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  g_object_set (src, "caps", caps, NULL);
  g_signal_connect (src, "need-data", G_CALLBACK (need_data), NULL);
  sink_pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_BUFFER, count_frame, NULL,
      NULL);

  printf ("soak: %s\n", desc->str);
  printf ("soak: %" G_GINT64_FORMAT " frames %dx%d %s, backend=%s, memory=%s"
      ", %u animated properties at %.0f changes/s, seed %" G_GINT64_FORMAT
      ", %u good / %u bad calibration files (1 change in %d bad), warm-up %"
      G_GINT64_FORMAT " frames, tolerance RSS %.1f MiB, GPU %.1f MiB, stall "
      "%d s\n", opt.frames, opt.width, opt.height, opt.format, opt.backend,
      opt.memory, targets->len, opt.rate, opt.seed, good_files->len,
      bad_files->len, opt.bad_every, opt.warmup, opt.rss_tol_mb,
      opt.gpu_tol_mb, opt.stall);
  fflush (stdout);

  warn_kinds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  bus = gst_element_get_bus (pipe);
  take_sample (&s0);
  dog = g_thread_new ("soak-watchdog", watchdog, NULL);
  if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    g_string_append (why, "could not go to PLAYING; ");
    failed = TRUE;
  }
  anim = g_thread_new ("soak-animator", animator, NULL);
  next_report = opt.frames / 10;
  s_prev = s0;

  while (!failed && !eos) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, GST_SECOND / 20,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    gint64 f = g_atomic_int_get (&frames_seen);

    if (!t_first && f > 0)
      t_first = g_get_monotonic_time ();
    if (m) {
      GError *e = NULL;
      gchar *dbg = NULL;
      switch (GST_MESSAGE_TYPE (m)) {
        case GST_MESSAGE_EOS:
          eos = TRUE;
          break;
        case GST_MESSAGE_ERROR:
          gst_message_parse_error (m, &e, &dbg);
          fprintf (stderr, "ERROR from %s: %s\n%s\n",
              GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), e->message,
              dbg ? dbg : "");
          errors++;
          failed = TRUE;
          break;
        case GST_MESSAGE_WARNING:{
          gchar *kind, *colon;
          gst_message_parse_warning (m, &e, &dbg);
          warnings++;
          /* group by the message up to its first ':', numbers as '#' */
          kind = normalise (e->message);
          colon = strchr (kind, ':');
          if (colon)
            *colon = 0;
          if (!g_hash_table_contains (warn_kinds, kind))
            printf ("first warning of its kind (frame %" G_GINT64_FORMAT
                "): %s\n", f, e->message);
          g_hash_table_insert (warn_kinds, kind,
              GINT_TO_POINTER (GPOINTER_TO_INT (g_hash_table_lookup
                      (warn_kinds, kind)) + 1));
          break;
        }
        default:
          break;
      }
      g_clear_error (&e);
      g_free (dbg);
      gst_message_unref (m);
    }
    if (!warm_done && f >= opt.warmup) {
      gchar *g;
      take_sample (&s_warm);
      warm_done = TRUE;
      g = gpu_str (s_warm.gpu_bytes);
      printf ("warm-up done at frame %" G_GINT64_FORMAT ": VmRSS %.1f MiB, "
          "GPU in use %s\n", s_warm.frames, s_warm.rss_kb / 1024.0, g);
      g_free (g);
    }
    if (f >= next_report && !eos) {
      Sample s;
      gchar *g;
      take_sample (&s);
      g = gpu_str (s.gpu_bytes);
      printf ("%7" G_GINT64_FORMAT " frames  %7.0f frames/s  VmRSS %.1f MiB"
          "  GPU in use %s  changes %d  warnings %d\n", s.frames,
          (s.frames - s_prev.frames) * 1e6 / MAX (1, s.time_us -
              s_prev.time_us), s.rss_kb / 1024.0, g, g_atomic_int_get
          (&changes), warnings);
      fflush (stdout);
      g_free (g);
      s_prev = s;
      next_report += opt.frames / 10;
    }
  }
  /* end of stream: sample while still PLAYING, pools alive */
  take_sample (&s_end);
  g_atomic_int_set (&stop_animator, 1);
  g_thread_join (anim);
  g_atomic_int_set (&watchdog_stop, 1);
  g_thread_join (dog);
  gst_element_set_state (pipe, GST_STATE_NULL);

  /* verdict */
  printf ("\n== soak %s, backend=%s, memory=%s, %dx%d %s ==\n", PLUGIN_NAME,
      opt.backend, opt.memory, opt.width, opt.height, opt.format);
  printf ("frames: pushed %" G_GUINT64_FORMAT ", at the sink %" G_GINT64_FORMAT
      " (of %" G_GINT64_FORMAT ")\n", pushed, s_end.frames, opt.frames);
  if (t_first) {
    gdouble all = (s_end.time_us - s0.time_us) / 1e6;
    gdouble steady = (s_end.time_us - s_warm.time_us) / 1e6;
    printf ("time: %.1f s from PLAYING to EOS; %.0f frames/s overall, %.0f "
        "frames/s after warm-up\n", all, s_end.frames / all,
        warm_done && steady > 0 ? (s_end.frames - s_warm.frames) / steady :
        0.0);
  }
  printf ("property changes: %d (%.0f/s), bad calibration files set: %d\n",
      g_atomic_int_get (&changes), g_atomic_int_get (&changes) /
      MAX (1e-6, (s_end.time_us - s0.time_us) / 1e6),
      g_atomic_int_get (&bad_sets));
  printf ("bus: %d errors, %d warnings\n", errors, warnings);
  {
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init (&it, warn_kinds);
    while (g_hash_table_iter_next (&it, &k, &v))
      printf ("  %6d x %s\n", GPOINTER_TO_INT (v), (gchar *) k);
  }
  if (warm_done) {
    gdouble drss = (s_end.rss_kb - s_warm.rss_kb) / 1024.0;
    gchar *g0 = gpu_str (s0.gpu_bytes), *g1 = gpu_str (s_warm.gpu_bytes),
        *g2 = gpu_str (s_end.gpu_bytes);
    printf ("VmRSS: start %.1f MiB, after warm-up %.1f MiB, end %.1f MiB "
        "(%+.2f MiB, tolerance %.1f), peak %.1f MiB\n", s0.rss_kb / 1024.0,
        s_warm.rss_kb / 1024.0, s_end.rss_kb / 1024.0, drss, opt.rss_tol_mb,
        s_end.hwm_kb / 1024.0);
    if (drss > opt.rss_tol_mb) {
      g_string_append_printf (why, "VmRSS grew %.2f MiB after warm-up "
          "(tolerance %.1f); ", drss, opt.rss_tol_mb);
      failed = TRUE;
    }
    printf ("GPU memory in use: start %s, after warm-up %s, end %s", g0, g1,
        g2);
    if (s_warm.gpu_bytes >= 0 && s_end.gpu_bytes >= 0) {
      gdouble dgpu = (s_end.gpu_bytes - s_warm.gpu_bytes) / 1048576.0;
      printf (" (%+.2f MiB, tolerance %.1f)\n", dgpu, opt.gpu_tol_mb);
      if (dgpu > opt.gpu_tol_mb) {
        g_string_append_printf (why, "GPU memory grew %.2f MiB after warm-up "
            "(tolerance %.1f); ", dgpu, opt.gpu_tol_mb);
        failed = TRUE;
      }
    } else {
      printf ("\n");
    }
    g_free (g0);
    g_free (g1);
    g_free (g2);
  } else {
    g_string_append (why, "never got past the warm-up; ");
    failed = TRUE;
  }
  if (errors)
    g_string_append_printf (why, "%d ERROR message(s) on the bus; ", errors);
  if (!eos && !errors)
    g_string_append (why, "no EOS; ");
  if (eos && s_end.frames != opt.frames) {
    g_string_append_printf (why, "%" G_GINT64_FORMAT " frames at the sink, "
        "%" G_GINT64_FORMAT " pushed; ", s_end.frames, opt.frames);
    failed = TRUE;
  }
  failed |= !eos;

  gst_object_unref (sink_pad);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  gst_caps_unref (caps);
  for (i = 0; i < N_FRAMES_POOL; i++)
    gst_clear_buffer (&pool[i]);
  g_ptr_array_free (targets, TRUE);
  g_ptr_array_free (names, TRUE);
  g_ptr_array_free (good_files, TRUE);
  g_ptr_array_free (bad_files, TRUE);
  g_hash_table_destroy (warn_kinds);
  g_string_free (desc, TRUE);
  if (failed)
    printf ("SOAK FAIL: %s\n", why->str);
  else
    printf ("SOAK PASS\n");
  g_string_free (why, TRUE);
  fflush (stdout);
  /* lets GST_TRACERS=leaks report what is left */
  gst_deinit ();
  return failed ? 1 : 0;
}
