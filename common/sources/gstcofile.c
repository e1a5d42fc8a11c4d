/* cudaoptics — LGPL-2.1-or-later */

#include "gstcofile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

static void
fail (GError ** error, gint code, const gchar * path, const gchar * why)
{
  gchar *name = g_filename_display_name (path);

  g_set_error (error, G_FILE_ERROR, code, "%s: %s", name, why);
  g_free (name);
}

int
gst_co_file_open (const gchar * path, guint64 * size, GError ** error)
{
  GStatBuf st;
  int fd, err;

  g_return_val_if_fail (path != NULL, -1);
  /* non-blocking: opening a FIFO for reading would wait for a writer */
  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0) {
    err = errno;
    fail (error, g_file_error_from_errno (err), path, g_strerror (err));
    return -1;
  }
  if (fstat (fd, &st) != 0) {
    err = errno;
    close (fd);
    fail (error, g_file_error_from_errno (err), path, g_strerror (err));
    return -1;
  }
  if (!S_ISREG (st.st_mode)) {
    close (fd);
    fail (error, G_FILE_ERROR_INVAL, path, "not a regular file");
    return -1;
  }
  if (size)
    *size = (guint64) st.st_size;
  return fd;
}

gboolean
gst_co_file_read (const gchar * path, gsize max, gchar ** contents,
    gsize * length, GError ** error)
{
  guint64 size;
  gsize cap, n = 0;
  gchar *buf;
  int fd;

  g_return_val_if_fail (contents != NULL && length != NULL, FALSE);
  if ((fd = gst_co_file_open (path, &size, error)) < 0)
    return FALSE;
  if (size > max) {
    gchar *lim = max % (1 << 20) == 0 ? g_strdup_printf ("%" G_GSIZE_FORMAT
        " MiB", max >> 20) : g_format_size_full (max, G_FORMAT_SIZE_IEC_UNITS);
    gchar *why = g_strdup_printf ("larger than %s", lim);
    close (fd);
    fail (error, G_FILE_ERROR_FAILED, path, why);
    g_free (why);
    g_free (lim);
    return FALSE;
  }
  /* read to the end whatever fstat said (procfs and some FUSE files say
   * 0, a file may grow while read), up to one byte past the limit */
  cap = (gsize) size + 1;
  buf = g_try_malloc (cap + 1);
  while (buf) {
    gssize r;
    if (n == cap) {
      gchar *more;
      if (cap > max)
        break;
      cap = MIN (MAX (cap * 2, (gsize) 4096), max + 1);
      more = g_try_realloc (buf, cap + 1);
      if (!more) {
        g_free (buf);
        buf = NULL;
        break;
      }
      buf = more;
    }
    r = read (fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int err = errno;
      close (fd);
      g_free (buf);
      fail (error, g_file_error_from_errno (err), path, g_strerror (err));
      return FALSE;
    }
    if (r == 0)
      break;
    n += (gsize) r;
  }
  close (fd);
  if (!buf) {
    fail (error, G_FILE_ERROR_NOMEM, path, "out of memory");
    return FALSE;
  }
  if (n > max) {
    g_free (buf);
    fail (error, G_FILE_ERROR_FAILED, path, "grew past its limit while read");
    return FALSE;
  }
  buf[n] = '\0';
  *contents = buf;
  *length = n;
  return TRUE;
}

gboolean
gst_co_file_load (const gchar * path, gsize max, GQuark domain,
    gint read_code, GstCoFileParser parse, gpointer out, GError ** error)
{
  gchar *data = NULL;
  gsize len = 0;
  GError *err = NULL;
  gboolean ok;

  g_return_val_if_fail (path != NULL, FALSE);
  if (!gst_co_file_read (path, max, &data, &len, &err)) {
    g_set_error_literal (error, domain, read_code, err->message);
    g_error_free (err);
    return FALSE;
  }
  ok = parse ((const guint8 *) data, len, out, error);
  if (!ok) {
    gchar *name = g_filename_display_name (path);
    g_prefix_error (error, "%s: ", name);
    g_free (name);
  }
  g_free (data);
  return ok;
}
