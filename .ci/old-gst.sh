#!/usr/bin/env bash
# CI guard: the oldest GStreamer we can reach.  Debian 11 (bullseye,
# GStreamer 1.18.4, GLib 2.66, gcc 10) in a cached debootstrap chroot; its
# meson (0.56) is below the project's floor, so the host's meson 1.0.1 is
# copied in, as a user of an older system brings a newer meson (pip on a
# Jetson).  Builds the CPU backend and runs the CPU suite, then checks the
# GStreamer 1.16 API floor (.ci/api-floor.py) on that build and reports the
# newer API the host's 1.22 build uses.
# Env: CO_CI_CACHE (/var/cache/cudaoptics-ci), CO_CI_OUT (build-ci-steps).
set -u -o pipefail
CO_STEP=old-gst
source "$(dirname "$0")/lib-chroot.sh"
co_require_root_user

co_root bullseye-gst bullseye "$CO_BULLSEYE_PKGS"
ROOT=$CO_ROOT
co_copy_host_meson "$ROOT"
co_copy_tree "$ROOT"
co_log "in the root: $(chroot "$ROOT" pkg-config --modversion gstreamer-1.0 | sed 's/^/GStreamer /'), $(chroot "$ROOT" gcc --version | head -1), meson $(co_chroot "$ROOT" meson --version)"

co_meson_build "$ROOT" "$CO_STEP" "-Dcuda=disabled"
rc=$?
[ $rc = 0 ] || co_die "CPU suite failed on GStreamer 1.18"

# ---- GStreamer 1.16 floor ----
out=$CO_CI_OUT/$CO_STEP
co_log "API floor check (GStreamer 1.16) on the 1.18 build"
bins=$(co_elf_files "$CO_BUILD")
python3 "$CO_REPO/.ci/api-floor.py" --gir-dir "$ROOT/usr/share/gir-1.0" \
    --include-dir "$ROOT/usr/include" --compat "$ROOT/src/cudaoptics/common/gstcocompat.h" \
    --sources "$ROOT/src/cudaoptics" --floor 1.16 --glib-floor 2.64 \
    --json "$out/api-floor.json" $bins | tee "$out/api-floor.txt"
floor_rc=${PIPESTATUS[0]}

# The host's 1.22 build (CPU backend, own folder): which newer API it uses.
# Report only: those must be behind the guards of common/gstcocompat.h.
if pkg-config --exists 'gstreamer-1.0 >= 1.20' 2>/dev/null && [ -d /usr/share/gir-1.0 ]; then
  hb=$out/host-build
  co_log "host build ($(pkg-config --modversion gstreamer-1.0)) for the newer-API report"
  if { [ -f "$hb/build.ninja" ] || meson setup "$hb" "$CO_REPO" -Dcuda=disabled >"$out/host-build.log" 2>&1; } &&
     ninja -C "$hb" >>"$out/host-build.log" 2>&1; then
    hbins=$(co_elf_files "$hb")
    python3 "$CO_REPO/.ci/api-floor.py" --report-only --gir-dir /usr/share/gir-1.0 --gir-dir "$ROOT/usr/share/gir-1.0" \
        --include-dir /usr/include --compat "$CO_REPO/common/gstcocompat.h" --sources "$CO_REPO" \
        --floor 1.16 --glib-floor 2.64 $hbins | tee "$out/api-floor-host.txt"
  else
    tail -20 "$out/host-build.log"; co_log "host build failed: no newer-API report (not a failure of this step)"
  fi
fi
[ "$floor_rc" = 0 ] || co_die "GStreamer 1.16 API floor broken (see $out/api-floor.txt)"
co_log "CPU suite on GStreamer 1.18: $(co_test_totals "$out/testlog.json"); 1.16 floor holds"
