#pragma once
// The bench's cases: which variant is measured against which floor,
// and the target each figure is held to. A row pairs one measured result
// with its floor at the same dtype and size, from the same run.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results.hpp"

namespace graft_bench {

enum class target_kind {
  none,                // reported, no target
  max_ratio,           // time / floor time <= target
  max_ns,              // time <= target nanoseconds
  min_bandwidth_share  // (bytes_rw / time) / (floor bytes_rw / floor time) >= target
};

struct case_spec {
  std::string id;       // the case number report.md shows, e.g. "3"
  std::string title;
  std::string variant;  // measured
  std::string floor;
  target_kind kind;
  double target;
  std::int64_t min_bytes;  // the target applies at this size and above
  // The dtypes the target applies to (every one when empty); the others are
  // reported without it.
  std::vector<std::string> dtypes = {};
};

const std::vector<case_spec>& case_specs();
// The spec whose measured or floor variant is v, if any.
const case_spec* spec_for_variant(const std::string& v);

struct row {
  const case_spec* spec;
  const result* measured;
  const result* floor;     // null when the floor is missing from the run
  std::optional<double> ratio;           // measured / floor time
  std::optional<double> bandwidth_gbs;   // bytes_rw / time, when counted
  std::optional<double> bandwidth_share; // of the floor's bandwidth
  std::optional<double> noise;           // combined cv of both, with repetitions
  bool applies = false;                  // the target applies at this size
  std::optional<bool> met;               // empty: no target or not applicable
  // A miss by less than the noise: the same code may well meet the target in
  // another run.
  bool miss_within_noise = false;
  // Faster than its floor by more than the noise (by any margin without
  // repetitions, whose noise is unknown). Every floor does less work than
  // what it floors, so the floor or this measurement is wrong.
  bool below_floor = false;
};

// Every measured result of a known case, paired with its floor, in spec order
// then by dtype and size.
std::vector<row> build_rows(const std::map<std::string, result>& results);

// "target: <= 1.10x copy_ at >= 1 MiB"
std::string describe_target(const case_spec& spec);
// "4 KiB", "1 MiB"
std::string size_text(std::int64_t bytes);

}  // namespace graft_bench
