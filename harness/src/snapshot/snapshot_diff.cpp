#include <graft/harness/snapshot_diff.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <utility>

#include <graft/harness/json_format.hpp>
#include <graft/harness/text_format.hpp>

namespace graft::harness {

namespace {

constexpr std::size_t kShortValueWidth = 80;
constexpr const char* kMissing = "(missing)";

// Where text may be cut without splitting a UTF-8 sequence: the differences
// go into JSON (graft diff --json), whose writer throws on a split one.
std::size_t character_boundary(const std::string& text, std::size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

std::string short_text(const nlohmann::json& j) {
  // An event is known by its kind and rank; say so before the truncated body.
  std::string prefix;
  if (j.is_object() && j.contains("kind") && j["kind"].is_string()) {
    prefix = "event " + j["kind"].get<std::string>();
    if (j.contains("graft_rank")) prefix += " (graft_rank " + j["graft_rank"].dump() + ")";
    prefix += " ";
  }
  std::string text = j.is_number_float() ? format_number(j.get<double>()) : encode_special_floats(j).dump();
  if (text.size() > kShortValueWidth) text = text.substr(0, character_boundary(text, kShortValueWidth - 3)) + "...";
  return prefix + text;
}

// Two strings that differ, each shown around their first differing character
// (a long message that changes near its end would otherwise show two equal
// truncated prefixes).
std::pair<std::string, std::string> differing_excerpts(const std::string& e, const std::string& a,
                                                       std::size_t* at) {
  std::size_t i = 0;
  while (i < e.size() && i < a.size() && e[i] == a[i]) ++i;
  *at = i;
  constexpr std::size_t kContext = 30;
  const std::size_t from = i > kContext ? i - kContext : 0;
  const auto excerpt = [&](const std::string& text) {
    const std::size_t begin = character_boundary(text, from);
    const std::size_t end = character_boundary(text, std::min(text.size(), from + 2 * kContext));
    std::string out = nlohmann::json(text.substr(begin, end - begin)).dump();
    if (begin > 0) out = "..." + out;
    if (end < text.size()) out += "...";
    return out;
  };
  return {excerpt(e), excerpt(a)};
}

bool plain_key(const std::string& key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

std::string child_path(const std::string& parent, const std::string& key) {
  const std::string step = plain_key(key) ? key : "[" + nlohmann::json(key).dump() + "]";
  if (parent.empty()) return step;
  return plain_key(key) ? parent + "." + step : parent + step;
}

std::string index_path(const std::string& parent, std::size_t i) { return parent + "[" + std::to_string(i) + "]"; }

std::string shown(const std::string& path) { return path.empty() ? "$" : path; }

const char* type_name(const nlohmann::json& j) {
  if (j.is_number_integer()) return "integer";
  if (j.is_number_float()) return "float";
  return j.type_name();
}

// A number, or one of the special-float strings, as a double.
bool numeric_value(const nlohmann::json& j, double* out) {
  if (j.is_number()) {
    *out = j.get<double>();
    return true;
  }
  return j.is_string() && decode_special_float(j.get<std::string>(), out);
}

class differ {
 public:
  // With out null the differ only finds whether there is a difference (same()):
  // it stops at the first one and formats nothing, since the alignment asks
  // that of up to kMaxAlignCells pairs of events.
  differ(const tolerance_policy& policy, std::vector<difference>* out) : policy_(policy), out_(out) {}

  void compare(const nlohmann::json& e, const nlohmann::json& a, const std::string& path, const std::string& dtype) {
    if (e.is_object() && a.is_object()) return compare_objects(e, a, path, dtype);
    if (e.is_array() && a.is_array()) return compare_arrays(e, a, path, dtype);
    double ev = 0, av = 0;
    const bool both_numeric = numeric_value(e, &ev) && numeric_value(a, &av);
    const bool any_number = e.is_number() || a.is_number();
    if (e.is_number_integer() && a.is_number_integer()) {
      if (e != a && recording()) add(path, e, a, "integers compare exactly");
      return;
    }
    // A count or a shape that became a float is a change of kind, not a
    // rounding difference to forgive (the writer keeps 4.0 a float).
    if (e.is_number_integer() != a.is_number_integer() && e.is_number() && a.is_number()) {
      if (recording()) add(path, e, a, "an integer on one side, a float on the other: integers compare exactly");
      return;
    }
    if (both_numeric && (any_number || e != a)) {
      const tolerance tol = policy_.for_path(path, dtype);
      if (!tol.allows(ev, av) && recording()) {
        const std::string label = dtype.empty() ? "float32 default" : dtype;
        add(path, e, a, "|Δ|=" + format_significant(std::fabs(av - ev)) + " > tol atol " +
                            format_significant(tol.atol) + " + rtol " + format_significant(tol.rtol) +
                            "·|expected| (" + label + ")");
      }
      return;
    }
    if (e.type() != a.type() && !(e.is_number() && a.is_number())) {
      if (recording()) add(path, e, a, std::string("type differs: ") + type_name(e) + " vs " + type_name(a));
      return;
    }
    if (e.is_string() && a.is_string() && e != a) {
      if (!recording()) return;
      std::size_t at = 0;
      auto [expected_text, actual_text] = differing_excerpts(e.get<std::string>(), a.get<std::string>(), &at);
      out_->push_back({shown(path), std::move(expected_text), std::move(actual_text),
                       "strings differ at character " + std::to_string(at)});
      return;
    }
    if (e != a && recording()) add(path, e, a, "");
  }

  // Whether e and a compare equal, without recording anything.
  bool same(const nlohmann::json& e, const nlohmann::json& a, const std::string& dtype) {
    differ probe(policy_, nullptr);
    probe.compare(e, a, "", dtype);
    return !probe.differs_;
  }

 private:
  // Notes that a difference was found; whether to write it out (not when probing).
  bool recording() {
    differs_ = true;
    return out_ != nullptr;
  }
  // Whether a probe has its answer: nothing further need be compared.
  bool done() const { return differs_ && out_ == nullptr; }

  void add(const std::string& path, const nlohmann::json& e, const nlohmann::json& a, std::string detail) {
    out_->push_back({shown(path), short_text(e), short_text(a), std::move(detail)});
  }

  void compare_objects(const nlohmann::json& e, const nlohmann::json& a, const std::string& path,
                       const std::string& outer_dtype) {
    std::string dtype = outer_dtype;
    if (e.contains("dtype") && e["dtype"].is_string()) dtype = e["dtype"].get<std::string>();
    // Both key sets are sorted: walk them together so output stays in order.
    auto ei = e.begin();
    auto ai = a.begin();
    while ((ei != e.end() || ai != a.end()) && !done()) {
      if (ai == a.end() || (ei != e.end() && ei.key() < ai.key())) {
        if (recording()) {
          out_->push_back({shown(child_path(path, ei.key())), short_text(*ei), kMissing, "key missing in actual"});
        }
        ++ei;
      } else if (ei == e.end() || ai.key() < ei.key()) {
        if (recording()) {
          out_->push_back({shown(child_path(path, ai.key())), kMissing, short_text(*ai), "unexpected key in actual"});
        }
        ++ai;
      } else {
        compare(*ei, *ai, child_path(path, ei.key()), dtype);
        ++ei;
        ++ai;
      }
    }
  }

  void compare_arrays(const nlohmann::json& e, const nlohmann::json& a, const std::string& path,
                      const std::string& dtype) {
    bool structured = false;
    for (const auto& item : e) structured = structured || item.is_structured();
    for (const auto& item : a) structured = structured || item.is_structured();
    if (!structured) {
      // Scalar arrays (shapes, values) compare by position.
      if (e.size() != a.size()) {
        if (recording()) add(path, e, a, "length " + std::to_string(e.size()) + " vs " + std::to_string(a.size()));
        return;
      }
      for (std::size_t i = 0; i < e.size() && !done(); ++i) compare(e[i], a[i], index_path(path, i), dtype);
      return;
    }
    if (out_ == nullptr) {
      // Aligned, two arrays show no difference exactly when they pair up
      // item by item: any other alignment leaves an item unmatched or
      // compares two that differ. So a probe needs no alignment.
      if (e.size() != a.size()) recording();
      for (std::size_t i = 0; i < e.size() && !done(); ++i) compare(e[i], a[i], index_path(path, i), dtype);
      return;
    }
    align(e, a, path, dtype);
  }

  // Alignment of e and a under `same`: the common head and tail match by
  // position (linear, and the whole of an unchanged log), the rest by LCS.
  // Unmatched runs between matches are compared pairwise by position, and
  // what is left over is missing / extra. A middle too large for the LCS
  // table (kMaxAlignCells) is compared by position alone: every difference
  // is still reported, just not realigned around insertions.
  void align(const nlohmann::json& e, const nlohmann::json& a, const std::string& path, const std::string& dtype) {
    constexpr std::size_t kMaxAlignCells = std::size_t{1} << 22;
    const std::size_t n = e.size(), m = a.size();
    std::size_t head = 0;
    while (head < n && head < m && same(e[head], a[head], dtype)) ++head;
    std::size_t tail = 0;
    while (head + tail < n && head + tail < m && same(e[n - 1 - tail], a[m - 1 - tail], dtype)) ++tail;
    const std::size_t end_i = n - tail, end_j = m - tail;
    std::size_t gap_i = head, gap_j = head;
    auto flush_gap = [&](std::size_t stop_i, std::size_t stop_j) {
      while (gap_i < stop_i && gap_j < stop_j) {
        compare(e[gap_i], a[gap_j], index_path(path, gap_i), dtype);
        ++gap_i;
        ++gap_j;
      }
      for (; gap_i < stop_i; ++gap_i) {
        out_->push_back({index_path(path, gap_i), short_text(e[gap_i]), kMissing, "item missing in actual"});
      }
      for (; gap_j < stop_j; ++gap_j) {
        out_->push_back({index_path(path, gap_j), kMissing, short_text(a[gap_j]),
                         "unexpected extra item in actual (actual index)"});
      }
    };
    const std::size_t rows = end_i - head, cols = end_j - head;
    if (rows == 0 || cols == 0 || rows * cols > kMaxAlignCells) {
      flush_gap(end_i, end_j);
      return;
    }
    // eq and lcs are indexed from head: [r][c] is e[head + r] vs a[head + c].
    std::vector<std::vector<char>> eq(rows, std::vector<char>(cols, 0));
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < cols; ++c) eq[r][c] = same(e[head + r], a[head + c], dtype) ? 1 : 0;
    }
    std::vector<std::vector<std::size_t>> lcs(rows + 1, std::vector<std::size_t>(cols + 1, 0));
    for (std::size_t r = rows; r-- > 0;) {
      for (std::size_t c = cols; c-- > 0;) {
        lcs[r][c] = eq[r][c] ? lcs[r + 1][c + 1] + 1 : std::max(lcs[r + 1][c], lcs[r][c + 1]);
      }
    }
    std::size_t r = 0, c = 0;
    while (r < rows && c < cols) {
      if (eq[r][c]) {
        flush_gap(head + r, head + c);
        gap_i = head + ++r;
        gap_j = head + ++c;
      } else if (lcs[r + 1][c] >= lcs[r][c + 1]) {
        ++r;
      } else {
        ++c;
      }
    }
    flush_gap(end_i, end_j);
  }

  const tolerance_policy& policy_;
  std::vector<difference>* out_;
  bool differs_ = false;
};

}  // namespace

std::vector<difference> diff_json(const nlohmann::json& expected, const nlohmann::json& actual,
                                  const tolerance_policy& policy) {
  std::vector<difference> out;
  differ(policy, &out).compare(expected, actual, "", "");
  return out;
}

std::vector<difference> diff_snapshots(const nlohmann::json& expected, const nlohmann::json& actual) {
  const nlohmann::json tolerances = expected.is_object() ? expected.value("tolerances", nlohmann::json()) : nullptr;
  return diff_json(expected, actual, tolerance_policy::from_json(tolerances, "tolerances"));
}

std::string format_differences(const std::vector<difference>& diffs, std::size_t max_lines) {
  std::string out;
  for (std::size_t k = 0; k < diffs.size() && k < max_lines; ++k) {
    const difference& d = diffs[k];
    out += d.path + ": expected " + d.expected + ", actual " + d.actual;
    if (!d.detail.empty()) out += " (" + d.detail + ")";
    out += "\n";
  }
  if (diffs.size() > max_lines) out += "... and " + std::to_string(diffs.size() - max_lines) + " more\n";
  return out;
}

}  // namespace graft::harness

