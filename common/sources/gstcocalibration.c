/* cudaoptics — LGPL-2.1-or-later */

/* Reads a camera's calibration from the files people already have:
 * OpenCV FileStorage YAML or XML (one camera, a fisheye, or a stereo pair's
 * M1 D1 R1 P1 / M2 D2 R2 P2), ROS camera_info YAML and Kalibr camchain
 * YAML, and the same names in JSON (numpy's and json.dump's nested lists
 * of rows included).  YAML and JSON go through libyaml (JSON is YAML's flow
 * syntax) and XML through libxml2, all into one tree (a yaml_document_t),
 * which the same code then reads whatever the syntax was. */

#include "gstcocalibration.h"
#include "gstcofile.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#define MAX_VALUES 16
/* deep enough for any calibration, shallow enough for a stack */
#define MAX_XML_DEPTH 32

#define ERR_READ GST_CO_CALIBRATION_ERROR_READ
#define ERR_PARSE GST_CO_CALIBRATION_ERROR_PARSE
#define ERR_UNSUPPORTED GST_CO_CALIBRATION_ERROR_UNSUPPORTED

typedef struct
{
  yaml_document_t doc;
  yaml_node_t *scope;           /* the camera's mapping */
  const gchar *suffix;          /* "1"/"2" in a stereo FileStorage, else "" */
  /* a .json file: its syntax errors name JSON, which its author wrote,
   * not the YAML libyaml reads it as */
  gboolean json;
  GError **error;
} Ctx;

/* gst-indent mangles a prototype with an attribute and splits the dashed
 * quark name: keep both out of its reach */
/* *INDENT-OFF* */
static gboolean fail (GError ** error, gint code, const gchar * fmt, ...)
    G_GNUC_PRINTF (3, 4);

G_DEFINE_QUARK (gst-co-calibration-error-quark, gst_co_calibration_error)
/* *INDENT-ON* */

static gboolean
fail (GError ** error, gint code, const gchar * fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  g_propagate_error (error, g_error_new_valist (GST_CO_CALIBRATION_ERROR,
          code, fmt, ap));
  va_end (ap);
  return FALSE;
}

/* ---- the tree ---- */

static const gchar *
scalar (yaml_node_t * n)
{
  return n && n->type == YAML_SCALAR_NODE ?
      (const gchar *) n->data.scalar.value : NULL;
}

/* The value of @map's first key @key (top level only), or NULL. */
static yaml_node_t *
get (yaml_document_t * d, yaml_node_t * map, const gchar * key)
{
  yaml_node_pair_t *p;

  if (!map || map->type != YAML_MAPPING_NODE)
    return NULL;
  for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
      p++) {
    const gchar *k = scalar (yaml_document_get_node (d, p->key));
    if (k && strcmp (k, key) == 0)
      return yaml_document_get_node (d, p->value);
  }
  return NULL;
}

/* The first of @keys (with the stereo suffix appended) that @c's camera
 * has; *name says which. */
static yaml_node_t *
find (Ctx * c, const gchar * const *keys, gboolean suffixed,
    const gchar ** name)
{
  gchar buf[64];
  gint i;

  for (i = 0; keys[i]; i++) {
    yaml_node_t *n;
    if (suffixed)
      g_snprintf (buf, sizeof buf, "%s%s", keys[i], c->suffix);
    n = get (&c->doc, c->scope, suffixed ? buf : keys[i]);
    if (n) {
      *name = g_intern_string (suffixed ? buf : keys[i]);
      return n;
    }
  }
  return NULL;
}

/* One number, the whole of @s (blanks around it allowed), finite. */
static gboolean
number (const gchar * s, gdouble * v)
{
  gchar *end;

  while (g_ascii_isspace (*s))
    s++;
  if (!*s)
    return FALSE;
  *v = g_ascii_strtod (s, &end);
  while (g_ascii_isspace (*end))
    end++;
  return *end == '\0' && isfinite (*v);
}

static gboolean
integer (Ctx * c, yaml_node_t * n, const gchar * name, gint lo, gint hi,
    gint * out)
{
  const gchar *s = scalar (n);
  gdouble v;

  if (!s || !number (s, &v) || v != floor (v))
    return fail (c->error, ERR_PARSE, "%s is not an integer", name);
  if (v < lo || v > hi)
    return fail (c->error, ERR_PARSE, "%s is %.17g; it must lie between %d "
        "and %d", name, v, lo, hi);
  *out = (gint) v;
  return TRUE;
}

/* One row of numbers of @name from the items of @seq into v[*count...];
 * @row is -1 for a flat list, else the row's index (for the message). */
