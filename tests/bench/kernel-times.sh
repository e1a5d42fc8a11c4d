#!/usr/bin/env bash
# The device time of each element's kernels per frame, for bench-family.sh's
# set-ups, measured by Nsight Compute (ncu) on the elements themselves in a
# pipeline: every kernel launch of LAUNCHES after the first SKIP (the tables
# built at the start are left out) is timed alone (gpu__time_duration), and
# a frame's device time is the sum of its kernels' medians, the clocks and
# the caches left as they run (no locking, no flushing).  Copies are not
# kernels: a frame's upload and download are not in these figures.  On the
# GPU machine, after source .gpu-runtime/env.sh (the 1.22 runtime: ncu
# follows gst-launch-1.0 there; the kernels are the same on 1.26):
#   GST_PLUGIN_PATH=$PWD/build-gc/gst bash tests/bench/kernel-times.sh [ELEMENT...]
# Exit 77 without ncu.
set -u
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
[ -x "$ncu" ] || { echo "no ncu"; exit 77; }
els=${*:-cudalensdistort cudafoveate cudaomniunwrap cudashcentroid cudaaberration}
rgba="video/x-raw,format=RGBA,width=1920,height=1080 ! cudaupload ! video/x-raw(memory:CUDAMemory)"
echo "| element, set-up (as bench-family.sh) | kernels a frame | device time a frame, ms |"
echo "|---|---|---:|"
for e in $els; do
  skip=40 count=60
  case $e in
    cudalensdistort) line="videotestsrc num-buffers=200 pattern=ball ! $rgba ! cudalensdistort k1=-0.2 ! fakesink" ;;
    cudafoveate) line="videotestsrc num-buffers=200 pattern=ball ! $rgba ! cudafoveate fixation-x=0.5 ! fakesink" ;;
    cudaomniunwrap) line="videotestsrc num-buffers=200 pattern=ball ! $rgba ! cudaomniunwrap projection=polar inner-radius=100 outer-radius=500 ! fakesink" ;;
    cudashcentroid) line="videotestsrc num-buffers=200 pattern=snow ! video/x-raw,format=GRAY8,width=1000,height=1000 ! cudashcentroid pitch=11 message-interval=0 ! fakesink" ;;
    cudaaberration) line="videotestsrc num-buffers=200 pattern=ball ! video/x-raw,format=GRAY8,width=2592,height=1936 ! capssetter join=false replace=true caps=video/x-bayer,format=(string)rggb,width=(int)2592,height=(int)1936,framerate=(fraction)30/1 ! cudaaberration lpf-sigma=0.5 ! fakesink"
      skip=60 count=90 ;;
    *) echo "unknown element $e"; exit 2 ;;
  esac
  # shellcheck disable=SC2086
  "$ncu" --csv --metrics gpu__time_duration.sum --clock-control none \
    --cache-control none --launch-skip "$skip" \
    --launch-count "$count" gst-launch-1.0 -q $line 2>/dev/null | python3 -c '
import csv, re, statistics, sys
rows, head = [], None
for r in csv.reader(sys.stdin):
    if head is None:
        if "Metric Name" in r and "Kernel Name" in r:
            head = {k: i for i, k in enumerate(r)}
        continue
    if len(r) == len(head) and r[head["Metric Name"]] == "gpu__time_duration.sum":
        rows.append(r)
if not rows:
    print("| %s | no kernels profiled | |" % sys.argv[1]); sys.exit(0)
scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0}
by = {}
for r in rows:
    m = re.search(r"([A-Za-z_][\w:]*)\s*[(<]", r[head["Kernel Name"]].replace("(anonymous namespace)::", ""))
    name = m.group(1) if m else r[head["Kernel Name"]]
    v = float(r[head["Metric Value"]].replace(",", ""))
    by.setdefault(name, []).append(v * scale.get(r[head["Metric Unit"]], 1e-6))
# every kernel runs at least once a frame (the aberration chain four
# times, one pass per tile parity): the rarest one counts the frames
frames = min(len(v) for v in by.values())
total = sum(statistics.median(v) * len(v) for v in by.values()) / frames
names = ", ".join("%s %.4f" % (k, statistics.median(v)) for k, v in sorted(by.items()))
print("| %s | %s | %.4f |" % (sys.argv[1], names, total))
' "$e"
done
