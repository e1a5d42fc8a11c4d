#!/usr/bin/env python3
"""The family's contract, as far as the source text shows it:
- no launcher in kernels/*.cu waits for the device (the base class
  synchronises once per frame; a rebuild asks gst_co_element_sync);
- elements make no CUDA memory copies or waits of their own (gstcoelement.h's
  upload/download/sync calls do), reach the engine only through those calls
  (of either base), and hold no GStreamer version checks (common/gstcocompat.h
  does);
- element headers declare types, not instance structs (docs/architecture.md).
Usage: lint-contract.py SOURCE_ROOT"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
rules = [
    ("kernels/*.cu", r"cuda(Stream|Device)Synchronize", "a launcher waits"),
    ("gst/*.c", r"\bcuda(Memcpy\w*|Stream\w+|DeviceSynchronize)\s*\(",
     "an element calls CUDA memory/stream functions itself"),
    ("gst/*.c", r"\bgst_co_engine_\w+\s*\(|\bengine\.device\b|->device\b",
     "an element calls or tests the engine itself (gst_co_element_*)"),
    ("gst/*.[ch]", r"GST_CHECK_VERSION|GLIB_CHECK_VERSION",
     "a version check outside gstcocompat.h"),
    ("common/*/gstco*.c", r"GST_CHECK_VERSION|GLIB_CHECK_VERSION",
     "a version check outside gstcocompat.h"),
    ("gst/gstcuda*.h", r"^struct _Gst", "an instance struct in an element's header"),
]
bad = 0
for pattern, regex, what in rules:
    for path in sorted(glob.glob(os.path.join(root, pattern))):
        # private headers hold instance structs; the compat layer the checks
        if path.endswith("-private.h") or os.path.basename(path).startswith("gstcocompat."):
            continue
        for no, line in enumerate(open(path, encoding="utf-8"), 1):
            if re.search(regex, line) and not line.lstrip().startswith(("*", "/*", "//")):
                print(f"{os.path.relpath(path, root)}:{no}: {what}: {line.strip()}")
                bad += 1
print(f"{bad} violation(s)")
sys.exit(1 if bad else 0)
