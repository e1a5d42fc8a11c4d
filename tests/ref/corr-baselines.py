#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""cudacltcorrelate's accuracy against the usual baselines, on the same
tiles of the same synthetic pairs with known sub-pixel shifts.

Methods (each measures, per tile, where view b's content lies against view
a's, x right, y down, in pixels):
  el r0        cudacltcorrelate refine=0 (peak=dirichlet, fat-zero=0)
  el r1        cudacltcorrelate refine=1 (the residual after moving b's
               tiles by the first estimate is measured with the centroid)
  el r4        cudacltcorrelate refine=4 (from the third refinement on,
               each step scaled by the gain the last one showed: a secant)
  el r0 fz=F   cudacltcorrelate refine=0 fat-zero=F (--fat-zero, 0.001: the
               best non-zero value for 4 DN of noise in a scan of
               0.001-0.3 on pictures not in this table, camera.png,
               astronaut.png and another texture; larger values bias
               peak=dirichlet more)
  el r4 lpf=S  cudacltcorrelate refine=4 lpf-sigma=S (--lpf-sigma, 1.0):
               the cross-power low-passed, so every refinement reads its
               residual with Newton's step on the continuous correlation.
               S was picked by --scan-lpf, refine=4 at 0.5, 0.75, 1.0, 1.25
               and 1.5 on two photographs not in this table (astronaut.png
               and camera.png, every degradation and shift set below): 1.0
               has the fewest tiles off by more than 0.5 px over noise 1-2 DN
               and the two blurs (5.8% on average; 0.75: 6.9%, 1.25: 6.0%)
               and a mean median within 0.005 px of the best (1.25's);
               smaller values lose on blur, larger ones on noise
  el r6 rfz    cudacltcorrelate refine=6 lpf-sigma=S refine-fat-zero=R
               max-shift=16 (--refine-fat-zero, 0.3): the refinements weigh
               each frequency by its strength (a residual near zero needs no
               whitening), and the search's start keeps plane tiles from
               running away; 0.1-1 give the same within 0.01 px in median
  hann 16      phase correlation as scikit-image's phase_cross_correlation
               with upsample_factor=100 (Guizar-Sicairos et al. 2008), in
               numpy here: the 16x16 windows (means removed) times
               cv2.createHanningWindow, the normalised cross-power, its
               integer peak by inverse FFT, then the correlation evaluated
               as a continuous function by a matrix-multiply DFT around that
               peak (1.5 px at 0.1 px, then 0.2 px at 0.01 px around the
               best of those: skimage's 151 x 151 grid at 0.01 px in two
               steps) and its largest magnitude taken
  hann 32      the same on 32x32 windows with the same centres
  zncc 16      a 16x16 block of view a matched (cv2.matchTemplate,
               TM_CCOEFF_NORMED) over integer offsets -8..8 in view b, then a
               parabola per axis through the best score and its neighbours
  lk 16        Lucas-Kanade on the translation: from zncc 16's integer peak,
               Gauss-Newton on the sum over view a's 16x16 window (uniform
               weights) of (b(p + d) - a(p))^2, b and its gradient read from
               b's cubic B-spline at p + d (the values of
               scipy.ndimage.map_coordinates order=3, computed in numpy);
               a step that raises the sum is halved and tried again (plain
               Gauss-Newton overshoots through two different blurs and
               leaves 95% of the texture's tiles off by more than 0.5 px);
               until a step is under 0.001 px or 20 steps were tried.  Its
               window is anchored in view a, so on the plane it measures
               D(c + s) rather than D(c + s/2): up to 0.014 px apart
  lk 16 win    the same weighted by the element's own window, the lapped
               transform's sin^2 (pi (t + 0.5) / 16) in each direction (the
               weight the CLT tiles give their 16x16 pixels): LK on the
               aperture the element sees
  cv2 16       cv2.phaseCorrelate of the 16x16 tiles, cv2.createHanningWindow
               (its 5x5 centroid reads little of a sub-pixel shift: printed
               for reference, not compared against)
  cv2 32       the same on 32x32 windows with the same centres
The element runs with backend=cpu by default (the same bits as CUDA) on GRAY8
frames through appsrc, its results read from the bus (post-messages=true).
Tile (tx, ty) is centred on the pixel corner (8 tx, 8 ty): the baselines cut
their windows around the same point.

Pictures (8-bit grey): a band-limited random texture (white noise with a
flat spectrum over the disc of 0.45 cycles a pixel, as tests/clt-texture.h,
periodic, mean 128, std 40 DN, 640x480, seed 1), and the photographs
tests/data/natural/coffee.png (512x341) and pipelines/samples/building.jpg
(its central 640x480), converted to grey.

Shifts: "small" is four pairs with constant shifts, (0.3, -0.2) and three
drawn uniformly from the disc of radius 0.5 (seed 2); "plane" is one pair
whose shift field is a tilted plane in each component, x: -3 at the left
edge to +3 at the right, y: +2 at the top to -2 at the bottom.  View b is
rendered from the (float) picture by band-limited (Fourier) interpolation:
the picture is mirrored into a periodic one of twice its size (the
texture, already periodic, is not) and b(q) = a(q - D(q)) is evaluated with
the periodic Dirichlet kernel, separably, since D_x depends on x only and D_y
on y only; no cubic or Lanczos resampling error enters the truth.  The true
shift of a tile centred at c is the s with s = D(c + s/2) (the content
point that lies symmetrically about c in the two views; for the plane this
differs from D(c) by up to 0.014 px).

