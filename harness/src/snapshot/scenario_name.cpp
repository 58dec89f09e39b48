#include <graft/harness/snapshot_store.hpp>

#include <algorithm>

namespace graft::harness {

namespace {

// ASCII only, whatever the locale.
bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

}  // namespace

const char* const kScenarioNameRule =
    "1 to 100 letters, digits, '_', '.' or '-', starting with a letter, a digit or '_'";

bool is_scenario_name(const std::string& name) {
  const auto allowed = [](char c) { return is_alnum(c) || c == '_' || c == '.' || c == '-'; };
  return !name.empty() && name.size() <= 100 && (is_alnum(name[0]) || name[0] == '_') &&
         std::all_of(name.begin(), name.end(), allowed);
}

}  // namespace graft::harness
