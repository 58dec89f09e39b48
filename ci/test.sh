#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
ctest --test-dir build --output-on-failure -j "${GRAFT_JOBS:-2}" --timeout 600
