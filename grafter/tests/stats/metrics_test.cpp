#include <graft/metrics.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <graft/error.hpp>

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

at::Tensor f32(std::vector<float> v) { return at::tensor(v, at::kFloat); }
at::Tensor f64(std::vector<double> v) { return at::tensor(v, at::kDouble); }

double ref_sum(const at::Tensor& t) { return t.sum().item<double>(); }

// The reference's _compare_tensors_quick strings, value for value.
TEST(compare, reproduces_the_reference_strings) {
  struct reference_case {
    at::Tensor x, y;
    std::string expected;
  };
  const std::vector<reference_case> cases = {
      {f32({1, 2, 3}), f32({1, 2, 4}), "rel_diff=0.0285714 max_abs=1 mean_abs=0.333333"},
      {f32({99, 99, 99, 99}), f32({1, 2, 3, 4}), "rel_diff=0.949534 max_abs=98 mean_abs=96.5"},
      {at::zeros({4}), f32({10, 20, 30, 40}), "rel_diff=1 max_abs=40 mean_abs=25"},
      {at::zeros({3}), at::zeros({3}), "rel_diff=nan max_abs=0 mean_abs=0"},
      {f32({1, 2, 3}), f32({1, 2, 3}), "rel_diff=0 max_abs=0 mean_abs=0"},
  };
  for (const auto& c : cases) {
    const graft::diff_metrics m = graft::compare(c.x, c.y);
    EXPECT_EQ(m.outcome, graft::diff_metrics::status::ok);
    EXPECT_EQ(m.summary(), c.expected);
  }
}

TEST(compare, shape_mismatch_names_both_shapes_as_python_tuples) {
  const graft::diff_metrics m = graft::compare(at::zeros({3}), at::zeros({4}));
  EXPECT_EQ(m.outcome, graft::diff_metrics::status::shape_mismatch);
  EXPECT_EQ(m.detail, "shape mismatch (a=(3,) vs b=(4,))");
  EXPECT_EQ(m.summary(), "shape mismatch (a=(3,) vs b=(4,))");

  EXPECT_EQ(graft::compare(at::zeros({2, 4}), at::zeros({})).summary(),
            "shape mismatch (a=(2, 4) vs b=())");
}

TEST(compare, same_numel_but_different_shape_is_a_mismatch) {
  EXPECT_EQ(graft::compare(at::zeros({2, 3}), at::zeros({6})).outcome,
            graft::diff_metrics::status::shape_mismatch);
}

TEST(compare, empty_tensors) {
  const graft::diff_metrics m = graft::compare(at::zeros({0}), at::zeros({0}));
  EXPECT_EQ(m.outcome, graft::diff_metrics::status::empty);
  EXPECT_EQ(m.detail, "empty");
  EXPECT_EQ(m.summary(), "empty");
  EXPECT_EQ(graft::compare(at::zeros({2, 0}), at::zeros({2, 0})).summary(), "empty");
}

TEST(compare, zero_dim_tensors_are_one_element) {
  const graft::diff_metrics m = graft::compare(at::scalar_tensor(2.0), at::scalar_tensor(5.0));
  EXPECT_EQ(m.numel, 1);
  EXPECT_EQ(m.max_abs, 3.0);
  EXPECT_EQ(m.max_abs_index, 0);
}

TEST(compare, unifies_float32_and_float64) {
  EXPECT_EQ(graft::compare(at::zeros({3}, at::kFloat), at::zeros({3}, at::kDouble)).summary(),
            "rel_diff=nan max_abs=0 mean_abs=0");
  EXPECT_EQ(graft::compare(f32({1, 2, 3}), f64({1, 2, 4})).summary(),
            "rel_diff=0.0285714 max_abs=1 mean_abs=0.333333");
  // float32 0.1 is not float64 0.1: the difference is the float32 rounding.
  const graft::diff_metrics m = graft::compare(f32({0.1f}), f64({0.1}));
  EXPECT_EQ(m.max_abs, std::abs(static_cast<double>(0.1f) - 0.1));
  EXPECT_GT(m.max_abs, 0.0);
}

