#!/usr/bin/env bash
# Configures and builds graft in build/ (Release, tests and bench on).
#
# Usage: ci/build.sh [CMake configure arguments, e.g. -DGRAFT_WERROR=ON]
# Environment: GRAFT_JOBS        build jobs (default: 2)
#              GRAFT_BUILD_DIR   the build folder (default: build)
source "$(dirname "$0")/help.sh"
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
jobs="${GRAFT_JOBS:-2}"
# Relative paths in ccache's keys let a fresh clone in another folder reuse objects.
export CCACHE_BASEDIR="$PWD"
build="${GRAFT_BUILD_DIR:-build}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j "$jobs"
