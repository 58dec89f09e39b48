#include <iostream>

#include <graft/harness/snapshot_diff.hpp>

#include "cli/commands.hpp"
#include "cli/json_output.hpp"

namespace graft::harness::cli {

int diff_command(const std::string& expected, const std::string& actual, bool json) {
  const file_diff result = diff_snapshot_files(expected, actual);
  if (json) {
    print_json(to_json(result, expected, actual));
  } else {
    (result.exit_code == 2 ? std::cerr : std::cout) << result.report;
  }
  return result.exit_code;
}

}  // namespace graft::harness::cli
