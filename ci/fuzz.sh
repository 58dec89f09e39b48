#!/usr/bin/env bash
# Fuzzes the three parsers users feed graft (the filter language, scenario
# fixtures, snapshots) with libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer (docs/fuzzing.md): installs clang if missing,
# builds the targets of fuzz/ into build-fuzz/, then runs each one from its
# seeds (fuzz/corpus/NAME; for scenarios and snapshots the fixtures too) for
# GRAFT_FUZZ_RUNS inputs, stopping early at GRAFT_FUZZ_SECONDS. The inputs it
# keeps go to build-fuzz/corpus/NAME, never into the repository. A crash, a
# leak, an input that runs over 10 s or over 2 GB fails the script, with the
# input left in build-fuzz/findings/NAME/ and the command that replays it.
# One line per target says how it went. On 2 busy cores: 2 to 3 minutes of
# fuzzing (the snapshot target takes most), plus about 4 minutes for a first
# build without ccache (seconds with it).
#
# Usage: ci/fuzz.sh [filter|scenario|snapshot ...]   (default: all three)
# Environment: GRAFT_FUZZ_RUNS     inputs per target (default: 100000)
#              GRAFT_FUZZ_SECONDS  time limit per target, in seconds (default: 600)
#              GRAFT_JOBS          build jobs (default: 1)
source "$(dirname "$0")/help.sh"
set -euo pipefail
cd "$(dirname "$0")/.."

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(filter scenario snapshot)
for target in "${targets[@]}"; do
  case "$target" in
    filter | scenario | snapshot) ;;
    *) echo "fuzz: unknown target '$target'; the targets are filter, scenario and snapshot" >&2; exit 2 ;;
  esac
done
runs="${GRAFT_FUZZ_RUNS:-100000}"
seconds="${GRAFT_FUZZ_SECONDS:-600}"

# Debian 12: clang++ comes with clang, libFuzzer and the sanitizer runtimes
# with libclang-rt-14-dev (only recommended by clang, so not installed with it).
bash ci/install-deps.sh clang libclang-rt-14-dev
export CCACHE_BASEDIR="$PWD"
CXX=clang++ cmake -S fuzz -B build-fuzz -G Ninja
cmake --build build-fuzz -j "${GRAFT_JOBS:-1}"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

# fuzz_one NAME MAX_LEN [SEED_FOLDER...]: runs build-fuzz/fuzz_NAME; 0 when it found nothing.
fuzz_one() {
  local name="$1" max_len="$2"
  shift 2
  local scratch="build-fuzz/corpus/$name" findings="build-fuzz/findings/$name" log="build-fuzz/fuzz-$name.log"
  mkdir -p "$scratch" "$findings"
  local start=$SECONDS status=0
  "build-fuzz/fuzz_$name" -runs="$runs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$max_len" -dict="fuzz/dicts/$name.dict" -artifact_prefix="$findings/" -print_final_stats=1 \
    "$scratch" "fuzz/corpus/$name" "$@" >"$log" 2>&1 || status=$?
  local took=$((SECONDS - start))
  local done_runs
  done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  [ -n "$done_runs" ] || done_runs=$(grep -ao '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')
  local artifact
  artifact=$(sed -n "s/.*Test unit written to \(.*\)$/\1/p" "$log" | tail -n 1)
  if [ "$status" -eq 0 ] && [ -z "$artifact" ]; then
    local limit=""
    [ "${done_runs:-0}" -ge "$runs" ] || limit=" (stopped at the ${seconds} s limit)"
    echo "fuzz $name: ${done_runs:-?} runs in $took s, no crash$limit"
    return 0
  fi
  local kind=crash
  case "$(basename "${artifact:-crash}")" in
    timeout-*) kind=timeout ;;
    oom-*) kind="out of memory" ;;
    leak-*) kind=leak ;;
  esac
  tail -n 60 "$log" >&2
  echo "fuzz $name: $kind after ${done_runs:-?} runs in $took s: ${artifact:-no input saved, see $log}"
  [ -z "$artifact" ] || echo "  replay it: build-fuzz/fuzz_$name $artifact   (docs/fuzzing.md)"
  return 1
}

failed=0
for target in "${targets[@]}"; do
  case "$target" in
    filter) fuzz_one filter 1024 || failed=$((failed + 1)) ;;
    scenario) fuzz_one scenario 4096 fixtures/scenarios || failed=$((failed + 1)) ;;
    snapshot) fuzz_one snapshot 16384 fixtures/snapshots || failed=$((failed + 1)) ;;
  esac
done
if [ "$failed" -gt 0 ]; then
  echo "fuzz: $failed of ${#targets[@]} targets found something; the inputs are in build-fuzz/findings/" >&2
  exit 1
fi
