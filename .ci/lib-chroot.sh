# cudaoptics CI — helpers for the chroot guard steps (.ci/old-gst.sh,
# .ci/arm64.sh, .ci/cuda11.sh, .ci/debian13.sh; tests/gpu-126.sh).  Sourced,
# not run.
#
# Roots are debootstrap chroots cached under $CO_CI_CACHE/roots/NAME-KEY, KEY
# a hash of everything that makes the root (suite, architectures, package
# list, this file's recipe version), so a changed package list makes a new
# root and the old one is removed.  A root is usable only when its marker
# file holds its key and dpkg agrees every package is installed; anything
# else (an interrupted debootstrap or apt-get, a half-copied root) is
# removed and rebuilt.  /proc is mounted only while a chroot command runs
# and always unmounted (EXIT trap); nothing is removed while a mount lies
# under it.

CO_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CO_CI_CACHE=${CO_CI_CACHE:-/var/cache/cudaoptics-ci}
CO_CI_OUT=${CO_CI_OUT:-build-ci-steps}
case $CO_CI_OUT in /*) ;; *) CO_CI_OUT=$CO_REPO/$CO_CI_OUT ;; esac
# The Debian mirror this machine's apt uses (deb822 .sources or the classic
# sources.list; the main archive, not -security), so CI works wherever apt
# works; CO_MIRROR overrides, deb.debian.org is the last resort.
co_apt_mirror() {
  local f url
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    url=$(awk 'BEGIN { RS = ""; FS = "\n" }
      /(^|\n)Types:[^\n]*deb([ \t]|$)/ && !/Suites:[^\n]*-security/ {
        for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) { split($i, a, " "); print a[2]; exit } }' "$f")
    case $url in */debian|*/debian/) echo "${url%/}"; return 0 ;; esac
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    url=$(awk '$1 == "deb" { for (i = 2; i < NF; i++) if ($i ~ /^[a-z+]+:\/\//) {
        if ($i ~ /debian\/?$/ && $(i + 1) !~ /-security/) { print $i; exit } break } }' "$f")
    [ -n "$url" ] && { echo "${url%/}"; return 0; }
  done
  echo http://deb.debian.org/debian
}
CO_MIRROR=${CO_MIRROR:-$(co_apt_mirror)}
# bump when the way a root is made changes (not its package list: that is hashed)
CO_RECIPE=3
CO_T0=$(date +%s)
CO_STEP=${CO_STEP:-ci}
CO_MOUNTS=()
CO_ROOTS_USED=()

# The bullseye (Debian 11, GStreamer 1.18.4) package list: old-gst.sh's root,
# and the base of cuda11.sh's CUDA 11.2 root.  -dev packages carry the GIR
# files .ci/api-floor.py reads (libgirepository1.0-dev: GLib's).
CO_BULLSEYE_PKGS="gcc libc6-dev binutils ninja-build pkg-config python3
 libyaml-dev libxml2-dev
 libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
 gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-tools
 python3-gi gir1.2-gst-plugins-base-1.0 libgirepository1.0-dev"

# The trixie (Debian 13, GStreamer 1.26, CUDA 12.4 from non-free) package
# list: debian13.sh's root, which tests/gpu-126.sh builds in too (the same
# list, so the same cached root).  patchelf: gpu-126.sh's binaries for the
# GPU machine.
CO_TRIXIE_PKGS="gcc g++ libc6-dev binutils ninja-build pkg-config meson python3
 libyaml-dev libxml2-dev
 libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
 gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
 gstreamer1.0-tools python3-gi gir1.2-gst-plugins-base-1.0
 nvidia-cuda-toolkit patchelf"

co_log() { echo "[$CO_STEP $(date +%T)] $*"; }
co_die() { echo "[$CO_STEP] FAILED: $*" >&2; exit 1; }

co_elapsed() { echo $(( $(date +%s) - CO_T0 )); }

# ---- mounts ---------------------------------------------------------------

