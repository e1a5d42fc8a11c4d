/* cudaoptics — LGPL-2.1-or-later
 *
 * The memory of one file property (a blur map, kernels, a mask, a
 * reference, a weight table): which setting was read and which failed.
 * The element's setter counts every set (a generation), so a file is read
 * once per setting, read again when set again (it may have been edited),
 * and a file that cannot be used warns once.  Before anything was built
 * a bad file is an error; while frames flow it is a warning and the
 * element keeps what it had.  Every message carries the reason in its
 * text (applications print only that).
 */
#ifndef __GST_CO_FILE_SETTING_H__
#define __GST_CO_FILE_SETTING_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct
{
  guint loaded_gen, bad_gen;    /* 0: none yet */
} GstCoFileSetting;

/* Whether setting @gen (never 0 once set) is neither the one read nor the
 * one that failed. */
gboolean gst_co_file_setting_needs_read (const GstCoFileSetting * fs,
    guint gen);
void     gst_co_file_setting_loaded (GstCoFileSetting * fs, guint gen);
/* Reading setting @gen failed with *@error (its message names the file).
 * Without @keep (nothing built yet, or nothing to keep): FALSE, *@error
 * left for the caller to post as an error.  With @keep: a warning
 * "@kept: <the reason>" on @element's bus, once per setting, the setting
 * remembered as failed, *@error cleared, and TRUE. */
gboolean gst_co_file_setting_fail (GstCoFileSetting * fs,
    GstElement * element, guint gen, gboolean keep, const gchar * kept,
    GError ** error);
/* gst_co_file_setting_fail for @why, the error posted on @element's bus
 * (naming @what) without @keep: "Could not read the @what[, keeping the
 * previous one]: @why". */
gboolean gst_co_file_setting_failed (GstCoFileSetting * fs,
    GstElement * element, guint gen, gboolean keep, const gchar * what,
    const gchar * why);
/* Whether setting @gen is the one that failed */
gboolean gst_co_file_setting_has_failed (const GstCoFileSetting * fs,
    guint gen);
/* The failure is forgotten: the setting that failed is read (and warned
 * of) again, as when what it must satisfy changed. */
void     gst_co_file_setting_forget_failure (GstCoFileSetting * fs);
void     gst_co_file_setting_reset (GstCoFileSetting * fs);

G_END_DECLS
#endif
