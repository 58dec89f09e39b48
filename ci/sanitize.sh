#!/usr/bin/env bash
# Every test under sanitizers. By default AddressSanitizer (with
# LeakSanitizer) and UndefinedBehaviorSanitizer in build-asan/;
# GRAFT_SANITIZE=thread builds build-tsan/ with ThreadSanitizer instead, with
# ci/tsan.supp leaving out the races it cannot judge (OpenMP regions and
# libtorch's internals, which are not instrumented). Any finding fails its
# test with the report in its output.
# A first build takes about half an hour on 2 cores (ccache keeps later ones
# short); the tests take about 4 minutes (5 under ThreadSanitizer).
#
# Usage: [GRAFT_SANITIZE=thread] ci/sanitize.sh [ctest arguments...]     e.g. ci/sanitize.sh -L filter
source "$(dirname "$0")/help.sh"
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
export CCACHE_BASEDIR="$PWD"
sanitizers="${GRAFT_SANITIZE:-address,undefined}"
case "$sanitizers" in
  thread) build=build-tsan ;;
  address,undefined) build=build-asan ;;
  *) echo "sanitize: GRAFT_SANITIZE is '$sanitizers'; use address,undefined (the default) or thread" >&2; exit 2 ;;
esac
# Without the Python package: an instrumented extension loads into an
# uninstrumented python only with the sanitizer's runtime preloaded.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAFT_SANITIZE="$sanitizers" -DGRAFT_PYTHON=OFF
cmake --build "$build" -j "${GRAFT_JOBS:-2}"
# Worker processes the tests spawn inherit these.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
# TSan reports without stopping; exitcode makes any report fail the process.
export TSAN_OPTIONS="${TSAN_OPTIONS:-suppressions=$PWD/ci/tsan.supp second_deadlock_stack=1 exitcode=66}"
ctest --test-dir "$build" --output-on-failure -j "${GRAFT_JOBS:-2}" --timeout 900 "$@"
