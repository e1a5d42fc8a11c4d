#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""Writes the property tables of docs/*.md from the elements themselves.

A page marks where a table goes:

    <!-- co-doc:properties cudalensdistort -->
    ...generated...
    <!-- co-doc:end -->

and this tool fills it from the element's GParamSpecs (name, type, default,
range or values, when it may change, blurb), so the tables cannot drift
from the code.  `co-doc.py --check PAGES` fails when a page is stale (a
test runs it); `co-doc.py PAGES` rewrites them.  The plugin is found as
GStreamer finds it (GST_PLUGIN_PATH=build/gst from the source tree)."""
import argparse
import glob
import os
import re
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import GObject, Gst
except (ImportError, ValueError) as e:
    # a Python of its own (pyenv, a venv) without the distribution's gi:
    # the system's has it
    if os.path.exists("/usr/bin/python3") and \
            os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("co-doc.py needs PyGObject with GStreamer's typelib (%s): "
             "apt-get install python3-gi gir1.2-gstreamer-1.0" % e)

BEGIN = re.compile(r"<!-- co-doc:properties (\S+) -->\n")
END = "<!-- co-doc:end -->"
# inherited from GStreamer itself: documented there
FOREIGN = ("GstObject", "GstBaseTransform", "GstElement", "GstAggregator")

# GstParamFlags (gst/gstparamspecs.h)
CONTROLLABLE = 1 << 9
MUTABLE_READY = 1 << 10
MUTABLE_PAUSED = 1 << 11
MUTABLE_PLAYING = 1 << 12


def number(v):
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e7:
            return "%d" % v
        return "%g" % v
    return str(v)


def enum_values(p):
    """{value: nick} of an enum GParamSpec, on PyGObject before and after
    3.50 (where enum_class became the GEnumClass struct)."""
    ec = p.enum_class
    old = getattr(ec, "__enum_values__", None)
    if old is not None:
        return {int(k): v.value_nick for k, v in old.items()}
    out = {}
    for i in range(ec.minimum, ec.maximum + 1):
        v = GObject.enum_get_value(ec, i)
        if v is not None:
            out[v.value] = v.value_nick
    return out


def flags_values(p):
    """[(value, nick)] of a flags GParamSpec, by value."""
    fc = p.flags_class
    old = getattr(fc, "__flags_values__", None)
    if old is not None:
        return sorted((int(k), v.value_nicks[0]) for k, v in old.items())
    out, bit = [], 1
    while bit <= fc.mask:
        v = GObject.flags_get_first_value(fc, bit)
        if v is not None and v.value == bit:
            out.append((bit, v.value_nick))
        bit <<= 1
    return out


def describe(p):
    """(type, default, range, when) of one GParamSpec, as table cells."""
    t = p.value_type
    flags = int(p.flags)
    if t.is_a(GObject.TYPE_ENUM):
        values = enum_values(p)
        kind = "enum"
        default = "`%s`" % values[int(p.default_value)]
        rng = ", ".join("`%s`" % nick for _, nick in sorted(values.items()))
    elif t.is_a(GObject.TYPE_FLAGS):
        values = flags_values(p)
        kind = "flags"
        d = int(p.default_value)
        default = "`%s`" % "+".join(n for v, n in values if d & v) \
            if d else "none"
        rng = ", ".join("`%s`" % nick for _, nick in values)
    elif t == GObject.TYPE_BOOLEAN:
        kind, default, rng = "boolean", "`%s`" % str(p.default_value).lower(), ""
    elif t == GObject.TYPE_STRING:
        kind = "string"
        default = "`%s`" % p.default_value if p.default_value else "none"
        rng = ""
    elif t in (GObject.TYPE_DOUBLE, GObject.TYPE_FLOAT):
        kind = "double" if t == GObject.TYPE_DOUBLE else "float"
        default = "`%s`" % number(p.default_value)
        rng = "%s – %s" % (number(p.minimum), number(p.maximum))
    elif t in (GObject.TYPE_INT, GObject.TYPE_UINT, GObject.TYPE_INT64,
               GObject.TYPE_UINT64, GObject.TYPE_LONG, GObject.TYPE_ULONG):
        kind = t.name.lstrip("g")
        default = "`%s`" % number(p.default_value)
        if t == GObject.TYPE_UINT and p.maximum == 0xffffffff and \
                "colour" in p.blurb.lower():
            default = "`0x%08x`" % p.default_value
            rng = "0x00000000 – 0xffffffff"
        else:
            rng = "%s – %s" % (number(p.minimum), number(p.maximum))
    else:
        kind, default, rng = t.name, "", ""
    if not flags & GObject.ParamFlags.WRITABLE:
        when = "read-only"
        default = "—"               # a state, not a setting
    elif flags & MUTABLE_PLAYING:
        when = "PLAYING"
    elif flags & MUTABLE_PAUSED:
        when = "PAUSED"
    elif flags & MUTABLE_READY:
        when = "READY"
    else:
        when = "NULL"
    if flags & CONTROLLABLE:
        when += ", controllable"
    return kind, default, rng, when


def table(name):
    factory = Gst.ElementFactory.find(name)
    if factory is None:
        sys.exit("co-doc.py: no element %s (is GST_PLUGIN_PATH=build/gst set?)"
                 % name)
    element = factory.create(None)
    rows = ["| property | type | default | range or values | can change in | description |",
            "|---|---|---|---|---|---|"]
    for p in element.list_properties():
        if p.owner_type.name in FOREIGN:
            continue
        kind, default, rng, when = describe(p)
        blurb = p.blurb.replace("|", "\\|").replace("\n", " ")
        rows.append("| `%s` | %s | %s | %s | %s | %s |" %
                    (p.name, kind, default, rng, when, blurb))
    return "\n".join(rows) + "\n"


def render(text):
    out, pos = [], 0
    for m in BEGIN.finditer(text):
        end = text.find(END, m.end())
        if end < 0:
            raise ValueError("co-doc:properties %s has no %s" % (m.group(1), END))
        out.append(text[pos:m.end()])
        out.append(table(m.group(1)))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="fail (exit 1) when a page's tables are stale")
    ap.add_argument("--tree", metavar="ROOT",
                    help="the pages of a source tree: README.md and docs/*.md")
    ap.add_argument("pages", nargs="*")
    args = ap.parse_args()
    if args.tree:
        args.pages += [os.path.join(args.tree, "README.md")] + \
            sorted(glob.glob(os.path.join(args.tree, "docs", "*.md")))
    Gst.init(None)
    stale = []
    for page in args.pages:
        with open(page) as f:
            text = f.read()
        new = render(text)
        if new != text:
            stale.append(page)
            if not args.check:
                with open(page, "w") as f:
                    f.write(new)
    if args.check and stale:
        print("stale property tables in %s: run tools/co-doc.py %s" %
              (", ".join(stale), " ".join(stale)))
        return 1
    print("%d pages %s" % (len(args.pages),
                           "current" if args.check else "written"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
