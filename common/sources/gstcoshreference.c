/* cudaoptics — LGPL-2.1-or-later
 *
 * gstcoshreference.h: a line at a time, numbers read by g_ascii_strtod
 * (locale-independent), nothing else accepted on a line.
 */
#include "gstcoshreference.h"

#include <math.h>
#include <string.h>

static const gchar *
skip_blanks (const gchar * p, const gchar * end)
{
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
    p++;
  return p;
}

/* One number of the line [*p, end): FALSE when there is none. */
static gboolean
number (const gchar ** p, const gchar * end, gdouble * v)
{
  gchar buf[64], *stop;
  gsize len = 0;

  *p = skip_blanks (*p, end);
  while (*p + len < end && len < sizeof buf - 1 &&
      strchr ("0123456789+-.eE", (*p)[len]) && (*p)[len])
    len++;
  if (!len)
    return FALSE;
  memcpy (buf, *p, len);
  buf[len] = '\0';
  *v = g_ascii_strtod (buf, &stop);
  if (stop == buf || !isfinite (*v))
    return FALSE;
  *p += stop - buf;
  return TRUE;
}

gint
gst_co_sh_parse_reference (const gchar * text, gsize size, gint n,
    gdouble * rx, gdouble * ry, gchar ** why)
{
  const gchar *line = text, *all = text + size;
  gint count = 0, no = 0;

  while (line < all) {
    const gchar *end = memchr (line, '\n', all - line), *p;
    gdouble x, y;

    end = end ? end : all;
    no++;
    p = skip_blanks (line, end);
    if (p == end || *p == '#') {
      line = end + 1;
      continue;
    }
    if (!number (&p, end, &x))
      goto bad;
    p = skip_blanks (p, end);
    if (p < end && *p == ',')
      p++;
    if (!number (&p, end, &y) || skip_blanks (p, end) != end)
      goto bad;
    /* pixel coordinates: 1e300 would make every slope inf */
    if (fabs (x) > 1e7 || fabs (y) > 1e7) {
      *why = g_strdup_printf ("line %d: %g, %g is no pixel position (at "
          "most 1e7 in size)", no, x, y);
      return -1;
    }
    if (count < n) {
      rx[count] = x;
      ry[count] = y;
    }
    count++;
    line = end + 1;
  }
  return count;
bad:
  *why = g_strdup_printf ("line %d is not two numbers", no);
  return -1;
}