static gboolean
row_numbers (Ctx * c, yaml_node_t * seq, const gchar * name, gint row,
    gdouble * v, gint * count)
{
  yaml_node_item_t *i;
  gint col = 0;

  for (i = seq->data.sequence.items.start; i < seq->data.sequence.items.top;
      i++, col++) {
    yaml_node_t *item = yaml_document_get_node (&c->doc, *i);
    const gchar *s = scalar (item);
    if (*count == MAX_VALUES)
      return fail (c->error, ERR_PARSE, "%s has more than %d values", name,
          MAX_VALUES);
    if (item && item->type == YAML_SEQUENCE_NODE)
      return fail (c->error, ERR_PARSE, "%s mixes numbers and lists: a "
          "matrix is a list of numbers or a list of rows of numbers", name);
    if (!s || !number (s, &v[*count])) {
      if (row < 0)
        return fail (c->error, ERR_PARSE, "%s: value %d is not a finite "
            "number", name, *count);
      return fail (c->error, ERR_PARSE, "%s: row %d, value %d is not a "
          "finite number", name, row, col);
    }
    (*count)++;
  }
  return TRUE;
}

/* A list of rows (JSON's and numpy's tolist()'s matrices): the rows read
 * one after the other, as OpenCV's flat data is; *rows and *cols its
 * shape.  Rows of different lengths are a mistake to name, not to guess
 * around. */
static gboolean
nested_numbers (Ctx * c, yaml_node_t * data, const gchar * name,
    gdouble * v, gint * count, gint * rows, gint * cols)
{
  yaml_node_item_t *i;
  gint n = 0, len[MAX_VALUES] = { 0 };
  gboolean ragged = FALSE;

  for (i = data->data.sequence.items.start;
      i < data->data.sequence.items.top; i++, n++) {
    yaml_node_t *row = yaml_document_get_node (&c->doc, *i);
    gint before = *count;
    if (n == MAX_VALUES)
      return fail (c->error, ERR_PARSE, "%s has more than %d rows", name,
          MAX_VALUES);
    if (!row || row->type != YAML_SEQUENCE_NODE)
      return fail (c->error, ERR_PARSE, "%s mixes numbers and lists: a "
          "matrix is a list of numbers or a list of rows of numbers", name);
    if (!row_numbers (c, row, name, n, v, count))
      return FALSE;
    len[n] = *count - before;
    ragged |= len[n] != len[0];
  }
  if (ragged) {
    GString *s = g_string_new (NULL);
    gint r;
    for (r = 0; r < n; r++)
      g_string_append_printf (s, "%s%d", r == 0 ? "" : r == n - 1 ?
          " and " : ", ", len[r]);
    fail (c->error, ERR_PARSE, "%s: its rows have %s values; the rows of a "
        "matrix must all be the same length", name, s->str);
    g_string_free (s, TRUE);
    return FALSE;
  }
  if ((*rows >= 0 && *rows != n) || (*cols >= 0 && *cols != len[0])) {
    gchar *r = *rows >= 0 ? g_strdup_printf ("rows: %d", *rows) : NULL;
    gchar *k = *cols >= 0 ? g_strdup_printf ("cols: %d", *cols) : NULL;
    fail (c->error, ERR_PARSE, "%s has %s%s%s but its data is %d row%s of %d",
        name, r ? r : "", r && k ? ", " : "", k ? k : "", n, n == 1 ? "" : "s",
        len[0]);
    g_free (r);
    g_free (k);
    return FALSE;
  }
  *rows = n;
  *cols = len[0];
  return TRUE;
}

/* The numbers of @n: an OpenCV or ROS matrix (a mapping with data, and
 * rows and cols that must agree with it), a YAML or JSON list, a list of
 * rows, or blank-separated text (XML's <data>).  At most MAX_VALUES.
 * *rows and *cols are -1 where neither the file nor the rows say. */
