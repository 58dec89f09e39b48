#include <graft/event.hpp>

#include <string>

namespace graft {

nlohmann::json event::to_json() const {
  nlohmann::json out = fields;
  out["schema_version"] = kEventSchemaVersion;
  out["kind"] = kind;
  out["time"] = time;
  out["pid"] = pid;
  out["role"] = side;
  out["graft_rank"] = graft_rank;
  out["local_rank"] = local_rank;
  return out;
}

namespace {

// Compact text for one field value: strings bare, everything else as JSON.
std::string field_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// The fields a reader wants first, in this order; the rest follow sorted.
constexpr const char* kLeadingFields[] = {"direction", "name", "tags", "error_kind", "message"};

}  // namespace

std::string event::to_display_line() const {
  std::string line = "[graft role=" + side + " rank=" + std::to_string(local_rank) +
                     " graft_rank=" + std::to_string(graft_rank) + "] " + kind;
  for (const char* key : kLeadingFields) {
    if (fields.contains(key)) line += std::string(" ") + key + "=" + field_text(fields[key]);
  }
  for (const auto& [key, value] : fields.items()) {
    bool leading = false;
    for (const char* k : kLeadingFields) leading = leading || key == k;
    if (!leading) line += " " + key + "=" + field_text(value);
  }
  return line;
}

}  // namespace graft
