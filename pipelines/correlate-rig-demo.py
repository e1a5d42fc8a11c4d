#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""Two pictures of cudacltcorrelate beyond a stereo pair.

QUAD.jpg: a synthetic quad rig (four cameras on the corners of a square,
as Elphel's) seeing the bundled photograph at a known disparity per pixel:
a slanted plane from 1 to 5 px (pair 0-1's pixels) and a box standing 2 px
nearer.  Each camera's ROS camera_info file places it (its projection's
fourth column); given the four (sink_N::calibration-file), the element
measures the six pairs along their baselines from a pre-shift of 3 px
(the diagonals see up to 10 px, past the +-7 one correlation reaches)
and combines them (refine=2), and output=map draws the rig's disparity.  Top: camera 3's
view and the true disparity; bottom: the element's map and the error
(20x, the same colour scale: +-0.2 px at its ends).  Views are
resampled with Lanczos-4 (cubic resampling's own error would double the
element's).

FLOW.jpg: a pan with a slow zoom over the photograph (1.5 px a frame to
the left, 0.8 down, 1% larger a frame about the centre), correlated frame
to frame (mode=temporal refine=2 output=map): the flow's direction as
hue, its length as saturation.  Left: the last frame; right: the
element's map; the RMS error against the known flow is printed.

usage: correlate-rig-demo.py SOURCE.jpg QUAD.jpg FLOW.jpg (GST_PLUGIN_PATH as for tests)
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests"))
from system_python import require  # noqa: E402

if not require("cv2", "numpy", "gi"):
    sys.exit("pipelines/correlate-rig-demo.py needs OpenCV's Python module "
             "(python3-opencv) and PyGObject (python3-gi)")
import cv2  # noqa: E402
import numpy as np  # noqa: E402
import gi  # noqa: E402
gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402
try:
    import cudaoptics  # noqa: E402  (the elements' results as numpy arrays)
except ImportError:  # not installed: the source tree's own copy
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "python"))
    import cudaoptics  # noqa: E402

F = 500.0
QUAD = [(0, 0), (1, 0), (0, 1), (1, 1)]


def camera_info(path, k, w, h):
    x, y = QUAD[k]
    p = [F, 0, w / 2, -F * x, 0, F, h / 2, -F * y, 0, 0, 1, 0]
    with open(path, "w") as f:
        f.write(f"image_width: {w}\nimage_height: {h}\ncamera_name: cam{k}\n"
                f"camera_matrix: {{rows: 3, cols: 3, data: [{F}, 0, {w / 2}, 0, "
                f"{F}, {h / 2}, 0, 0, 1]}}\ndistortion_model: plumb_bob\n"
                "distortion_coefficients: {rows: 1, cols: 5, data: [0, 0, 0, 0, 0]}\n"
                "rectification_matrix: {rows: 3, cols: 3, data: [1, 0, 0, 0, 1, 0, "
                "0, 0, 1]}\n"
                f"projection_matrix: {{rows: 3, cols: 4, data: "
                f"[{', '.join(str(v) for v in p)}]}}\n")


def gray16(img):
    return (np.clip(img, 0, 255) * 257).astype("<u2").tobytes()


def run(desc, frames, names, n_out, pre_shift=None):
    """push frames[i][k] into appsrc names[k]; the n_out outputs' RGBA maps
    and results"""
    pipe = Gst.parse_launch(desc)
    if pre_shift is not None:
        pipe.get_by_name("c").set_property(
            "pre-shift", GLib.Bytes.new(pre_shift.astype("<f4").tobytes()))
    pipe.set_state(Gst.State.PLAYING)
    for k, name in enumerate(names):
        src = pipe.get_by_name(name)
        for i, f in enumerate(frames):
            buf = Gst.Buffer.new_wrapped(gray16(f[k]))
            buf.pts, buf.duration = i * Gst.SECOND, Gst.SECOND
            src.emit("push-buffer", buf)
        src.emit("end-of-stream")
    out = []
    for _ in range(n_out):
        sample = pipe.get_by_name("out").emit("pull-sample")
        if sample is None:
            msg = pipe.get_bus().timed_pop_filtered(0, Gst.MessageType.ERROR)
            sys.exit(f"no output: {msg.parse_error()[0].message if msg else '?'}")
        buf = sample.get_buffer()
        s = cudaoptics.from_buffer(buf, "GstCoCltCorrelation")
        st = sample.get_caps().get_structure(0)
        w, h = st.get_value("width"), st.get_value("height")
        ok, m = buf.map(Gst.MapFlags.READ)
        rgba = np.frombuffer(m.data, np.uint8).reshape(h, w, 4).copy()
        buf.unmap(m)
        out.append((rgba, s))
    pipe.set_state(Gst.State.NULL)
    return out


