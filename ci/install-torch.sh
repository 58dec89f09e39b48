#!/usr/bin/env bash
# Puts pip torch VERSION, with the CUDA wheels it depends on (nvidia-nccl
# included), pytest (the Python package's tests run with it) and sglang's
# dumper (sglang==0.5.23 without its dependencies, and pyzmq, which its
# dumper imports: the tests run graft under it and beside it) in a
# git-ignored virtual environment .torch/VERSION/, and prints
# the CMake prefix to build graft against it. Safe to run any number of times:
# an environment that already imports torch VERSION is kept as it is.
#
# Usage: ci/install-torch.sh VERSION     e.g. ci/install-torch.sh 2.11.0
#        ci/install-torch.sh --prefix VERSION   print the CMake prefix only (no install)
# Environment: GRAFT_PYTHON   the Python that makes the environment (default: python3)
#              GRAFT_TORCH_INDEX_URL   a pip index to take torch from instead of PyPI's
#                                      (e.g. a CPU-only or another CUDA's wheel index)
source "$(dirname "$0")/help.sh"
set -euo pipefail
cd "$(dirname "$0")/.."

prefix_only=0
if [ "${1:-}" = "--prefix" ]; then prefix_only=1; shift; fi
if [ $# -ne 1 ] || ! [[ "$1" =~ ^[0-9]+\.[0-9]+(\.[0-9]+)?$ ]]; then
  echo "install-torch: give one torch version as X.Y.Z (got: ${*:-nothing}); e.g. ci/install-torch.sh 2.11.0" >&2
  exit 2
fi
version="$1"
venv="$PWD/.torch/$version"
python="$venv/bin/python"

installed_version() {
  [ -x "$python" ] && "$python" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null || true
}
cmake_prefix() {
  "$python" -c 'import torch; print(torch.utils.cmake_prefix_path)'
}
# The test packages, each installed only when missing.
test_packages() {
  "$python" -c 'import pytest' 2>/dev/null ||
    "$python" -m pip install --quiet --disable-pip-version-check pytest >&2
  "$python" -c 'import zmq' 2>/dev/null ||
    "$python" -m pip install --quiet --disable-pip-version-check pyzmq >&2
  # --no-deps: the wheel pins its own torch and the whole serving stack;
  # its dumper needs neither.
  [ "$("$python" -c 'import importlib.metadata as m; print(m.version("sglang"))' 2>/dev/null)" = "0.5.23" ] ||
    "$python" -m pip install --quiet --disable-pip-version-check --no-deps sglang==0.5.23 >&2
}

if [ "$prefix_only" -eq 1 ]; then
  if [ "$(installed_version)" != "$version" ]; then
    echo "install-torch: torch $version is not in .torch/$version; run ci/install-torch.sh $version" >&2
    exit 1
  fi
  cmake_prefix
  exit 0
fi

if [ "$(installed_version)" = "$version" ]; then
  echo "install-torch: torch $version already in .torch/$version" >&2
  test_packages
  cmake_prefix
  exit 0
fi

base_python="${GRAFT_PYTHON:-python3}"
command -v "$base_python" >/dev/null || { echo "install-torch: no $base_python on PATH; set GRAFT_PYTHON" >&2; exit 1; }
if ! "$base_python" -c 'import venv, ensurepip' 2>/dev/null; then
  # Debian's python3 keeps venv and ensurepip in a package of their own.
  bash ci/install-deps.sh python3-venv
fi
rm -rf "$venv"
"$base_python" -m venv "$venv"
index=()
[ -z "${GRAFT_TORCH_INDEX_URL:-}" ] || index=(--index-url "$GRAFT_TORCH_INDEX_URL")
echo "install-torch: installing torch==$version into .torch/$version (with its CUDA wheels: a few GiB)" >&2
"$python" -m pip install --quiet --disable-pip-version-check "${index[@]}" "torch==$version" numpy pytest
if [ "$(installed_version)" != "$version" ]; then
  echo "install-torch: pip finished but .torch/$version does not import torch $version" >&2
  exit 1
fi
test_packages
"$python" -c 'import torch; print("install-torch: torch", torch.__version__, "CUDA", torch.version.cuda,
  "C++11 ABI", int(torch._C._GLIBCXX_USE_CXX11_ABI))' >&2
cmake_prefix
