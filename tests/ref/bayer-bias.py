#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""cudacltcorrelate on raw Bayer frames of natural colour pictures moved by
known fractional shifts: the bias of the two raw paths against grey input.

Pictures: the colour photographs coffee, astronaut, chelsea and rocket of
tests/data/natural (LICENSES.md there), cropped to even sizes.  Each is
blurred (a Gaussian of --blur px, a lens and its sensor's filter) and moved
by s = 0.1 ... 0.9 px to the right with band-limited (Fourier)
interpolation, the picture mirrored into a periodic one first; then both
views are
  grey   converted to GRAY8 (BT.601), the element's grey path;
  luma   mosaiced RGGB (8 bits), the element's luma path;
  kern   mosaiced RGGB with each pad's kernels-file (identity kernels:
         co-clt-kernels --nsr=0 --sigma0=0 --bayer), the tile processor's
         path.
Each path runs refine=3 (CPU backend: the same bits as CUDA).  The figure
is the median, over the tiles at least two tiles from the edges whose
strength is 0.3 or more, of shift-x minus s (positive: read too far).

A raw mosaic's colours ride on carriers at (pi, 0), (0, pi) and (pi, pi)
that stay with the sensor when the scene moves; where their sidebands meet
the scene's own high frequencies they pull the shift towards the sensor's
even ones.  The element weighs a mosaic's cross-power away from the
carriers and reads the refinements' residuals with Newton's step.

usage: bayer-bias.py [--check] [--blur S[,S...]] [--backend cpu|cuda]
                     [--kernels-tool PATH]
--check (blur 1.0 must be among the blurs): every path, picture and shift
within 0.05 px of the truth, and each raw path's worst error at most
0.05 px from grey's worst.  About 20 s on two CPU cores; exits 77
without cv2, numpy or gi.
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from system_python import require  # noqa: E402

if not require("cv2", "numpy", "gi"):
    print("no OpenCV (cv2), numpy or PyGObject (gi) here: skipping")
    sys.exit(77)
import cv2  # noqa: E402
import numpy as np  # noqa: E402
import gi  # noqa: E402
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests", "ref"))
from corr_runner import correlate_pairs  # noqa: E402

DATA = os.environ.get("CO_TEST_DATA_DIR", os.path.join(ROOT, "tests", "data"))
PICTURES = ("coffee", "astronaut", "chelsea", "rocket")
SHIFTS = (0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9)
PROPS = "refine=3"
THRESHOLD = 0.3
LIMIT = 0.05


def shifted(img, s):
    """@img (float, h x w x 3) with its content moved +s px along x, by
    band-limited interpolation of the picture mirrored into a periodic one"""
    w = img.shape[1]
    big = np.concatenate([img, img[:, ::-1]], axis=1)
    ph = np.exp(-2j * np.pi * np.fft.fftfreq(big.shape[1]) * s)
    return np.real(np.fft.ifft(np.fft.fft(big, axis=1) * ph[None, :, None],
                               axis=1))[:, :w]


def mosaic(bgr):
    """RGGB sites of a BGR picture, 8 bits"""
    m = np.empty(bgr.shape[:2])
    m[0::2, 0::2] = bgr[0::2, 0::2, 2]
    m[0::2, 1::2] = bgr[0::2, 1::2, 1]
    m[1::2, 0::2] = bgr[1::2, 0::2, 1]
    m[1::2, 1::2] = bgr[1::2, 1::2, 0]
    return m.clip(0, 255).round().astype(np.uint8)


def grey(bgr):
    return cv2.cvtColor(bgr.clip(0, 255).round().astype(np.uint8), cv2.COLOR_BGR2GRAY)


def curves(name, blur, props, tool, tmp):
    """{path: [median error per shift]} for picture @name"""
    img = cv2.imread(os.path.join(DATA, "natural", name + ".png")).astype(np.float64)
    h, w = img.shape[0] & ~1, img.shape[1] & ~1
    img = cv2.GaussianBlur(img[:h, :w], (0, 0), blur)
    views = [shifted(img, s) for s in SHIFTS]
    kern = os.path.join(tmp, f"identity-{w}x{h}.cltk")
    if not os.path.exists(kern):
        subprocess.run([tool, f"--size={w}x{h}", "--nsr=0", "--sigma0=0", "--bayer",
                        "-o", kern], check=True, stdout=subprocess.DEVNULL)
    runs = {
        "grey": ([(grey(img), grey(v)) for v in views], None, None),
        "luma": ([(mosaic(img), mosaic(v)) for v in views], "rggb", None),
        "kern": ([(mosaic(img), mosaic(v)) for v in views], "rggb",
                 [{"kernels-file": kern}] * 2),
    }
    out = {}
    for path, (pairs, bayer, pads) in runs.items():
        res, _ = correlate_pairs(pairs, props, 120, bayer, pads)
        errs = []
        for s, (dx, _, st) in zip(SHIFTS, res):
            dx, st = dx[2:-2, 2:-2], st[2:-2, 2:-2]
            errs.append(float(np.median(dx[st >= THRESHOLD]) - s))
        out[path] = errs
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--blur", default="1.0,0.6")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--kernels-tool", default=os.path.join(ROOT, "build", "tools",
                                                           "co-clt-kernels"))
    args = ap.parse_args()
    Gst.init(None)
    props = f"{PROPS} backend={args.backend}"
    blurs = [float(b) for b in args.blur.split(",")]
    failed = []
    print(f"median shift-x minus the true shift (px), {props}, tiles with "
          f"strength >= {THRESHOLD}\n")
    print("| picture | blur | path | " + " | ".join(f"{s:g}" for s in SHIFTS) +
          " | worst |")
    print("|---|---:|---|" + "---:|" * (len(SHIFTS) + 1))
    with tempfile.TemporaryDirectory() as tmp:
        for name in PICTURES:
            for blur in blurs:
                c = curves(name, blur, props, args.kernels_tool, tmp)
                worst = {k: max(abs(e) for e in v) for k, v in c.items()}
                for path, errs in c.items():
                    print(f"| {name} | {blur:g} | {path} | " +
                          " | ".join(f"{e:+.3f}" for e in errs) +
                          f" | {worst[path]:.3f} |", flush=True)
                    if blur == 1.0 and worst[path] > LIMIT:
                        failed.append(f"{name} {path}: {worst[path]:.3f} px > {LIMIT}")
                    if blur == 1.0 and worst[path] > worst["grey"] + LIMIT:
                        failed.append(f"{name} {path}: {worst[path]:.3f} px, grey "
                                      f"{worst['grey']:.3f}")
    if args.check:
        if 1.0 not in blurs:
            sys.exit("--check needs blur 1.0")
        for f in failed:
            print("FAIL", f)
        sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
