#!/usr/bin/env bash
# The CPU backend against what a CPU user would pick, on this machine:
#   - cudaomniunwrap backend=cpu projection=polar against gst-plugins-bad's
#     `dewarp` (OpenCV's cv::remap): a 1920x1080 RGBA donut unwrapped to a
#     3320x672 strip (dewarp sizes it from the radii: 192 and 864 pixels),
#     bilinear and nearest;
#   - cudalensdistort backend=cpu alpha=0 against `cameraundistort`
#     (OpenCV's cv::remap with cv::initUndistortRectifyMap's map): the
#     bundled calibration (640x480, tests/data/calib-opencv.yml) scaled to a
#     1080p RGBA photograph, bilinear.
# One process per run; the cost per frame is the difference between a run of
# FRAMES + 10 frames and one of 10 (start-up and the PNG decode cancel).  The
# two contenders alternate, run after run, so a machine whose speed drifts
# (shared cores) slows both alike; the median of REPEATS pairs is reported,
# and the ratio of each pair's times.  A missing OpenCV element is reported
# and skipped (Debian: gstreamer1.0-opencv).
#   GST_PLUGIN_PATH=build/gst bash tests/bench/cpu-vs-opencv.sh [FRAMES [REPEATS]]
set -u
n=${1:-120}
reps=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$root/build/gst}
donut="filesrc location=$root/pipelines/images/omni-donut.png ! pngdec ! videoconvert ! videoscale \
! video/x-raw,format=RGBA,width=1920,height=1080 ! imagefreeze num-buffers=NB"
photo="filesrc location=$root/pipelines/samples/building.jpg ! jpegdec ! videoconvert ! videoscale \
! video/x-raw,format=RGBA,width=1920,height=1080 ! imagefreeze num-buffers=NB"
strip="video/x-raw,format=RGBA,width=3320,height=672"
calib="$root/tests/data/calib-opencv.yml"

# cameraundistort's settings: the calibration's camera as OpenCV XML, scaled
# to 1920x1080 as cudalensdistort scales it (x3 across, x2.25 down); tabs
# between words, so that the line splits into gst-launch's arguments at its
# spaces only
T=$'\t'
undistort="<?xml${T}version='1.0'?><opencv_storage><cameraMatrix${T}type_id='opencv-matrix'>\
<rows>3</rows><cols>3</cols><dt>d</dt><data>1607.726${T}0.${T}1026.869${T}0.${T}1205.795${T}530.041${T}\
0.${T}0.${T}1.</data></cameraMatrix><distCoeffs${T}type_id='opencv-matrix'><rows>5</rows><cols>1</cols>\
<dt>d</dt><data>-0.266358${T}-0.0387205${T}0.00178007${T}-0.000289061${T}0.238227</data></distCoeffs>\
</opencv_storage>"

# microseconds for one run of a launch line with NB frames
run_once () {
  local line=${2//NB/$1} t0 t1 IFS=' '
  t0=$(date +%s%N)
  gst-launch-1.0 -q $line >/dev/null 2>&1 || { echo FAIL; return; }
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000 ))"
}

# ms per frame of one measurement
per_frame () {
  local a b
  a=$(run_once 10 "$1"); b=$(run_once $((n + 10)) "$1")
  { [ "$a" = FAIL ] || [ "$b" = FAIL ]; } && { echo FAIL; return; }
  awk -v d="$((b - a))" -v n="$n" 'BEGIN { printf "%.3f", d / n / 1000 }'
}

median () { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

have () { gst-inspect-1.0 "$1" >/dev/null 2>&1; }

# pair NAME_A LINE_A NAME_B LINE_B: alternating runs, medians and the ratio
pair () {
  local i ta tb as=() bs=() rs=()
  for i in $(seq "$reps"); do
    ta=$(per_frame "$2"); tb=$(per_frame "$4")
    { [ "$ta" = FAIL ] || [ "$tb" = FAIL ]; } && { echo "| $1 / $3 | failed | | |"; return; }
    as+=("$ta"); bs+=("$tb"); rs+=("$(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.3f", a / b }')")
  done
  printf '| %s | %.2f | %.2f | %.2f (%s–%s) |\n' "$1 vs $3" \
    "$(printf '%s\n' "${as[@]}" | median)" "$(printf '%s\n' "${bs[@]}" | median)" \
    "$(printf '%s\n' "${rs[@]}" | median)" "$(printf '%s\n' "${rs[@]}" | sort -g | head -1)" \
    "$(printf '%s\n' "${rs[@]}" | sort -g | tail -1)"
}

single () {
  local i t ts=()
  for i in $(seq "$reps"); do
    t=$(per_frame "$2"); [ "$t" = FAIL ] && { echo "| $1 | failed | | |"; return; }
    ts+=("$t")
  done
  printf '| %s | %.2f | | |\n' "$1" "$(printf '%s\n' "${ts[@]}" | median)"
}

echo "# $(nproc) CPU cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $n frames per run, median of $reps alternating pairs"
echo "| A vs B | A ms/frame | B ms/frame | A / B (range) |"
echo "|---|---|---|---|"
for interp in bilinear nearest; do
  a="$donut ! cudaomniunwrap backend=cpu projection=polar interpolation=$interp center-x=960 center-y=540 inner-radius=192 outer-radius=864 ! $strip ! fakesink"
  if have dewarp; then
    pair "cudaomniunwrap backend=cpu $interp" "$a" "dewarp (OpenCV remap) $interp" \
      "$donut ! dewarp x-center=0.5 y-center=0.5 inner-radius=0.1 outer-radius=0.45 interpolation-method=$interp ! $strip ! fakesink"
  else
    single "cudaomniunwrap backend=cpu $interp (dewarp not installed: gstreamer1.0-opencv)" "$a"
  fi
done
lens="$photo ! cudalensdistort backend=cpu calibration-file=$calib alpha=0 ! fakesink"
if have cameraundistort; then
  pair "cudalensdistort backend=cpu 1080p bilinear" "$lens" "cameraundistort (OpenCV remap) 1080p" \
    "$photo ! cameraundistort settings=\"$undistort\" ! fakesink"
else
  single "cudalensdistort backend=cpu 1080p bilinear (cameraundistort not installed)" "$lens"
fi
