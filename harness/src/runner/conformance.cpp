#include <graft/harness/conformance.hpp>

#include <graft/version.hpp>

namespace graft::harness {

namespace {

constexpr std::size_t kCellReasonChars = 90;

bool is_failure(scenario_result::status s) {
  return s == scenario_result::status::fail || s == scenario_result::status::error ||
         s == scenario_result::status::hang;
}

// Text on one line, without the pipes that would split a table cell.
std::string one_line(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += " / ";
    else out += c == '|' ? '/' : c;
  }
  return out;
}

// A table cell's reason: the first line, shortened.
std::string cell_text(const std::string& text) {
  std::string line = one_line(text.substr(0, text.find('\n')));
  if (line.size() > kCellReasonChars) line = line.substr(0, kCellReasonChars - 3) + "...";
  return line;
}

std::string cell(grafter_kind kind, const scenario_result& r) {
  const std::string word(to_string(r.outcome));
  const std::string reason = r.problems.empty() ? r.note : r.problems.front();
  if (r.outcome == scenario_result::status::pass) {
    // The header says what a pass without events checks.
    return r.note.empty() || !emits_graft_events(kind) ? "pass" : "pass (" + cell_text(r.note) + ")";
  }
  return reason.empty() ? word : word + ": " + cell_text(reason);
}

}  // namespace

std::string conformance_markdown(const std::vector<std::string>& scenarios,
                                 const std::vector<conformance_column>& columns) {
  std::string out = "Every scenario played by each grafter in real processes (graft " + std::string(version()) +
                    "). pass: every expectation held (for sglang, which emits no graft events: values and bytes); "
                    "FAIL: what differed; HANG: still running at the scenario's timeout, killed; N/A: why it "
                    "cannot take part.\n\n| scenario |";
  for (const auto& c : columns) out += " " + std::string(display_name(c.kind)) + " |";
  out += "\n|---|";
  for (std::size_t i = 0; i < columns.size(); ++i) out += "---|";
  out += "\n";
  for (std::size_t row = 0; row < scenarios.size(); ++row) {
    out += "| " + scenarios[row] + " |";
    for (const auto& c : columns) out += " " + (row < c.results.size() ? cell(c.kind, c.results[row]) : "?") + " |";
    out += "\n";
  }
  std::string details;
  for (const auto& c : columns) {
    for (const auto& r : c.results) {
      if (!is_failure(r.outcome)) continue;
      details += "\n### " + r.name + ", " + std::string(display_name(c.kind)) + ": " +
                 std::string(to_string(r.outcome)) + "\n\n";
      for (const auto& problem : r.problems) details += "- " + one_line(problem) + "\n";
    }
  }
  if (!details.empty()) out += "\n## What differed\n" + details;
  return out;
}

nlohmann::json conformance_json(const std::vector<std::string>& scenarios,
                                const std::vector<conformance_column>& columns) {
  nlohmann::json doc = {{"schema_version", 1}, {"graft_version", version()}, {"grafters", nlohmann::json::array()},
                        {"scenarios", nlohmann::json::array()}};
  for (const auto& c : columns) doc["grafters"].push_back(std::string(to_string(c.kind)));
  for (std::size_t row = 0; row < scenarios.size(); ++row) {
    nlohmann::json cells = nlohmann::json::object();
    for (const auto& c : columns) {
      if (row >= c.results.size()) continue;
      const scenario_result& r = c.results[row];
      cells[std::string(to_string(c.kind))] = {{"result", result_name(r.outcome)},
                                               {"problems", r.problems},
                                               {"note", r.note},
                                               {"seconds", r.seconds}};
    }
    doc["scenarios"].push_back({{"name", scenarios[row]}, {"cells", std::move(cells)}});
  }
  return doc;
}

int conformance_exit_code(const std::vector<conformance_column>& columns) {
  for (const auto& c : columns) {
    if (c.kind == grafter_kind::sglang) continue;
    for (const auto& r : c.results) {
      if (is_failure(r.outcome)) return 1;
    }
  }
  return 0;
}

}  // namespace graft::harness
