#!/usr/bin/env bash
# cudaomniunwrap, one launch line per projection and layout, on a picture of
# a spherical mirror (R 30, h 150, f 2400 pixels: what pipelines/omni-render
# draws with --focal-length 2400 --size 1000; give your own mirror's
# numbers in MIRROR).  Writes omni-{polar,cylinder,cuboid,ground,four}.png.
# Usage: bash pipelines/omni-examples.sh MIRROR.png OUTPUT_DIR [WIDTH]
#   WIDTH: JPEG files that many columns wide instead (the README's).
set -eu
in=$1 out=$2 width=${3:-}
MIRROR=${MIRROR:-mirror-radius=30 mirror-distance=150 focal-length=2400}
# the window: the rays seen between image radii 120 and 465 pixels
WINDOW="inner-radius=120 outer-radius=465"
unwrap () {
  local name=$1; shift
  gst-launch-1.0 -q filesrc location="$in" ! decodebin ! videoconvert ! \
    imagefreeze num-buffers=1 ! cudaomniunwrap "$@" ! videoconvert ! \
    pngenc ! filesink location="$out/omni-$name.png"
  [ -n "$width" ] || return 0
  # scaled from the file: a scaler downstream would fix the panorama's size
  local w=$width
  case $name in ground|four) w=$((width / 2)) ;; esac
  gst-launch-1.0 -q filesrc location="$out/omni-$name.png" ! pngdec ! \
    videoconvert ! videoscale ! video/x-raw,width=$w,pixel-aspect-ratio=1/1 ! \
    jpegenc quality=88 ! filesink location="$out/omni-$name.jpg"
  rm "$out/omni-$name.png"
}
mkdir -p "$out"
# the donut unrolled as it is: no mirror model, rows linear in image radius
unwrap polar $WINDOW
# a cylinder 229 units round the axis: rows equal heights, columns equal angles
unwrap cylinder projection=cylinder $MIRROR plane-distance=229 $WINDOW
# the paper's four planes 229 units from the axis: straight lines stay straight
unwrap cuboid projection=cuboid $MIRROR plane-distance=229 $WINDOW
# the floor 485.4 units from the mirror's centre, seen from above
unwrap ground projection=ground $MIRROR plane-distance=485.4 \
  inner-radius=12 outer-radius=118
# four quarter-turn views of the cylinder in a 2x2 grid
unwrap four projection=cylinder $MIRROR plane-distance=229 $WINDOW layout=four
