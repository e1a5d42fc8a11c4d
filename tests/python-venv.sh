#!/usr/bin/env bash
# cudaoptics — LGPL-2.1-or-later
# The Python examples under a virtual environment: one that sees the
# system's PyGObject (--system-site-packages) runs them; one that does not
# gets a message saying how to get it (python3-gi), not a traceback.
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
"$tmp/with/bin/python" -c 'import gi' 2>/dev/null ||
  { echo "the system's Python has no gi (python3-gi): skipped"; exit 77; }
rc=0
for ex in example.py shcentroid.py; do
  if ! out=$("$tmp/with/bin/python" "$root/pipelines/$ex" 2>&1); then
    echo "FAIL: $ex under a venv with the system's gi:"; echo "$out"; rc=1
  else
    echo "ok: $ex under a venv with the system's gi"
  fi
  if out=$("$tmp/without/bin/python" "$root/pipelines/$ex" 2>&1); then
    echo "FAIL: $ex ran under a venv without gi?"; rc=1
  elif ! grep -q "python3-gi" <<<"$out" || grep -q "Traceback" <<<"$out"; then
    echo "FAIL: $ex under a venv without gi does not say how to get it:"; echo "$out"; rc=1
  else
    echo "ok: $ex under a venv without gi says: $(head -1 <<<"$out")"
  fi
done
exit $rc
