#!/usr/bin/env bash
# The GPU check, in one command, for a machine with one or more CUDA devices,
# the CUDA toolkit (nvcc), a CUDA pip torch in its python3 and no package
# registry (carry .gpu-deps/ from ci/gpu-deps.sh). Builds build-gpu/ against
# that torch through ci/gpu-bench.sh (reusing build-gpu/ when it was
# configured for this checkout), runs `ctest -L gpu` (the CUDA scenarios,
# NCCL grafts across processes among them, and the CUDA exchange tests), then
# the CUDA bench up to 256 MiB and the c10d graft bench at 64 MiB into
# reports/bench-gpu/, and prints a short summary: the fused graft's GB/s
# against a device-to-device copy at >= 64 MiB, measure=full against
# measure=off, and what was skipped and why. NCCL puts each rank on a device
# of its own, so the NCCL scenarios need 2 (1+1) and 4 (2+2) devices; with
# fewer they are reported as skipped, with the reason.
#
# Usage: ci/gpu-check.sh
# Environment (all optional):
#   GRAFT_TORCH_PREFIX, CMAKE_CUDA_ARCHITECTURES   as in ci/gpu-bench.sh
#   GRAFT_JOBS                build jobs (default: the machine's cores)
#   GRAFT_BENCH_MAX_MIB       default 256; GRAFT_BENCH_MIN_TIME default 0.05,
#                             GRAFT_BENCH_REPETITIONS default 3 (fits the check in minutes)
# Exit status: 0 everything ran and passed (skips, for too few devices only,
# are listed), 1 a failure or a skip for another reason.
source "$(dirname "$0")/help.sh"
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
step() { echo; echo "== gpu-check [$((SECONDS - started)) s]: $*"; }

# No device: say so now, before minutes of building.
devices=0
if command -v nvidia-smi >/dev/null; then
  devices="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)"
fi
if [ "$devices" -eq 0 ]; then
  echo "gpu-check: no CUDA device visible (nvidia-smi is missing or lists none): run this on a machine" \
       "with a GPU; on a CPU machine ctest shows the gpu tests as skipped instead" >&2
  exit 1
fi
if ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "gpu-check: python3's torch is missing or has no CUDA (torch.cuda.is_available() is false):" \
       "pip install a CUDA torch (e.g. 2.11.0+cu130), or set GRAFT_TORCH_PREFIX to a CUDA libtorch" >&2
  exit 1
fi
echo "gpu-check: $devices CUDA device(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"

build="build-gpu"
if [ -f "$build/CMakeCache.txt" ] && ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$PWD" "$build/CMakeCache.txt"; then
  # A folder carried from another checkout keeps that checkout's paths.
  echo "gpu-check: $build/ was configured for another checkout; configuring it afresh here"
  rm -f "$build/CMakeCache.txt"
fi
step "build $build/"
export GRAFT_JOBS="${GRAFT_JOBS:-$(nproc)}"
GRAFT_GPU_BUILD_ONLY=1 GRAFT_GPU_TARGETS="graft graft_worker graft_double_transform" bash ci/gpu-bench.sh
# Every GoogleTest executable labelled gpu: CTest lists one not built yet as
# NAME_NOT_BUILT, so the list follows whatever carries the label.
gpu_tests="$(ctest --test-dir "$build" -N -L gpu | sed -n 's/^ *Test *#[0-9]*: \(.*\)_NOT_BUILT$/\1/p' | sort -u | xargs)"
if [ -n "$gpu_tests" ]; then
  # shellcheck disable=SC2086  # a list of target names
  cmake --build "$build" --target $gpu_tests -j "$GRAFT_JOBS"
fi

failed=0
step "ctest -L gpu (CUDA scenarios, NCCL grafts across processes, CUDA exchange tests)"
ctest_log="$build/gpu-ctest.log"
# -V with --output-log keeps every test's output, skipped ones' too, so that
# ci/gpu-skips.sh can read each skip's reason; the console gets one line per
# test, and the log is named when one fails.
ctest --test-dir "$build" -L gpu -V --output-log "$ctest_log" -j "$(( devices > 1 ? 2 : 1 ))" \
  > "$build/gpu-ctest.out" 2>&1 || { failed=1; echo "gpu-check: a gpu test failed; its output is in $ctest_log" >&2; }
