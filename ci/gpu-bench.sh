#!/usr/bin/env bash
# The CUDA bench, in one command, for a machine with a CUDA device, the CUDA
# toolkit (nvcc) and a CUDA-enabled libtorch. Configures build-gpu/ with CUDA,
# builds the bench and cuda_kernels_test, checks the kernels against the host,
# runs cuda_bench up to 256 MiB, and writes reports/bench-gpu/ (JSON,
# report.md, ratio.svg) and the page reports/index.html.
#
# Usage: ci/gpu-bench.sh [extra Google Benchmark flags...]
# Environment (all optional):
#   GRAFT_TORCH_PREFIX        libtorch's CMake prefix; default: the pip torch's,
#                             python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'
#   CMAKE_CUDA_ARCHITECTURES  default 90 (H100/H200); a plain number, as 90 or 100
#   TORCH_CUDA_ARCH_LIST      default the same architecture as libtorch spells it (9.0)
#   GRAFT_BENCH_MAX_MIB       default 256; GRAFT_BENCH_MIN_TIME, GRAFT_BENCH_REPETITIONS,
#                             GRAFT_BENCH_OUT as in ci/bench.sh
#   GRAFT_BENCH_ONLY          default cuda_bench; "cuda_bench recv_bench" adds the CPU cases
#   GRAFT_GPU_TARGETS         more targets to build along with the bench (ci/gpu-check.sh's)
#   GRAFT_GPU_BUILD_ONLY=1    configure and build, then stop (no kernel check, no bench)
#
# The rest of graft's dependencies (Gloo headers, RE2, nlohmann_json, CLI11,
# GTest, Google Benchmark) come from .gpu-deps/ when it is there (made by
# ci/gpu-deps.sh on a Debian 12 machine, for a machine without a package
# registry), else from ci/install-deps.sh. libtorch must use the same C++ ABI
# as they do (_GLIBCXX_USE_CXX11_ABI=1, true of pip torch >= 2.7); CMake
# refuses any other before it compiles (cmake/graft_torch.cmake).
source "$(dirname "$0")/help.sh"
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${GRAFT_TORCH_PREFIX:-}"
if [ -z "$prefix" ]; then
  prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')" || {
    echo "gpu-bench: no libtorch: set GRAFT_TORCH_PREFIX or pip install torch (a CUDA build)" >&2
    exit 1
  }
fi
# A CUDA libtorch's CMake enables CUDA itself: it needs nvcc on PATH, and it
# builds for TORCH_CUDA_ARCH_LIST (else for the GPUs it detects), not for
# CMAKE_CUDA_ARCHITECTURES.
if ! command -v nvcc >/dev/null && [ -z "${CUDACXX:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
fi
arch="${CMAKE_CUDA_ARCHITECTURES:-90}"
export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-${arch%?}.${arch: -1}}"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,clocks.max.memory --format=csv || true

prefix_path="$prefix"
carried="$PWD/.gpu-deps/root"
if [ -d "$carried" ]; then
  # Found before anything installed: CMake packages through the prefix, RE2
  # through pkg-config (the machine's, else the carried one), and the shared
  # libraries at run time.
  libdir="$carried/usr/lib/x86_64-linux-gnu"
  prefix_path="$carried/usr;$prefix"
  export PKG_CONFIG_LIBDIR="$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$carried"
  export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  command -v pkg-config >/dev/null || export PATH="$PATH:$carried/usr/bin"
  echo "gpu-bench: building against the packages in .gpu-deps/"
else
  bash ci/install-deps.sh
fi
# c10d's NCCL header needs nccl.h: a pip torch's comes in the nvidia-nccl wheel.
nccl=()
nccl_include="$(python3 -c 'import os, nvidia.nccl; print(os.path.join(list(nvidia.nccl.__path__)[0], "include"))' \
  2>/dev/null || true)"
if [ -n "$nccl_include" ] && [ -f "$nccl_include/nccl.h" ]; then nccl=(-DGRAFT_NCCL_INCLUDE_DIR="$nccl_include"); fi
build=build-gpu
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${nccl[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix_path" \
  -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DGRAFT_BUILD_BENCH=ON -DGRAFT_BUILD_TESTS=ON -DGRAFT_CUDA_KERNELS=ON
if ! cmake --build "$build" --target help | grep -q graft_cuda_kernels; then
  echo "gpu-bench: CMake found no CUDA compiler: put nvcc on PATH, set CUDACXX, or install /usr/local/cuda" >&2
  exit 1
fi
# shellcheck disable=SC2086  # GRAFT_GPU_TARGETS is a list of target names
cmake --build "$build" --target graft_benches cuda_kernels_test ${GRAFT_GPU_TARGETS:-} -j "${GRAFT_JOBS:-8}"
[ "${GRAFT_GPU_BUILD_ONLY:-0}" = 1 ] && exit 0
# Device time is scarce: a kernel that disagrees with the host still gets its
# numbers measured, and the script fails at the end.
kernels_ok=1
"$build/bench/tests/cuda_kernels_test" || kernels_ok=0

GRAFT_BENCH_BUILD_DIR="$build" GRAFT_BENCH_SKIP_BUILD=1 \
GRAFT_BENCH_OUT="${GRAFT_BENCH_OUT:-reports/bench-gpu}" \
GRAFT_BENCH_MAX_MIB="${GRAFT_BENCH_MAX_MIB:-256}" \
GRAFT_BENCH_ONLY="${GRAFT_BENCH_ONLY:-cuda_bench}" \
  bash ci/bench.sh "$@"
if [ "$kernels_ok" -ne 1 ]; then
  echo "gpu-bench: cuda_kernels_test failed (see above): the kernels' figures measure wrong results" >&2
  exit 1
fi
