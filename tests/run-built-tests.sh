#!/usr/bin/env bash
# Runs the already built test programs without meson, with the environment
# meson's test() would give them.  For a GPU machine without the build tools, whose meson (if any) is
# newer than the one that configured the build folder:
#   source .gpu-runtime/env.sh && bash tests/run-built-tests.sh [build]
# ONLY=regex runs the matching tests alone.
set -u
b=${1:-build}
root=$PWD
export GST_PLUGIN_PATH="$root/$b/gst" GST_PLUGIN_PATH_1_0="$root/$b/gst"
export CK_FORK=no CK_DEFAULT_TIMEOUT=900
export CO_TEST_DATA_DIR="$root/tests/data" CO_SAMPLES_DIR="$root/pipelines/samples"
logs=${OUT:-/tmp}
pass=0 fail=0 skip=0
for t in tests/test-lut tests/test-remap tests/test-camera tests/test-remapfilter tests/test-omni tests/test-circle tests/test-foveate tests/test-ssim tests/test-calibration tests/test-shcentroid tests/test-clt tests/test-clt-kernels tests/test-clt-correlate tests/check/check-cudalensdistort \
         tests/check/check-churn tests/check/check-churn:cuda tests/check/check-faults tests/check/check-faults:cuda tests/check/check-basefilter \
         tests/check/check-modes tests/check/check-modes:cuda tests/check/check-cudaomniunwrap tests/check/check-cudaomniunwrap:cuda \
         tests/check/check-cudafoveate tests/check/check-cudafoveate:cuda tests/check/check-cudashcentroid tests/check/check-cudashcentroid:cuda \
         tests/check/check-cudaaberration tests/check/check-cudaaberration:cuda tests/check/check-cudacltcorrelate tests/check/check-cudacltcorrelate:cuda \
         tests/check/check-coaggregator tests/check/check-coaggregator:cuda tests/check/check-cudalensdistort-gpu \
         tests/check/check-conformance tests/check/check-conformance:cuda \
         tests/check/check-nvmm tests/check/check-nvmm:cuda tests/check/check-nvmm:cuda-egl; do
  # PROGRAM:cuda runs PROGRAM --backend=cuda, the meson test PROGRAM-cuda:
  # its CUDA cases (tests/check/family-check.h, CO_CHECK_MAIN)
  args=() suffix=
  # PROGRAM:cuda-egl as :cuda, the tests' surface arrays real EGL images
  # (NVIDIA's EGL driver through the libglvnd that tests/pack-gpu-build.sh
  # puts in $b/egl)
  case $t in
    *:cuda) t=${t%:cuda}; args=(--backend=cuda) suffix=-cuda ;;
    *:cuda-egl) t=${t%:cuda-egl}; args=(--backend=cuda) suffix=-cuda-egl
      [ -f "$b/egl/10_nvidia.json" ] || continue ;;
  esac
  [ -x "$b/$t" ] || continue
  name=$(basename "$t")$suffix
  # ONLY=regex: just the tests whose names match (a quick GPU run)
  [ -z "${ONLY:-}" ] || [[ $name =~ $ONLY ]] || continue
  start=$(date +%s%N)
  case $name in
    # their own GstCoBaseFilter subclasses: never the plugin in-process
    # (tests/meson.build, test_env_own)
    check-basefilter|check-modes|check-modes-cuda|test-remapfilter)
      GST_PLUGIN_PATH=$root/$b/no-plugins GST_PLUGIN_PATH_1_0=$root/$b/no-plugins \
        GST_REGISTRY=/tmp/co-registry-own.bin GST_REGISTRY_1_0=/tmp/co-registry-own.bin \
        timeout "${TEST_TIMEOUT:-300}" "$b/$t" "${args[@]}" >"$logs/$name.log" 2>&1 ;;
    # memory:NVMM through the tests' libnvbufsurface (tests/nvmm/), with a
    # registry of its own (tests/check/meson.build)
    check-nvmm|check-nvmm-cuda)
      CO_NVBUFSURFACE_LIB=$root/$b/tests/nvmm/libnvbufsurface.so.1.0.0 \
        GST_REGISTRY=/tmp/co-registry-nvmm.bin GST_REGISTRY_1_0=/tmp/co-registry-nvmm.bin \
        timeout "${TEST_TIMEOUT:-300}" "$b/$t" "${args[@]}" >"$logs/$name.log" 2>&1 ;;
    check-nvmm-cuda-egl)
      CO_NVBUFSURFACE_LIB=$root/$b/tests/nvmm/libnvbufsurface.so.1.0.0 CO_TEST_NVBUF_EGL=require \
        LD_LIBRARY_PATH=$root/$b/egl:${LD_LIBRARY_PATH:-} \
        __EGL_VENDOR_LIBRARY_FILENAMES=$root/$b/egl/10_nvidia.json \
        GST_REGISTRY=/tmp/co-registry-nvmm.bin GST_REGISTRY_1_0=/tmp/co-registry-nvmm.bin \
        timeout "${TEST_TIMEOUT:-300}" "$b/$t" "${args[@]}" >"$logs/$name.log" 2>&1 ;;
    *) CO_NVBUFSURFACE_LIB=none \
        timeout "${TEST_TIMEOUT:-300}" "$b/$t" "${args[@]}" >"$logs/$name.log" 2>&1 ;;
  esac
  rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  case $rc in
    0) pass=$((pass + 1)); verdict=OK ;;
    77) skip=$((skip + 1)); verdict=SKIP ;;
    *) fail=$((fail + 1)); verdict="FAIL ($rc)" ;;
  esac
  printf '%-32s %-10s %8d ms\n' "$name" "$verdict" "$ms"
  [ "$rc" = 0 ] || [ "$rc" = 77 ] || tail -30 "$logs/$name.log"
done
# cudalensdistort against OpenCV (cv2.undistort, and its other models'
# maps), where OpenCV's Python module is
for py in compare-opencv compare-opencv-models stereo-rectify; do
  [ -z "${ONLY:-}" ] || [[ $py =~ $ONLY ]] || continue
  timeout "${TEST_TIMEOUT:-300}" python3 tests/$py.py >"$logs/$py.log" 2>&1
  case $? in
    0) pass=$((pass + 1)); verdict=OK ;;
    77) skip=$((skip + 1)); verdict=SKIP ;;
    *) fail=$((fail + 1)); verdict=FAIL ;;
  esac
  printf '%-32s %s\n' "$py" "$verdict"
  [ "$verdict" != FAIL ] || cat "$logs/$py.log"
done
# the manual's GPU examples (# needs: gpu), as written
if [ -z "${ONLY:-}" ] || [[ doc-examples-cuda =~ $ONLY ]]; then
  timeout 1200 python3 tests/doc-examples.py --gpu "$root" "$root/$b" >"$logs/doc-examples-cuda.log" 2>&1
  case $? in
    0) pass=$((pass + 1)); verdict=OK ;;
    77) skip=$((skip + 1)); verdict=SKIP ;;
    *) fail=$((fail + 1)); verdict=FAIL ;;
  esac
  printf '%-32s %s  %s\n' doc-examples-cuda "$verdict" "$(tail -1 "$logs/doc-examples-cuda.log")"
  [ "$verdict" != FAIL ] || grep -A30 "^FAIL\|PROBLEM" "$logs/doc-examples-cuda.log" | head -80
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
