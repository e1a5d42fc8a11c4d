/* cudaoptics — LGPL-2.1-or-later
 *
 * bench-correlate: cudacltcorrelate's targets (issue 32) on the GPU, in one
 * process (stdout unbuffered, line by line): the kernels alone (a quad of 2592x1936 cameras: the forward
 * transform of 4 planes, then all 6 pairs correlated; 1080p temporal: one
 * frame's plane, forward and one correlation), beside the device copy that
 * gives the bandwidth floor, then the element in a pipeline on frames in
 * CUDA memory (4 inputs, all pairs; 1 input, temporal), whose time per
 * output less the kernels' is the aggregator's own per-frame cost.
 * Beside the kernels, the conventional GPU method on the same tiles and
 * pairs (correlate-baselines.cu, when cuFFT can be opened at run time):
 * cuFFT per-tile phase correlation, checked first on camera 0 and a copy
 * of it moved by a known whole shift.
 *   bench-correlate [--quick]
 * Exit status: 0 ok, 1 CUDA or pipeline error, 2 no plugin, 3 the
 * baseline's check failed, 77 no usable CUDA device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cuda_runtime_api.h>
#include "clt.h"
#include "clt_corr.h"
#include "bench-cuda.h"
#include "bench-skip.h"
#include "bench-app.h"
#include "correlate-baselines.h"
#include "bench-lens.h"

#define CHECK(call) do { cudaError_t e_ = (cudaError_t) (call); \
    if (e_ != cudaSuccess) { fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, \
          __LINE__, #call, cudaGetErrorString (e_)); exit (1); } } while (0)

/* the baseline's calls print what failed */
#define BL_CHECK(call) do { if ((call) != 0) exit (1); } while (0)

/* one colour, pure phase, no low-pass: what the element runs on grey */
static const CoCltCorrParams *
plain (void)
{
  static CoCltCorrParams cp;

  co_clt_corr_params_init (&cp, 0.0f, 0.0f, 0.0f, 0);
  return &cp;
}

static int
cmpf (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return x < y ? -1 : x > y;
}

/* median of @reps timings (ms) of @n_iter calls of @fn on the default
 * stream */
typedef void (*Work) (gpointer data);
static float
time_ms (Work fn, gpointer data, int reps, int n_iter)
{
  cudaEvent_t a, b;
  float *v = g_new (float, reps), m;
  int r, i;

  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  fn (data);                    /* warm */
  for (r = 0; r < reps; r++) {
    CHECK (cudaEventRecord (a, 0));
    for (i = 0; i < n_iter; i++)
      fn (data);
    CHECK (cudaEventRecord (b, 0));
    CHECK (cudaEventSynchronize (b));
    CHECK (cudaEventElapsedTime (&v[r], a, b));
    v[r] /= n_iter;
  }
  qsort (v, reps, sizeof (float), cmpf);
  m = v[reps / 2];
  g_free (v);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return m;
}

typedef struct
{
  int w, h, n_cam, n_tiles;
  CoFrame frame[4];             /* GRAY8 on the device */
  float *plane, *clt, *res;
} Rig;

static void
rig_init (Rig * r, int w, int h, int n_cam)
{
  GRand *rnd = g_rand_new_with_seed (1);
  guint8 *host = g_malloc ((size_t) w * h);
  int tx, ty, c, i;

  memset (r, 0, sizeof (*r));
  r->w = w;
  r->h = h;
  r->n_cam = n_cam;
  co_clt_tiles (w, h, &tx, &ty);
  r->n_tiles = tx * ty;
  for (c = 0; c < n_cam; c++) {
    /* texture: smooth waves and noise, never flat */
    for (i = 0; i < w * h; i++)
      host[i] = (guint8) CLAMP (128 + 60 * sin ((i % w) * 0.21 + c) *
          cos ((i / w) * 0.17) + g_rand_int_range (rnd, -40, 40), 0, 255);
    r->frame[c].format = CO_FORMAT_GRAY8;
    r->frame[c].width = w;
    r->frame[c].height = h;
    r->frame[c].pitch[0] = w;
    CHECK (cudaMalloc ((void **) &r->frame[c].data[0], (size_t) w * h));
    CHECK (cudaMemcpy (r->frame[c].data[0], host, (size_t) w * h,
            cudaMemcpyHostToDevice));
  }
  CHECK (cudaMalloc ((void **) &r->plane, sizeof (float) * w * h));
  CHECK (cudaMalloc ((void **) &r->clt, sizeof (float) * CO_CLT_COEFFS *
          r->n_tiles * MAX (n_cam, 2)));
  CHECK (cudaMalloc ((void **) &r->res, sizeof (float) * 3 * r->n_tiles *
          6));
  g_free (host);
  g_rand_free (rnd);
}

