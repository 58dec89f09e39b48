#pragma once
// graft run's results as JUnit XML (graft run --junit PATH), the format CI
// systems read test results in: one <testsuite name="graft"> with one
// <testcase> per scenario, a <failure>, <error> or <skipped> child saying why
// (the same lines the run printed), and the graft version as a property.
// harness/tests/junit.xsd is the schema it is checked against.

#include <filesystem>
#include <string>
#include <vector>

#include <graft/harness/runner.hpp>

namespace graft::harness {

std::string junit_xml(const std::vector<scenario_result>& results);

// Writes junit_xml(results) to path (its folder created); throws
// snapshot_error naming the path when it cannot be written.
void write_junit(const std::filesystem::path& path, const std::vector<scenario_result>& results);

}  // namespace graft::harness
