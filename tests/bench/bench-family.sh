#!/usr/bin/env bash
# bench-pipeline for every element of the family, in the memory set-ups each
# can take, on the GPU machine (after source .gpu-runtime/env.sh):
#   bash tests/bench/bench-family.sh BUILD [ELEMENT...]
# BUILD holds gst/ (the plugin) and tests/bench/bench-pipeline; PLUGIN_DIRS
# (space-separated) runs the same benchmark against other builds of the
# plugin in the same process tree, e.g. the previous commit's, for a
# before/after on one machine.  cudafoveate also runs with
# CO_SYNC_EVERY_FRAME=1 (a host wait every frame, as before stream
# ordering).  Set RUN to a loader wrapper ("$CO_RUN" on 1.26).
set -u
b=${1:-build}
shift || true
els=${*:-cudalensdistort cudafoveate cudaomniunwrap cudashcentroid cudaaberration}
dirs=${PLUGIN_DIRS:-$b/gst}
for e in $els; do
  case $e in
    cudalensdistort) args=(1920 1080 RGBA cuda,pinned cudalensdistort "k1=-0.2") ;;
    cudafoveate) args=(1920 1080 RGBA cuda,pinned cudafoveate "fixation-x=0.5") ;;
    cudaomniunwrap) args=(1920 1080 RGBA cuda,pinned cudaomniunwrap
        "projection=polar inner-radius=100 outer-radius=500") ;;
    cudashcentroid) args=(1000 1000 GRAY8 pinned,pageable cudashcentroid
        "pitch=11 message-interval=0") ;;
    cudaaberration) args=(2592 1936 bayer:rggb pinned cudaaberration "lpf-sigma=0.5") ;;
    *) echo "unknown element $e"; exit 2 ;;
  esac
  for d in $dirs; do
    echo "### $e, plugin $d"
    GST_PLUGIN_PATH=$d GST_REGISTRY=/tmp/co-bench-$$-$(echo "$d" | md5sum | cut -c1-8).bin \
      ${RUN:-} "$b/tests/bench/bench-pipeline" "${args[@]}"
    if [ "$e" = cudafoveate ]; then
      echo "### $e, plugin $d, a host wait every frame"
      CO_SYNC_EVERY_FRAME=1 GST_PLUGIN_PATH=$d \
        GST_REGISTRY=/tmp/co-bench-$$-$(echo "$d" | md5sum | cut -c1-8).bin \
        ${RUN:-} "$b/tests/bench/bench-pipeline" 1920 1080 RGBA cuda cudafoveate "fixation-x=0.5"
    fi
  done
done
