#include <graft/harness/expectations.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <graft/harness/json_format.hpp>
#include <graft/harness/tolerance.hpp>

namespace graft::harness {

namespace {

std::string where(std::size_t step, const std::string& name, graft::role side, int rank) {
  return "steps[" + std::to_string(step) + "] '" + name + "' " + std::string(to_string(side)) + " rank " +
         std::to_string(rank);
}

double as_double(const nlohmann::json& v) {
  double out = 0;
  if (v.is_number()) return v.get<double>();
  if (v.is_string() && decode_special_float(v.get<std::string>(), &out)) return out;
  return std::nan("");
}

std::string text_of(const nlohmann::json& v) {
  std::string text = encode_special_floats(v).dump();
  return text.size() > 120 ? text.substr(0, 117) + "..." : text;
}

// Whether two doubles are the same bits; NaN matches NaN (a value list cannot
// spell a payload), while 0.0 and -0.0 differ.
bool same_bits(double e, double a) {
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
  std::uint64_t eb = 0, ab = 0;
  std::memcpy(&eb, &e, sizeof e);
  std::memcpy(&ab, &a, sizeof a);
  return eb == ab;
}

// Element-wise comparison of flat value lists; an empty string when they agree.
// Values reach the runner exactly (the worker writes round-trip text), so
// exact compares bits.
std::string compare_values(const nlohmann::json& expected, const nlohmann::json& actual, const tolerance& tol,
                           bool exact) {
  if (!expected.is_array() || !actual.is_array() || expected.size() != actual.size()) {
    return "expected values " + text_of(expected) + ", got " + text_of(actual);
  }
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double e = as_double(expected[i]);
    const double a = as_double(actual[i]);
    const bool same = exact ? same_bits(e, a) : tol.allows(e, a);
    if (!same) {
      return "values differ at [" + std::to_string(i) + "]: expected " + format_number(e) + ", got " + format_number(a) +
             " (expected " + text_of(expected) + ", got " + text_of(actual) + ")";
    }
  }
  return "";
}

// Whether a tensor kept its bytes: dtype, shape and every element's bits
// (a zero's sign, a NaN's payload, a change below any printed precision).
// Empty when it did; else the first element that changed, in both forms.
std::string compare_bytes(const nlohmann::json& initial, const nlohmann::json& final_value) {
  if (initial.value("dtype", "") != final_value.value("dtype", "") ||
      initial.value("shape", nlohmann::json()) != final_value.value("shape", nlohmann::json())) {
    return "it was " + initial.value("dtype", "") + " " + text_of(initial.value("shape", nlohmann::json())) +
           ", now " + final_value.value("dtype", "") + " " + text_of(final_value.value("shape", nlohmann::json()));
  }
  if (!initial.contains("bytes") || !final_value.contains("bytes")) {
    // Values alone (a result written by hand): their bits, at least.
    return compare_values(initial["values"], final_value["values"], tolerance{}, true);
  }
  const std::string before = initial.value("bytes", "");
  const std::string after = final_value.value("bytes", "");
  if (before == after) return "";
  const std::size_t hex_per_element = 2 * std::max<std::size_t>(1, final_value.value("element_size", 1));
  std::size_t i = 0;
  while (i < before.size() && i < after.size() && before[i] == after[i]) ++i;
  const std::size_t element = i / hex_per_element;
  const nlohmann::json& values = initial["values"];
  const nlohmann::json& now = final_value["values"];
  return "element [" + std::to_string(element) + "] changed from bytes " +
         before.substr(element * hex_per_element, hex_per_element) + " (" +
         (element < values.size() ? text_of(values[element]) : "?") + ") to " +
         after.substr(element * hex_per_element, hex_per_element) + " (" +
         (element < now.size() ? text_of(now[element]) : "?") + ")";
}

// The event that says what became of a call. group_init is left out: the
// group is created lazily inside whichever call matches first.
const nlohmann::json* last_event(const nlohmann::json& events) {
  if (!events.is_array()) return nullptr;
  for (auto it = events.rbegin(); it != events.rend(); ++it) {
    if (it->value("kind", "") != "group_init") return &*it;
  }
  return nullptr;
}

// Checks outcome / error_kind / message_contains against a list of events.
void check_events(const expectation& e, const nlohmann::json& events, const std::string& at,
                  std::vector<std::string>& failures) {
  const std::string outcome = outcome_of(events);
  if (e.outcome && *e.outcome != outcome) {
    const nlohmann::json* last = last_event(events);
    failures.push_back(at + ": expected outcome " + *e.outcome + ", got " + outcome +
                       (last != nullptr && last->contains("message") ? " (" + last->value("message", "") + ")" : ""));
  }
  const nlohmann::json* last = last_event(events);
  if (e.error_kind) {
    const std::string got = last != nullptr ? last->value("error_kind", "(none)") : "(no event)";
    if (got != *e.error_kind) failures.push_back(at + ": expected error_kind " + *e.error_kind + ", got " + got);
  }
  for (const auto& piece : e.message_contains) {
    const std::string message = last != nullptr ? last->value("message", "") : "";
    if (message.find(piece) == std::string::npos) {
      failures.push_back(at + ": expected the message to contain \"" + piece + "\", got \"" + message + "\"");
    }
  }
}

void check_step_values(std::size_t step, const expectation& e, const nlohmann::json& mine,
                       const worker_results& results, graft::role side, int rank, const std::string& at,
                       std::vector<std::string>& failures) {
  const nlohmann::json& final_value = mine.value("final", nlohmann::json());
  if (!final_value.is_object()) {
    if (e.dtype || !e.values.is_null() || e.relation || e.unchanged) {
      failures.push_back(at + ": expected a tensor value to check, but the rank had none");
    }
    return;
  }
  const std::string dtype = final_value.value("dtype", "");
  tolerance tol = default_tolerance(dtype);
  if (e.rtol) tol.rtol = *e.rtol;
  if (e.atol) tol.atol = *e.atol;
  if (e.dtype && *e.dtype != dtype) failures.push_back(at + ": expected dtype " + *e.dtype + ", got " + dtype);
  if (!e.values.is_null()) {
    const std::string problem = compare_values(e.values, final_value["values"], tol, e.exact);
    if (!problem.empty()) failures.push_back(at + ": " + problem);
  }
  if (e.unchanged) {
    const nlohmann::json& initial = mine.value("initial", nlohmann::json());
    const std::string problem = initial.is_object() ? compare_bytes(initial, final_value)
                                                    : compare_values(nlohmann::json(), final_value["values"], tol, true);
    if (!problem.empty()) failures.push_back(at + ": expected the tensor unchanged; " + problem);
  }
  if (e.relation) {
    const int other_rank = e.relation->rank.value_or(rank);
    const auto other = results.find({e.relation->side, other_rank});
    const std::string other_name = std::string(to_string(e.relation->side)) + " rank " + std::to_string(other_rank);
    if (other == results.end()) {
      failures.push_back(at + ": cannot compare with " + other_name + ": it reported no result");
      return;
    }
    const nlohmann::json& steps = other->second.value("steps", nlohmann::json::array());
    const nlohmann::json initial = step < steps.size() ? steps[step].value("initial", nlohmann::json()) : nlohmann::json();
    if (!initial.is_object()) {
      failures.push_back(at + ": cannot compare with " + other_name + ": it had no tensor at this step");
      return;
    }
    nlohmann::json expected = nlohmann::json::array();
    for (const auto& v : initial["values"]) expected.push_back(as_double(v) * e.relation->scale + e.relation->offset);
    const std::string problem = compare_values(expected, final_value["values"], tol, false);
    if (!problem.empty()) {
      failures.push_back(at + ": expected " + format_float(e.relation->scale) + " x " + other_name + " + " +
                         format_float(e.relation->offset) + "; " + problem);
    }
  }
}

}  // namespace

