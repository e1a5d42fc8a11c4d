#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
#
# cudalensdistort's models beyond the five coefficients, against OpenCV
# itself on the bundled camera frame: model=camera with 8 (rational), 12
# (thin prism) and 14 (tilted sensor) coefficients against
# cv2.initUndistortRectifyMap + cv2.remap, and model=fisheye against
# cv2.fisheye.initUndistortRectifyMap, with the camera matrix kept and with
# cv2.fisheye.estimateNewCameraMatrixForUndistortRectify's balance and
# fov_scale; then calibration files (a stereo pair rectified by
# cv2.stereoRectify and saved by cv2.FileStorage, a ROS camera_info, a Kalibr
# camchain) against OpenCV's maps of their numbers.  Passes when, for every
# case, the mean |difference| is below
# 0.1 code values and 99% of the pixels are within 1 (float maps against
# OpenCV's double ones; positions in 1/32 pixel on our side).
# Exits 77 (skipped) without cv2.
#   GST_PLUGIN_PATH=build/gst python3 tests/compare-opencv-models.py [backend]
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

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
jpg = os.path.join(root, "pipelines", "samples", "left01.jpg")
backend = sys.argv[1] if len(sys.argv) > 1 else "auto"
w, h = 640, 480
tmp = tempfile.mkdtemp()


def run(tail, out, ow=w, oh=h):
    cmd = (f"gst-launch-1.0 -q filesrc location={jpg} ! jpegdec ! videoconvert ! "
           f"video/x-raw,format=GRAY8 ! {tail} ! filesink location={out}")
    subprocess.run(cmd, shell=True, check=True)
    return np.fromfile(out, np.uint8).reshape(oh, ow)


src = run("identity", os.path.join(tmp, "in.raw"))
K = np.array([[520.0, 0.0, 321.7], [0.0, 515.0, 236.2], [0.0, 0.0, 1.0]])
names = ["k1", "k2", "p1", "p2", "k3", "k4", "k5", "k6", "s1", "s2", "s3", "s4",
         "tau-x", "tau-y"]
cases = [
    ("rational (8)", [-0.28, 0.11, 0.0012, -0.0007, -0.02, 0.05, 0.01, -0.005]),
    ("thin prism (12)", [-0.26, 0.07, 0.0009, 0.0004, -0.01, 0, 0, 0,
                         0.002, -0.0008, 0.0015, 0.0003]),
    ("tilted sensor (14)", [-0.26, 0.07, 0.0009, 0.0004, -0.01, 0.02, 0, 0,
                            0.002, -0.0008, 0.0015, 0.0003, 0.015, -0.02]),
]
KF = np.array([[285.0, 0.0, 320.4], [0.0, 286.0, 239.1], [0.0, 0.0, 1.0]])
DF = np.array([-0.013, 0.041, -0.037, 0.0095])
print(f"backend={backend}, {w}x{h} GRAY8, bilinear, OpenCV {cv2.__version__}")
print("| model | mean abs diff | max diff | pixels off by > 1 | > 2 |")
print("|---|---:|---:|---:|---:|")
failed = False


def compare(name, ours, ref, mean_bar=0.1):
    global failed
    d = np.abs(ours.astype(int) - ref.astype(int))
    off1, off2 = (d > 1).mean() * 100, (d > 2).mean() * 100
    ok = d.mean() < mean_bar and off1 < 1.0
    failed = failed or not ok
    print(f"| {name} | {d.mean():.4f} | {d.max()} | {off1:.3f}% | {off2:.3f}% |"
          + ("" if ok else " FAIL"))


def against(name, ours, m1, m2):
    """@ours against cv2.remap of the frame with OpenCV's maps @m1, @m2"""
    compare(name, ours, cv2.remap(src, m1, m2, cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=0))


camera = f"fx={K[0, 0]} fy={K[1, 1]} cx={K[0, 2]} cy={K[1, 2]}"
for name, dist in cases:
    props = " ".join(f"{n}={v}" for n, v in zip(names, dist))
    ours = run(f"cudalensdistort backend={backend} model=camera {camera} {props}",
               os.path.join(tmp, "out.raw"))
    m1, m2 = cv2.initUndistortRectifyMap(K, np.array(dist), None, K, (w, h),
                                         cv2.CV_32FC1)
    against(name, ours, m1, m2)

