#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""The picture of cudacltcorrelate: a synthetic stereo pair with a known
disparity per pixel.  The bundled photograph is the left camera; the right
one sees it moved by a smooth field of sub-pixel disparities (a tilted
plane and a bump, -3..3 px, cubic resampling).  Both go through
cudacltcorrelate (refine=1) as GRAY16_LE; the picture shows the right camera (top
left), the true disparity of each tile (top right), the measured one
(bottom left, dimmed where the correlation is weak) and the error
(bottom right, scaled 20x).  Prints the RMS error of the tiles with
strength above 0.3.

usage: correlate-demo.py SOURCE.jpg OUTPUT.jpg   (GST_PLUGIN_PATH as for tests)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests"))
from system_python import require  # noqa: E402

if not require("cv2", "numpy", "gi"):
    sys.exit("pipelines/correlate-demo.py needs OpenCV's Python module "
             "(python3-opencv) and PyGObject (python3-gi)")
import cv2  # noqa: E402
import numpy as np  # noqa: E402
import gi  # noqa: E402
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402
try:
    import cudaoptics  # noqa: E402  (the elements' results as numpy arrays)
except ImportError:  # not installed: the source tree's own copy
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "python"))
    import cudaoptics  # noqa: E402

src, dst = sys.argv[1], sys.argv[2]
left = cv2.cvtColor(cv2.imread(src), cv2.COLOR_BGR2GRAY).astype(np.float32)
h, w = left.shape
yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
# disparity: a plane tilted across plus a bump, in pixels
disp = (-2.0 + 4.0 * xx / w + 1.5 * np.exp(-(((xx - 0.3 * w) / (0.12 * w)) ** 2 +
                                             ((yy - 0.45 * h) / (0.2 * h)) ** 2))
        ).astype(np.float32)
disp = np.clip(disp, -3, 3)
# the right camera sees the scene point of left (x + d) at x: its content
# lies -d against the left's
right = cv2.remap(left, xx + disp, yy, cv2.INTER_CUBIC,
                  borderMode=cv2.BORDER_REFLECT)


def gray16(img):
    return (np.clip(img, 0, 255) * 257).astype("<u2").tobytes()


Gst.init(None)
caps = f"video/x-raw,format=GRAY16_LE,width={w},height={h},framerate=1/1"
pipe = Gst.parse_launch(
    f"cudacltcorrelate name=c refine=1 ! appsink name=out "
    f"appsrc name=a caps={caps} format=time ! c.sink_0 "
    f"appsrc name=b caps={caps} format=time ! c.sink_1")
pipe.set_state(Gst.State.PLAYING)
for name, img in (("a", left), ("b", right)):
    buf = Gst.Buffer.new_wrapped(gray16(img))
    buf.pts, buf.duration = 0, Gst.SECOND
    pipe.get_by_name(name).emit("push-buffer", buf)
    pipe.get_by_name(name).emit("end-of-stream")
sample = pipe.get_by_name("out").emit("pull-sample")
r = cudaoptics.from_sample(sample, "GstCoCltCorrelation")
tx, ty = r.tiles_x, r.tiles_y
shift, strength = r.shift_x[0], r.strength[0]      # the pair 0-1: (ty, tx)
pipe.set_state(Gst.State.NULL)

# the truth at each tile's centre, the pixel corner (8 tx, 8 ty)
cx = np.clip(8 * np.arange(tx) - 0.5, 0, w - 1)
cy = np.clip(8 * np.arange(ty) - 0.5, 0, h - 1)
mx, my = np.meshgrid(cx, cy)
truth = -cv2.remap(disp, mx.astype(np.float32), my.astype(np.float32),
                   cv2.INTER_LINEAR)
inner = np.zeros_like(strength, bool)
inner[2:-2, 2:-2] = True
good = inner & (strength > 0.3)
err = shift - truth
rms = float(np.sqrt(np.mean(err[good] ** 2)))
print(f"{good.sum()} of {inner.sum()} inner tiles with strength > 0.3: "
      f"RMS error {rms:.3f} px, median |error| {np.median(np.abs(err[good])):.3f} px")


def colour(m, lo, hi, weight=None):
    """tile map to a false-coloured picture of the frame's size"""
    v = np.clip((m - lo) / (hi - lo), 0, 1)
    c = cv2.applyColorMap((v * 255).astype(np.uint8), cv2.COLORMAP_JET)
    if weight is not None:
        c = (c * np.clip(weight, 0, 1)[..., None]).astype(np.uint8)
    big = cv2.resize(c, (tx * 8, ty * 8), interpolation=cv2.INTER_NEAREST)
    # tile (tx, ty) covers pixels 8 tx - 4 .. 8 tx + 3
    return np.pad(big, ((0, 8), (0, 8), (0, 0)))[4:4 + h, 4:4 + w]


top = np.hstack([cv2.cvtColor(right.astype(np.uint8), cv2.COLOR_GRAY2BGR),
                 colour(truth, -3, 3)])
bottom = np.hstack([colour(shift, -3, 3, strength / 0.6),
                    colour(20 * err, -3, 3)])
pic = np.vstack([top, bottom])
pic = cv2.resize(pic, (pic.shape[1] // 2, pic.shape[0] // 2),
                 interpolation=cv2.INTER_AREA)
cv2.imwrite(dst, pic, [cv2.IMWRITE_JPEG_QUALITY, 88])
