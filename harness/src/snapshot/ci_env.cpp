#include <graft/harness/snapshot_store.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace graft::harness {

bool is_ci(const std::map<std::string, std::string>& env) {
  if (env.count("TF_BUILD") != 0) return true;
  const auto it = env.find("CI");
  if (it == env.end()) return false;
  std::string value = it->second;
  std::transform(value.begin(), value.end(), value.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return !value.empty() && value != "0" && value != "false";
}

bool is_ci_from_process_env() {
  std::map<std::string, std::string> env;
  for (const char* name : {"CI", "TF_BUILD"}) {
    if (const char* value = std::getenv(name)) env[name] = value;
  }
  return is_ci(env);
}

}  // namespace graft::harness