Degradations, applied to both rendered views before they are rounded to 8
bits: clean; Gaussian noise of 1, 2 and 4 DN (independent in each view,
seeded); the same Gaussian blur (sigma 1.0 px) on both; different blurs,
sigma 0.8 on view a and 1.4 on view b (two imperfect lenses).

Tiles: the same for every method and degradation of a picture: every other
tile across and down (non-overlapping 16x16 tiles, so independent samples),
centres at least 24 px from the frame's edges, and the 16x16 tile of the
clean picture textured in both directions: a standard deviation of at
least --min-std (12) DN and an RMS gradient along its weaker direction
(the square root of the structure tensor's smaller eigenvalue, central
differences) of at least --min-grad (3) DN/px, so that no method meets the
aperture problem of a lone edge.  The element's strength is not used to select tiles (it would favour the
element); the share of the selected tiles with strength < 0.3 is in the
JSON.  Errors are the length of the 2-D error vector |estimate - truth|:
the table gives RMS / median in px / the share of tiles off by more than
0.5 px, pooled over the pairs of a case (the JSON has them as rms, median
and over_half_px, with the mean error per axis).

usage: corr-baselines.py [--json FILE] [--check] [--backend cpu|cuda|auto]
                         [--fat-zero F] [--lpf-sigma S] [--min-std DN]
                         [--min-grad DN/px] [--scan-lpf]
       (GST_PLUGIN_PATH=build/gst; exits 77 without cv2, numpy or gi;
       scipy and scikit-image are not needed)
About 50 s on two CPU cores (--scan-lpf: about 35 s; it checks nothing).
--check asserts, and exits 1 unless they hold (thresholds 1.3-2x from the
values measured on the CPU backend, ratios at least 1.4x clear of the
measured ones):
  clean, small shifts, every picture: el r0 RMS <= 0.06 px, and < 0.6 x zncc 16's
  clean, plane, every picture: el r1 median <= 0.10 px, and < 0.8 x el r0's
  texture, small shifts, noise 1 / 2 / 4 DN: el r0 RMS <= 0.08 / 0.11 / 0.15 px
  texture, small and plane, noise 1 / 2 / 4 DN and blur 1.0: el r1 RMS <= 0.075 px
  texture, plane, clean / noise 4 DN / blur 1.0: el r4 RMS < el r1's
  texture, clean, small: hann 16 RMS <= 0.11 px and lk 16 RMS <= 0.04 px
    (the baselines work)
  texture, small and plane: el r4 lpf RMS <= 0.05 px, 0.15 px through two
    different blurs; small, clean / noise 1 / blur 1.0: < 0.7 x el r4's
  every picture, clean / noise 1 / blur 1.0 (small and plane) and noise 2 /
    blur 0.8/1.4 (plane): el r4 lpf median < 0.7 x hann 16's
  photographs, plane, every degradation: el r4 lpf's share of tiles off by
    more than 0.5 px < 0.6 x hann 16's
  texture, small, clean / noise 1 / 2 DN: el r4 lpf median < 0.75 x lk 16's
  photographs, noise 1 / 2 / 4 DN (small; 2 and 4 plane too): el r6 rfz
    median < 1.4 x lk 16 win's (LK through the element's window)
It asserts nothing where the element is weak (see the table): lk 16 is
ahead of every element column on the photographs once there is noise or
blur (median and share of tiles off by more than 0.5 px), and on the
texture's median through blur and with 4 DN on the plane; hann 16 and
hann 32 have fewer tiles off by more than 0.5 px on small shifts of blurred
photographs; fat-zero with peak=dirichlet is biased.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
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
sys.path.insert(0, HERE)
from corr_runner import correlate_pairs  # noqa: E402

SMALL_FIRST = (0.3, -0.2)
DEGRADATIONS = [
    ("clean", dict()),
    ("noise 1", dict(noise=1.0)),
    ("noise 2", dict(noise=2.0)),
    ("noise 4", dict(noise=4.0)),
    ("blur 1.0", dict(blur=(1.0, 1.0))),
    ("blur 0.8/1.4", dict(blur=(0.8, 1.4))),
]
METHODS = ["el r0", "el r1", "el r4", "el r0 fz", "el r4 lpf", "el r6 rfz", "hann 16", "hann 32",
           "zncc 16", "lk 16", "lk 16 win", "cv2 16", "cv2 32"]
# the lpf-sigma values --scan-lpf tries on pictures not in the table
LPF_SCAN = (0.5, 0.75, 1.0, 1.25, 1.5)


# ---------------------------------------------------------------- pictures

def texture(h=480, w=640, seed=1):
    rng = np.random.default_rng(seed)
    fy = np.fft.fftfreq(h)[:, None]
    fx = np.fft.fftfreq(w)[None, :]
    t = np.real(np.fft.ifft2(np.fft.fft2(rng.normal(size=(h, w))) *
                             (np.hypot(fx, fy) < 0.45)))
    return 128 + 40 * t / t.std()


def photo(path, size=None):
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if img is None:
        sys.exit(f"cannot read {path}")
    if size:
        w, h = size
        y0, x0 = (img.shape[0] - h) // 2, (img.shape[1] - w) // 2
        img = img[y0:y0 + h, x0:x0 + w]
    return img.astype(np.float64)


