#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
#
# co-clt-kernels from measured PSFs: a picture of 5x4 cells, each the
# image of a point source through a lens whose Gaussian blur grows towards
# the corners and whose red and blue are magnified (rendered here as
# co_clt_lens_psf would see it, plus a background and 8-bit rounding), is
# turned into kernels; they must match the kernels the tool writes from
# the same lens' parameters: each node's shift (the measured lateral
# colour) within 0.06 px, and its coefficients within a few percent.
# Exits 77 (skipped) without numpy.
#   python3 tests/clt-psf-grid.py build/tools/co-clt-kernels
import os
import subprocess
import sys
import tempfile

from system_python import require

if not require("cv2", "numpy"):
    print("no OpenCV (cv2) and numpy here: skipping")
    sys.exit(77)
import cv2  # noqa: E402
import numpy as np  # noqa: E402

tool = sys.argv[1]
W, H, C, R, CELL = 320, 240, 5, 4, 21
S0, S1, RED, BLUE = 0.8, 0.9, 1.01, 0.99
tmp = tempfile.mkdtemp()

xc, yc = (W - 1) / 2, (H - 1) / 2
pic = np.full((R * CELL, C * CELL, 3), 12.0)
for j in range(R):
    for i in range(C):
        x, y = (i + 0.5) * W / C - 0.5, (j + 0.5) * H / R - 0.5
        r2 = ((x - xc) ** 2 + (y - yc) ** 2) / (xc * xc + yc * yc)
        s = S0 + S1 * r2
        for c, mag in enumerate((RED, 1.0, BLUE)):
            # where the colour lands: magnified about the frame's centre
            ox, oy = (x - xc) * (mag - 1), (y - yc) * (mag - 1)
            yy, xx = np.mgrid[0:CELL * 4, 0:CELL * 4]
            px = (xx + 0.5) / 4 - 0.5 - CELL // 2 - ox
            py = (yy + 0.5) / 4 - 0.5 - CELL // 2 - oy
            g = np.exp(-(px * px + py * py) / (2 * s * s))
            g = g.reshape(CELL, 4, CELL, 4).sum(axis=(1, 3))
            pic[j * CELL:(j + 1) * CELL, i * CELL:(i + 1) * CELL, 2 - c] += \
                230 * g / g.max()
cv2.imwrite(tmp + "/psfs.png", np.clip(pic + 0.5, 0, 255).astype(np.uint8))


def kernels(*args):
    out = tmp + "/k.cltk"
    subprocess.run([tool, f"--size={W}x{H}", "--nsr=0.03", "--bayer",
                    "-o", out, *args], check=True, stdout=subprocess.DEVNULL)
    raw = open(out, "rb").read()
    gw, gh = np.frombuffer(raw[16:24], "<u4")
    return np.frombuffer(raw[40:], "<f4").reshape(gh, gw, 3, 258)


measured = kernels(f"--psf-grid={tmp}/psfs.png", f"--psf-cells={C}x{R}")
model = kernels(f"--sigma0={S0}", f"--sigma1={S1}", f"--chroma-red={RED}",
                f"--chroma-blue={BLUE}")
# compare where the cells were measured: nodes near the cells' centres
worst_shift, worst_k = 0.0, 0.0
for j in range(R):
    for i in range(C):
        x, y = (i + 0.5) * W / C - 0.5, (j + 0.5) * H / R - 0.5
        ni, nj = int(round(x / 16)), int(round(y / 16))
        a, b = measured[nj, ni], model[nj, ni]
        worst_shift = max(worst_shift, np.abs(a[:, :2] - b[:, :2]).max())
        rel = np.sqrt(((a[:, 2:] - b[:, 2:]) ** 2).mean(axis=1) /
                      (b[:, 2:] ** 2).mean(axis=1))
        worst_k = max(worst_k, rel.max())
print(f"measured PSFs against the lens' parameters, at the cells: shifts "
      f"within {worst_shift:.3f} px, coefficients within {100 * worst_k:.1f}% "
      f"(rms)")
bad = tmp + "/bad.png"
cv2.imwrite(bad, np.zeros((R * CELL, C * CELL, 3), np.uint8))
rc = subprocess.run([tool, f"--size={W}x{H}", f"--psf-grid={bad}",
                     f"--psf-cells={C}x{R}", "-o", tmp + "/x.cltk"],
                    capture_output=True, text=True)
print(f"a dark PSF picture: exit {rc.returncode}, {rc.stderr.strip()}")
ok = worst_shift < 0.06 and worst_k < 0.05 and rc.returncode != 0 and \
    "no light" in rc.stderr
sys.exit(0 if ok else 1)
