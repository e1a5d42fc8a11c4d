#!/usr/bin/env bash
# CI guard: the newest GStreamer we ship for.  Debian 13 (trixie, GStreamer
# 1.26, gcc 14, meson from trixie) with Debian's CUDA 12.4 (non-free
# nvidia-cuda-toolkit) in a cached debootstrap chroot (.ci/lib-chroot.sh,
# package list CO_TRIXIE_PKGS).  The CUDA backend and the interop with
# GStreamer's CUDA library must both build there (-Dcuda=enabled
# -Dgst-cuda=enabled, sm_90), against 1.26's gstreamer-cuda-1.0 (CUDA memory
# with streams since 1.24), the plugin must hold an sm_90 cubin, and the CPU
# suite runs (the GPU tests skip, exit 77).  Every 'warning:' of the build
# is counted and the first ones printed (what 1.26 deprecates shows here
# first); meson's own WARNINGs too.  Warnings are listed, not fatal.
# tests/gpu-126.sh builds in the same root for the GPU machine.
# Env: CO_CI_CACHE (/var/cache/cudaoptics-ci), CO_CI_OUT (build-ci-steps).
set -u -o pipefail
CO_STEP=debian13
source "$(dirname "$0")/lib-chroot.sh"
co_require_root_user
out=$CO_CI_OUT/$CO_STEP
ARCHS=90

# one user of the root at a time (tests/gpu-126.sh builds in it too)
mkdir -p "$CO_CI_CACHE/roots" || co_die "cannot create $CO_CI_CACHE"
exec {use_fd}>"$CO_CI_CACHE/roots/.trixie-gst126.use"
flock -w 3600 "$use_fd" || co_die "timed out waiting for the trixie-gst126 root"
co_root trixie-gst126 trixie "$CO_TRIXIE_PKGS"
ROOT=$CO_ROOT
co_copy_tree "$ROOT"
gstv=$(chroot "$ROOT" pkg-config --modversion gstreamer-1.0)
cudav=$(chroot "$ROOT" pkg-config --modversion gstreamer-cuda-1.0 2>/dev/null) ||
  co_die "no gstreamer-cuda-1.0 in the root (libgstreamer-plugins-bad1.0-dev)"
co_log "in the root: GStreamer $gstv (gstreamer-cuda-1.0 $cudav), $(co_chroot "$ROOT" 'nvcc --version | tail -2 | head -1'), $(chroot "$ROOT" gcc --version | head -1), meson $(chroot "$ROOT" meson --version)"
case $gstv in 1.2[6-9].*|1.[3-9]*) ;; *) co_die "expected GStreamer 1.26+ in trixie, found $gstv" ;; esac

failed=()
co_meson_build "$ROOT" "$CO_STEP" "-Dcuda=enabled -Dgst-cuda=enabled -Dcuda-archs=$ARCHS" ||
  failed+=("build or CPU suite")
log=$out/build.log

# warnings: a count and the first few (the whole list is in build.log); gcc's
# "warning:" and nvcc's "warning #NNN-D:" / "nvcc warning :"
wre='warning( #[0-9]+-D)?:|nvcc warning'
nw=$(grep -cE "$wre" "$log")
nu=$(grep -E "$wre" "$log" | sort -u | wc -l)
co_log "compiler warnings on GStreamer $gstv: $nw ($nu distinct)$( [ "$nw" = 0 ] || echo ', the first ones:')"
grep -E "$wre" "$log" | awk '!seen[$0]++' | head -8 | sed 's/^/    /'
ndep=$(grep -E "$wre" "$log" | grep -c 'deprecated')
[ "$ndep" = 0 ] || co_log "of which deprecation warnings: $ndep (API 1.26 deprecates)"
nm=$(grep -c '^WARNING:' "$log")
[ "$nm" = 0 ] || { co_log "meson $(chroot "$ROOT" meson --version) WARNINGs: $nm"; grep '^WARNING:' "$log" | awk '!seen[$0]++' | head -5 | sed 's/^/    /'; }

# the CUDA backend and the interop must both be in this build
grep -Eiq 'CUDA backend +: (true|yes)' "$log" || failed+=("CUDA backend not built")
grep -Eiq 'GStreamer CUDA interop.*: (true|yes)' "$log" || failed+=("GStreamer CUDA interop not built")
so=$CO_BUILD/gst/libgstcudaoptics.so
if [ -f "$so" ]; then
  list=$(co_chroot "$ROOT" "cuobjdump --list-elf /src/_build/gst/libgstcudaoptics.so; cuobjdump --list-ptx /src/_build/gst/libgstcudaoptics.so" 2>&1)
  echo "$list" >"$out/cuobjdump.txt"
  co_log "cuobjdump: $(echo "$list" | grep -oE 'sm_[0-9]+\.(cubin|ptx)' | sort | uniq -c | tr -s ' \n' ' ')"
  echo "$list" | grep -q "sm_$ARCHS\.cubin" || failed+=("no sm_$ARCHS cubin in the plugin")
  # the plugin loads in 1.26 and registers (no GPU here: the CPU backend)
  co_chroot "$ROOT" "GST_PLUGIN_PATH=/src/_build/gst gst-inspect-1.0 cudalensdistort" >"$out/inspect.txt" 2>&1 ||
    failed+=("gst-inspect-1.0 cudalensdistort failed on $gstv")
else
  failed+=("no plugin built")
fi

# the GPU tests skip here (no device), every other test must have passed
if [ -f "$out/testlog.json" ]; then
  python3 - "$out/testlog.json" <<'PY' || failed+=("unexpected test results")
import json, sys
# newer meson names a test "project / name" (once a test has a suite)
res = {json.loads(l)["name"].split(" / ")[-1]: json.loads(l)["result"]
       for l in open(sys.argv[1])}
skip = sorted(n for n, r in res.items() if r == "SKIP")
bad = sorted(f"{n}: {r}" for n, r in res.items() if r not in ("OK", "SKIP", "EXPECTEDFAIL"))
print(f"[debian13] {len(res)} tests; skipped (no GPU or no cv2): {', '.join(skip) or 'none'}")
if "check-cudalensdistort-gpu" not in res:
    bad.append("check-cudalensdistort-gpu: not built")
print("\n".join(bad)) if bad else None
sys.exit(1 if bad else 0)
PY
fi
[ ${#failed[@]} = 0 ] || co_die "GStreamer $gstv: ${failed[*]}"
co_log "GStreamer $gstv, CUDA 12.4 (sm_$ARCHS): built with the CUDA interop, cubin present, $nw warnings; CPU suite: $(co_test_totals "$out/testlog.json")"
