#include <graft/harness/snapshot.hpp>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <system_error>
#include <thread>

#include <graft/harness/errors.hpp>
#include <graft/harness/bounded_json.hpp>
#include <graft/harness/input_file.hpp>
#include <graft/harness/json_format.hpp>
#include <graft/harness/tolerance.hpp>

namespace graft::harness {

namespace {

int graft_rank_of(const nlohmann::json& event) {
  const auto it = event.find("graft_rank");
  return it != event.end() && it->is_number_integer() ? it->get<int>() : -1;
}

}  // namespace

nlohmann::json make_snapshot(const snapshot_input& input, const redaction_context& context) {
  std::vector<nlohmann::json> events = input.events;
  std::stable_sort(events.begin(), events.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return graft_rank_of(a) < graft_rank_of(b);
  });
  nlohmann::json merged = nlohmann::json::array();
  for (const auto& e : events) merged.push_back(encode_special_floats(redact(e, context)));

  nlohmann::json snapshot = nlohmann::json::object();
  snapshot["schema_version"] = kSnapshotSchemaVersion;
  snapshot["scenario"] = input.scenario;
  snapshot["world"] = {{"baseline", input.baseline_world_size}, {"target", input.target_world_size}};
  if (!input.tolerances.empty()) snapshot["tolerances"] = input.tolerances;
  snapshot["events"] = std::move(merged);
  return snapshot;
}

std::vector<nlohmann::json> read_jsonl(const std::filesystem::path& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  if (!in) return out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::optional<nlohmann::json> parsed = parse_event_line(line);
    if (!parsed) {
      GRAFT_THROW(snapshot_error, path.string() + ":" + std::to_string(number) +
                                      ": not a JSON object; every line of an events file must be one event");
    }
    out.push_back(std::move(*parsed));
  }
  return out;
}

nlohmann::json load_snapshot(const std::filesystem::path& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const unreadable_file& e) {
    GRAFT_THROW(snapshot_error, path.string() + ": " + e.what() + "; pass a snapshot file, e.g. "
                                                                  "reports/snapshots/NAME.json");
  }
  return parse_snapshot(text, path.string());
}

nlohmann::json parse_snapshot(const std::string& text, const std::string& source) {
  nlohmann::json parsed;
  try {
    parsed = parse_bounded_json(text);
  } catch (const unreadable_json& e) {
    GRAFT_THROW(snapshot_error, source + ": " + e.what() + "; fix the file or regenerate it with graft run");
  }
  if (!parsed.is_object() || !parsed.contains("schema_version")) {
    GRAFT_THROW(snapshot_error, source +
                                    ": not a graft snapshot (no top-level \"schema_version\"); "
                                    "pass a file written by graft run");
  }
  const nlohmann::json& version = parsed["schema_version"];
  if (!version.is_number_integer() || version.get<std::int64_t>() != kSnapshotSchemaVersion) {
    GRAFT_THROW(snapshot_error, source + ": schema_version " + version.dump() +
                                    " is not one this graft reads (" + std::to_string(kSnapshotSchemaVersion) +
                                    "); regenerate it with graft run");
  }
  if (!parsed.contains("events") || !parsed["events"].is_array()) {
    GRAFT_THROW(snapshot_error, source + ": no \"events\" array; pass a file written by graft run");
  }
  // A golden's tolerances are checked here, so that every error names the file.
  if (parsed.contains("tolerances")) tolerance_policy::from_json(parsed["tolerances"], source + ": tolerances");
  return parsed;
}

void write_snapshot(const std::filesystem::path& path, const nlohmann::json& snapshot) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  // Unique per process and thread: parallel runs (ctest -j) may write the same file.
  const std::filesystem::path temp = path.string() + "." + std::to_string(::getpid()) + "." +
                                     std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())) +
                                     ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << format_json(snapshot);
    if (!out) GRAFT_THROW(snapshot_error, temp.string() + ": cannot write (is the folder writable?)");
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) GRAFT_THROW(snapshot_error, path.string() + ": cannot write: " + ec.message());
}

}  // namespace graft::harness