fisheye = (f"model=fisheye fx={KF[0, 0]} fy={KF[1, 1]} cx={KF[0, 2]} cy={KF[1, 2]} "
           + " ".join(f"k{i + 1}={v}" for i, v in enumerate(DF)))
for balance, fov in ((-1, 1.0), (0.0, 1.0), (0.5, 1.0), (1.0, 1.0), (0.0, 1.5)):
    ours = run(f"cudalensdistort backend={backend} {fisheye} balance={balance} "
               f"fov-scale={fov}", os.path.join(tmp, "out.raw"))
    knew = KF if balance < 0 else \
        cv2.fisheye.estimateNewCameraMatrixForUndistortRectify(
            KF, DF, (w, h), np.eye(3), balance=balance, fov_scale=fov)
    m1, m2 = cv2.fisheye.initUndistortRectifyMap(KF, DF, np.eye(3), knew, (w, h),
                                                 cv2.CV_32FC1)
    label = "K kept" if balance < 0 else f"balance {balance:g}, fov_scale {fov:g}"
    against(f"fisheye, {label}", ours, m1, m2)



def fisheye_new_camera(K, D, R, balance):
    """cv2.fisheye.estimateNewCameraMatrixForUndistortRectify as OpenCV 4.7
    and later compute it; until 4.6 the centre of mass's x, not its y, was
    scaled by fx/fy (opencv#22537, fixed by opencv#22604), which only
    matters when fx != fy"""
    if tuple(int(v) for v in cv2.__version__.split(".")[:2]) >= (4, 7):
        return cv2.fisheye.estimateNewCameraMatrixForUndistortRectify(
            K, D, (w, h), R, balance=balance)
    pts = np.array([[[w // 2, 0], [w, h // 2], [w // 2, h], [0, h // 2]]],
                   np.float64)
    p = cv2.fisheye.undistortPoints(pts, K, D, R=R)[0].copy()
    a = K[0, 0] / K[1, 1]
    p[:, 1] *= a
    cn = p.mean(0)
    f = [w * 0.5 / (cn[0] - p[:, 0].min()), w * 0.5 / (p[:, 0].max() - cn[0]),
         h * 0.5 * a / (cn[1] - p[:, 1].min()),
         h * 0.5 * a / (p[:, 1].max() - cn[1])]
    fl = balance * min(f) + (1 - balance) * max(f)
    c = -cn * fl + np.array([w, h * a]) * 0.5
    return np.array([[fl, 0, c[0]], [0, fl / a, c[1] / a], [0, 0, 1]])


# fx != fy: OpenCV 4.7's aspect handling, whatever version is installed
KA = np.array([[300.0, 0.0, 326.0], [0.0, 262.0, 236.0], [0.0, 0.0, 1.0]])
ours = run(f"cudalensdistort backend={backend} model=fisheye fx={KA[0, 0]} "
           f"fy={KA[1, 1]} cx={KA[0, 2]} cy={KA[1, 2]} "
           + " ".join(f"k{i + 1}={v}" for i, v in enumerate(DF)) + " balance=0.5",
           os.path.join(tmp, "out.raw"))
knew = fisheye_new_camera(KA, DF, np.eye(3), 0.5)
m1, m2 = cv2.fisheye.initUndistortRectifyMap(KA, DF, np.eye(3), knew, (w, h),
                                             cv2.CV_32FC1)
against("fisheye, fx != fy, balance 0.5", ours, m1, m2)

# Calibration files, each read by the element and compared with OpenCV's maps
# of the numbers in it: a stereo pair rectified by cv2.stereoRectify and
# saved by cv2.FileStorage (M1 D1 R1 P1 / M2 D2 R2 P2, camera=left/right),
# a ROS camera_info with an equidistant (fisheye) model, a Kalibr camchain.
M1 = np.array([[530.0, 0, 318.0], [0, 529.0, 242.0], [0, 0, 1]])
M2 = np.array([[534.0, 0, 325.0], [0, 533.5, 237.0], [0, 0, 1]])
D1 = np.array([[-0.27, 0.09, 0.0008, -0.0004, -0.02]])
D2 = np.array([[-0.26, 0.08, -0.0005, 0.0006, -0.015]])
Rs, _ = cv2.Rodrigues(np.array([0.01, -0.02, 0.005]))
Ts = np.array([[-60.0], [0.8], [-0.5]])
R1, R2, P1, P2, Q, _, _ = cv2.stereoRectify(M1, D1, M2, D2, (w, h), Rs, Ts,
                                            alpha=0)
stereo = os.path.join(tmp, "stereo.yml")
fs = cv2.FileStorage(stereo, cv2.FILE_STORAGE_WRITE)
for k, v in (("M1", M1), ("D1", D1), ("M2", M2), ("D2", D2), ("R", Rs),
             ("T", Ts), ("R1", R1), ("R2", R2), ("P1", P1), ("P2", P2)):
    fs.write(k, v)
fs.release()
for cam, (M, D, R, P) in (("left", (M1, D1, R1, P1)), ("right", (M2, D2, R2, P2))):
    ours = run(f"cudalensdistort backend={backend} calibration-file={stereo} "
               f"camera={cam}", os.path.join(tmp, "out.raw"))
    m1, m2 = cv2.initUndistortRectifyMap(M, D, R, P, (w, h), cv2.CV_32FC1)
    against(f"stereo FileStorage, {cam} rectified", ours, m1, m2)

ros = os.path.join(tmp, "fisheye.yaml")
with open(ros, "w") as f:
    f.write(f"""image_width: {w}
image_height: {h}
camera_name: fisheye
camera_matrix:
  rows: 3
  cols: 3
  data: [{KF[0, 0]}, 0, {KF[0, 2]}, 0, {KF[1, 1]}, {KF[1, 2]}, 0, 0, 1]
distortion_model: equidistant
distortion_coefficients:
  rows: 1
  cols: 4
  data: [{", ".join(str(v) for v in DF)}]
""")
ours = run(f"cudalensdistort backend={backend} calibration-file={ros}",
           os.path.join(tmp, "out.raw"))
m1, m2 = cv2.fisheye.initUndistortRectifyMap(KF, DF, np.eye(3), KF, (w, h),
                                             cv2.CV_32FC1)
against("ROS camera_info, equidistant", ours, m1, m2)

# the same with a rectification R: balance's camera matrix is found through
# R, as cv::fisheye::estimateNewCameraMatrixForUndistortRectify(K, D, R)
RF, _ = cv2.Rodrigues(np.array([0.03, -0.06, 0.02]))
rosr = os.path.join(tmp, "fisheye-r.yaml")
with open(ros) as f, open(rosr, "w") as g:
    g.write(f.read() + f"""rectification_matrix:
  rows: 3
  cols: 3
  data: [{", ".join(f"{v:.17g}" for v in RF.ravel())}]
projection_matrix:
  rows: 3
  cols: 4
  data: [{KF[0, 0]}, 0, {KF[0, 2]}, 0, 0, {KF[1, 1]}, {KF[1, 2]}, 0, 0, 0, 1, 0]
""")
ours = run(f"cudalensdistort backend={backend} calibration-file={rosr} balance=0.5",
           os.path.join(tmp, "out.raw"))
knew = fisheye_new_camera(KF, DF, RF, 0.5)
m1, m2 = cv2.fisheye.initUndistortRectifyMap(KF, DF, RF, knew, (w, h),
                                             cv2.CV_32FC1)
against("ROS camera_info, equidistant, R, balance 0.5", ours, m1, m2)

kalibr = os.path.join(tmp, "camchain.yaml")
KK = np.array([[461.6, 0, 323.0], [0, 460.3, 238.1], [0, 0, 1]])
DK = np.array([-0.2917, 0.08228, 5.333e-05, -1.578e-04])
with open(kalibr, "w") as f:
    f.write(f"""cam0:
  camera_model: pinhole
  intrinsics: [{KK[0, 0]}, {KK[1, 1]}, {KK[0, 2]}, {KK[1, 2]}]
  distortion_model: radtan
  distortion_coeffs: [{", ".join(str(v) for v in DK)}]
  resolution: [{w}, {h}]
cam1:
  camera_model: pinhole
  intrinsics: [{KF[0, 0]}, {KF[1, 1]}, {KF[0, 2]}, {KF[1, 2]}]
  distortion_model: equidistant
  distortion_coeffs: [{", ".join(str(v) for v in DF)}]
  resolution: [{w}, {h}]
""")
ours = run(f"cudalensdistort backend={backend} calibration-file={kalibr} camera=cam0",
           os.path.join(tmp, "out.raw"))
m1, m2 = cv2.initUndistortRectifyMap(KK, DK, None, KK, (w, h), cv2.CV_32FC1)
against("Kalibr camchain, cam0 radtan", ours, m1, m2)
ours = run(f"cudalensdistort backend={backend} calibration-file={kalibr} camera=cam1",
           os.path.join(tmp, "out.raw"))
m1, m2 = cv2.fisheye.initUndistortRectifyMap(KF, DF, np.eye(3), KF, (w, h),
                                             cv2.CV_32FC1)
against("Kalibr camchain, cam1 equidistant", ours, m1, m2)

# Another output size, asked for by downstream caps: the corrected image at
# that size (P scaled as an image is resized); hmd with k = 0 is then a
# plain resize.
ow, oh = 960, 720
Kd = np.array(K)
dist = cases[0][1][:5]
P = Kd.copy()
P[0, :] = P[0, :] * (ow / w) + (0.5 * ow / w - 0.5) * P[2, :]
P[1, :] = P[1, :] * (oh / h) + (0.5 * oh / h - 0.5) * P[2, :]
props = " ".join(f"{n}={v}" for n, v in zip(names, dist))
ours = run(f"cudalensdistort backend={backend} model=camera {camera} {props} ! "
           f"video/x-raw,width={ow},height={oh}", os.path.join(tmp, "out.raw"),
           ow, oh)
m1, m2 = cv2.initUndistortRectifyMap(K, np.array(dist), None, P, (ow, oh),
                                     cv2.CV_32FC1)
against(f"camera, output {ow}x{oh} from downstream caps", ours, m1, m2)
ours = run(f"cudalensdistort backend={backend} model=hmd k1=0 k2=0 "
           f"off-edge=clamp ! video/x-raw,width={ow},height={oh}",
           os.path.join(tmp, "out.raw"), ow, oh)
# cv2.resize weighs in 1/2048 steps, we place samples in 1/32 pixel: every
# difference is a rounding of one code value, so the bar is no pixel off
compare(f"hmd k=0, output {ow}x{oh}: cv2.resize", ours,
        cv2.resize(src, (ow, oh), interpolation=cv2.INTER_LINEAR), 0.2)
if not failed and np.abs(ours.astype(int) - cv2.resize(
        src, (ow, oh), interpolation=cv2.INTER_LINEAR).astype(int)).max() > 1:
    print("hmd resize: a pixel off by more than 1")
    failed = True

# A map file (the documented CO-MAP1 format) holding OpenCV's own maps of a
# model the element does not have (a division model), through the element
# at the map's size, and resized by downstream caps.
import struct  # noqa: E402
uu, vv = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
xn, yn = (uu - 320) / 400, (vv - 240) / 400
div = 1 / (1 + 0.35 * (xn * xn + yn * yn))
mx = (xn * div * 400 + 320).astype(np.float32)
my = (yn * div * 400 + 240).astype(np.float32)
mx[:8, :8] = np.nan  # no source pixel there
mapfile = os.path.join(tmp, "division.comap")
with open(mapfile, "wb") as f:
    f.write(b"CO-MAP1\n" + struct.pack("<4I", w, h, w, h) +
            mx.astype("<f4").tobytes() + my.astype("<f4").tobytes())
ours = run(f"cudalensdistort backend={backend} map-file={mapfile}",
           os.path.join(tmp, "out.raw"))
ref = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                borderValue=0)
compare("map file (a division model), its own size", ours, ref)
sys.exit(1 if failed else 0)
