#!/usr/bin/env bash
# One producer, several consumers over CUDA IPC (GStreamer 1.24+'s
# cudaipcsink / cudaipcsrc), each consumer a process of its own with a
# cudaoptics element on the frames it imports.  On the GPU machine, with
# the 1.26 runtime and build (tests/gpu-126.sh):
#
#   source .gpu-runtime-126/env.sh
#   GST_PLUGIN_PATH=$PWD/build-126/gst bash tests/gpu-ipc.sh [CONSUMERS]
#
# The producer draws a moving ball (frame-numbered, so every frame differs),
# uploads it and exports it at 60 frames/s; each consumer takes FRAMES
# frames through cudalensdistort and writes them to a file.  Passes when
# every consumer got FRAMES frames, each equal byte for byte to a frame of
# the same chain run in one process (the reference), in increasing order.
# Exit 0 pass, 1 fail, 77 without cudaipcsink (GStreamer before 1.24) or a
# GPU.
set -u
consumers=${1:-2}
W=640 H=480 N=900 FRAMES=240
dir=$(mktemp -d)
addr=$dir/ipc
caps="video/x-raw,format=RGBA,width=$W,height=$H,framerate=60/1"
src="videotestsrc num-buffers=$N pattern=ball animation-mode=frames"
chain="cudalensdistort k1=-0.2 ! cudadownload ! video/x-raw,format=RGBA"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT

if ! gst-inspect-1.0 cudaipcsink >/dev/null 2>&1; then
  echo "SKIP: no cudaipcsink (GStreamer 1.24+ with a GPU)"
  exit 77
fi
gst-launch-1.0 -q $src ! $caps ! cudaupload ! $chain ! \
  filesink location="$dir/ref.raw" || { echo "FAIL: the reference chain"; exit 1; }

gst-launch-1.0 -q $src is-live=true ! $caps ! cudaupload ! \
  cudaipcsink address="$addr" >"$dir/producer.log" 2>&1 &
producer=$!
for i in $(seq 50); do [ -S "$addr" ] && break; sleep 0.1; done
t0=$(date +%s.%N)
pids=()
for c in $(seq "$consumers"); do
  timeout 60 gst-launch-1.0 -q cudaipcsrc address="$addr" num-buffers=$FRAMES ! \
    $chain ! filesink location="$dir/c$c.raw" >"$dir/c$c.log" 2>&1 &
  pids+=($!)
done
fail=0
for c in $(seq "$consumers"); do
  wait "${pids[$((c - 1))]}" || { echo "consumer $c failed:"; cat "$dir/c$c.log"; fail=1; }
done
t1=$(date +%s.%N)
kill "$producer" 2>/dev/null
wait "$producer" 2>/dev/null

python3 - "$dir" "$consumers" $((W * H * 4)) $FRAMES "$t0" "$t1" <<'EOF' || fail=1
import hashlib, os, sys
d, n, size, want, t0, t1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
def frames(p):
    b = open(p, 'rb').read()
    return [hashlib.sha1(b[i:i + size]).hexdigest() for i in range(0, len(b) - size + 1, size)]
ref = frames(os.path.join(d, 'ref.raw'))
index = {h: i for i, h in enumerate(ref)}
ok = len(set(ref)) == len(ref)
print(f"reference: {len(ref)} frames, {len(set(ref))} distinct")
for c in range(1, n + 1):
    got = frames(os.path.join(d, f'c{c}.raw'))
    pos = [index.get(h, -1) for h in got]
    good = len(got) == want and all(p >= 0 for p in pos) and all(a < b for a, b in zip(pos, pos[1:]))
    print(f"consumer {c}: {len(got)} frames, {sum(p >= 0 for p in pos)} equal to reference frames "
          f"{min(pos) if pos else '-'}..{max(pos) if pos else '-'}, in order: {good}")
    ok = ok and good
print(f"{n} consumers, {want} frames each at the producer's 60 frames/s, {t1 - t0:.1f} s")
sys.exit(0 if ok else 1)
EOF
[ $fail = 0 ] && echo "PASS: cudaipcsink to $consumers cudaipcsrc ! cudalensdistort processes" || echo FAIL
exit $fail
