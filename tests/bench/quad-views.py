#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""Four views of a photograph as the square rig of tests/data/rig-cam*.yml
sees it, for bench-correlate's realistic quad (CO_BENCH_QUAD): camera
(x, y) of the unit square sees camera 0's pixel q at q - d (x, y), d a
slanted plane of 8 to 56 px along pair 0-1 (the diagonals up to 79 px),
the photograph scaled to W x H, views resampled with Lanczos-4.

usage: quad-views.py SOURCE.png OUT%d.png [W H]   (numpy and OpenCV)
"""
import sys

import cv2
import numpy as np

QUAD = [(0, 0), (1, 0), (0, 1), (1, 1)]


def main():
    src, out = sys.argv[1], sys.argv[2]
    w, h = (int(v) for v in sys.argv[3:5]) if len(sys.argv) > 4 else (2592, 1936)
    img = cv2.imread(src, cv2.IMREAD_GRAYSCALE)
    if img is None:
        sys.exit(f"cannot read {src}")
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_CUBIC).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = 8.0 + 40.0 * xx / w + 8.0 * yy / h
    for k, (x, y) in enumerate(QUAD):
        v = cv2.remap(img, xx + d * x, yy + d * y, cv2.INTER_LANCZOS4,
                      borderMode=cv2.BORDER_REFLECT)
        cv2.imwrite(out % k, np.clip(v + 0.5, 0, 255).astype(np.uint8))
    print(f"wrote {out % 0} .. {out % 3}: {w}x{h}, disparity 8-56 px (pair 0-1)")


if __name__ == "__main__":
    main()
