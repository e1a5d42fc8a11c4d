# Sourced by CI's host-side steps (sanitize, valgrind, fuzz) after they set
# $step and $build: goes to the repository root, makes $out
# ($CO_CI_OUT/$step) and $build absolute, and gives finish RC, which prints
# the step's wall time.  co_install_missing comes with it.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
t0=$(date +%s)
out=${CO_CI_OUT:-build-ci-steps}/$step
case $out in /*) ;; *) out=$root/$out ;; esac
case $build in /*) ;; *) build=$root/$build ;; esac
source tests/install-missing.sh

finish() {
  echo "$step: wall time $(( $(date +%s) - t0 )) s, exit $1"
  exit "$1"
}