std::string outcome_of(const nlohmann::json& events) {
  const nlohmann::json* last = last_event(events);
  if (last == nullptr) return "none";
  const std::string kind = last->value("kind", "");
  if (kind == "send") return "sent";
  if (kind == "recv_grafted") return "grafted";
  if (kind == "recv_skipped") return "skipped";
  return kind;
}

namespace {

// The grafter's construction: as declared by expect_setup, or quiet.
void check_setup(const std::optional<expectation>& setup, const nlohmann::json& result, const std::string& who,
                 std::vector<std::string>& failures) {
  const nlohmann::json& setup_events = result["setup"].value("events", nlohmann::json::array());
  if (setup) {
    check_events(*setup, setup_events, "setup " + who, failures);
  } else if (const std::string outcome = outcome_of(setup_events); outcome != "none") {
    // Said first: a grafter that did not start explains every step below.
    const nlohmann::json* last = last_event(setup_events);
    failures.push_back("setup " + who + ": unexpected " + outcome +
                       "; fix the scenario's grafter settings, or declare it with expect_setup: " +
                       last->value("message", ""));
  }
}

}  // namespace

std::vector<std::string> check_expectations(const scenario& s, const worker_results& results, bool events) {
  std::vector<std::string> failures;
  for (graft::role side : {graft::role::baseline, graft::role::target}) {
    if (s.is_absent(side)) continue;
    for (int rank = 0; rank < s.world_size(side); ++rank) {
      const std::string who = std::string(to_string(side)) + " rank " + std::to_string(rank);
      const auto found = results.find({side, rank});
      if (found == results.end()) {
        failures.push_back(who + ": the worker reported no result");
        continue;
      }
      const nlohmann::json& result = found->second;
      if (result.contains("error") && !result["error"].is_null()) {
        failures.push_back(who + ": the worker failed: " + result["error"].get<std::string>());
        continue;
      }
      if (events) check_setup(s.expect_setup(side), result, who, failures);
      const nlohmann::json& steps = result.value("steps", nlohmann::json::array());
      for (std::size_t i = 0; i < s.steps.size(); ++i) {
        const rank_call& call = s.steps[i].calls(side)[static_cast<std::size_t>(rank)];
        if (i < steps.size() && steps[i].contains("raised")) {
          // The rank's last step: what follows was never called.
          failures.push_back(where(i, call.name, side, rank) +
                             ": the grafter raised into the host program: " +
                             (steps[i]["raised"].is_string() ? steps[i]["raised"].get<std::string>()
                                                             : steps[i]["raised"].dump()));
          break;
        }
        if (!call.expect || !call.runs) continue;
        const std::string at = where(i, call.name, side, rank);
        if (i >= steps.size()) {
          failures.push_back(at + ": the worker reported no result for this step");
          continue;
        }
        if (events) check_events(*call.expect, steps[i].value("events", nlohmann::json::array()), at, failures);
        check_step_values(i, *call.expect, steps[i], results, side, rank, at, failures);
      }
    }
  }
  return failures;
}

}  // namespace graft::harness
