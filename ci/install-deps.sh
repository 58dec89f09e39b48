#!/usr/bin/env bash
# Installs what graft needs from Debian 12's packages, and only what is missing:
# safe to run any number of times.
#
# Usage: ci/install-deps.sh [more Debian packages]   (as root, or with sudo)
source "$(dirname "$0")/help.sh"
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config ccache
  libtorch-dev libgloo-dev nlohmann-json3-dev libre2-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev libxml2-utils iproute2
  python3-dev python3-torch python3-pytest pybind11-dev
  "$@"
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
