#!/usr/bin/env bash
# CI guard: the CUDA backend compiled by the older toolkits a Jetson has,
# both on every run, in cached chroots (Debian's non-free toolkits):
#  a) CUDA 11.8 (Debian 12 nvidia-cuda-toolkit) with GStreamer 1.22 and its
#     CUDA library, for sm_72 (Xavier) and sm_87 (Orin);
#  b) CUDA 11.2 (Debian 11) with GStreamer 1.18 (no CUDA library there), for
#     sm_72 (11.2 knows no sm_87): the root of old-gst.sh plus the toolkit.
# Each must build with -Dcuda=enabled, its plugin must hold a cubin for every
# requested SM (cuobjdump --list-elf of that toolkit), and the CPU suite runs
# (the GPU tests skip, exit 77).  Compiler warnings are listed, not fatal.
# The 11.2 / 1.18 build also goes through .ci/api-floor.py (1.16 floor).
# Test logs: $CO_CI_OUT/cuda11/{cuda11.8,cuda11.2}/testlog.json, and both in
# $CO_CI_OUT/cuda11/testlog.json (test names prefixed with the toolkit).
# Env: CO_CI_CACHE (/var/cache/cudaoptics-ci), CO_CI_OUT (build-ci-steps).
set -u -o pipefail
CO_STEP=cuda11
source "$(dirname "$0")/lib-chroot.sh"
co_require_root_user
out=$CO_CI_OUT/$CO_STEP
rm -rf "$out"; mkdir -p "$out"
failed=()

PKGS_118="gcc g++ libc6-dev binutils ninja-build pkg-config meson python3
 libyaml-dev libxml2-dev
 libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
 gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-tools
 python3-gi gir1.2-gst-plugins-base-1.0
 nvidia-cuda-toolkit"

# cubins of ROOT's build for every SM in ARCHS (comma list), and PTX of the last
check_cubins() {    # ROOT SUB ARCHS
  local root=$1 sub=$2 archs=$3 a list ok=0
  list=$(co_chroot "$root" "cuobjdump --list-elf /src/_build/gst/libgstcudaoptics.so; cuobjdump --list-ptx /src/_build/gst/libgstcudaoptics.so" 2>&1)
  echo "$list" >"$CO_CI_OUT/$sub/cuobjdump.txt"
  co_log "$sub: cuobjdump: $(echo "$list" | grep -oE 'sm_[0-9]+\.(cubin|ptx)' | sort | uniq -c | tr -s ' \n' ' ')"
  for a in ${archs//,/ }; do
    echo "$list" | grep -q "sm_$a\.cubin" || { co_log "$sub: NO sm_$a cubin in the plugin"; ok=1; }
  done
  echo "$list" | grep -q "sm_${archs##*,}\.ptx" || { co_log "$sub: no PTX for sm_${archs##*,}"; ok=1; }
  return $ok
}

one() {   # SUB ROOT ARCHS [VAR=VALUE...]
  local sub=$1 root=$2 archs=$3; shift 3
  co_copy_tree "$root"
  co_log "$sub: $(co_chroot "$root" 'nvcc --version | tail -2 | head -1'), GStreamer $(chroot "$root" pkg-config --modversion gstreamer-1.0), $(chroot "$root" gcc --version | head -1)"
  ( co_meson_build "$root" "$CO_STEP/$sub" "-Dcuda=enabled -Dcuda-archs=$archs" "$@" ) || failed+=("$sub: build or CPU suite")
  grep -Eq 'CUDA backend +: (True|YES)' "$CO_CI_OUT/$CO_STEP/$sub/build.log" ||
    failed+=("$sub: CUDA backend not built")
  [ -f "$root/src/_build/gst/libgstcudaoptics.so" ] && { check_cubins "$root" "$CO_STEP/$sub" "$archs" || failed+=("$sub: cubins"); }
  grep -h 'GST_CUDA\|GStreamer CUDA interop' "$CO_CI_OUT/$CO_STEP/$sub/build.log" | tail -1 | sed "s/^/[$CO_STEP] $sub: /"
}

# a) CUDA 11.8, bookworm, GStreamer 1.22
co_root bookworm-cuda118 bookworm "$PKGS_118"
# gcc 12 is bookworm's default, too new for 11.8: nvcc takes g++-11 (as a
# user of a plain 11.8 toolkit on a newer distribution does)
one cuda11.8 "$CO_ROOT" 72,87 "NVCC_PREPEND_FLAGS='-ccbin g++-11'"

# b) CUDA 11.2, bullseye, GStreamer 1.18: old-gst.sh's root plus the toolkit
co_root bullseye-gst bullseye "$CO_BULLSEYE_PKGS"
base=$CO_ROOT
co_root bullseye-cuda112 bullseye "$CO_BULLSEYE_PKGS g++ nvidia-cuda-toolkit" "" "$base"
co_copy_host_meson "$CO_ROOT"
one cuda11.2 "$CO_ROOT" 72
# the API floor again, on this build: it holds the CUDA paths old-gst.sh's
# CPU-only build leaves out (GPU test, device code paths)
if [ -f "$CO_ROOT/src/_build/gst/libgstcudaoptics.so" ]; then
  python3 "$CO_REPO/.ci/api-floor.py" --gir-dir "$CO_ROOT/usr/share/gir-1.0" \
      --include-dir "$CO_ROOT/usr/include" --compat "$CO_ROOT/src/cudaoptics/common/gstcocompat.h" \
      --sources "$CO_ROOT/src/cudaoptics" --floor 1.16 --glib-floor 2.64 \
      --json "$out/cuda11.2/api-floor.json" $(co_elf_files "$CO_ROOT/src/_build") \
      >"$out/cuda11.2/api-floor.txt" || failed+=("cuda11.2: GStreamer 1.16 / GLib 2.64 API floor")
  co_log "cuda11.2: $(tail -1 "$out/cuda11.2/api-floor.txt")"
fi

# one log for CI's totals, names prefixed with the toolkit
python3 - "$out" cuda11.8 cuda11.2 >"$out/testlog.json" <<'PY'
import json, os, sys
for sub in sys.argv[2:]:
    p = os.path.join(sys.argv[1], sub, "testlog.json")
    if os.path.exists(p):
        for line in open(p):
            r = json.loads(line); r["name"] = f"{sub}:{r['name']}"; print(json.dumps(r))
PY
for sub in cuda11.8 cuda11.2; do
  [ -f "$out/$sub/testlog.json" ] && co_log "$sub: $(co_test_totals "$out/$sub/testlog.json")"
done
[ ${#failed[@]} = 0 ] || co_die "${failed[*]}"
co_log "CUDA 11.8 (sm_72, sm_87) and CUDA 11.2 (sm_72): built, cubins present, CPU suites pass"