TEST(compare, integer_and_bool_tensors) {
  EXPECT_EQ(graft::compare(at::tensor({1, 2, 3}, at::kLong), at::tensor({1, 2, 4}, at::kLong))
                .summary(),
            "rel_diff=0.0285714 max_abs=1 mean_abs=0.333333");
  EXPECT_EQ(graft::compare(at::tensor({1, 2, 3}, at::kInt), at::tensor({1, 2, 4}, at::kLong))
                .summary(),
            "rel_diff=0.0285714 max_abs=1 mean_abs=0.333333");
  // uint8 must not wrap around: 0 - 200 is -200, not 56.
  const graft::diff_metrics u8 =
      graft::compare(at::tensor({0}, at::kByte), at::tensor({200}, at::kByte));
  EXPECT_EQ(u8.max_abs, 200.0);
  // at::tensor has no bool overload on the CPU: build from ints.
  const graft::diff_metrics b = graft::compare(at::tensor({1, 0, 1}).to(at::kBool),
                                               at::tensor({1, 1, 1}).to(at::kBool));
  EXPECT_EQ(b.max_abs, 1.0);
  EXPECT_EQ(b.max_abs_index, 1);
  EXPECT_EQ(b.sum_xy, 2.0);
}

TEST(compare, bfloat16_and_float16) {
  for (const at::ScalarType type : {at::kBFloat16, at::kHalf}) {
    EXPECT_EQ(graft::compare(f32({1, 2, 3}).to(type), f32({1, 2, 4}).to(type)).summary(),
              "rel_diff=0.0285714 max_abs=1 mean_abs=0.333333");
    // The sums see the stored (rounded) values, widened exactly.
    const at::Tensor x = f32({0.1f, -3.3f}).to(type);
    const at::Tensor y = f32({0.2f, 7.7f}).to(type);
    const graft::diff_metrics m = graft::compare(x, y);
    const at::Tensor xd = x.to(at::kDouble);
    const at::Tensor yd = y.to(at::kDouble);
    EXPECT_EQ(m.sum_xx, ref_sum(xd * xd));
    EXPECT_EQ(m.sum_xy, ref_sum(xd * yd));
    EXPECT_EQ(m.sum_dx, ref_sum((xd - yd) * xd));
    EXPECT_EQ(m.max_abs, (xd - yd).abs().max().item<double>());
    EXPECT_EQ(m.max_abs_index, 1);
  }
  // A mixed pair goes through float64.
  const graft::diff_metrics mixed = graft::compare(f32({1.5f}).to(at::kBFloat16), f64({1.0}));
  EXPECT_EQ(mixed.max_abs, 0.5);
}

TEST(compare, nan_and_inf_are_counted_and_never_throw) {
  const at::Tensor x = f32({1, NAN, INFINITY, 2, 0});
  const at::Tensor y = f32({1, 2, INFINITY, -INFINITY, NAN});
  graft::diff_metrics m;
  ASSERT_NO_THROW(m = graft::compare(x, y));
  EXPECT_EQ(m.x_nan, 1);
  EXPECT_EQ(m.x_inf, 1);
  EXPECT_EQ(m.y_nan, 1);
  EXPECT_EQ(m.y_inf, 2);
  // The first NaN difference wins, as torch.max propagates NaN.
  EXPECT_TRUE(std::isnan(m.max_abs));
  EXPECT_EQ(m.max_abs_index, 1);
  EXPECT_TRUE(std::isnan(m.sum_xx));
  EXPECT_EQ(m.summary(), "rel_diff=nan max_abs=nan mean_abs=nan");
}

