#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""Issue 32's starting point: phase correlation of two 16x16 tiles in the CLT
domain of kernels/clt_math.h, in numpy, independent of the C code.

Per axis C[k] + i S[k] = 0.5 sum_t w[t] x[t] exp(i pi (t + 4.5) (k + 0.5) / 8)
(w the half sine); a tile's four layers are the bicomplex Z = CC + i SC +
j CS + ij SS (i across, j down).  The cross-power a * conj_ij(b), each of
its two complex parts (through the idempotents (1 +- ij) / 2) divided by its
own modulus, goes back to a 15x15 correlation c(sx, sy) as the real part of
the product with exp(i pi sx (k + 0.5) / 8) exp(j pi sy (l + 0.5) / 8), as
kernels/clt_corr_math.h computes it.  For a pure shift
that is a product of two Dirichlet kernels sin(pi u) / sin(pi u / 16), so a
parabola through the peak locks to whole pixels (0.1 px read as 0.046);
fitting that kernel to the peak and its larger neighbour does not.

Not a test yet: run it to see the accuracy on the bundled photograph (tiles
with a standard deviation over 20, shifts within half a pixel) against
cv2.phaseCorrelate on the same tiles:
    /usr/bin/python3 tests/ref/clt-correlate.py [PICTURE]
"""
import sys

import cv2
import numpy as np

N = 8
t = np.arange(16)
k = np.arange(8)
w = np.sin(np.pi * (t + 0.5) / 16)
ang = np.pi * np.outer(k + 0.5, t + 4.5) / 8     # [k, t]
MC = 0.5 * w[None, :] * np.cos(ang)
MS = 0.5 * w[None, :] * np.sin(ang)


def clt(tile):
    """tile [v][h] 16x16 -> (r, i, j, ij) each [kv][kh]"""
    cc = MC @ tile @ MC.T
    sc = MC @ tile @ MS.T      # sine across: i
    cs = MS @ tile @ MC.T      # sine down: j
    ss = MS @ tile @ MS.T
    return np.stack([cc, sc, cs, ss])


def bmul(a, b):
    ar, ai, aj, ak = a
    br, bi, bj, bk = b
    return np.stack([ar * br - ai * bi - aj * bj + ak * bk,
                     ar * bi + ai * br - aj * bk - ak * bj,
                     ar * bj + aj * br - ai * bk - ak * bi,
                     ar * bk + ak * br + ai * bj + aj * bi])


def bconj(b):
    return np.stack([b[0], -b[1], -b[2], b[3]])


s = np.arange(-7, 8)
# e^{i pi s (k+0.5)/8}: cos/sin [s, k]
SA = np.pi * np.outer(s, k + 0.5) / 8
CO, SI = np.cos(SA), np.sin(SA)


def corr_pixels(p):
    """real part of p * e^{i a_x} e^{j a_y} summed over k: [sy][sx] 15x15"""
    pr, pi_, pj, pk = p
    # real part of (pr + i pi + j pj + ij pk)(cx + i sx)(cy + j sy)
    # = pr cx cy - pi sx cy - pj cx sy + pk sx sy
    return (CO @ pr @ CO.T - CO @ pi_ @ SI.T - SI @ pj @ CO.T + SI @ pk @ SI.T)


def cross(za, zb, fat_zero=0.0):
    """Z_a conj(Z_b), normalised: bicomplex numbers split into two complex
    ones through the idempotents (1 +- ij)/2 (z1 = (r + c) + i (a - b),
    z2 = (r - c) + i (a + b)), each divided by its own modulus"""
    r, a, b, c = za
    R, A, B, C = zb
    x1 = ((r + c) + 1j * (a - b)) * np.conj((R + C) + 1j * (A - B))
    x2 = ((r - c) + 1j * (a + b)) * np.conj((R - C) + 1j * (A + B))
    m = (np.abs(x1).mean() + np.abs(x2).mean()) / 2
    p1 = x1 / (np.abs(x1) + fat_zero * m + 1e-30)
    p2 = x2 / (np.abs(x2) + fat_zero * m + 1e-30)
    return np.stack([(p1.real + p2.real) / 2, (p1.imag + p2.imag) / 2,
                     (p2.imag - p1.imag) / 2, (p1.real - p2.real) / 2])


def correlate(ta, tb, fat_zero=0.0, lpf=None):
    p = cross(clt(ta), clt(tb), fat_zero)
    if lpf is not None:
        p = p * lpf[None]
    return corr_pixels(p) / 64


def subpixel(c):
    iy, ix = np.unravel_index(np.argmax(c), c.shape)
    def para(m, z, p):
        d = m - 2 * z + p
        return 0.0 if d >= 0 else 0.5 * (m - p) / d
    dx = para(c[iy, ix - 1], c[iy, ix], c[iy, ix + 1]) if 0 < ix < 14 else 0
    dy = para(c[iy - 1, ix], c[iy, ix], c[iy + 1, ix]) if 0 < iy < 14 else 0
    return ix - 7 + dx, iy - 7 + dy, c[iy, ix]


def shift_image(img, dx, dy):
    h, w_ = img.shape
    fy = np.fft.fftfreq(h)[:, None]
    fx = np.fft.fftfreq(w_)[None, :]
    F = np.fft.fft2(img) * np.exp(-2j * np.pi * (fx * dx + fy * dy))
    return np.real(np.fft.ifft2(F))


B = np.pi / 16
def dirichlet_1d(cm, c0, cp):
    """offset of the peak from the centre sample, fitting
    c(s) = A sin(pi (s - d)) / sin(pi (s - d) / 16) to the larger side"""
    if cp >= cm:
        r = cp / c0 if c0 else 0.0
        u = np.arctan2(-r * np.sin(B), 1 + r * np.cos(B)) / B   # u = i0 - d, i0 = 0
        return -u
    r = cm / c0 if c0 else 0.0
    u = np.arctan2(-r * np.sin(B), 1 + r * np.cos(B)) / B       # mirrored
    return u
def subpixel_dirichlet(c):
    iy, ix = np.unravel_index(np.argmax(c), c.shape)
    dx = dirichlet_1d(c[iy, ix - 1], c[iy, ix], c[iy, ix + 1]) if 0 < ix < 14 else 0
    dy = dirichlet_1d(c[iy - 1, ix], c[iy, ix], c[iy + 1, ix]) if 0 < iy < 14 else 0
    return ix - 7 + dx, iy - 7 + dy


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "pipelines/samples/building.jpg"
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE).astype(np.float64)[:512, :512]
    hann = cv2.createHanningWindow((16, 16), cv2.CV_32F)
    print("| noise (grey levels) | tiles | parabola RMS px | Dirichlet fit RMS px "
          "| Dirichlet fit median abs px | cv2.phaseCorrelate RMS px |")
    print("|---:|---:|---:|---:|---:|---:|")
    for noise in (0.0, 1.0, 3.0):
        rng = np.random.default_rng(7)
        par, fit, cv = [], [], []
        for trial in range(4):
            dx, dy = rng.uniform(-0.5, 0.5, 2)
            b = shift_image(img, dx, dy) + rng.normal(0, noise, img.shape)
            a = img + rng.normal(0, noise, img.shape)
            for y0 in range(32, 470, 24):
                for x0 in range(32, 470, 24):
                    ta = a[y0:y0 + 16, x0:x0 + 16]
                    tb = b[y0:y0 + 16, x0:x0 + 16]
                    if ta.std() < 20:
                        continue
                    c = correlate(ta, tb)
                    ex, ey, _ = subpixel(c)
                    par.append((ex - dx, ey - dy))
                    ex, ey = subpixel_dirichlet(c)
                    fit.append((ex - dx, ey - dy))
                    (px, py), _ = cv2.phaseCorrelate(ta.astype(np.float32),
                                                     tb.astype(np.float32), hann)
                    cv.append((px - dx, py - dy))
        rms = lambda e: np.sqrt((np.array(e) ** 2).sum(1).mean())
        print("| %.0f | %d | %.3f | %.3f | %.3f | %.3f |" % (
            noise, len(fit), rms(par), rms(fit), np.median(np.abs(np.array(fit))),
            rms(cv)))


if __name__ == "__main__":
    main()
