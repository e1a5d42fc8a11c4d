# cudaoptics — LGPL-2.1-or-later
"""The cudaoptics elements' results as numpy arrays.

Every result a cudaoptics element gives is a GstStructure, on the buffer
(a GstCustomMeta, GStreamer 1.20+) or in an element message on the bus;
its arrays are GBytes of little-endian 32-bit floats.  This module turns
one into a Result whose attributes are the structure's fields, named with
``_`` for ``-``, the arrays already shaped:

    import cudaoptics
    r = cudaoptics.from_buffer(sample.get_buffer(), "GstCoShCentroids")
    r.centroid_x            # float32, (lenslets-y, lenslets-x), pixels
    r.table["slope_x"]      # the same arrays as one structured array

    msg = bus.pop_filtered(Gst.MessageType.ELEMENT)
    r = cudaoptics.from_message(msg)   # None: not a cudaoptics result
    if r and r.kind == "cudaomniunwrap-auto-center": print(r.center_x)

The kinds (the structure's name) and their arrays:

GstCoShCentroids (cudashcentroid: buffers, and messages every
message-interval frames): centroid_x, centroid_y (pixels, x right, y down,
pixel x spanning x .. x+1), slope_x, slope_y (against the reference, in
slope_units: "pixels" or "radians"), intensity (the lenslet's summed
weight), flags (uint8: MEASURED, OUTSIDE, NO_LIGHT, NOT_IN_FRAME), each
shaped (lenslets_y, lenslets_x); table: a structured array of the same
shape with those six fields; measured: flags & MEASURED as booleans.
Scalars: lenslets_x, lenslets_y, valid, slope_units, reference,
timestamp (ns, None if the buffer had none), frame.

GstCoCltCorrelation (cudacltcorrelate: buffers, and messages with
post-messages=true): shift_x, shift_y (pixels: where the pair's second
input's content lies against the first's, x right, y down), strength (the
correlation's peak, 1: identical tiles), disparity (a rig: along each
pair's baseline), each shaped (pairs, tiles_y, tiles_x); rig_disparity and
confidence (a rig) shaped (tiles_y, tiles_x); table: a structured array
(pairs, tiles_y, tiles_x) of the per-pair arrays present.  Tile (x, y) is
centred on the pixel corner (tile_step x, tile_step y): tile_centres()
gives those coordinates.  Scalars: mode, tiles_x, tiles_y, tile_step,
pairs (the text, e.g. "0-1,0-2"), pair_names (["0-1", "0-2"]),
reference_baseline (a rig), summary (post-messages), timestamp, frame.
An array the element's `results` property left out is None.

GstCoFoveaGaze (cudafoveate: buffers): fixation_x, fixation_y (0 .. 1 of
the frame), gaze_time (ns of the pipeline clock, None if unknown).

cudaomniunwrap-auto-center (cudaomniunwrap auto-center=true: a message):
found, frames; found: center_x, center_y, radius, rms (pixels), points;
not found: reason.

cudashcentroid-reference (cudashcentroid capture-reference: a message):
frames, lenslets, missing.

Only numpy is needed; the structures come from PyGObject (python3-gi).
Python 3.7 and later."""
import sys

import numpy as np

__all__ = ["Result", "from_structure", "from_message", "from_buffer",
           "from_sample", "KINDS", "MEASURED", "OUTSIDE", "NO_LIGHT",
           "NOT_IN_FRAME"]
__version__ = "0.1.0"

# cudashcentroid's flags, one byte a lenslet
MEASURED = 1        # a centroid was measured
OUTSIDE = 2         # outside the pupil or the mask
NO_LIGHT = 4        # no weight above the threshold
NOT_IN_FRAME = 8    # the lenslet is not wholly in the frame

# what each element attaches to its buffers (GstCustomMeta names)
META_KINDS = ("GstCoShCentroids", "GstCoCltCorrelation", "GstCoFoveaGaze")
# every structure this module reads (buffers' and messages')
KINDS = META_KINDS + ("cudaomniunwrap-auto-center", "cudashcentroid-reference")

_CLOCK_TIME_NONE = 2 ** 64 - 1
_F32 = np.dtype("<f4")


