#!/usr/bin/env bash
# Soak test of every element of the plugin (tests/soak/soak.c): 100,000 frames
# per configuration with properties changed from another thread, memory growth
# and stall checks.  Not part of the test suite (minutes per configuration).
#
#   bash tests/soak/run-soak.sh [BUILD_DIR [BACKEND:MEMORY ...]] [-- SOAK_ARGS]
#
# BACKEND cpu|cuda, MEMORY system|cuda (memory:CUDAMemory through cudaupload /
# cudadownload).  Default: cpu:system cuda:system cuda:cuda; a configuration
# this machine cannot run (no GPU, no cudaupload) is reported SKIP.
# FRAMES=N overrides the frame count.  On the GPU machine (no meson there):
#   source .gpu-runtime/env.sh && bash tests/soak/run-soak.sh build-soak cuda:system cuda:cuda
# Logs: $OUT (or /tmp)/soak-BACKEND-MEMORY.log.  Exit status 1 if any failed.
set -u
b=build
[ $# -gt 0 ] && [ "$1" != -- ] && { b=$1; shift; }
configs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do configs+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
[ ${#configs[@]} -gt 0 ] || configs=(cpu:system cuda:system cuda:cuda)
root=$PWD
exe="$root/$b/tests/soak/soak"
[ -x "$exe" ] || { echo "no $exe: build first (ninja -C $b)"; exit 2; }
export GST_PLUGIN_PATH="$root/$b/gst" GST_PLUGIN_PATH_1_0="$root/$b/gst"
export CO_TEST_DATA_DIR="$root/tests/data" CO_SAMPLES_DIR="$root/pipelines/samples"
export GST_REGISTRY="${GST_REGISTRY:-${TMPDIR:-/tmp}/soak-registry-$$.bin}"
logs=${OUT:-/tmp}
mkdir -p "$logs" || exit 1
fail=0
summary=()
for c in "${configs[@]}"; do
  be=${c%%:*} mem=${c#*:}
  log="$logs/soak-$be-$mem.log"
  echo "== $c: $exe --backend $be --memory $mem --frames ${FRAMES:-100000} $*"
  start=$(date +%s)
  "$exe" --backend "$be" --memory "$mem" --frames "${FRAMES:-100000}" "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  secs=$(( $(date +%s) - start ))
  case $rc in
    0) verdict=PASS ;;
    77) verdict=SKIP ;;
    *) verdict="FAIL ($rc)"; fail=1 ;;
  esac
  summary+=("$(printf '%-12s %-9s %5d s  %s' "$c" "$verdict" "$secs" \
    "$(grep -E '^time:' "$log" | sed 's/^time: //')")")
done
echo
printf '%s\n' "${summary[@]}"
exit $fail
