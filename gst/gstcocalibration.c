/* cudaoptics — LGPL-2.1-or-later */

/* Reads camera_matrix and distortion_coefficients from the YAML or XML that
 * cv::FileStorage writes. Only what OpenCV's writer emits is understood;
 * other nodes are skipped. */

#include "gstcocalibration.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

#define MAX_FILE_SIZE (1024 * 1024)
#define MAX_VALUES 16

#define ERR_READ GST_CO_CALIBRATION_ERROR_READ
#define ERR_PARSE GST_CO_CALIBRATION_ERROR_PARSE
#define ERR_UNSUPPORTED GST_CO_CALIBRATION_ERROR_UNSUPPORTED

G_DEFINE_QUARK (gst-co-calibration-error-quark, gst_co_calibration_error)

typedef struct
{
  const gchar *name;            /* alias found in the file; NULL until then */
  gint rows, cols;              /* -1 when not given */
  gint count;
  gdouble v[MAX_VALUES];
} Matrix;

enum
{ S_WIDTH, S_HEIGHT, S_FISHEYE, N_SCALARS };

typedef struct
{
  const gchar *src;             /* file name for messages, or NULL */
  Matrix cam, dist;
  gboolean have[N_SCALARS];
  gint scalar[N_SCALARS];
  GError **error;
} Ctx;

static const gchar *const cam_names[] = { "camera_matrix", "cameraMatrix",
  NULL
};
static const gchar *const dist_names[] = { "distortion_coefficients",
  "dist_coeffs", "distCoeffs", NULL
};

/* fisheye_model matters because its 4 coefficients are not k1 k2 p1 p2 */
static const gchar *const scalar_names[] = { "image_width", "image_height",
  "fisheye_model", NULL
};

static gboolean
fail (Ctx * c, gint code, const gchar * fmt, ...)
{
  va_list ap;
  gchar *msg;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (c->error, GST_CO_CALIBRATION_ERROR, code, "%s%s%s",
      c->src ? c->src : "", c->src ? ": " : "", msg);
  g_free (msg);
  return FALSE;
}

static gboolean
is_word (const gchar * s, gsize len, const gchar * word)
{
  return strlen (word) == len && memcmp (word, s, len) == 0;
}

static gint
find_name (const gchar * const *names, const gchar * s, gsize len)
{
  gint i;

  for (i = 0; names[i]; i++)
    if (is_word (s, len, names[i]))
      return i;
  return -1;
}

/* Numbers separated by whitespace and/or commas. The text is NUL-terminated
 * at or after @end, so g_ascii_strtod cannot run off it. */
static gboolean
read_numbers (Ctx * c, const gchar * node, const gchar * key, const gchar * p,
    const gchar * end, gdouble * v, gint max, gint * count)
{
  gchar *e;
  gdouble x;

  for (*count = 0;; (*count)++, p = e) {
    while (p < end && (g_ascii_isspace (*p) || *p == ','))
      p++;
    if (p >= end)
      return TRUE;
    x = g_ascii_strtod (p, &e);
    if (e == p || e > end || (e < end && !g_ascii_isspace (*e) && *e != ',')
        || !isfinite (x))
      return fail (c, ERR_PARSE, "%s%s%s: value %d is not a finite number",
          node, key ? "." : "", key ? key : "", *count + 1);
    if (*count < max)
      v[*count] = x;
  }
}

static gboolean
read_int (Ctx * c, const gchar * node, const gchar * key, const gchar * p,
    const gchar * end, gint * out)
{
  gdouble v;
  gint n;

  if (!read_numbers (c, node, key, p, end, &v, 1, &n))
    return FALSE;
  if (n != 1 || v < 0 || v > G_MAXINT || v != (gint) v)
    return fail (c, ERR_PARSE, "%s%s%s must be a non-negative integer", node,
        key ? "." : "", key ? key : "");
  *out = (gint) v;
  return TRUE;
}

/* The first node of a kind wins, as with cv::FileStorage lookups. */
static Matrix *
lookup_matrix (Ctx * c, const gchar * s, gsize len)
{
  gint i;

  if ((i = find_name (cam_names, s, len)) >= 0 && c->cam.name == NULL)
    return (c->cam.name = cam_names[i], &c->cam);
  if ((i = find_name (dist_names, s, len)) >= 0 && c->dist.name == NULL)
    return (c->dist.name = dist_names[i], &c->dist);
  return NULL;
}

