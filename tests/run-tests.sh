#!/usr/bin/env bash
# The test command (README.md, and CI): installs what is missing, builds,
# runs every test and prints the totals last, as "N passed, N failed".
# GPU tests exit 77 (counted as skipped) where no CUDA device is usable.
set -u
cd "$(dirname "$0")/.."
source tests/deps.sh || exit 1
build=${BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
  # MESON_ARGS: e.g. -Dcuda-archs=87 on Jetson Orin
  meson setup "$build" ${MESON_ARGS:-} || exit 1
fi
ninja -C "$build" || exit 1
meson test -C "$build" --print-errorlogs --num-processes 1
rc=$?
python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, sys
n = {"pass": 0, "fail": 0, "skip": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    n["pass" if r in ("OK", "EXPECTEDFAIL") else "skip" if r == "SKIP" else "fail"] += 1
print(f"{n['pass']} passed, {n['fail']} failed, {n['skip']} skipped")
PY
exit $rc