co_mount_proc() {   # ROOT
  local m=$1/proc
  mountpoint -q "$m" && return 0
  mount -t proc proc "$m" || co_die "mount $m"
  CO_MOUNTS+=("$m")
}

co_umount_all() {
  local i m
  for (( i=${#CO_MOUNTS[@]}-1; i>=0; i-- )); do
    m=${CO_MOUNTS[i]}
    if mountpoint -q "$m"; then
      umount "$m" 2>/dev/null || umount -l "$m" || echo "[$CO_STEP] could not unmount $m" >&2
    fi
  done
  CO_MOUNTS=()
  # and anything left under the roots this process used (a subshell's mount)
  for r in "${CO_ROOTS_USED[@]}"; do
    for m in $(co_mounts_under "$r"); do umount "$m" 2>/dev/null || umount -l "$m"; done
  done
}

# mounts at or below DIR (from the kernel's table), deepest first
co_mounts_under() {
  local d; d=$(realpath -m "$1")
  awk -v d="$d" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts | sort -r
}

# rm -rf DIR, but never with anything mounted below it
co_safe_rm() {
  local d=$1 m
  [ -e "$d" ] || return 0
  case $(realpath -m "$d") in /|/usr|/var|/home|/root|/etc) co_die "refusing to remove $d" ;; esac
  for m in $(co_mounts_under "$d"); do umount "$m" 2>/dev/null || umount -l "$m"; done
  [ -z "$(co_mounts_under "$d")" ] || co_die "still mounted under $d, not removing it"
  rm -rf --one-file-system "$d" || co_die "rm -rf $d"
}

co_on_exit() {
  local rc=$?
  co_umount_all
  # to the step's own stdout, even when a signal lands inside a redirected call
  echo "[$CO_STEP] wall time: $(co_elapsed) s ($( [ $rc = 0 ] && echo ok || echo "FAILED, exit $rc"))" >&"$CO_STDOUT"
  exit $rc
}
exec {CO_STDOUT}>&1
trap co_on_exit EXIT
trap 'exit 130' INT TERM

# ---- host tools -------------------------------------------------------------

co_host_pkgs() {    # PKG... installed on the host from its own (main) sources if missing
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} = 0 ] && return 0
  co_log "host: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; } ||
    co_die "could not install ${missing[*]} on the host"
}

# ---- running in a root ------------------------------------------------------

# co_chroot ROOT COMMAND: bash -c COMMAND in ROOT with /proc mounted for it
co_chroot() {
  local root=$1; shift
  co_mount_proc "$root"
  env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=dumb CI="${CI:-}" DEBIAN_FRONTEND=noninteractive \
    chroot "$root" /bin/bash -c "$*"
  local rc=$?
  co_umount_all
  return $rc
}

co_root_sane() {    # ROOT KEY PKGS
  local root=$1 key=$2 pkgs=$3
  [ -f "$root/.co-root-ok" ] && [ "$(cat "$root/.co-root-ok")" = "$key" ] || return 1
  [ -x "$root/bin/bash" ] || return 1
  local bad
  bad=$(chroot "$root" /bin/sh -c "dpkg --audit; for p in $pkgs; do
      dpkg-query -W -f='\${Status}\n' \"\$p\" 2>/dev/null | grep -q 'install ok installed' || echo \"missing \$p\"; done" 2>&1)
  [ -z "$bad" ] || { co_log "root $root is broken: $(echo "$bad" | head -3)"; return 1; }
}

