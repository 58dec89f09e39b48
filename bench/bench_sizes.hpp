#pragma once
// The size sweep and dtypes the bandwidth cases share, and the counters the
// report reads. Sizes are the target's bytes: 4 KiB, 16 KiB, ... up to
// GRAFT_BENCH_MAX_MIB (default 64; 256 for the full sweep).

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <benchmark/benchmark.h>
#include <c10/core/ScalarType.h>

namespace graft_bench {

inline constexpr std::int64_t kMinBytes = std::int64_t{4} << 10;
inline constexpr std::int64_t kDefaultMaxMib = 64;
// 64 GiB per tensor: beyond any device's memory for a target and its source.
inline constexpr std::int64_t kLargestMaxMib = 65536;

// GRAFT_BENCH_MAX_MIB, else 64: the largest size in MiB. A value that is not
// a whole number in 1..kLargestMaxMib throws std::invalid_argument naming it,
// rather than quietly running another sweep than the one asked for.
inline std::int64_t max_bytes() {
  const char* text = std::getenv("GRAFT_BENCH_MAX_MIB");
  if (text == nullptr || *text == '\0') return kDefaultMaxMib << 20;
  char* end = nullptr;
  errno = 0;
  const long long mib = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || mib < 1 || mib > kLargestMaxMib) {
    throw std::invalid_argument("GRAFT_BENCH_MAX_MIB='" + std::string(text) + "': not a whole number of MiB from 1 to " +
                                std::to_string(kLargestMaxMib) + "; set e.g. 256 for the full sweep, or unset it for " +
                                std::to_string(kDefaultMaxMib));
  }
  return static_cast<std::int64_t>(mib) << 20;
}

// 4 KiB, then powers of 4 up to max_bytes().
inline std::vector<std::int64_t> sizes() {
  const std::int64_t largest = max_bytes();
  std::vector<std::int64_t> out;
  for (std::int64_t b = kMinBytes; b <= largest; b *= 4) out.push_back(b);
  return out;
}

struct dtype_case {
  at::ScalarType type;
  const char* name;
};

inline const std::vector<dtype_case>& dtypes() {
  static const std::vector<dtype_case> all{{at::kFloat, "float32"}, {at::kBFloat16, "bfloat16"}};
  return all;
}

// dtypes() and the two whose CPU passes take other paths: float16 (F16C
// loads and stores) and float64 (float64 throughout). The CPU recv bench's.
inline const std::vector<dtype_case>& cpu_dtypes() {
  static const std::vector<dtype_case> all{
      {at::kFloat, "float32"}, {at::kBFloat16, "bfloat16"}, {at::kHalf, "float16"}, {at::kDouble, "float64"}};
  return all;
}

// "<variant>/<dtype>/<bytes>": the report pairs a variant with its floor by
// the part after the variant's name.
inline std::string case_name(const std::string& variant, const dtype_case& d, std::int64_t bytes) {
  return variant + "/" + d.name + "/" + std::to_string(bytes);
}

// bytes: the target's size; bytes_rw: what one iteration reads plus writes at
// least (the report's GB/s and bandwidth fractions use it).
inline void set_traffic(benchmark::State& state, std::int64_t bytes, std::int64_t bytes_rw) {
  state.SetBytesProcessed(state.iterations() * bytes_rw);
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["bytes_rw"] = static_cast<double>(bytes_rw);
}

}  // namespace graft_bench
