#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
#
# Stereo rectification end to end: a chessboard rendered as two calibrated
# cameras with lens distortion see it (cv2: each pixel's ray through
# undistortPoints to the board plane), calibrated by cv2.stereoRectify into
# one cv2.FileStorage file, rectified by cudalensdistort calibration-file=
# ... camera=left / camera=right; the board's corners
# (cv2.findChessboardCorners + cornerSubPix) must then lie on the same rows
# within half a pixel in both cameras (they differ by several pixels before).
# Exits 77 (skipped) without cv2.
#   GST_PLUGIN_PATH=build/gst python3 tests/stereo-rectify.py [backend [picture.png]]
import os
import subprocess
import sys
import tempfile

from system_python import require

if not require("cv2", "numpy"):
    print("no OpenCV (cv2) here: skipping")
    sys.exit(77)
import cv2  # noqa: E402
import numpy as np  # noqa: E402

w, h = 640, 480
tmp = tempfile.mkdtemp()
backend = sys.argv[1] if len(sys.argv) > 1 else "auto"
# a chessboard texture: 10x7 squares -> 9x6 inner corners, square 60 px
sq = 60
tex = np.full((7 * sq + 2 * sq, 10 * sq + 2 * sq), 255, np.uint8)
for j in range(7):
    for i in range(10):
        if (i + j) % 2 == 0:
            tex[sq + j * sq: sq + (j + 1) * sq, sq + i * sq: sq + (i + 1) * sq] = 0
tex = cv2.GaussianBlur(tex, (3, 3), 0.8)
M1 = np.array([[520.0, 0, 322.0], [0, 519.0, 238.0], [0, 0, 1]])
M2 = np.array([[525.0, 0, 317.0], [0, 524.0, 243.0], [0, 0, 1]])
D1 = np.array([[-0.25, 0.08, 0.0006, -0.0003, -0.01]])
D2 = np.array([[-0.24, 0.07, -0.0004, 0.0005, -0.012]])
Rs, _ = cv2.Rodrigues(np.array([0.04, -0.025, 0.02]))
Ts = np.array([[-80.0], [1.5], [-1.0]])   # mm; camera 2 = Rs X + Ts
# the board plane: Z = 700 mm in camera 1, tilted a little; texture px -> mm
Rb, _ = cv2.Rodrigues(np.array([0.15, -0.2, 0.05]))
tb = np.array([[-300.0], [-220.0], [700.0]])
scale = 0.9  # mm per texture pixel
def render(K, D, R, T):
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    pts = np.stack([u.ravel(), v.ravel()], 1).reshape(-1, 1, 2)
    rays = cv2.undistortPoints(pts, K, D).reshape(-1, 2)
    d = np.concatenate([rays, np.ones((rays.shape[0], 1))], 1).T  # camera rays
    # into camera-1 frame: X1 = R^T (Xc - T)
    dr = R.T @ d
    o = -R.T @ T
    n = Rb[:, 2:3]
    t = (n.T @ (tb - o)) / (n.T @ dr)
    X = o + dr * t
    q = Rb.T @ (X - tb) / scale  # texture px
    mx = q[0].reshape(h, w).astype(np.float32); my = q[1].reshape(h, w).astype(np.float32)
    return cv2.remap(tex, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=128)
L = render(M1, D1, np.eye(3), np.zeros((3, 1)))
Rr = render(M2, D2, Rs, Ts)
cv2.imwrite(tmp + "/l.png", L); cv2.imwrite(tmp + "/r.png", Rr)
R1, R2, P1, P2, Q, _, _ = cv2.stereoRectify(M1, D1, M2, D2, (w, h), Rs, Ts, alpha=0)
fs = cv2.FileStorage(tmp + "/stereo.yml", cv2.FILE_STORAGE_WRITE)
for k, v in (("M1", M1), ("D1", D1), ("M2", M2), ("D2", D2), ("R1", R1), ("R2", R2), ("P1", P1), ("P2", P2)):
    fs.write(k, v)
fs.release()
def rect(img, cam):
    out = tmp + "/o.raw"
    subprocess.run(f"gst-launch-1.0 -q filesrc location={img} ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 ! cudalensdistort backend={backend} calibration-file={tmp}/stereo.yml camera={cam} ! filesink location={out}", shell=True, check=True)
    return np.fromfile(out, np.uint8).reshape(h, w)
