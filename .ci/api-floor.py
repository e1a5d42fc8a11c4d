#!/usr/bin/env python3
"""Checks the GStreamer (and GLib) API floor mechanically.

usage: api-floor.py [--floor 1.16] [--glib-floor 2.64] --gir-dir DIR
                    [--include-dir DIR] [--compat common/gstcocompat.h]
                    [--sources TREE] [--report-only] [--json OUT] ELF...

1. Symbols: every GStreamer/GLib symbol the ELF files import (nm -D
   --undefined-only) is looked up in the GIR files (Gst*-1.0, GLib, GObject,
   Gio).  Its "since" version is the version= attribute of the function or
   method, or of the class/record/interface that holds it when that is newer
   (for enum values: a "Since: X.Y" in their documentation).  A symbol newer than the floor is
   an error unless common/gstcocompat.h gives it a fallback for older
   versions: a `#define NAME` (or a declaration) under
   `#if !GST_CHECK_VERSION (A, B, C)` (GLIB_CHECK_VERSION for GLib) with A.B
   at least the symbol's version.
   Run on a build against the oldest reachable GStreamer (1.18), where the
   guards that begin above 1.18 are off, so what is imported is what a
   1.16 build would need, less what the guards replace.
2. Sources (--sources): identifiers that nm cannot see (enum values such as
   GST_VIDEO_FORMAT_*, macros, types, constants) newer than the floor, from
   the GIR files and "Since:" tags of the installed headers (--include-dir),
   grepped in the project's C sources as whole words.  Each use is reported
   as guarded (inside an #if on GST_CHECK_VERSION or HAVE_GST_CUDA), handled
   by a gstcocompat.h fallback, or unguarded (an error).
--report-only: print, never fail (for the newer host build's report).
Exit status: 0 when the floor holds, 1 when something breaks it.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

CORE = "{http://www.gtk.org/introspection/core/1.0}"
C_NS = "{http://www.gtk.org/introspection/c/1.0}"
SINCE_RE = re.compile(r"Since:\s*(\d+)\.(\d+)")
GST_GIRS = ("Gst-1.0", "GstBase-1.0", "GstVideo-1.0", "GstCheck-1.0", "GstController-1.0",
            "GstApp-1.0", "GstAllocators-1.0", "GstAudio-1.0", "GstPbutils-1.0",
            "GstTag-1.0", "GstNet-1.0", "GstGL-1.0")
GLIB_GIRS = ("GLib-2.0", "GObject-2.0", "Gio-2.0", "GModule-2.0")
CUDA_GIRS = ("CudaGst-1.0", "GstCuda-1.0")
CONTAINERS = {"class", "record", "interface", "union", "enumeration", "bitfield"}


def vtuple(s):
    m = re.match(r"(\d+)\.(\d+)", s or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def vstr(v):
    return "%d.%d" % v if v else "?"


def doc_since(el):
    d = el.find(CORE + "doc")
    if d is not None and d.text:
        m = SINCE_RE.search(d.text)
        if m:
            return (int(m.group(1)), int(m.group(2)))
    return None


def load_gir(path, lib, table):
    """table[c_name] = (since, lib, kind); since None when unannotated (old)."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        print(f"warning: cannot read {path}: {e}", file=sys.stderr)
        return

    def walk(el, parent_since):
        tag = el.tag.replace(CORE, "")
        own = vtuple(el.get("version"))
        if own is None and tag in ("member", "constant"):
            own = doc_since(el)    # enum values carry "(Since: X.Y)" in their doc only
        since = max([v for v in (own, parent_since) if v], default=None)
        name = el.get(C_NS + "identifier") or el.get(C_NS + "type")
        if name and tag in ("function", "method", "constructor", "member", "constant",
                            "class", "record", "interface", "union", "enumeration",
                            "bitfield", "callback", "alias"):
            old = table.get(name)
            if old is None or (since and (old[0] is None or since < old[0])):
                table[name] = (since, lib, tag)
        if tag == "class" or tag == "record" or tag == "interface":
            gs = el.get("{http://www.gtk.org/introspection/glib/1.0}get-type")
            if gs:
                table.setdefault(gs, (since, lib, "get-type"))
        for ch in el:
            walk(ch, since if tag in CONTAINERS else parent_since)

    ns = root.find(CORE + "namespace")
    if ns is not None:
        for ch in ns:
            walk(ch, None)


HDR_BLOCK_RE = re.compile(r"/\*\*\s*\n\s*\*\s*([A-Za-z_][A-Za-z0-9_]*):?\s*(?:\(.*?\))?\s*\n(.*?)\*/",
                          re.S)