static void
rig_clear (Rig * r)
{
  int c;

  for (c = 0; c < r->n_cam; c++)
    cudaFree (r->frame[c].data[0]);
  cudaFree (r->plane);
  cudaFree (r->clt);
  cudaFree (r->res);
}

static void
forward_all (gpointer data)
{
  Rig *r = data;
  int c;

  for (c = 0; c < r->n_cam; c++) {
    CHECK (co_clt_corr_plane_cuda (&r->frame[c], r->plane, NULL));
    CHECK (co_clt_forward_cuda (r->plane, r->w, r->h, r->w, NULL, NULL,
            r->clt + (size_t) c * CO_CLT_COEFFS * r->n_tiles, NULL));
  }
}

/* The tile processor's colour path (sink_N::kernels-file): 4 raw RGGB
 * cameras, each colour's tiles placed by the lens's kernels and
 * multiplied by them, the colours summed, into the rig's CLT slots */
typedef struct
{
  Rig *rig;
  uint8_t *raw;                 /* n_cam mosaics on the device */
  float *nodes, *dx, *dy, *colours;
  int gw, gh;
} Colour;

#define LENS_STRIDE 16

static void
colour_init (Colour * c, Rig * r)
{
  const size_t n = r->n_tiles, frame = (size_t) r->w * r->h;
  float *nodes = bench_lens_nodes (r->w, r->h, LENS_STRIDE, &c->gw, &c->gh);
  float *dx = g_new (float, 3 * n), *dy = g_new (float, 3 * n);
  uint8_t *raw = g_malloc (frame * r->n_cam);
  const size_t nb = sizeof (float) * (size_t) c->gw * c->gh * 3 * 258;
  size_t i;

  c->rig = r;
  co_clt_tile_shifts (nodes, c->gw, c->gh, LENS_STRIDE, 3, 0, 0, r->w, r->h,
      dx, dy);
  for (i = 0; i < frame * r->n_cam; i++)
    raw[i] = (uint8_t) (128 + 60 * sin ((i % r->w) * 0.05) *
        cos (((i / r->w) % r->h) * 0.037) + (rand () % 41) - 20);
  CHECK (cudaMalloc ((void **) &c->raw, frame * r->n_cam));
  CHECK (cudaMemcpy (c->raw, raw, frame * r->n_cam, cudaMemcpyHostToDevice));
  CHECK (cudaMalloc ((void **) &c->nodes, nb));
  CHECK (cudaMemcpy (c->nodes, nodes, nb, cudaMemcpyHostToDevice));
  CHECK (cudaMalloc ((void **) &c->dx, sizeof (float) * 3 * n));
  CHECK (cudaMalloc ((void **) &c->dy, sizeof (float) * 3 * n));
  CHECK (cudaMemcpy (c->dx, dx, sizeof (float) * 3 * n,
          cudaMemcpyHostToDevice));
  CHECK (cudaMemcpy (c->dy, dy, sizeof (float) * 3 * n,
          cudaMemcpyHostToDevice));
  CHECK (cudaMalloc ((void **) &c->colours, sizeof (float) * 3 *
          CO_CLT_COEFFS * n));
  free (nodes);
  g_free (dx);
  g_free (dy);
  g_free (raw);
}

/* A checksum of @n floats on the device (their sum in double) */
static float
checksum_dev (const float *d, size_t n)
{
  float *h = g_new (float, n);
  double sum = 0;
  size_t i;

  CHECK (cudaMemcpy (h, d, n * sizeof (float), cudaMemcpyDeviceToHost));
  for (i = 0; i < n; i++)
    sum += h[i] * (double) (i % 7 + 1);
  g_free (h);
  return (float) sum;
}

static void
colour_clear (Colour * c)
{
  cudaFree (c->raw);
  cudaFree (c->nodes);
  cudaFree (c->dx);
  cudaFree (c->dy);
  cudaFree (c->colours);
}

/* the same as forward_colour_all, one pass a camera (what the element
 * runs) */
static void
forward_colour_fused (gpointer data)
{
  Colour *c = data;
  Rig *r = c->rig;
  const size_t z = CO_CLT_COEFFS * (size_t) r->n_tiles;
  int k;

  for (k = 0; k < r->n_cam; k++)
    CHECK (co_clt_corr_forward_bayer_cuda (c->raw + (size_t) k * r->w * r->h,
            r->w, r->h, r->w, 1, 1.0f / 255, CO_BAYER_RGGB, c->dx, c->dy,
            c->nodes, c->gw, c->gh, LENS_STRIDE, 3, r->clt + k * z, NULL));
}

