#!/usr/bin/env bash
# cudaoptics — LGPL-2.1-or-later
# Frames per second of each element on the CPU backend (backend=cpu), as a
# Markdown table for README.md: one decoded frame repeated by imagefreeze
# into the element and fakesink (a Bayer source makes its own), N frames, the best of 3 runs; the pipeline
# without the element is timed too, and its time per frame subtracted.
# Usage: GST_PLUGIN_PATH=build/gst bash tests/bench/cpu-fps.sh [N]
set -eu
n=${1:-60}
s=pipelines/samples
ms () {      # best wall time of 3 runs of gst-launch-1.0 "$@", ms
  local best=999999 t0 t1 i
  for i in 1 2 3; do
    t0=$(date +%s%N)
    gst-launch-1.0 -q "$@" >/dev/null
    t1=$(date +%s%N)
    (( (t1 - t0) / 1000000 < best )) && best=$(( (t1 - t0) / 1000000 ))
  done
  echo $best
}
row () {     # name, size label, source..., -- element...
  local name=$1 label=$2; shift 2
  local src=() el=()
  while [ "$1" != "--" ]; do src+=("$1"); shift; done; shift
  el=("$@")
  local base with freeze=(! imagefreeze num-buffers=$n)
  # a source of its own N frames (Bayer: imagefreeze takes raw video only)
  [[ " ${src[*]} " == *" num-buffers=$n "* ]] && freeze=()
  base=$(ms "${src[@]}" "${freeze[@]}" ! fakesink)
  with=$(ms "${src[@]}" "${freeze[@]}" ! "${el[@]}" backend=cpu ! fakesink)
  awk -v n="$n" -v b="$base" -v w="$with" -v name="$name" -v label="$label" 'BEGIN {
    per = (w - b) / n; if (per < 0.01) per = 0.01
    printf "| %s | %s | %.1f | %.0f |\n", name, label, per, 1000 / per }'
}
rgba () { echo filesrc location=$s/building.jpg ! jpegdec ! videoconvert ! videoscale ! \
  video/x-raw,format=RGBA,width=$1,height=$2; }
echo "| element, settings | frame | ms per frame | frames/s |"
echo "|---|---|---:|---:|"
# shellcheck disable=SC2046
row "cudalensdistort k1=-0.25, bilinear" "1920×1080 RGBA" $(rgba 1920 1080) -- cudalensdistort k1=-0.25
# shellcheck disable=SC2046
row "cudalensdistort, calibration file" "640×480 GRAY8" filesrc location=$s/left01.jpg ! jpegdec ! \
  videoconvert ! video/x-raw,format=GRAY8 -- cudalensdistort calibration-file=$s/left_intrinsics.yml
# shellcheck disable=SC2046
row "cudafoveate, default strength" "1920×1080 RGBA" $(rgba 1920 1080) -- cudafoveate
# shellcheck disable=SC2046
row "cudaomniunwrap projection=cuboid" "1000×1000 → 1832×458 RGBA" filesrc location=$s/mirror.jpg ! \
  jpegdec ! videoconvert ! video/x-raw,format=RGBA -- cudaomniunwrap projection=cuboid \
  mirror-radius=30 mirror-distance=150 focal-length=2400 plane-distance=229 inner-radius=120 outer-radius=465
# shellcheck disable=SC2046
row "cudashcentroid pitch=24, tcog" "648×486 GRAY8" filesrc location=$s/sh-spots.png ! pngdec ! \
  videoconvert ! video/x-raw,format=GRAY8 -- cudashcentroid pitch=24 origin-x=8.5 origin-y=6.25 method=tcog
# shellcheck disable=SC2046
row "cudaaberration, demosaic only" "640×480 RGGB" videotestsrc num-buffers=$n ! \
  video/x-raw,format=ARGB,width=640,height=480 ! rgb2bayer ! video/x-bayer,format=rggb -- cudaaberration
# each frame against the one before: the flow's full cost, zero as it is
row "cudacltcorrelate mode=temporal (flow)" "640×480 GRAY8" filesrc location=$s/building.jpg ! \
  jpegdec ! videoconvert ! videoscale ! video/x-raw,format=GRAY8,width=640,height=480 -- \
  cudacltcorrelate mode=temporal