# co_root NAME SUITE "PKGS" [ARCHES] [BASE_ROOT]
# Makes (or reuses) a root and sets CO_ROOT to it; CO_ROOT_STATE=cached|fresh.
# ARCHES: foreign dpkg architectures to add (e.g. arm64).  BASE_ROOT: a ready
# root of the same suite to copy instead of running debootstrap.
co_root() {
  local name=$1 suite=$2 pkgs=$3 arches=${4:-} base=${5:-}
  local key root part lockf t
  pkgs=$(echo $pkgs)   # one line
  key=$(printf '%s\n' "$CO_RECIPE" "$suite" "$arches" "$pkgs" "${base:+base=$(basename "$base")}" |
        sha256sum | cut -c1-16)
  mkdir -p "$CO_CI_CACHE/roots" || co_die "cannot create $CO_CI_CACHE"
  root=$CO_CI_CACHE/roots/$name-$key
  lockf=$CO_CI_CACHE/roots/.$name.lock
  exec {CO_LOCK_FD}>"$lockf"
  flock -w 3600 "$CO_LOCK_FD" || co_die "timed out waiting for $lockf"
  CO_ROOT=$root
  CO_ROOTS_USED+=("$root" "$root.part")
  if [ -d "$root" ] && co_root_sane "$root" "$key" "$pkgs"; then
    CO_ROOT_STATE=cached
    co_log "root $name: cached ($root)"
    exec {CO_LOCK_FD}>&-
    return 0
  fi
  CO_ROOT_STATE=fresh
  t=$(date +%s)
  # this name's stale roots (other keys), broken leftovers and half-made parts
  local old
  for old in "$CO_CI_CACHE/roots/$name"-*; do
    [ -e "$old" ] || continue
    co_log "removing stale or broken $old"
    co_safe_rm "$old"
  done
  part=$root.part
  co_safe_rm "$part"
  if [ -n "$base" ]; then
    co_log "root $name: copying $(basename "$base")"
    cp -a --reflink=auto "$base" "$part" || co_die "copy of $base"
    rm -f "$part/.co-root-ok"
  else
    co_host_pkgs debootstrap
    co_log "root $name: debootstrap $suite (log: $part.debootstrap.log)"
    debootstrap --variant=minbase "$suite" "$part" "$CO_MIRROR" >"$part.debootstrap.log" 2>&1 ||
      { tail -20 "$part.debootstrap.log"; co_die "debootstrap $suite"; }
    rm -f "$part.debootstrap.log"
  fi
  local comps="main contrib non-free"
  echo "deb $CO_MIRROR $suite $comps" >"$part/etc/apt/sources.list"
  rm -f "$part"/etc/apt/sources.list.d/*
  printf '#!/bin/sh\nexit 101\n' >"$part/usr/sbin/policy-rc.d"; chmod +x "$part/usr/sbin/policy-rc.d"
  printf 'APT::Install-Recommends "false";\nAcquire::Retries "3";\n' >"$part/etc/apt/apt.conf.d/90co-ci"
  local a addarch=""
  for a in $arches; do addarch+="dpkg --add-architecture $a; "; done
  co_log "root $name: apt-get install ($(echo $pkgs | wc -w) packages)"
  co_chroot "$part" "set -e; $addarch apt-get update -q >/dev/null;
      apt-get install -y -q $pkgs >/tmp/co-apt.log 2>&1 || { tail -30 /tmp/co-apt.log; exit 1; };
      apt-get clean; rm -rf /var/lib/apt/lists/*_Packages /tmp/co-apt.log" ||
    co_die "apt-get install in $name"
  echo "$key" >"$part/.co-root-ok"
  co_root_sane "$part" "$key" "$pkgs" || co_die "root $name not sane right after making it"
  [ -z "$(co_mounts_under "$part")" ] || co_die "mounts left under $part"
  mv "$part" "$root" || co_die "mv $part"
  co_log "root $name: made in $(( $(date +%s) - t )) s"
  exec {CO_LOCK_FD}>&-
}

# Copy the working tree (tracked and untracked-not-ignored files, others'
# uncommitted edits included) to ROOT/src/cudaoptics (ROOT/DIR/cudaoptics).
# tar keeps the files' times, so a build folder kept elsewhere is incremental.
co_copy_tree() {    # ROOT [DIR]
  local dst=$1/${2:-src}/cudaoptics
  co_safe_rm "$1/${2:-src}"
  mkdir -p "$dst"
  # (build folders are never source, whatever .gitignore says)
  ( cd "$CO_REPO" && git ls-files -co --exclude-standard -z | grep -zv '^build' |
      tar --null -T - --ignore-failed-read -cf - 2>/dev/null ) | tar -xf - -C "$dst" ||
    co_die "copying the tree into $1"
}

# Put the host's meson (pure Python) into ROOT as /usr/local/bin/meson:
# what a user of an older distribution (or a Jetson, with pip) does.
co_copy_host_meson() {  # ROOT
  local root=$1 src
  co_host_pkgs meson
  # (grep reads all of dpkg's output: no SIGPIPE for pipefail to report)
  src=$(dpkg -L meson 2>/dev/null | grep '/mesonbuild/__init__.py$')
  src=${src%%$'\n'*}
  [ -f "$src" ] || co_die "no mesonbuild on the host"
  src=${src%/__init__.py}
  rm -rf "$root/opt/co-meson"; mkdir -p "$root/opt/co-meson"
  cp -a "$src" "$root/opt/co-meson/mesonbuild" || co_die "copying mesonbuild"
  find "$root/opt/co-meson" -name __pycache__ -prune -exec rm -rf {} +
  cat >"$root/usr/local/bin/meson" <<'EOF'
#!/usr/bin/python3
import sys
sys.path.insert(0, '/opt/co-meson')
from mesonbuild.mesonmain import main
sys.exit(main())
EOF
  chmod +x "$root/usr/local/bin/meson"
}

# co_meson_build ROOT OUTSUB "SETUP ARGS" [ENV...]: configure, build and run
# the suite in ROOT; leaves build.log and testlog.json in $CO_CI_OUT/OUTSUB.
# Sets CO_BUILD (build dir on the host).  Returns meson test's status.
# CO_TEST_ARGS: more meson test arguments (arm64: a timeout multiplier for qemu).
co_meson_build() {
  local root=$1 sub=$2 args=$3; shift 3
  local out=$CO_CI_OUT/$sub envs="$*"
  mkdir -p "$out"; rm -f "$out/testlog.json" "$out/build.log" "$out/test.log"
  CO_BUILD=$root/src/_build
  co_log "meson setup $args"
  co_chroot "$root" "cd /src/cudaoptics && $envs meson setup /src/_build $args" >"$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; co_die "meson setup ($sub)"; }
  co_log "ninja"
  co_chroot "$root" "$envs ninja -C /src/_build" >>"$out/build.log" 2>&1 ||
    { tail -60 "$out/build.log"; co_die "ninja ($sub)"; }
  grep -q 'warning:' "$out/build.log" &&
    co_log "compiler warnings ($sub), see $out/build.log:" &&
    grep -E 'warning:' "$out/build.log" | sed 's/^/    /' | sort | uniq | head -40
  co_log "meson test"
  co_chroot "$root" "$envs meson test -C /src/_build --print-errorlogs --num-processes 1 --no-suite manual ${CO_TEST_ARGS:-}" \
    >"$out/test.log" 2>&1
  local rc=$?
  cp "$CO_BUILD/meson-logs/testlog.json" "$out/testlog.json" 2>/dev/null || co_die "no testlog.json ($sub)"
  sed -n '/^Ok:/,$p' "$out/test.log"
  [ $rc = 0 ] || tail -80 "$out/test.log"
  co_log "$sub: $(co_test_totals "$out/testlog.json")"
  return $rc
}

co_test_totals() {  # testlog.json
  python3 "$CO_REPO/tests/testlog-totals.py" "$1"
}

co_require_root_user() { [ "$(id -u)" = 0 ] || co_die "needs root (debootstrap, chroot, mount)"; }

# the plugin and the programs a build made (ELF files, not objects)
co_elf_files() {    # BUILD_DIR
  find "$1/gst" "$1/tests" "$1/pipelines" "$1/tools" -maxdepth 3 -type f ! -name '*.o' ! -path '*.p/*' \
       \( -name '*.so' -o -perm -u+x \) 2>/dev/null |
    while read -r f; do [ "$(head -c4 "$f" | tr -d '\0' | cut -c2-4)" = ELF ] && echo "$f"; done | sort
}
