/* cudaoptics — LGPL-2.1-or-later
 *
 * The compressed LUT encoding and the C reference of cudalensdistort,
 * without GStreamer: round trips of every (x, y) up to 8K, agreement of the
 * three LUT strategies, identity at k = 0, and the table against the
 * independent double-precision models.
 */
#include <glib.h>
#include "lensdistort.h"
#include "../lens-reference.h"

static const int sizes[][2] = {
  {7680, 4320}, {4320, 7680}, {4320, 4320}, {1920, 1080}, {1, 1}, {3, 1},
  {1, 5}, {16384, 16384},
};

static void
test_frac_bits (void)
{
  g_assert_cmpint (co_lut_frac_bits (1920, 1080), ==, 5);
  g_assert_cmpint (co_lut_frac_bits (2046, 2046), ==, 5);
  g_assert_cmpint (co_lut_frac_bits (3840, 2160), ==, 4);
  g_assert_cmpint (co_lut_frac_bits (7680, 4320), ==, 3);
  g_assert_cmpint (co_lut_frac_bits (16384, 16384), ==, 1);
  g_assert_cmpint (co_lut_frac_bits (1, 1), ==, CO_LUT_MAX_FRAC_BITS);
}

/* Every pixel of every size (16K sampled): the entry decodes to the pixel
 * it was made from, from anywhere inside that pixel. */
static void
test_roundtrip_nearest (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    int w = sizes[i][0], h = sizes[i][1], step = w > 8192 ? 7 : 1, x, y;
    for (y = 0; y < h; y += step) {
      for (x = 0; x < w; x += step) {
        float jx = ((x * 7 + y * 3) % 9 - 4) * 0.11f;   /* within +-0.45 */
        float jy = ((x * 5 + y * 11) % 9 - 4) * 0.11f;
        int dx, dy;
        uint32_t e = co_lut_encode_nearest (x + jx, y + jy, w, h);
        g_assert_cmphex (e, !=, CO_LUT_UNMAPPED);
        co_lut_decode_nearest (e, &dx, &dy);
        if (dx != x || dy != y)
          g_error ("%dx%d: (%d,%d) came back as (%d,%d)", w, h, x, y, dx, dy);
      }
    }
    g_assert_cmphex (co_lut_encode_nearest (-0.51f, 0, w, h), ==,
        CO_LUT_UNMAPPED);
    g_assert_cmphex (co_lut_encode_nearest (0, h - 0.49f, w, h), ==,
        CO_LUT_UNMAPPED);
    g_assert_cmphex (co_lut_encode_nearest (NAN, 0, w, h), ==, CO_LUT_UNMAPPED);
  }
}

static void
test_roundtrip_bilinear (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    int w = sizes[i][0], h = sizes[i][1], step = w > 8192 ? 7 : 1, x, y;
    int f = co_lut_frac_bits (w, h), one = 1 << f;
    for (y = -1; y < h; y += step) {
      for (x = -1; x < w; x += step) {
        int qx = (x * 7 + y * 3 + 5) & (one - 1), qy = (x * 5 + y + 1) & (one
            - 1), x0, y0, wx, wy;
        uint32_t e;
        if ((x == -1 && qx == 0) || (y == -1 && qy == 0))
          continue;             /* s = -1 exactly: no tap inside */
        e = co_lut_encode_bilinear (x + (float) qx / one, y + (float) qy / one,
            w, h, f);
        g_assert_cmphex (e, !=, CO_LUT_UNMAPPED);
        co_lut_decode_bilinear (e, f, &x0, &y0, &wx, &wy);
        if (x0 != x || y0 != y || wx != qx || wy != qy)
          g_error ("%dx%d F=%d: (%d+%d/%d, %d+%d/%d) came back as (%d+%d, "
              "%d+%d)", w, h, f, x, qx, one, y, qy, one, x0, wx, y0, wy);
      }
    }
    g_assert_cmphex (co_lut_encode_bilinear (-1.0f, 0, w, h, f), ==,
        CO_LUT_UNMAPPED);
    g_assert_cmphex (co_lut_encode_bilinear (0, (float) h, w, h, f), ==,
        CO_LUT_UNMAPPED);
    g_assert_cmphex (co_lut_encode_bilinear (NAN, 0, w, h, f), ==,
        CO_LUT_UNMAPPED);
  }
}

