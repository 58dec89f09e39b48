#!/usr/bin/env bash
# Runs a command and passes only when it exits with EXIT and its output
# (stdout and stderr together) matches PATTERN, a Perl regular expression
# over the whole output (so \n spans lines). ctest's PASS_REGULAR_EXPRESSION
# alone would pass a command that printed the words and then failed.
#
# Usage: expect_output.sh EXIT PATTERN COMMAND [ARG...]
set -uo pipefail
if [ $# -lt 3 ]; then
  echo "usage: expect_output.sh EXIT PATTERN COMMAND [ARG...]" >&2
  exit 2
fi
expected_exit="$1"
pattern="$2"
shift 2
output="$("$@" 2>&1)"
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$expected_exit" ]; then
  echo "expect_output: exit $status where $expected_exit was expected, from: $*" >&2
  exit 1
fi
if ! printf '%s' "$output" | grep -Pzq -- "$pattern"; then
  echo "expect_output: the output does not match: $pattern" >&2
  exit 1
fi
