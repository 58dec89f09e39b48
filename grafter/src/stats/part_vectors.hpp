#pragma once
// The vector types of a part of kWidth lanes: a register's worth of lanes at
// one instruction-set level, for the loops that split their accumulators
// into parts (split_diff.hpp, float_diff.hpp). One specialisation per width:
// GCC 12 ignores a vector_size that depends on a template parameter.

#include <cstdint>

namespace graft::detail {

template <int kWidth>
struct part_vectors;

#define GRAFT_PART_VECTORS(kWidth)                                          \
  template <>                                                               \
  struct part_vectors<kWidth> {                                             \
    using f64 = double __attribute__((vector_size(8 * kWidth)));            \
    using i64 = std::int64_t __attribute__((vector_size(8 * kWidth)));      \
    using f32 = float __attribute__((vector_size(4 * kWidth)));             \
    using i32 = std::int32_t __attribute__((vector_size(4 * kWidth)));      \
    using u32 = std::uint32_t __attribute__((vector_size(4 * kWidth)));     \
    using u16 = std::uint16_t __attribute__((vector_size(2 * kWidth)));     \
  };
GRAFT_PART_VECTORS(16)
GRAFT_PART_VECTORS(8)
GRAFT_PART_VECTORS(4)
GRAFT_PART_VECTORS(2)
#undef GRAFT_PART_VECTORS

}  // namespace graft::detail
