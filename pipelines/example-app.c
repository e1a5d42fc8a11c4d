/* cudaoptics — LGPL-2.1-or-later
 *
 * Embedding cudalensdistort in a C application: build a pipeline, animate a
 * property while PLAYING, and handle the bus (the backend warning, errors,
 * a Ctrl-C that ends the stream cleanly).
 *
 *   example-app [N_FRAMES]      (example-app --help for the options)
 */
#include <locale.h>
#include <signal.h>
#include <gst/gst.h>

#define DEFAULT_FRAMES 300

static volatile sig_atomic_t interrupted;

/* Ctrl-C ends the stream with EOS (the bus loop sends it), so the frames
 * so far are counted and reported; a second Ctrl-C kills as usual. */
static void
on_sigint (int sig)
{
  interrupted = 1;
  signal (sig, SIG_DFL);
}

static GstPadProbeReturn
count_frame (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc ((gint *) data);
  return GST_PAD_PROBE_OK;
}

/* The nick of the lens's active-backend: "auto" until it has started */
static const gchar *
backend_nick (GstElement * lens)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (lens),
      "active-backend");
  GEnumValue *ev;
  gint v;

  g_object_get (lens, "active-backend", &v, NULL);
  ev = g_enum_get_value (G_PARAM_SPEC_ENUM (ps)->enum_class, v);
  return ev ? ev->value_nick : "unknown";
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx;
  GstElement *pipe, *lens;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  gint frames = DEFAULT_FRAMES, done = 0, i;
  gboolean failed = FALSE, eos_sent = FALSE;
  gchar *launch, *end;
  const gchar *nick;

  setlocale (LC_ALL, "");
  ctx = g_option_context_new ("[N_FRAMES]");
  g_option_context_set_summary (ctx, "Runs N_FRAMES (default "
      G_STRINGIFY (DEFAULT_FRAMES) ") frames of a 1280x720 test pattern "
      "through\ncudalensdistort model=hmd stereo=true, changing k1 while "
      "the pipeline plays,\nthen says how many frames went through and on "
      "which backend.\nCtrl-C stops it early.");
  g_option_context_set_description (ctx, "From the build tree, without "
      "installing the plugin:\n  GST_PLUGIN_PATH=build/gst "
      "build/pipelines/example-app 30\n");
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("example-app: %s (see example-app --help)\n", err->message);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  if (argc > 2) {
    g_printerr ("example-app: one argument at most, N_FRAMES (see "
        "example-app --help)\n");
    return 2;
  }
  if (argc == 2) {
    gint64 n = g_ascii_strtoll (argv[1], &end, 10);
    if (end == argv[1] || *end || n < 1 || n > G_MAXINT) {
      g_printerr ("example-app: N_FRAMES must be a number of frames from "
          "1 to %d, not \"%s\" (see example-app --help)\n", G_MAXINT,
          argv[1]);
      return 2;
    }
    frames = (gint) n;
  }

  /* videotestsrc stands in for a camera (v4l2src, nvarguscamerasrc, ...) */
  launch = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "video/x-raw,format=NV12,width=1280,height=720 ! "
      "cudalensdistort name=lens model=hmd stereo=true ! fakesink", frames);
  /* a missing element is an error here, not a pipeline with a hole */
  pipe = gst_parse_launch_full (launch, NULL, GST_PARSE_FLAG_FATAL_ERRORS,
      &err);
  if (!pipe) {
    g_printerr ("could not build the pipeline: %s (is the plugin installed, "
        "or GST_PLUGIN_PATH set to the build's gst folder?)\n",
        err->message);
    g_free (launch);
    return 1;
  }
  g_print ("example-app: %d frames through cudalensdistort (pipeline: %s); "
      "Ctrl-C stops it\n", frames, launch);
  g_free (launch);
  lens = gst_bin_get_by_name (GST_BIN (pipe), "lens");
  pad = gst_element_get_static_pad (lens, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_frame, &done, NULL);
  gst_object_unref (pad);
  bus = gst_element_get_bus (pipe);
  signal (SIGINT, on_sigint);
  gst_element_set_state (pipe, GST_STATE_PLAYING);

  for (i = 0;; i++) {
    msg = gst_bus_timed_pop_filtered (bus, 10 * GST_MSECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    /* a slowly breathing lens: every property can change while PLAYING */
    g_object_set (lens, "k1", -0.3 * (i % 100) / 100.0, NULL);
    if (interrupted && !eos_sent) {
      g_print ("example-app: interrupted, ending the stream\n");
      gst_element_send_event (pipe, gst_event_new_eos ());
      eos_sent = TRUE;
    }
    if (!msg)
      continue;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (msg, &err, NULL);
      g_printerr ("warning: %s\n", err->message);       /* e.g. CPU fallback */
      g_clear_error (&err);
      gst_message_unref (msg);
      continue;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      g_printerr ("error: %s\n", err->message);
      g_clear_error (&err);
      failed = TRUE;
    }
    gst_message_unref (msg);
    break;
  }
  nick = backend_nick (lens);
  if (g_str_equal (nick, "auto"))
    g_print ("processed %d of %d frames: cudalensdistort did not start\n",
        g_atomic_int_get (&done), frames);
  else
    g_print ("processed %d of %d frames on the %s backend\n",
        g_atomic_int_get (&done), frames, nick);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (lens);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return failed ? 1 : 0;
}
