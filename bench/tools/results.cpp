#include "results.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

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
    if (part == "float32" || part == "bfloat16" || part == "float16") r.dtype = part;
    if (!r.bytes && all_digits(part)) r.bytes = std::stoll(part);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct pending {
  result r;
  std::vector<double> times;
  std::optional<double> median_aggregate;
};

// The file as a Google Benchmark JSON document (an object with a
// "benchmarks" array).
nlohmann::json read_document(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw bad_input(path + ": cannot open the file");
  nlohmann::json doc;
  try {
    in >> doc;
  } catch (const nlohmann::json::exception& e) {
    throw bad_input(path + ": not JSON (" + e.what() + ")");
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    throw bad_input(path + ": no \"benchmarks\" array; write it with --benchmark_out=FILE "
                           "--benchmark_out_format=json");
  }
  return doc;
}

// The results in doc, one per run name; errors name path, the file it came from.
std::vector<result> results_of(const nlohmann::json& doc, const std::string& path) {
  std::map<std::string, pending> by_name;
  std::vector<std::string> order;
  std::size_t index = 0;
  for (const nlohmann::json& b : doc.at("benchmarks")) {
    const std::string where = path + ": benchmarks[" + std::to_string(index++) + "]";
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string()) {
      throw bad_input(where + ": no \"name\" string");
    }
    const std::string name = b.value("run_name", b["name"].get<std::string>());
    auto [it, fresh] = by_name.try_emplace(name);
    pending& p = it->second;
    if (fresh) {
      order.push_back(name);
      p.r.name = name;
      p.r.source = path;
      split_name(p.r);
    }
    if (b.value("error_occurred", false)) {
      p.r.error = b.value("error_message", std::string("error"));
      continue;
    }
    if (!b.contains("real_time") || !b["real_time"].is_number() || !b.contains("time_unit")) {
      throw bad_input(where + " (" + name + "): no numeric \"real_time\" with a \"time_unit\"");
    }
    const double ns = to_ns(b["real_time"].get<double>(), b["time_unit"].get<std::string>(), where);
    if (b.value("run_type", std::string("iteration")) == "aggregate") {
      const std::string aggregate = b.value("aggregate_name", std::string());
      if (aggregate == "median") p.median_aggregate = ns;
      // Google Benchmark writes the cv aggregate as a fraction in real_time.
      if (aggregate == "cv") p.r.cv = b["real_time"].get<double>();
      continue;
    }
    p.times.push_back(ns);
    for (const auto& [key, value] : b.items()) {
      static const char* const kFixed[] = {"name", "run_name", "run_type", "repetitions", "repetition_index",
                                           "threads", "iterations", "real_time", "cpu_time", "time_unit",
                                           "family_index", "per_family_instance_index", "aggregate_name",
                                           "aggregate_unit", "label", "error_occurred", "error_message"};
      const bool fixed = std::find(std::begin(kFixed), std::end(kFixed), key) != std::end(kFixed);
      if (!fixed && value.is_number()) p.r.counters[key] = value.get<double>();
    }
  }
  if (order.empty()) throw bad_input(path + ": the \"benchmarks\" array is empty");
  std::vector<result> out;
  for (const std::string& name : order) {
    pending& p = by_name[name];
    p.r.repetitions = static_cast<int>(p.times.size());
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
  for (const std::string& path : paths) files.push_back(read_file(path));
  return files;
}

std::map<std::string, result> merge_results(const std::vector<bench_file>& files) {
  std::map<std::string, result> all;
  for (const bench_file& file : files) {
    for (const result& r : file.results) all[r.name] = r;
  }
  return all;
}

}  // namespace graft_bench