static void
forward_colour_all (gpointer data)
{
  Colour *c = data;
  Rig *r = c->rig;
  const size_t n = r->n_tiles, z = CO_CLT_COEFFS * n;
  float *const planes[3] = { c->colours, c->colours + z, c->colours + 2 * z };
  int k, col;

  for (k = 0; k < r->n_cam; k++) {
    CHECK (co_clt_forward_bayer_cuda (c->raw + (size_t) k * r->w * r->h,
            r->w, r->h, r->w, 1, 1.0f / 255, CO_BAYER_RGGB, NULL, c->dx,
            c->dy, planes, NULL));
    for (col = 0; col < 3; col++)
      CHECK (co_clt_convolve_grid_cuda (planes[col], 0, 0, r->w, r->h,
              c->nodes, c->gw, c->gh, LENS_STRIDE, 3, col, NULL));
    CHECK (co_clt_corr_mix_cuda (c->colours, n, r->clt + k * z, NULL));
  }
}

static void
correlate_all (gpointer data)
{
  Rig *r = data;
  const size_t n = r->n_tiles, z = CO_CLT_COEFFS * n;
  int a, b, p = 0;

  for (a = 0; a < r->n_cam; a++)
    for (b = a + 1; b < r->n_cam; b++, p++)
      CHECK (co_clt_correlate_cuda (r->clt + a * z, r->clt + b * z, n, plain (),
              CO_CLT_PEAK_DIRICHLET, NULL, r->res + p * n, r->res + (6 + p) *
              n, r->res + (12 + p) * n, NULL));
}

/* correlate_all with one refinement per pair (refine=1): b's tiles moved
 * by the estimate (b's plane kept: camera 3's stands for every b), again,
 * and the residual added */
static float *refine_clt, *refine_res;
static void
correlate_refined (gpointer data)
{
  Rig *r = data;
  const size_t n = r->n_tiles, z = CO_CLT_COEFFS * n;
  int a, b, p = 0;

  correlate_all (data);
  for (a = 0; a < r->n_cam; a++)
    for (b = a + 1; b < r->n_cam; b++, p++) {
      CHECK (co_clt_forward_cuda (r->plane, r->w, r->h, r->w, r->res + p * n,
              r->res + (6 + p) * n, refine_clt, NULL));
      CHECK (co_clt_correlate_cuda (r->clt + a * z, refine_clt, n, plain (),
              CO_CLT_PEAK_DIRICHLET, NULL, refine_res, refine_res + n,
              refine_res + 2 * n, NULL));
      CHECK (co_clt_corr_refine_cuda (r->res + p * n, r->res + (6 + p) * n,
              r->res + (12 + p) * n, refine_res, refine_res + n,
              refine_res + 2 * n, refine_res + 3 * n, n, 0, NULL));
    }
}

/* one temporal frame: plane, forward into slot 1, slot 0 against it */
static void
temporal_frame (gpointer data)
{
  Rig *r = data;
  const size_t n = r->n_tiles;

  CHECK (co_clt_corr_plane_cuda (&r->frame[0], r->plane, NULL));
  CHECK (co_clt_forward_cuda (r->plane, r->w, r->h, r->w, NULL, NULL,
          r->clt + CO_CLT_COEFFS * n, NULL));
  CHECK (co_clt_correlate_cuda (r->clt, r->clt + CO_CLT_COEFFS * n, n, plain (),
          CO_CLT_PEAK_DIRICHLET, NULL, r->res, r->res + n, r->res + 2 * n,
          NULL));
}

/* ---- the baseline: cuFFT per-tile phase correlation ---- */

typedef struct
{
  Rig *rig;
  BenchPcorr *p;
  float *res;                   /* dx, dy, strength of 6 pairs, as Rig's */
} Baseline;

static void
bl_forward_all (gpointer data)
{
  Baseline *b = data;
  int c;

  for (c = 0; c < b->rig->n_cam; c++)
    BL_CHECK (bench_pcorr_forward (b->p, b->rig->frame[c].data[0],
            b->rig->frame[c].pitch[0], c, NULL));
}

static void
bl_correlate_all (gpointer data)
{
  Baseline *bl = data;
  const size_t n = bl->rig->n_tiles;
  int a, b, p = 0;

  for (a = 0; a < bl->rig->n_cam; a++)
    for (b = a + 1; b < bl->rig->n_cam; b++, p++)
      BL_CHECK (bench_pcorr_correlate (bl->p, a, b, bl->res + p * n,
              bl->res + (6 + p) * n, bl->res + (12 + p) * n, NULL));
}

