#!/usr/bin/env python3
"""The plugin exports GStreamer's entry points and nothing else (gst/plugin.map)."""
import subprocess
import sys

out = subprocess.run(["nm", "-D", "--defined-only", sys.argv[1]],
                     capture_output=True, text=True, check=True).stdout
names = [line.split()[-1] for line in out.splitlines() if line.strip()]
stray = [n for n in names if not n.startswith("gst_plugin_")]
print("exported:", " ".join(names))
if stray or not names:
    print("unexpected exports:", " ".join(stray) or "(none at all)")
    sys.exit(1)
