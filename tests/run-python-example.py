#!/usr/bin/env python3
# Runs pipelines/example.py (or the pipelines/ script named as the
# argument); exits 77 (skipped) where PyGObject, or numpy for the examples
# that read results through the cudaoptics module, is missing.
import os
import runpy
import sys

from system_python import require

script = sys.argv[1] if len(sys.argv) > 1 else "example.py"
needs = ("gi", "numpy") if script != "example.py" else ("gi",)
if not require(*needs):
    print(f"{script} needs {' and '.join(needs)} (python3-gi, python3-numpy): skipping")
    sys.exit(77)
here = os.path.dirname(os.path.abspath(__file__))
sys.argv = [script]
runpy.run_path(os.path.join(here, "..", "pipelines", script), run_name="__main__")