static gboolean
numbers (Ctx * c, yaml_node_t * n, const gchar * name, gdouble * v,
    gint * count, gint * rows, gint * cols)
{
  yaml_node_t *data = n;

  *count = 0;
  *rows = *cols = -1;
  if (n->type == YAML_MAPPING_NODE) {
    yaml_node_t *r = get (&c->doc, n, "rows"), *k = get (&c->doc, n, "cols");
    gchar *what;
    gboolean ok = TRUE;
    data = get (&c->doc, n, "data");
    if (!data)
      return fail (c->error, ERR_PARSE, "%s has no data", name);
    what = g_strdup_printf ("%s's rows", name);
    if (r)
      ok = integer (c, r, what, 0, MAX_VALUES, rows);
    g_free (what);
    what = g_strdup_printf ("%s's cols", name);
    if (ok && k)
      ok = integer (c, k, what, 0, MAX_VALUES, cols);
    g_free (what);
    if (!ok)
      return FALSE;
  }
  if (data->type == YAML_SEQUENCE_NODE) {
    yaml_node_t *first = data->data.sequence.items.start <
        data->data.sequence.items.top ? yaml_document_get_node (&c->doc,
        *data->data.sequence.items.start) : NULL;
    if (first && first->type == YAML_SEQUENCE_NODE)
      return nested_numbers (c, data, name, v, count, rows, cols);
    if (!row_numbers (c, data, name, -1, v, count))
      return FALSE;
  } else if (data->type == YAML_SCALAR_NODE) {
    gchar **w = g_strsplit_set (scalar (data), " \t\r\n", -1), **p;
    gboolean ok = TRUE;
    for (p = w; ok && *p; p++) {
      if (!**p)
        continue;
      if (*count == MAX_VALUES)
        ok = fail (c->error, ERR_PARSE, "%s has more than %d values", name,
            MAX_VALUES);
      else if (!number (*p, &v[*count]))
        ok = fail (c->error, ERR_PARSE, "%s: value %d is not a finite "
            "number", name, *count);
      else
        (*count)++;
    }
    g_strfreev (w);
    if (!ok)
      return FALSE;
  } else {
    return fail (c->error, ERR_PARSE, "%s: its data is not a list of numbers",
        name);
  }
  if (*rows >= 0 && *cols >= 0 && *rows * *cols != *count)
    return fail (c->error, ERR_PARSE, "%s is %dx%d but its data has %d "
        "values", name, *rows, *cols, *count);
  return TRUE;
}

/* ---- YAML and XML into the tree ---- */

static gboolean
load_yaml (Ctx * c, const gchar * text, gsize len)
{
  yaml_parser_t parser;
  gchar *buf = g_strndup (text, len);
  gboolean ok;

  /* cv::FileStorage's first line, "%YAML:1.0", is not YAML: blank it (the
   * line numbers of errors stay right) */
  if (g_str_has_prefix (buf, "%YAML:")) {
    gchar *e = strchr (buf, '\n');
    memset (buf, ' ', e ? (gsize) (e - buf) : strlen (buf));
  }
  yaml_parser_initialize (&parser);
  yaml_parser_set_input_string (&parser, (const guchar *) buf, strlen (buf));
  ok = yaml_parser_load (&parser, &c->doc) != 0;
  if (!ok) {
    /* the parsers' messages may quote the file's bytes: made UTF-8 */
    gchar *problem = g_utf8_make_valid (parser.problem ? parser.problem :
        "not readable", -1);
    gchar *context = g_utf8_make_valid (parser.context ? parser.context : "",
        -1);
    fail (c->error, ERR_PARSE, "%s, line %lu, column %lu: %s%s%s",
        c->json ? "JSON" : "YAML", (gulong) parser.problem_mark.line + 1,
        (gulong) parser.problem_mark.column + 1, problem, *context ? " " : "",
        context);
    g_free (problem);
    g_free (context);
  }
  else if (!yaml_document_get_root_node (&c->doc)) {
    yaml_document_delete (&c->doc);
    ok = fail (c->error, ERR_PARSE, "empty calibration data");
  }
  yaml_parser_delete (&parser);
  g_free (buf);
  return ok;
}

/* @e as a node of @c's tree: an element with element children a mapping
 * (their names the keys), any other its text.  0 on failure (posted). */
static int
xml_node (Ctx * c, xmlNode * e, gint depth)
{
  xmlNode *k;
  gboolean parent = FALSE;
  int id;

  if (depth > MAX_XML_DEPTH)
    return fail (c->error, ERR_PARSE, "XML nested deeper than %d elements",
        MAX_XML_DEPTH);
  for (k = e->children; k; k = k->next)
    parent |= k->type == XML_ELEMENT_NODE;
  if (!parent) {
    xmlChar *t = xmlNodeGetContent (e);
    id = yaml_document_add_scalar (&c->doc, NULL, t ? t : (xmlChar *) "", -1,
        YAML_PLAIN_SCALAR_STYLE);
    xmlFree (t);
    return id;
  }
  id = yaml_document_add_mapping (&c->doc, NULL, YAML_BLOCK_MAPPING_STYLE);
  for (k = e->children; id && k; k = k->next) {
    int key, value;
    if (k->type != XML_ELEMENT_NODE)
      continue;
    key = yaml_document_add_scalar (&c->doc, NULL, (yaml_char_t *) k->name,
        -1, YAML_PLAIN_SCALAR_STYLE);
    value = xml_node (c, k, depth + 1);
    if (!key || !value || !yaml_document_append_mapping_pair (&c->doc, id,
            key, value))
      return 0;
  }
  return id;
}

