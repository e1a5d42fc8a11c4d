#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""cudacltcorrelate through the aberration correction: a stereo rig whose
two cameras have different cheap lenses (space-variant Gaussian blur,
lateral colour, barrel distortion, each its own), 8-bit RGGB sensors.  The
right camera sees the picture at a known horizontal disparity (1 to 3 px
across).  Compared on the textured tiles of the picture
(corr-baselines.py's choice: std >= 12 DN, weaker-direction gradient >=
3 DN/px), RMS and median error in pixels:

  ideal views             the undistorted, unblurred pictures (a bound)
  pixel chain             each raw frame through cudaaberration (its lens's
                          kernels from co-clt-kernels, model=camera with its
                          k1) to BGRx, then both into cudacltcorrelate
  tile processor          the raw frames straight into cudacltcorrelate,
                          each pad with its lens's kernels-file and
                          calibration-file (the colour path: corrected,
                          undistorted tiles, never back to pixels)
  mosaic luma             the raw frames without kernels or calibration

each with refine=1, refine=6 lpf-sigma=1 and refine=6 fat-zero=0.05
lpf-sigma=0.5.

Not a test: the measurement behind docs/cudacltcorrelate.md's table (CPU
backend, the same bits as CUDA).  --texture takes the band-limited texture
of tests/ref/corr-baselines.py.

usage: corr-through-aberration.py PICTURE [BUILD_DIR]   (GST_PLUGIN_PATH=build/gst)
       corr-through-aberration.py --texture [BUILD_DIR]
"""
import os
import subprocess
import sys
import tempfile

import importlib.util

import cv2
import numpy as np
import gi
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import lens_sim  # noqa: E402
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

# the accuracy table's choice of textured tiles (corr-baselines.py)
_spec = importlib.util.spec_from_file_location(
    "corr_baselines", os.path.join(os.path.dirname(os.path.abspath(__file__)), "corr-baselines.py"))
_cb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cb)

BUILD = sys.argv[2] if len(sys.argv) > 2 else "build"
SETTINGS = ("refine=1", "refine=6 lpf-sigma=1", "refine=6 fat-zero=0.05 lpf-sigma=0.5")
tmp = tempfile.mkdtemp()
Gst.init(None)

def lens_view(img, cam, h, w):
    """img (float BGR, undistorted ideal view) through camera cam's lens -> raw RGGB uint8"""
    S0, S1, RED, BLUE, K1 = cam
    return lens_sim.raw_view(img, S0, S1, RED, BLUE, K1, cv2.INTER_LANCZOS4)

def kernels(cam, w, h, name):
    S0, S1, RED, BLUE, K1 = cam
    path = f"{tmp}/{name}.cltk"
    subprocess.run([f"{BUILD}/tools/co-clt-kernels", f"--size={w}x{h}", f"--sigma0={S0}", f"--sigma1={S1}",
                    f"--chroma-red={RED}", f"--chroma-blue={BLUE}", "--nsr=0.02", "--bayer", "-o", path],
                   check=True, stdout=subprocess.DEVNULL)
    return path

def aberr(raw, cam, props, w, h):
    S0, S1, RED, BLUE, K1 = cam
    raw.tofile(f"{tmp}/raw"); out = f"{tmp}/out"
    subprocess.run(f"gst-launch-1.0 -q filesrc location={tmp}/raw blocksize={w*h} ! "
                   f"video/x-bayer,format=rggb,width={w},height={h},framerate=1/1 ! "
                   f"cudaaberration backend=cpu model=camera k1={K1} fx={w} fy={w} cx={(w-1)/2} cy={(h-1)/2} {props} ! "
                   f"video/x-raw,format=BGRx ! filesink location={out}", shell=True, check=True)
    return np.fromfile(out, np.uint8).reshape(h, w, 4)

def correlate(a, b, w, h, props):
    caps = f"video/x-raw,format=BGRx,width={w},height={h},framerate=1/1"
    p = Gst.parse_launch(f"cudacltcorrelate name=c backend=cpu {props} ! appsink name=out "
                         f"appsrc name=a caps={caps} format=time ! c.sink_0 appsrc name=b caps={caps} format=time ! c.sink_1")
    return run_pair(p, a, b)

def run_pair(p, a, b):
    p.set_state(Gst.State.PLAYING)
    for n, im in (("a", a), ("b", b)):
        buf = Gst.Buffer.new_wrapped(np.ascontiguousarray(im).tobytes()); buf.pts = 0; buf.duration = Gst.SECOND
        p.get_by_name(n).emit("push-buffer", buf); p.get_by_name(n).emit("end-of-stream")
    s = p.get_by_name("out").emit("pull-sample").get_buffer().get_custom_meta("GstCoCltCorrelation").get_structure()
    tx, ty = s.get_value("tiles-x"), s.get_value("tiles-y")
    dx = np.frombuffer(s.get_value("shift-x").get_data(), "<f4").reshape(ty, tx)
    dy = np.frombuffer(s.get_value("shift-y").get_data(), "<f4").reshape(ty, tx)
    st = np.frombuffer(s.get_value("strength").get_data(), "<f4").reshape(ty, tx)
    p.set_state(Gst.State.NULL)
    return dx, dy, st

