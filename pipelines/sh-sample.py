#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
#
# Writes pipelines/samples/sh-spots.png, the synthetic Shack-Hartmann frame
# the demo and the README use with cudashcentroid: 640x480 GRAY8, lenslets
# of pitch 24 from (8.5, 6.25), spots (sigma 1.3 px) inside a circular pupil
# of 18 lenslets, moved by an aberrated wavefront (defocus and astigmatism,
# up to 3 pixels at the rim), on a background of 6 with noise of 2 counts.
# Its own seed: the same bytes every run.  Plain Python; the PNG is written
# by GStreamer's pngenc.
#
#   python3 pipelines/sh-sample.py [OUT.png]
import math
import os
import random
import sys

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

W, H, PITCH, OX, OY, PUPIL = 640, 480, 24.0, 8.5, 6.25, 18.0
NX, NY = int((W - OX) / PITCH), int((H - OY) / PITCH)


def frame():
    rng = random.Random(2020)
    img = [6.0] * (W * H)
    for j in range(NY):
        for i in range(NX):
            # the lenslet's place in the pupil, -1..1
            u = (i + 0.5 - NX / 2) / (PUPIL / 2)
            v = (j + 0.5 - NY / 2) / (PUPIL / 2)
            if u * u + v * v > 1.0:
                continue
            # wavefront slopes: defocus (u, v) and astigmatism (u, -v)
            dx, dy = 2.0 * u + 1.0 * u, 2.0 * v - 1.0 * v
            cx = OX + (i + 0.5) * PITCH + dx
            cy = OY + (j + 0.5) * PITCH + dy
            for y in range(int(cy) - 5, int(cy) + 6):
                for x in range(int(cx) - 5, int(cx) + 6):
                    img[y * W + x] += 200 * math.exp(
                        -((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2) / (2 * 1.3 ** 2))
    return bytes(max(0, min(255, int(p + rng.gauss(0, 2.0) + 0.5))) for p in img)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "samples", "sh-spots.png")
    Gst.init(None)
    pipe = Gst.parse_launch(
        f"appsrc name=src format=time caps=video/x-raw,format=GRAY8,width={W},height={H},"
        f"framerate=1/1 ! pngenc ! filesink location={out}")
    src = pipe.get_by_name("src")
    pipe.set_state(Gst.State.PLAYING)
    buf = Gst.Buffer.new_wrapped(frame())
    buf.pts = 0
    src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    msg = pipe.get_bus().timed_pop_filtered(10 * Gst.SECOND,
                                            Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if msg is None or msg.type != Gst.MessageType.EOS:
        sys.exit("could not write " + out)
    print(f"{out}: {NX}x{NY} lenslets of {PITCH} px from {OX},{OY}")


main()
