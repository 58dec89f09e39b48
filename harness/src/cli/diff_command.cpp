#include <iostream>

#include <graft/harness/snapshot_diff.hpp>

#include "cli/commands.hpp"

namespace graft::harness::cli {

int diff_command(const std::string& expected, const std::string& actual, bool json) {
  const file_diff result = diff_snapshot_files(expected, actual);
  if (json) {
    std::cout << to_json(result, expected, actual).dump(2) << "\n";
  } else {
    (result.exit_code == 2 ? std::cerr : std::cout) << result.report;
  }
  return result.exit_code;
}

}  // namespace graft::harness::cli
