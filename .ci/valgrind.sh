#!/usr/bin/env bash
# CI step "valgrind": memcheck over the C tests (unit tests, fuzz regressions,
# the gst-check tests, the C example) of a CPU build (-Dcuda=disabled), with
# GStreamer's usual settings: G_SLICE=always-malloc, G_DEBUG=gc-friendly,
# GLib's glib.supp plus tests/valgrind.supp (GLib/GStreamer type-system and
# registry one-time allocations; no Debian 12 package ships GStreamer's own
# gst.supp).  Any invalid access, use of uninitialised memory or definite
# leak fails the test (--error-exitcode=99, --errors-for-leak-kinds=definite).
# The wrapper is meson's test setup "valgrind" (tests/meson.build), so by hand:
#   meson test -C build-valgrind --setup valgrind check-cudalensdistort
# Python tests are not run under valgrind (the interpreter's own noise; the
# sanitize step runs them with ASan).  Test log: $CO_CI_OUT/valgrind/testlog.json
# Env: BUILD (default build-valgrind), CO_CI_OUT (build-ci-steps),
#      CO_VALGRIND_TESTS (test names; default every C test).
set -u
step=valgrind
build=${BUILD:-build-valgrind}
source "$(dirname "$0")/lib-step.sh"

source tests/deps.sh || finish 1
co_install_missing valgrind libglib2.0-dev libc6-dbg || finish 1
rm -rf "$out"; mkdir -p "$out"

if [ ! -f "$build/build.ninja" ]; then
  # valgrind was not installed when a folder was configured: configure again
  meson setup "$build" -Dcuda=disabled -Dbench=disabled || finish 1
elif ! meson test -C "$build" --list --no-rebuild --setup valgrind >/dev/null 2>&1; then
  meson setup --reconfigure "$build" || finish 1
fi
ninja -C "$build" || finish 1

python_tests=$(python3 tests/python-tests.py "$build") || finish 1
if [ -n "${CO_VALGRIND_TESTS:-}" ]; then
  read -r -a tests <<< "$CO_VALGRIND_TESTS"
else
  mapfile -t all < <(meson test -C "$build" --list --no-rebuild 2>/dev/null |
    sed -n 's|^\([^ ]* / \)\{0,1\}\([A-Za-z0-9_.-]*\)$|\2|p')
  tests=()
  # the manual's and the install's checks (tests step) run other programs
  surface_tests="install demo-pictures python-venv doc-examples doc-examples-cuda docs-properties"
  for t in "${all[@]}"; do
    case " $python_tests $surface_tests " in *" $t "*) ;; *) tests+=("$t") ;; esac
  done
fi
echo "valgrind $(valgrind --version) over: ${tests[*]}"

# two at a time: valgrind runs each test's threads on one core
meson test -C "$build" --setup valgrind --print-errorlogs --num-processes 2 \
  --logbase testlog "${tests[@]}"
rc=$?
cp "$build/meson-logs/testlog-valgrind.json" "$out/testlog.json"
cp "$build/meson-logs/testlog-valgrind.txt" "$out/testlog.txt" 2>/dev/null
python3 - "$out/testlog.json" <<'PY'
import json, re, sys
n = {"pass": 0, "fail": 0, "skip": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)
    k = "pass" if r["result"] in ("OK", "EXPECTEDFAIL") else "skip" if r["result"] == "SKIP" else "fail"
    n[k] += 1
    summ = re.findall(r"ERROR SUMMARY: (\d+) errors", r.get("stderr") or "")
    defl = re.findall(r"definitely lost: ([\d,]+) bytes", r.get("stderr") or "")
    print(f"  {r['name']:<40} {r['result']:<6} {r['duration']:7.1f} s"
          f"  errors {summ[-1] if summ else '?'}, definitely lost {defl[-1] if defl else '0'} bytes")
print(f"valgrind: {n['pass']} passed, {n['fail']} failed, {n['skip']} skipped")
PY
finish $rc
