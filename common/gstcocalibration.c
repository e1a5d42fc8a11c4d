/* cudaoptics — LGPL-2.1-or-later */

/* Reads the camera matrix and distortion vector from the YAML or XML that
 * cv::FileStorage writes; only what OpenCV's own writer emits is understood. */

#include "gstcocalibration.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILE_SIZE (1024 * 1024)
#define MAX_VALUES 16

#define ERR_READ GST_CO_CALIBRATION_ERROR_READ
#define ERR_PARSE GST_CO_CALIBRATION_ERROR_PARSE
#define ERR_UNSUPPORTED GST_CO_CALIBRATION_ERROR_UNSUPPORTED

/* deep enough for any cv::FileStorage output, shallow enough for a stack */
#define MAX_XML_DEPTH 32
#define MAX_MODEL_NAME 32

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
  Matrix mat[2];                /* camera matrix, distortion vector */
  Matrix *cur;                  /* the matrix whose fields come next */
  gint scalar[N_SCALARS];       /* -1 when not given */
  gchar model[MAX_MODEL_NAME + 1];      /* distortion_model; "" when absent */
  GError **error;
} Ctx;

/* the first two name the camera matrix, the others the distortion vector */
static const gchar *const matrix_names[] = { "camera_matrix", "cameraMatrix",
  "distortion_coefficients", "dist_coeffs", "distCoeffs", NULL
};

/* fisheye_model matters because its 4 coefficients are not k1 k2 p1 p2 */
static const gchar *const scalar_names[] = { "image_width", "image_height",
  "fisheye_model", NULL
};

/* ROS camera_info names the model; these two are k1 k2 p1 p2 k3 [k4 k5 k6],
 * and validate() refuses a non-zero coefficient past k3 */
static const gchar *const brown_conrady_models[] = { "plumb_bob",
  "rational_polynomial", NULL
};

/* gst-indent mangles a prototype with an attribute and splits the dashed
 * quark name: keep both out of its reach */
/* *INDENT-OFF* */
static gboolean fail (Ctx * c, gint code, const gchar * fmt, ...)
    G_GNUC_PRINTF (3, 4);

G_DEFINE_QUARK (gst-co-calibration-error-quark, gst_co_calibration_error)
/* *INDENT-ON* */