TEST(compare, inf_difference_without_nan) {
  const graft::diff_metrics m = graft::compare(f32({1, 2, 3}), f32({1, INFINITY, 3}));
  EXPECT_EQ(m.max_abs, kInf);
  EXPECT_EQ(m.max_abs_index, 1);
  EXPECT_EQ(m.y_inf, 1);
  EXPECT_EQ(m.x_inf, 0);
  EXPECT_EQ(m.x_nan + m.y_nan, 0);
  EXPECT_EQ(m.mean_abs(), kInf);
}

TEST(compare, max_abs_index_is_the_first_maximum) {
  const graft::diff_metrics m = graft::compare(at::zeros({5}), f32({1, -3, 3, 2, -3}));
  EXPECT_EQ(m.max_abs, 3.0);
  EXPECT_EQ(m.max_abs_index, 1);
  EXPECT_EQ(m.sum_abs, 12.0);
  EXPECT_EQ(m.sum_dd, 32.0);
}

// Long runs take a fast path that tracks the maximum per block of steps and
// finds its element afterwards: with many ties, in every lane, the index is
// still the first one, for every dtype with a vectorised load.
TEST(compare, max_abs_index_is_the_first_maximum_among_many_ties) {
  at::manual_seed(12);
  const std::int64_t n = 3 * 32768 + 77;
  for (const at::ScalarType type : {at::kFloat, at::kBFloat16, at::kDouble, at::kHalf}) {
    SCOPED_TRACE(c10::toString(type));
    at::Tensor x = at::randint(0, 3, {n}).to(type);  // |x - 0| in {0, 1, 2}
    // Even and odd indices: two bfloat16 values share a lane.
    for (const std::int64_t first : {std::int64_t{40'000}, std::int64_t{40'001}, std::int64_t{5}, n - 3}) {
      at::Tensor with_peak = x.clone();
      with_peak.slice(0, first).masked_fill_(with_peak.slice(0, first) == 2, 3);  // 3 from `first` on
      with_peak[first] = -3;
      const graft::diff_metrics m = graft::compare(with_peak, at::zeros({n}, type));
      EXPECT_EQ(m.max_abs, 3.0);
      EXPECT_EQ(m.max_abs_index, first);
      EXPECT_EQ(m.sum_abs, with_peak.abs().to(at::kDouble).sum().item<double>());
    }
  }
}

