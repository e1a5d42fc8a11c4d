#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
#
# Reading cudashcentroid's results from Python (PyGObject): synthetic
# Shack-Hartmann frames pushed through appsrc, the centroids read from each
# buffer's GstCoShCentroids meta (GStreamer 1.20+) and from the element
# messages on the bus (any version) as numpy arrays by the cudaoptics
# module (python/cudaoptics.py), a reference captured, and a tilt measured
# as slopes.
#
#   GST_PLUGIN_PATH=build/gst /usr/bin/python3 pipelines/shcentroid.py
import math
import os
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    import numpy as np
except (ImportError, ValueError) as e:
    sys.exit(f"{sys.argv[0]}: this Python ({sys.executable}) cannot import "
             f"GStreamer's bindings or numpy ({e}).\n"
             "Debian/Ubuntu: sudo apt-get install python3-gi python3-numpy "
             "gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0, then run it with "
             "/usr/bin/python3,\nor from a virtual environment that the system's "
             "Python makes: /usr/bin/python3 -m venv --system-site-packages VENV\n"
             "(one made by another python3, pyenv's, conda's or a newer one, does "
             "not see them, with or without --system-site-packages).\n"
             "For this Python itself: sudo apt-get install libgirepository1.0-dev "
             "libcairo2-dev pkg-config gcc gir1.2-gstreamer-1.0 "
             "gir1.2-gst-plugins-base-1.0 and this Python's C headers,\nthen pip install 'PyGObject<3.51' numpy "
             "(PyGObject 3.51 and later need libgirepository-2.0-dev instead).")

try:
    import cudaoptics   # the elements' results as numpy arrays (meson install)
except ImportError:
    # not installed: the source tree's own copy
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "python"))
    import cudaoptics

W, H, PITCH, OX, OY = 400, 300, 20.0, 0.37, 0.81
NX, NY = int((W - OX) / PITCH), int((H - OY) / PITCH)


def spots(dx):
    """A GRAY8 frame: a Gaussian spot (sigma 1.2 px) per lenslet, moved by
    dx pixels to the right (a tilt); the rows 4-byte aligned as GRAY8 caps
    want them (400 already is)."""
    img = bytearray(W * H)
    for j in range(NY):
        for i in range(NX):
            cx = OX + (i + 0.5) * PITCH + dx
            cy = OY + (j + 0.5) * PITCH
            for y in range(int(cy) - 4, int(cy) + 5):
                for x in range(int(cx) - 4, int(cx) + 5):
                    v = 220 * math.exp(-((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2) / (2 * 1.2 ** 2))
                    img[y * W + x] = min(255, int(v + 0.5))
    return bytes(img)


Gst.init(sys.argv)
pipe = Gst.parse_launch(
    f"appsrc name=src format=time caps=video/x-raw,format=GRAY8,width={W},height={H},framerate=100/1 ! "
    f"cudashcentroid name=sh pitch={PITCH} origin-x={OX} origin-y={OY} method=tcog "
    "reference-frames=2 message-interval=2 ! appsink name=out sync=false")
src, sh, sink = (pipe.get_by_name(n) for n in ("src", "sh", "out"))
bus = pipe.get_bus()
pipe.set_state(Gst.State.PLAYING)

flat, tilted = spots(0.0), spots(0.4)
worst, from_meta, from_bus = 0.0, 0, 0
for n in range(8):
    if n == 2:
        sh.emit("capture-reference")       # frames 2 and 3, still flat
    buf = Gst.Buffer.new_wrapped(flat if n < 6 else tilted)
    buf.pts = n * Gst.SECOND // 100
    src.emit("push-buffer", buf)
    sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
    if sample is None:
        sys.exit("no frame out")
    # the buffer's results (None before GStreamer 1.20)
    r = cudaoptics.from_sample(sample, "GstCoShCentroids")
    if r:
        # lenslet (j, i)'s spot lies at its centre, moved by the tilt
        i = np.arange(r.lenslets_x)
        truth = OX + (i + 0.5) * PITCH + (0.4 if n >= 6 else 0.0)
        worst = max(worst, float(np.abs(r.centroid_x - truth).max()))
        from_meta += 1
    msg = bus.pop_filtered(Gst.MessageType.ELEMENT)
    while msg:
        r = cudaoptics.from_message(msg)
        if r and r.kind == "GstCoShCentroids":
            from_bus += 1
            mean_slope = float(r.slope_x[r.measured].mean())
            print(f"frame {r.frame}: {r.valid} lenslets, "
                  f"reference {r.reference}, mean slope-x {mean_slope:+.3f} "
                  f"{r.slope_units}")
        elif r and r.kind == "cudashcentroid-reference":
            print(f"reference captured over {r.frames} frames")
        msg = bus.pop_filtered(Gst.MessageType.ELEMENT)

src.emit("end-of-stream")
error = bus.timed_pop_filtered(Gst.SECOND, Gst.MessageType.ERROR)
pipe.set_state(Gst.State.NULL)
print(f"{from_meta} buffers read through their meta (worst error {worst:.3f} px), "
      f"{from_bus} bus messages")
# the last message (frame 6) carries the tilt against the captured reference
# (thresholding biases a noiseless spot by up to 0.02 px with its pixel phase)
ok = error is None and from_bus == 4 and abs(mean_slope - 0.4) < 0.05 and \
    (from_meta == 0 or worst < 0.05)
sys.exit(0 if ok else 1)
