#!/usr/bin/env bash
# The test command (README.md, and CI): installs what is missing, builds,
# runs every test and prints the totals last, as "N passed, N failed".
# GPU tests exit 77 (counted as skipped) where no CUDA device is usable.
set -u
cd "$(dirname "$0")/.."
source tests/deps.sh || exit 1
build=${BUILD_DIR:-build}
source tests/build-setup.sh || exit 1
meson test -C "$build" --print-errorlogs --num-processes 1
rc=$?
python3 tests/testlog-totals.py "$build/meson-logs/testlog.json"
exit $rc
