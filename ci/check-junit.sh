#!/usr/bin/env bash
# Checks JUnit XML files against the schema CI systems read them by
# (harness/tests/junit.xsd), so that a report CI cannot read fails here.
#
# Usage: ci/check-junit.sh FILE...
source "$(dirname "$0")/help.sh"
set -euo pipefail
if [ $# -eq 0 ]; then
  echo "ci/check-junit.sh: name the JUnit files to check" >&2
  exit 2
fi
schema="$(cd "$(dirname "$0")/.." && pwd)/harness/tests/junit.xsd"
command -v xmllint > /dev/null || {
  echo "ci/check-junit.sh: xmllint is missing; install it with ci/install-deps.sh (Debian: libxml2-utils)" >&2
  exit 1
}
xmllint --noout --schema "$schema" "$@"
