#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""The README picture of cudaaberration, every correction made by the
element: a photograph is taken through a simulated cheap lens (a Gaussian
blur growing from sigma S0 in the centre to S0 + S1 in the corners, red
magnified and blue shrunk by lateral colour) and sampled by an RGGB
sensor; the raw mosaic then goes through cudaaberration, demosaicing only
(left) and with the kernels co-clt-kernels writes for that lens (right).
Below, a corner magnified 3x.  Prints the PSNR of both against the
photograph.

usage: aberration-demo.py SOURCE.jpg OUTPUT.jpg BUILD_DIR
       (GST_PLUGIN_PATH as for tests)
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests"))
from system_python import require  # noqa: E402

if not require("cv2", "numpy"):
    sys.exit("pipelines/aberration-demo.py needs OpenCV's Python module "
             "(python3-opencv)")
import cv2  # noqa: E402
import numpy as np  # noqa: E402
import lens_sim  # noqa: E402

S0, S1, RED, BLUE = 0.8, 1.4, 1.004, 0.996
src, dst, build = sys.argv[1], sys.argv[2], sys.argv[3]
img = cv2.imread(src)
h, w = img.shape[:2]
tmp = tempfile.mkdtemp()

raw = lens_sim.raw_view(img, S0, S1, RED, BLUE)
raw.tofile(tmp + "/raw")
kernels = tmp + "/lens.cltk"
subprocess.run([os.path.join(build, "tools", "co-clt-kernels"),
                f"--size={w}x{h}", f"--sigma0={S0}", f"--sigma1={S1}",
                f"--chroma-red={RED}", f"--chroma-blue={BLUE}", "--nsr=0.02",
                "--bayer", "-o", kernels], check=True, stdout=subprocess.DEVNULL)


def element(props):
    """the raw frame through cudaaberration @props, back as BGR"""
    out = tmp + "/out"
    subprocess.run(
        f"gst-launch-1.0 -q filesrc location={tmp}/raw blocksize={w * h} ! "
        f"video/x-bayer,format=rggb,width={w},height={h},framerate=1/1 ! "
        f"cudaaberration {props} ! video/x-raw,format=BGRx ! "
        f"filesink location={out}", shell=True, check=True)
    return np.fromfile(out, np.uint8).reshape(h, w, 4)[..., :3].copy()


plain = element("")
fixed = element(f"kernels-file={kernels}")


def psnr(a):
    d = (a.astype(float) - img.astype(float))[8:-8, 8:-8]
    return 10 * np.log10(255.0 ** 2 / (d * d).mean())


def label(f, text):
    f = f.copy()
    cv2.putText(f, text, (8, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3)
    cv2.putText(f, text, (8, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                (255, 255, 255), 1)
    return f


# the top-right corner, 3x
y0, x0, cw, ch = 20, w - 160, 140, 110


def crop(f):
    return cv2.resize(f[y0:y0 + ch, x0:x0 + cw], (cw * 3, ch * 3),
                      interpolation=cv2.INTER_NEAREST)


gap = np.zeros((ch * 3, 8, 3), np.uint8)
below = np.hstack([label(crop(plain), "raw, demosaiced only"), gap,
                   label(crop(fixed), "cudaaberration with the lens' kernels")])
half = (below.shape[1] - 8) // 2
top = np.hstack([cv2.resize(plain, (half, half * h // w), interpolation=cv2.INTER_AREA),
                 np.zeros((half * h // w, 8, 3), np.uint8),
                 cv2.resize(fixed, (half, half * h // w), interpolation=cv2.INTER_AREA)])
cv2.imwrite(dst, np.vstack([top, np.zeros((8, below.shape[1], 3), np.uint8),
                            below]), [cv2.IMWRITE_JPEG_QUALITY, 88])
print(f"PSNR against the photograph: demosaiced only {psnr(plain):.2f} dB, "
      f"corrected {psnr(fixed):.2f} dB")