def calibration(cam, w, h, x, name):
    """ROS camera_info: the lens's pinhole and k1, the camera x baselines right"""
    k1 = cam[4]
    cx, cy = (w - 1) / 2, (h - 1) / 2
    path = f"{tmp}/{name}.yaml"
    with open(path, "w") as f:
        f.write(f"image_width: {w}\nimage_height: {h}\ncamera_name: {name}\n"
                f"camera_matrix: {{rows: 3, cols: 3, data: [{w}, 0, {cx}, 0, {w}, {cy}, 0, 0, 1]}}\n"
                f"distortion_model: plumb_bob\n"
                f"distortion_coefficients: {{rows: 1, cols: 5, data: [{k1}, 0, 0, 0, 0]}}\n"
                "rectification_matrix: {rows: 3, cols: 3, data: [1, 0, 0, 0, 1, 0, 0, 0, 1]}\n"
                f"projection_matrix: {{rows: 3, cols: 4, data: [{w}, 0, {cx}, {-w * x}, 0, {w}, {cy}, 0, 0, 0, 1, 0]}}\n")
    return path

def correlate_raw(a, b, w, h, props, pads):
    """the tile processor's path: raw RGGB frames, each pad's kernels and calibration"""
    caps = f"video/x-bayer,format=rggb,width={w},height={h},framerate=1/1"
    p = Gst.parse_launch(f"cudacltcorrelate name=c backend=cpu {props} ! appsink name=out "
                         f"appsrc name=a caps={caps} format=time ! c.sink_0 appsrc name=b caps={caps} format=time ! c.sink_1")
    c = p.get_by_name("c")
    for i, (k, cal) in enumerate(pads or ()):
        pad = c.get_static_pad(f"sink_{i}")
        pad.set_property("kernels-file", k)
        pad.set_property("calibration-file", cal)
    return run_pair(p, a, b)

def main(src, seed):
    img = cv2.imread(src).astype(np.float32)
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    disp = (1.0 + 2.0 * xx / w).astype(np.float32)        # 1..3 px, horizontal
    right = cv2.remap(img, xx + disp, yy, cv2.INTER_LANCZOS4, borderMode=cv2.BORDER_REFLECT)
    camA = (0.8, 1.4, 1.004, 0.996, -0.12)
    camB = (1.1, 1.0, 1.003, 0.997, -0.10)
    rawA = lens_view(img, camA, h, w); rawB = lens_view(right, camB, h, w)
    kA = kernels(camA, w, h, "A"); kB = kernels(camB, w, h, "B")
    ideal = (np.dstack([img, np.full((h, w), 255, np.float32)]).clip(0, 255).round().astype(np.uint8),
             np.dstack([right, np.full((h, w), 255, np.float32)]).clip(0, 255).round().astype(np.uint8))
    fixed = (aberr(rawA, camA, f"kernels-file={kA}", w, h), aberr(rawB, camB, f"kernels-file={kB}", w, h))
    pads = ((kA, calibration(camA, w, h, 0, "A")), (kB, calibration(camB, w, h, 1, "B")))
    runs = (("ideal views", lambda p: correlate(*ideal, w, h, p)),
            ("pixel chain", lambda p: correlate(*fixed, w, h, p)),
            ("tile processor", lambda p: correlate_raw(rawA, rawB, w, h, p, pads)),
            ("mosaic luma", lambda p: correlate_raw(rawA, rawB, w, h, p, None)))
    grey = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float64)
    tiles = _cb.select_tiles(grey, 12, 3)
    sel = (np.array([t[1] for t in tiles]), np.array([t[0] for t in tiles]))
    print(f"{os.path.basename(src)}, {w}x{h}, {len(tiles)} textured tiles: RMS / median error (px)\n")
    print("| path | " + " | ".join(SETTINGS) + " |")
    print("|---|" + "---:|" * len(SETTINGS))
    for name, run in runs:
        cells = []
        for props in SETTINGS:
            dx, dy, st = run(props)
            ty, tx = dx.shape
            cx = np.clip(8 * np.arange(tx) - 0.5, 0, w - 1).astype(np.float32)
            cy = np.clip(8 * np.arange(ty) - 0.5, 0, h - 1).astype(np.float32)
            mx, my = np.meshgrid(cx, cy)
            tr = -cv2.remap(disp, mx, my, cv2.INTER_LINEAR)
            e = np.hypot(dx - tr, dy)[sel]
            cells.append(f"{np.sqrt(np.mean(e ** 2)):.3f} / {np.median(e):.3f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)

def texture(path):
    """the band-limited texture of corr-baselines.py, grey, as a picture"""
    rng = np.random.default_rng(1)
    h, w = 480, 640
    f = np.fft.fft2(rng.normal(size=(h, w)))
    fy, fx = np.fft.fftfreq(h)[:, None], np.fft.fftfreq(w)[None, :]
    f[np.hypot(fx, fy) > 0.45] = 0
    t = np.real(np.fft.ifft2(f))
    t = 128 + 40 * (t - t.mean()) / t.std()
    cv2.imwrite(path, np.dstack([t, t, t]).clip(0, 255).round().astype(np.uint8))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pic = sys.argv[1]
    if pic == "--texture":
        pic = os.path.join(tmp, "texture.png")
        texture(pic)
    main(pic, 0)
