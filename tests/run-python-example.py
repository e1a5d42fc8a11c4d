#!/usr/bin/env python3
# Runs pipelines/example.py (or the pipelines/ script named as the
# argument); exits 77 (skipped) where PyGObject is missing.
import os
import runpy
import sys

from system_python import require

if not require("gi"):
    print("PyGObject (python3-gi) is not installed: skipping")
    sys.exit(77)
here = os.path.dirname(os.path.abspath(__file__))
script = sys.argv[1] if len(sys.argv) > 1 else "example.py"
sys.argv = [script]
runpy.run_path(os.path.join(here, "..", "pipelines", script), run_name="__main__")