static gpointer
init_libxml (gpointer data)
{
  xmlInitParser ();
  return NULL;
}

static gboolean
load_xml (Ctx * c, const gchar * text, gsize len)
{
  static GOnce once = G_ONCE_INIT;
  xmlParserCtxtPtr ctxt;
  xmlDocPtr x;
  gboolean ok = FALSE;

  g_once (&once, init_libxml, NULL);
  if (len > G_MAXINT)
    return fail (c->error, ERR_PARSE, "XML too large");
  ctxt = xmlNewParserCtxt ();
  if (!ctxt)
    return fail (c->error, ERR_PARSE, "out of memory reading XML");
  /* no network, no entity substitution, no DTD loading: data only */
  x = xmlCtxtReadMemory (ctxt, text, (int) len, NULL, NULL, XML_PARSE_NONET |
      XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!x) {
    xmlErrorPtr e = xmlCtxtGetLastError (ctxt);
    gchar *m = g_utf8_make_valid (e && e->message ? e->message :
        "not readable", -1);
    fail (c->error, ERR_PARSE, "XML, line %d: %s", e ? e->line : 0,
        g_strchomp (m));
    g_free (m);
  } else if (!xmlDocGetRootElement (x)) {
    fail (c->error, ERR_PARSE, "XML without an element");
  } else {
    yaml_document_initialize (&c->doc, NULL, NULL, NULL, 1, 1);
    ok = xml_node (c, xmlDocGetRootElement (x), 0) != 0;
    if (!ok) {
      if (c->error && !*c->error)
        fail (c->error, ERR_PARSE, "out of memory reading XML");
      yaml_document_delete (&c->doc);
    }
  }
  if (x)
    xmlFreeDoc (x);
  xmlFreeParserCtxt (ctxt);
  return ok;
}

/* ---- which camera ---- */

/* @camera as an index: "" or NULL the first, "left" 0, "right" 1, "camN"
 * N; -1 when it is none of these. */
static gint
camera_index (const gchar * camera)
{
  gchar *end;
  guint64 v;

  if (!camera || !*camera || strcmp (camera, "left") == 0)
    return 0;
  if (strcmp (camera, "right") == 0)
    return 1;
  if (!g_str_has_prefix (camera, "cam") || !g_ascii_isdigit (camera[3]))
    return -1;
  v = g_ascii_strtoull (camera + 3, &end, 10);
  return *end || v > 64 ? -1 : (gint) v;
}

/* Points @c at the camera @camera names: a Kalibr camchain's camN, a
 * stereo FileStorage's suffix 1 or 2, or the one camera of the file. */
static gboolean
select_camera (Ctx * c, const gchar * camera)
{
  yaml_node_t *root = yaml_document_get_root_node (&c->doc);
  gint i = camera_index (camera);
  gchar key[16];

  if (!root || root->type != YAML_MAPPING_NODE)
    return fail (c->error, ERR_PARSE, "the calibration is not a mapping of "
        "names to values");
  if (i < 0) {
    gchar *q = g_strescape (camera, NULL);
    fail (c->error, ERR_PARSE, "camera \"%s\": expected left, right or camN",
        q);
    g_free (q);
    return FALSE;
  }
  c->suffix = "";
  c->scope = root;
  if (get (&c->doc, root, "cam0")) {
    g_snprintf (key, sizeof key, "cam%d", i);
    c->scope = get (&c->doc, root, key);
    if (!c->scope || c->scope->type != YAML_MAPPING_NODE)
      return fail (c->error, ERR_PARSE, "Kalibr camchain: no camera %s",
          key);
    return TRUE;
  }
  /* a stereo file, or the right camera's half of one */
  if (get (&c->doc, root, "M1") || get (&c->doc, root, "D1") ||
      get (&c->doc, root, "R1") || get (&c->doc, root, "P1") ||
      get (&c->doc, root, "M2") || get (&c->doc, root, "D2") ||
      get (&c->doc, root, "R2") || get (&c->doc, root, "P2")) {
    if (i > 1)
      return fail (c->error, ERR_PARSE, "stereo calibration: camera %s; it "
          "has left (M1 D1 R1 P1) and right (M2 D2 R2 P2)", camera);
    c->suffix = i ? "2" : "1";
    return TRUE;
  }
  if (i > 0)
    return fail (c->error, ERR_PARSE, "camera %s: the file describes one "
        "camera", camera);
  return TRUE;
}

/* ---- the camera ---- */

/* mtx and dist: what cv2.calibrateCamera's results are called in OpenCV's
 * Python tutorial, and so in the JSON and YAML files scripts dump them to */