/* as temporal_frame: forward into slot 1, slot 0 against it */
static void
bl_temporal_frame (gpointer data)
{
  Baseline *bl = data;
  const size_t n = bl->rig->n_tiles;

  BL_CHECK (bench_pcorr_forward (bl->p, bl->rig->frame[0].data[0],
          bl->rig->frame[0].pitch[0], 1, NULL));
  BL_CHECK (bench_pcorr_correlate (bl->p, 0, 1, bl->res, bl->res + n,
          bl->res + 2 * n, NULL));
}

/* one step of the baseline alone, on camera 0 and the pair 0, 1 */
typedef struct
{
  Baseline *bl;
  BenchPcorrStep step;
} BlStep;

static void
bl_step (gpointer data)
{
  BlStep *s = data;
  Rig *r = s->bl->rig;
  const size_t n = r->n_tiles;

  BL_CHECK (bench_pcorr_step (s->bl->p, s->step, r->frame[0].data[0],
          r->frame[0].pitch[0], 0, 1, s->bl->res, s->bl->res + n,
          s->bl->res + 2 * n, NULL));
}

/* the median of @n device floats */
static float
median_dev (const float *dev, int n)
{
  float *v = g_new (float, n), m;

  CHECK (cudaMemcpy (v, dev, sizeof (float) * n, cudaMemcpyDeviceToHost));
  qsort (v, n, sizeof (float), cmpf);
  m = v[n / 2];
  g_free (v);
  return m;
}

/* camera 0 of @r against its copy moved by (@sx, @sy) whole pixels (b(x,
 * y) = a(x - sx, y - sy), edges clamped): the medians of the baseline's dx,
 * dy into @bl_d, of ours into @our_d.  Overwrites slots 0, 1 of both. */
static void
shift_check (Baseline * bl, int sx, int sy, float bl_d[2], float our_d[2])
{
  Rig *r = bl->rig;
  const int w = r->w, h = r->h, n = r->n_tiles;
  guint8 *a = g_malloc ((size_t) w * h), *b = g_malloc ((size_t) w * h);
  CoFrame moved = r->frame[0];
  int x, y;

  CHECK (cudaMemcpy (a, r->frame[0].data[0], (size_t) w * h,
          cudaMemcpyDeviceToHost));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      b[(size_t) y * w + x] = a[(size_t) CLAMP (y - sy, 0, h - 1) * w +
          CLAMP (x - sx, 0, w - 1)];
  CHECK (cudaMalloc ((void **) &moved.data[0], (size_t) w * h));
  CHECK (cudaMemcpy (moved.data[0], b, (size_t) w * h,
          cudaMemcpyHostToDevice));

  BL_CHECK (bench_pcorr_forward (bl->p, r->frame[0].data[0],
          r->frame[0].pitch[0], 0, NULL));
  BL_CHECK (bench_pcorr_forward (bl->p, moved.data[0], w, 1, NULL));
  BL_CHECK (bench_pcorr_correlate (bl->p, 0, 1, bl->res, bl->res + n,
          bl->res + 2 * n, NULL));
  bl_d[0] = median_dev (bl->res, n);
  bl_d[1] = median_dev (bl->res + n, n);

  CHECK (co_clt_corr_plane_cuda (&r->frame[0], r->plane, NULL));
  CHECK (co_clt_forward_cuda (r->plane, w, h, w, NULL, NULL, r->clt, NULL));
  CHECK (co_clt_corr_plane_cuda (&moved, r->plane, NULL));
  CHECK (co_clt_forward_cuda (r->plane, w, h, w, NULL, NULL, r->clt +
          (size_t) CO_CLT_COEFFS * n, NULL));
  CHECK (co_clt_correlate_cuda (r->clt, r->clt + (size_t) CO_CLT_COEFFS * n,
          n, plain (), CO_CLT_PEAK_DIRICHLET, NULL, r->res, r->res + n,
          r->res + 2 * n, NULL));
  our_d[0] = median_dev (r->res, n);
  our_d[1] = median_dev (r->res + n, n);

  CHECK (cudaFree (moved.data[0]));
  g_free (a);
  g_free (b);
}

static Baseline *
bl_new (Rig * r)
{
  Baseline *bl = g_new0 (Baseline, 1);

  bl->rig = r;
  bl->p = bench_pcorr_new (r->w, r->h, MAX (r->n_cam, 2));
  if (!bl->p)
    exit (1);
  g_assert (bench_pcorr_n_tiles (bl->p) == r->n_tiles);
  CHECK (cudaMalloc ((void **) &bl->res, sizeof (float) * 3 * r->n_tiles *
          6));
  return bl;
}

