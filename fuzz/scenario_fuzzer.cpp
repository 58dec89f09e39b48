// Scenario fixtures (graft/harness/scenario.hpp) on arbitrary bytes, the way
// load_scenario reads a file: parse_bounded_json, then parse_scenario. The
// only errors allowed out are unreadable_json from the parse (read_fixture_json
// turns it into a fixture_error) and fixture_error from the loader, each with
// a message that graft list --json can write (it dumps them as JSON strings).
// A scenario that loads must be one the worker can play without indexing out
// of range: a call and a device per rank of each side, tensors within bounds.

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/harness/errors.hpp>
#include <graft/harness/bounded_json.hpp>
#include <graft/harness/scenario.hpp>

#include "fuzz_checks.hpp"

namespace {

namespace h = graft::harness;
using graft::fuzz::finding;

constexpr const char* kSource = "fuzz.json";

// What a CLI does with a message: print it, and with --json write it as a
// JSON string (strict dump: invalid UTF-8 throws type_error 316).
void check_message(const std::string& message, const char* kind) {
  if (message.empty()) finding(std::string(kind) + " with an empty message", "");
  if (!graft::fuzz::is_utf8(message)) {
    finding(std::string(kind) + " message is not UTF-8 (graft list --json fails)", message);
  }
  (void)nlohmann::json{{"problems", {message}}}.dump(2);
}

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (const auto d : shape) {
    if (d < 0 || d > h::kMaxScenarioTensorElements) finding("a loaded tensor has a dimension out of bounds", "");
    n *= d;
    if (n > h::kMaxScenarioTensorElements) finding("a loaded tensor has more elements than a scenario's limit", "");
  }
  return n;
}

void check_call(const h::rank_call& call, const h::scenario& s, const std::string& at,
                const std::set<std::string>& defined) {
  if (call.runs && call.tensor.has_value() == call.non_tensor.has_value()) {
    finding("a loaded call that runs has not exactly one of tensor and non_tensor", at);
  }
  if (call.tensor) {
    const h::tensor_spec& t = *call.tensor;
    if (t.kind == h::tensor_spec::source::from) {
      if (defined.count(t.from) == 0) {
        finding("a loaded tensor reads a variable no earlier step sets", at + " " + t.from);
      }
    } else {
      const std::int64_t n = element_count(t.shape);
      const bool values_fit = t.values.is_array() && t.values.size() == static_cast<std::size_t>(n);
      if (t.kind == h::tensor_spec::source::values && !values_fit) {
        finding("a loaded tensor's values disagree with its shape", at);
      }
    }
    if (t.layout != "strided" && t.layout != "sparse") {
      finding("a loaded tensor has an unknown layout", at + " " + t.layout);
    }
  }
  if (call.expect && call.expect->relation) {
    const h::value_relation& r = *call.expect->relation;
    if (r.rank && (*r.rank < 0 || *r.rank >= s.world_size(r.side))) {
      finding("a loaded relation names a missing rank", at);
    }
  }
}

// The invariants play_rank relies on when it indexes by rank.
void check_scenario(const h::scenario& s) {
  for (const graft::role side : {graft::role::baseline, graft::role::target}) {
    const int n = s.world_size(side);
    if (n < 1 || n > h::kMaxScenarioWorldSize) finding("a loaded world size is out of bounds", std::to_string(n));
    if (s.devices(side).size() != static_cast<std::size_t>(n)) {
      finding("a loaded side has not one device per rank", "");
    }
  }
  if (!(s.timeout_s > 0 && s.timeout_s <= h::kMaxScenarioTimeoutSeconds)) {
    finding("a loaded timeout is out of bounds", std::to_string(s.timeout_s));
  }
  if (s.steps.empty()) finding("a scenario loaded without steps", "");
  if (s.absent.size() > 1) finding("a scenario loaded with both sides absent", "");
  if (!s.grafter.is_object()) finding("a loaded grafter config is not an object", s.grafter.dump());
  std::set<std::string> defined;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const h::scenario_step& step = s.steps[i];
    if (!step.tags.is_object()) finding("a loaded step's tags are not an object", step.tags.dump());
    for (const graft::role side : {graft::role::baseline, graft::role::target}) {
      const auto& calls = step.calls(side);
      if (calls.size() != static_cast<std::size_t>(s.world_size(side))) {
        finding("a loaded step has not one call per rank", "steps[" + std::to_string(i) + "]");
      }
      for (std::size_t r = 0; r < calls.size(); ++r) {
        check_call(calls[r], s, "steps[" + std::to_string(i) + "]." + std::string(to_string(side)) + "[" +
                                    std::to_string(r) + "]", defined);
      }
    }
    defined.insert(step.var);
  }
  (void)s.cuda_ranks();
  (void)s.backend();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json document;
  try {
    document = h::parse_bounded_json(text);
  } catch (const h::unreadable_json& e) {
    check_message(e.what(), "unreadable_json");
    return 0;
  } catch (const std::exception& e) {
    graft::fuzz::unexpected_exception(e);
  }
  try {
    const h::scenario s = h::parse_scenario(document, kSource);
    check_scenario(s);
  } catch (const graft::fixture_error& e) {
    const std::string message = e.what();
    if (message.rfind(std::string(kSource) + ": ", 0) != 0) {
      finding("fixture_error does not name the source", message);
    }
    check_message(message, "fixture_error");
  } catch (const std::exception& e) {
    graft::fuzz::unexpected_exception(e);
  }
  return 0;
}
