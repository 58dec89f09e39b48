#pragma once
// Helpers for tests that prove a tensor was (or was not) changed.

#include <cstdint>
#include <cstring>
#include <vector>

#include <ATen/ATen.h>

namespace graft_test {

// FNV-1a over the tensor's bytes (contiguous copy on the CPU): equal before
// and after means unchanged bit for bit.
inline std::uint64_t byte_checksum(const at::Tensor& t) {
  const at::Tensor c = t.detach().cpu().contiguous();
  const auto* bytes = static_cast<const unsigned char*>(c.data_ptr());
  std::uint64_t h = 1469598103934665603ULL;
  for (std::size_t i = 0; i < c.nbytes(); ++i) {
    h ^= bytes[i];
    h *= 1099511628211ULL;
  }
  return h;
}

inline std::vector<double> values(const at::Tensor& t) {
  const at::Tensor c = t.detach().cpu().to(at::kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

}  // namespace graft_test