/* ---- whole frames ---- */

static const CoFormat formats[] = {
  CO_FORMAT_RGBA, CO_FORMAT_BGRX, CO_FORMAT_RGB, CO_FORMAT_GRAY8,
  CO_FORMAT_GRAY16_LE, CO_FORMAT_NV12, CO_FORMAT_I420,
};

typedef struct
{
  CoFrame f;
  guint8 *mem;
} Frame;

static void
frame_alloc (Frame * fr, CoFormat fmt, int w, int h, GRand * rand)
{
  gsize off[CO_MAX_PLANES], total = 0;
  int i;

  memset (fr, 0, sizeof (*fr));
  fr->f.format = fmt;
  fr->f.width = w;
  fr->f.height = h;
  for (i = 0; i < co_format_n_planes (fmt); i++) {
    int pw, ph;
    co_plane_size (w, h, co_format_plane_shift (fmt, i), &pw, &ph);
    fr->f.pitch[i] = pw * co_pix_bpp (co_format_plane_kind (fmt, i)) + 3;
    off[i] = total;
    total += (gsize) fr->f.pitch[i] * ph;
  }
  fr->mem = g_malloc (total);
  for (i = 0; i < (int) total; i++)
    fr->mem[i] = rand ? (guint8) g_rand_int (rand) : 0xcd;
  for (i = 0; i < co_format_n_planes (fmt); i++)
    fr->f.data[i] = fr->mem + off[i];
}

static gboolean
frames_equal (const CoFrame * a, const CoFrame * b)
{
  int i, y;

  for (i = 0; i < co_format_n_planes (a->format); i++) {
    int pw, ph;
    co_plane_size (a->width, a->height, co_format_plane_shift (a->format, i),
        &pw, &ph);
    for (y = 0; y < ph; y++)
      if (memcmp (a->data[i] + (size_t) y * a->pitch[i],
              b->data[i] + (size_t) y * b->pitch[i],
              (size_t) pw * co_pix_bpp (co_format_plane_kind (a->format, i))))
        return FALSE;
  }
  return TRUE;
}

static void
remap (const CoLensParams * p, CoLutMode mode, CoInterp interp,
    const CoFrame * in, CoFrame * out)
{
  CoLut lut;
  uint32_t border[CO_MAX_PLANES];
  gpointer mem[4] = { NULL };
  int g;

  co_lut_layout (&lut, mode, interp, in->format, in->width, in->height);
  for (g = 0; g < lut.n_geometries; g++) {
    gsize n = co_lut_table_bytes (&lut, g);
    if (!n)
      continue;
    mem[2 * g] = g_malloc (n);
    mem[2 * g + 1] = g_malloc (n);
    lut.plane[g].packed = mem[2 * g];
    lut.plane[g].x = mem[2 * g];
    lut.plane[g].y = mem[2 * g + 1];
    if (mode == CO_LUT_COMPRESSED)
      lut.plane[g].x = lut.plane[g].y = NULL;
    else
      lut.plane[g].packed = NULL;
  }
  co_lens_build_lut_cpu (p, &lut);
  co_format_border (in->format, 0xff204080, border);
  co_lens_remap_cpu (p, &lut, in, out, border);
  for (g = 0; g < 4; g++)
    g_free (mem[g]);
}

static void
params_for (CoLensParams * p, int which, int w, int h)
{
  double k[4] = { 0.9 * w, 0.85 * w, 0.52 * w, 0.47 * h };
  double d[5] = { -0.28, 0.09, 0.002, -0.0015, -0.01 }, nk[4];

  switch (which) {
    case 0:
      co_lens_params_init_hmd (p, w, h, -0.3, 0.08, 0.45, 0.55, FALSE);
      break;
    case 1:
      co_lens_params_init_hmd (p, w, h, 0.25, 0.1, 0.4, 0.5, TRUE);
      break;
    default:
      if (!co_lens_optimal_new_camera (k, d, w, h, which == 2 ? 0.0 : 1.0, nk))
        g_error ("no optimal camera matrix");
      co_lens_params_init_camera (p, w, h, k, d, nk);
      break;
  }
}

