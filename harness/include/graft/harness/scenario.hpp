#pragma once
// Scenarios: the JSON fixtures the harness runs (format: fixtures/README.md).
// A scenario names the world sizes, the grafter config, a program of dump calls
// with deterministic tensors, and what each rank must see. Loading validates
// the whole file and reports every problem, each with its JSON path, in one
// graft::fixture_error.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/role.hpp>

namespace graft::harness {

inline constexpr int kScenarioSchemaVersion = 1;

// Bounds on a scenario's numbers, so that a typo fails when the file loads
// instead of as a wrapped int, an overflowed deadline or a huge allocation.
// Scenarios check correctness, not capacity.
inline constexpr int kMaxScenarioWorldSize = 256;                            // processes per side
inline constexpr double kMaxScenarioTimeoutSeconds = 24 * 3600.0;            // timeout_s, grafter.timeout
inline constexpr std::int64_t kMaxScenarioTensorElements = std::int64_t{1} << 28;  // per tensor (1 GiB of float32)

// The dtypes a scenario may name.
const std::vector<std::string>& scenario_dtypes();

// The devices a rank may make its tensors on: "cpu", or "cuda" (the worker
// picks cuda:(graft rank % device count), so that on a host with enough
// devices every rank has its own, as NCCL requires).
const std::vector<std::string>& scenario_devices();

// How a tensor's values are made; each is deterministic.
struct tensor_spec {
  enum class source { values, fill, arange, random, from };
  source kind = source::fill;
  std::optional<std::string> dtype;  // default float32; for `from`, the variable's dtype
  std::vector<std::int64_t> shape;   // for `from`, the variable's shape
  nlohmann::json values;             // source::values: flat array of numbers / "NaN" / "Inf" / "-Inf"
  double fill = 0;
  double start = 0, step = 1;        // source::arange
  std::uint64_t seed = 0;            // source::random
  std::string distribution = "normal";  // normal | uniform
  std::string from;                  // source::from: an earlier step's variable on this rank
  double scale = 1, offset = 0;      // source::from: value = variable * scale + offset
  // strided | sparse: the values as a sparse COO tensor (to_sparse()), which
  // a graft refuses to send or to write
  std::string layout = "strided";
};

// The final value of a tensor relative to another rank's value at the same step
// (as it was when the call started): scale * that + offset.
struct value_relation {
  graft::role side = graft::role::baseline;
  std::optional<int> rank;  // default: this rank's local rank
  double scale = 1;
  double offset = 0;
};

struct expectation {
  // sent | send_skipped | grafted | skipped | none | non_tensor | desync |
  // group_error | filter_conflict; for expect_setup: transform_load |
  // config_error | none
  std::optional<std::string> outcome;
  std::optional<std::string> error_kind;
  std::vector<std::string> message_contains;
  nlohmann::json values;                 // the final values (flat), or null
  bool exact = false;                    // values compared bit for bit ("-0.0" is not 0)
  std::optional<value_relation> relation;
  bool unchanged = false;                // final == initial, byte for byte
  std::optional<std::string> dtype;      // the final dtype
  std::optional<double> rtol, atol;      // for values / relation; default: the final dtype's
};

// What one rank does at one step.
struct rank_call {
  bool runs = true;                      // false: this rank never makes this call
  std::string name;                      // the dump name (the step's, unless overridden)
  std::optional<tensor_spec> tensor;
  std::optional<std::string> non_tensor; // the value is not a tensor: its type name
  nlohmann::json extras = nullptr;
  std::optional<expectation> expect;
};

struct scenario_step {
  std::string name;
  nlohmann::json tags = nlohmann::json::object();  // besides "name"
  std::string var;                                 // the variable the tensor is stored in
  std::vector<rank_call> baseline, target;         // one per local rank

  const std::vector<rank_call>& calls(graft::role r) const { return r == graft::role::baseline ? baseline : target; }
};

struct scenario {
  int schema_version = kScenarioSchemaVersion;
  std::string name;
  std::string description;
  int baseline_world_size = 1;
  int target_world_size = 1;
  double timeout_s = 60;                 // the whole run, all processes
  nlohmann::json grafter = nlohmann::json::object();  // graft_config JSON, less what the runner sets
  nlohmann::json tolerances = nlohmann::json::object();
  std::vector<graft::role> absent;       // sides whose processes are never started
  std::vector<scenario_step> steps;
  std::optional<expectation> expect_setup_baseline, expect_setup_target;
  // One per rank of each side: where that rank makes its tensors.
  std::vector<std::string> baseline_devices, target_devices;
  // false: the expectations are the whole check; no golden snapshot is read
  // or wanted (the snapshot is still written under reports/).
  bool golden = true;
  std::filesystem::path path;            // the file it came from

  int world_size(graft::role r) const { return r == graft::role::baseline ? baseline_world_size : target_world_size; }
  bool is_absent(graft::role r) const;
  const std::vector<std::string>& devices(graft::role r) const {
    return r == graft::role::baseline ? baseline_devices : target_devices;
  }
  // Ranks that make CUDA tensors, among the sides that run.
  int cuda_ranks() const;
  // The grafter's backend: "gloo" unless the scenario sets it.
  std::string backend() const;
  const std::optional<expectation>& expect_setup(graft::role r) const {
    return r == graft::role::baseline ? expect_setup_baseline : expect_setup_target;
  }
};

// Parses and validates; `source` names the document in messages. Throws
// fixture_error listing every problem as "PATH: what is wrong".
scenario parse_scenario(const nlohmann::json& document, const std::string& source);

// The JSON document of a fixture file; fixture_error naming the file when it
// cannot be read or parsed (parse_bounded_json), pointing to format_doc.
nlohmann::json read_fixture_json(const std::filesystem::path& path, const std::string& format_doc);

// Reads, parses and validates a file; also checks that the scenario's name is
// the file's stem (the snapshot and the CTest test are named after it).
scenario load_scenario(const std::filesystem::path& path);

// The *.json files of a folder, sorted by name; fixture_error when the folder
// cannot be read (missing, not a folder).
std::vector<std::filesystem::path> scenario_files(const std::filesystem::path& folder);

}  // namespace graft::harness
