#!/usr/bin/env bash
# Configures and builds graft in build/ (Release, tests and bench on).
# Extra arguments go to the CMake configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
jobs="${GRAFT_JOBS:-2}"
# Relative paths in ccache's keys let a fresh clone in another folder reuse objects.
export CCACHE_BASEDIR="$PWD"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$jobs"