def tile_truth(m, tx, ty, w, h):
    """a per-pixel field at the tiles' centres, the pixel corners (8 tx, 8 ty)"""
    cx = np.clip(8 * np.arange(tx) - 0.5, 0, w - 1).astype(np.float32)
    cy = np.clip(8 * np.arange(ty) - 0.5, 0, h - 1).astype(np.float32)
    mx, my = np.meshgrid(cx, cy)
    return cv2.remap(m.astype(np.float32), mx, my, cv2.INTER_LINEAR)


def colour_scale(v, lo, hi, w, h):
    """the element's output=map colours for a tile map, drawn the same way"""
    t = np.clip((v - lo) / (hi - lo), 0, 1)
    rgb = np.stack([np.clip(1.5 - np.abs(4 * t - c), 0, 1) for c in (3, 2, 1)], -1)
    big = np.repeat(np.repeat(rgb, 8, 0), 8, 1)
    big = np.pad(big, ((0, 8), (0, 8), (0, 0)), mode="edge")[4:4 + h, 4:4 + w]
    return (255 * big[..., ::-1]).round().astype(np.uint8)      # BGR


def quad(src, dst):
    img = cv2.cvtColor(cv2.imread(src), cv2.COLOR_BGR2GRAY).astype(np.float32)
    h, w = img.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    disp = 1.0 + 4.0 * xx / w
    box = (np.abs(xx - 0.62 * w) < 0.12 * w) & (np.abs(yy - 0.55 * h) < 0.2 * h)
    disp = np.where(box, disp + 2.0, disp).astype(np.float32)
    disp = cv2.GaussianBlur(disp, (0, 0), 3)
    views = []
    for x, y in QUAD:
        # camera (x, y) sees the point of camera 0's pixel q at q - disp (x, y)
        views.append(cv2.remap(img, xx + disp * x, yy + disp * y, cv2.INTER_LANCZOS4,
                               borderMode=cv2.BORDER_REFLECT))
    caps = f"video/x-raw,format=GRAY16_LE,width={w},height={h},framerate=1/1"
    with tempfile.TemporaryDirectory() as tmp:
        props = ""
        for k in range(4):
            path = os.path.join(tmp, f"cam{k}.yaml")
            camera_info(path, k, w, h)
            props += f' sink_{k}::calibration-file="{path}"'
        # the search starts at 3 px (pre-shift), the plane's middle: the
        # diagonals' 1.4x of the box (up to 10 px) lies beyond the +-7 px
        # one correlation sees from 0
        desc = (f"cudacltcorrelate name=c refine=2 output=map map-range=6 {props} "
                "! appsink name=out " +
                " ".join(f"appsrc name=s{k} caps={caps} format=time ! c.sink_{k}"
                         for k in range(4)))
        tiles = ((w + 7) // 8 + 1) * ((h + 7) // 8 + 1)
        pipe_out = run(desc, [views], [f"s{k}" for k in range(4)], 1,
                       np.full(tiles, 3.0))
    rgba, s = pipe_out[0]
    tx, ty = s.tiles_x, s.tiles_y
    rig, conf = s.rig_disparity, s.confidence
    truth = tile_truth(disp, tx, ty, w, h)
    inner = np.zeros_like(conf, bool)
    inner[2:-2, 2:-2] = True
    good = inner & (conf > 0.3)
    err = rig - truth
    print(f"quad rig: {good.sum()} of {inner.sum()} inner tiles with confidence > 0.3: "
          f"RMS error {np.sqrt(np.mean(err[good] ** 2)):.3f} px, median |error| "
          f"{np.median(np.abs(err[good])):.3f} px")
    top = np.hstack([cv2.cvtColor(np.clip(views[3], 0, 255).astype(np.uint8),
                                  cv2.COLOR_GRAY2BGR),
                     colour_scale(truth, -6, 6, w, h)])
    bottom = np.hstack([cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGR),
                        colour_scale(np.where(good, err, 0), -0.2, 0.2, w, h)])
    pic = np.vstack([top, bottom])
    pic = cv2.resize(pic, (pic.shape[1] // 2, pic.shape[0] // 2),
                     interpolation=cv2.INTER_AREA)
    cv2.imwrite(dst, pic, [cv2.IMWRITE_JPEG_QUALITY, 88])


def flow(src, dst):
    img = cv2.cvtColor(cv2.imread(src), cv2.COLOR_BGR2GRAY).astype(np.float32)
    h0, w0 = img.shape
    w, h = w0 // 2 // 8 * 8, h0 // 2 // 8 * 8
    pan, zoom, n = np.array([-1.5, 0.8]), 1.01, 4
    c = np.array([w0 / 2, h0 / 2])
    frames = []
    for i in range(n):
        # frame i shows the picture's point c + (q - centre) / zoom^i - pan i
        s = zoom ** i
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        mx = c[0] + (xx - w / 2) / s - pan[0] * i
        my = c[1] + (yy - h / 2) / s - pan[1] * i
        frames.append([cv2.remap(img, mx.astype(np.float32), my.astype(np.float32),
                                 cv2.INTER_LANCZOS4, borderMode=cv2.BORDER_REFLECT)])
    caps = f"video/x-raw,format=GRAY16_LE,width={w},height={h},framerate=1/1"
    desc = (f"appsrc name=s caps={caps} format=time ! cudacltcorrelate mode=temporal "
            "refine=2 output=map map-range=5 ! appsink name=out")
    outs = run(desc, frames, ["s"], n)
    rgba, s = outs[-1]
    tx, ty = s.tiles_x, s.tiles_y
    # temporal mode: one pair, the frame against the previous one
    dx, dy, st = s.shift_x[0], s.shift_y[0], s.strength[0]
    # the known flow from frame n-2 to n-1 at each tile centre
    cx, cy = np.meshgrid(8.0 * np.arange(tx), 8.0 * np.arange(ty))
    q = np.stack([cx - w / 2, cy - h / 2])
    s1, s0 = zoom ** (n - 1), zoom ** (n - 2)
    # a point at picture offset p shows at centre + s (p + pan i) in frame i
    p = q / s0 - pan[:, None, None] * (n - 2)
    moved = s1 * (p + pan[:, None, None] * (n - 1)) - q
    inner = np.zeros_like(st, bool)
    inner[2:-2, 2:-2] = True
    good = inner & (st > 0.3)
    err = np.hypot(dx - moved[0], dy - moved[1])
    print(f"pan and zoom: {good.sum()} of {inner.sum()} inner tiles with strength > 0.3: "
          f"RMS error {np.sqrt(np.mean(err[good] ** 2)):.3f} px, median "
          f"{np.median(err[good]):.3f} px (flow {np.hypot(*moved).min():.2f}-"
          f"{np.hypot(*moved).max():.2f} px)")
    last = cv2.cvtColor(np.clip(frames[-1][0], 0, 255).astype(np.uint8),
                        cv2.COLOR_GRAY2BGR)
    pic = np.hstack([last, cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGR)])
    cv2.imwrite(dst, pic, [cv2.IMWRITE_JPEG_QUALITY, 88])


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    Gst.init(None)
    quad(sys.argv[1], sys.argv[2])
    flow(sys.argv[1], sys.argv[3])


if __name__ == "__main__":
    main()
