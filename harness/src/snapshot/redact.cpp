#include <graft/harness/redact.hpp>

#include <cctype>

namespace graft::harness {

namespace {

// A path starts after one of these (or at the start of the string).
bool opens_path(char previous) {
  return std::isspace(static_cast<unsigned char>(previous)) || previous == '\'' || previous == '"' ||
         previous == '(' || previous == '[' || previous == '=' || previous == ',' || previous == '`';
}

// And ends before one of these. ':' ends it because specs read LIBRARY:SYMBOL
// and dlerror() text reads "PATH: cannot open".
bool closes_path(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == '\'' || c == '"' || c == ')' || c == ']' ||
         c == ',' || c == ';' || c == ':' || c == '`';
}

std::string scrub_paths(const std::string& s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    const bool at_path = s[i] == '/' && (i == 0 || opens_path(s[i - 1])) && i + 1 < s.size() &&
                         !closes_path(s[i + 1]) && s[i + 1] != '/';
    if (!at_path) {
      out += s[i++];
      continue;
    }
    std::size_t end = i;
    while (end < s.size() && !closes_path(s[end])) ++end;
    // A sentence's full stop is not part of the path.
    std::size_t path_end = end;
    while (path_end > i + 1 && s[path_end - 1] == '.') --path_end;
    const std::string path = s.substr(i, path_end - i);
    const std::size_t slash = path.find_last_of('/');
    out += "[path]/" + path.substr(slash + 1);
    out += s.substr(path_end, end - path_end);
    i = end;
  }
  return out;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

// Replaces the port's digits where they stand alone (not inside a longer number).
void replace_port(std::string& s, int port) {
  const std::string digits = std::to_string(port);
  std::size_t at = s.find(digits);
  while (at != std::string::npos) {
    const bool left_ok = at == 0 || !std::isdigit(static_cast<unsigned char>(s[at - 1]));
    const std::size_t after = at + digits.size();
    const bool right_ok = after >= s.size() || !std::isdigit(static_cast<unsigned char>(s[after]));
    if (left_ok && right_ok) {
      s.replace(at, digits.size(), "[port]");
      at = s.find(digits, at + 6);
    } else {
      at = s.find(digits, at + 1);
    }
  }
}

// Environment variables whose values messages may quote ("LD_LIBRARY_PATH=/a:/b"):
// they belong to the machine, not to the behaviour under test.
constexpr const char* kEnvironmentNames[] = {"LD_LIBRARY_PATH", "GRAFT_PLUGIN_PATH"};

void scrub_environment(std::string& s) {
  for (const char* name : kEnvironmentNames) {
    const std::string prefix = std::string(name) + "=";
    for (std::size_t at = s.find(prefix); at != std::string::npos; at = s.find(prefix, at + prefix.size())) {
      const std::size_t value = at + prefix.size();
      const std::size_t end = s.find_first_of(",; )'\"", value);
      s.replace(value, (end == std::string::npos ? s.size() : end) - value, "[env]");
    }
  }
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& redacted_keys() {
  static const std::vector<std::pair<std::string, std::string>> keys = {
      {"time", "[time]"},           {"pid", "[pid]"},   {"duration_s", "[duration]"},
      {"master_port", "[port]"},    {"master_address", "[host]"},
      {"host", "[host]"},           {"hostname", "[host]"},     {"graft_version", "[version]"},
  };
  return keys;
}

std::string scrub_string(const std::string& s, const redaction_context& context) {
  std::string env_scrubbed = s;
  scrub_environment(env_scrubbed);
  std::string out = scrub_paths(env_scrubbed);
  for (int port : context.ports) {
    replace_all(out, "127.0.0.1:" + std::to_string(port), "[host]:[port]");
    replace_all(out, "localhost:" + std::to_string(port), "[host]:[port]");
    replace_port(out, port);
  }
  return out;
}

nlohmann::json redact(const nlohmann::json& j, const redaction_context& context) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : j.items()) {
      bool redacted = false;
      for (const auto& [name, placeholder] : redacted_keys()) {
        if (key == name && !value.is_null()) {
          out[key] = placeholder;
          redacted = true;
          break;
        }
      }
      if (!redacted) out[key] = redact(value, context);
    }
    return out;
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : j) out.push_back(redact(item, context));
    return out;
  }
  if (j.is_string()) return scrub_string(j.get<std::string>(), context);
  return j;
}

}  // namespace graft::harness
