#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""The names of a build's tests that run python3 (meson's introspection),
one line, for the CI guards that treat them apart (.ci/sanitize.sh preloads
the sanitizers' runtimes into them, .ci/valgrind.sh leaves them out).

usage: python-tests.py BUILD_DIR
"""
import json
import os
import subprocess
import sys

tests = json.loads(subprocess.check_output(
    ["meson", "introspect", "--tests", sys.argv[1]]))
print(" ".join(t["name"] for t in tests
               if os.path.basename(t["cmd"][0]).startswith("python")))
