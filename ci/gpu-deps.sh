#!/usr/bin/env bash
# For a CUDA machine that has libtorch, CMake, ninja and nvcc but no package
# registry: run this here, on Debian 12 with apt, to download the Debian
# packages graft builds against besides libtorch and unpack them into
# .gpu-deps/root (git-ignored, about 6 MiB). Take .gpu-deps/ along to that
# machine; ci/gpu-bench.sh builds against it when it is there.
#
# Usage: ci/gpu-deps.sh            (re-running replaces .gpu-deps/)
source "$(dirname "$0")/help.sh"
set -euo pipefail
cd "$(dirname "$0")/.."

# Headers and CMake/pkg-config files (-dev), the shared libraries they link
# (libre2-9, libbenchmark1debian), and pkg-config itself (pkgconf and its
# library) for a machine that has none. Gloo's headers are only needed where
# libtorch ships none of its own.
packages=(
  nlohmann-json3-dev libcli11-dev libgloo-dev
  libre2-dev libre2-9
  libgtest-dev libgmock-dev
  libbenchmark-dev libbenchmark1debian
  pkgconf pkgconf-bin libpkgconf3
)

command -v apt-get >/dev/null || { echo "gpu-deps: needs apt-get (Debian 12)" >&2; exit 1; }
rm -rf .gpu-deps
mkdir -p .gpu-deps/debs .gpu-deps/root
# As root, apt's download sandbox user (_apt) could not write here.
sandbox=()
[ "$(id -u)" -ne 0 ] || sandbox=(-o APT::Sandbox::User=root)
(cd .gpu-deps/debs && apt-get download -qq "${sandbox[@]}" "${packages[@]}")
for deb in .gpu-deps/debs/*.deb; do dpkg -x "$deb" .gpu-deps/root; done
rm -rf .gpu-deps/debs .gpu-deps/root/usr/share/doc .gpu-deps/root/usr/share/man
echo "gpu-deps: unpacked ${#packages[@]} packages into .gpu-deps/root ($(du -sh .gpu-deps | cut -f1))"