class Result:
    """One element's result: `kind` (the structure's name), a numpy array
    or a Python value per field (``-`` written ``_``), and `fields`, the
    names in the structure's order."""

    def __init__(self, kind):
        self.kind = kind
        self.fields = []

    def _set(self, name, value):
        setattr(self, name.replace("-", "_"), value)
        self.fields.append(name.replace("-", "_"))

    def as_dict(self):
        """The fields as a dict (arrays included)."""
        return {k: getattr(self, k) for k in self.fields}

    def __repr__(self):
        parts = []
        for k in self.fields:
            v = getattr(self, k)
            if isinstance(v, np.ndarray):
                parts.append("%s=<%s %s>" % (k, v.dtype, "x".join(map(str, v.shape))))
            else:
                parts.append("%s=%r" % (k, v))
        return "<cudaoptics.Result %s: %s>" % (self.kind, ", ".join(parts))


def _raw(value):
    """The bytes of a GBytes field (GLib.Bytes in PyGObject) or bytes."""
    if hasattr(value, "get_data"):
        value = value.get_data()
    return bytes(value) if value is not None else b""


def _floats(s, name, shape):
    data = _raw(s.get_value(name))
    n = int(np.prod(shape))
    if len(data) != 4 * n:
        raise ValueError("%s: %s has %d bytes, %d floats expected (%s)"
                         % (s.get_name(), name, len(data), n, "x".join(map(str, shape))))
    return np.frombuffer(data, _F32).reshape(shape)


def _time(v):
    return None if v is None or v == _CLOCK_TIME_NONE else int(v)


def _scalars(s, r, skip=()):
    """Every field of @s that is not an array, in the structure's order."""
    for i in range(s.n_fields()):
        name = s.nth_field_name(i)
        if name in skip:
            continue
        v = s.get_value(name)
        if name in ("timestamp", "gaze-time"):
            v = _time(v)
        r._set(name, v)


def _table(arrays, shape):
    dtype = [(n, a.dtype.newbyteorder("=")) for n, a in arrays]
    t = np.empty(shape, dtype)
    for n, a in arrays:
        t[n] = a
    return t


def _sh_centroids(s):
    nx, ny = s.get_value("lenslets-x"), s.get_value("lenslets-y")
    arrays = ("centroid-x", "centroid-y", "slope-x", "slope-y", "intensity")
    r = Result(s.get_name())
    _scalars(s, r, skip=arrays + ("flags",))
    named = []
    for name in arrays:
        a = _floats(s, name, (ny, nx))
        r._set(name, a)
        named.append((name.replace("-", "_"), a))
    flags = np.frombuffer(_raw(s.get_value("flags")), np.uint8)
    if flags.size != nx * ny:
        raise ValueError("GstCoShCentroids: flags has %d bytes, %d lenslets"
                         % (flags.size, nx * ny))
    flags = flags.reshape(ny, nx)
    r._set("flags", flags)
    named.append(("flags", flags))
    r.table = _table(named, (ny, nx))
    r.measured = (flags & MEASURED) != 0
    return r


def _clt_correlation(s):
    tx, ty = s.get_value("tiles-x"), s.get_value("tiles-y")
    text = s.get_value("pairs") or ""
    names = [p for p in text.split(",") if p]
    per_pair = ("shift-x", "shift-y", "strength", "disparity")
    per_tile = ("rig-disparity", "confidence")
    r = Result(s.get_name())
    _scalars(s, r, skip=per_pair + per_tile)
    r.pair_names = names
    np_ = max(len(names), 1)
    named = []
    for name in per_pair:
        a = _floats(s, name, (np_, ty, tx)) if s.has_field(name) else None
        r._set(name, a)
        if a is not None:
            named.append((name.replace("-", "_"), a))
    for name in per_tile:
        r._set(name, _floats(s, name, (ty, tx)) if s.has_field(name) else None)
    r.table = _table(named, (np_, ty, tx)) if named else None
    step = r.tile_step

    def tile_centres():
        """x, y: the pixel corner each tile is centred on, (tiles_y,
        tiles_x) arrays each."""
        return np.meshgrid(step * np.arange(tx, dtype=np.float32),
                           step * np.arange(ty, dtype=np.float32))
    r.tile_centres = tile_centres
    return r