grep -E '^ *[0-9]+/[0-9]+ Test +#' "$build/gpu-ctest.out" || true

step "CUDA bench up to ${GRAFT_BENCH_MAX_MIB:-256} MiB, c10d graft bench at 64 MiB"
GRAFT_BENCH_MIN_TIME="${GRAFT_BENCH_MIN_TIME:-0.05}" \
GRAFT_BENCH_REPETITIONS="${GRAFT_BENCH_REPETITIONS:-3}" \
GRAFT_BENCH_ONLY="cuda_bench c10d_graft_bench" \
GRAFT_BENCH_FILTER='^(cuda_.*|c10d_(graft_off|graft_full|raw_fan_out)/1x1/67108864/.*)$' \
  bash ci/gpu-bench.sh || failed=1

step "summary"
python3 - "$devices" <<'PY' || failed=1
import json, os, re, sys
devices = int(sys.argv[1])
out = "reports/bench-gpu"

def medians(path):
    """name (without the /manual_time, /real_time, /threads suffixes) -> (seconds, counters)."""
    if not os.path.exists(path):
        return {}
    found = {}
    for b in json.load(open(path)).get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = re.sub(r"(/(manual_time|real_time|threads:\d+|repeats:\d+))+$", "", b.get("run_name", b["name"]))
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
        if b.get("run_type") == "aggregate" or name not in found:
            found[name] = (b["real_time"] * scale, b)
    return found

cuda = medians(f"{out}/cuda_bench.json")
print("fused graft (graft's kernel: write + measure, one pass) vs device-to-device copy, tensors >= 64 MiB:")
rows = 0
for name, (seconds, b) in sorted(cuda.items(), key=lambda kv: (kv[0].split("/")[1:2], int(kv[0].split("/")[-1]) if kv[0].split("/")[-1].isdigit() else 0)):
    parts = name.split("/")
    if parts[0] != "cuda_kernel_identity" or len(parts) != 3 or int(parts[2]) < 64 << 20:
        continue
    floor = cuda.get("cuda_floor_copy/" + "/".join(parts[1:]))
    gbs = b.get("bytes_rw", 0) / seconds / 1e9
    line = f"  {parts[1]:>8} {int(parts[2]) >> 20:>4} MiB: graft {gbs:7.1f} GB/s"
    if floor:
        copy_gbs = floor[1].get("bytes_rw", 0) / floor[0] / 1e9
        line += f", copy {copy_gbs:7.1f} GB/s, graft time / copy time {seconds / floor[0]:.2f}"
    print(line)
    rows += 1
if rows == 0:
    print("  no figures: cuda_bench wrote none at >= 64 MiB (see the bench output above)")

c10d = medians(f"{out}/c10d_graft_bench.json")
key = "1x1/67108864"
full, off, raw = (c10d.get(f"{v}/{key}") for v in ("c10d_graft_full", "c10d_graft_off", "c10d_raw_fan_out"))
print("measure=full vs measure=off, 1 + 1 over Gloo, 64 MiB (c10d_graft_bench):")
if full and off:
    print(f"  full {full[0] * 1e3:.1f} ms, off {off[0] * 1e3:.1f} ms, full / off {full[0] / off[0]:.2f}"
          + (f"; raw Gloo send/recv {raw[0] * 1e3:.1f} ms, graft(off) / raw {off[0] / raw[0]:.2f}" if raw else ""))
else:
    print("  no figures (see the bench output above)")
print("NCCL 1 + 1 graft vs raw NCCL send/recv, 64 MiB: not measured: c10d_graft_bench has no NCCL case, and "
      f"NCCL needs a device per rank ({devices} visible); the NCCL scenarios check correctness where there are enough")
PY

echo
# Each skip with its reason; one for anything but too few devices fails the check.
bash ci/gpu-skips.sh "$ctest_log" || failed=1
grep -E 'tests passed|tests failed' "$ctest_log" | sed 's/^/gpu-check: ctest -L gpu: /' || true
echo "gpu-check: done in $((SECONDS - started)) s; reports in reports/bench-gpu/"
if [ "$failed" -ne 0 ]; then
  echo "gpu-check: FAILED (see above)" >&2
  exit 1
fi
