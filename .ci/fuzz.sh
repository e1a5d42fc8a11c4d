#!/usr/bin/env bash
# CI step "fuzz": builds every fuzz target tests/fuzz/fuzz-*.c with clang
# -fsanitize=fuzzer,address,undefined, replays the saved regressions
# (tests/data/fuzz/<target>/), then fuzzes each target for a bounded time,
# seeded from the files its "// fuzz-seeds:" line names and from the
# regressions, with its "// fuzz-dict:".  Exits non-zero on any crash,
# timeout, leak or out-of-memory; what was found is copied to
# $CO_CI_OUT/fuzz/artifacts/ with the commands to reproduce and keep it.
# $CO_CI_OUT/fuzz/testlog.json: one line per target in meson's format (this
# step runs no meson suite; the regressions also run as meson tests
# unit-fuzz-regressions-<target> in every build).  tests/fuzz/README.md.
#
# Environment (all optional):
#   CO_FUZZ_SECONDS   fuzzing time in seconds over all targets (default 120)
#   CO_FUZZ_TARGETS   target names to run, e.g. "calibration" (default: all)
#   CO_FUZZ_MAX_LEN   largest input in bytes (default 65536)
#   CO_FUZZ_TIMEOUT   seconds after which one input counts as hung (default 10)
#   CO_FUZZ_BUILD     build folder (default build-fuzz); the growing corpus is
#                     kept there, in corpus/<target>/, between local runs
#   CO_FUZZ_CFLAGS    extra compiler flags, e.g. -O1
#   CO_FUZZ_ARGS      extra libFuzzer flags, e.g. "-fork=2 -ignore_crashes=1"
#   CC_FUZZ           the compiler (default: clang, else clang-14)
set -u
step=fuzz
build=${CO_FUZZ_BUILD:-build-fuzz}
source "$(dirname "$0")/lib-step.sh"
seconds=${CO_FUZZ_SECONDS:-120}
max_len=${CO_FUZZ_MAX_LEN:-65536}
timeout=${CO_FUZZ_TIMEOUT:-10}

# ---- what it needs: clang with libFuzzer (libclang-rt), GLib ----
co_install_missing clang libclang-rt-14-dev pkg-config libglib2.0-dev libyaml-dev libxml2-dev || finish 1
cc=${CC_FUZZ:-$(command -v clang || command -v clang-14)}
[ -n "$cc" ] || { echo "no clang" >&2; finish 1; }

rm -rf "$out"
mkdir -p "$out" "$build"
glib_flags=$(pkg-config --cflags --libs glib-2.0 yaml-0.1 libxml-2.0) || finish 1

# "// fuzz-KEY: values" in a target's source
meta() { sed -n "s|^// fuzz-$2: *||p" "$1" | head -n 1; }

