#!/usr/bin/env bash
# cudaoptics — LGPL-2.1-or-later
# The Python examples under a virtual environment, and the advice the
# README and the examples give (issue 43): a venv that the system's Python
# makes with --system-site-packages sees the distribution's PyGObject and
# numpy and runs them; one without them gets a message saying how to get
# them, not a traceback; and a venv that another python3 makes (pyenv's,
# conda's, a newer one: the first python3 on PATH where it is not the
# system's) does not see them even with --system-site-packages, so the
# message must name /usr/bin/python3 -m venv, not python3 -m venv.
# Usage: python-venv.sh SOURCE_ROOT         (77: no python3 -m venv here)
set -u
root=$1
py=/usr/bin/python3
[ -x $py ] || py=$(command -v python3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! $py -m venv --without-pip --system-site-packages "$tmp/with" 2>"$tmp/err" ||
  ! $py -m venv --without-pip "$tmp/without" 2>>"$tmp/err"; then
  cat "$tmp/err"; echo "no python3 -m venv (python3-venv): skipped"; exit 77
fi
"$tmp/with/bin/python" -c 'import gi, numpy' 2>/dev/null ||
  { echo "the system's Python has no gi or numpy (python3-gi, python3-numpy): skipped"; exit 77; }
advice="/usr/bin/python3 -m venv --system-site-packages"
rc=0

# the README's and the shcentroid page's advice is the one that works
for doc in README.md docs/cudashcentroid.md; do
  if ! grep -qF "$advice" "$root/$doc"; then
    echo "FAIL: $doc does not say '$advice'"; rc=1
  elif grep -n 'python3 -m venv' "$root/$doc" | grep -v '/usr/bin/python3 -m venv' | grep -q .; then
    echo "FAIL: $doc still advises a plain python3 -m venv:"
    grep -n 'python3 -m venv' "$root/$doc" | grep -v '/usr/bin/python3 -m venv'; rc=1
  else
    echo "ok: $doc says '$advice'"
  fi
done

# without gi: a message with advice that works, not a traceback
says_how() {   # VENV_PYTHON EXAMPLE WHAT
  local out
  if out=$("$1" "$root/pipelines/$2" 2>&1); then
    echo "FAIL: $2 ran under $3?"; rc=1
  elif ! grep -q "python3-gi" <<<"$out" || ! grep -qF "$advice" <<<"$out" ||
    ! grep -q "pip install 'PyGObject" <<<"$out" || grep -q "Traceback" <<<"$out"; then
    echo "FAIL: $2 under $3 does not say how to get gi (python3-gi, $advice, pip's PyGObject):"
    echo "$out"; rc=1
  else
    echo "ok: $2 under $3 says: $(head -1 <<<"$out")"
  fi
}

for ex in example.py shcentroid.py; do
  if ! out=$("$tmp/with/bin/python" "$root/pipelines/$ex" 2>&1); then
    echo "FAIL: $ex under a venv of $py with the system's site packages:"; echo "$out"; rc=1
  else
    echo "ok: $ex under a venv of $py with the system's site packages"
  fi
  says_how "$tmp/without/bin/python" "$ex" "a venv of $py without the system's site packages"
done

# another python3 than the system's, where the machine has one
sys_real=$($py -c 'import os, sys; print(os.path.realpath(sys.executable))')
other=
for cand in $(type -ap python3 python3.13 python3.12 python3.11 python3.10 python3.9 python 2>/dev/null); do
  real=$("$cand" -c 'import os, sys; print(os.path.realpath(sys.executable)) if sys.version_info >= (3, 7) else None' 2>/dev/null) || continue
  [ -n "$real" ] && [ "$real" != "$sys_real" ] || continue
  "$cand" -c 'import gi' 2>/dev/null && continue     # sees a gi of its own
  other=$cand; break
done
if [ -z "$other" ]; then
  echo "no python3 other than the system's without gi on PATH: the pyenv/conda case not tried here"
elif ! "$other" -m venv --without-pip --system-site-packages "$tmp/other" 2>"$tmp/err"; then
  echo "($other -m venv fails: $(tail -1 "$tmp/err")): the pyenv/conda case not tried here"
else
  echo "another python3: $other ($("$other" -c 'import sys; print(sys.executable, sys.version.split()[0])'))"
  # what the old advice gave: --system-site-packages of a non-system python
  # still has no gi ...
  if "$tmp/other/bin/python" -c 'import gi' 2>/dev/null; then
    echo "FAIL?: a venv of $other with --system-site-packages imports gi"; rc=1
  else
    echo "ok: a venv of $other with --system-site-packages has no gi (the old advice fails there)"
  fi
  # ... and the examples say what works instead
  for ex in example.py shcentroid.py; do
    says_how "$tmp/other/bin/python" "$ex" "a venv of $other with --system-site-packages"
  done
fi
exit $rc
