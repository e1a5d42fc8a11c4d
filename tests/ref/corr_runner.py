# cudaoptics — LGPL-2.1-or-later
"""cudacltcorrelate on GRAY8 pairs pushed through appsrc, its results read
from the bus (post-messages=true): the runner the tests/ref scripts share.
The caller has initialised Gst."""
import time

import numpy as np
from gi.repository import Gst


def correlate_pairs(pairs, props, timeout, bayer=None, pad_props=None):
    """cudacltcorrelate @props on @pairs ((a, b) 8-bit arrays of one size,
    GRAY8, or raw mosaics of pattern @bayer, e.g. "rggb"; @pad_props: each
    input pad's properties, dicts), one output a pair: [(shift-x, shift-y,
    strength) tiles_y x tiles_x], and the seconds from the first push to
    end of stream; an error after @timeout seconds without a message"""
    h, w = pairs[0][0].shape
    stride = (w + 3) & ~3
    caps = (f"video/x-bayer,format={bayer}" if bayer else
            "video/x-raw,format=GRAY8") + f",width={w},height={h},framerate=1/1"
    pipe = Gst.parse_launch(
        f"cudacltcorrelate name=c post-messages=true {props} ! fakesink "
        f"appsrc name=a caps={caps} format=time ! c.sink_0 "
        f"appsrc name=b caps={caps} format=time ! c.sink_1")
    for k, pp in enumerate(pad_props or ()):
        pad = pipe.get_by_name("c").get_static_pad(f"sink_{k}")
        for name, value in pp.items():
            pad.set_property(name, value)
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    t0 = time.time()
    for k, name in enumerate("ab"):
        src = pipe.get_by_name(name)
        for i, p in enumerate(pairs):
            data = np.zeros((h, stride), np.uint8)
            data[:, :w] = p[k]
            buf = Gst.Buffer.new_wrapped(data.tobytes())
            buf.pts, buf.duration = i * Gst.SECOND, Gst.SECOND
            src.emit("push-buffer", buf)
        src.emit("end-of-stream")
    out = []
    while True:
        m = bus.timed_pop_filtered(timeout * Gst.SECOND, Gst.MessageType.ELEMENT |
                                   Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if m is None:
            pipe.set_state(Gst.State.NULL)
            raise RuntimeError(f"cudacltcorrelate: no EOS in {timeout} s")
        if m.type == Gst.MessageType.ERROR:
            err, dbg = m.parse_error()
            pipe.set_state(Gst.State.NULL)
            raise RuntimeError(f"cudacltcorrelate: {err.message} ({dbg})")
        if m.type == Gst.MessageType.EOS:
            break
        s = m.get_structure()
        if s.get_name() != "GstCoCltCorrelation":
            continue
        tx, ty = s.get_value("tiles-x"), s.get_value("tiles-y")

        def arr(n):
            return np.frombuffer(s.get_value(n).get_data(), "<f4").reshape(ty, tx)
        out.append((arr("shift-x"), arr("shift-y"), arr("strength")))
    secs = time.time() - t0
    pipe.set_state(Gst.State.NULL)
    if len(out) != len(pairs):
        raise RuntimeError(f"cudacltcorrelate: {len(out)} results for "
                           f"{len(pairs)} pairs")
    return out, secs
