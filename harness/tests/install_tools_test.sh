#!/usr/bin/env bash
# Installs a build with plain `cmake --install` into a fresh prefix, then runs
# the installed graft from a folder outside the checkout: it must find its own
# worker, plugins, fixtures and localize model under the prefix, write its
# reports to ./reports, and print no path into the checkout.
#
# Usage: install_tools_test.sh CMAKE BUILD_DIR SOURCE_DIR PREFIX
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 CMAKE BUILD_DIR SOURCE_DIR PREFIX" >&2
  exit 2
fi
cmake=$1
build=$(cd "$2" && pwd -P)
source_dir=$(cd "$3" && pwd -P)
prefix=$4

work=""
fail() {
  echo "install_tools_test: FAILED: $*" >&2
  [ -z "$work" ] || echo "install_tools_test: the working folder is kept for a look: $work" >&2
  exit 1
}

rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" > /dev/null || fail "cmake --install $build --prefix $prefix"
prefix=$(cd "$prefix" && pwd -P)

for file in bin/graft libexec/graft/graft_worker libexec/graft/graft_model \
            lib/graft/transforms/libgraft_double_transform.so \
            share/graft/fixtures/scenarios/double_1x1.json share/graft/fixtures/snapshots/double_1x1.json \
            share/graft/fixtures/localize/no_bug.json; do
  [ -e "$prefix/$file" ] || fail "cmake --install did not install $file under $prefix"
done
for program in bin/graft libexec/graft/graft_worker libexec/graft/graft_model \
               lib/graft/transforms/libgraft_double_transform.so; do
  if ldd "$prefix/$program" | grep -q "not found"; then
    fail "$program cannot find its shared libraries (install RPATH):
$(ldd "$prefix/$program" | grep "not found")"
  fi
done

# The working folder is outside the checkout, so that nothing can be found
# relative to it by accident.
work=$(mktemp -d "${TMPDIR:-/tmp}/graft_install_test_XXXXXX")
cd "$work"

graft="$prefix/bin/graft"
# Runs the installed graft, keeping its output in $work/NAME.out; any exit
# code but 0 fails the test with that output.
run_graft() {
  local name=$1 rc=0
  shift
  "$graft" "$@" > "$work/$name.out" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || fail "graft $* exited $rc:
$(cat "$work/$name.out")"
}
# The prefix lies in the build folder, inside the checkout: any other path
# into the checkout (in what graft printed or wrote) is a default that still
# points there.
expect_no_checkout_paths() {
  local file=$1
  if sed "s|$prefix|PREFIX|g" "$file" | grep -F "$source_dir"; then
    fail "$file names paths into the checkout (above); the installed graft must use PREFIX=$prefix"
  fi
}
expect_in_output() {
  local name=$1 text=$2
  grep -qF -- "$text" "$work/$name.out" || fail "graft $name: expected '$text' in:
$(cat "$work/$name.out")"
}

run_graft help --help
expect_in_output help "$prefix/share/graft/fixtures"
expect_in_output help "$prefix/lib/graft/transforms"
expect_in_output help "$prefix/libexec/graft/graft_worker"
expect_no_checkout_paths "$work/help.out"

run_graft localize-help localize --help
expect_in_output localize-help "$prefix/libexec/graft/graft_model"
expect_no_checkout_paths "$work/localize-help.out"

run_graft list list
expect_in_output list double_1x1
expect_no_checkout_paths "$work/list.out"

# An installed sample plugin's registry, read by the installed graft.
run_graft plugins plugins "$prefix/lib/graft/transforms/libgraft_double_transform.so"
expect_in_output plugins "double_it  [no fused plan]"

# Quick CPU scenarios: a sample plugin loaded from the prefix, the reverse
# direction, and a builtin transform across ranks; each checked against its
# installed golden.
run_graft run run double_1x1 t2b_1x1 reshard_2to1
expect_no_checkout_paths "$work/run.out"
for file in summary.json snapshots/double_1x1.json snapshots/t2b_1x1.json snapshots/reshard_2to1.json; do
  [ -f "$work/reports/$file" ] || fail "graft run wrote no reports/$file in its working folder $work"
done
expect_no_checkout_paths "$work/reports/summary.json"

# localize with its default model: the installed graft_model.
run_graft localize localize --scenario "$prefix/share/graft/fixtures/localize/no_residual_second_layer.json"
expect_no_checkout_paths "$work/localize.out"
report="$work/reports/localize/no_residual_second_layer/report.json"
[ -f "$report" ] || fail "graft localize wrote no $report in its working folder"
grep -qF "$prefix/libexec/graft/graft_model" "$report" ||
  fail "graft localize did not run the installed $prefix/libexec/graft/graft_model (see $report)"

rm -rf "$work"
echo "install_tools_test: the installed graft under $prefix ran its fixtures, plugins, worker and model"