targets=()
for src in tests/fuzz/fuzz-*.c; do
  name=$(basename "$src" .c); name=${name#fuzz-}
  if [ -n "${CO_FUZZ_TARGETS:-}" ] && ! [[ " $CO_FUZZ_TARGETS " == *" $name "* ]]; then
    continue
  fi
  targets+=("$name")
done
[ ${#targets[@]} -gt 0 ] || { echo "no fuzz target selected" >&2; finish 1; }
per=$(( seconds / ${#targets[@]} )); [ "$per" -ge 1 ] || per=1
echo "fuzz: ${#targets[@]} target(s): ${targets[*]}; $per s each, max_len $max_len, $($cc --version | head -n 1)"

# one line per target in meson's testlog.json format, for tests/testlog-totals.py
record() {  # NAME RESULT SECONDS RC
  printf '{"name": "fuzz-%s", "result": "%s", "duration": %s, "returncode": %s}\n' \
    "$1" "$2" "$3" "$4" >> "$out/testlog.json"
}

rc=0
for name in "${targets[@]}"; do
  tt=$(date +%s)
  src=tests/fuzz/fuzz-$name.c
  sources=$(meta "$src" sources)
  seeds=$(meta "$src" seeds)
  dict=$(meta "$src" dict)
  bin=$build/fuzz-$name
  regress=tests/data/fuzz/$name
  log=$out/fuzz-$name.log
  echo "== $name: $src + $sources"
  for f in $sources; do echo "   $(sha1sum "$f")"; done
  incs=""
  for f in $sources; do incs="$incs -I$(dirname "$f")"; done
  # shellcheck disable=SC2086
  if ! "$cc" -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
      -fno-sanitize-recover=undefined -Wall -Wno-unused-parameter \
      -I. -Itests/fuzz $incs ${CO_FUZZ_CFLAGS:-} "$src" $sources $glib_flags -lm \
      -o "$bin"; then
    echo "fuzz: $name does not build" >&2; rc=1
    record "$name" FAIL $(( $(date +%s) - tt )) 1; continue
  fi

  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:check_initialization_order=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
  export G_SLICE=always-malloc

  # 1. the saved regressions and the seeds, each once, whole (no max_len cut)
  mapfile -t files < <( { ls -d $seeds 2>/dev/null;
                          [ -d "$regress" ] && find "$regress" -type f; } | sort -u)
  if [ ${#files[@]} -gt 0 ] && ! "$bin" -runs=1 "${files[@]}" > "$out/replay-$name.log" 2>&1; then
    echo "fuzz: $name: a saved input fails (log: $out/replay-$name.log):" >&2
    tail -n 40 "$out/replay-$name.log" >&2
    rc=1; record "$name" FAIL $(( $(date +%s) - tt )) 1; continue
  fi
  echo "   replayed ${#files[@]} saved inputs: ok"

  # 2. fuzzing: corpus/<name> grows between local runs; seeds are read-only
  corpus=$build/corpus/$name
  seeddir=$build/seeds/$name
  art=$build/artifacts/$name/
  rm -rf "$seeddir"; mkdir -p "$corpus" "$seeddir" "$art"
  [ ${#files[@]} -gt 0 ] && cp "${files[@]}" "$seeddir/"
  dictarg=(); [ -n "$dict" ] && dictarg=(-dict="$dict")
  # shellcheck disable=SC2086
  "$bin" "${dictarg[@]}" -max_len="$max_len" -max_total_time="$per" \
      -timeout="$timeout" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
      -use_value_profile=1 -report_slow_units=1 -print_final_stats=1 \
      -artifact_prefix="$art" ${CO_FUZZ_ARGS:-} "$corpus" "$seeddir" > "$log" 2>&1
  frc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
  echo "   $per s: ${execs:-?} inputs (${speed:-?}/s), $cov, corpus $(ls "$corpus" | wc -l) files, exit $frc"
  slow=$(grep -c '^Slowest unit' "$log")
  [ "$slow" -gt 0 ] && echo "   slow inputs (>1 s): $slow, the slowest: $(grep '^Slowest unit' "$log" | tail -n 1)"
  found=$(find "$art" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' \
            -o -name 'oom-*' -o -name 'leak-*' -o -name 'slow-unit-*' \) -newer "$bin")
  if [ -n "$found" ]; then
    mkdir -p "$out/artifacts/$name"
    cp $found "$out/artifacts/$name/"
  fi
  record "$name" "$([ "$frc" -eq 0 ] && echo OK || echo FAIL)" $(( $(date +%s) - tt )) "$frc"
  if [ "$frc" -ne 0 ]; then
    rc=1
    echo "fuzz: $name FAILED; the end of $log:" >&2
    grep -v '^#[0-9]' "$log" | tail -n 40 >&2
    for f in $found; do
      case $(basename "$f") in slow-unit-*) continue ;; esac
      cat >&2 <<EOF
found: $f (copied to $out/artifacts/$name/)
  reproduce: $bin $f
  minimize:  $bin -minimize_crash=1 -max_total_time=60 -exact_artifact_path=$f.min $f
  keep it:   cp $f.min tests/data/fuzz/$name/<what-it-found>   (replayed by unit-fuzz-regressions-$name)
EOF
    done
  fi
done
finish $rc