static gboolean
set_scalar (Ctx * c, const gchar * key, gsize klen, const gchar * b,
    const gchar * e)
{
  gint i = find_name (scalar_names, key, klen);

  if (i < 0 || c->have[i])
    return TRUE;
  c->have[i] = TRUE;
  return read_int (c, scalar_names[i], NULL, b, e, &c->scalar[i]);
}

static gboolean
set_field (Ctx * c, Matrix * m, const gchar * key, gsize klen,
    const gchar * b, const gchar * e)
{
  if (is_word (key, klen, "rows"))
    return read_int (c, m->name, "rows", b, e, &m->rows);
  if (is_word (key, klen, "cols"))
    return read_int (c, m->name, "cols", b, e, &m->cols);
  if (is_word (key, klen, "data"))
    return read_numbers (c, m->name, NULL, b, e, m->v, MAX_VALUES, &m->count);
  return TRUE;
}

/* @p is on an opening bracket or quote; returns the position after its
 * match, or NULL when the text ends first. */
static const gchar *
skip_flow (const gchar * p, const gchar * end)
{
  gint depth = 0;

  while (p < end) {
    gchar ch = *p++;

    if (ch == '"' || ch == '\'') {
      while (p < end && *p != ch)
        p += (ch == '"' && *p == '\\' && p + 1 < end) ? 2 : 1;
      if (p++ >= end)
        return NULL;
      if (depth == 0)
        return p;
    } else if (ch == '[' || ch == '{') {
      depth++;
    } else if ((ch == ']' || ch == '}') && --depth <= 0) {
      return p;
    }
  }
  return NULL;
}

static gboolean
parse_yaml (Ctx * c, const gchar * p, const gchar * end)
{
  gint top = -1, child = -1;
  Matrix *m = NULL;

  while (p < end) {
    const gchar *key, *b, *e = NULL;
    gchar flow = 0;
    gsize klen;
    gint ind = 0;

    for (; p < end && *p == ' '; p++)
      ind++;
    for (key = p; p < end && (g_ascii_isalnum (*p) || *p == '_' || *p == '-'
            || *p == '.'); p++);
    klen = p - key;
    while (p < end && (*p == ' ' || *p == '\t'))
      p++;
    /* anything but "key:" is a comment, directive, marker or list item */
    if (klen == 0 || p >= end || *p != ':' || (p + 1 < end
            && !g_ascii_isspace (p[1]))) {
      while (p < end && *p++ != '\n');
      continue;
    }
    if (top < 0)
      top = ind;
    for (b = p + 1; b < end && (*b == ' ' || *b == '\t'); b++);
    p = b;
    if (b < end && (*b == '[' || *b == '{' || *b == '"' || *b == '\'')) {
      if ((p = skip_flow (b, end)) == NULL)
        return fail (c, ERR_PARSE, "%s%s%.*s: unterminated %c",
            ind > top && m ? m->name : "", ind > top && m ? "." : "",
            (gint) klen, key, *b);
      flow = *b++;
      e = p - 1;
    }
    for (; p < end && *p != '\n'; p++);
    if (e == NULL)              /* a plain scalar ends at a " #" comment */
      for (e = b; e < p && !(*e == '#' && g_ascii_isspace (e[-1])); e++);
    if (p < end)
      p++;

    if (ind <= top) {
      child = -1;
      m = lookup_matrix (c, key, klen);
      if (m == NULL && !set_scalar (c, key, klen, b, e))
        return FALSE;
      if (m != NULL && flow == '[') {
        if (!set_field (c, m, "data", 4, b, e))
          return FALSE;
        m = NULL;
      }
    } else if (m != NULL && (child < 0 || ind == child)) {
      child = ind;
      if (!set_field (c, m, key, klen, b, e))
        return FALSE;
    }
  }
  return TRUE;
}

/* Finds the next element among the children in [*pp, end) and its content.
 * Returns 1 when found, 0 when there is none left, -1 on malformed or
 * truncated markup. Closing tag names are not checked against opening ones. */
