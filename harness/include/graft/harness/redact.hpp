#pragma once
// Redaction of volatile fields, done on the JSON tree (insta-style): a field is
// replaced by a placeholder because of its key, and string values are scrubbed
// of the things that differ between runs and machines (absolute paths, the
// scenario's port). Structure is kept, so a snapshot still shows that the
// field exists.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace graft::harness {

struct redaction_context {
  std::vector<int> ports;  // the run's ports: "...:29517" -> "...:[port]"
};

// Keys whose value varies run to run, and their placeholders:
// time, pid, duration_s, master_port, master_address, host, hostname.
const std::vector<std::pair<std::string, std::string>>& redacted_keys();

// The string with every absolute path replaced by "[path]/<basename>",
// "127.0.0.1:<port>" / a known port by "[host]:[port]" / "[port]", and the
// value of LD_LIBRARY_PATH= / GRAFT_PLUGIN_PATH= by "[env]".
std::string scrub_string(const std::string& s, const redaction_context& context);

// A copy of j with redacted keys replaced and every string value scrubbed.
nlohmann::json redact(const nlohmann::json& j, const redaction_context& context);

}  // namespace graft::harness