static const gchar *const k_names[] = { "camera_matrix", "cameraMatrix", "K",
  "mtx", NULL
};
static const gchar *const d_names[] = { "distortion_coefficients",
  "dist_coeffs", "distCoeffs", "D", "distortion_coeffs", "dist", NULL
};
/* a stereo FileStorage's, suffixed 1 or 2 */
static const gchar *const m_names[] = { "M", "K", "cameraMatrix", NULL };
static const gchar *const ds_names[] = { "D", "distCoeffs", NULL };
static const gchar *const r_names[] = { "rectification_matrix", NULL };
static const gchar *const p_names[] = { "projection_matrix", NULL };
static const gchar *const rs_names[] = { "R", NULL };
static const gchar *const ps_names[] = { "P", NULL };

/* fx fy cx cy within the properties' ranges */
static gboolean
check_intrinsics (Ctx * c, const gchar * name, const gdouble k[4])
{
  static const gchar *const what[] = { "fx", "fy", "cx", "cy" };
  gint i;

  for (i = 0; i < 4; i++) {
    gdouble lo = i < 2 ? GST_CO_CALIBRATION_MIN_FOCAL : -1.0;
    if (!(k[i] >= lo && k[i] <= GST_CO_CALIBRATION_MAX_PIXELS))
      return fail (c->error, ERR_PARSE, "%s: %s is %g; it must lie between "
          "%g and %g pixels", name, what[i], k[i], lo,
          GST_CO_CALIBRATION_MAX_PIXELS);
  }
  return TRUE;
}

/* K from a 3x3 matrix, or Kalibr's intrinsics [fu fv pu pv] */
static gboolean
read_k (Ctx * c, gdouble k[4])
{
  const gchar *name;
  yaml_node_t *n = c->suffix[0] ? find (c, m_names, TRUE, &name) :
      find (c, k_names, FALSE, &name);
  gdouble v[MAX_VALUES];
  gint count, rows, cols, i;

  if (!n && !c->suffix[0] && (n = get (&c->doc, c->scope, "intrinsics"))) {
    if (!numbers (c, n, "intrinsics", v, &count, &rows, &cols))
      return FALSE;
    if (count != 4)
      return fail (c->error, ERR_PARSE, "intrinsics must have 4 values (fu "
          "fv pu pv), got %d", count);
    memcpy (k, v, sizeof (gdouble) * 4);
    return check_intrinsics (c, "intrinsics", k);
  }
  if (!n)
    return fail (c->error, ERR_PARSE, "no %s", c->suffix[0] ? (c->suffix[0]
            == '1' ? "M1 (or K1)" : "M2 (or K2)") : "camera_matrix (or "
        "cameraMatrix, K, mtx, intrinsics)");
  if (!numbers (c, n, name, v, &count, &rows, &cols))
    return FALSE;
  if (rows >= 0 && cols >= 0 && (rows != 3 || cols != 3))
    return fail (c->error, ERR_PARSE, "%s is %dx%d; it must be 3x3", name,
        rows, cols);
  if (count != 9 || (rows >= 0 && rows != 3))
    return fail (c->error, ERR_PARSE, "%s must have 9 values (3x3), got %d",
        name, count);
  for (i = 3; i < 9; i++)
    if ((i == 3 || i >= 6) && v[i] != (i == 8))
      return fail (c->error, ERR_PARSE, "%s: element [%d] must be %d, got %g",
          name, i, i == 8, v[i]);
  k[0] = v[0];
  k[1] = v[4];
  k[2] = v[2];
  k[3] = v[5];
  return check_intrinsics (c, name, k);
}

/* The distortion model the file names, as the camera's model:
 * CO_CAMERA_PINHOLE or CO_CAMERA_FISHEYE; *radtan for Kalibr's k1 k2 r1 r2
 * (OpenCV's order too). */