HDR_PARAM_RE = re.compile(r"@([A-Z][A-Z0-9_]+):[^\n]*?\(?Since:?\s*(\d+)\.(\d+)")


def load_headers(include_dir, table):
    """Since tags of macros and enum values from the gtk-doc comments of the
    GStreamer headers (macros are not all in the GIR files)."""
    for h in glob.glob(os.path.join(include_dir, "gstreamer-1.0", "gst", "**", "*.h"),
                       recursive=True):
        lib = "gstreamer-1.0 headers"
        try:
            text = open(h, errors="replace").read()
        except OSError:
            continue
        for m in HDR_BLOCK_RE.finditer(text):
            name, body = m.group(1), m.group(2)
            s = SINCE_RE.search(body)
            if s and name not in table:
                table[name] = ((int(s.group(1)), int(s.group(2))), lib, "macro")
        for m in HDR_PARAM_RE.finditer(text):
            if m.group(1) not in table:
                table[m.group(1)] = ((int(m.group(2)), int(m.group(3))), lib, "value")


def imported(elf):
    out = subprocess.run(["nm", "-D", "--undefined-only", elf], capture_output=True,
                         text=True, check=True).stdout
    syms = set()
    for line in out.splitlines():
        parts = line.split()
        if parts:
            syms.add(parts[-1].split("@")[0])
    return syms


def compat_fallbacks(path):
    """NAME -> version: names gstcocompat.h defines under #if !GST_CHECK_VERSION."""
    fb = {}
    if not path or not os.path.exists(path):
        return fb
    stack = []
    for line in open(path):
        s = line.strip()
        m = re.match(r"#\s*if\s+(.*)", s)
        if m:
            c = re.search(r"!\s*(?:GST|GLIB)_CHECK_VERSION\s*\(\s*(\d+)\s*,\s*(\d+)", m.group(1))
            stack.append((int(c.group(1)), int(c.group(2))) if c else None)
            continue
        if re.match(r"#\s*(ifdef|ifndef)\b", s):
            stack.append(None)
            continue
        if re.match(r"#\s*(else|elif)\b", s) and stack:
            stack[-1] = None
            continue
        if re.match(r"#\s*endif", s) and stack:
            stack.pop()
            continue
        guard = next((g for g in reversed(stack) if g), None)
        if guard:
            d = re.match(r"#\s*define\s+([A-Za-z_]\w*)", s)
            names = [d.group(1)] if d else re.findall(r"\b(gst_\w+|GST_\w+|g_\w+)\s*\(", s)
            for n in names:
                fb[n] = max(fb.get(n, guard), guard)
    return fb