static gboolean
fail (Ctx * c, gint code, const gchar * fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  g_propagate_error (c->error, g_error_new_valist (GST_CO_CALIBRATION_ERROR,
          code, fmt, ap));
  va_end (ap);
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

/* Bytes of the file quoted in a message: GError messages must be UTF-8
 * (they reach bus messages and Python), a file's bytes need not be. */
static gchar *
quote_bytes (const gchar * b, gsize len)
{
  gchar *raw = g_strndup (b, len), *q = g_strescape (raw, NULL);

  g_free (raw);
  return q;
}

/* A name given as a plain or quoted scalar, e.g. distortion_model. */
static gboolean
read_word (Ctx * c, const gchar * key, const gchar * b, const gchar * e,
    gchar * out, gsize size)
{
  while (b < e && g_ascii_isspace (*b))
    b++;
  while (e > b && g_ascii_isspace (e[-1]))
    e--;
  if (e - b >= 2 && (*b == '"' || *b == '\'') && e[-1] == *b) {
    b++;
    e--;
  }
  if (b == e || (gsize) (e - b) >= size)
    return fail (c, ERR_PARSE, "%s: expected a name of 1 to %d characters",
        key, (gint) size - 1);
  memcpy (out, b, e - b);
  out[e - b] = '\0';
  return TRUE;
}

/* A YAML key or XML element with value [@b, @e): @level 0 is a top-level
 * node, 1 a field of the one before. @list is a YAML "node: [ ... ]". The
 * first node of a kind wins, as with cv::FileStorage lookups. */
static gboolean
node (Ctx * c, gint level, const gchar * key, gsize klen, const gchar * b,
    const gchar * e, gboolean list)
{
  Matrix *m = c->cur;
  gint i;

  if (level == 0) {
    c->cur = NULL;
    if ((i = find_name (scalar_names, key, klen)) >= 0 && c->scalar[i] < 0)
      return read_int (c, scalar_names[i], NULL, b, e, &c->scalar[i]);
    if (is_word (key, klen, "distortion_model") && c->model[0] == '\0')
      return read_word (c, "distortion_model", b, e, c->model,
          sizeof (c->model));
    if ((i = find_name (matrix_names, key, klen)) < 0)
      return TRUE;
    m = &c->mat[i < 2 ? 0 : 1];
    if (m->name != NULL)
      return TRUE;
    m->name = matrix_names[i];
    if (!list) {
      c->cur = m;
      return TRUE;
    }
  } else if (level != 1 || m == NULL) {
    return TRUE;
  }
  if (is_word (key, klen, "rows"))
    return read_int (c, m->name, "rows", b, e, &m->rows);
  if (is_word (key, klen, "cols"))
    return read_int (c, m->name, "cols", b, e, &m->cols);
  if (level == 0 || is_word (key, klen, "data"))
    return read_numbers (c, m->name, NULL, b, e, m->v, MAX_VALUES, &m->count);
  return TRUE;
}

/* @p is on a '[' or '{'; returns the position after its match, or NULL when
 * the text ends first. */
static const gchar *
skip_flow (const gchar * p, const gchar * end)
{
  gint depth = 0;

  while (p < end) {
    gchar ch = *p++;

    if (ch == '"' || ch == '\'') {
      while (p < end && *p != ch)
        p += (ch == '"' && *p == '\\' && p + 1 < end) ? 2 : 1;
      p++;
    } else if (ch == '[' || ch == '{') {
      depth++;
    } else if ((ch == ']' || ch == '}') && --depth == 0) {
      return p;
    }
  }
  return NULL;
}

static gboolean
parse_yaml (Ctx * c, const gchar * p, const gchar * end)
{
  gint top = -1, child = -1;

  while (p < end) {
    const gchar *key, *b, *e = NULL;
    gboolean list = FALSE;
    gint ind = 0, level;
    gsize klen;

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
    top = top < 0 ? ind : top;
    child = ind <= top ? -1 : child < 0 ? ind : child;
    level = ind <= top ? 0 : ind == child ? 1 : 2;

    for (b = p = p + 1; b < end && (*b == ' ' || *b == '\t'); b++);
    if (b < end && (*b == '[' || *b == '{')) {
      if ((p = skip_flow (b, end)) == NULL)
        return fail (c, ERR_PARSE, "%s%s%.*s: unterminated %c",
            level == 1 && c->cur ? c->cur->name : "",
            level == 1 && c->cur ? "." : "", (gint) klen, key, *b);
      list = (*b++ == '[');
      e = p - 1;
    }
    for (; p < end && *p != '\n'; p++);
    if (e == NULL)              /* a plain scalar ends at a " #" comment */
      for (e = b; e < p && !(*e == '#' && g_ascii_isspace (e[-1])); e++);
    if (!node (c, level, key, klen, b, e, list))
      return FALSE;
  }
  return TRUE;
}

/* Element content is taken up to the next '<', which is all a leaf has.
 * Every closing tag must name the element it closes. */
static gboolean
parse_xml (Ctx * c, const gchar * p, const gchar * end)
{
  const gchar *lt, *s, *ne, *e;
  const gchar *open[MAX_XML_DEPTH];
  gsize open_len[MAX_XML_DEPTH];
  gboolean root = FALSE;
  gint depth = 0;

  while ((lt = memchr (p, '<', end - p)) != NULL) {
    gboolean closing, empty;
    gchar q = 0;

    p = lt + 1;
    if (p < end && (*p == '?' || *p == '!')) {
      s = (end - p >= 3 && memcmp (p, "!--", 3) == 0) ? "-->" : ">";
      if ((p = g_strstr_len (p, end - p, s)) == NULL)
        break;
      continue;
    }
    if ((closing = (p < end && *p == '/')))
      p++;
    for (s = p; p < end && !g_ascii_isspace (*p) && *p != '>' && *p != '/';
        p++);
    for (ne = p; p < end && (q || (*p != '>' && *p != '<')); p++)
      if (*p == '"' || *p == '\'')
        q = q == 0 ? *p : (q == *p ? 0 : q);
    if (ne == s || p >= end || *p != '>')
      break;
    if (closing) {
      if (depth == 0 || open_len[depth - 1] != (gsize) (ne - s) ||
          memcmp (open[depth - 1], s, ne - s) != 0) {
        gchar *closer = quote_bytes (s, ne - s);
        gchar *opener = depth ? quote_bytes (open[depth - 1],
            open_len[depth - 1]) : NULL;

        fail (c, ERR_PARSE, "</%s> closes %s%s%s", closer, depth ? "<" :
            "no element", depth ? opener : "", depth ? ">" : "");
        g_free (closer);
        g_free (opener);
        return FALSE;
      }
      depth--;
      continue;
    }
    if (depth == 0 && (root || !is_word (s, ne - s, "opencv_storage")))
      return fail (c, ERR_PARSE, "root element is not one <opencv_storage>");
    root = TRUE;
    empty = p[-1] == '/';
    for (e = p + 1; !empty && e < end && *e != '<'; e++);
    if (!node (c, depth - 1, s, ne - s, p + 1, e, FALSE))
      return FALSE;
    if (!empty) {
      if (depth == MAX_XML_DEPTH)
        return fail (c, ERR_PARSE, "XML nested deeper than %d elements",
            MAX_XML_DEPTH);
      open[depth] = s;
      open_len[depth++] = ne - s;
    }
  }
  if (lt != NULL || depth != 0 || !root)
    return fail (c, ERR_PARSE, "malformed or truncated XML");
  return TRUE;
}

static gboolean
validate (Ctx * c)
{
  const Matrix *k = &c->mat[0], *d = &c->mat[1], *m;
  gint i;

  for (m = c->mat; m < c->mat + 2; m++) {
    if (m->name == NULL)
      return fail (c, ERR_PARSE, "no %s node", m == k ?
          "camera_matrix (or cameraMatrix)" :
          "distortion_coefficients (or dist_coeffs, distCoeffs)");
    if (m->rows >= 0 && m->cols >= 0 && (gint64) m->rows * m->cols != m->count)
      return fail (c, ERR_PARSE, "%s is %dx%d but its data has %d values",
          m->name, m->rows, m->cols, m->count);
  }
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
  /* finite but absurd values would turn every pixel into the border */
  for (i = 0; i < 4; i++) {
    static const gchar *const what[] = { "fx", "fy", "cx", "cy" };
    gdouble v = k->v[i == 0 ? 0 : i == 1 ? 4 : i == 2 ? 2 : 5];
    gdouble lo = i < 2 ? GST_CO_CALIBRATION_MIN_FOCAL : -1.0;

    if (!(v >= lo && v <= GST_CO_CALIBRATION_MAX_PIXELS))
      return fail (c, ERR_PARSE, "%s: %s is %g; it must lie between %g and "
          "%g pixels", k->name, what[i], v, lo, GST_CO_CALIBRATION_MAX_PIXELS);
  }
  for (i = 0; i < 2; i++) {
    gint v = c->scalar[i == 0 ? S_WIDTH : S_HEIGHT];

    if (v == 0 || v > GST_CO_CALIBRATION_MAX_SIZE)
      return fail (c, ERR_PARSE, "%s is %d; it must lie between 1 and %d",
          scalar_names[i], v, GST_CO_CALIBRATION_MAX_SIZE);
  }

  if (c->scalar[S_FISHEYE] > 0)
    return fail (c, ERR_UNSUPPORTED, "fisheye_model is %d; the fisheye "
        "distortion model is not supported", c->scalar[S_FISHEYE]);
  if (c->model[0] != '\0' && find_name (brown_conrady_models, c->model,
          strlen (c->model)) < 0) {
    gchar *name = quote_bytes (c->model, strlen (c->model));

    fail (c, ERR_UNSUPPORTED, "distortion_model is \"%s\"; only plumb_bob "
        "(k1 k2 p1 p2 k3) is supported", name);
    g_free (name);
    return FALSE;
  }
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
  for (i = 0; i < MIN (d->count, 5); i++)
    if (fabs (d->v[i]) > GST_CO_CALIBRATION_MAX_COEFF)
      return fail (c, ERR_PARSE, "%s: coefficient %d is %g; it must lie "
          "between %g and %g", d->name, i, d->v[i],
          -GST_CO_CALIBRATION_MAX_COEFF, GST_CO_CALIBRATION_MAX_COEFF);
  return TRUE;
}

gboolean
gst_co_calibration_parse (const gchar * text, gsize len,
    GstCoCalibration * calib, GError ** error)
{
  const gchar *p, *s, *end;
  gchar *buf;
  gboolean ok;
  Ctx c;
  const gdouble *k = c.mat[0].v, *d = c.mat[1].v;

  g_return_val_if_fail (text != NULL || len == 0, FALSE);
  g_return_val_if_fail (calib != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  memset (&c, 0, sizeof (c));
  c.error = error;
  c.mat[0].rows = c.mat[0].cols = c.mat[1].rows = c.mat[1].cols = -1;
  c.scalar[S_WIDTH] = c.scalar[S_HEIGHT] = c.scalar[S_FISHEYE] = -1;

  /* a NUL-terminated copy keeps g_ascii_strtod inside the caller's @len */
  buf = g_malloc (len + 1);
  if (len > 0)
    memcpy (buf, text, len);
  buf[len] = '\0';
  end = buf + len;
  p = (len >= 3 && memcmp (buf, "\xEF\xBB\xBF", 3) == 0) ? buf + 3 : buf;
  for (s = p; s < end && g_ascii_isspace (*s); s++);
  if (s == end)
    ok = fail (&c, ERR_PARSE, "empty calibration data");
  else if (*s == '{')
    ok = fail (&c, ERR_UNSUPPORTED, "JSON files are not supported");
  else
    ok = (*s == '<' ? parse_xml (&c, s, end) : parse_yaml (&c, p, end))
        && validate (&c);
  g_free (buf);
  if (!ok)
    return FALSE;

  /* k3 is still 0 when only 4 coefficients were given */
  co_camera_init (calib, k[0], k[4], k[2], k[5]);
  memcpy (calib->dist, d, sizeof (gdouble) * MIN (c.mat[1].count,
          CO_CAMERA_N_DIST));
  calib->image_width = MAX (c.scalar[S_WIDTH], 0);
  calib->image_height = MAX (c.scalar[S_HEIGHT], 0);
  return TRUE;
}

gboolean
gst_co_calibration_load (const gchar * path, GstCoCalibration * calib,
    GError ** error)
{
  const gchar *why = NULL;
  gchar *name, *buf;
  gboolean ok = FALSE;
  GStatBuf st;
  gsize n = 0;
  FILE *f = NULL;
  int fd, err = 0;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (calib != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  name = g_filename_display_name (path);
  buf = g_malloc (MAX_FILE_SIZE + 1);
  /* non-blocking, so that a FIFO or a device cannot hold the state change:
   * anything but a regular file is refused before it is read */
  if ((fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0)) < 0)
    err = errno;
  else if (fstat (fd, &st) != 0)
    err = errno;
  else if (!S_ISREG (st.st_mode))
    why = "not a regular file";
  else if ((f = fdopen (fd, "rb")) == NULL)
    err = errno;
  if (f != NULL) {
    /* one byte past the limit catches a file that grows while it is read */
    n = fread (buf, 1, MAX_FILE_SIZE + 1, f);
    err = ferror (f) ? (errno ? errno : EIO) : 0;
    fclose (f);
  } else if (fd >= 0) {
    close (fd);
  }
  if (why == NULL && err == 0 && n > MAX_FILE_SIZE)
    why = "file is larger than 1 MiB";
  if (why != NULL || err != 0)
    g_set_error (error, GST_CO_CALIBRATION_ERROR, ERR_READ, "%s: %s", name,
        why != NULL ? why : g_strerror (err));
  else if (!(ok = gst_co_calibration_parse (buf, n, calib, error)))
    g_prefix_error (error, "%s: ", name);
  g_free (buf);
  g_free (name);
  return ok;
}