static gboolean
read_model (Ctx * c, gint * model)
{
  static const gchar *const pinhole[] = { "plumb_bob", "rational_polynomial",
    "radtan", "pinhole", NULL
  };
  static const gchar *const fisheye[] = { "equidistant", "fisheye",
    "kannala_brandt", NULL
  };
  const gchar *s = scalar (get (&c->doc, c->scope, "distortion_model"));
  const gchar *cm = scalar (get (&c->doc, c->scope, "camera_model"));
  yaml_node_t *fm = get (&c->doc, c->scope, "fisheye_model");
  gint i, f = 0;

  *model = CO_CAMERA_PINHOLE;
  if (cm && strcmp (cm, "pinhole") != 0) {
    gchar *q = g_strescape (cm, NULL);
    fail (c->error, ERR_UNSUPPORTED, "camera_model is \"%s\"; only pinhole "
        "cameras (with radtan or equidistant distortion) are supported", q);
    g_free (q);
    return FALSE;
  }
  if (fm && !integer (c, fm, "fisheye_model", 0, 1, &f))
    return FALSE;
  if (f)
    *model = CO_CAMERA_FISHEYE;
  if (get (&c->doc, c->scope, "distortion_model") && !s)
    return fail (c->error, ERR_PARSE, "distortion_model is not a name");
  if (!s)
    return TRUE;
  for (i = 0; pinhole[i]; i++)
    if (strcmp (s, pinhole[i]) == 0)
      return TRUE;
  for (i = 0; fisheye[i]; i++)
    if (strcmp (s, fisheye[i]) == 0) {
      *model = CO_CAMERA_FISHEYE;
      return TRUE;
    }
  {
    gchar *q = g_strescape (s, NULL);
    fail (c->error, ERR_UNSUPPORTED, "distortion_model is \"%s\"; known are "
        "plumb_bob, rational_polynomial, radtan (pinhole) and equidistant "
        "(fisheye)", q);
    g_free (q);
  }
  return FALSE;
}

static gboolean
read_dist (Ctx * c, gint model, gdouble dist[CO_CAMERA_N_DIST])
{
  const gchar *name = NULL;
  yaml_node_t *n = c->suffix[0] ? find (c, ds_names, TRUE, &name) :
      find (c, d_names, FALSE, &name);
  gdouble v[MAX_VALUES];
  gint count, rows, cols, i;

  if (!n)
    return fail (c->error, ERR_PARSE, "no %s", c->suffix[0] ?
        (c->suffix[0] == '1' ? "D1" : "D2") : "distortion_coefficients (or "
        "dist_coeffs, distCoeffs, D, distortion_coeffs, dist)");
  if (!numbers (c, n, name, v, &count, &rows, &cols))
    return FALSE;
  if (rows > 1 && cols > 1)
    return fail (c->error, ERR_PARSE, "%s is %dx%d; it must be one row or "
        "one column", name, rows, cols);
  for (i = 0; i < count; i++)
    if (fabs (v[i]) > GST_CO_CALIBRATION_MAX_COEFF)
      return fail (c->error, ERR_PARSE, "%s: coefficient %d is %g; it must "
          "lie between %g and %g", name, i, v[i],
          -GST_CO_CALIBRATION_MAX_COEFF, GST_CO_CALIBRATION_MAX_COEFF);
  memset (dist, 0, sizeof (gdouble) * CO_CAMERA_N_DIST);
  if (model == CO_CAMERA_FISHEYE) {
    /* four; a fifth (ROS writes one at times) only when zero */
    if (count < 4 || (count > 4 && (count != 5 || v[4] != 0)))
      return fail (c->error, ERR_PARSE, "%s: a fisheye (equidistant) camera "
          "has 4 coefficients (k1 k2 k3 k4), got %d", name, count);
    dist[CO_DIST_K1] = v[0];
    dist[CO_DIST_K2] = v[1];
    dist[CO_DIST_K3] = v[2];
    dist[CO_DIST_K4] = v[3];
    return TRUE;
  }
  if (count != 4 && count != 5 && count != 8 && count != 12 && count != 14)
    return fail (c->error, ERR_PARSE, "%s must have 4, 5, 8, 12 or 14 values, "
        "got %d", name, count);
  memcpy (dist, v, sizeof (gdouble) * count);
  return TRUE;
}

/* R (3x3, a rotation) and P (3x3 or 3x4, a projection) where the file has
 * them: rectification_matrix and projection_matrix, or a stereo file's
 * R1/P1, R2/P2. */
