#!/usr/bin/env bash
# compute-sanitizer over the GPU suites, on the GPU machine, as a step of
# every GPU run that changes a kernel or the frame path (docs/testing.md):
#   memcheck (leak check on)  every element's check program (their CUDA
#                             cases compare CUDA with the CPU) and the unit
#                             tests that launch kernels directly;
#   racecheck                 cudafoveate's suite (shared-memory tiles) and
#                             cudalensdistort's CUDA-memory chains;
#   synccheck                 the same chains.
# 1.22 build (after source .gpu-runtime/env.sh):
#   bash tests/gpu-sanitize.sh build-gc
# 1.26 build (tests/gpu-126.sh; programs run directly once
# tests/run-built-tests-126.sh has made its loader link, or after this
# script's own RUN126=1):
#   source .gpu-runtime-126/env.sh && RUN126=1 bash tests/gpu-sanitize.sh build-126
# Each run has SAN_TIMEOUT seconds (default 240), and none starts after
# SAN_BUDGET seconds in all (default: no limit); logs in $OUT (or /tmp).
# Prints one line per run and "sanitize: N clean, N with errors, N not run";
# exit status 1 when a run reports an error.
set -u
b=${1:-build}
root=$PWD
logs=${OUT:-/tmp}
san=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[ -x "$san" ] || { echo "no compute-sanitizer"; exit 77; }
export GST_PLUGIN_PATH="$root/$b/gst" GST_PLUGIN_PATH_1_0="$root/$b/gst"
export CK_FORK=no CK_DEFAULT_TIMEOUT=3000
export CO_TEST_DATA_DIR="$root/tests/data" CO_SAMPLES_DIR="$root/pipelines/samples"
if [ -n "${RUN126:-}" ]; then
  ln -sfn "$root/.gpu-runtime-126/lib/ld-linux-x86-64.so.2" /tmp/cudaoptics-126-ld.so.2
fi
clean=0 bad=0 skipped=0
start=$(date +%s)
run () {   # TOOL NAME PROGRAM[:cuda] [ENV=VALUE...]
  local tool=$1 name=$2 prog=$3 log rc args=()
  shift 3
  # PROGRAM:cuda: its CUDA cases (--backend=cuda, as run-built-tests.sh)
  case $prog in *:cuda) prog=${prog%:cuda}; args=(--backend=cuda) ;; esac
  if [ -n "${SAN_BUDGET:-}" ] && [ $(( $(date +%s) - start )) -ge "$SAN_BUDGET" ]; then
    echo "$tool $name: not run (SAN_BUDGET spent)"; skipped=$((skipped + 1)); return
  fi
  log="$logs/san-$tool-$name.log"
  [ -x "$b/$prog" ] || { echo "$tool $name: no $b/$prog"; skipped=$((skipped + 1)); return; }
  local extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  env "$@" timeout "${SAN_TIMEOUT:-240}" "$san" --tool "$tool" "${extra[@]}" \
    --error-exitcode 99 "$b/$prog" "${args[@]}" >"$log" 2>&1
  rc=$?
  local summary
  summary=$(grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY" "$log" | tail -2 | tr '\n' ' ')
  case $rc in
    0) clean=$((clean + 1)); printf '%-10s %-28s clean   %s\n' "$tool" "$name" "$summary" ;;
    124) skipped=$((skipped + 1)); printf '%-10s %-28s timeout (%ss)\n' "$tool" "$name" "${SAN_TIMEOUT:-240}" ;;
    *) bad=$((bad + 1)); printf '%-10s %-28s FAIL (%d) %s\n' "$tool" "$name" "$rc" "$summary"
       grep -m5 -E "Invalid|Race|error|leak" "$log" | sed 's/^/    /' ;;
  esac
}
run memcheck check-cudashcentroid tests/check/check-cudashcentroid:cuda
run memcheck check-cudaaberration tests/check/check-cudaaberration:cuda
run memcheck check-cudaomniunwrap tests/check/check-cudaomniunwrap:cuda
run memcheck check-cudacltcorrelate tests/check/check-cudacltcorrelate:cuda
run memcheck check-coaggregator tests/check/check-coaggregator:cuda
run racecheck test-clt-correlate tests/test-clt-correlate
run memcheck check-cudafoveate tests/check/check-cudafoveate:cuda
run memcheck check-cudalensdistort-gpu tests/check/check-cudalensdistort-gpu CK_RUN_CASE=gpu
run memcheck test-shcentroid tests/test-shcentroid
run memcheck test-remap tests/test-remap
run racecheck check-cudafoveate tests/check/check-cudafoveate:cuda
run racecheck check-cudalensdistort-gpu tests/check/check-cudalensdistort-gpu CK_RUN_CASE=gpu
run synccheck check-cudalensdistort-gpu tests/check/check-cudalensdistort-gpu CK_RUN_CASE=gpu
echo "sanitize: $clean clean, $bad with errors, $skipped not run"
[ "$bad" = 0 ]
