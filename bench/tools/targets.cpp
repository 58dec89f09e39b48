#include "targets.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace graft_bench {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

std::string fixed(double v, int digits) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << v;
  return out.str();
}

std::optional<double> bandwidth(const result& r) {
  const auto it = r.counters.find("bytes_rw");
  if (it == r.counters.end() || r.median_ns <= 0) return std::nullopt;
  return it->second / r.median_ns;  // bytes per ns == GB/s
}

// Whether a missed target was missed by less than the figure's relative
// noise: both medians' cv for a ratio or share, the measured one's for an
// absolute time. Without repetitions the noise is unknown, and a miss is one.
bool missed_within_noise(const case_spec& spec, const row& r) {
  if (r.met != false) return false;
  const std::optional<double> noise = spec.kind == target_kind::max_ns ? r.measured->cv : r.noise;
  if (!noise) return false;
  double margin = 0;  // how far the figure is beyond its target, relative to it
  switch (spec.kind) {
    case target_kind::max_ratio: margin = *r.ratio / spec.target - 1; break;
    case target_kind::max_ns: margin = r.measured->median_ns / spec.target - 1; break;
    case target_kind::min_bandwidth_share: margin = spec.target / *r.bandwidth_share - 1; break;
    case target_kind::none: return false;
  }
  return margin <= *noise;
}

// float32 first, then bfloat16, float16, float64; a name without one last.
int dtype_order(const std::string& dtype) {
  static const std::vector<std::string> order{"float32", "bfloat16", "float16", "float64"};
  return static_cast<int>(std::find(order.begin(), order.end(), dtype) - order.begin());
}

// The floor's time over the measured one, beyond 1 by more than the noise.
bool faster_than_floor(const row& r) {
  if (!r.ratio || *r.ratio >= 1) return false;
  return 1 / *r.ratio - 1 > r.noise.value_or(0);
}

}  // namespace

const std::vector<case_spec>& case_specs() {
  static const std::vector<case_spec> specs{
      {"1", "disabled grafter vs empty call", "intercept_disabled", "intercept_floor_empty",
       target_kind::max_ns, 5, 0},
      {"2", "enabled, no match (2 filters, 5 tags) vs empty call", "intercept_no_match",
       "intercept_floor_empty", target_kind::max_ns, 200, 0},
      {"3", "identity graft, measure=off (validate + write) vs copy_", "recv_identity_graft",
       "recv_floor_copy", target_kind::max_ratio, 1.10, kMiB},
      {"3", "identity graft, measure=off, and its event's fields built vs copy_", "recv_identity_event",
       "recv_floor_copy", target_kind::none, 0, 0},
      {"3", "identity graft, measure=full (write + statistics + metrics in one pass) vs copy_",
       "recv_identity_measured", "recv_floor_copy", target_kind::none, 0, 0},
      {"3", "describe x2 + compare + copy_ (measuring without the fused pass) vs copy_", "recv_identity_legacy",
       "recv_floor_copy", target_kind::none, 0, 0},
      {"4", "doubling, fused, measure=off vs copy_", "recv_double_fused", "recv_floor_copy",
       target_kind::max_ratio, 1.2, kMiB},
      {"4", "doubling, naive (temporary, then the write), measure=off vs copy_", "recv_double_naive",
       "recv_floor_copy", target_kind::none, 0, 0},
      {"4", "doubling, fused, measure=full vs copy_", "recv_double_fused_measured", "recv_floor_copy",
       target_kind::none, 0, 0},
      {"4", "doubling, fused, measure=off, as a CPU without AVX512_BF16 runs it, vs copy_",
       "recv_double_fused_without_avx512bf16", "recv_floor_copy", target_kind::none, 0, 0},
      // float16 and float64 sum in float64 (their differences and products
      // are exact there), a cost per value no plain read pays.
      {"5", "metrics pass vs a plain read of both", "metrics_pass", "metrics_floor_read",
       target_kind::max_ratio, 1.5, kMiB, {"float32", "bfloat16"}},
      {"5", "compare-only recv (metrics + both sides' statistics, nothing written) vs a plain read of both",
       "recv_identity_compare", "metrics_floor_read", target_kind::none, 0, 0},
      {"6", "c10d exchange (header + payload) vs raw Gloo send/recv", "BM_c10d_exchange", "BM_raw_gloo_send_recv",
       target_kind::none, 0, 0},
      {"6", "maybe_intercept over c10d, measure=off, 1+1 / 2+2, vs raw Gloo, same bytes", "c10d_graft_off",
       "c10d_raw_fan_out", target_kind::none, 0, 0},
      {"6", "maybe_intercept over c10d, measure=full, 1+1 / 2+2, vs raw Gloo, same bytes", "c10d_graft_full",
       "c10d_raw_fan_out", target_kind::none, 0, 0},
      {"7", "CUDA fused doubling kernel vs device copy (bandwidth share)", "cuda_kernel_double_fused",
       "cuda_floor_copy", target_kind::min_bandwidth_share, 0.85, 64 * kMiB},
      {"7", "CUDA identity kernel vs device copy (bandwidth share)", "cuda_kernel_identity", "cuda_floor_copy",
       target_kind::min_bandwidth_share, 0.85, 64 * kMiB},
      {"7", "CUDA metrics kernel vs a plain read of both", "cuda_kernel_metrics", "cuda_floor_read",
       target_kind::max_ratio, 1.5, kMiB},
      {"7", "CUDA identity graft via ATen vs copy_", "cuda_aten_identity_graft", "cuda_aten_floor_copy",
       target_kind::none, 0, 0},
      {"7", "CUDA naive doubling via ATen vs copy_", "cuda_aten_double_naive", "cuda_aten_floor_copy",
       target_kind::none, 0, 0},
      {"7", "CUDA metrics via ATen vs a plain read of both", "cuda_aten_metrics", "cuda_floor_read",
       target_kind::none, 0, 0},
  };
  return specs;
}

