#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""python/cudaoptics.py reads every element's results from a real pipeline
(CPU backend): cudashcentroid's centroids on the bundled spot picture
(buffer and bus, and the captured reference's message), cudacltcorrelate's
shifts of a pair moved by a known shift (buffer and bus), cudafoveate's
fixation, and cudaomniunwrap's image circle on the bundled mirror picture;
and python3 -m cudaoptics, which prints a launch line's results.
Checks field names, shapes, dtypes and values.  On GStreamer before 1.20
(no GstCustomMeta from Python) the buffers' results are not reachable:
the bus messages are checked and the buffer parts are reported skipped.
Exits 77 without PyGObject or numpy."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from system_python import require  # noqa: E402

if not require("gi", "numpy"):
    print("PyGObject (python3-gi) or numpy (python3-numpy) missing: skipped")
    sys.exit(77)
import numpy as np  # noqa: E402
import gi  # noqa: E402
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

# the module of the source tree, not one installed on the machine
sys.path.insert(0, os.path.join(here, "..", "python"))
import cudaoptics  # noqa: E402

Gst.init(None)
SAMPLES = os.environ.get("CO_SAMPLES_DIR",
                         os.path.join(here, "..", "pipelines", "samples"))
HAVE_META = hasattr(Gst.Buffer, "get_custom_meta")
failures = []


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def run(launch, pushes=None, frames=1):
    """Plays @launch (appsink "out"), feeds the appsrcs named in @pushes
    ({name: [bytes...]}), pulls @frames samples; returns them and every
    element message the bus got."""
    pipe = Gst.parse_launch(launch)
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    for name, bufs in (pushes or {}).items():
        src = pipe.get_by_name(name)
        for i, data in enumerate(bufs):
            b = Gst.Buffer.new_wrapped(data)
            b.pts, b.duration = i * Gst.SECOND, Gst.SECOND
            src.emit("push-buffer", b)
        src.emit("end-of-stream")
    samples = []
    sink = pipe.get_by_name("out")
    for _ in range(frames):
        s = sink.emit("try-pull-sample", 30 * Gst.SECOND)
        if s is None:
            break
        samples.append(s)
    msgs = collect(bus)
    pipe.set_state(Gst.State.NULL)
    return samples, msgs


def collect(bus):
    """the element messages until EOS (a filtered pop drops the others)"""
    msgs = []
    while True:
        m = bus.timed_pop(30 * Gst.SECOND)
        if m is None or m.type == Gst.MessageType.EOS:
            return msgs
        if m.type == Gst.MessageType.ERROR:
            check(False, "pipeline error: %s" % (m.parse_error(),))
            return msgs
        if m.type == Gst.MessageType.ELEMENT:
            msgs.append(m)


def same(a, b):
    """two Results: the same fields and values"""
    if a.fields != b.fields:
        return False
    for k in a.fields:
        x, y = getattr(a, k), getattr(b, k)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if x is None or y is None or not np.array_equal(x, y):
                return False
        elif x != y:
            return False
    return True


def shcentroid():
    samples, msgs = run(
        "filesrc location=%s/sh-spots.png ! pngdec ! videoconvert ! "
        "video/x-raw,format=GRAY8 ! imagefreeze num-buffers=4 ! "
        "cudashcentroid name=sh backend=cpu pitch=24 origin-x=8.5 origin-y=6.25 "
        "pupil-diameter=18 method=tcog reference-frames=2 message-interval=1 ! "
        "appsink name=out sync=false" % SAMPLES, frames=1)
    got = [cudaoptics.from_message(m) for m in msgs]
    bus = [r for r in got if r and r.kind == "GstCoShCentroids"]
    check(len(bus) == 4, "cudashcentroid: 4 GstCoShCentroids messages (got %d)" % len(bus))
    if not bus:
        return
    r = bus[0]
    want = ["lenslets_x", "lenslets_y", "valid", "centroid_x", "centroid_y",
            "slope_x", "slope_y", "intensity", "flags", "slope_units",
            "reference", "timestamp", "frame"]
    check(sorted(r.fields) == sorted(want), "cudashcentroid: fields %s" % r.fields)
    shape = (r.lenslets_y, r.lenslets_x)
    check(shape == (19, 26), "cudashcentroid: 26x19 lenslets (%s)" % (shape,))
    for name in ("centroid_x", "centroid_y", "slope_x", "slope_y", "intensity"):
        a = getattr(r, name)
        check(a.shape == shape and a.dtype == np.float32,
              "cudashcentroid: %s float32 %s" % (name, a.shape))
    check(r.flags.shape == shape and r.flags.dtype == np.uint8, "cudashcentroid: flags uint8")
    check(r.table.shape == shape and r.table.dtype.names ==
          ("centroid_x", "centroid_y", "slope_x", "slope_y", "intensity", "flags"),
          "cudashcentroid: table %s" % (r.table.dtype.names,))
    m = r.measured
    check(int(m.sum()) == r.valid > 200, "cudashcentroid: %d measured = valid" % m.sum())
    # each centroid inside its lenslet, its slope its offset from the centre
    j, i = np.nonzero(m)
    x0, y0 = 8.5 + 24 * i, 6.25 + 24 * j
    cx, cy = r.centroid_x[m], r.centroid_y[m]
    check(bool(np.all(np.isfinite(cx)) and np.all((cx > x0) & (cx < x0 + 24)) and
               np.all((cy > y0) & (cy < y0 + 24))),
          "cudashcentroid: every measured centroid finite and in its lenslet")
    check(np.allclose(r.slope_x[m], cx - (x0 + 12), atol=1e-3),
          "cudashcentroid: slope-x = centroid-x - the lenslet's centre (pixels)")
    check(r.slope_units == "pixels" and r.timestamp == 0 and r.frame == 0,
          "cudashcentroid: slope_units %r, timestamp %r, frame %r"
          % (r.slope_units, r.timestamp, r.frame))
    check(np.array_equal(r.table["centroid_x"], r.centroid_x), "cudashcentroid: table = arrays")
    if HAVE_META:
        b = cudaoptics.from_sample(samples[0], "GstCoShCentroids")
        check(b is not None and same(b, r), "cudashcentroid: buffer's meta = first message")
        check(cudaoptics.from_sample(samples[0]) is not None,
              "cudashcentroid: from_sample without a kind finds it")
    else:
        print("skip cudashcentroid buffer meta (GStreamer %s < 1.20)" % Gst.version_string())

    # capture-reference: the reference's message, then slopes against it
    pipe = Gst.parse_launch(
        "filesrc location=%s/sh-spots.png ! pngdec ! videoconvert ! "
        "video/x-raw,format=GRAY8 ! imagefreeze num-buffers=4 ! "
        "cudashcentroid name=sh backend=cpu pitch=24 origin-x=8.5 origin-y=6.25 "
        "pupil-diameter=18 method=tcog reference-frames=2 ! fakesink sync=false" % SAMPLES)
    pipe.get_by_name("sh").emit("capture-reference")
    pipe.set_state(Gst.State.PLAYING)
    got = [cudaoptics.from_message(m) for m in collect(pipe.get_bus())]
    pipe.set_state(Gst.State.NULL)
    ref = [x for x in got if x and x.kind == "cudashcentroid-reference"]
    check(len(ref) == 1 and ref[0].frames == 2 and ref[0].lenslets == 26 * 19 and
          ref[0].fields == ["frames", "lenslets", "missing"],
          "cudashcentroid-reference: %r" % (ref,))
    last = [x for x in got if x and x.kind == "GstCoShCentroids"][-1]
    check(last.reference == "captured" and
          float(np.abs(last.slope_x[last.measured]).max()) < 1e-3,
          "cudashcentroid: slopes 0 against the captured reference")


def cltcorrelate():
    w, h, dx, dy = 256, 192, 2, -1
    # the bundled photograph, grey; two crops of it
    photo, _ = run("filesrc location=%s/building.jpg ! jpegdec ! videoconvert ! "
                   "videoscale ! video/x-raw,format=GRAY8,width=320,height=240 ! "
                   "appsink name=out sync=false" % SAMPLES)
    buf = photo[0].get_buffer()
    big = np.frombuffer(buf.extract_dup(0, buf.get_size()), np.uint8).reshape(240, 320)
    big = big[16:16 + h + 16, 16:16 + w + 16]
    a = big[8:8 + h, 8:8 + w]
    # the second input's content lies (dx, dy) from the first's
    b = big[8 - dy:8 - dy + h, 8 - dx:8 - dx + w]
    caps = "video/x-raw,format=GRAY8,width=%d,height=%d,framerate=1/1" % (w, h)
    samples, msgs = run(
        "cudacltcorrelate name=c backend=cpu refine=1 post-messages=true ! appsink name=out sync=false "
        "appsrc name=a caps=%s format=time ! c.sink_0 "
        "appsrc name=b caps=%s format=time ! c.sink_1" % (caps, caps),
        pushes={"a": [a.tobytes()], "b": [np.ascontiguousarray(b).tobytes()]})
    got = [cudaoptics.from_message(m) for m in msgs]
    bus = [r for r in got if r and r.kind == "GstCoCltCorrelation"]
    check(len(bus) == 1, "cudacltcorrelate: 1 GstCoCltCorrelation message (got %d)" % len(bus))
    if not bus:
        return
    r = bus[0]
    tx, ty = r.tiles_x, r.tiles_y
    check((tx, ty, r.tile_step) == (w // 8 + 1, h // 8 + 1, 8) or (tx, ty) == (w // 8, h // 8),
          "cudacltcorrelate: %dx%d tiles, step %d" % (tx, ty, r.tile_step))
    check(r.pairs == "0-1" and r.pair_names == ["0-1"] and r.mode == "pairs",
          "cudacltcorrelate: pairs %r %r, mode %r" % (r.pairs, r.pair_names, r.mode))
    for name in ("shift_x", "shift_y", "strength"):
        v = getattr(r, name)
        check(v is not None and v.shape == (1, ty, tx) and v.dtype == np.float32,
              "cudacltcorrelate: %s float32 (1, %d, %d)" % (name, ty, tx))
    check(r.disparity is None and r.rig_disparity is None and r.confidence is None,
          "cudacltcorrelate: no rig arrays without calibrations")
    check(r.table.dtype.names == ("shift_x", "shift_y", "strength") and
          r.table.shape == (1, ty, tx), "cudacltcorrelate: table %s" % (r.table.dtype.names,))
    check(isinstance(r.summary, str) and "0-1" in r.summary, "cudacltcorrelate: summary %r" % r.summary)
    inner = (slice(None), slice(2, -2), slice(2, -2))
    sx, sy, st = r.shift_x[inner], r.shift_y[inner], r.strength[inner]
    check(float(np.median(st)) > 0.5, "cudacltcorrelate: median strength %.2f" % np.median(st))
    good = st > 0.3
    mx, my = float(np.median(sx[good])), float(np.median(sy[good]))
    check(abs(mx - dx) < 0.05 and abs(my - dy) < 0.05 and good.mean() > 0.8,
          "cudacltcorrelate: shift (%d, %d) read (%.3f, %.3f) px, the median of %.0f%% "
          "of the inner tiles (strength > 0.3)" % (dx, dy, mx, my, 100 * good.mean()))
    e90 = float(np.percentile(np.hypot(sx - dx, sy - dy)[good], 90))
    check(e90 < 0.15, "cudacltcorrelate: 90%% of those within %.3f px" % e90)
    x, y = r.tile_centres()
    check(x.shape == (ty, tx) and x[0, 1] == 8 and y[1, 0] == 8, "cudacltcorrelate: tile centres")
    if HAVE_META and samples:
        m = cudaoptics.from_sample(samples[0], "GstCoCltCorrelation")
        check(m is not None and same(m, r), "cudacltcorrelate: buffer's meta = message")
    else:
        print("skip cudacltcorrelate buffer meta (GStreamer %s < 1.20)" % Gst.version_string())


def foveate():
    if not HAVE_META:
        print("skip cudafoveate: its GstCoFoveaGaze is on buffers only (GStreamer %s < 1.20)"
              % Gst.version_string())
        return
    samples, _ = run("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=160,height=120 ! "
                     "cudafoveate backend=cpu fixation-x=0.25 fixation-y=0.75 ! "
                     "appsink name=out sync=false")
    r = cudaoptics.from_sample(samples[0]) if samples else None
    check(r is not None and r.kind == "GstCoFoveaGaze" and
          r.fields == ["fixation_x", "fixation_y", "gaze_time"],
          "cudafoveate: GstCoFoveaGaze %r" % (r,))
    if r:
        check(abs(r.fixation_x - 0.25) < 1e-9 and abs(r.fixation_y - 0.75) < 1e-9,
              "cudafoveate: fixation (%.2f, %.2f)" % (r.fixation_x, r.fixation_y))
        check(r.gaze_time is None or isinstance(r.gaze_time, int),
              "cudafoveate: gaze_time %r (ns or None)" % (r.gaze_time,))


def omniunwrap():
    _, msgs = run("filesrc location=%s/mirror.jpg ! jpegdec ! videoconvert ! "
                  "imagefreeze num-buffers=1 ! cudaomniunwrap backend=cpu auto-center=true "
                  "inner-radius=120 layout=four ! appsink name=out sync=false" % SAMPLES)
    got = [cudaoptics.from_message(m) for m in msgs]
    r = [x for x in got if x and x.kind == "cudaomniunwrap-auto-center"]
    check(len(r) == 1, "cudaomniunwrap: 1 auto-center message (got %d)" % len(r))
    if r:
        r = r[0]
        check(r.fields == ["found", "frames", "center_x", "center_y", "radius", "rms", "points"],
              "cudaomniunwrap: fields %s" % r.fields)
        check(r.found and abs(r.center_x - 499.5) < 0.5 and abs(r.center_y - 499.5) < 0.5 and
              abs(r.radius - 490) < 2, "cudaomniunwrap: circle (%.2f, %.2f) r %.2f"
              % (r.center_x, r.center_y, r.radius))


def others():
    """what is not ours reads as None"""
    s = Gst.Structure.new_empty("level")
    check(cudaoptics.from_structure(s) is None, "from_structure(level) is None")
    check(cudaoptics.from_message(Gst.Message.new_eos(None)) is None, "from_message(EOS) is None")
    check(cudaoptics.from_buffer(Gst.Buffer.new()) is None, "from_buffer(no results) is None")


def command_line():
    """python3 -m cudaoptics LAUNCH: the bus's results as arrays, and .npz"""
    import subprocess
    import tempfile
    env = dict(os.environ, PYTHONPATH=os.path.join(here, "..", "python"))
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(
            [sys.executable, "-m", "cudaoptics", "--npz", os.path.join(tmp, "sh"),
             "filesrc", "location=%s/sh-spots.png" % SAMPLES, "!", "pngdec", "!",
             "videoconvert", "!", "video/x-raw,format=GRAY8", "!", "imagefreeze",
             "num-buffers=2", "!", "cudashcentroid", "backend=cpu", "pitch=24",
             "origin-x=8.5", "origin-y=6.25", "pupil-diameter=18", "method=tcog", "!",
             "fakesink"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            universal_newlines=True, timeout=120)
        out = r.stdout
        good = r.returncode == 0 and out.count("GstCoShCentroids from ") == 2 and \
            "centroid_x         float32 19x26 min" in out and "GBytes" not in out
        check(good, "python3 -m cudaoptics prints 2 results, arrays as shapes" +
              ("" if good else ":\n" + out))
        saved = sorted(os.listdir(tmp))
        ok = saved == ["sh-0.npz", "sh-1.npz"]
        if ok:
            with np.load(os.path.join(tmp, "sh-1.npz")) as z:
                ok = sorted(z.files) == ["centroid_x", "centroid_y", "flags", "intensity",
                                         "slope_x", "slope_y"] and z["centroid_x"].shape == (19, 26)
        check(ok, "python3 -m cudaoptics --npz writes each result's arrays (%s)" % saved)
    r = subprocess.run([sys.executable, "-m", "cudaoptics", "no-such-element"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=60)
    check(r.returncode == 1 and "Traceback" not in r.stdout,
          "python3 -m cudaoptics: a bad launch line is exit 1 and a message: %s" % r.stdout.strip())


for part in (shcentroid, cltcorrelate, foveate, omniunwrap, others, command_line):
    part()
print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