/* compressed, two-table and per-pixel evaluation are the same function */
static void
test_modes_agree (void)
{
  GRand *rand = g_rand_new_with_seed (7);
  guint fi;
  int which, interp;

  for (fi = 0; fi < G_N_ELEMENTS (formats); fi++) {
    for (which = 0; which < 4; which++) {
      for (interp = 0; interp < 2; interp++) {
        int w = 97 + which, h = 61 + fi;
        CoLensParams p;
        Frame in, a, b, c;
        params_for (&p, which, w, h);
        frame_alloc (&in, formats[fi], w, h, rand);
        frame_alloc (&a, formats[fi], w, h, NULL);
        frame_alloc (&b, formats[fi], w, h, NULL);
        frame_alloc (&c, formats[fi], w, h, NULL);
        remap (&p, CO_LUT_COMPRESSED, interp, &in.f, &a.f);
        remap (&p, CO_LUT_TWO_TABLE, interp, &in.f, &b.f);
        remap (&p, CO_LUT_COMPUTE, interp, &in.f, &c.f);
        if (!frames_equal (&a.f, &b.f) || !frames_equal (&a.f, &c.f))
          g_error ("format %d params %d interp %d: LUT modes disagree",
              formats[fi], which, interp);
        g_free (in.mem);
        g_free (a.mem);
        g_free (b.mem);
        g_free (c.mem);
      }
    }
  }
  g_rand_free (rand);
}

static void
test_identity (void)
{
  GRand *rand = g_rand_new_with_seed (11);
  double k[4] = { 500, 510, 60.5, 33.25 }, d[5] = { 0 };
  guint fi;
  int model, interp, mode;

  for (fi = 0; fi < G_N_ELEMENTS (formats); fi++) {
    for (model = 0; model < 3; model++) {
      for (interp = 0; interp < 2; interp++) {
        for (mode = 0; mode < 3; mode++) {
          int w = 123, h = 67;
          CoLensParams p;
          Frame in, out;
          if (model == 2)
            co_lens_params_init_camera (&p, w, h, k, d, k);
          else
            co_lens_params_init_hmd (&p, w, h, 0, 0, 0.3, 0.6, model);
          frame_alloc (&in, formats[fi], w, h, rand);
          frame_alloc (&out, formats[fi], w, h, NULL);
          remap (&p, mode, interp, &in.f, &out.f);
          if (!frames_equal (&in.f, &out.f))
            g_error ("k=0 is not the identity: format %d model %d interp %d "
                "mode %d", formats[fi], model, interp, mode);
          g_free (in.mem);
          g_free (out.mem);
        }
      }
    }
  }
  g_rand_free (rand);
}

/* The C reference against the independent double-precision models, for
 * every plane of every format: exact for nearest (but at rounding ties),
 * within the quantisation error for bilinear. */
