#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""The chromatic HMD picture of the README, every remap made by
cudalensdistort: top, what the element sends to a headset (barrel
pre-distortion with red and blue pre-scaled); below, magnified, the
frame's edge as seen through a lens with lateral colour (red shown 2%
smaller, blue 2% larger: modelled by the element itself with red-scale and
blue-scale), without and with the element's pre-compensation.

usage: hmd-chroma.py SOURCE.jpg OUTPUT.png   (GST_PLUGIN_PATH as for tests)
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests"))
from system_python import require  # noqa: E402

if not require("cv2", "numpy"):
    sys.exit("pipelines/hmd-chroma.py needs OpenCV's Python module (python3-opencv)")
import cv2  # noqa: E402
import numpy as np  # noqa: E402

RED, BLUE = 1.02, 0.98          # the lens: where each colour lands
src, dst = sys.argv[1], sys.argv[2]
img = cv2.imread(src)
h, w = img.shape[:2]
tmp = tempfile.mkdtemp()


def element(props, frame):
    """@frame (BGR) through cudalensdistort @props, back as BGR"""
    raw, out = tmp + "/in.raw", tmp + "/out.raw"
    cv2.cvtColor(frame, cv2.COLOR_BGR2RGBA).tofile(raw)
    subprocess.run(
        f"gst-launch-1.0 -q filesrc location={raw} blocksize={w * h * 4} ! "
        f"video/x-raw,format=RGBA,width={w},height={h},framerate=1/1 ! "
        f"cudalensdistort {props} ! filesink location={out}", shell=True,
        check=True)
    return cv2.cvtColor(np.fromfile(out, np.uint8).reshape(h, w, 4),
                        cv2.COLOR_RGBA2BGR)


lens = f"k1=0 k2=0 red-scale={RED} blue-scale={BLUE}"
fix = f"red-scale={1 / RED:.6f} blue-scale={1 / BLUE:.6f}"
sent = element(f"k1=-0.3 k2=0.06 {fix}", img)
plain = element(lens, img)
fixed = element(lens, element(f"k1=0 k2=0 {fix}", img))
# the right edge, 3x
y0, x0, cw, ch = h // 2 - 60, w - 150, 140, 120


def crop(f):
    return cv2.resize(f[y0:y0 + ch, x0:x0 + cw], (cw * 3, ch * 3),
                      interpolation=cv2.INTER_NEAREST)


def label(f, text):
    f = f.copy()
    cv2.putText(f, text, (8, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3)
    cv2.putText(f, text, (8, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                (255, 255, 255), 1)
    return f


below = np.hstack([label(crop(plain), "through the lens: colour fringes"),
                   np.zeros((ch * 3, 8, 3), np.uint8),
                   label(crop(fixed), "pre-compensated by cudalensdistort")])
top = cv2.resize(label(sent, "sent to the headset"),
                 (below.shape[1], below.shape[1] * h // w))
cv2.imwrite(dst, np.vstack([top, np.zeros((8, below.shape[1], 3), np.uint8),
                            below]))
err = [np.abs(f.astype(int) - img.astype(int))[y0:y0 + ch, x0:x0 + cw].mean()
       for f in (plain, fixed)]
print(f"edge crop, mean |seen - original|: {err[0]:.2f} without, "
      f"{err[1]:.2f} with pre-compensation")
