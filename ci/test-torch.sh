#!/usr/bin/env bash
# The tests against a pip torch, as users build: installs pip torch VERSION
# with its CUDA wheels in .torch/VERSION (ci/install-torch.sh), configures
# build-torch2/ against it with CUDA and NCCL on (nvcc from the CUDA toolkit,
# nccl.h from the nvidia-nccl wheel CMake finds beside the torch), builds
# everything and runs every test with ctest (JUnit XML in
# reports/junit/ctest-torch-VERSION.xml). Without a CUDA device the CUDA
# tests skip, each with its reason.
#
# Usage: ci/test-torch.sh [VERSION]    (default 2.11.0, the GPU machine's torch)
# Environment: GRAFT_JOBS        build and test jobs (default: 2)
#              GRAFT_BUILD_DIR   the build folder (default: build-torch2 for
#                                2.11.0, build-torch-VERSION for any other)
source "$(dirname "$0")/help.sh"
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-2.11.0}"
source ci/torch-build-dir.sh
build="${GRAFT_BUILD_DIR:-$(torch_build_dir "$version")}"

bash ci/install-deps.sh
prefix="$(bash ci/install-torch.sh "$version")"
if ! command -v nvcc >/dev/null && [ -z "${CUDACXX:-}" ]; then
  [ -x /usr/local/cuda/bin/nvcc ] || {
    echo "test-torch: a CUDA torch needs nvcc: install the CUDA toolkit (/usr/local/cuda) or set CUDACXX" >&2
    exit 1
  }
  export PATH="$PATH:/usr/local/cuda/bin"
fi
GRAFT_BUILD_DIR="$build" bash ci/build.sh -DGRAFT_TORCH_PREFIX="$prefix"
mkdir -p reports/junit
status=0
ctest --test-dir "$build" --output-on-failure -j "${GRAFT_JOBS:-2}" --timeout 600 \
  --output-junit "$PWD/reports/junit/ctest-torch-$version.xml" || status=$?
bash ci/check-junit.sh "reports/junit/ctest-torch-$version.xml"
exit "$status"