static void
bl_free (Baseline * bl)
{
  bench_pcorr_free (bl->p);
  cudaFree (bl->res);
  g_free (bl);
}

/* ---- the element ---- */

static guint64 pushed_by[4];
/* camera k takes picture k of a four-picture set (CO_BENCH_QUAD) */
static gboolean per_camera;

static void
need_data (GstAppSrc * src, guint length, gpointer data)
{
  const gint k = GPOINTER_TO_INT (data);
  GstBuffer *b;

  /* system memory: into sink_0's pool once the element answers (its
   * pinned memory serves every pad: one allocator an element) */
  if (bench_pin && !bench_pinned && k == 0 && pushed_by[0] > 0)
    bench_pinned = bench_pin_frames (src);
  if (pushed_by[k] >= limit) {
    gst_app_src_end_of_stream (src);
    return;
  }
  /* each camera its own frame of the set; with per_camera, camera k
   * always picture k (the set holds pictures 0..3 twice) */
  b = gst_buffer_copy (frames[per_camera ? k + 4 * (pushed_by[k] % 2) :
          (pushed_by[k] + 3 * k) % N_FRAMES]);
  GST_BUFFER_PTS (b) = pushed_by[k] * GST_SECOND / 1000;
  GST_BUFFER_DURATION (b) = GST_SECOND / 1000;
  pushed_by[k]++;
  gst_app_src_push_buffer (src, b);
}

/* Where the last run's frames were: the element's pinned pool, or not */
static const gchar *
pinned_what (void)
{
  GstMemory *m = frames[0] ? gst_buffer_peek_memory (frames[0], 0) : NULL;

  if (!bench_pinned || !m || !m->allocator)
    return "not in the element's pool: pageable";
  return m->allocator->mem_type;
}

/* seconds for @n outputs of cudacltcorrelate with @n_in inputs */
static gdouble
run_element (gint n_in, const gchar * props, guint64 n)
{
  GString *d = g_string_new (NULL);
  GstElement *pipe;
  GstBus *bus;
  gdouble ret;
  gint k;

  g_string_printf (d, "cudacltcorrelate name=el backend=cuda %s ! "
      "fakesink sync=false", props);
  for (k = 0; k < n_in; k++)
    g_string_append_printf (d, " appsrc name=s%d format=time ! el.sink_%d", k,
        k);
  pipe = gst_parse_launch (d->str, NULL);
  if (!pipe) {
    g_printerr ("no pipeline: %s\n", d->str);
    exit (2);
  }
  bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, bench_give_context, NULL, NULL);
  limit = n;
  bench_pinned = FALSE;         /* this pipeline's element's pool */
  for (k = 0; k < n_in; k++) {
    gchar name[8];
    GstElement *src;
    g_snprintf (name, sizeof (name), "s%d", k);
    src = gst_bin_get_by_name (GST_BIN (pipe), name);
    g_object_set (src, "caps", frame_caps, NULL);
    g_signal_connect (src, "need-data", G_CALLBACK (need_data),
        GINT_TO_POINTER (k));
    pushed_by[k] = 0;
    gst_object_unref (src);
  }
  ret = bench_play (pipe, bus, d->str);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_string_free (d, TRUE);
  return ret;
}

/* ms per output: the difference of two runs, so start-up cancels */
static gdouble
element_ms (gint n_in, const gchar * props, guint64 few, guint64 many)
{
  gdouble a = run_element (n_in, props, few);
  gdouble b = run_element (n_in, props, many);

  if (a < 0 || b < 0)
    exit (1);
  return (b - a) * 1e3 / (many - few);
}

