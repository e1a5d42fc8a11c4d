#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""Calibrates a stereo pair from chessboard image pairs the way OpenCV's
samples/cpp/stereo_calib.cpp does, and writes its two files:
intrinsics.yml (M1 D1 M2 D2) and extrinsics.yml (R T R1 R2 P1 P2 Q).
cudalensdistort reads them as calibration-file=intrinsics.yml
rectification-file=extrinsics.yml camera=left|right.

The bundled pipelines/samples/stereo-intrinsics.yml and
stereo-extrinsics.yml were made by this script from OpenCV's sample pairs
left01..14.jpg / right01..14.jpg (Debian's opencv-doc, examples/data):

    python3 pipelines/stereo-calib.py /usr/share/doc/opencv-doc/examples/data \\
        pipelines/samples/stereo-

usage: stereo-calib.py IMAGE_DIR OUTPUT_PREFIX [--board 9x6]
"""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests"))
from system_python import require  # noqa: E402

if not require("cv2", "numpy"):
    sys.exit("pipelines/stereo-calib.py needs OpenCV's Python module (python3-opencv)")
import cv2  # noqa: E402
import numpy as np  # noqa: E402


def corners(path, board):
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if img is None:
        return None, None
    for scale in (1, 2):
        timg = img if scale == 1 else cv2.resize(
            img, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR_EXACT)
        found, pts = cv2.findChessboardCorners(
            timg, board, cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE)
        if found:
            pts = pts / scale
            break
    if not found:
        return img.shape[::-1], None
    crit = (cv2.TERM_CRITERIA_COUNT + cv2.TERM_CRITERIA_EPS, 30, 0.01)
    return img.shape[::-1], cv2.cornerSubPix(img, pts.astype(np.float32),
                                             (11, 11), (-1, -1), crit)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 1
    src, prefix = sys.argv[1], sys.argv[2]
    board = (9, 6)
    if len(sys.argv) > 4 and sys.argv[3] == "--board":
        board = tuple(int(v) for v in sys.argv[4].split("x"))
    obj = np.zeros((board[0] * board[1], 3), np.float32)
    obj[:, :2] = np.mgrid[0:board[0], 0:board[1]].T.reshape(-1, 2)
    objs, left, right, size = [], [], [], None
    for lp in sorted(glob.glob(os.path.join(src, "left[0-9]*.jpg"))):
        rp = lp.replace("left", "right")
        ls, lc = corners(lp, board)
        rs, rc = corners(rp, board)
        if lc is None or rc is None or ls != rs or (size and ls != size):
            print(f"{os.path.basename(lp)}: no usable pair, skipped")
            continue
        size = ls
        objs.append(obj)
        left.append(lc)
        right.append(rc)
    print(f"{len(objs)} pairs, {size[0]}x{size[1]}")
    m1 = cv2.initCameraMatrix2D(objs, left, size, 0)
    m2 = cv2.initCameraMatrix2D(objs, right, size, 0)
    flags = (cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_ZERO_TANGENT_DIST
             | cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_SAME_FOCAL_LENGTH
             | cv2.CALIB_RATIONAL_MODEL | cv2.CALIB_FIX_K3 | cv2.CALIB_FIX_K4
             | cv2.CALIB_FIX_K5)
    crit = (cv2.TERM_CRITERIA_COUNT + cv2.TERM_CRITERIA_EPS, 100, 1e-5)
    rms, m1, d1, m2, d2, r, t, _, _ = cv2.stereoCalibrate(
        objs, left, right, m1, None, m2, None, size, flags=flags, criteria=crit)
    print(f"stereo calibration RMS {rms:.4f} px")
    r1, r2, p1, p2, q, _, _ = cv2.stereoRectify(
        m1, d1, m2, d2, size, r, t, flags=cv2.CALIB_ZERO_DISPARITY, alpha=1)
    for name, items in (("intrinsics", (("M1", m1), ("D1", d1), ("M2", m2),
                                        ("D2", d2))),
                        ("extrinsics", (("R", r), ("T", t), ("R1", r1),
                                        ("R2", r2), ("P1", p1), ("P2", p2),
                                        ("Q", q)))):
        fs = cv2.FileStorage(f"{prefix}{name}.yml", cv2.FILE_STORAGE_WRITE)
        for k, v in items:
            fs.write(k, v)
        fs.release()
        print(f"wrote {prefix}{name}.yml")
    return 0


if __name__ == "__main__":
    sys.exit(main())
