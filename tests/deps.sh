#!/usr/bin/env bash
# Installs what cudaoptics needs to build and test, on Debian 12 or Ubuntu
# 22.04+, when it is missing.  Uses the CUDA toolkit in /usr/local/cuda when
# it is there (the CUDA backend is optional; without it the CPU backend is
# built and every CPU test runs).  Sourced by the demo and test commands.
pkgs="meson ninja-build pkg-config gcc libc6-dev python3 libyaml-dev libxml2-dev
 libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
 gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-tools
 python3-gi gir1.2-gst-plugins-base-1.0 python3-numpy python3-opencv python3-venv"
source "$(dirname "${BASH_SOURCE[0]}")/install-missing.sh"
co_install_missing $pkgs || exit 1
if [ -x /usr/local/cuda/bin/nvcc ]; then
  case ":$PATH:" in *:/usr/local/cuda/bin:*) ;; *) export PATH="/usr/local/cuda/bin:$PATH" ;; esac
fi
