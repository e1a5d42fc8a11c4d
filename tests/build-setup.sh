# Sourced by the two README commands (pipelines/demo.sh, tests/run-tests.sh)
# after tests/deps.sh: configures $build when needed and builds it, saying
# what is built and how long it takes.  MESON_ARGS go to meson setup (e.g.
# -Dcuda=disabled for the CPU backend alone, -Dcuda-archs=87 on Jetson Orin).
build=${build:-${BUILD_DIR:-build}}
if [ ! -f "$build/build.ninja" ]; then
  echo "== configuring $build (meson setup $build ${MESON_ARGS:-})"
  # shellcheck disable=SC2086
  meson setup "$build" ${MESON_ARGS:-} >"$build.setup.log" 2>&1 ||
    { cat "$build.setup.log"; echo "meson setup failed (log above)"; return 1; }
  sed -n '/^cudaoptics /,$p' "$build.setup.log" | grep -v '^ *$' | head -20
  rm -f "$build.setup.log"
fi
if grep -Eq "CUDA backend *: *(YES|True)" "$build/meson-logs/meson-log.txt" 2>/dev/null &&
  [ -n "$(ninja -C "$build" -n -v 2>/dev/null | grep -m1 nvcc)" ]; then
  echo "== building $build with the CUDA backend: the CUDA kernels take several minutes"
  echo "   on a 2-core machine (CPU backend alone, about a minute:"
  echo "   rm -rf $build; MESON_ARGS=-Dcuda=disabled $0)"
else
  echo "== building $build"
fi
# ninja prints one [n/N] line per step: the progress
ninja -C "$build" || { echo "build failed"; return 1; }
