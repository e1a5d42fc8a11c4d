#!/usr/bin/env bash
# CI step "sanitize": the CPU test suite built with AddressSanitizer and
# UndefinedBehaviorSanitizer (gcc; -Dcuda=disabled), every UBSan report fatal,
# LeakSanitizer on.  Runs every C test (unit tests, fuzz regressions, the
# gst-check tests, the C example), then the Python tests with libasan
# preloaded into python3.  Test log: $CO_CI_OUT/sanitize/testlog.json.
#
# How a sanitized GStreamer plugin has to be run (../shared/README.md):
# - GST_REGISTRY_FORK=no: the uninstrumented gst-plugin-scanner refuses an
#   ASan plugin ("ASan runtime does not come first"), so the instrumented
#   test binary scans plugins in-process;
# - so every system plugin would be loaded in-process, and some leak at load
#   (drivers, fontconfig): GST_PLUGIN_SYSTEM_PATH is restricted to the few
#   plugins the tests use (symlinks in $BUILD/sanitize-plugins);
# - what is left is suppressed below, system libraries only (never a frame
#   of this project: no pattern names a project file or symbol).
# Env: BUILD (default build-asan), CO_CI_OUT (build-ci-steps).
set -u
step=sanitize
build=${BUILD:-build-asan}
source "$(dirname "$0")/lib-step.sh"

source tests/deps.sh || finish 1
# gcc's sanitizer runtimes (normally already there with gcc)
co_install_missing libasan8 libubsan1 "libgcc-$(gcc -dumpversion | cut -d. -f1)-dev" ||
  finish 1
rm -rf "$out"; mkdir -p "$out"

if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dcuda=disabled -Dbench=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false \
    "-Dc_args=-fsanitize=float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow -fno-omit-frame-pointer" \
    "-Dc_link_args=-fsanitize=float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow" || finish 1
fi
ninja -C "$build" || finish 1

# ---- the system plugins the tests use, and only those ----
sysdir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
plugdir=$build/sanitize-plugins
rm -rf "$plugdir"; mkdir -p "$plugdir"
# coreelements (fakesink, capsfilter, filesrc, identity), videotestsrc,
# videoconvertscale (videoconvert in 1.22; videoconvert before), videofilter
# (videoflip: check-churn), imagefreeze, jpeg and app (example.py,
# compare-opencv.py), png (cudafoveate's photographs and blur maps,
# cudashcentroid's mask).  A test
# that needs another plugin fails with "no element": add it here.
for p in coreelements videotestsrc videoconvertscale videoconvert imagefreeze jpeg app videofilter png; do
  [ -f "$sysdir/libgst$p.so" ] && ln -s "$sysdir/libgst$p.so" "$plugdir/"
done
echo "system plugins in the scan: $(ls "$plugdir" | tr '\n' ' ')"

# With the scan restricted as above, GStreamer 1.22 / GLib 2.74 leave only
# GLib's own quark block to suppress.  Add a line only for a system library's own
# leak ("leak:libfoo.so" or a system function), never a cudaoptics frame --
# and remember a library pattern matches any stack through that library.
cat > "$build/lsan.supp" <<'EOF'
# LeakSanitizer suppressions written by .ci/sanitize.sh (system libraries only)
# GLib's quark table: its first block (2048 pointers, 16384 bytes) is made
# by libglib's constructor and dropped on purpose once a process has more
# quarks (glib/gquark.c: "This leaks the old quarks array"); only a library
# constructor's allocations match (no cudaoptics code runs in one)
leak:_dl_init
EOF

export GST_REGISTRY_FORK=no
export GST_PLUGIN_SYSTEM_PATH_1_0=$plugdir GST_PLUGIN_SYSTEM_PATH=$plugdir
export G_SLICE=always-malloc G_DEBUG=gc-friendly
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
asan_common=halt_on_error=1:fast_unwind_on_malloc=0:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1
export LSAN_OPTIONS=suppressions=$build/lsan.supp:print_suppressions=1

python_tests=$(python3 tests/python-tests.py "$build") || finish 1
mapfile -t all < <(meson test -C "$build" --list --no-rebuild 2>/dev/null |
  sed -n 's|^\([^ ]* / \)\{0,1\}\([A-Za-z0-9_.-]*\)$|\2|p')
c_tests=(); py_tests=()
# the manual's and the install's checks (tests step): they run the
# uninstrumented gst-launch-1.0, gst-inspect-1.0 and python3 on the plugin
surface_tests="install demo-pictures python-venv doc-examples doc-examples-cuda docs-properties"
# tests/ref scripts whose time is numpy's (baselines, bias curves, flow
# statistics: 10 minutes under ASan); their numbers are checked in the tests
# step, and the element code they drive is the code ref-stereo-eval and
# check-cudacltcorrelate run here
surface_tests="$surface_tests ref-corr-baselines ref-bayer-bias ref-flow-eval"
for t in "${all[@]}"; do
  case " $surface_tests " in *" $t "*) continue ;; esac
  case " $python_tests " in *" $t "*) py_tests+=("$t") ;; *) c_tests+=("$t") ;; esac
done
echo "C tests: ${c_tests[*]}"
echo "Python tests: ${py_tests[*]:-none}"

rm -f "$build"/meson-logs/testlog-*.json
ASAN_OPTIONS=$asan_common:detect_leaks=1 \
  meson test -C "$build" --print-errorlogs --num-processes 1 --timeout-multiplier 4 \
    --logbase testlog-c "${c_tests[@]}"
rc=$?

# Python: libasan must come first in python3, so it is preloaded (libubsan
# with it).  Leak detection is off there: the interpreter keeps most of its
# objects at exit, which LSan cannot tell from leaks; the plugin's own leaks
# are caught by the C tests above, which drive the same code.
if [ ${#py_tests[@]} -gt 0 ]; then
  preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  LD_PRELOAD=$preload ASAN_OPTIONS=$asan_common:detect_leaks=0 \
    meson test -C "$build" --print-errorlogs --num-processes 1 --timeout-multiplier 4 \
      --logbase testlog-python "${py_tests[@]}"
  prc=$?
  [ $prc -eq 0 ] || rc=$prc
fi

cat "$build"/meson-logs/testlog-c.json "$build"/meson-logs/testlog-python.json \
  > "$out/testlog.json" 2>/dev/null
echo "sanitize: $(python3 tests/testlog-totals.py "$out/testlog.json")"
finish $rc
