# cudaoptics — LGPL-2.1-or-later
"""A cheap lens and an RGGB sensor, simulated (pipelines/aberration-demo.py,
tests/ref/corr-through-aberration.py): each pixel blurred by a Gaussian
whose sigma grows from s0 in the centre to s0 + s1 in the corners (between
blurs at five sigmas), red and blue magnified about the centre (lateral
colour), optionally barrel distortion k1 (OpenCV's model, focal length the
frame's width), then sampled by an 8-bit RGGB mosaic."""
import cv2
import numpy as np


def distort(img, k1):
    """img (the undistorted view) as a lens of distortion k1 shows it"""
    h, w = img.shape[:2]
    K = np.array([[w, 0, (w - 1) / 2], [0, w, (h - 1) / 2], [0, 0, 1]], float)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    q = np.stack([xx.ravel(), yy.ravel()], -1).reshape(-1, 1, 2).astype(np.float64)
    u = cv2.undistortPoints(q, K, np.array([k1, 0, 0, 0, 0], float), P=K)
    u = u.reshape(h, w, 2).astype(np.float32)
    return cv2.remap(img, u[..., 0], u[..., 1], cv2.INTER_LANCZOS4,
                     borderMode=cv2.BORDER_REFLECT)


def raw_view(img, s0, s1, red, blue, k1=0.0, interp=cv2.INTER_CUBIC):
    """img (BGR, float or uint8) through the lens, as a raw RGGB uint8 frame;
    @interp resamples the colours' magnification"""
    img = img.astype(np.float32)
    if k1:
        img = distort(img, k1)
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xc, yc = (w - 1) / 2, (h - 1) / 2
    r2 = ((xx - xc) ** 2 + (yy - yc) ** 2) / (xc * xc + yc * yc)
    sig = s0 + s1 * r2
    levels = np.linspace(s0, s0 + s1, 5)
    stack = [cv2.GaussianBlur(img, (0, 0), s) for s in levels]
    t = (sig - s0) / (levels[1] - levels[0])
    i0 = np.clip(np.floor(t).astype(int), 0, len(levels) - 2)
    f = (t - i0)[..., None]
    blurred = np.zeros_like(stack[0])
    for k in range(len(levels) - 1):
        m = (i0 == k)[..., None]
        blurred += m * ((1 - f) * stack[k] + f * stack[k + 1])
    seen = blurred.copy()
    for ch, mag in ((2, red), (0, blue)):         # BGR order
        mx = (xc + (xx - xc) / mag).astype(np.float32)
        my = (yc + (yy - yc) / mag).astype(np.float32)
        seen[..., ch] = cv2.remap(blurred[..., ch], mx, my, interp,
                                  borderMode=cv2.BORDER_REFLECT)
    seen = np.clip(seen + 0.5, 0, 255).astype(np.uint8)
    return np.where((yy % 2 == 0) & (xx % 2 == 0), seen[..., 2],
                    np.where((yy % 2 == 1) & (xx % 2 == 1), seen[..., 0],
                             seen[..., 1])).astype(np.uint8)