def source_uses(tree, newer, fallbacks):
    """(ident, file, line, state) of each use of a newer identifier."""
    uses = []
    if not newer:
        return uses
    word = re.compile(r"\b(" + "|".join(map(re.escape, sorted(newer))) + r")\b")
    for sub in ("gst", "common", "kernels", "tests", "pipelines"):
        for f in sorted(glob.glob(os.path.join(tree, sub, "**", "*.[ch]"), recursive=True)):
            rel = os.path.relpath(f, tree)
            stack = []
            for i, line in enumerate(open(f, errors="replace"), 1):
                s = line.strip()
                if re.match(r"#\s*(if|ifdef|ifndef)\b", s):
                    # CO_HAVE_* and CO_CUDA_STREAMS: gstcocompat.h's names
                    # for version checks, the only place they are made
                    stack.append(bool(re.search(r"GST_CHECK_VERSION|GLIB_CHECK_VERSION|HAVE_GST_CUDA|"
                                                r"\bCO_HAVE_\w+|\bCO_CUDA_STREAMS\b", s)))
                elif re.match(r"#\s*endif", s) and stack:
                    stack.pop()
                if s.startswith("*") or s.startswith("/*") or s.startswith("//"):
                    continue
                for m in word.finditer(line):
                    n = m.group(1)
                    if any(stack):
                        state = "guarded"
                    elif n in fallbacks:
                        state = "compat fallback"
                    else:
                        state = "UNGUARDED"
                    uses.append((n, rel, i, state))
    return uses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--floor", default="1.16")
    ap.add_argument("--glib-floor", default="2.64",
                    help="GLib of the oldest GStreamer 1.16 system (Ubuntu 20.04, JetPack 5)")
    ap.add_argument("--gir-dir", required=True, action="append",
                    help="repeatable: a namespace is taken from the first directory that has it")
    ap.add_argument("--include-dir")
    ap.add_argument("--compat")
    ap.add_argument("--sources")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("elf", nargs="+")
    a = ap.parse_args()
    floor, gfloor = vtuple(a.floor), vtuple(a.glib_floor)

    table = {}
    found = []
    for gname in GST_GIRS + GLIB_GIRS + CUDA_GIRS:
        for d in a.gir_dir:
            p = os.path.join(d, gname + ".gir")
            if os.path.exists(p):
                found.append(gname)
                load_gir(p, gname.split("-")[0], table)
                break
    for need in ("Gst-1.0", "GstBase-1.0", "GstVideo-1.0"):
        if need not in found:
            print(f"error: {need}.gir not in {a.gir_dir}", file=sys.stderr)
            return 2
    if a.include_dir:
        load_headers(a.include_dir, table)
    fallbacks = compat_fallbacks(a.compat)
    print(f"API floor: GStreamer {a.floor}, GLib {a.glib_floor}; GIR files: {', '.join(found)}")
    if fallbacks:
        print("gstcocompat.h fallbacks: " +
              ", ".join(f"{n} (< {vstr(v)})" for n, v in sorted(fallbacks.items())))

    def floor_of(lib):
        if lib in ("GLib", "GObject", "Gio", "GModule"):
            return gfloor
        if lib in ("CudaGst", "GstCuda"):
            return None       # the gst-cuda feature itself requires 1.22
        return floor

    errors, report = [], {"symbols": {}, "sources": []}
    syms = {}
    for elf in a.elf:
        for s in imported(elf):
            syms.setdefault(s, []).append(os.path.basename(elf))
    newer, unknown, n_checked = [], [], 0
    for s in sorted(syms):
        if not re.match(r"_?(gst_|g_|_gst_|_g_|glib_)", s):
            continue
        n_checked += 1
        if s not in table:
            unknown.append(s)
            continue
        since, lib, kind = table[s]
        fl = floor_of(lib)
        if since and fl and since > fl:
            fb = fallbacks.get(s)
            ok = fb is not None and fb >= since
            newer.append((s, since, lib, ok, syms[s]))
            report["symbols"][s] = {"since": vstr(since), "lib": lib, "fallback": ok,
                                    "in": sorted(set(syms[s]))}
            if not ok:
                errors.append(f"{s} ({lib} {vstr(since)}) imported by {', '.join(sorted(set(syms[s])))}")
    print(f"{n_checked} GStreamer/GLib symbols imported by {len(a.elf)} files; "
          f"{len(newer)} newer than the floor:")
    for s, since, lib, ok, who in newer:
        print(f"  {s:<44} {lib} {vstr(since):<5} "
              f"{'handled in gstcocompat.h' if ok else 'NO FALLBACK'}  ({', '.join(sorted(set(who)))})")
    if unknown:
        gu = [u for u in unknown if "gst" in u]
        lu = [u for u in unknown if "gst" not in u]
        print(f"not in any GIR file (private or macro-backed, not checked): {' '.join(gu)}"
              + (f"; GLib: {len(lu)} ({' '.join(lu[:8])}{' ...' if len(lu) > 8 else ''})" if lu else ""))

    if a.sources:
        newer_ids = {n for n, (v, lib, k) in table.items()
                     if v and floor_of(lib) and v > floor_of(lib)}
        uses = source_uses(a.sources, newer_ids, fallbacks)
        print(f"source identifiers newer than the floor (enum values, macros, types; "
              f"{len(newer_ids)} known): {len(uses)} uses")
        for n, f, i, state in uses:
            v, lib, kind = table[n]
            print(f"  {f}:{i}: {n} ({lib} {vstr(v)}, {kind}) {state}")
            report["sources"].append({"name": n, "file": f, "line": i, "since": vstr(v),
                                      "state": state})
            if state == "UNGUARDED":
                errors.append(f"{f}:{i}: {n} ({lib} {vstr(v)}) used without a version guard")

    if a.json:
        report["errors"] = errors
        with open(a.json, "w") as fp:
            json.dump(report, fp, indent=1)
    if errors:
        print(f"GStreamer {a.floor} floor: {'would break' if a.report_only else 'BROKEN'}:")
        for e in errors:
            print("  " + e)
        return 0 if a.report_only else 1
    print(f"GStreamer {a.floor} floor holds" +
          (", with these differences handled in gstcocompat.h: " +
           ", ".join(f"{s} ({vstr(v)})" for s, v, l, ok, w in newer) if newer else "") + ".")
    return 0


if __name__ == "__main__":
    sys.exit(main())
