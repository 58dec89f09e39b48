#pragma once
// Log snapshots: every rank's events of one scenario run, merged in a stable
// order (graft rank, then each rank's own order), redacted and stamped with
// schema_version, so that two runs of the same behaviour give the same file.
//
// Shape (schema_version 1):
//   { "schema_version": 1, "scenario": NAME,
//     "world": {"baseline": B, "target": T},
//     "tolerances": {GLOB: {"rtol": R, "atol": A}, ...},   // optional, see tolerance.hpp
//     "events": [ {event}, ... ] }
//
// I/O failures throw graft::snapshot_error naming the path.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/harness/redact.hpp>

namespace graft::harness {

inline constexpr int kSnapshotSchemaVersion = 1;

struct snapshot_input {
  std::string scenario;
  int baseline_world_size = 0;
  int target_world_size = 0;
  nlohmann::json tolerances = nlohmann::json::object();
  std::vector<nlohmann::json> events;  // any order across ranks; each rank's own order kept
};

// Merges (stable by "graft_rank"), redacts and encodes special floats.
nlohmann::json make_snapshot(const snapshot_input& input, const redaction_context& context);

// The events of a JSON-lines file, in file order. A missing file has none
// (a rank that never logged). A line that is not a JSON object throws
// snapshot_error naming path:line.
std::vector<nlohmann::json> read_jsonl(const std::filesystem::path& path);

// Reads a snapshot; throws snapshot_error for an unreadable file, invalid JSON
// or a document without schema_version, naming the path.
nlohmann::json load_snapshot(const std::filesystem::path& path);

// load_snapshot after the read: the snapshot in text, checked the same way;
// source (the file's path) starts every snapshot_error message.
nlohmann::json parse_snapshot(const std::string& text, const std::string& source);

// Writes format_json(snapshot) atomically (temp file + rename), creating the
// folder; throws snapshot_error naming the path.
void write_snapshot(const std::filesystem::path& path, const nlohmann::json& snapshot);

}  // namespace graft::harness
