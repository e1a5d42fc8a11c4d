# Sourced: co_install_missing PKG... installs those of the named Debian
# packages that are not installed yet (apt-get; sudo when not root).  Used by
# tests/deps.sh and by CI's steps, so every script installs what it needs.
co_install_missing() {
  local p missing=() sudo=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
      grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} = 0 ] && return 0
  echo "installing: ${missing[*]}"
  [ "$(id -u)" = 0 ] || sudo=sudo
  # a fresh VM's unattended upgrades may hold dpkg's lock: wait for it
  # (up to 10 minutes) rather than fail at once
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -q &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 \
      install -y -q --no-install-recommends "${missing[@]}" ||
    { echo "could not install ${missing[*]}" >&2; return 1; }
}
