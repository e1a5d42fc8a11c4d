#!/usr/bin/env bash
# cudaoptics — LGPL-2.1-or-later
# The demo (pipelines/demo.sh) writes every picture of pipelines/images/,
# byte for byte, and nothing else: a committed picture that the current code
# no longer makes fails here.  Encoders' bytes depend on their libraries, so
# the comparison is made where the libraries are those the pictures were
# made with (pipelines/images/MADE-WITH); elsewhere it is skipped (77).
# Usage: demo-pictures.sh SOURCE_ROOT BUILD_DIR
set -u
root=$1 build=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$root" || exit 1
# what the demo needs besides the plugin (an old GStreamer root lacks some)
for e in compositor circle rgb2bayer jpegenc pngenc imagefreeze videoscale; do
  gst-inspect-1.0 "$e" >/dev/null 2>&1 || { echo "no element $e here: skipped"; exit 77; }
done
ok=
for py in python3 /usr/bin/python3; do
  $py -c 'import cv2, numpy, gi' 2>/dev/null && ok=1 && break
done
[ -n "$ok" ] || { echo "no python3 with cv2, numpy and gi here: skipped"; exit 77; }
# meson test sets MALLOC_PERTURB_, and GStreamer's own compositor !
# videoconvert ! jpegenc then encodes uninitialised bytes into the last
# columns of a 868-pixel-wide picture (two values give two files with no
# cudaoptics element in the pipeline): the demo runs without it
if ! env -u MALLOC_PERTURB_ CO_SKIP_SETUP=1 BUILD_DIR=$build bash pipelines/demo.sh "$out" >"$out.log" 2>&1; then
  cat "$out.log"; rm -f "$out.log"; echo "the demo failed"; exit 1
fi
rm -f "$out.log"
if ! cmp -s "$out/MADE-WITH" pipelines/images/MADE-WITH; then
  echo "the pictures were made with other libraries than this machine's:"
  diff pipelines/images/MADE-WITH "$out/MADE-WITH"
  echo "skipped"
  exit 77
fi
rc=0 n=0
for f in pipelines/images/*; do
  b=${f##*/}
  n=$((n + 1))
  if [ ! -f "$out/$b" ]; then
    echo "FAIL: the demo no longer writes $b"; rc=1
  elif ! cmp -s "$f" "$out/$b"; then
    mkdir -p "$build/demo-pictures-failed"
    cp "$out/$b" "$build/demo-pictures-failed/"
    echo "FAIL: $b differs from what the demo makes (bash pipelines/demo.sh pipelines/images;"
    echo "      this run's is in $build/demo-pictures-failed/)"; rc=1
  fi
done
for f in "$out"/*; do
  [ -f "pipelines/images/${f##*/}" ] || { echo "FAIL: the demo writes ${f##*/}, not committed"; rc=1; }
done
[ $rc = 0 ] && echo "all $n pictures of pipelines/images are the demo's, byte for byte"
exit $rc
