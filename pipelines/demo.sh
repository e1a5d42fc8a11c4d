#!/usr/bin/env bash
# The main job, on the bundled samples: installs what is missing, builds, and
# writes before|after pictures made by the elements (CUDA where a GPU
# is usable, else the CPU backend, which gives the same pixels):
#   camera-undistort.png  a real wide-angle camera frame (OpenCV's left01.jpg)
#                         corrected with its own OpenCV calibration file
#   fisheye-undistort.jpg a fisheye frame (made by the element from
#                         building.jpg with a map file that pipelines/
#                         fisheye-map.py writes: what OpenCV's fisheye camera
#                         would see) and the same frame corrected with
#                         model=fisheye and that camera's numbers
#   stereo-rectify.jpg    a photographed stereo pair (OpenCV's left01/
#                         right01.jpg) before and after rectification through
#                         stereo_calib's two files (tests/stereo-rectify.py),
#                         with guide lines
#   hmd-chroma.jpg        a frame pre-distorted for a headset with red and
#                         blue pre-scaled, and its edge through a lens with
#                         lateral colour, without and with that
#                         (pipelines/hmd-chroma.py)
#   hmd-stereo.png        a side-by-side stereo frame pre-distorted for a
#                         headset lens, each eye about its own centre
#   omni-donut.png        a 360-degree donut (made from building.jpg by
#                         GStreamer's own `circle` element) and the strip
#                         cudaomniunwrap unrolls from it
#   omni-geometry.svg     cudaomniunwrap's mirror geometry, drawn from its
#                         model: which property is which length
#   omni-mirror.jpg       a synthetic spherical-mirror picture (drawn by
#                         pipelines/omni-render from building.jpg round the
#                         mirror and fruits.jpg on the floor) and what
#   omni-{polar,cylinder,cuboid,ground,four}.jpg
#                         cudaomniunwrap makes of it, one launch line each
#                         (pipelines/omni-examples.sh)
#   foveate.jpg           a photograph (top) and cudafoveate's foveation of
#                         it, fixated on the building's entrance, with the
#                         fragments drawn in the colour of their blur
#                         (show-map; bottom)
#   shcentroid.png        a synthetic Shack-Hartmann frame (samples/
#                         sh-spots.png, written by pipelines/sh-sample.py)
#                         and cudashcentroid's overlay of it: the lenslet
#                         grid, the centroids and the slopes (6x)
#   aberration.jpg        building.jpg through a simulated cheap lens
#                         (blur growing to the corners, lateral colour) as
#                         an RGGB raw frame, and cudaaberration's output:
#                         demosaiced only, and with the kernels
#                         co-clt-kernels writes for that lens
#                         (pipelines/aberration-demo.py)
#   correlate.jpg         building.jpg and a right camera that sees it
#                         through a known disparity field, and the
#                         disparity per tile cudacltcorrelate measures,
#                         with its error (pipelines/correlate-demo.py)
#   correlate-quad.jpg    a synthetic quad rig from its calibration files:
#                         the rig's disparity map and its error;
#   correlate-flow.jpg    a pan with a zoom and its flow map
#                         (pipelines/correlate-rig-demo.py)
# Usage: bash pipelines/demo.sh [OUTPUT_DIR]      (default pipelines/out)
set -eu
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
# CO_SKIP_SETUP=1: use an existing build (the GPU machine has no apt or meson)
if [ -z "${CO_SKIP_SETUP:-}" ]; then
  source tests/deps.sh
  source tests/build-setup.sh
