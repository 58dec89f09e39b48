// Snapshots (graft/harness/snapshot.hpp) on arbitrary bytes, the way
// load_snapshot reads a file: parse_snapshot. The only error allowed out is
// snapshot_error, naming the source, with a message graft diff --json can
// write. A snapshot that loads is then compared the way graft diff does it:
// with itself (no difference), with a golden and with its own events
// reversed (every difference written out as graft diff and graft diff --json
// write it), and written back (format_json), which must load again.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/harness/errors.hpp>
#include <graft/harness/json_format.hpp>
#include <graft/harness/snapshot.hpp>
#include <graft/harness/snapshot_diff.hpp>

#include "fuzz_checks.hpp"

namespace {

namespace h = graft::harness;
using graft::fuzz::finding;

constexpr const char* kSource = "fuzz.json";

// A small golden in the shape graft run writes: events with tensors, metrics
// and messages, a tag that is not ASCII, and a tolerance override.
constexpr const char* kGolden = R"json({
  "schema_version": 1, "scenario": "fuzz_golden", "world": {"baseline": 1, "target": 1},
  "tolerances": {"events[*].metrics.rel_diff": {"rtol": 0, "atol": 1e-4}},
  "events": [
    {"kind": "group_init", "graft_rank": 0, "role": "baseline", "backend": "gloo", "schema_version": 1,
     "time": "[time]", "pid": "[pid]"},
    {"kind": "send", "graft_rank": 0, "role": "baseline", "direction": "b2t", "extras": null,
     "tags": {"name": "attn_output", "layer_id": 3, "note": "préfill · déjà vu"},
     "tensor": {"dtype": "bfloat16", "shape": [2, 3], "min": -1.5, "max": "Inf", "mean": "NaN", "numel": 6}},
    {"kind": "desync", "graft_rank": 1, "role": "target", "sequence": 1,
     "message": "desync: the ranks reached different dump calls. Graft rank 0 reached call #1 'x'"},
    {"kind": "recv_grafted", "graft_rank": 1, "role": "target", "transform": "identity_by_rank",
     "metrics": {"cosine": 0.989949494, "rel_diff": 0.0666666667, "max_abs": 2.0, "sqnr_db": -0.0, "numel": 2},
     "sender_ranks": [0], "sender_extras": [null]}
  ]
})json";

const nlohmann::json& golden() {
  static const nlohmann::json parsed = h::parse_snapshot(kGolden, "golden.json");
  return parsed;
}

void check_message(const std::string& message) {
  if (message.rfind(std::string(kSource) + ": ", 0) != 0) {
    finding("snapshot_error does not name the source", message);
  }
  if (!graft::fuzz::is_utf8(message)) finding("snapshot_error message is not UTF-8 (graft diff --json fails)", message);
}

// What graft diff prints and graft diff --json writes for these differences.
void write_out(const std::vector<h::difference>& diffs) {
  for (const h::difference& d : diffs) {
    for (const std::string* field : {&d.path, &d.expected, &d.actual, &d.detail}) {
      if (!graft::fuzz::is_utf8(*field)) finding("a difference is not UTF-8 (graft diff --json fails)", *field);
    }
  }
  h::file_diff result;
  result.exit_code = diffs.empty() ? 0 : 1;
  result.differences = diffs;
  result.report = h::format_differences(diffs);
  (void)h::to_json(result, "expected.json", "actual.json").dump(2);
}

void compare(const nlohmann::json& snapshot) {
  const std::vector<h::difference> self = h::diff_snapshots(snapshot, snapshot);
  if (!self.empty()) finding("a snapshot differs from itself", h::format_differences(self));

  write_out(h::diff_snapshots(golden(), snapshot));
  write_out(h::diff_snapshots(snapshot, golden()));

  nlohmann::json reversed = snapshot;
  std::reverse(reversed["events"].begin(), reversed["events"].end());
  write_out(h::diff_snapshots(snapshot, reversed));

  // graft update writes what it read; the written text must read back.
  const std::string written = h::format_json(snapshot);
  try {
    (void)h::parse_snapshot(written, "written.json");
  } catch (const graft::snapshot_error& e) {
    finding("a snapshot written back with format_json does not load", std::string(e.what()) + "\n" + written);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)golden();  // parsed once, outside any input's try
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json snapshot;
  try {
    snapshot = h::parse_snapshot(text, kSource);
  } catch (const graft::snapshot_error& e) {
    check_message(e.what());
    return 0;
  } catch (const std::exception& e) {
    graft::fuzz::unexpected_exception(e);
  }
  const bool is_snapshot = snapshot.is_object() &&
                           snapshot.value("schema_version", nlohmann::json()) == h::kSnapshotSchemaVersion &&
                           snapshot.contains("events") && snapshot["events"].is_array();
  if (!is_snapshot) {
    finding("parse_snapshot returned a document that is not a snapshot",
            snapshot.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  try {
    compare(snapshot);
  } catch (const std::exception& e) {
    graft::fuzz::unexpected_exception(e);
  }
  return 0;
}
