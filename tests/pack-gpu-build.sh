#!/usr/bin/env bash
# Packs what the GPU suite and the benchmarks need for a GPU machine
# which has no GStreamer and takes at most 64 MiB of carried files:
#   build-gc/   stripped copies of build/gst/*.so, build/tests/check/check-*,
#               build/tests/test-* and build/tests/bench/* (the layout
#               tests/run-built-tests.sh expects of a build folder)
# as build-xz/build-gc.tar.xz, and .gpu-runtime (../shared/gpu/stage-gst-runtime)
# as build-xz/gpurt.tar.xz when that is missing or older.  Both folders are
# git-ignored.  On the device (run tool, carry ["build-xz"]):
#   for f in build-xz/*.tar.xz; do tar xJf $f; done; source .gpu-runtime/env.sh
#   GST_PLUGIN_PATH=$PWD/build-gc/gst OUT=$OUT bash tests/run-built-tests.sh build-gc
# Usage: bash tests/pack-gpu-build.sh [BUILD_DIR]   (default build)
set -eu
cd "$(dirname "$0")/.."
b=${1:-build}
rm -rf build-gc
mkdir -p build-gc/gst build-gc/no-plugins build-gc/tests/check build-gc/tests/bench build-gc/tools \
  build-gc/tests/soak build-gc/pipelines build-xz
cp "$b"/gst/*.so build-gc/gst/
# what the manual's examples run (tests/doc-examples.py --gpu)
cp "$b"/tools/co-clt-kernels build-gc/tools/
cp "$b"/pipelines/example-app build-gc/pipelines/ 2>/dev/null || true
# tests/soak/run-soak.sh build-gc cuda:system cuda:cuda
cp "$b"/tests/soak/soak build-gc/tests/soak/
# the tests' libnvbufsurface (check-nvmm)
mkdir -p build-gc/tests/nvmm
cp -P "$b"/tests/nvmm/libnvbufsurface.so* build-gc/tests/nvmm/ 2>/dev/null || true
# libglvnd's EGL and GLES front ends and a vendor file naming NVIDIA's EGL
# driver, which the GPU machine has without them: check-nvmm-cuda-egl
# (tests/nvmm/nvbufsurface-egl.c) makes real EGL images with them
if [ -e /usr/lib/x86_64-linux-gnu/libEGL.so.1 ] && [ -e /usr/lib/x86_64-linux-gnu/libGLESv2.so.2 ]; then
  mkdir -p build-gc/egl
  cp -L /usr/lib/x86_64-linux-gnu/libEGL.so.1 /usr/lib/x86_64-linux-gnu/libGLESv2.so.2 \
    /usr/lib/x86_64-linux-gnu/libGLdispatch.so.0 build-gc/egl/
  echo '{ "file_format_version" : "1.0.0", "ICD" : { "library_path" : "libEGL_nvidia.so.0" } }' \
    > build-gc/egl/10_nvidia.json
fi
for f in "$b"/tests/check/check-* "$b"/tests/test-* "$b"/tests/bench/bench-*; do
  [ -f "$f" ] && [ -x "$f" ] || continue
  case $f in
    */check/*) cp "$f" build-gc/tests/check/ ;;
    */bench/*) cp "$f" build-gc/tests/bench/ ;;
    *) cp "$f" build-gc/tests/ ;;
  esac
done
strip build-gc/gst/*.so build-gc/tests/check/* build-gc/tests/test-* build-gc/tests/bench/* build-gc/tests/soak/* \
  build-gc/tools/* build-gc/pipelines/* 2>/dev/null || true
tar cf - build-gc | xz -3 -T2 > build-xz/build-gc.tar.xz
if [ -d .gpu-runtime ] && { [ ! -f build-xz/gpurt.tar.xz ] || [ .gpu-runtime -nt build-xz/gpurt.tar.xz ]; }; then
  tar cf - .gpu-runtime | xz -3 -T2 > build-xz/gpurt.tar.xz
fi
ls -l build-xz