def corners(img):
    ok, c = cv2.findChessboardCorners(img, (9, 6))
    if not ok:
        sys.exit("the chessboard was not found")
    c = cv2.cornerSubPix(img, c, (5, 5), (-1, -1), (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 0.01))
    return c.reshape(-1, 2)
cl0, cr0 = corners(L), corners(Rr)
cl, cr = corners(rect(tmp + "/l.png", "left")), corners(rect(tmp + "/r.png", "right"))
raw = np.abs(cl0[:, 1] - cr0[:, 1]).max()
dy = np.abs(cl[:, 1] - cr[:, 1])
print(f"backend={backend}: 54 chessboard corners, row difference between the "
      f"cameras: {raw:.2f} px at most before, {dy.max():.3f} px at most "
      f"({dy.mean():.3f} mean) after rectification")
ok = raw > 5 and dy.max() < 0.5

# A photographed pair: OpenCV's sample left01.jpg / right01.jpg, calibrated
# from its 13 sample pairs by pipelines/stereo-calib.py (stereo_calib's two
# files), rectified through calibration-file + rectification-file.  That
# calibration's own residual (RMS 0.63 px) bounds what any rectification
# can do: OpenCV's maps leave these corners 0.53 px apart at worst, 0.18 px
# on average.  So: the mean row difference under half a pixel, and the
# worst no further from OpenCV's own than a twentieth of a pixel.
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
samples = os.path.join(root, "pipelines", "samples")
intr = os.path.join(samples, "stereo-intrinsics.yml")
extr = os.path.join(samples, "stereo-extrinsics.yml")


def rect_photo(cam):
    out = tmp + "/p.raw"
    jpg = os.path.join(samples, f"{cam}01.jpg")
    subprocess.run(f"gst-launch-1.0 -q filesrc location={jpg} ! jpegdec ! videoconvert ! "
                   f"video/x-raw,format=GRAY8 ! cudalensdistort backend={backend} "
                   f"calibration-file={intr} rectification-file={extr} camera={cam} ! "
                   f"filesink location={out}", shell=True, check=True)
    return np.fromfile(out, np.uint8).reshape(h, w)


fs = cv2.FileStorage(intr, cv2.FILE_STORAGE_READ)
K1, E1, K2, E2 = (fs.getNode(k).mat() for k in ("M1", "D1", "M2", "D2"))
fs = cv2.FileStorage(extr, cv2.FILE_STORAGE_READ)
Q1, Q2, F1, F2 = (fs.getNode(k).mat() for k in ("R1", "R2", "P1", "P2"))
pl = cv2.imread(os.path.join(samples, "left01.jpg"), cv2.IMREAD_GRAYSCALE)
pr = cv2.imread(os.path.join(samples, "right01.jpg"), cv2.IMREAD_GRAYSCALE)
cvl = cv2.remap(pl, *cv2.initUndistortRectifyMap(K1, E1, Q1, F1, (w, h), cv2.CV_32FC1),
                cv2.INTER_LINEAR)
cvr = cv2.remap(pr, *cv2.initUndistortRectifyMap(K2, E2, Q2, F2, (w, h), cv2.CV_32FC1),
                cv2.INTER_LINEAR)
praw = np.abs(corners(pl)[:, 1] - corners(pr)[:, 1]).max()
pdy = np.abs(corners(rect_photo("left"))[:, 1] - corners(rect_photo("right"))[:, 1])
cdy = np.abs(corners(cvl)[:, 1] - corners(cvr)[:, 1])
print(f"photographed pair left01/right01 (calibration-file + rectification-file): "
      f"{praw:.2f} px at most before, {pdy.max():.3f} px at most ({pdy.mean():.3f} "
      f"mean) after; OpenCV's own maps: {cdy.max():.3f} at most ({cdy.mean():.3f} mean)")
ok = ok and praw > 5 and pdy.mean() < 0.5 and pdy.max() < cdy.max() + 0.05
if len(sys.argv) > 2:  # a picture: the photographed pair before and after
    pair = np.vstack([np.hstack([pl, pr]),
                      np.hstack([rect_photo("left"), rect_photo("right")])])
    pair = cv2.cvtColor(pair, cv2.COLOR_GRAY2BGR)
    for y in range(20, 2 * h, 40):
        cv2.line(pair, (0, y), (2 * w - 1, y), (0, 160, 255), 1)
    cv2.imwrite(sys.argv[2], pair)
sys.exit(0 if ok else 1)
