#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
#
# Embedding cudalensdistort in a Python application (PyGObject): undistort a
# camera frame with an OpenCV calibration, read the result as bytes,
# and change the geometry while the pipeline runs.
#
#   GST_PLUGIN_PATH=build/gst python3 pipelines/example.py
import os
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    sys.exit(f"{sys.argv[0]}: this Python ({sys.executable}) cannot import "
             f"GStreamer's bindings ({e}).\n"
             "Debian/Ubuntu: sudo apt-get install python3-gi "
             "gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0, then run it with "
             "/usr/bin/python3,\nor from a virtual environment that the system's "
             "Python makes: /usr/bin/python3 -m venv --system-site-packages VENV\n"
             "(one made by another python3, pyenv's, conda's or a newer one, does "
             "not see them, with or without --system-site-packages).\n"
             "For this Python itself: sudo apt-get install libgirepository1.0-dev "
             "libcairo2-dev pkg-config gcc gir1.2-gstreamer-1.0 "
             "gir1.2-gst-plugins-base-1.0 and this Python's C headers,\nthen pip install 'PyGObject<3.51' "
             "(PyGObject 3.51 and later need libgirepository-2.0-dev instead).")

Gst.init(sys.argv)
here = os.path.dirname(os.path.abspath(__file__))
samples = os.path.join(here, "samples")
pipe = Gst.parse_launch(
    f"filesrc location={samples}/left01.jpg ! jpegdec ! videoconvert ! "
    "video/x-raw,format=GRAY8 ! imagefreeze num-buffers=30 ! "
    f"cudalensdistort name=lens calibration-file={samples}/left_intrinsics.yml ! "
    "appsink name=out emit-signals=false sync=false")
lens, sink = pipe.get_by_name("lens"), pipe.get_by_name("out")
pipe.set_state(Gst.State.PLAYING)
n = 0
while True:
    sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
    if sample is None:
        break
    buf = sample.get_buffer()
    ok, info = buf.map(Gst.MapFlags.READ)
    mean = sum(info.data[::97]) / len(info.data[::97])
    buf.unmap(info)
    # from full correction (alpha -1: cv::undistort) to "all pixels" (alpha 1)
    lens.set_property("alpha", -1.0 if n < 10 else (n - 10) / 20.0)
    n += 1
print(f"{n} frames, last mean grey {mean:.1f}, backend "
      f"{lens.get_property('active-backend').value_nick}")
msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
pipe.set_state(Gst.State.NULL)
sys.exit(1 if msg else 0)
