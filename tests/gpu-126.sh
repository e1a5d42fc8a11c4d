#!/usr/bin/env bash
# Prepares the GPU suite and the benchmarks under GStreamer 1.26 (Debian 13)
# for the GPU machine.  On the build machine, as root:
#
#   bash tests/gpu-126.sh     (15 s from nothing, 2 s when nothing changed; the first
#                              time 3.5 minutes more for the Debian 13 root)
#
# builds the working tree (others' uncommitted edits included) in the cached
# Debian 13 root of .ci/debian13.sh (GStreamer 1.26.2, CUDA 12.4, sm_90,
# tests and benchmarks on; the meson build folder stays in the root, so a
# second run is incremental) and leaves two folders in the repository:
#   build-126/          the plugin, test programs, benchmarks and example-app
#                       (binaries only, the layout of a build folder: 24 MB)
#   .gpu-runtime-126/   the root's GStreamer with its own loader and libc
#                       (../shared/gpu/stage-root-runtime, about 27 MB)
# Carry those two and nothing else (with build-126/tests/bench, test-remap,
# test-remapfilter, soak and fuzz moved aside for the suite: 53 MB of the
# 64 MiB with the tracked files; the 1.22
# build and .gpu-runtime do not fit beside them).  On the GPU machine (run tool, from the
# repository root):
#   GPU suite:  carry ["build-126", ".gpu-runtime-126"], command
#     source .gpu-runtime-126/env.sh && OUT=$OUT bash tests/run-built-tests-126.sh build-126
#   pipeline benchmark:
#     source .gpu-runtime-126/env.sh && GST_PLUGIN_PATH=$PWD/build-126/gst "$CO_RUN" build-126/tests/bench/bench-pipeline 1920 1080 RGBA cuda
#   kernel benchmark:  ... && "$CO_RUN" build-126/tests/bench/bench-lensdistort
#   gst-launch-1.0 / gst-inspect-1.0 there are the staged 1.26 ones after the source.
#
# Why a variant of tests/run-built-tests.sh: these binaries need glibc 2.41
# and the GPU machine has 2.39 (and no GStreamer), so run directly by its
# loader a test fails at once; run as "$CO_RUN" PROGRAM (the staged loader)
# every test works except check-cudalensdistort-gpu's no-device case, which
# re-executes /proc/self/exe, and under "$CO_RUN" that is the loader itself
# ("unrecognized option '--no-device-child'").  So the test programs here
# are patched (patchelf, in the root) to name the staged loader as their
# interpreter, at the fixed path /tmp/cudaoptics-126-ld.so.2, and the staged
# libraries as their rpath ($ORIGIN-relative, then the host's CUDA and system
# folders as "$CO_RUN" has them): then they run as plain programs, re-exec
# included.  tests/run-built-tests-126.sh makes that /tmp link and the
# registry (staged, GStreamer scans in-process: see there), then runs
# tests/run-built-tests.sh unchanged.  "$CO_RUN" PROGRAM still works on every
# binary here (the explicit loader ignores the interpreter field).
#
# Env: CO_CI_CACHE (/var/cache/cudaoptics-ci) as CI; CO_CUDA_ARCHS (90);
# CO_126_CLEAN=1 builds from nothing (else ninja goes by the files' times).
# It and .ci/debian13.sh take turns on the root (a lock).
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1
CO_STEP=gpu-126
source .ci/lib-chroot.sh
co_require_root_user
repo=$PWD
b=build-126
rt=.gpu-runtime-126
interp=/tmp/cudaoptics-126-ld.so.2
ARCHS=${CO_CUDA_ARCHS:-90}

# one user of the root at a time (.ci/debian13.sh takes the same lock)
mkdir -p "$CO_CI_CACHE/roots" || co_die "cannot create $CO_CI_CACHE"
exec {use_fd}>"$CO_CI_CACHE/roots/.trixie-gst126.use"
flock -w 3600 "$use_fd" || co_die "timed out waiting for the trixie-gst126 root"
co_root trixie-gst126 trixie "$CO_TRIXIE_PKGS"
ROOT=$CO_ROOT

# source in /co-gpu126/cudaoptics, meson build folder in /co-gpu126-build/build-126
co_copy_tree "$ROOT" co-gpu126
bdir=/co-gpu126-build/$b
logs=$ROOT/co-gpu126-build
log=$logs/build.log
mkdir -p "$logs"
setup_args="-Dcuda=enabled -Dgst-cuda=enabled -Dcuda-archs=$ARCHS -Dtests=enabled -Dbench=enabled"
# a folder configured with other options (or broken) is made again
if [ -z "${CO_126_CLEAN:-}" ] && [ -f "$ROOT$bdir/build.ninja" ] && [ "$(cat "$ROOT$bdir/.co-setup-args" 2>/dev/null)" = "$setup_args" ]; then
  co_log "meson build folder kept ($ROOT$bdir)"
  : >"$log"
