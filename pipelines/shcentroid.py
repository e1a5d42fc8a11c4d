#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
#
# Reading cudashcentroid's results from Python (PyGObject): synthetic
# Shack-Hartmann frames pushed through appsrc, the centroids read from each
# buffer's GstCoShCentroids meta (GStreamer 1.20+) and from the element
# messages on the bus (any version), a reference captured, and a tilt
# measured as slopes.  Plain Python, no numpy.
#
#   GST_PLUGIN_PATH=build/gst python3 pipelines/shcentroid.py
import math
import struct
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    sys.exit(f"{sys.argv[0]}: this Python ({sys.executable}) cannot import "
             f"GStreamer's bindings ({e}).\n"
             "Debian/Ubuntu: sudo apt-get install python3-gi gir1.2-gstreamer-1.0 "
             "gir1.2-gst-plugins-base-1.0, then run it with /usr/bin/python3,\n"
             "or from a virtual environment made with "
             "`python3 -m venv --system-site-packages`, which sees them.")

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


def floats(s, name):
    """An array field (GBytes of little-endian floats) as a tuple."""
    data = s.get_value(name).get_data()
    return struct.unpack("<%df" % (len(data) // 4), data)


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
    out = sample.get_buffer()
    meta = out.get_custom_meta("GstCoShCentroids") if hasattr(out, "get_custom_meta") else None
    if meta:
        s = meta.get_structure()
        cx = floats(s, "centroid-x")
        for k in range(NX * NY):
            truth = OX + (k % NX + 0.5) * PITCH + (0.4 if n >= 6 else 0.0)
            worst = max(worst, abs(cx[k] - truth))
        from_meta += 1
    msg = bus.pop_filtered(Gst.MessageType.ELEMENT)
    while msg:
        s = msg.get_structure()
        if s.get_name() == "GstCoShCentroids":
            from_bus += 1
            slopes = floats(s, "slope-x")
            mean_slope = sum(slopes) / len(slopes)
            print(f"frame {s.get_value('frame')}: {s.get_value('valid')} lenslets, "
                  f"reference {s.get_value('reference')}, mean slope-x {mean_slope:+.3f} "
                  f"{s.get_value('slope-units')}")
        elif s.get_name() == "cudashcentroid-reference":
            print(f"reference captured over {s.get_value('frames')} frames")
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
