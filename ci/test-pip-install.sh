#!/usr/bin/env bash
# Runs pip install . as a user would, against pip torch VERSION (.torch/VERSION,
# installed by ci/install-torch.sh): builds the wheel with pip's default build
# isolation into the site-packages of a throwaway virtual environment
# (--no-deps: the torch is .torch/VERSION's, which a .pth file puts on that
# environment's path), so that Python runs graft's startup hook for sglang
# (graft-sglang.pth) as it starts, as in a user's environment; then runs the
# Python package's pytest suite (but the conformance table, which the build's
# ctest produces) with that environment's Python, with
# graft_client from the build folder of the same torch for the worlds that mix
# Python and C++ ranks.
#
# Usage: ci/test-pip-install.sh [VERSION]    (default 2.11.0)
# Environment: GRAFT_BUILD_DIR   the build folder of that torch (default: as ci/test-torch.sh's)
source "$(dirname "$0")/help.sh"
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-2.11.0}"
source ci/torch-build-dir.sh
build="${GRAFT_BUILD_DIR:-$(torch_build_dir "$version")}"
python="$PWD/.torch/$version/bin/python"
[ -x "$python" ] || { echo "test-pip-install: no .torch/$version; run ci/install-torch.sh $version" >&2; exit 1; }
for needed in examples/graft_client fixtures/transforms/libgraft_double_transform.so; do
  [ -e "$build/$needed" ] || { echo "test-pip-install: no $build/$needed; run ci/test-torch.sh $version first" >&2; exit 1; }
done
command -v nvcc >/dev/null || export PATH="$PATH:/usr/local/cuda/bin"
# Relative paths in ccache's keys let the wheel's build reuse objects.
export CCACHE_BASEDIR="$PWD"

installed="$(mktemp -d)"
trap 'rm -rf "$installed"' EXIT
"$python" -m venv --without-pip "$installed/venv"
user_python="$installed/venv/bin/python"
site="$("$user_python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
"$python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))' > "$site/torch-environment.pth"
started=$SECONDS
"$python" -m pip install --quiet --disable-pip-version-check --no-deps --prefix "$installed/venv" .
echo "test-pip-install: pip install . took $((SECONDS - started)) s"
module="$(ls "$site"/graft/_graft*.so)"
[ -f "$site/graft-sglang.pth" ] || { echo "test-pip-install: graft-sglang.pth is not in $site" >&2; exit 1; }
echo "test-pip-install: built $(basename "$module") for torch $("$user_python" -c 'import torch; print(torch.__version__)')"

# From another folder, so that nothing resolves to the source tree.
tests="$PWD/python/tests"
client="$PWD/$build/examples/graft_client"
plugin="$PWD/$build/fixtures/transforms/libgraft_double_transform.so"
cd "$installed"
PYTHONPATH="$tests" PYTHONDONTWRITEBYTECODE=1 GRAFT_CLIENT="$client" GRAFT_DOUBLE_PLUGIN="$plugin" \
  "$user_python" -c 'import graft, sys; assert graft.__file__.startswith(sys.argv[1]), graft.__file__' "$site"
# test_conformance.py drives the build's graft command over every scenario
# (minutes); ci/test-torch.sh's ctest ran it already for this torch.
PYTHONPATH="$tests" PYTHONDONTWRITEBYTECODE=1 GRAFT_CLIENT="$client" GRAFT_DOUBLE_PLUGIN="$plugin" \
  GRAFT_TEST_INSTALLED=1 "$user_python" -m pytest -q -p no:cacheprovider --ignore="$tests/test_conformance.py" "$tests"
