#pragma once
// Google Benchmark JSON (--benchmark_out_format=json) as the report needs it:
// one entry per benchmark run name, with its median real time, its noise and
// its counters. Files from several executables merge into one set.

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace graft_bench {

// A malformed or unreadable input; the tool exits 2 on it.
struct bad_input : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct result {
  std::string name;                    // the run name, e.g. recv_floor_copy/float32/1048576
  std::string variant;                 // the part before the first '/'
  std::string key;                     // the part after it ("" when none)
  std::string dtype;                   // float32/bfloat16/float16/float64 when the name says so, else ""
  std::optional<std::int64_t> bytes;   // the first all-digit part of key
  std::string shape;                   // key's other parts, e.g. "1x1" ("" when none); not
                                       // Google Benchmark's suffixes (real_time, threads:2)
  double median_ns = 0;                // median of the repetitions, or the one run
  std::optional<double> cv;            // coefficient of variation, with repetitions
  int repetitions = 0;
  std::map<std::string, double> counters;
  std::string error;                   // non-empty when the run skipped or failed
  std::string source;                  // the file it came from
};

// The conditions a file's run had: Google Benchmark's "context" (date,
// host_name, num_cpus, mhz_per_cpu, library_build_type, ...) and what the
// bench adds (graft_cpu_pass_threads, graft_build_type), each value as text.
using run_context = std::map<std::string, std::string>;

// One bench JSON file, read once.
struct bench_file {
  std::string path;
  std::vector<result> results;
  run_context context;  // empty when the file has none
};

// Reads one file; throws bad_input naming the file and what is wrong: not
// JSON, a field of the wrong type, a time that is not finite and > 0.
// Google Benchmark's bare NaN and Infinity are read as null.
bench_file read_file(const std::string& path);

// Reads every file, in order. When any cannot be read, throws one bad_input
// naming every such file, one line each, in that order.
std::vector<bench_file> read_files(const std::vector<std::string>& paths);

// The files' results keyed by run name. A name in two files is bad input:
// they are two runs, and a report shows one.
std::map<std::string, result> merge_results(const std::vector<bench_file>& files);

}  // namespace graft_bench
