#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""cudacltcorrelate on real stereo pairs with ground truth, against OpenCV's
StereoBM and StereoSGBM in the same run, per 8x8 tile.

Pairs (tests/data/stereo, NOTICE.md there): Middlebury 2005 Art at full
size (1390x1110, disparities 66-225 px, truth in whole pixels) and 2014
Motorcycle at quarter size (741x497, 9-63 px, truth in float).  Both are
rectified: im1's content lies -d pixels along the rows from im0's, so the
element's shift-x of pair 0-1 is -d.

Per tile (tx, ty) of the element's grid (centred on the pixel corner
(8 tx, 8 ty)), the truth is that of the 8x8 pixels around the centre: their
mean where they span at most 3 px (a surface: the mean of whole-pixel
truth is sub-pixel), their median on a depth edge; a tile needs 48 of the
64 known.  A matcher's answer for a tile is the median of its valid
disparities over the same 8x8 pixels (32 at least), the element's its
-shift-x where its strength is above the threshold.  "bad" counts tiles
off by more than 1 px or without an answer (occluded tiles included: the
left band of Art, 225 px wide, has no match in im1 and counts against
every method); "median" is the median error of the answered tiles.

Usage: stereo-eval.py [--backend cpu|cuda] [--check] [--pairs art,motorcycle-q]
--check asserts the current figures (a regression guard, not the goal).
"""
import argparse
import os
import sys
import time

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
# the element's settings for a rectified pair; the strength threshold;
# the left-right check's limit (a second run: its tiles that fail have
# strength 0, so "strength>0" is the check alone)
PROPS = "max-shift={ms} search=horizontal refine=2 lpf-sigma=0.7"
THRESHOLD = 0.2
LR = "lr-check=1"


def read_pfm(path):
    with open(path, "rb") as f:
        if f.readline().strip() != b"Pf":
            raise ValueError(f"{path}: not a grey PFM")
        w, h = map(int, f.readline().split())
        scale = float(f.readline())
        d = np.frombuffer(f.read(), "<f4" if scale < 0 else ">f4")
    d = np.flipud(d.reshape(h, w)).astype(np.float32)
    d[~np.isfinite(d)] = 0
    return d


def load(name):
    d = os.path.join(DATA, "stereo", name)
    a = cv2.imread(os.path.join(d, "im0.png"), cv2.IMREAD_GRAYSCALE)
    b = cv2.imread(os.path.join(d, "im1.png"), cv2.IMREAD_GRAYSCALE)
    if os.path.exists(os.path.join(d, "disp0GT.pfm")):
        gt = read_pfm(os.path.join(d, "disp0GT.pfm"))
    else:
        gt = cv2.imread(os.path.join(d, "disp0.png"), cv2.IMREAD_GRAYSCALE)
        gt = gt.astype(np.float32)
    return a, b, gt


def element(a, b, backend, props):
    """(-shift-x, shift-y, strength) per tile, and seconds"""
    ((sx, sy, strength),), secs = correlate_pairs([(a, b)],
                                                  f"backend={backend} {props}",
                                                  600)
    return (-sx, sy, strength), secs


def tiles(d, valid, shape, truth):
    """per tile: the truth rule (truth=True) or a matcher's median"""
    ty, tx = shape
    t = np.full(shape, np.nan)
    for j in range(1, ty - 1):
        for i in range(1, tx - 1):
            blk = d[8 * j - 4:8 * j + 4, 8 * i - 4:8 * i + 4]
            ok = valid[8 * j - 4:8 * j + 4, 8 * i - 4:8 * i + 4]
            if blk.shape != (8, 8):
                continue
            v = blk[ok]
            if truth and v.size >= 48:
                t[j, i] = v.mean() if v.max() - v.min() <= 3 else np.median(v)
            elif not truth and v.size >= 32:
                t[j, i] = np.median(v)
    return t


def score(answer, truth):
    known = ~np.isnan(truth)
    ans = ~np.isnan(answer) & known
    err = np.abs(answer - truth)
    bad = known & (~ans | (np.nan_to_num(err, nan=1e9) > 1))
    return {"coverage": ans.sum() / known.sum(), "bad": bad.sum() / known.sum(),
            "median": float(np.median(err[ans])) if ans.any() else float("nan")}


def matchers(a, b, ndisp):
    bm = cv2.StereoBM_create(numDisparities=ndisp, blockSize=15)
    sg = cv2.StereoSGBM_create(
        minDisparity=0, numDisparities=ndisp, blockSize=5, P1=8 * 25,
        P2=32 * 25, disp12MaxDiff=1, uniquenessRatio=10,
        speckleWindowSize=100, speckleRange=2, mode=cv2.STEREO_SGBM_MODE_HH)
    out = {}
    for name, m in (("StereoBM", bm), ("StereoSGBM", sg)):
        t0 = time.time()
        d = m.compute(a, b).astype(np.float32) / 16.0
        out[name] = (d, time.time() - t0)
    return out


def run(args):
    Gst.init(None)
    rows = []
    for name in args.pairs.split(","):
        a, b, gt = load(name)
        top = float(gt.max())
        ms = int(np.ceil(top / 16.0) * 16)
        (disp, dy, strength), secs = element(a, b, args.backend,
                                             PROPS.format(ms=ms))
        truth = tiles(gt, gt > 0, disp.shape, True)
        for thr in (0.0, THRESHOLD):
            ans = np.where(strength > thr, disp, np.nan)
            rows.append((name, f"cudacltcorrelate {PROPS.format(ms=ms)}"
                         f" strength>{thr:g} ({args.backend})",
                         score(ans, truth), secs))
        (disp, dy, strength), secs = element(a, b, args.backend,
                                             PROPS.format(ms=ms) + " " + LR)
        ans = np.where(strength > 0, disp, np.nan)
        rows.append((name, f"cudacltcorrelate {PROPS.format(ms=ms)} {LR}"
                     f" strength>0 ({args.backend})", score(ans, truth), secs))
        for mname, (d, t) in matchers(a, b, ms).items():
            ans = tiles(d, d >= 0, disp.shape, False)
            rows.append((name, f"{mname} numDisparities={ms}", score(ans, truth), t))
    print("| pair | method | tiles bad (>1 px or none) | answered | median error | s |")
    print("|---|---|---:|---:|---:|---:|")
    for name, method, s, t in rows:
        print(f"| {name} | {method} | {100 * s['bad']:.1f}% | "
              f"{100 * s['coverage']:.1f}% | {s['median']:.3f} px | {t:.2f} |")
    return rows


def check(rows):
    """the figures of this tree (2026-11-29) with a little slack: a
    regression guard, not the goal"""
    el = {n: s for n, m, s, _ in rows
          if m.startswith("cudacltcorrelate") and "strength>0 " in m and
          LR not in m}
    # (bad tiles, median error) at most
    limits = {"art": (0.42, 0.68), "motorcycle-q": (0.22, 0.20)}
    fails = []
    for n, (bad, med) in limits.items():
        if n not in el:
            continue
        if el[n]["bad"] > bad:
            fails.append(f"{n}: {100 * el[n]['bad']:.1f}% bad tiles "
                         f"(at most {100 * bad:.0f}%)")
        if el[n]["median"] > med:
            fails.append(f"{n}: median error {el[n]['median']:.3f} px "
                         f"(at most {med})")
    for f in fails:
        print("FAIL:", f)
    return not fails


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backend", default="cpu")
    p.add_argument("--pairs", default="motorcycle-q,art")
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    rows = run(args)
    if args.check and not check(rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
