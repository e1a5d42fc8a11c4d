#!/usr/bin/env bash
# cudaoptics — LGPL-2.1-or-later
# `meson install` puts the plugin into GStreamer's own plugin directory
# (pkg-config's pluginsdir, unless -Dplugindir says otherwise) and
# co-clt-kernels into bindir; gst-inspect-1.0 then finds the elements from
# that directory alone.  Installed into a DESTDIR, not onto the machine.
# Usage: install-check.sh BUILD_DIR
set -u
build=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --no-rebuild --destdir "$dest" --quiet >"$dest.log" 2>&1 ||
  { cat "$dest.log"; echo "meson install failed"; exit 1; }
rm -f "$dest.log"
want=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="plugindir"][0])')
[ -n "$want" ] || want=$(pkg-config --variable=pluginsdir gstreamer-1.0)
plugin=$dest$want/libgstcudaoptics.so
[ -f "$plugin" ] || { echo "no plugin at $plugin; installed:"; find "$dest" -type f; exit 1; }
prefix=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
[ -x "$dest$prefix/bin/co-clt-kernels" ] || { echo "no co-clt-kernels in $prefix/bin"; exit 1; }
# the directory alone: no GST_PLUGIN_PATH, a fresh registry
out=$(env -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0 GST_REGISTRY="$dest/registry.bin" \
  GST_REGISTRY_1_0="$dest/registry.bin" GST_PLUGIN_SYSTEM_PATH_1_0="$dest$want" \
  GST_PLUGIN_SYSTEM_PATH="$dest$want" gst-inspect-1.0 cudaoptics 2>&1)
for e in cudalensdistort cudaomniunwrap cudafoveate cudashcentroid cudaaberration; do
  grep -q "$e:" <<<"$out" || { echo "gst-inspect-1.0 cudaoptics lacks $e:"; echo "$out"; exit 1; }
done
# gst-inspect shows users the origin: the package-origin a packager set
origin=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="package-origin"][0])')
got=$(sed -n 's/^ *Origin URL  *//p' <<<"$out")
[ "$got" = "$origin" ] ||
  { echo "gst-inspect-1.0 cudaoptics: origin '$got', package-origin '$origin'"; exit 1; }
# the Python module: where the system's Python finds it under the prefix,
# and it imports from there (with numpy)
pymod=$(meson introspect "$build" --installed |
  python3 -c 'import json,sys; print(next((v for k, v in json.load(sys.stdin).items() if k.endswith("/cudaoptics.py")), ""))')
if [ -z "$pymod" ]; then
  echo "meson install puts no cudaoptics.py (the build found no usable Python?)"; exit 1
fi
[ -f "$dest$pymod" ] || { echo "no Python module at $pymod"; exit 1; }
sys_py=/usr/bin/python3
[ -x $sys_py ] || sys_py=python3
case "$prefix" in
  /usr|/usr/local)
    # a system prefix: the system's Python searches that folder as it is
    $sys_py -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$(dirname "$pymod")" ||
      { echo "$pymod is not on $sys_py's sys.path:"; $sys_py -c 'import sys; print(sys.path)'; exit 1; } ;;
esac
if $sys_py -c 'import numpy' 2>/dev/null; then
  got=$(cd "$dest" && PYTHONPATH="$dest$(dirname "$pymod")" $sys_py -c \
    'import cudaoptics; print(cudaoptics.__file__, " ".join(cudaoptics.KINDS))') ||
    { echo "the installed module does not import"; exit 1; }
  [ "${got%% *}" = "$dest$pymod" ] || { echo "imported $got, not $dest$pymod"; exit 1; }
  echo "python: $pymod imports ($got)"
else
  echo "python: $pymod installed (no numpy in $sys_py: import not tried)"
fi
echo "installed: $want/libgstcudaoptics.so (GStreamer's pluginsdir: $(pkg-config --variable=pluginsdir gstreamer-1.0)), $prefix/bin/co-clt-kernels"