int
main (int argc, char **argv)
{
  const gboolean quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  const int reps = quick ? 5 : 21;
  struct cudaDeviceProp prop;
  Rig quad, hd;
  float fwd, corr, refined, temporal;
  char fft_path[256];
  int fft_version = 0;
  gboolean have_fft;
  gdouble copy, bw, floor_ms, el_quad, el_hd, el_quad_sys, el_hd_sys,
      el_quad_page;

  setvbuf (stdout, NULL, _IOLBF, 0);
  gst_init (&argc, &argv);
  bench_require_cuda (1);
  CHECK (cudaGetDeviceProperties (&prop, 0));
  printf ("device: %s\n", prop.name);

  /* the bandwidth floor, measured here: a copy reads and writes */
  copy = copy_ms (2592, 1936);
  bw = 2.0 * 2592 * 1936 * 4 / (copy * 1e-3);
  printf ("device copy of a 2592x1936 RGBA frame: %.4f ms (%.0f GB/s read "
      "+ write)\n", copy, bw / 1e9);

  rig_init (&quad, 2592, 1936, 4);
  fwd = time_ms (forward_all, &quad, reps, 5);
  corr = time_ms (correlate_all, &quad, reps, 5);
  /* the correlation must read both tiles of each pair: 2 KB a tile pair */
  floor_ms = 6.0 * quad.n_tiles * 2 * CO_CLT_COEFFS * 4 / bw * 1e3;
  CHECK (cudaMalloc ((void **) &refine_clt, sizeof (float) * CO_CLT_COEFFS *
          quad.n_tiles));
  CHECK (cudaMalloc ((void **) &refine_res, sizeof (float) * 7 *
          quad.n_tiles));
  refined = time_ms (correlate_refined, &quad, reps, 5);
  printf ("quad 2592x1936 (%d tiles a camera):\n", quad.n_tiles);
  printf ("  forward, 4 cameras (grey plane + CLT): %.4f ms\n", fwd);
  printf ("  correlation, 6 pairs:                  %.4f ms  (target <= 1.5; "
      "reading the tiles alone: %.4f ms, %.0f%% of it)\n", corr, floor_ms,
      100.0 * floor_ms / corr);
  printf ("  correlation, 6 pairs, refine=1:        %.4f ms\n", refined);
  {
    Colour col;
    float cfwd;
    float csteps, chk_a, chk_b;
    colour_init (&col, &quad);
    csteps = time_ms (forward_colour_all, &col, reps, 3);
    chk_a = checksum_dev (quad.clt, CO_CLT_COEFFS * (size_t) quad.n_tiles);
    cfwd = time_ms (forward_colour_fused, &col, reps, 3);
    chk_b = checksum_dev (quad.clt, CO_CLT_COEFFS * (size_t) quad.n_tiles);
    printf ("  colour path (kernels-file): forward, 4 RGGB cameras (3 "
        "colours' tiles, their kernels, mixed): %.4f ms in one pass (%.4f "
        "as three steps; camera 0's tiles %s); with 6 pairs %.4f ms\n",
        cfwd, csteps, chk_a == chk_b ? "the same" : "DIFFER", cfwd + corr);
    if (chk_a != chk_b)
      return 4;
    colour_clear (&col);
  }

  have_fft = bench_pcorr_open (fft_path, sizeof (fft_path),
      &fft_version) == 0;
  if (!have_fft)
    printf ("cuFFT not found: baseline skipped\n");
  else {
    Baseline *bl = bl_new (&quad);
    float bl_d[2], our_d[2], bfwd, bcorr, step_ms[5];
    BlStep st = { bl, BENCH_PCORR_GATHER };

    printf ("  baseline: cuFFT per-tile phase correlation (%s, version %d): "
        "16x16 Hann-windowed tiles, edges clamped, R2C / cross-power / C2R "
        "/ argmax + parabola\n", fft_path, fft_version);
    shift_check (bl, 2, -1, bl_d, our_d);
    printf ("  check, camera 0 against itself moved by (2, -1) px: baseline "
        "median dx %.3f dy %.3f, ours %.3f %.3f (%d tiles)\n", bl_d[0],
        bl_d[1], our_d[0], our_d[1], quad.n_tiles);
    if (fabsf (bl_d[0] - 2.0f) > 0.25f || fabsf (bl_d[1] + 1.0f) > 0.25f) {
      g_printerr ("the baseline's median shift is not (2, -1)\n");
      return 3;
    }
    bfwd = time_ms (bl_forward_all, bl, reps, 5);
    bcorr = time_ms (bl_correlate_all, bl, reps, 5);
    printf ("  baseline forward, 4 cameras (gather + Hann + R2C): %.4f ms  "
        "(baseline / ours %.2f)\n", bfwd, bfwd / fwd);
    printf ("  baseline correlation, 6 pairs (cross-power + C2R + peak): "
        "%.4f ms  (baseline / ours %.2f)\n", bcorr, bcorr / corr);
    printf ("  baseline forward + 6 pairs: %.4f ms  (baseline / ours %.2f)\n",
        bfwd + bcorr, (bfwd + bcorr) / (fwd + corr));
    /* in this order each step reads what the one before wrote */
    for (st.step = BENCH_PCORR_GATHER; st.step <= BENCH_PCORR_PEAK; st.step++)
      step_ms[st.step] = time_ms (bl_step, &st, reps, 5);
    printf ("  baseline steps: a camera's gather %.4f + R2C %.4f ms; a pair's "
        "cross-power %.4f + C2R %.4f + peak %.4f ms\n", step_ms[0],
        step_ms[1], step_ms[2], step_ms[3], step_ms[4]);
    bl_free (bl);
  }

  rig_init (&hd, 1920, 1080, 1);
  temporal = time_ms (temporal_frame, &hd, reps, 20);
  printf ("1080p temporal (plane + forward + 1 correlation): %.4f ms = "
      "%.0f frames/s (target >= 2000)\n", temporal, 1e3 / temporal);
  if (have_fft) {
    Baseline *bl = bl_new (&hd);
    float btemp;

    /* slot 0: the previous frame's spectrum */
    BL_CHECK (bench_pcorr_forward (bl->p, hd.frame[0].data[0],
            hd.frame[0].pitch[0], 0, NULL));
    btemp = time_ms (bl_temporal_frame, bl, reps, 20);
    printf ("1080p temporal, baseline (gather + R2C + 1 correlation): %.4f "
        "ms = %.0f frames/s  (baseline / ours %.2f)\n", btemp, 1e3 / btemp,
        btemp / temporal);
    bl_free (bl);
  }

  /* the element, frames in CUDA memory */
  if (!bench_test_frames (2592, 1936, "NV12", "snow", TRUE)) {
    g_printerr ("no CUDA frames (cudaupload)\n");
    return 2;
  }
  el_quad = element_ms (4, "", quick ? 20 : 50, quick ? 100 : 550);
  printf ("element, 4 inputs 2592x1936, 6 pairs: %.4f ms an output "
      "(kernels %.4f: aggregator and host %.4f ms)\n", el_quad, fwd + corr,
      el_quad - (fwd + corr));
  if (!bench_test_frames (1920, 1080, "NV12", "snow", TRUE)) {
    g_printerr ("no CUDA frames (cudaupload)\n");
    return 2;
  }
  el_hd = element_ms (1, "mode=temporal", quick ? 50 : 200, quick ? 300 :
      2200);
  printf ("element, 1080p temporal: %.4f ms an output = %.0f frames/s "
      "(kernels %.4f: aggregator and host %.4f ms)\n", el_hd, 1e3 / el_hd,
      temporal, el_hd - temporal);

  /* max-shift: a real 1.5 MP stereo pair (Middlebury 2005 Art, full size,
   * 66-225 px) searched 256 px along its rows and in any direction; then
   * unrelated noise on every input, the search's worst case (no two tries
   * of a tile agree, so none is left out), as a pair and as the quad */
  {
    const gchar *dir = g_getenv ("CO_TEST_DATA_DIR");
    gchar *art = g_strdup_printf ("%s/stereo/art/im%%d.png", dir ? dir :
        "tests/data");
    gdouble ms;
    if (!bench_picture_frames (art, 2, 1390, 1110, "NV12", TRUE)) {
      g_printerr ("cannot read %s (run from the source tree, or set "
          "CO_TEST_DATA_DIR)\n", art);
      return 2;
    }
    g_free (art);
    ms = element_ms (2, "max-shift=256 search=horizontal refine=2 lpf-sigma=0.7",
        quick ? 20 : 50, quick ? 100 : 550);
    printf ("element, Middlebury Art 1390x1110, max-shift=256 "
        "search=horizontal refine=2 lpf-sigma=0.7: %.4f ms an output "
        "(target <= 2)\n", ms);
    ms = element_ms (2, "max-shift=256 search=any refine=2 lpf-sigma=0.7",
        quick ? 20 : 50, quick ? 100 : 550);
    printf ("element, Middlebury Art 1390x1110, max-shift=256 search=any "
        "refine=2 lpf-sigma=0.7: %.4f ms an output\n", ms);
    ms = element_ms (2, "max-shift=256 search=horizontal refine=2 "
        "lpf-sigma=0.7 lr-check=1", quick ? 20 : 50, quick ? 100 : 550);
    printf ("element, Middlebury Art 1390x1110, max-shift=256 "
        "search=horizontal refine=2 lpf-sigma=0.7 lr-check=1 (each way): "
        "%.4f ms an output\n", ms);
    ms = element_ms (2, "refine=2", quick ? 20 : 50, quick ? 100 : 550);
    printf ("element, Middlebury Art 1390x1110, no search, refine=2: %.4f ms "
        "an output\n", ms);
    if (!bench_test_frames (1390, 1110, "NV12", "snow", TRUE)) {
      g_printerr ("no CUDA frames (cudaupload)\n");
      return 2;
    }
    ms = element_ms (2, "max-shift=256 search=horizontal refine=2 lpf-sigma=0.7",
        quick ? 20 : 50, quick ? 100 : 550);
    printf ("element, unrelated noise 1390x1110, max-shift=256 "
        "search=horizontal refine=2 lpf-sigma=0.7: %.4f ms an output\n", ms);
    if (!bench_test_frames (2592, 1936, "NV12", "snow", TRUE)) {
      g_printerr ("no CUDA frames (cudaupload)\n");
      return 2;
    }
    ms = element_ms (4, "max-shift=64", quick ? 20 : 50, quick ? 100 : 550);
    printf ("element, unrelated noise, 4 inputs 2592x1936, 6 pairs, "
        "max-shift=64, no calibration (six searches in any direction): "
        "%.4f ms an output\n", ms);
    {
      /* a calibrated square rig (tests/data/rig-cam*.yml): one search
       * along the reference baseline starts the six pairs */
      GString *rig = g_string_new ("max-shift=64");
      gint k;
      for (k = 0; k < 4; k++)
        g_string_append_printf (rig, " sink_%d::calibration-file=\"%s/"
            "rig-cam%d.yml\"", k, dir ? dir : "tests/data", k);
      ms = element_ms (4, rig->str, quick ? 20 : 50, quick ? 100 : 550);
      printf ("element, unrelated noise, 4 inputs 2592x1936, 6 pairs, "
          "max-shift=64, a calibrated rig (one search along its baseline): "
          "%.4f ms an output (target <= 3)\n", ms);
      /* a photograph as that rig sees it (tests/bench/quad-views.py writes
       * the four views: a slanted plane of 8-56 px along pair 0-1) */
      if (g_getenv ("CO_BENCH_QUAD")) {
        if (!bench_picture_frames (g_getenv ("CO_BENCH_QUAD"), 4, 2592, 1936,
                "NV12", TRUE)) {
          g_printerr ("cannot read CO_BENCH_QUAD=%s\n",
              g_getenv ("CO_BENCH_QUAD"));
          return 2;
        }
        per_camera = TRUE;
        ms = element_ms (4, rig->str, quick ? 20 : 50, quick ? 100 : 550);
        per_camera = FALSE;
        printf ("element, a photograph seen by the calibrated quad "
            "(quad-views.py: 8-56 px along pair 0-1, to 79 on the diagonals), "
            "4 inputs 2592x1936, max-shift=64: %.4f ms an output (target <= 3)\n",
            ms);
        g_string_append (rig, " refine=2");
        per_camera = TRUE;
        ms = element_ms (4, rig->str, quick ? 20 : 50, quick ? 100 : 550);
        per_camera = FALSE;
        printf ("element, the same photograph's quad, max-shift=64 refine=2: "
            "%.4f ms an output\n", ms);
      }
      g_string_free (rig, TRUE);
    }
  }

  /* the element, camera frames in system memory: written into the pinned
   * pool the element proposes (as a camera source that takes the
   * ALLOCATION answer does), read by the kernels through its device alias */
  bench_pin = TRUE;
  if (!bench_test_frames (2592, 1936, "NV12", "snow", FALSE)) {
    g_printerr ("no system-memory frames\n");
    return 2;
  }
  el_quad_sys = element_ms (4, "", quick ? 20 : 50, quick ? 100 : 550);
  printf ("element, 4 inputs 2592x1936, 6 pairs, frames in system memory "
      "(%s): %.4f ms an output (kernels %.4f: aggregator, host and reading "
      "the frames over the bus %.4f ms)\n", pinned_what (), el_quad_sys,
      fwd + corr, el_quad_sys - (fwd + corr));
  if (!bench_test_frames (1920, 1080, "NV12", "snow", FALSE)) {
    g_printerr ("no system-memory frames\n");
    return 2;
  }
  el_hd_sys = element_ms (1, "mode=temporal", quick ? 50 : 200, quick ? 300 :
      2200);
  printf ("element, 1080p temporal, frames in system memory (%s): %.4f ms "
      "an output = %.0f frames/s\n", pinned_what (), el_hd_sys,
      1e3 / el_hd_sys);
  /* the same frames where a source ignores the pool: plain malloc'd
   * memory, copied through a staging frame on the device */
  bench_pin = FALSE;
  if (!bench_test_frames (2592, 1936, "NV12", "snow", FALSE)) {
    g_printerr ("no system-memory frames\n");
    return 2;
  }
  el_quad_page = element_ms (4, "", quick ? 20 : 50, quick ? 100 : 550);
  printf ("element, 4 inputs 2592x1936, 6 pairs, frames in pageable system "
      "memory (%s): %.4f ms an output (pinned pool / pageable %.2f)\n",
      pinned_what (), el_quad_page, el_quad_sys / el_quad_page);
  bench_clear_frames ();
  rig_clear (&quad);
  rig_clear (&hd);
  cudaFree (refine_clt);
  cudaFree (refine_res);
  return 0;
}
