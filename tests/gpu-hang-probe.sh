#!/usr/bin/env bash
# Debug aid for the GPU machine: runs selected GPU tests; if they are still
# running after $1 seconds, dumps every thread's backtrace with cuda-gdb.
#   source .gpu-runtime/env.sh && bash tests/gpu-hang-probe.sh 40 test_a,test_b
set -u
export GST_PLUGIN_PATH=$PWD/build/gst CK_FORK=no CO_TEST_DATA_DIR=$PWD/tests/data
export CO_SAMPLES_DIR=$PWD/pipelines/samples GST_CHECKS=$2
out=${OUT:-/tmp}
build/tests/check/check-cudalensdistort-gpu > "$out/probe.log" 2>&1 &
pid=$!
for _ in $(seq "$1"); do sleep 1; kill -0 $pid 2>/dev/null || break; done
if kill -0 $pid 2>/dev/null; then
  echo "still running after $1 s: backtraces in $out/bt.txt"
  cuda-gdb -p $pid -batch -ex "thread apply all bt 25" > "$out/bt.txt" 2>&1
  kill -9 $pid
fi
wait $pid; echo "rc=$?"
tail -5 "$out/probe.log"