// A NaN anywhere in a long run sends it the careful way: counted, and the
// first NaN difference is the maximum.
TEST(compare, non_finite_values_deep_in_long_runs) {
  at::manual_seed(13);
  at::Tensor x = at::randn({100'000});
  const at::Tensor y = at::randn({100'000});
  x[70'001] = std::numeric_limits<float>::quiet_NaN();
  x[70'500] = std::numeric_limits<float>::quiet_NaN();
  x[90'000] = -std::numeric_limits<float>::infinity();
  const graft::diff_metrics m = graft::compare(x, y);
  EXPECT_EQ(m.x_nan, 2);
  EXPECT_EQ(m.x_inf, 1);
  EXPECT_TRUE(std::isnan(m.max_abs));
  EXPECT_EQ(m.max_abs_index, 70'001);
  EXPECT_TRUE(std::isnan(m.sum_xx));
  const double expected_yy = y.to(at::kDouble).pow(2).sum().item<double>();
  EXPECT_NEAR(m.sum_yy, expected_yy, 2e-6 * expected_yy);  // the float32 sums' precision
}

TEST(compare, non_contiguous_inputs_use_logical_order) {
  // y is a transposed view: logically [[0,5],[1,4],[2,3]], stored [[0,1,2],[5,4,3]].
  const at::Tensor y = f32({0, 1, 2, 5, 4, 3}).reshape({2, 3}).t();
  ASSERT_FALSE(y.is_contiguous());
  const graft::diff_metrics m = graft::compare(at::zeros({3, 2}), y);
  EXPECT_EQ(m.max_abs, 5.0);
  EXPECT_EQ(m.max_abs_index, 1);  // the storage order would say 3
  EXPECT_EQ(m.numel, 6);

  const at::Tensor x = at::randn({64, 48}).t();
  const at::Tensor y2 = at::randn({48, 64}, at::kDouble);
  const graft::diff_metrics strided = graft::compare(x, y2);
  const graft::diff_metrics dense = graft::compare(x.contiguous(), y2);
  EXPECT_EQ(strided.sum_dd, dense.sum_dd);
  EXPECT_EQ(strided.sum_xy, dense.sum_xy);
  EXPECT_EQ(strided.sum_dx, dense.sum_dx);
  EXPECT_EQ(strided.max_abs_index, dense.max_abs_index);
}

TEST(compare, large_tensor_agrees_with_aten_float64) {
  at::manual_seed(7);
  const std::int64_t n = 1'000'003;  // many chunks, the last one partial
  const at::Tensor x = at::randn({n});
  const at::Tensor y = x + 0.01 * at::randn({n});
  const graft::diff_metrics m = graft::compare(x, y);
  const at::Tensor xd = x.to(at::kDouble);
  const at::Tensor yd = y.to(at::kDouble);
  const at::Tensor d = (x - y).to(at::kDouble);  // float32's difference, as compare() takes it
  const auto near = [](double actual, double expected) {
    // Within the float32 sums' precision (metrics_accuracy_test has the bounds).
    EXPECT_NEAR(actual, expected, 2e-6 * std::abs(expected)) << "expected " << expected;
  };
  near(m.sum_xx, ref_sum(xd * xd));
  near(m.sum_yy, ref_sum(yd * yd));
  near(m.sum_xy, ref_sum(xd * yd));
  near(m.sum_dd, ref_sum(d * d));
  near(m.sum_dx, ref_sum(d * xd));
  near(m.sum_abs, ref_sum(d.abs()));
  const auto [max_abs, index] = d.abs().max(0);
  EXPECT_EQ(m.max_abs, max_abs.item<double>());
  EXPECT_EQ(m.max_abs_index, index.item<std::int64_t>());
  EXPECT_EQ(m.numel, n);
  EXPECT_EQ(m.x_nan + m.x_inf + m.y_nan + m.y_inf, 0);
}

TEST(compare, results_are_bitwise_deterministic_across_runs_and_thread_counts) {
  at::manual_seed(11);
  const at::Tensor x = at::randn({300'000});
  const at::Tensor y = at::randn({300'000});
  const int threads = at::get_num_threads();
  const graft::diff_metrics first = graft::compare(x, y);
  const graft::diff_metrics second = graft::compare(x, y);
  at::set_num_threads(1);
  const graft::diff_metrics serial = graft::compare(x, y);
  at::set_num_threads(std::max(threads, 3));
  const graft::diff_metrics wide = graft::compare(x, y);
  at::set_num_threads(threads);
  for (const graft::diff_metrics* other : {&second, &serial, &wide}) {
    EXPECT_EQ(first.sum_xx, other->sum_xx);
    EXPECT_EQ(first.sum_yy, other->sum_yy);
    EXPECT_EQ(first.sum_xy, other->sum_xy);
    EXPECT_EQ(first.sum_dd, other->sum_dd);
    EXPECT_EQ(first.sum_dx, other->sum_dx);
    EXPECT_EQ(first.sum_abs, other->sum_abs);
    EXPECT_EQ(first.max_abs_index, other->max_abs_index);
  }
}

TEST(compare, cosine_and_sqnr_for_a_known_case) {
  const graft::diff_metrics m = graft::compare(f64({3, 4}), f64({3, 3}));
  EXPECT_DOUBLE_EQ(m.cosine(), 21.0 / std::sqrt(450.0));
  EXPECT_DOUBLE_EQ(m.sqnr_db(), 10.0 * std::log10(25.0));
  EXPECT_NEAR(m.sqnr_db(), 13.9794, 1e-4);

  const graft::diff_metrics same = graft::compare(f64({1, -2}), f64({1, -2}));
  EXPECT_EQ(same.sqnr_db(), kInf);
  EXPECT_DOUBLE_EQ(same.cosine(), 1.0);
  EXPECT_DOUBLE_EQ(graft::compare(f64({1, 0}), f64({-1, 0})).cosine(), -1.0);
  // All zero on one side: 0/0.
  EXPECT_TRUE(std::isnan(graft::compare(at::zeros({2}), f64({1, 2})).cosine()));
}

TEST(compare, reads_inputs_that_require_grad) {
  const at::Tensor x = f32({1, 2, 3}).set_requires_grad(true);
  EXPECT_EQ(graft::compare(x, f32({1, 2, 4})).summary(),
            "rel_diff=0.0285714 max_abs=1 mean_abs=0.333333");
}

// results_are_bitwise_deterministic_across_runs_and_thread_counts holds
// trivially if the passes never leave one thread; in a libtorch built with
// OpenMP they do only when this component is compiled with OpenMP too
// (grafter/CMakeLists.txt).
TEST(cpu_pass_threads, follows_libtorchs_thread_count) {
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  const int two = graft::cpu_pass_threads();
  at::set_num_threads(1);
  const int one = graft::cpu_pass_threads();
  at::set_num_threads(threads);
  EXPECT_EQ(two, 2) << "the CPU passes stay on one thread: graft_stats needs OpenMP when libtorch uses it "
                       "(CMake warns when it finds none)";
  EXPECT_EQ(one, 1);
}

TEST(compare, rejects_inputs_without_real_values) {
  const at::Tensor quantized = at::quantize_per_tensor(at::zeros({2}), 0.1, 0, at::kQInt8);
  EXPECT_THROW(graft::compare(quantized, quantized), graft::error);
  EXPECT_THROW(graft::compare(at::Tensor(), at::zeros({2})), graft::error);
  const at::Tensor meta = at::empty({2}, at::TensorOptions().device(at::kMeta));
  EXPECT_THROW(graft::compare(at::zeros({2}), meta), graft::error);
  try {
    graft::compare(quantized, quantized);
    ADD_FAILURE() << "a quantized tensor was compared";
  } catch (const graft::error& e) {
    EXPECT_NE(std::string(e.what()).find("qint8"), std::string::npos) << e.what();
  }
}

at::Tensor c64(std::vector<float> re, std::vector<float> im) { return at::complex(f32(re), f32(im)); }

TEST(compare, complex_tensors_compare_as_their_real_and_imaginary_parts) {
  const at::Tensor x = c64({1, 2, 3}, {0, -1, 4});
  const at::Tensor y = c64({1, 2, 3}, {0, 1, 4});
  const graft::diff_metrics m = graft::compare(x, y);
  const graft::diff_metrics parts = graft::compare(f32({1, 0, 2, -1, 3, 4}), f32({1, 0, 2, 1, 3, 4}));
  EXPECT_EQ(m.numel, 6);
  EXPECT_EQ(m.max_abs, 2.0);
  EXPECT_EQ(m.max_abs_index, 3) << "the imaginary part of element 1";
  EXPECT_EQ(m.summary(), parts.summary());
  EXPECT_EQ(m.sum_xy, parts.sum_xy);
  EXPECT_EQ(m.sum_dd, parts.sum_dd);

  // A lazy conjugate compares as the values it reads: conj(y) has -1 where x has -1.
  const graft::diff_metrics conj = graft::compare(x, c64({1, 2, 3}, {0, 1, -4}).conj());
  EXPECT_EQ(conj.max_abs, 0.0);
  EXPECT_EQ(conj.sqnr_db(), kInf);
}

TEST(compare, complex_against_real_is_refused_with_both_dtypes) {
  try {
    graft::compare(c64({1}, {0}), f32({1}));
    ADD_FAILURE() << "complex was compared with float32";
  } catch (const graft::error& e) {
    EXPECT_NE(std::string(e.what()).find("x is complex64 and y is float32"), std::string::npos) << e.what();
  }
}

TEST(diff_metrics_json, ok_carries_derived_values) {
  const nlohmann::json j = graft::compare(f32({1, 2, 3}), f32({1, 2, 4}));
  EXPECT_EQ(j.at("outcome"), "ok");
  EXPECT_FALSE(j.contains("detail"));
  EXPECT_EQ(j.at("numel"), 3);
  EXPECT_DOUBLE_EQ(j.at("rel_diff").get<double>(), 1.0 - 2.0 * 17.0 / 35.0);
  EXPECT_EQ(j.at("max_abs"), 1.0);
  EXPECT_EQ(j.at("max_abs_index"), 2);
  EXPECT_DOUBLE_EQ(j.at("mean_abs").get<double>(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(j.at("cosine").get<double>(), 17.0 / std::sqrt(14.0 * 21.0));
  EXPECT_DOUBLE_EQ(j.at("sqnr_db").get<double>(), 10.0 * std::log10(14.0));
  EXPECT_EQ(j.at("nan"), (nlohmann::json{{"x", 0}, {"y", 0}}));
  EXPECT_EQ(j.at("inf"), (nlohmann::json{{"x", 0}, {"y", 0}}));
}

TEST(diff_metrics_json, non_finite_values_are_strings) {
  const nlohmann::json nan_case = graft::compare(f32({NAN, 1}), f32({1, INFINITY}));
  EXPECT_EQ(nan_case.at("max_abs"), "NaN");
  EXPECT_EQ(nan_case.at("rel_diff"), "NaN");
  EXPECT_EQ(nan_case.at("nan"), (nlohmann::json{{"x", 1}, {"y", 0}}));
  EXPECT_EQ(nan_case.at("inf"), (nlohmann::json{{"x", 0}, {"y", 1}}));
  const nlohmann::json same = graft::compare(f32({1, 2}), f32({1, 2}));
  EXPECT_EQ(same.at("sqnr_db"), "Inf");
}

TEST(diff_metrics_json, outcomes_other_than_ok_carry_their_detail) {
  const nlohmann::json mismatch = graft::compare(at::zeros({3}), at::zeros({4}));
  EXPECT_EQ(mismatch.at("outcome"), "shape_mismatch");
  EXPECT_EQ(mismatch.at("detail"), "shape mismatch (a=(3,) vs b=(4,))");
  EXPECT_EQ(mismatch.at("max_abs_index"), -1);
  const nlohmann::json empty = graft::compare(at::zeros({0}), at::zeros({0}));
  EXPECT_EQ(empty.at("outcome"), "empty");
  EXPECT_EQ(empty.at("detail"), "empty");
  EXPECT_EQ(empty.at("numel"), 0);
}

TEST(diff_metrics, derived_values_from_sums) {
  graft::diff_metrics m;
  m.numel = 4;
  m.sum_xx = 39204;
  m.sum_yy = 30;
  m.sum_xy = 990;
  m.sum_dd = 39204 + 30 - 2 * 990;  // x = (99, 99, 99, 99), y = (1, 2, 3, 4)
  m.sum_dx = 39204 - 990;
  m.sum_abs = 386;
  m.max_abs = 98;
  EXPECT_EQ(m.summary(), "rel_diff=0.949534 max_abs=98 mean_abs=96.5");
  EXPECT_DOUBLE_EQ(m.rel_diff(), 1.0 - 1980.0 / 39234.0);
  EXPECT_DOUBLE_EQ(m.mean_abs(), 96.5);
  EXPECT_DOUBLE_EQ(m.cosine(), 990.0 / std::sqrt(39204.0 * 30.0));
}

}  // namespace
