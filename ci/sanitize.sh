#!/usr/bin/env bash
# Every test under AddressSanitizer (with LeakSanitizer) and
# UndefinedBehaviorSanitizer: configures build-asan/ with
# GRAFT_SANITIZE=address,undefined, builds it and runs ctest there. Any finding
# aborts the process at fault, so its test fails with the report in its output.
# A first build takes about half an hour on 2 cores (ccache keeps later ones
# short); the tests take about 4 minutes.
#
# Usage: ci/sanitize.sh [ctest arguments...]     e.g. ci/sanitize.sh -L filter
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
export CCACHE_BASEDIR="$PWD"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAFT_SANITIZE=address,undefined
cmake --build build-asan -j "${GRAFT_JOBS:-2}"
# Worker processes the tests spawn inherit these.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
ctest --test-dir build-asan --output-on-failure -j "${GRAFT_JOBS:-2}" --timeout 900 "$@"