static void
test_against_reference (void)
{
  GRand *rand = g_rand_new_with_seed (3);
  guint fi;
  int which, interp;

  for (fi = 0; fi < G_N_ELEMENTS (formats); fi++) {
    for (which = 0; which < 4; which++) {
      for (interp = 0; interp < 2; interp++) {
        int w = 160 + 2 * which + 1, h = 90 + fi, i;
        double k[4] = { 0.9 * w, 0.85 * w, 0.52 * w, 0.47 * h };
        double d[5] = { -0.28, 0.09, 0.002, -0.0015, -0.01 }, nk[4];
        CoLensParams p;
        RefLens r = { 0 };
        Frame in, out;
        uint32_t border[CO_MAX_PLANES];
        long bad = 0, checked = 0;

        params_for (&p, which, w, h);
        r.width = w;
        r.height = h;
        if (which < 2) {
          r.stereo = which;
          r.k1 = which ? 0.25 : -0.3;
          r.k2 = which ? 0.1 : 0.08;
          r.center_x = which ? 0.4 : 0.45;
          r.center_y = which ? 0.5 : 0.55;
        } else {
          co_lens_optimal_new_camera (k, d, w, h, which == 2 ? 0.0 : 1.0, nk);
          r.camera = 1;
          r.fx = k[0], r.fy = k[1], r.cx = k[2], r.cy = k[3];
          r.k1 = d[0], r.k2 = d[1], r.p1 = d[2], r.p2 = d[3], r.k3 = d[4];
          r.nfx = nk[0], r.nfy = nk[1], r.ncx = nk[2], r.ncy = nk[3];
        }
        frame_alloc (&in, formats[fi], w, h, rand);
        frame_alloc (&out, formats[fi], w, h, NULL);
        remap (&p, CO_LUT_COMPRESSED, interp, &in.f, &out.f);
        co_format_border (formats[fi], 0xff204080, border);
        for (i = 0; i < co_format_n_planes (formats[fi]); i++) {
          CoPixKind kind = co_format_plane_kind (formats[fi], i);
          int shift = co_format_plane_shift (formats[fi], i), pw, ph, c;
          uint32_t bc[4];
          co_plane_size (w, h, shift, &pw, &ph);
          for (c = 0; c < 4; c++)
            bc[c] = co_pix_channel (border[i], kind, c);
          bad += ref_check_plane (&r, shift, interp == 0,
              co_lut_frac_bits (pw, ph), in.f.data[i], in.f.pitch[i],
              out.f.data[i], out.f.pitch[i], pw, ph, co_pix_bpp (kind),
              kind == CO_PIX_U16X1, bc, &checked);
        }
        if (bad)
          g_error ("format %d params %d interp %d: %ld of %ld pixels differ "
              "from the reference", formats[fi], which, interp, bad, checked);
        g_assert_cmpint (checked, >, w * h / 2);
        g_free (in.mem);
        g_free (out.mem);
      }
    }
  }
  g_rand_free (rand);
}

/* The SWAR interior path computes exactly the generic path's integers. */
static void
test_bilinear_fast_path (void)
{
  GRand *rand = g_rand_new_with_seed (17);
  uint8_t img[2 * 8];
  int f, wx, wy, i;

  for (f = 0; f <= CO_LUT_MAX_FRAC_BITS; f++) {
    for (i = 0; i < 200; i++) {
      CoSrcPlane s = { img, 8, 2, 2, 0 };
      int k;
      for (k = 0; k < 16; k++)
        img[k] = i < 2 ? (i ? 255 : 0) : (uint8_t) g_rand_int (rand);
      for (wy = 0; wy < (1 << f); wy++) {
        for (wx = 0; wx < (1 << f); wx++) {
          uint32_t e = (uint32_t) (((1 << f) + wx) | (((1 << f) + wy) << 16));
          uint32_t a = co_bilinear_u8x4_inside (img, 8, wx, wy, f);
          uint32_t b = co_sample_generic (&s, CO_PIX_U8X4, CO_INTERP_BILINEAR,
              f, e, 0x12345678);
          if (a != b)
            g_error ("F=%d w=(%d,%d): fast %08x, generic %08x", f, wx, wy, a,
                b);
        }
      }
    }
  }
  g_rand_free (rand);
}

/* ---- the same bytes on every host ---- */

static guint64
fnv1a (guint64 h, const void *data, gsize n)
{
  const guint8 *b = data;

  while (n--)
    h = (h ^ *b++) * G_GUINT64_CONSTANT (0x100000001b3);
  return h;
}

static guint64
frame_hash (const CoFrame * f)
{
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  int i, y;

  for (i = 0; i < co_format_n_planes (f->format); i++) {
    int pw, ph;
    co_plane_size (f->width, f->height, co_format_plane_shift (f->format, i),
        &pw, &ph);
    for (y = 0; y < ph; y++)
      h = fnv1a (h, f->data[i] + (size_t) y * f->pitch[i],
          (size_t) pw * co_pix_bpp (co_format_plane_kind (f->format, i)));
  }
  return h;
}

/* Hash of the float tables (the most sensitive to how the host compiler
 * evaluates the model) and of the frame remapped through them. */