def _plain(s):
    r = Result(s.get_name())
    _scalars(s, r)
    return r


_READERS = {
    "GstCoShCentroids": _sh_centroids,
    "GstCoCltCorrelation": _clt_correlation,
    "GstCoFoveaGaze": _plain,
    "cudaomniunwrap-auto-center": _plain,
    "cudashcentroid-reference": _plain,
}


def from_structure(s):
    """A Result from a Gst.Structure one of the elements wrote (a meta's or
    a message's), or None if its name is none of KINDS."""
    if s is None:
        return None
    read = _READERS.get(s.get_name())
    return read(s) if read else None


def from_message(msg):
    """The Result an element message carries, or None (another message)."""
    s = msg.get_structure() if msg is not None else None
    return from_structure(s)


def from_buffer(buf, kind=None):
    """The Result of @kind (one of META_KINDS; None: the first present) on
    @buf, or None.  Needs GStreamer 1.20+ (GstCustomMeta): before, the
    buffer's results are not reachable from Python and this returns None;
    the elements' element messages carry the same structures."""
    if buf is None or not hasattr(buf, "get_custom_meta"):
        return None
    for k in ((kind,) if kind else META_KINDS):
        meta = buf.get_custom_meta(k)
        if meta:
            return from_structure(meta.get_structure())
    return None


def from_sample(sample, kind=None):
    """from_buffer() of an appsink sample's buffer."""
    return from_buffer(sample.get_buffer() if sample is not None else None, kind)


def _summary(r, source=None):
    """one line per field: arrays as dtype, shape and range (centroids'
    over the measured lenslets)"""
    lines = [r.kind + (" from %s" % source if source else "")]
    mask = getattr(r, "measured", None)
    for k in r.fields:
        v = getattr(r, k)
        if isinstance(v, np.ndarray):
            f = v[mask] if mask is not None and k != "flags" else v.ravel()
            f = f[np.isfinite(f)] if f.dtype.kind == "f" else f
            rng = (" min %.4g mean %.4g max %.4g" % (f.min(), f.mean(), f.max())) if f.size else ""
            lines.append("  %-18s %s %s%s" % (k, v.dtype.newbyteorder("=").name,
                                             "x".join(map(str, v.shape)), rng))
        elif v is not None:
            lines.append("  %-18s %s" % (k, v))
    return "\n".join(lines)


def _main(argv):
    """python3 -m cudaoptics [--npz PREFIX] LAUNCH-LINE...: plays a
    pipeline as gst-launch-1.0 does and prints every cudaoptics result
    posted on its bus (arrays as their shape and range, not base64); with
    --npz, each result's arrays also go to PREFIX-N.npz."""
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    npz = None
    if len(argv) > 1 and argv[0] == "--npz":
        npz, argv = argv[1], argv[2:]
    if not argv or argv[0] in ("-h", "--help"):
        print(_main.__doc__.replace("\n    ", "\n"))
        return 0 if argv else 2
    Gst.init(None)
    try:
        pipe = Gst.parse_launch(" ".join(argv))
    except Exception as e:      # GLib.Error: a bad launch line
        print("cudaoptics: %s" % e, file=sys.stderr)
        return 1
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    n, rc = 0, 0
    while True:
        m = bus.timed_pop(Gst.CLOCK_TIME_NONE)
        if m.type == Gst.MessageType.EOS:
            break
        if m.type == Gst.MessageType.ERROR:
            err, dbg = m.parse_error()
            print("ERROR from %s: %s" % (m.src.get_name(), err.message),
                  file=sys.stderr)
            rc = 1
            break
        r = from_message(m) if m.type == Gst.MessageType.ELEMENT else None
        if r is None:
            continue
        print(_summary(r, m.src.get_name()))
        if npz:
            arrays = {k: getattr(r, k) for k in r.fields if isinstance(getattr(r, k), np.ndarray)}
            np.savez("%s-%d.npz" % (npz, n), **arrays)
        n += 1
    pipe.set_state(Gst.State.NULL)
    return rc


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