else
  co_safe_rm "$ROOT$bdir"
  co_log "meson setup $setup_args"
  co_chroot "$ROOT" "cd /co-gpu126/cudaoptics && meson setup $bdir $setup_args" >"$log" 2>&1 ||
    { tail -40 "$log"; co_die "meson setup (log: $log)"; }
  echo "$setup_args" >"$ROOT$bdir/.co-setup-args"
fi
co_log "ninja (log: $log)"
co_chroot "$ROOT" "ninja -C $bdir" >>"$log" 2>&1 || { tail -60 "$log"; co_die "ninja (log: $log)"; }
nw=$(grep -c 'warning:' "$log")
co_log "compiler warnings in this build: $nw$( [ "$nw" = 0 ] || echo ', the first ones:')"
grep 'warning:' "$log" | awk '!seen[$0]++' | head -8 | sed 's/^/    /'
grep -q 'HAVE_GST_CUDA' "$ROOT$bdir/config.h" ||
  co_die "the build has no GStreamer CUDA interop (gstreamer-cuda-1.0 not found?)"

# the binaries, at their places in a build folder
elfs=$(co_elf_files "$ROOT$bdir")
[ -n "$elfs" ] && echo "$elfs" | grep -q '/gst/libgstcudaoptics\.so$' || co_die "no plugin in $ROOT$bdir"
stage=/co-gpu126-out/$b
co_safe_rm "$ROOT/co-gpu126-out"
for f in $elfs; do
  rel=${f#"$ROOT$bdir/"}
  mkdir -p "$ROOT$stage/$(dirname "$rel")" && cp -p "$f" "$ROOT$stage/$rel" || co_die "copying $rel"
done

# the runtime: the root's GStreamer and every library these binaries link
co_log "staging $rt (../shared/gpu/stage-root-runtime)"
co_mount_proc "$ROOT"
bash "$repo/../shared/gpu/stage-root-runtime" "$ROOT" "$repo/$rt" $elfs >"$logs/stage.log" 2>&1 ||
  { co_umount_all; tail -20 "$logs/stage.log"; co_die "stage-root-runtime (log: $logs/stage.log)"; }
co_umount_all
[ -x "$repo/$rt/run" ] && [ -f "$repo/$rt/lib/libgstcuda-1.0.so.0" ] || co_die "$rt is incomplete"

# executables: the staged loader as interpreter, the staged libraries as
# rpath (DT_RPATH: it applies to the libraries and plugins they load too)
n=0
for f in $elfs; do
  rel=${f#"$ROOT$bdir/"}
  case $rel in *.so | *.so.*) continue ;; esac
  up=$(dirname "$rel" | sed 's|[^/][^/]*|..|g')
  rpath="\$ORIGIN/$up/../$rt/lib:/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu"
  co_chroot "$ROOT" "patchelf --set-interpreter $interp --force-rpath --set-rpath '$rpath' $stage/$rel" ||
    co_die "patchelf $rel"
  n=$((n + 1))
done
co_log "patched $n programs (interpreter $interp)"

cat >"$ROOT$stage/BUILD-INFO.txt" <<EOF
Built by tests/gpu-126.sh on $(date -u '+%Y-%m-%d %H:%M UTC') in $(basename "$ROOT"):
GStreamer $(chroot "$ROOT" pkg-config --modversion gstreamer-1.0) (gstreamer-cuda-1.0 $(chroot "$ROOT" pkg-config --modversion gstreamer-cuda-1.0)), $(co_chroot "$ROOT" 'nvcc --version | tail -2 | head -1'), $(chroot "$ROOT" gcc --version | head -1)
meson $setup_args
Binaries only (the meson build folder is $bdir in that root). Programs run
directly once tests/run-built-tests-126.sh made $interp, or as "\$CO_RUN" PROGRAM
after: source $rt/env.sh
EOF
co_safe_rm "$repo/$b"
cp "$log" "$logs/stage.log" "$ROOT$stage/" && cp -a "$ROOT$stage" "$repo/$b" || co_die "copying $b into the repository"
co_safe_rm "$ROOT/co-gpu126-out"
# the source copy is not needed between runs (tar keeps times: the next copy stays incremental)
co_log "$b: $(du -sh "$repo/$b" | cut -f1), $rt: $(du -sh "$repo/$rt" | cut -f1), together $(du -sch "$repo/$b" "$repo/$rt" | tail -1 | cut -f1) (carry limit 64 MiB)"
co_log "on the GPU machine: source $rt/env.sh && OUT=\$OUT bash tests/run-built-tests-126.sh $b"