static gboolean
read_rectification (Ctx * c, CoCamera * cam)
{
  const gchar *rn = NULL, *pn = NULL;
  yaml_node_t *r = c->suffix[0] ? find (c, rs_names, TRUE, &rn) :
      find (c, r_names, FALSE, &rn);
  yaml_node_t *p = c->suffix[0] ? find (c, ps_names, TRUE, &pn) :
      find (c, p_names, FALSE, &pn);
  gdouble v[MAX_VALUES];
  gint count, rows, cols, i, j;

  if (r) {
    if (!numbers (c, r, rn, v, &count, &rows, &cols))
      return FALSE;
    if (rows >= 0 && cols >= 0 && (rows != 3 || cols != 3))
      return fail (c->error, ERR_PARSE, "%s is %dx%d; it must be 3x3", rn,
          rows, cols);
    if (count != 9)
      return fail (c->error, ERR_PARSE, "%s must have 9 values (3x3), got %d",
          rn, count);
    /* a rotation: R R^T = I */
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++) {
        gdouble d = v[i * 3] * v[j * 3] + v[i * 3 + 1] * v[j * 3 + 1] +
            v[i * 3 + 2] * v[j * 3 + 2] - (i == j);
        if (!(fabs (d) < 1e-3))
          return fail (c->error, ERR_PARSE, "%s is not a rotation (its rows "
              "are not orthonormal)", rn);
      }
    memcpy (cam->r, v, sizeof (gdouble) * 9);
  }
  if (p) {
    gdouble k[4];
    if (!numbers (c, p, pn, v, &count, &rows, &cols))
      return FALSE;
    /* read row by row below: 4x3 has the count of 3x4, not its layout */
    if (rows >= 0 && cols >= 0 && (rows != 3 || (cols != 3 && cols != 4)))
      return fail (c->error, ERR_PARSE, "%s is %dx%d; it must be 3x3 or 3x4",
          pn, rows, cols);
    if (count != 9 && count != 12)
      return fail (c->error, ERR_PARSE, "%s must have 9 or 12 values (3x3 "
          "or 3x4), got %d", pn, count);
    memset (cam->p, 0, sizeof cam->p);
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++)
        cam->p[i * 4 + j] = v[i * (count / 3) + j];
    if (count == 12)
      for (i = 0; i < 3; i++)
        cam->p[i * 4 + 3] = v[i * 4 + 3];
    if (cam->p[8] != 0 || cam->p[9] != 0 || cam->p[10] != 1)
      return fail (c->error, ERR_PARSE, "%s: its last row must be 0 0 1 "
          "(0)", pn);
    k[0] = cam->p[0];
    k[1] = cam->p[5];
    k[2] = cam->p[2];
    k[3] = cam->p[6];
    if (!check_intrinsics (c, pn, k))
      return FALSE;
  }
  return TRUE;
}

static gboolean
read_size (Ctx * c, CoCamera * cam)
{
  yaml_node_t *w = get (&c->doc, c->scope, "image_width");
  yaml_node_t *h = get (&c->doc, c->scope, "image_height");
  yaml_node_t *res = get (&c->doc, c->scope, "resolution");

  cam->image_width = cam->image_height = 0;
  if (res && !w && !h) {
    gdouble v[MAX_VALUES];
    gint count, rows, cols;
    if (!numbers (c, res, "resolution", v, &count, &rows, &cols))
      return FALSE;
    if (count != 2 || v[0] != floor (v[0]) || v[1] != floor (v[1]) ||
        v[0] < 1 || v[1] < 1 || v[0] > GST_CO_CALIBRATION_MAX_SIZE ||
        v[1] > GST_CO_CALIBRATION_MAX_SIZE)
      return fail (c->error, ERR_PARSE, "resolution must be two sizes "
          "between 1 and %d", GST_CO_CALIBRATION_MAX_SIZE);
    cam->image_width = (gint) v[0];
    cam->image_height = (gint) v[1];
    return TRUE;
  }
  return (!w || integer (c, w, "image_width", 1, GST_CO_CALIBRATION_MAX_SIZE,
          &cam->image_width)) && (!h || integer (c, h, "image_height", 1,
          GST_CO_CALIBRATION_MAX_SIZE, &cam->image_height));
}

static gboolean
read_camera (Ctx * c, const gchar * camera, CoCamera * out)
{
  gdouble k[4], dist[CO_CAMERA_N_DIST];
  gint model;
  CoCamera cam;

  if (!select_camera (c, camera) || !read_k (c, k) || !read_model (c, &model)
      || !read_dist (c, model, dist))
    return FALSE;
  co_camera_init (&cam, k[0], k[1], k[2], k[3]);
  cam.model = model;
  memcpy (cam.dist, dist, sizeof dist);
  if (!read_rectification (c, &cam) || !read_size (c, &cam))
    return FALSE;
  *out = cam;
  return TRUE;
}

/* Loads @text (YAML, JSON or XML) into c->doc. */
static gboolean
load_tree (Ctx * c, const gchar * text, gsize len)
{
  const gchar *s = text, *end = text + len;

  if (len >= 3 && memcmp (s, "\xEF\xBB\xBF", 3) == 0)
    s += 3;
  while (s < end && g_ascii_isspace (*s))
    s++;
  if (s == end)
    return fail (c->error, ERR_PARSE, "empty calibration data");
  if (memchr (text, '\0', len))
    return fail (c->error, ERR_PARSE, "a NUL byte in the calibration data");
  return *s == '<' && !c->json ? load_xml (c, s, end - s) : load_yaml (c, s, end - s);
}