def dirichlet_matrix(pos, n):
    """[len(pos), n]: weights that evaluate a signal of period n at the
    positions pos by band-limited (trigonometric) interpolation"""
    u = pos[:, None] - np.arange(n)[None, :]
    s = np.sin(np.pi * u / n)
    small = np.abs(s) < 1e-12
    s = np.where(small, 1.0, s)
    if n % 2:
        k = np.sin(np.pi * u) / s
        k = np.where(small, n * np.cos(np.pi * u * (n - 1) / n), k)
    else:                      # n - 1 harmonics and half the Nyquist one
        k = np.sin(np.pi * u * (n - 1) / n) / s
        k = np.where(small, (n - 1) * np.cos(np.pi * u * (n - 2) / n), k)
        k = k + np.cos(np.pi * u)
    return k / n


def render(img, periodic, px, py):
    """img sampled at the columns px and rows py (band-limited)"""
    h, w = img.shape
    if periodic:
        wy, wx = dirichlet_matrix(py, h), dirichlet_matrix(px, w)
    else:
        # mirrored into a periodic, continuous picture of twice the size,
        # its weights folded back onto the picture's own samples
        wy, wx = dirichlet_matrix(py, 2 * h), dirichlet_matrix(px, 2 * w)
        wy = wy[:, :h] + wy[:, :h - 1:-1]
        wx = wx[:, :w] + wx[:, :w - 1:-1]
    return wy @ img @ wx.T


class Field:
    """content displacement of view b against view a, D_x(x), D_y(y)
    (linear), evaluated on b's pixel centres"""

    def __init__(self, dx, dy):
        self.ax, self.bx = dx          # D_x = ax + bx * x
        self.ay, self.by = dy

    def view_b(self, img, periodic):
        h, w = img.shape
        x = np.arange(w, dtype=np.float64)
        y = np.arange(h, dtype=np.float64)
        return render(img, periodic, x - (self.ax + self.bx * x),
                      y - (self.ay + self.by * y))

    def truth(self, cx, cy):
        """s = D(c + s / 2) at the centres (pixel-centre coordinates)"""
        sx = self.ax + self.bx * cx
        sy = self.ay + self.by * cy
        for _ in range(4):
            sx = self.ax + self.bx * (cx + sx / 2)
            sy = self.ay + self.by * (cy + sy / 2)
        return sx, sy


def constant(d):
    return Field((d[0], 0.0), (d[1], 0.0))


def plane(w, h):
    # x: -3 at the left edge, +3 at the right; y: +2 at the top, -2 bottom
    return Field((-3.0, 6.0 / (w - 1)), (2.0, -4.0 / (h - 1)))


def degrade(img, which, rng, noise=0.0, blur=None):
    out = img
    if blur:
        out = cv2.GaussianBlur(out, (0, 0), blur[which],
                               borderType=cv2.BORDER_REFLECT)
    if noise:
        out = out + rng.normal(0, noise, out.shape)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- element

def element(pairs, backend, refine=0, fat_zero=0.0, lpf_sigma=0.0, more=""):
    """cudacltcorrelate on GRAY8 pairs: [(shift-x, shift-y, strength)]"""
    return correlate_pairs(pairs, f"backend={backend} refine={refine} "
                           f"fat-zero={fat_zero} lpf-sigma={lpf_sigma} {more}",
                           120)[0]


# ---------------------------------------------------------------- baselines

HANN = {n: cv2.createHanningWindow((n, n), cv2.CV_64F) for n in (16, 32)}


def phase_correlate(a, b, tiles, n):
    h = n // 2
    out = np.empty((len(tiles), 2))
    for i, (tx, ty) in enumerate(tiles):
        x, y = 8 * tx, 8 * ty
        # copies: OpenCV 4.6 ignores the window on non-contiguous views
        (sx, sy), _ = cv2.phaseCorrelate(
            np.ascontiguousarray(a[y - h:y + h, x - h:x + h]),
            np.ascontiguousarray(b[y - h:y + h, x - h:x + h]), HANN[n])
        out[i] = sx, sy
    return out


def parabola(m, z, p):
    d = m - 2 * z + p
    return 0.5 * (m - p) / d if d < 0 else 0.0


def zncc(a, b, tiles, r=8):
    """the parabola's estimates and the integer peaks, [len(tiles), 2] each"""
    out = np.empty((len(tiles), 2))
    peak = np.empty((len(tiles), 2))
    for i, (tx, ty) in enumerate(tiles):
        x, y = 8 * tx, 8 * ty
        c = cv2.matchTemplate(b[y - 8 - r:y + 8 + r, x - 8 - r:x + 8 + r],
                              a[y - 8:y + 8, x - 8:x + 8], cv2.TM_CCOEFF_NORMED)
        c[~np.isfinite(c)] = -1.0
        iy, ix = np.unravel_index(np.argmax(c), c.shape)
        dx = parabola(c[iy, ix - 1], c[iy, ix], c[iy, ix + 1]) if 0 < ix < 2 * r else 0.0
        dy = parabola(c[iy - 1, ix], c[iy, ix], c[iy + 1, ix]) if 0 < iy < 2 * r else 0.0
        out[i] = ix - r + dx, iy - r + dy
        peak[i] = ix - r, iy - r
    return out, peak


def windows(img, tiles, n):
    """[len(tiles), n, n]: the n x n windows centred on the tiles' centres"""
    t = np.asarray(tiles)
    r = np.arange(n) - n // 2
    ys, xs = 8 * t[:, 1, None] + r, 8 * t[:, 0, None] + r
    return img[ys[:, :, None], xs[:, None, :]]


