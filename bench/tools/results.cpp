#include "results.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include <graft/harness/bounded_json.hpp>
#include <graft/harness/input_file.hpp>

namespace graft_bench {
namespace {

double to_ns(double value, const std::string& unit, const std::string& where) {
  if (unit == "ns") return value;
  if (unit == "us") return value * 1e3;
  if (unit == "ms") return value * 1e6;
  if (unit == "s") return value * 1e9;
  throw bad_input(where + ": unknown time_unit '" + unit + "' (expected ns, us, ms or s)");
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

void split_name(result& r) {
  const std::size_t slash = r.name.find('/');
  r.variant = r.name.substr(0, slash);
  r.key = slash == std::string::npos ? "" : r.name.substr(slash + 1);
  std::stringstream parts(r.key);
  for (std::string part; std::getline(parts, part, '/');) {
    const bool suffix = part.find(':') != std::string::npos || part == "real_time" || part == "manual_time" ||
                        part == "process_time";
    if (part == "float32" || part == "bfloat16" || part == "float16" || part == "float64") {
      r.dtype = part;
    } else if (all_digits(part)) {
      if (!r.bytes) r.bytes = std::stoll(part);
    } else if (!suffix) {
      r.shape += (r.shape.empty() ? "" : " ") + part;
    }
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Google Benchmark writes a NaN or infinite double as a bare NaN, -NaN,
// Infinity or -Infinity, which JSON does not have. Outside strings those
// tokens become null, so such a value reads as "not a number" where it
// matters (a time) and is left out where it does not (a counter).
std::string with_non_finite_as_null(const std::string& text) {
  static const char* const kTokens[] = {"-Infinity", "Infinity", "-NaN", "NaN"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    const char* const* token = std::find_if(std::begin(kTokens), std::end(kTokens), [&](const char* t) {
      return text.compare(i, std::char_traits<char>::length(t), t) == 0;
    });
    if (token != std::end(kTokens)) {
      out += "null";
      i += std::char_traits<char>::length(*token) - 1;
    } else {
      out += c;
    }
  }
  return out;
}

// The file as a Google Benchmark JSON document (an object with a
// "benchmarks" array), and nothing after it.
nlohmann::json read_document(const std::string& path) {
  std::string text;
  try {
    text = graft::harness::read_input_file(path);
  } catch (const graft::harness::unreadable_file& e) {
    throw bad_input(path + ": " + e.what() + "; give bench JSON files, written with --benchmark_out=FILE");
  }
  nlohmann::json doc;
  try {
    doc = graft::harness::parse_bounded_json(with_non_finite_as_null(text));
  } catch (const graft::harness::unreadable_json& e) {
    throw bad_input(path + ": " + e.what() + "; give bench JSON files, written with --benchmark_out=FILE");
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    throw bad_input(path + ": no \"benchmarks\" array; write it with --benchmark_out=FILE "
                           "--benchmark_out_format=json");
  }
  return doc;
}

struct pending {
  result r;
  std::vector<double> times;
  std::optional<double> median_aggregate;
  std::map<std::string, double> median_counters;  // the median aggregate's, for aggregate-only files
};

// The entry's numeric fields that are not Google Benchmark's own: its counters.
std::map<std::string, double> counters_of(const nlohmann::json& b) {
  static const char* const kFixed[] = {"name", "run_name", "run_type", "repetitions", "repetition_index",
                                       "threads", "iterations", "real_time", "cpu_time", "time_unit",
                                       "family_index", "per_family_instance_index", "aggregate_name",
                                       "aggregate_unit", "label", "error_occurred", "error_message"};
  std::map<std::string, double> out;
  for (const auto& [key, value] : b.items()) {
    const bool fixed = std::find(std::begin(kFixed), std::end(kFixed), key) != std::end(kFixed);
    if (!fixed && value.is_number()) out[key] = value.get<double>();
  }
  return out;
}

// Adds one "benchmarks" entry to p; where names it in errors.
void add_entry(const nlohmann::json& b, pending& p, const std::string& where) {
  if (b.value("error_occurred", false)) {
    p.r.error = b.value("error_message", std::string("error"));
    return;
  }
  if (!b.contains("real_time") || !b["real_time"].is_number() || !b.contains("time_unit")) {
    throw bad_input(where + ": no \"real_time\" number (missing, NaN or Infinity) with a \"time_unit\"");
  }
  const double value = b["real_time"].get<double>();
  const bool is_aggregate = b.value("run_type", std::string("iteration")) == "aggregate";
  const std::string aggregate = is_aggregate ? b.value("aggregate_name", std::string()) : "";
  // Google Benchmark writes the cv aggregate as a fraction in real_time;
  // stddev may be 0. Every other time must be one a ratio can use.
  const bool spread = aggregate == "cv" || aggregate == "stddev";
  if (!std::isfinite(value) || (spread ? value < 0 : value <= 0)) {
    throw bad_input(where + ": real_time " + std::to_string(value) +
                    (spread ? " is not a finite spread >= 0" : " is not a finite time > 0"));
  }
  const double ns = to_ns(value, b["time_unit"].get<std::string>(), where);
  if (!is_aggregate) {
    p.times.push_back(ns);
    for (const auto& [key, v] : counters_of(b)) p.r.counters[key] = v;
  } else if (aggregate == "median") {
    p.median_aggregate = ns;
    p.median_counters = counters_of(b);
  } else if (aggregate == "cv") {
    p.r.cv = value;
  }
}

// The results in doc, one per run name; errors name path, the file it came from.
std::vector<result> results_of(const nlohmann::json& doc, const std::string& path) {
  std::map<std::string, pending> by_name;
  std::vector<std::string> order;
  std::size_t index = 0;
  for (const nlohmann::json& b : doc.at("benchmarks")) {
    std::string where = path + ": benchmarks[" + std::to_string(index++) + "]";
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string()) {
      throw bad_input(where + ": no \"name\" string");
    }
    try {
      const std::string name = b.value("run_name", b["name"].get<std::string>());
      where += " (" + name + ")";
      auto [it, fresh] = by_name.try_emplace(name);
      pending& p = it->second;
      if (fresh) {
        order.push_back(name);
        p.r.name = name;
        p.r.source = path;
        split_name(p.r);
      }
      add_entry(b, p, where);
    } catch (const nlohmann::json::exception& e) {
      throw bad_input(where + ": a field has the wrong type (" + e.what() + ")");
    }
  }
  if (order.empty()) throw bad_input(path + ": the \"benchmarks\" array is empty");
  std::vector<result> out;
  for (const std::string& name : order) {
    pending& p = by_name[name];
    p.r.repetitions = static_cast<int>(p.times.size());
    if (p.times.empty()) p.r.counters = p.median_counters;
    if (p.median_aggregate) {
      p.r.median_ns = *p.median_aggregate;
    } else if (!p.times.empty()) {
      p.r.median_ns = median(p.times);
    } else if (p.r.error.empty()) {
      throw bad_input(path + ": '" + name + "' has neither a run nor an error");
    }
    out.push_back(std::move(p.r));
  }
  return out;
}

// doc's "context" object, each value as text.
run_context context_of(const nlohmann::json& doc) {
  run_context out;
  const auto it = doc.find("context");
  if (it == doc.end() || !it->is_object()) return out;
  for (const auto& [key, value] : it->items()) {
    if (value.is_string()) {
      out[key] = value.get<std::string>();
    } else if (value.is_primitive() && !value.is_null()) {
      out[key] = value.dump();
    }
  }
  return out;
}

}  // namespace

bench_file read_file(const std::string& path) {
  const nlohmann::json doc = read_document(path);
  return {path, results_of(doc, path), context_of(doc)};
}

std::vector<bench_file> read_files(const std::vector<std::string>& paths) {
  std::vector<bench_file> files;
  std::string problems;
  for (const std::string& path : paths) {
    try {
      files.push_back(read_file(path));
    } catch (const bad_input& e) {
      problems += (problems.empty() ? "" : "\n") + std::string(e.what());
    }
  }
  if (!problems.empty()) throw bad_input(problems);
  return files;
}

std::map<std::string, result> merge_results(const std::vector<bench_file>& files) {
  std::map<std::string, result> all;
  for (const bench_file& file : files) {
    for (const result& r : file.results) {
      const auto [it, fresh] = all.emplace(r.name, r);
      if (!fresh && it->second.source == r.source) throw bad_input(r.source + " is given twice");
      if (!fresh) {
        throw bad_input(r.name + " is in both " + it->second.source + " and " + r.source +
                        "; report one run's files (compare sets two runs side by side)");
      }
    }
  }
  return all;
}

}  // namespace graft_bench