static gint
xml_next (const gchar ** pp, const gchar * end, const gchar ** name,
    gsize * nlen, const gchar ** cbeg, const gchar ** cend)
{
  const gchar *p = *pp, *lt, *s, *ne;
  gint depth = 0;

  for (;; p++) {
    gboolean closing;
    gchar q = 0;

    if ((lt = memchr (p, '<', end - p)) == NULL)
      return depth == 0 ? 0 : -1;
    p = lt + 1;
    if (end - p >= 3 && memcmp (p, "!--", 3) == 0) {
      if ((p = g_strstr_len (p + 3, end - p - 3, "-->")) == NULL)
        return -1;
      continue;
    }
    if (p < end && (*p == '?' || *p == '!')) {
      if ((p = memchr (p, '>', end - p)) == NULL)
        return -1;
      continue;
    }
    if ((closing = (p < end && *p == '/')))
      p++;
    for (s = p; p < end && !g_ascii_isspace (*p) && *p != '>' && *p != '/';
        p++);
    if ((ne = p) == s)
      return -1;
    for (; p < end && (q || *p != '>'); p++)
      if (*p == '"' || *p == '\'')
        q = q == 0 ? *p : (q == *p ? 0 : q);
      else if (*p == '<' && q == 0)
        return -1;
    if (p >= end || (closing && --depth < 0))
      return -1;
    if (!closing && depth == 0) {
      *name = s;
      *nlen = ne - s;
      *cbeg = *cend = p + 1;
    }
    if (!closing && p[-1] != '/')
      depth++;
    else if (depth == 0) {
      *cend = closing ? lt : *cend;
      *pp = p + 1;
      return 1;
    }
  }
}

static gboolean
parse_xml (Ctx * c, const gchar * p, const gchar * end)
{
  const gchar *name, *b, *e, *cb, *ce, *kn, *kb, *ke;
  gsize n, kl;
  gint r;

  if (xml_next (&p, end, &name, &n, &b, &e) <= 0)
    return fail (c, ERR_PARSE, "malformed or truncated XML");
  if (!is_word (name, n, "opencv_storage"))
    return fail (c, ERR_PARSE, "root element is not <opencv_storage>");
  while ((r = xml_next (&b, e, &name, &n, &cb, &ce)) > 0) {
    Matrix *m = lookup_matrix (c, name, n);

    if (m == NULL && !set_scalar (c, name, n, cb, ce))
      return FALSE;
    while (m != NULL && (r = xml_next (&cb, ce, &kn, &kl, &kb, &ke)) > 0)
      if (!set_field (c, m, kn, kl, kb, ke))
        return FALSE;
    if (r < 0)
      return fail (c, ERR_PARSE, "malformed XML in <%s>", m->name);
  }
  if (r < 0)
    return fail (c, ERR_PARSE, "malformed or truncated XML in "
        "<opencv_storage>");
  return TRUE;
}

static gboolean
check_shape (Ctx * c, const Matrix * m)
{
  if (m->count == 0)
    return fail (c, ERR_PARSE, "%s has no data", m->name);
  if (m->rows >= 0 && m->cols >= 0 && (gint64) m->rows * m->cols != m->count)
    return fail (c, ERR_PARSE, "%s is %dx%d but its data has %d values",
        m->name, m->rows, m->cols, m->count);
  return TRUE;
}

