#!/usr/bin/env bash
# Runs graft's benchmark suite and writes reports/bench/:
#   <executable>.json   Google Benchmark JSON, one per bench executable
#   report.md           every figure as a ratio against its floor from the
#                       same run, with its targets (met or not)
#   ratio.svg           each case's median time / its floor's, against size
#                       (floors at 1.0)
# and, when the output folder is reports/bench or another bench*/ folder,
# the page of its parent folder (reports/index.html), the bench's chart in it.
#   python_bench.json   the Python package's 1+1 graft against raw
#                       torch.distributed send/recv (python/bench/graft_bench.py;
#                       when the build has the package and GRAFT_BENCH_ONLY is unset)
#
# Usage: ci/bench.sh [extra Google Benchmark flags...]
# Environment (all optional):
#   GRAFT_BENCH_BUILD_DIR     build directory (default: build; configured here if missing)
#   GRAFT_BENCH_OUT           output directory (default: reports/bench)
#   GRAFT_BENCH_MIN_TIME      --benchmark_min_time in seconds (default: 0.1)
#   GRAFT_BENCH_REPETITIONS   repetitions per benchmark, for medians and cv (default: 5)
#   GRAFT_BENCH_MAX_MIB       largest tensor in MiB (default: 64; 256 is the full sweep)
#   GRAFT_BENCH_FILTER        --benchmark_filter regex (default: everything)
#   GRAFT_BENCH_ONLY          space-separated executables to run (default: all of them)
#   GRAFT_BENCH_SKIP_BUILD=1  run what is already built
#   GRAFT_BENCH_INTERLEAVE    1 (default): run the repetitions of all benchmarks
#                             in random order, so that a slow spell of a shared
#                             machine falls on floors and variants alike; 0: in turn
#
# Compare two runs (exit 1 on a regression of the median ratio beyond 10%):
#   <build>/bench/tools/graft_bench_report compare base/recv_bench.json new/recv_bench.json
source "$(dirname "$0")/help.sh"
set -euo pipefail
cd "$(dirname "$0")/.."

build="${GRAFT_BENCH_BUILD_DIR:-build}"
out="${GRAFT_BENCH_OUT:-reports/bench}"
min_time="${GRAFT_BENCH_MIN_TIME:-0.1}"
repetitions="${GRAFT_BENCH_REPETITIONS:-5}"
filter="${GRAFT_BENCH_FILTER:-.}"
case "${GRAFT_BENCH_INTERLEAVE:-1}" in
  1) interleave=true ;;
  0) interleave=false ;;
  *) echo "ci/bench.sh: GRAFT_BENCH_INTERLEAVE='$GRAFT_BENCH_INTERLEAVE': use 1 (interleave) or 0 (in turn)" >&2; exit 2 ;;
esac
# Google Benchmark would fail on these only once a bench starts (abc), or run
# with them (min_time -1: one iteration; 0 repetitions: no results at all).
if ! [[ "$min_time" =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] || [[ "$min_time" =~ ^[0.]+$ ]]; then
  echo "ci/bench.sh: GRAFT_BENCH_MIN_TIME='$min_time': use seconds above 0, e.g. 0.1" >&2
  exit 2
fi
if ! [[ "$repetitions" =~ ^[1-9][0-9]{0,3}$ ]]; then
  echo "ci/bench.sh: GRAFT_BENCH_REPETITIONS='$repetitions': use a whole number from 1 to 9999, e.g. 5" >&2
  exit 2
fi
export GRAFT_BENCH_MAX_MIB="${GRAFT_BENCH_MAX_MIB:-64}"

if [ "${GRAFT_BENCH_SKIP_BUILD:-0}" != 1 ]; then
  if [ ! -f "$build/CMakeCache.txt" ]; then
    bash ci/install-deps.sh
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGRAFT_BUILD_BENCH=ON
  fi
  cmake --build "$build" --target graft_benches -j "${GRAFT_JOBS:-2}"
fi

built=""
for exe in "$build"/bench/*_bench; do [ -x "$exe" ] && built+=" $(basename "$exe")"; done
benches="${GRAFT_BENCH_ONLY:-$built}"
for name in $benches; do
  if [ ! -x "$build/bench/$name" ]; then
    echo "ci/bench.sh: GRAFT_BENCH_ONLY names '$name', which is not a bench built in $build/bench;" \
         "the built ones are:${built:- none (build them: unset GRAFT_BENCH_SKIP_BUILD)}" >&2
    exit 2
  fi
done

mkdir -p "$out"
jsons=()
for name in $benches; do
  # A filter aimed at one bench matches nothing in the others: those are left
  # out (a bench that matches nothing writes no JSON for the report to read).
  if [ -z "$("$build/bench/$name" --benchmark_list_tests --benchmark_filter="$filter" 2>/dev/null)" ]; then
    echo "== $name: no benchmark matches GRAFT_BENCH_FILTER='$filter'; left out"
    continue
  fi
  echo "== $name (min_time ${min_time}s x ${repetitions}, interleaved: ${interleave}, sizes up to ${GRAFT_BENCH_MAX_MIB} MiB)"
  "$build/bench/$name" \
    --benchmark_filter="$filter" \
    --benchmark_min_time="$min_time" \
    --benchmark_repetitions="$repetitions" \
    --benchmark_enable_random_interleaving="$interleave" \
    --benchmark_report_aggregates_only=false \
    --benchmark_display_aggregates_only=true \
    --benchmark_out="$out/$name.json" --benchmark_out_format=json \
    "$@"
  jsons+=("$out/$name.json")
done

if [ ${#jsons[@]} -eq 0 ]; then
  echo "ci/bench.sh: GRAFT_BENCH_FILTER='$filter' matches no benchmark in:$benches;" \
       "list them with $build/bench/NAME --benchmark_list_tests" >&2
  exit 2
fi
# The page shows the parent's bench*/ folders: another output folder's page
# would leave this bench out.
page=()
case "$(basename "$out")" in bench|bench-*) page=(--page "$(dirname "$out")") ;; esac
"$build/bench/tools/graft_bench_report" report --out "$out" "${page[@]}" "${jsons[@]}"

# The Python package's bench, with the Python the build made it for.
if [ -z "${GRAFT_BENCH_ONLY:-}" ] && [ -d "$build/python/graft" ]; then
  python="$(cat "$build/python/python-executable")"
  sizes=()
  for mib in 1 16 64; do [ "$mib" -le "$GRAFT_BENCH_MAX_MIB" ] && sizes+=("$mib"); done
  echo "== python_bench ($python, sizes ${sizes[*]} MiB)"
  PYTHONPATH="$build/python" "$python" python/bench/graft_bench.py --sizes "${sizes[@]}" --out "$out/python_bench.json"
fi
