#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
#
# OpenCV's remap as a CPU baseline for bench-lensdistort's table: the same
# hmd map (k1=-0.25, k2=0.05), RGBA, random frames, every CPU thread OpenCV
# will use.  OpenCV's C++ library is not on the GPU machine, its Python module
# is, so this runs in its own process (a few microseconds of binding overhead
# per call, negligible at these sizes).  Median of 20 after 3 warm-ups.
#   python3 tests/bench/bench-opencv.py
import time

import cv2
import numpy as np

sizes = [("720p", 1280, 720), ("1080p", 1920, 1080), ("4K", 3840, 2160), ("8K", 7680, 4320)]
rng = np.random.default_rng(1)
print(f"OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads")
print("| ms per frame | " + " | ".join(s[0] for s in sizes) + " |")
print("|---|" + "---:|" * len(sizes))
rows = {}
for name, w, h in sizes:
    x, y = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    cx, cy = 0.5 * w - 0.5, 0.5 * h - 0.5
    r2 = ((x - cx) ** 2 + (y - cy) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    d = 1 + r2 * (-0.25 + r2 * 0.05)
    mx, my = (cx + (x - cx) / d).astype(np.float32), (cy + (y - cy) / d).astype(np.float32)
    fx, fy = cv2.convertMaps(mx, my, cv2.CV_16SC2)
    src = rng.integers(1, 256, (h, w, 4), dtype=np.uint8)
    for label, a, b, interp in [("cv::remap nearest, float maps", mx, my, cv2.INTER_NEAREST),
                                ("cv::remap linear, float maps", mx, my, cv2.INTER_LINEAR),
                                ("cv::remap linear, fixed-point maps (cv::undistort's)", fx, fy,
                                 cv2.INTER_LINEAR)]:
        t = []
        for i in range(23):
            t0 = time.perf_counter()
            cv2.remap(src, a, b, interp, borderMode=cv2.BORDER_CONSTANT)
            if i >= 3:
                t.append((time.perf_counter() - t0) * 1e3)
        rows.setdefault(label, []).append(float(np.median(t)))
for label, v in rows.items():
    print(f"| {label} | " + " | ".join(f"{ms:.3f}" for ms in v) + " |")
