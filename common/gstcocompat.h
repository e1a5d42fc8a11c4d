/* cudaoptics — LGPL-2.1-or-later
 *
 * Every GStreamer version difference lives here, never in element files.
 * The floor is 1.16; GStreamer's CUDA library (1.22+, unstable API) is used
 * when the build found it (HAVE_GST_CUDA).
 */
#ifndef __GST_CO_COMPAT_H__
#define __GST_CO_COMPAT_H__

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#ifdef HAVE_GST_CUDA
#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>
#endif

G_BEGIN_DECLS

/* 1.18 */
#if !GST_CHECK_VERSION (1, 18, 0)
#define gst_type_mark_as_plugin_api(type, flags) G_STMT_START { (void) (type); } G_STMT_END
#endif

/* 1.20 gives gst_caps_features_new_single; older versions the variadic one */
#if !GST_CHECK_VERSION (1, 20, 0)
#define gst_caps_features_new_single(f) gst_caps_features_new ((f), NULL)
#endif

/* GLib 2.70 renamed g_spawn_check_exit_status (1.16 systems: GLib 2.64) */
#if !GLIB_CHECK_VERSION (2, 70, 0)
#define g_spawn_check_wait_status(status, error) g_spawn_check_exit_status ((status), (error))
#endif

/* 1.24 gave GstCudaMemory a stream of its own (and pools a stream to put
 * on their memory): frames are then ordered on the device by events instead
 * of a host synchronisation per frame (gstcoengine-run.c). */
/* 1.20: RGBA64_LE among the video formats, and GstCustomMeta (results as
 * a meta Python reads) */
#if GST_CHECK_VERSION (1, 20, 0)
#define CO_HAVE_RGBA64 1
#define CO_HAVE_CUSTOM_META 1
#endif

#if defined (HAVE_GST_CUDA) && GST_CHECK_VERSION (1, 24, 0)
#define CO_CUDA_STREAMS 1
#include <gst/cuda/gstcudastream.h>
#endif

G_END_DECLS
#endif
