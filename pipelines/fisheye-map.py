#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
#
# Writes the CO-MAP1 map (cudalensdistort map-file) that turns a rectilinear
# photograph into the frame a fisheye camera (OpenCV's fisheye model, the
# camera below) would see of the same scene: for each fisheye pixel, where
# its ray meets the photograph (taken with focal length F_PHOTO).  The demo
# runs it through the element to make a fisheye frame, then corrects that
# frame with model=fisheye and the same numbers.
#   python3 pipelines/fisheye-map.py OUT.comap WIDTH HEIGHT
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests"))
from system_python import require  # noqa: E402

if not require("cv2", "numpy"):
    sys.exit("pipelines/fisheye-map.py needs OpenCV's Python module (python3-opencv)")
import cv2  # noqa: E402
import numpy as np  # noqa: E402

W, H = int(sys.argv[2]), int(sys.argv[3])
F_PHOTO = 0.36 * W
# the fisheye camera: demo.sh passes the same numbers to model=fisheye
K = np.array([[0.42 * W, 0, (W - 1) / 2], [0, 0.42 * W, (H - 1) / 2], [0, 0, 1]])
D = np.array([-0.013, 0.041, -0.037, 0.0095])
u, v = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
pts = np.stack([u.ravel(), v.ravel()], axis=1).reshape(-1, 1, 2)
rays = cv2.fisheye.undistortPoints(pts, K, D).reshape(H, W, 2)
mx = (rays[..., 0] * F_PHOTO + (W - 1) / 2).astype("<f4")
my = (rays[..., 1] * F_PHOTO + (H - 1) / 2).astype("<f4")
with open(sys.argv[1], "wb") as f:
    f.write(b"CO-MAP1\n" + struct.pack("<4I", W, H, W, H) + mx.tobytes() + my.tobytes())
print(f"fx={K[0, 0]} fy={K[1, 1]} cx={K[0, 2]} cy={K[1, 2]} "
      + " ".join(f"k{i + 1}={d}" for i, d in enumerate(D)))