static gboolean
validate (Ctx * c)
{
  const Matrix *k = &c->cam, *d = &c->dist;
  gint i;

  if (k->name == NULL)
    return fail (c, ERR_PARSE, "no camera_matrix (or cameraMatrix) node");
  if (!check_shape (c, k))
    return FALSE;
  if (k->count != 9)
    return fail (c, ERR_PARSE, "%s must have 9 values (3x3), got %d",
        k->name, k->count);
  if (!(k->v[0] > 0) || !(k->v[4] > 0))
    return fail (c, ERR_PARSE, "%s: fx and fy must be positive (got %g, %g)",
        k->name, k->v[0], k->v[4]);
  for (i = 3; i < 9; i++)
    if ((i == 3 || i >= 6) && k->v[i] != (i == 8))
      return fail (c, ERR_PARSE, "%s: element [%d] must be %d, got %g",
          k->name, i, i == 8, k->v[i]);

  if (c->have[S_FISHEYE] && c->scalar[S_FISHEYE] != 0)
    return fail (c, ERR_UNSUPPORTED, "fisheye_model is %d; the fisheye "
        "distortion model is not supported", c->scalar[S_FISHEYE]);
  if (d->name == NULL)
    return fail (c, ERR_PARSE, "no distortion_coefficients (or dist_coeffs, "
        "distCoeffs) node");
  if (!check_shape (c, d))
    return FALSE;
  if (d->count != 4 && d->count != 5 && d->count != 8 && d->count != 12
      && d->count != 14)
    return fail (c, ERR_PARSE, "%s must have 4, 5, 8, 12 or 14 values, got %d",
        d->name, d->count);
  for (i = 5; i < d->count; i++)
    if (d->v[i] != 0)
      return fail (c, ERR_UNSUPPORTED, "%s: the %s distortion model is not "
          "supported (coefficient %d is %g); only k1 k2 p1 p2 [k3] are",
          d->name, i < 8 ? "rational (k4 k5 k6)" : i < 12 ?
          "thin-prism (s1..s4)" : "tilt (tauX tauY)", i, d->v[i]);
  return TRUE;
}

/* @text must have a NUL at text[len]. */
static gboolean
parse_terminated (const gchar * text, gsize len, const gchar * src,
    GstCoCalibration * calib, GError ** error)
{
  const gchar *p, *end = text + len;
  Ctx c;

  memset (&c, 0, sizeof (c));
  c.src = src;
  c.error = error;
  c.cam.rows = c.cam.cols = c.dist.rows = c.dist.cols = -1;

  if (len >= 3 && memcmp (text, "\xEF\xBB\xBF", 3) == 0)
    text += 3;
  for (p = text; p < end && g_ascii_isspace (*p); p++);
  if (p == end)
    return fail (&c, ERR_PARSE, "empty calibration data");
  if (*p == '{')
    return fail (&c, ERR_UNSUPPORTED, "JSON files are not supported");
  if (!(*p == '<' ? parse_xml (&c, p, end) : parse_yaml (&c, text, end))
      || !validate (&c))
    return FALSE;

  calib->fx = c.cam.v[0];
  calib->cx = c.cam.v[2];
  calib->fy = c.cam.v[4];
  calib->cy = c.cam.v[5];
  calib->k1 = c.dist.v[0];
  calib->k2 = c.dist.v[1];
  calib->p1 = c.dist.v[2];
  calib->p2 = c.dist.v[3];
  calib->k3 = c.dist.count > 4 ? c.dist.v[4] : 0.0;
  calib->image_width = c.scalar[S_WIDTH];
  calib->image_height = c.scalar[S_HEIGHT];
  return TRUE;
}

gboolean
gst_co_calibration_parse (const gchar * text, gsize len,
    GstCoCalibration * calib, GError ** error)
{
  gchar *copy;
  gboolean ok;

  g_return_val_if_fail (text != NULL || len == 0, FALSE);
  g_return_val_if_fail (calib != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  copy = g_malloc (len + 1);
  if (len > 0)
    memcpy (copy, text, len);
  copy[len] = '\0';
  ok = parse_terminated (copy, len, NULL, calib, error);
  g_free (copy);
  return ok;
}

gboolean
gst_co_calibration_load (const gchar * path, GstCoCalibration * calib,
    GError ** error)
{
  gchar *name, *buf;
  gboolean ok = FALSE;
  gsize n = 0;
  FILE *f;
  int err = 0;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (calib != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  name = g_filename_display_name (path);
  buf = g_malloc (MAX_FILE_SIZE + 1);
  if ((f = g_fopen (path, "rb")) != NULL) {
    /* one byte past the limit catches big files and endless devices */
    n = fread (buf, 1, MAX_FILE_SIZE + 1, f);
    err = ferror (f) ? (errno ? errno : EIO) : 0;
    fclose (f);
  } else {
    err = errno;
  }
  if (err != 0 || n > MAX_FILE_SIZE) {
    g_set_error (error, GST_CO_CALIBRATION_ERROR, ERR_READ, "%s: %s", name,
        err != 0 ? g_strerror (err) : "file is larger than 1 MiB");
  } else {
    buf[n] = '\0';
    ok = parse_terminated (buf, n, name, calib, error);
  }
  g_free (buf);
  g_free (name);
  return ok;
}