def dft_around(r, cy, cx, step, m):
    """the inverse DFT of the cross-powers r [T, n, n] (no 1 / n^2) on an
    m x m grid of spacing step centred on (cx, cy) [T]: the correlation as a
    continuous, band-limited function, evaluated only where it is needed
    (Guizar-Sicairos et al. 2008), for all tiles at once: the centre moved
    into r as phase ramps, then two matrix products with one m x n kernel;
    the magnitudes [T, m, m] (skimage's criterion: with the lone Nyquist
    terms of an even n the values are not quite real) and the grid's
    coordinates [T, m] each"""
    n = r.shape[1]
    k = 2j * np.pi / n * np.fft.fftfreq(n, 1.0 / n)    # signed, cycles a window
    r = (r * np.exp(cy[:, None] * k)[:, :, None] *
         np.exp(cx[:, None] * k)[:, None, :])
    off = (np.arange(m) - (m - 1) / 2) * step
    e = np.exp(off[:, None] * k[None, :])               # [m, n]
    v = np.tensordot(e, r, ([1], [1])) @ e.T            # [m (y), T, m (x)]
    return np.abs(v).transpose(1, 0, 2), cy[:, None] + off, cx[:, None] + off


def hann_upsampled(a, b, tiles, n, upsample=100):
    """phase correlation of Hann-windowed n x n windows, its peak located to
    1 / upsample px by the upsampled DFT around the integer peak"""
    wa, wb = windows(a, tiles, n), windows(b, tiles, n)
    # the window means removed before the window (skimage leaves them;
    # removing them is slightly better on astronaut.png, not in the table)
    wa = (wa - wa.mean((1, 2), keepdims=True)) * HANN[n]
    wb = (wb - wb.mean((1, 2), keepdims=True)) * HANN[n]
    r = np.conj(np.fft.fft2(wa)) * np.fft.fft2(wb)    # peak at +shift
    r /= np.maximum(np.abs(r), 1e-12)
    c = np.fft.ifft2(r).real.reshape(len(r), -1)
    iy, ix = np.unravel_index(np.argmax(c, 1), (n, n))
    cy = np.where(iy >= n // 2, iy - n, iy).astype(np.float64)
    cx = np.where(ix >= n // 2, ix - n, ix).astype(np.float64)
    # skimage evaluates 1.5 x 1.5 px around the integer peak at 1 / upsample
    # px in one go (151 x 151 values a tile); the same square at 0.1 px, then
    # 0.2 px at 1 / upsample px around the best of those find the same
    # maximum at 1 / 30 of the products (99% of the tiles or more, checked
    # against the full grid; the others' maxima lie on the square's edge,
    # where skimage stops and the second step looks up to 0.1 px beyond)
    t = np.arange(len(r))
    for step, m in ((0.1, 16), (1.0 / upsample, 21)):
        v, y, x = dft_around(r, cy, cx, step, m)
        jy, jx = np.unravel_index(np.argmax(v.reshape(len(r), -1), 1), (m, m))
        cy, cx = y[t, jy], x[t, jx]
    return np.stack([cx, cy], 1)


# the cubic B-spline's interpolation prefilter, the inverse of (1, 4, 1) / 6:
# sqrt(3) z^|k|, z = sqrt(3) - 2, truncated where z^|k| < 1e-9
SPLINE_Z = np.sqrt(3.0) - 2.0
SPLINE_PREFILTER = np.sqrt(3.0) * SPLINE_Z ** np.abs(np.arange(-16, 17))


def spline_coeffs(img):
    """cubic B-spline coefficients of img (mirrored at the edges; in the
    interior the values of scipy.ndimage.spline_filter, without scipy)"""
    return cv2.sepFilter2D(img, cv2.CV_64F, SPLINE_PREFILTER, SPLINE_PREFILTER,
                           borderType=cv2.BORDER_REFLECT_101)


def bspline_weights(t):
    """[T, 4] cubic B-spline weights of the taps -1..2 at the fractions t
    [T], and their derivatives"""
    t = t[:, None]
    s = 1 - t
    w = np.concatenate([s ** 3, 3 * t ** 3 - 6 * t ** 2 + 4,
                        -3 * t ** 3 + 3 * t ** 2 + 3 * t + 1, t ** 3], 1) / 6
    dw = np.concatenate([-s ** 2, 3 * t ** 2 - 4 * t,
                         -3 * t ** 2 + 2 * t + 1, t ** 2], 1) / 2
    return w, dw


def spline_windows(coef, x0, y0, n):
    """the cubic spline and its x and y derivatives on n x n grids whose
    first sample is at (x0, y0) [T] (pixel indices): separable, since every
    sample of a window has the same fraction"""
    ix, iy = np.floor(x0), np.floor(y0)
    wx, dwx = bspline_weights(x0 - ix)
    wy, dwy = bspline_weights(y0 - iy)
    r = np.arange(n + 3) - 1
    ys, xs = iy.astype(int)[:, None] + r, ix.astype(int)[:, None] + r
    p = coef[ys[:, :, None], xs[:, None, :]]
    q = sum(wx[:, k, None, None] * p[:, :, k:k + n] for k in range(4))
    qd = sum(dwx[:, k, None, None] * p[:, :, k:k + n] for k in range(4))
    v = sum(wy[:, k, None, None] * q[:, k:k + n] for k in range(4))
    vx = sum(wy[:, k, None, None] * qd[:, k:k + n] for k in range(4))
    vy = sum(dwy[:, k, None, None] * q[:, k:k + n] for k in range(4))
    return v, vx, vy


# the CLT tile's weight of its 16 x 16 pixels (the window squared)
CLT_WEIGHT = np.outer(*(2 * [np.sin(np.pi * (np.arange(16) + 0.5) / 16) ** 2]))


def lucas_kanade(a, b, tiles, start, n=16, iters=20, tol=1e-3, reach=12.0,
                 weight=None):
    """Gauss-Newton on the translation d that minimises the sum over view
    a's n x n window of (b(p + d) - a(p))^2, uniform weights, b and its
    gradients read from its cubic spline at p + d; from start [T, 2]; a step
    that raises the sum is halved instead (without it, two views blurred
    differently make the steps overshoot: b's weaker gradients against a's
    sharper differences); until a step is shorter than tol px or after iters
    steps tried; all tiles at once; @weight: n x n weights of the window
    (None: uniform)"""
    w = np.ones((n, n)) if weight is None else weight
    t = np.asarray(tiles)
    ta = windows(a, tiles, n)
    coef = spline_coeffs(b)
    x0, y0 = 8.0 * t[:, 0] - n // 2, 8.0 * t[:, 1] - n // 2
    d = np.array(start, np.float64)
    ssd = np.full(len(t), np.inf)
    step = np.zeros_like(d)
    live = np.arange(len(t))
    for _ in range(iters + 1):          # the start, then the steps tried
        trial = np.clip(d[live] + step[live], -reach, reach)  # within the frame
        v, vx, vy = spline_windows(coef, x0[live] + trial[:, 0],
                                   y0[live] + trial[:, 1], n)
        e = ta[live] - v
        f = (w * e * e).sum((1, 2))
        better = f <= ssd[live]
        step[live[~better]] /= 2
        live_b = live[better]
        d[live_b], ssd[live_b] = trial[better], f[better]
        vx, vy, e = vx[better], vy[better], e[better]
        hxx, hyy = (w * vx * vx).sum((1, 2)), (w * vy * vy).sum((1, 2))
        hxy = (w * vx * vy).sum((1, 2))
        gx, gy = (w * vx * e).sum((1, 2)), (w * vy * e).sum((1, 2))
        det = hxx * hyy - hxy ** 2
        ok = det > 1e-9 * (hxx + hyy) ** 2      # a singular tile stops
        det = np.where(ok, det, 1.0)
        step[live_b, 0] = np.where(ok, (hyy * gx - hxy * gy) / det, 0.0)
        step[live_b, 1] = np.where(ok, (hxx * gy - hxy * gx) / det, 0.0)
        live = live[np.hypot(step[live, 0], step[live, 1]) >= tol]
        if not len(live):
            break
    return d


# ---------------------------------------------------------------- cases

def select_tiles(img, min_std, min_grad, margin=24):
    """non-overlapping interior tiles, textured in both directions: the
    tile's std >= min_std and the RMS gradient along its weaker direction
    (square root of the structure tensor's smaller eigenvalue; central
    differences) >= min_grad, on the clean picture"""
    h, w = img.shape
    gx = cv2.Sobel(img, cv2.CV_64F, 1, 0, ksize=1) / 2
    gy = cv2.Sobel(img, cv2.CV_64F, 0, 1, ksize=1) / 2
    tiles = []
    for ty in range(0, h // 8 + 1, 2):
        for tx in range(0, w // 8 + 1, 2):
            x, y = 8 * tx, 8 * ty
            if x < margin or y < margin or x + margin > w or y + margin > h:
                continue
            win = np.s_[y - 8:y + 8, x - 8:x + 8]
            jxx, jyy = np.mean(gx[win] ** 2), np.mean(gy[win] ** 2)
            jxy = np.mean(gx[win] * gy[win])
            weak = (jxx + jyy) / 2 - np.hypot((jxx - jyy) / 2, jxy)
            if img[win].std() >= min_std and np.sqrt(max(weak, 0)) >= min_grad:
                tiles.append((tx, ty))
    return tiles


def pictures():
    return [
        ("texture", texture(), True),
        ("coffee", photo(os.path.join(ROOT, "tests", "data", "natural",
                                      "coffee.png")), False),
        ("building", photo(os.path.join(ROOT, "pipelines", "samples",
                                        "building.jpg"), (640, 480)), False),
    ]


def small_shifts():
    rng = np.random.default_rng(2)
    out = [SMALL_FIRST]
    while len(out) < 4:
        d = rng.uniform(-0.5, 0.5, 2)
        if np.hypot(*d) < 0.5:
            out.append(tuple(float(v) for v in d))
    return out


def stats(err):
    e = np.hypot(err[:, 0], err[:, 1])
    return dict(rms=float(np.sqrt(np.mean(e ** 2))), median=float(np.median(e)),
                bias_x=float(err[:, 0].mean()), bias_y=float(err[:, 1].mean()),
                over_half_px=float(np.mean(e > 0.5)))


def make_cases(pic_i, name, img, periodic, tiles, shifts):
    """the picture's cases (one per shift set and degradation, the truth at
    the tiles' centres per pair) and their pairs, in one list"""
    h, w = img.shape
    txy = np.array(tiles)
    cx, cy = 8.0 * txy[:, 0] - 0.5, 8.0 * txy[:, 1] - 0.5
    sets = [("small", [constant(d) for d in shifts]),
            ("plane", [plane(w, h)])]
    views = {s: [f.view_b(img, periodic) for f in fields]
             for s, fields in sets}
    cases, pairs = [], []
    for set_name, fields in sets:
        for deg_i, (deg, kw) in enumerate(DEGRADATIONS):
            case = dict(picture=name, degradation=deg, shifts=set_name,
                        size=[w, h], tiles_per_pair=len(tiles),
                        pairs=len(fields), first=len(pairs), truth=[])
            for k, f in enumerate(fields):
                rng = np.random.default_rng([pic_i, deg_i, k, set_name == "plane"])
                pairs.append((degrade(img, 0, rng, **kw),
                              degrade(views[set_name][k], 1, rng, **kw)))
                case["truth"].append(np.stack(f.truth(cx, cy), 1))
            cases.append(case)
    return cases, pairs


def at_tiles(res, txy):
    """an element result's (shift-x, shift-y) [T, 2] and strength [T] at the
    tiles"""
    sx, sy, st = res
    return (np.stack([sx[txy[:, 1], txy[:, 0]], sy[txy[:, 1], txy[:, 0]]], 1),
            st[txy[:, 1], txy[:, 0]])


def finish(case, est):
    truth = np.concatenate(case.pop("truth"))
    case.pop("first")
    case["tiles"] = len(truth)
    case["zero_rms"] = float(np.sqrt(np.mean(np.sum(truth ** 2, 1))))
    case["methods"] = {m: stats(np.concatenate(e) - truth) for m, e in est.items()}
    return case


def run(args):
    rows = []
    shifts = small_shifts()
    for pic_i, (name, img, periodic) in enumerate(pictures()):
        tiles = select_tiles(img, args.min_std, args.min_grad)
        txy = np.array(tiles)
        cases, pairs = make_cases(pic_i, name, img, periodic, tiles, shifts)
        el = {"el r0": element(pairs, args.backend, 0, 0.0),
              "el r1": element(pairs, args.backend, 1, 0.0),
              "el r4": element(pairs, args.backend, 4, 0.0),
              "el r0 fz": element(pairs, args.backend, 0, args.fat_zero),
              "el r4 lpf": element(pairs, args.backend, 4, 0.0, args.lpf_sigma),
              "el r6 rfz": element(pairs, args.backend, 6, 0.0, args.lpf_sigma,
                                   f"refine-fat-zero={args.refine_fat_zero} "
                                   "max-shift=16")}
        for case in cases:
            est = {m: [] for m in METHODS}
            weak = {m: [] for m in el}
            for k in range(case["pairs"]):
                i = case["first"] + k
                for m, res in el.items():
                    e, st = at_tiles(res[i], txy)
                    est[m].append(e)
                    weak[m].append(st < 0.3)
                a, b = (v.astype(np.float64) for v in pairs[i])
                est["cv2 16"].append(phase_correlate(a, b, tiles, 16))
                est["cv2 32"].append(phase_correlate(a, b, tiles, 32))
                est["hann 16"].append(hann_upsampled(a, b, tiles, 16))
                est["hann 32"].append(hann_upsampled(a, b, tiles, 32))
                zn, peak = zncc(a.astype(np.float32), b.astype(np.float32), tiles)
                est["zncc 16"].append(zn)
                est["lk 16"].append(lucas_kanade(a, b, tiles, peak))
                est["lk 16 win"].append(lucas_kanade(a, b, tiles, peak,
                                                     weight=CLT_WEIGHT))
            finish(case, est)
            for m in el:
                case["methods"][m]["weak_strength_share"] = float(
                    np.mean(np.concatenate(weak[m])))
            rows.append(case)
    return rows, shifts


def scan_lpf(args):
    """refine=4 at each lpf-sigma of LPF_SCAN on two photographs not in
    the table: rows as run's, one method per value"""
    rows = []
    shifts = small_shifts()
    for pic_i, name in enumerate(("astronaut", "camera"), 10):
        img = photo(os.path.join(ROOT, "tests", "data", "natural", name + ".png"))
        tiles = select_tiles(img, args.min_std, args.min_grad)
        txy = np.array(tiles)
        cases, pairs = make_cases(pic_i, name, img, False, tiles, shifts)
        el = {f"lpf {s:g}": element(pairs, args.backend, 4, 0.0, s)
              for s in LPF_SCAN}
        for case in cases:
            est = {m: [at_tiles(res[case["first"] + k], txy)[0]
                       for k in range(case["pairs"])] for m, res in el.items()}
            rows.append(finish(case, est))
    return rows, shifts


def table(rows, args):
    methods = list(rows[0]["methods"])
    names = {"el r0 fz": f"el r0 fz={args.fat_zero:g}",
             "el r4 lpf": f"el r4 lpf={args.lpf_sigma:g}",
             "el r6 rfz": f"el r6 lpf={args.lpf_sigma:g} rfz={args.refine_fat_zero:g} ms=16"}
    lines = ["| picture | degradation | shifts | tiles | " +
             " | ".join(names.get(m, m) for m in methods) + " |",
             "|---|---|---|---:|" + "---:|" * len(methods)]
    for r in rows:
        ms = r["methods"]
        best = min(ms[m]["rms"] for m in methods)
        cells = []
        for m in methods:
            c = (f"{ms[m]['rms']:.3f} / {ms[m]['median']:.3f} / "
                 f"{100 * ms[m]['over_half_px']:.1f}%")
            cells.append(f"**{c}**" if ms[m]["rms"] == best else c)
        lines.append(f"| {r['picture']} | {r['degradation']} | {r['shifts']} | "
                     f"{r['tiles']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------- checks

def find(rows, pic, deg, shifts):
    return next(r["methods"] for r in rows if r["picture"] == pic and
                r["degradation"] == deg and r["shifts"] == shifts)


def checks(rows):
    """(claim, holds): what the table supports with margin (each threshold
    is 1.3-2x from the value measured on the CPU backend, or a ratio well
    clear of the measured one); the element's weaknesses are not asserted"""
    out = []
    pics = ("texture", "coffee", "building")
    for pic in pics:
        m = find(rows, pic, "clean", "small")
        out.append((f"{pic}, clean, small: el r0 RMS <= 0.06 px "
                    f"({m['el r0']['rms']:.3f})", m["el r0"]["rms"] <= 0.06))
    for pic in pics:
        m = find(rows, pic, "clean", "plane")
        out.append((f"{pic}, clean, plane: el r1 median <= 0.10 px "
                    f"({m['el r1']['median']:.3f})", m["el r1"]["median"] <= 0.10))
    for deg, lim in (("noise 1", 0.08), ("noise 2", 0.11), ("noise 4", 0.15)):
        m = find(rows, "texture", deg, "small")
        out.append((f"texture, {deg}, small: el r0 RMS <= {lim} px "
                    f"({m['el r0']['rms']:.3f})", m["el r0"]["rms"] <= lim))
    # refined on noisy and blurred textures: the residual is measured with
    # the centroid, which noise and a blur common to both views leave
    # unbiased (measured 0.032-0.053 px)
    for shifts in ("small", "plane"):
        for deg in ("noise 1", "noise 2", "noise 4", "blur 1.0"):
            m = find(rows, "texture", deg, shifts)
            out.append((f"texture, {deg}, {shifts}: el r1 RMS <= 0.075 px "
                        f"({m['el r1']['rms']:.3f})", m["el r1"]["rms"] <= 0.075))
    for pic in pics:
        m = find(rows, pic, "clean", "small")
        out.append((f"{pic}, clean, small: el r0 RMS < 0.6 x zncc 16's "
                    f"({m['el r0']['rms']:.3f} vs {m['zncc 16']['rms']:.3f})",
                    m["el r0"]["rms"] < 0.6 * m["zncc 16"]["rms"]))
    for pic in pics:
        m = find(rows, pic, "clean", "plane")
        out.append((f"{pic}, clean, plane (shifts to 3 px): el r1 median < "
                    f"0.8 x el r0's ({m['el r1']['median']:.3f} vs "
                    f"{m['el r0']['median']:.3f})",
                    m["el r1"]["median"] < 0.8 * m["el r0"]["median"]))
    # the secant's later refinements converge further on textured views
    for deg in ("clean", "noise 4", "blur 1.0"):
        m = find(rows, "texture", deg, "plane")
        out.append((f"texture, {deg}, plane: el r4 RMS < el r1's "
                    f"({m['el r4']['rms']:.3f} vs {m['el r1']['rms']:.3f})",
                    m["el r4"]["rms"] < m["el r1"]["rms"]))
    # the baselines themselves, so that a broken one cannot flatter the
    # element (measured 0.074 and 0.026 px)
    m = find(rows, "texture", "clean", "small")
    for base, lim in (("hann 16", 0.11), ("lk 16", 0.04)):
        out.append((f"texture, clean, small: {base} RMS <= {lim} px "
                    f"({m[base]['rms']:.3f})", m[base]["rms"] <= lim))
    # the low-pass with Newton's refinements on textures (measured
    # 0.005-0.035 px; 0.101 through two different blurs)
    for shifts in ("small", "plane"):
        for deg, lim in (("clean", 0.05), ("noise 1", 0.05), ("noise 2", 0.05),
                         ("noise 4", 0.05), ("blur 1.0", 0.05),
                         ("blur 0.8/1.4", 0.15)):
            m = find(rows, "texture", deg, shifts)
            out.append((f"texture, {deg}, {shifts}: el r4 lpf RMS <= {lim} px "
                        f"({m['el r4 lpf']['rms']:.3f})",
                        m["el r4 lpf"]["rms"] <= lim))
    for deg in ("clean", "noise 1", "blur 1.0"):
        m = find(rows, "texture", deg, "small")
        out.append((f"texture, {deg}, small: el r4 lpf RMS < 0.7 x el r4's "
                    f"({m['el r4 lpf']['rms']:.3f} vs {m['el r4']['rms']:.3f})",
                    m["el r4 lpf"]["rms"] < 0.7 * m["el r4"]["rms"]))
    # against the Hann-windowed upsampled phase correlation of the same
    # 16x16 windows: the median where it holds with margin (measured ratios
    # up to 0.49); not where the margin is thinner, small shifts of the
    # photographs with 2-4 DN of noise or two blurs (0.57-0.90) and 4 DN on
    # their planes (0.36-0.62); blurred small shifts of the photographs also
    # leave fewer hann 16 tiles off by more than 0.5 px
    for pic in pics:
        for deg, sets in (("clean", ("small", "plane")),
                          ("noise 1", ("small", "plane")),
                          ("blur 1.0", ("small", "plane")),
                          ("noise 2", ("plane",)), ("blur 0.8/1.4", ("plane",))):
            for shifts in sets:
                m = find(rows, pic, deg, shifts)
                a, b = m["el r4 lpf"]["median"], m["hann 16"]["median"]
                out.append((f"{pic}, {deg}, {shifts}: el r4 lpf median < 0.7 x "
                            f"hann 16's ({a:.3f} vs {b:.3f})", a < 0.7 * b))
    # and the share of tiles off by more than 0.5 px on the photographs'
    # planes (shifts to 3 px), every degradation (measured ratios 0.10-0.43)
    for pic in ("coffee", "building"):
        for deg, _ in DEGRADATIONS:
            m = find(rows, pic, deg, "plane")
            a, b = m["el r4 lpf"]["over_half_px"], m["hann 16"]["over_half_px"]
            out.append((f"{pic}, {deg}, plane: el r4 lpf's share off by > 0.5 px "
                        f"< 0.6 x hann 16's ({100 * a:.1f}% vs {100 * b:.1f}%)",
                        a < 0.6 * b))
    # the refinements' fat zero on the photographs: medians of noisy and
    # blurred small shifts (measured ratios 0.16-0.66 of el r4 lpf's), and
    # the search's start on their planes' share off by > 0.5 px (0-5.2%
    # against 1.2-9.3%, two blurs left out)
    for pic in ("coffee", "building"):
        for deg in ("noise 1", "noise 2", "blur 1.0"):
            m = find(rows, pic, deg, "small")
            a, b = m["el r6 rfz"]["median"], m["el r4 lpf"]["median"]
            out.append((f"{pic}, {deg}, small: el r6 rfz median < 0.8 x "
                        f"el r4 lpf's ({a:.3f} vs {b:.3f})", a < 0.8 * b))
        for deg in ("clean", "noise 1", "noise 2", "noise 4", "blur 1.0"):
            m = find(rows, pic, deg, "plane")
            a = m["el r6 rfz"]["over_half_px"]
            out.append((f"{pic}, {deg}, plane: el r6 rfz's share off by > 0.5 px "
                        f"<= 7% ({100 * a:.1f}%)", a <= 0.07))
    # against Lucas-Kanade only where the element wins with margin: small
    # shifts on the texture without blur (measured ratios 0.12-0.54); on
    # the photographs LK is ahead, which is not asserted
    for deg in ("clean", "noise 1", "noise 2"):
        m = find(rows, "texture", deg, "small")
        a, b = m["el r4 lpf"]["median"], m["lk 16"]["median"]
        out.append((f"texture, {deg}, small: el r4 lpf median < 0.75 x lk 16's "
                    f"({a:.3f} vs {b:.3f})", a < 0.75 * b))
    # against Lucas-Kanade on the element's own aperture (lk 16 win): level
    # on the noisy photographs (measured ratios 0.70-1.12)
    for pic in ("coffee", "building"):
        for deg in ("noise 1", "noise 2", "noise 4"):
            for sh in ("small", "plane") if deg != "noise 1" else ("small",):
                m = find(rows, pic, deg, sh)
                a, b = m["el r6 rfz"]["median"], m["lk 16 win"]["median"]
                out.append((f"{pic}, {deg}, {sh}: el r6 rfz median < 1.4 x "
                            f"lk 16 win's ({a:.3f} vs {b:.3f})", a < 1.4 * b))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--backend", default="cpu", choices=("cpu", "cuda", "auto"))
    ap.add_argument("--fat-zero", type=float, default=0.001)
    ap.add_argument("--lpf-sigma", type=float, default=1.0)
    ap.add_argument("--refine-fat-zero", type=float, default=0.3)
    ap.add_argument("--scan-lpf", action="store_true")
    ap.add_argument("--min-std", type=float, default=12.0)
    ap.add_argument("--min-grad", type=float, default=3.0)
    args = ap.parse_args()
    t0 = time.monotonic()
    Gst.init(None)
    if Gst.ElementFactory.find("cudacltcorrelate") is None:
        sys.exit("no cudacltcorrelate: set GST_PLUGIN_PATH to the build's gst/")
    rows, shifts = (scan_lpf if args.scan_lpf else run)(args)
    elapsed = time.monotonic() - t0
    print(table(rows, args))
    print("\nRMS / median of |estimate - truth| (px) / share of tiles off by "
          "more than 0.5 px, tiles = tiles x pairs; bold: lowest RMS.  small "
          "shifts (|d| < 0.5): "
          + ", ".join(f"({x:.3f}, {y:.3f})" for x, y in shifts))
    for set_name in ("small", "plane"):
        z = [r["zero_rms"] for r in rows if r["shifts"] == set_name]
        print(f"answering 0 everywhere: RMS {min(z):.2f}-{max(z):.2f} px on "
              f"the {set_name} rows")
    print(f"elapsed {elapsed:.1f} s (backend={args.backend})")
    status = 0
    if args.check and not args.scan_lpf:
        for claim, ok in checks(rows):
            print(("ok     " if ok else "FAILED ") + claim)
            status |= not ok
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(backend=args.backend, fat_zero=args.fat_zero,
                           lpf_sigma=None if args.scan_lpf else args.lpf_sigma,
                           refine_fat_zero=args.refine_fat_zero,
                           lpf_scan=LPF_SCAN if args.scan_lpf else None,
                           min_std=args.min_std, min_grad=args.min_grad, small_shifts=shifts,
                           elapsed_s=elapsed, cases=rows), f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
