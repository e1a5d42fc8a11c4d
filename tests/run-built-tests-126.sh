#!/usr/bin/env bash
# tests/run-built-tests.sh for the GStreamer 1.26 build of tests/gpu-126.sh
# (Debian 13 binaries, glibc 2.41) on the GPU machine (glibc 2.39):
#   source .gpu-runtime-126/env.sh && OUT=$OUT bash tests/run-built-tests-126.sh [build-126]
# gpu-126.sh gave the test programs the staged loader as interpreter, at
# /tmp/cudaoptics-126-ld.so.2, and the staged libraries as rpath; this links
# that path to .gpu-runtime-126's loader, then runs the same tests as
# run-built-tests.sh, as plain programs (so a test that re-executes
# /proc/self/exe gets itself, not the loader "$CO_RUN" would be), after
# making GStreamer's registry (below).
# compare-opencv's gst-launch-1.0 is the staged 1.26 one (env.sh's PATH).
set -u
cd "$(dirname "$0")/.." || exit 1
b=${1:-build-126}
rt=${CO_RUNTIME_126:-.gpu-runtime-126}
[ -x "$rt/run" ] || { echo "no $rt here: carry it (tests/gpu-126.sh makes it)" >&2; exit 1; }
[ -f "$b/BUILD-INFO.txt" ] || { echo "$b is not a build of tests/gpu-126.sh" >&2; exit 1; }
# env.sh's settings, when the caller did not source it
case "${GST_PLUGIN_SYSTEM_PATH:-}" in "$PWD/$rt/plugins") ;; *) source "$rt/env.sh" ;; esac
ln -sfn "$PWD/$rt/lib/ld-linux-x86-64.so.2" /tmp/cudaoptics-126-ld.so.2 ||
  { echo "cannot link /tmp/cudaoptics-126-ld.so.2" >&2; exit 1; }
# The registry, made once before the tests by gst-inspect-1.0 (a process of
# its own).  Staged, GStreamer scans in-process (GST_REGISTRY_FORK=no: the
# scanner would start under the host's loader), and a test whose first
# gst_init finds no registry would load the plugin while scanning: the tests
# that link the common layer themselves (check-basefilter, check-modes,
# test-remapfilter) then fail with "cannot register existing type
# 'GstCoBaseFilter'".  The 1.22 runtime forks a scanner and never hits this.
# (the plugin path as run-built-tests.sh sets it: a GStreamer process run
# without it would drop the plugin from the registry again)
export GST_PLUGIN_PATH="$PWD/$b/gst" GST_PLUGIN_PATH_1_0="$PWD/$b/gst"
CO_NVBUFSURFACE_LIB=none "$rt/bin/gst-inspect-1.0" cudalensdistort >"${OUT:-/tmp}/gst-inspect-126.log" 2>&1 ||
  { cat "${OUT:-/tmp}/gst-inspect-126.log"; echo "cudalensdistort does not load under the staged GStreamer" >&2; exit 1; }
# check-nvmm's own registry (its pad templates depend on the tests'
# libnvbufsurface: run-built-tests.sh), made the same way
if [ -f "$b/tests/nvmm/libnvbufsurface.so.1.0.0" ]; then
  CO_NVBUFSURFACE_LIB="$PWD/$b/tests/nvmm/libnvbufsurface.so.1.0.0" \
    GST_REGISTRY=/tmp/co-registry-nvmm.bin GST_REGISTRY_1_0=/tmp/co-registry-nvmm.bin \
    "$rt/bin/gst-inspect-1.0" cudalensdistort >"${OUT:-/tmp}/gst-inspect-126-nvmm.log" 2>&1 ||
    { cat "${OUT:-/tmp}/gst-inspect-126-nvmm.log"; echo "cudalensdistort does not load with the tests' libnvbufsurface" >&2; exit 1; }
fi
echo "GStreamer $("$rt/bin/gst-launch-1.0" --version | sed -n 's/.*version //p' | head -1) ($rt), $b: $(sed -n 2p "$b/BUILD-INFO.txt")"
exec bash tests/run-built-tests.sh "$b"
