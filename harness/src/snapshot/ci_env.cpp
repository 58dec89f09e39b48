#include <graft/harness/snapshot_store.hpp>

#include <cstdlib>

#include <graft/ascii_lower.hpp>

namespace graft::harness {

bool is_ci(const std::map<std::string, std::string>& env) {
  if (env.count("TF_BUILD") != 0) return true;
  const auto it = env.find("CI");
  if (it == env.end()) return false;
  const std::string value = ascii_lower(it->second);
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
