#!/usr/bin/env bash
# cudafoveate following the mouse: move the pointer over the window and the
# sharp region follows it (GstNavigation mouse moves from the video sink).
# Every frame carries the fixation it was rendered for (GstCoFoveaGaze,
# include/cudaoptics/co-results.h); GST_DEBUG=cudafoveate:5 logs the table
# rebuilt for each new fixation.
# Usage: bash pipelines/foveate-follow.sh [PICTURE|camera]   (default: the
#        bundled building photograph)
set -eu
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="$PWD/${BUILD_DIR:-build}/gst"
src=${1:-pipelines/samples/building.jpg}
if [ "$src" = camera ]; then
  exec gst-launch-1.0 v4l2src ! videoconvert ! cudafoveate follow-pointer=true \
    strength=2 ! videoconvert ! autovideosink
fi
exec gst-launch-1.0 filesrc location="$src" ! decodebin ! videoconvert ! \
  imagefreeze ! cudafoveate follow-pointer=true strength=3 show-map=false ! \
  videoconvert ! autovideosink
