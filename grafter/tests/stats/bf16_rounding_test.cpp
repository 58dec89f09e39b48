// Writes into a bfloat16 target give c10::BFloat16's bits for the values where
// AVX512_BF16's rounding instruction and c10 disagree (denormals, NaNs of any
// sign and payload) and for the ones where rounding is delicate (ties,
// overflow to Inf), at every instruction-set level. On a CPU without
// AVX512_BF16 the instruction path cannot run and the test prints so; the
// values are checked all the same. AVX-512 runs twice: with the instruction
// and as a CPU without it runs (moving bfloat16 exponents, rounding the rest
// in integer arithmetic).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "stats/bf16_rounding.hpp"
#include "stats/simd.hpp"
#include "stats/write_measure.hpp"

namespace {

using graft::detail::simd;

float from_bits(std::uint32_t bits) {
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Values whose bfloat16 rounding is special, spread over ordinary ones so
// that some 32-value vectors (and 128-value groups) hold one and others hold
// none. Without the non-finite ones, a measured write takes its unchecked path.
at::Tensor delicate_float32(bool with_non_finite = true) {
  std::vector<float> special{
      from_bits(0x00000001),  // smallest denormal
      from_bits(0x807FFFFF),  // largest negative denormal
      from_bits(0x00408000),  // denormal at a rounding tie
      from_bits(0x7FC00001),  // quiet NaN with a payload
      from_bits(0xFFC12345),  // negative quiet NaN
      from_bits(0x7F800001),  // signaling NaN
      from_bits(0x3F808000),  // tie, rounds down to even
      from_bits(0x3F818000),  // tie, rounds up to even
      std::numeric_limits<float>::max(),  // rounds to Inf
      std::numeric_limits<float>::infinity(),
      -std::numeric_limits<float>::infinity(),
      -0.0f,
      std::numeric_limits<float>::min(),  // smallest normal
  };
  if (!with_non_finite) {
    // FLT_MAX too: it rounds to Inf. A quarter of it stays finite doubled.
    const auto rounds_to_inf = [](float v) { return !std::isfinite(v) || v == std::numeric_limits<float>::max(); };
    special.erase(std::remove_if(special.begin(), special.end(), rounds_to_inf), special.end());
    special.push_back(std::numeric_limits<float>::max() / 4);
  }
  at::manual_seed(7);
  at::Tensor t = at::randn({4000});
  float* p = t.data_ptr<float>();
  for (std::size_t k = 0; k < special.size(); ++k) {
    p[97 * k + 5] = special[k];
    p[2000 + 64 * k] = special[k];
  }
  return t;
}

// An instruction-set level, and whether AVX512_BF16's rounding may run at
// it: AVX-512 without it is what a CPU without AVX512_BF16 runs.
struct variant {
  simd level;
  bool bf16_instruction;
  std::string name() const {
    return "level " + std::to_string(static_cast<int>(level)) + (bf16_instruction ? " with AVX512_BF16" : "");
  }
};
const variant kVariants[] = {
    {simd::baseline, false}, {simd::avx2, false}, {simd::avx512, false}, {simd::avx512, true}};

// Runs the passes as variant for as long as it lives.
class variant_scope {
 public:
  explicit variant_scope(const variant& v)
      : level_(graft::detail::limit_simd(v.level)),
        instruction_(graft::detail::allow_bf16_rounding(v.bf16_instruction)) {}
  ~variant_scope() {
    graft::detail::limit_simd(level_);
    graft::detail::allow_bf16_rounding(instruction_);
  }
  variant_scope(const variant_scope&) = delete;
  variant_scope& operator=(const variant_scope&) = delete;

 private:
  simd level_;
  bool instruction_;
};

// The target's bits after the write, measured or not, as the variant writes.
at::Tensor written(const at::Tensor& source, double scale, const variant& v, bool measured) {
  const variant_scope scope(v);
  at::Tensor target = at::zeros(source.sizes(), at::kBFloat16);
  if (measured) {
    graft::detail::cpu_write_measured(source, scale, target);
  } else {
    graft::detail::cpu_write(source, scale, target);
  }
  return target.view(at::kShort);
}

// c10::BFloat16's conversion, value by value: the bits the writes promise.
// (libtorch's own vectorised .to(kBFloat16) writes 0xFFFF for a NaN where its
// scalar path writes c10's 0x7FC0; every other value agrees.)
at::Tensor c10_bits(const at::Tensor& source, double scale) {
  const at::Tensor values = source.to(at::kFloat).contiguous();
  at::Tensor out = at::empty(source.sizes(), at::kBFloat16);
  const float* in = values.data_ptr<float>();
  auto* to = out.data_ptr<c10::BFloat16>();
  for (std::int64_t i = 0; i < values.numel(); ++i) to[i] = c10::BFloat16(in[i] * static_cast<float>(scale));
  return out.view(at::kShort);
}

void expect_c10_bits(const at::Tensor& source, double scale) {
  const at::Tensor expected = c10_bits(source, scale);
  const at::Tensor libtorch = (scale == 1.0 ? source : source * scale).to(at::kBFloat16);
  const at::Tensor not_nan = libtorch == libtorch;
  ASSERT_TRUE(at::equal(expected.masked_select(not_nan), libtorch.view(at::kShort).masked_select(not_nan)));
  for (const variant& v : kVariants) {
    for (const bool measured : {false, true}) {
      SCOPED_TRACE(v.name() + ", scale " + std::to_string(scale) + ", source " +
                   c10::toString(source.scalar_type()) + (measured ? ", measured" : ""));
      const at::Tensor got = written(source, scale, v, measured);
      const at::Tensor wrong = at::nonzero(got != expected);
      EXPECT_EQ(wrong.numel(), 0) << "first differing index: "
                                  << (wrong.numel() > 0 ? wrong[0].item<std::int64_t>() : -1);
    }
  }
}

TEST(bf16_rounding, float32_to_bfloat16_gives_c10_bits) {
  if (!__builtin_cpu_supports("avx512bf16")) {
    std::cout << "NOTE: this CPU has no AVX512_BF16: only the integer rounding ran\n";
  }
  expect_c10_bits(delicate_float32(), 1.0);
  expect_c10_bits(delicate_float32(), 2.0);
  expect_c10_bits(delicate_float32(), 0.5);
  expect_c10_bits(delicate_float32(false), 1.0);
  expect_c10_bits(delicate_float32(false), 2.0);
}

TEST(bf16_rounding, scaled_bfloat16_gives_c10_bits) {
  const at::Tensor source = delicate_float32().to(at::kBFloat16);
  expect_c10_bits(source, 2.0);
  expect_c10_bits(source, 0.5);
  expect_c10_bits(delicate_float32(false).to(at::kBFloat16), 2.0);
}

// Every bfloat16 bit pattern, in order: most groups of 128 share one
// exponent, so some have every product normal and others none.
at::Tensor every_bfloat16() {
  return at::arange(-32768, 32768, at::kInt).to(at::kShort).view(at::kBFloat16);
}

// Normal values with signed zeros among them: groups that move exponents
// and keep zeros.
at::Tensor normal_bfloat16_with_zeros() {
  at::manual_seed(11);
  at::Tensor t = at::randn({4000}).to(at::kBFloat16);
  t.index_put_({at::arange(0, 4000, 7)}, 0.0);
  t.index_put_({at::arange(3, 4000, 11)}, -0.0);
  return t;
}

TEST(bf16_rounding, bfloat16_scaled_by_a_power_of_two_gives_c10_bits) {
  // Plus and minus powers of two, up and down, ones that overflow or
  // underflow some products, a denormal one, and one that is no power of two.
  for (const double scale : {2.0, 4.0, 0.5, -2.0, -0.25, 0x1p100, 0x1p-100, 0x1p-133, 0x1p127, 3.0}) {
    expect_c10_bits(every_bfloat16(), scale);
    expect_c10_bits(normal_bfloat16_with_zeros(), scale);
  }
}

TEST(bf16_rounding, a_source_that_is_the_target_is_read_before_written) {
  const at::Tensor source = delicate_float32().to(at::kBFloat16);
  const at::Tensor expected = c10_bits(source, 2.0);
  for (const variant& v : kVariants) {
    SCOPED_TRACE(v.name());
    const variant_scope scope(v);
    const at::Tensor t = source.clone();
    graft::detail::cpu_write(t, 2.0, t);
    EXPECT_TRUE(at::equal(t.view(at::kShort), expected));
  }
}

TEST(bf16_rounding, the_instruction_runs_only_at_the_avx512_level) {
  const simd previous = graft::detail::limit_simd(simd::avx2);
  EXPECT_FALSE(graft::detail::has_bf16_rounding());
  graft::detail::limit_simd(simd::avx512);
  EXPECT_EQ(graft::detail::has_bf16_rounding(),
            __builtin_cpu_supports("avx512bf16") && graft::detail::active_simd() == simd::avx512);
  const bool allowed = graft::detail::allow_bf16_rounding(false);
  EXPECT_FALSE(graft::detail::has_bf16_rounding());
  graft::detail::allow_bf16_rounding(allowed);
  graft::detail::limit_simd(previous);
}

}  // namespace