/* The rectification of @camera from the tree in @c into @calib's camera */
static gboolean
read_rectification_only (Ctx * c, const gchar * camera, CoCamera * calib)
{
  const gchar *name;
  CoCamera cam;

  if (!select_camera (c, camera))
    return FALSE;
  if (!(c->suffix[0] ? find (c, rs_names, TRUE, &name) || find (c, ps_names,
              TRUE, &name) : find (c, r_names, FALSE, &name) || find (c,
              p_names, FALSE, &name)))
    return fail (c->error, ERR_PARSE, "no rectification in it (R1 P1 and R2 "
        "P2, or rectification_matrix and projection_matrix)");
  /* the rectified camera's own P; without one, [K | 0] */
  co_camera_init (&cam, calib->fx, calib->fy, calib->cx, calib->cy);
  cam.model = calib->model;
  memcpy (cam.dist, calib->dist, sizeof cam.dist);
  cam.image_width = calib->image_width;
  cam.image_height = calib->image_height;
  if (!read_rectification (c, &cam))
    return FALSE;
  *calib = cam;
  return TRUE;
}

/* A whole camera, or (@rect_only) the rectification of @calib's; @json
 * for the text of a .json file. */
static gboolean
parse (const gchar * text, gsize len, const gchar * camera,
    GstCoCalibration * calib, gboolean rect_only, gboolean json,
    GError ** error)
{
  gboolean ok;
  Ctx c;

  g_return_val_if_fail (text != NULL || len == 0, FALSE);
  g_return_val_if_fail (calib != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  memset (&c, 0, sizeof (c));
  c.error = error;
  c.json = json;
  if (!load_tree (&c, text, len))
    return FALSE;
  ok = rect_only ? read_rectification_only (&c, camera, calib) :
      read_camera (&c, camera, calib);
  yaml_document_delete (&c.doc);
  return ok;
}

static gboolean
load (const gchar * path, const gchar * camera, GstCoCalibration * calib,
    gboolean rect_only, GError ** error)
{
  GError *err = NULL;
  gchar *name, *buf = NULL;
  gsize n = 0, plen;
  gboolean ok, json;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (calib != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!gst_co_file_read (path, GST_CO_CALIBRATION_MAX_FILE_SIZE, &buf, &n, &err)) {
    g_set_error_literal (error, GST_CO_CALIBRATION_ERROR, ERR_READ,
        err->message);
    g_error_free (err);
    return FALSE;
  }
  plen = strlen (path);
  json = plen >= 5 && g_ascii_strcasecmp (path + plen - 5, ".json") == 0;
  name = g_filename_display_name (path);
  if (!(ok = parse (buf, n, camera, calib, rect_only, json, error)))
    g_prefix_error (error, "%s: ", name);
  g_free (buf);
  g_free (name);
  return ok;
}

gboolean
gst_co_calibration_parse (const gchar * text, gsize len, const gchar * camera,
    GstCoCalibration * calib, GError ** error)
{
  return parse (text, len, camera, calib, FALSE, FALSE, error);
}

gboolean
gst_co_calibration_parse_rectification (const gchar * text, gsize len,
    const gchar * camera, GstCoCalibration * calib, GError ** error)
{
  return parse (text, len, camera, calib, TRUE, FALSE, error);
}

gboolean
gst_co_calibration_load (const gchar * path, const gchar * camera,
    GstCoCalibration * calib, GError ** error)
{
  return load (path, camera, calib, FALSE, error);
}

gboolean
gst_co_calibration_load_rectification (const gchar * path,
    const gchar * camera, GstCoCalibration * calib, GError ** error)
{
  return load (path, camera, calib, TRUE, error);
}

gboolean
gst_co_calibration_for_size (const GstCoCalibration * c, int w, int h,
    CoCamera * cam, double *sx_out, double *sy_out)
{
  double sx = 1.0, sy = 1.0;
  int i;

  if (c->image_width > 0 && c->image_height > 0 &&
      (c->image_width != w || c->image_height != h)) {
    sx = (double) w / c->image_width;
    sy = (double) h / c->image_height;
  }
  *cam = *c;
  cam->fx = c->fx * sx;
  cam->fy = c->fy * sy;
  cam->cx = (c->cx + 0.5) * sx - 0.5;
  cam->cy = (c->cy + 0.5) * sy - 0.5;
  for (i = 0; i < 4; i++) {
    cam->p[i] = c->p[i] * sx + (0.5 * sx - 0.5) * c->p[8 + i];
    cam->p[4 + i] = c->p[4 + i] * sy + (0.5 * sy - 0.5) * c->p[8 + i];
  }
  cam->image_width = w;
  cam->image_height = h;
  if (sx_out)
    *sx_out = sx;
  if (sy_out)
    *sy_out = sy;
  return fabs (sx / sy - 1.0) <= 0.01;
}