fi
case $build in /*) ;; *) build=$PWD/$build ;; esac
export GST_PLUGIN_PATH="$build/gst"
out=${1:-pipelines/out}
s=pipelines/samples
mkdir -p "$out"
# which libraries encoded the pictures (tests/demo-pictures.sh compares
# bytes only where they are the same)
{
  gst-launch-1.0 --version | sed -n 1p
  for py in python3 /usr/bin/python3; do
    $py -c 'import cv2, numpy; print("opencv", cv2.__version__, "numpy", numpy.__version__)' \
      2>/dev/null && break
  done
  if command -v dpkg-query >/dev/null; then
    dpkg-query -W -f '${Package} ${Version}\n' libjpeg62-turbo libpng16-16 zlib1g 2>/dev/null
  fi
} >"$out/MADE-WITH"

gst-launch-1.0 -q \
  compositor name=mix background=black sink_1::xpos=648 ! videoconvert ! pngenc ! \
    filesink location="$out/camera-undistort.png" \
  filesrc location="$s/left01.jpg" ! jpegdec ! videoconvert ! video/x-raw,format=GRAY8 ! tee name=t \
  t. ! queue ! videoconvert ! mix.sink_0 \
  t. ! queue ! cudalensdistort calibration-file="$s/left_intrinsics.yml" alpha=0 ! \
    videoconvert ! mix.sink_1

fisheye=$(python3 pipelines/fisheye-map.py "$out/fisheye.comap" 868 600)
# shellcheck disable=SC2086
gst-launch-1.0 -q \
  compositor name=mix background=black sink_1::xpos=876 ! videoconvert ! jpegenc quality=88 ! \
    filesink location="$out/fisheye-undistort.jpg" \
  filesrc location="$s/building.jpg" ! jpegdec ! videoconvert ! \
    cudalensdistort map-file="$out/fisheye.comap" ! tee name=t \
  t. ! queue ! videoconvert ! mix.sink_0 \
  t. ! queue ! cudalensdistort model=fisheye $fisheye balance=0.1 ! videoconvert ! mix.sink_1
rm "$out/fisheye.comap"
python3 tests/stereo-rectify.py auto "$out/stereo-rectify.jpg" >/dev/null
python3 pipelines/hmd-chroma.py "$s/building.jpg" "$out/hmd-chroma.jpg" >/dev/null

gst-launch-1.0 -q \
  compositor name=sbs sink_1::xpos=868 ! video/x-raw,format=RGBA,width=1736,height=600 ! tee name=o \
  o. ! queue ! videoconvert ! mix.sink_0 \
  o. ! queue ! cudalensdistort stereo=true k1=-0.35 k2=0.08 center-x=0.55 ! videoconvert ! mix.sink_1 \
  compositor name=mix background=black sink_1::ypos=608 ! videoconvert ! pngenc ! \
    filesink location="$out/hmd-stereo.png" \
  filesrc location="$s/building.jpg" ! jpegdec ! videoconvert ! tee name=t \
  t. ! queue ! sbs.sink_0 \
  t. ! queue ! sbs.sink_1

gst-launch-1.0 -q \
  compositor name=mix background=black sink_0::xpos=300 sink_1::ypos=608 ! \
    video/x-raw,width=1200,height=735 ! videoconvert ! pngenc ! \
    filesink location="$out/omni-donut.png" \
  filesrc location="$s/building.jpg" ! jpegdec ! videoconvert ! videoscale ! \
    video/x-raw,width=800,height=800,pixel-aspect-ratio=1/1 ! \
    circle height=250 spread-angle=6.2832 ! tee name=d \
  d. ! queue ! videoscale ! video/x-raw,width=600,height=600,pixel-aspect-ratio=1/1 ! mix.sink_0 \
  d. ! queue ! cudaomniunwrap inner-radius=200 outer-radius=399 direction=clockwise \
    start-angle=180 ! videoscale ! \
    video/x-raw,width=1200,height=127,pixel-aspect-ratio=1/1 ! mix.sink_1

python3 pipelines/omni-diagram.py "$out/omni-geometry.svg"

"$build/pipelines/omni-render" --scene "$s/building.jpg" --ground "$s/fruits.jpg" \
  --focal-length 2400 --size 1000 -o "$out/omni-mirror.png" >/dev/null
gst-launch-1.0 -q filesrc location="$out/omni-mirror.png" ! pngdec ! videoconvert ! \
  videoscale ! video/x-raw,width=360,height=360 ! jpegenc quality=88 ! \
  filesink location="$out/omni-mirror.jpg"
bash pipelines/omni-examples.sh "$out/omni-mirror.png" "$out" 720
rm "$out/omni-mirror.png"

gst-launch-1.0 -q \
  compositor name=mix background=black sink_1::ypos=608 ! \
    video/x-raw,width=868,height=1208 ! videoconvert ! jpegenc quality=88 ! \
    filesink location="$out/foveate.jpg" \
  filesrc location="$s/building.jpg" ! jpegdec ! videoconvert ! tee name=t \
  t. ! queue ! mix.sink_0 \
  t. ! queue ! cudafoveate fixation-x=0.62 fixation-y=0.7 strength=3 show-map=true ! mix.sink_1

gst-launch-1.0 -q \
  compositor name=mix background=black sink_1::xpos=648 ! videoconvert ! pngenc ! \
    filesink location="$out/shcentroid.png" \
  filesrc location="$s/sh-spots.png" ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 ! tee name=t \
  t. ! queue ! videoconvert ! mix.sink_0 \
  t. ! queue ! cudashcentroid pitch=24 origin-x=8.5 origin-y=6.25 pupil-diameter=18 \
    method=tcog overlay=true overlay-scale=6 ! videoconvert ! mix.sink_1

python3 pipelines/aberration-demo.py "$s/building.jpg" "$out/aberration.jpg" "$build"

# cudacltcorrelate: a stereo pair with a known disparity per pixel
#                   (pipelines/correlate-demo.py)
python3 pipelines/correlate-demo.py "$s/building.jpg" "$out/correlate.jpg"
#                   a quad rig from its calibrations, and the flow of a pan
python3 pipelines/correlate-rig-demo.py "$s/building.jpg" "$out/correlate-quad.jpg" \
  "$out/correlate-flow.jpg"

echo "wrote $out/camera-undistort.png, $out/fisheye-undistort.jpg, $out/stereo-rectify.jpg, $out/hmd-chroma.jpg, $out/hmd-stereo.png, $out/omni-donut.png," \
  "$out/omni-geometry.svg, $out/omni-mirror.jpg and its unwraps $out/omni-*.jpg," \
  "$out/foveate.jpg, $out/shcentroid.png, $out/aberration.jpg, $out/correlate.jpg," \
  "$out/correlate-quad.jpg, $out/correlate-flow.jpg"
