#!/usr/bin/env bash
# Lists the skips of a `ctest -V --output-log LOG` run, one a line with its
# reason: graft run's "SKIPPED NAME: reason" lines and GoogleTest's skip
# messages (the line after "FILE:LINE: Skipped", named by the test that printed
# it). On a GPU machine only one reason is expected: too few CUDA devices for
# a scenario or test that needs a device per NCCL rank. Any other skip (no CUDA
# in the build, kernels not built, no device visible) leaves a gpu test
# unchecked, so it fails the check.
#
# Usage: ci/gpu-skips.sh CTEST_LOG
# Exit status: 0 no skip, or skips for too few devices only; 1 any other skip;
# 2 the log cannot be read.
source "$(dirname "$0")/help.sh"
set -euo pipefail

log="${1:-}"
if [ -z "$log" ] || [ ! -r "$log" ]; then
  echo "gpu-skips: name a readable ctest log (ctest -V --output-log LOG); got '${log}'" >&2
  exit 2
fi
# ctest -V prefixes each line of a test's output with "NUMBER: ".
skips="$(awk '
  { line = $0; sub(/^[0-9]+: /, "", line) }
  line ~ /^SKIPPED / { print substr(line, 9); next }
  pending { print "gtest " test ": " line; pending = 0; next }
  line ~ /^\[ RUN      \] / { test = substr(line, 14) }
  line ~ /: Skipped$/ { pending = 1 }
' "$log" | sort -u)"
too_few_devices='needs [0-9]+ CUDA devices \(NCCL: one per rank\)|needs a CUDA device per CUDA rank'
if [ -z "$skips" ]; then
  echo "gpu-skips: no test skipped"
  exit 0
fi
echo "gpu-skips: skipped (with reasons):"
printf '%s\n' "$skips" | sed 's/^/  /'
others="$(printf '%s\n' "$skips" | grep -vE "$too_few_devices" || true)"
if [ -n "$others" ]; then
  echo "gpu-skips: $(printf '%s\n' "$others" | wc -l) skipped for a reason other than too few CUDA devices;" \
       "on a GPU machine that is a build or setup problem (see each reason above)" >&2
  exit 1
fi
echo "gpu-skips: every skip is for too few CUDA devices"