const case_spec* spec_for_variant(const std::string& v) {
  for (const case_spec& s : case_specs()) {
    if (s.variant == v || s.floor == v) return &s;
  }
  return nullptr;
}

std::string size_text(std::int64_t bytes) {
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " B";
}

std::string describe_target(const case_spec& spec) {
  std::string at = spec.min_bytes > 0 ? " at >= " + size_text(spec.min_bytes) : "";
  for (std::size_t i = 0; i < spec.dtypes.size(); ++i) at += (i == 0 ? ", " : " and ") + spec.dtypes[i];
  switch (spec.kind) {
    case target_kind::none: return "-";
    case target_kind::max_ratio: return "<= " + fixed(spec.target, 2) + "x" + at;
    case target_kind::max_ns: return "< " + fixed(spec.target, 0) + " ns";
    case target_kind::min_bandwidth_share:
      return ">= " + fixed(spec.target * 100, 0) + "% of copy GB/s" + at;
  }
  return "-";
}

std::vector<row> build_rows(const std::map<std::string, result>& results) {
  std::vector<row> rows;
  for (const case_spec& spec : case_specs()) {
    std::vector<row> mine;
    for (const auto& [name, r] : results) {
      if (r.variant != spec.variant) continue;
      row out{&spec, &r, nullptr, {}, {}, {}, {}, false, {}, false, false};
      const std::string floor_name = spec.floor + (r.key.empty() ? "" : "/" + r.key);
      // A floor from another file is another run's: no ratio against it.
      if (const auto it = results.find(floor_name);
          it != results.end() && it->second.error.empty() && it->second.source == r.source) {
        out.floor = &it->second;
      }
      out.bandwidth_gbs = r.error.empty() ? bandwidth(r) : std::nullopt;
      if (out.floor != nullptr && r.error.empty()) {
        out.ratio = r.median_ns / out.floor->median_ns;
        const std::optional<double> floor_bw = bandwidth(*out.floor);
        if (out.bandwidth_gbs && floor_bw) out.bandwidth_share = *out.bandwidth_gbs / *floor_bw;
        if (r.cv && out.floor->cv) out.noise = std::hypot(*r.cv, *out.floor->cv);
        out.below_floor = faster_than_floor(out);
      }
      out.applies = spec.kind != target_kind::none && r.error.empty() &&
                    (spec.min_bytes == 0 || (r.bytes && *r.bytes >= spec.min_bytes)) &&
                    (spec.dtypes.empty() ||
                     std::find(spec.dtypes.begin(), spec.dtypes.end(), r.dtype) != spec.dtypes.end());
      if (out.applies) {
        switch (spec.kind) {
          case target_kind::max_ratio:
            if (out.ratio) out.met = *out.ratio <= spec.target;
            break;
          case target_kind::max_ns: out.met = r.median_ns < spec.target; break;
          case target_kind::min_bandwidth_share:
            if (out.bandwidth_share) out.met = *out.bandwidth_share >= spec.target;
            break;
          case target_kind::none: break;
        }
        out.miss_within_noise = missed_within_noise(spec, out);
      }
      mine.push_back(out);
    }
    std::sort(mine.begin(), mine.end(), [](const row& a, const row& b) {
      if (a.measured->dtype != b.measured->dtype) return dtype_order(a.measured->dtype) < dtype_order(b.measured->dtype);
      return a.measured->bytes.value_or(0) < b.measured->bytes.value_or(0);
    });
    rows.insert(rows.end(), mine.begin(), mine.end());
  }
  return rows;
}

}  // namespace graft_bench
