#!/usr/bin/env bash
# The main job: installs what is missing, builds, runs every graft scenario in
# real processes, prints the summary and writes the reports under reports/.
#
# Usage: ci/main.sh [graft run arguments: scenario names or folders, -j N]
# Environment: GRAFT_JOBS   build jobs (default: 2)
source "$(dirname "$0")/help.sh"
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
mkdir -p reports
./build/harness/graft run "$@"
