#!/usr/bin/env bash
# CI guard: the C side cross-compiled for aarch64 (Jetson's CPU) in a cached
# Debian 12 chroot with the arm64 GStreamer -dev packages (multiarch), using
# .ci/aarch64-linux-gnu.ini, and the CPU suite run under qemu-user.  This is
# where the C reference is checked bit-exact under gcc's aarch64 default of
# FP contraction (the project passes -ffp-contract=off): unit-lut and
# check-cudalensdistort compare it with independent double-precision models.
# Env: CO_CI_CACHE (/var/cache/cudaoptics-ci), CO_CI_OUT (build-ci-steps).
set -u -o pipefail
CO_STEP=arm64
source "$(dirname "$0")/lib-chroot.sh"
co_require_root_user

PKGS="crossbuild-essential-arm64 ninja-build pkg-config meson python3 qemu-user
 libc6-dev:arm64 libgomp1:arm64 libyaml-dev:arm64 libxml2-dev:arm64
 libgstreamer1.0-dev:arm64 libgstreamer-plugins-base1.0-dev:arm64
 gstreamer1.0-plugins-base:arm64 gstreamer1.0-plugins-good:arm64"
co_root bookworm-arm64 bookworm "$PKGS" arm64
ROOT=$CO_ROOT
co_copy_tree "$ROOT"
# bookworm's pkg-config has no triplet wrapper without dpkg-cross' help: make one
if ! chroot "$ROOT" sh -c 'command -v aarch64-linux-gnu-pkg-config' >/dev/null; then
  cat >"$ROOT/usr/local/bin/aarch64-linux-gnu-pkg-config" <<'W'
#!/bin/sh
PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig exec pkg-config "$@"
W
  chmod +x "$ROOT/usr/local/bin/aarch64-linux-gnu-pkg-config"
fi
co_log "in the root: GStreamer $(co_chroot "$ROOT" aarch64-linux-gnu-pkg-config --modversion gstreamer-1.0) arm64, $(chroot "$ROOT" aarch64-linux-gnu-gcc --version | head -1), $(chroot "$ROOT" qemu-aarch64 --version | head -1)"

# qemu-user runs the CPU code 3-5x slower than native: scale meson's timeouts
# (they stay a hang guard; example-c's 30 s is too short for 60 frames there).
# CO_TEST_QUICK: cudafoveate's quality bar on two photographs, not twelve
# (the bar is the native suite's; here the bytes are what is checked).
# GST_REGISTRY_FORK=no: the aarch64 gst-plugin-scanner cannot run without
# binfmt, and GStreamer fell back to scanning in-process after it failed,
# but writing to the dead scanner's pipe first could kill a test with
# SIGPIPE (check-nvmm-v3, once): scan in-process from the start.
CO_TEST_ARGS="--timeout-multiplier 8" co_meson_build "$ROOT" "$CO_STEP" \
  "--cross-file /src/cudaoptics/.ci/aarch64-linux-gnu.ini -Dcuda=disabled -Dbench=disabled" \
  CO_TEST_QUICK=1 GST_REGISTRY_FORK=no
rc=$?
out=$CO_CI_OUT/$CO_STEP
readelf -h "$CO_BUILD/gst/libgstcudaoptics.so" | grep -q 'Machine:.*AArch64' ||
  co_die "the plugin is not an aarch64 binary"
grep -q -- '-ffp-contract=off' "$CO_BUILD/compile_commands.json" ||
  co_die "-ffp-contract=off missing from the cross build's compile commands"
# gcc contracts a*b+c into fmadd on aarch64 unless told not to: the CPU
# reference and the plugin must hold no fused multiply-add but the ones
# written on purpose (co_fovea_mac: cudafoveate's blur, fused on both
# backends), which live in fovea_fragment or where OpenMP inlined it
nfma=$(chroot "$ROOT" sh -c 'aarch64-linux-gnu-objdump -d /src/_build/kernels/libcokernels-cpu.a /src/_build/gst/libgstcudaoptics.so' |
       awk '/^[0-9a-f]+ <.*>:$/ { fn = $2 }
            /[[:space:]](fmadd|fmsub|fnmadd|fnmsub|fmla|fmls)[[:space:]]/ {
              if (fn ~ /^<(fovea_fragment|co_fovea_cpu)/) kept++; else n++ }
            END { print n + 0, kept + 0 }')
co_log "fused multiply-adds in the aarch64 CPU reference and plugin: ${nfma% *} unintended, ${nfma#* } in cudafoveate's blur (co_fovea_mac)"
[ "${nfma% *}" = 0 ] || co_die "${nfma% *} fused multiply-adds in the aarch64 build outside co_fovea_mac (FP contraction not off)"
[ "${nfma#* }" != 0 ] || co_die "no fused multiply-add in cudafoveate's blur: co_fovea_mac no longer fuses on aarch64, the CPU and CUDA bytes would part"
[ $rc = 0 ] || co_die "CPU suite failed under qemu-aarch64"
# the bit-exactness checks must have run, not been skipped
python3 - "$out/testlog.json" <<'PY' || co_die "a reference-comparing test did not pass"
import json, sys
# meson names a test "project / name" once some test has a suite
res = {json.loads(l)["name"].split(" / ")[-1]: json.loads(l)["result"]
       for l in open(sys.argv[1])}
need = ["unit-lut", "check-cudalensdistort"]
bad = [f"{n}: {res.get(n, 'not run')}" for n in need if res.get(n) != "OK"]
print("reference comparisons under qemu-aarch64:", ", ".join(f"{n} {res.get(n)}" for n in need))
sys.exit(1 if bad else 0)
PY
co_log "CPU suite on aarch64 (qemu): $(co_test_totals "$out/testlog.json")"
