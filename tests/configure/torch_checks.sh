#!/usr/bin/env bash
# Configures graft against a made-up libtorch package that is wrong in one
# way, and checks that CMake refuses it, before anything compiles, with the
# message that names the problem; or, for a torch that asks for C++20, that
# graft follows it. The made-up package has the shape of TorchConfig.cmake
# (version file, TORCH_CXX_FLAGS, the torch target, include folders).
#
# Usage: torch_checks.sh SOURCE_DIR WORK_DIR CASE
#   CASE: missing_prefix | abi0 | too_old | no_distributed | cxx20
set -euo pipefail
source_dir="$1" work="$2" case="$3"
rm -rf "$work" && mkdir -p "$work"
prefix="$work/torch/share/cmake"

make_torch() {  # version abi distributed(0|1) features
  local version="$1" abi="$2" distributed="$3" features="$4"
  mkdir -p "$prefix/Torch" "$work/torch/include/ATen" "$work/torch/lib"
  : > "$work/torch/include/ATen/Config.h"
  if [ "$distributed" = 1 ]; then
    mkdir -p "$work/torch/include/torch/csrc/distributed/c10d"
    : > "$work/torch/include/torch/csrc/distributed/c10d/ProcessGroupGloo.hpp"
  fi
  cat > "$prefix/Torch/TorchConfigVersion.cmake" <<VERSION
set(PACKAGE_VERSION "$version")
set(PACKAGE_VERSION_COMPATIBLE TRUE)
VERSION
  cat > "$prefix/Torch/TorchConfig.cmake" <<CONFIG
get_filename_component(TORCH_INSTALL_PREFIX "\${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(TORCH_INCLUDE_DIRS "\${TORCH_INSTALL_PREFIX}/include")
set(TORCH_CXX_FLAGS "-D_GLIBCXX_USE_CXX11_ABI=$abi")
add_library(torch INTERFACE IMPORTED)
set_target_properties(torch PROPERTIES INTERFACE_COMPILE_FEATURES "$features")
set(TORCH_LIBRARIES torch)
set(Torch_FOUND TRUE)
CONFIG
}

expect=""
case "$case" in
  missing_prefix) expect="holds no Torch/TorchConfig.cmake" ;;
  abi0) make_torch 2.6.0 0 1 ""; expect="uses the pre-C\+\+11 ABI" ;;
  too_old) make_torch 1.12.1 1 1 ""; expect="is older than 1.13" ;;
  no_distributed) make_torch 2.11.0 1 0 ""; expect="built without distributed support" ;;
  cxx20) make_torch 2.15.0 1 1 "cxx_std_20"; expect="graft: libtorch 2.15.0 at [^ ]+ \(CUDA: OFF\), C\+\+20" ;;
  *) echo "torch_checks: unknown case '$case'" >&2; exit 2 ;;
esac

set +e
output="$(cmake -S "$source_dir" -B "$work/build" -G Ninja -DGRAFT_TORCH_PREFIX="$prefix" \
  -DGRAFT_BUILD_BENCH=OFF -DGRAFT_BUILD_TESTS=OFF 2>&1 | tr '\n' ' ' | tr -s ' ')"
set -e
echo "$output"
if ! grep -Eq "$expect" <<<"$output"; then
  echo "torch_checks: $case: expected the configure output to say /$expect/" >&2
  exit 1
fi
if [ "$case" != cxx20 ] && ! grep -q "CMake Error" <<<"$output"; then
  echo "torch_checks: $case: the configure step did not fail" >&2
  exit 1
fi
echo "torch_checks: $case: as expected"
