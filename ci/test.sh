#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test with ctest,
# and writes ctest's JUnit XML to reports/junit/ctest.xml for CI systems.
#
# Usage: ci/test.sh   (no arguments; for a choice of tests, ctest --test-dir build -R REGEX)
# Environment: GRAFT_JOBS   build and test jobs (default: 2)
source "$(dirname "$0")/help.sh"
set -euo pipefail
if [ $# -gt 0 ]; then
  echo "ci/test.sh takes no arguments (got: $*); run a choice of tests with ctest --test-dir build -R REGEX" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
# Headless chromium for the report page's browser tests (ctest -L browser),
# which skip without one, and fail under CI.
bash ci/install-deps.sh chromium
bash ci/build.sh
mkdir -p reports/junit
status=0
ctest --test-dir build --output-on-failure -j "${GRAFT_JOBS:-2}" --timeout 600 \
  --output-junit "$PWD/reports/junit/ctest.xml" || status=$?
bash ci/check-junit.sh reports/junit/ctest.xml
exit "$status"