static void
golden_case (const CoLensParams * p, CoInterp interp, const CoFrame * in,
    CoFrame * out, guint64 * table_hash, guint64 * out_hash)
{
  CoLut lut;
  uint32_t border[CO_MAX_PLANES];
  gpointer mem[4] = { NULL };
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  int g;

  co_lut_layout (&lut, CO_LUT_TWO_TABLE, interp, in->format, in->width,
      in->height);
  for (g = 0; g < lut.n_geometries; g++) {
    gsize n = co_lut_table_bytes (&lut, g);
    lut.plane[g].x = mem[2 * g] = g_malloc0 (n);
    lut.plane[g].y = mem[2 * g + 1] = g_malloc0 (n);
  }
  co_lens_build_lut_cpu (p, &lut);
  for (g = 0; g < lut.n_geometries; g++) {
    gsize n = co_lut_table_bytes (&lut, g);
    h = fnv1a (fnv1a (h, mem[2 * g], n), mem[2 * g + 1], n);
  }
  co_format_border (in->format, 0xff204080, border);
  co_lens_remap_cpu (p, &lut, in, out, border);
  for (g = 0; g < 4; g++)
    g_free (mem[g]);
  *table_hash = h;
  *out_hash = frame_hash (out);
}

/* The C reference gives the bytes recorded in tests/data/golden-lut.txt on
 * x86-64, where the GPU suite shows CUDA equal to it bit for bit: on arm64
 * (gcc contracts a*b+c into FMA there unless told not to) this is the check
 * that the CPU backend still computes what the kernels compute.
 * CO_GOLDEN_WRITE=FILE records the table instead. */
static void
test_golden (void)
{
  const gchar *dir = g_getenv ("CO_TEST_DATA_DIR");
  const gchar *write = g_getenv ("CO_GOLDEN_WRITE");
  gchar *path, *text = NULL;
  GString *got = g_string_new (NULL);
  GRand *rand = g_rand_new_with_seed (23);
  guint fi, bad = 0;
  int which, interp;

  for (fi = 0; fi < G_N_ELEMENTS (formats); fi++) {
    for (which = 0; which < 4; which++) {
      for (interp = 0; interp < 2; interp++) {
        int w = 131 + 2 * which, h = 77 + fi;
        CoLensParams p;
        Frame in, out;
        guint64 th, oh;
        params_for (&p, which, w, h);
        frame_alloc (&in, formats[fi], w, h, rand);
        frame_alloc (&out, formats[fi], w, h, NULL);
        golden_case (&p, interp, &in.f, &out.f, &th, &oh);
        g_string_append_printf (got, "%d %d %d %016" G_GINT64_MODIFIER "x %016"
            G_GINT64_MODIFIER "x\n", formats[fi], which, interp, th, oh);
        g_free (in.mem);
        g_free (out.mem);
      }
    }
  }
  if (write != NULL) {
    g_assert_true (g_file_set_contents (write, got->str, -1, NULL));
  } else {
    gchar **want, **have;
    guint i;

    g_assert_nonnull (dir);
    path = g_build_filename (dir, "golden-lut.txt", NULL);
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    want = g_strsplit (text, "\n", -1);
    have = g_strsplit (got->str, "\n", -1);
    g_assert_cmpuint (g_strv_length (want), ==, g_strv_length (have));
    for (i = 0; have[i]; i++)
      if (g_strcmp0 (want[i], have[i]) != 0) {
        g_printerr ("golden: want '%s', got '%s'\n", want[i], have[i]);
        bad++;
      }
    g_strfreev (want);
    g_strfreev (have);
    g_free (text);
    g_free (path);
    g_assert_cmpuint (bad, ==, 0);
  }
  g_string_free (got, TRUE);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lut/frac-bits", test_frac_bits);
  g_test_add_func ("/lut/roundtrip-nearest", test_roundtrip_nearest);
  g_test_add_func ("/lut/roundtrip-bilinear", test_roundtrip_bilinear);
  g_test_add_func ("/remap/bilinear-fast-path", test_bilinear_fast_path);
  g_test_add_func ("/remap/modes-agree", test_modes_agree);
  g_test_add_func ("/remap/identity", test_identity);
  g_test_add_func ("/remap/against-reference", test_against_reference);
  g_test_add_func ("/remap/golden", test_golden);
  return g_test_run ();
}
