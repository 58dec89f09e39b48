#include <graft/harness/snapshot_store.hpp>

#include <algorithm>
#include <cctype>

namespace graft::harness {

const char* const kScenarioNameRule =
    "1 to 100 letters, digits, '_', '.' or '-', starting with a letter, a digit or '_'";

bool is_scenario_name(const std::string& name) {
  const auto allowed = [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c == '-'; };
  return !name.empty() && name.size() <= 100 && (std::isalnum(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
         std::all_of(name.begin(), name.end(), allowed);
}

}  // namespace graft::harness
