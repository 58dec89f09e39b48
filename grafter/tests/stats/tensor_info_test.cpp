#include <graft/tensor_info.hpp>

#include <cstdint>
#include <vector>

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <graft/error.hpp>

namespace {

using shape_t = std::vector<std::int64_t>;

TEST(dtype_name, as_torch_prints_it) {
  const std::vector<std::pair<at::ScalarType, const char*>> cases = {
      {at::kFloat, "float32"}, {at::kDouble, "float64"},     {at::kHalf, "float16"},
      {at::kBFloat16, "bfloat16"}, {at::kLong, "int64"},     {at::kInt, "int32"},
      {at::kShort, "int16"},   {at::kChar, "int8"},          {at::kByte, "uint8"},
      {at::kBool, "bool"},     {at::kComplexFloat, "complex64"},
      {at::kComplexDouble, "complex128"},
  };
  for (const auto& [type, name] : cases) {
    EXPECT_EQ(graft::dtype_name(at::zeros({1}, type)), name);
  }
  const at::Tensor q = at::quantize_per_tensor(at::zeros({2}), 0.1, 0, at::kQInt8);
  EXPECT_EQ(graft::dtype_name(q), "qint8");
}

TEST(shape_string, python_tuple_repr) {
  EXPECT_EQ(graft::shape_string({}), "()");
  EXPECT_EQ(graft::shape_string({3}), "(3,)");
  EXPECT_EQ(graft::shape_string({2, 4}), "(2, 4)");
  EXPECT_EQ(graft::shape_string({0, 1, 5}), "(0, 1, 5)");
}

TEST(describe, empty_tensor_has_no_statistics) {
  const graft::tensor_info info = graft::describe(at::zeros({0, 3}));
  EXPECT_EQ(info.shape, (shape_t{0, 3}));
  EXPECT_EQ(info.stride, (shape_t{3, 1}));
  EXPECT_EQ(info.numel, 0);
  EXPECT_FALSE(info.min.has_value());
  EXPECT_FALSE(info.max.has_value());
  EXPECT_FALSE(info.mean.has_value());
  const nlohmann::json j = info;
  EXPECT_TRUE(j.at("min").is_null());
  EXPECT_TRUE(j.at("mean").is_null());
}

TEST(describe, random_matrix) {
  at::manual_seed(3);
  const at::Tensor t = at::randn({10, 10});
  const graft::tensor_info info = graft::describe(t);
  EXPECT_EQ(info.shape, (shape_t{10, 10}));
  EXPECT_EQ(info.stride, (shape_t{10, 1}));
  EXPECT_EQ(info.dtype, "float32");
  EXPECT_EQ(info.device, "cpu");
  EXPECT_EQ(info.numel, 100);
  ASSERT_TRUE(info.min && info.max && info.mean);
  EXPECT_EQ(*info.min, t.min().item<double>());
  EXPECT_EQ(*info.max, t.max().item<double>());
  EXPECT_NEAR(*info.mean, t.to(at::kDouble).mean().item<double>(), 1e-15);
  EXPECT_EQ(info.nan_count, 0);
  EXPECT_EQ(info.inf_count, 0);

  const graft::tensor_info transposed = graft::describe(t.t());
  EXPECT_EQ(transposed.stride, (shape_t{1, 10}));
  EXPECT_EQ(transposed.min, info.min);
  EXPECT_EQ(transposed.max, info.max);
}

TEST(describe, statistics_cover_finite_values_only) {
  const at::Tensor t = at::tensor({1.0f, NAN, INFINITY, -INFINITY, -2.0f, NAN});
  const graft::tensor_info info = graft::describe(t);
  EXPECT_EQ(info.nan_count, 2);
  EXPECT_EQ(info.inf_count, 2);
  EXPECT_EQ(info.min, -2.0);
  EXPECT_EQ(info.max, 1.0);
  EXPECT_EQ(info.mean, -0.5);
}

TEST(describe, no_finite_values_means_no_statistics) {
  const graft::tensor_info info = graft::describe(at::tensor({NAN, INFINITY, NAN}));
  EXPECT_EQ(info.nan_count, 2);
  EXPECT_EQ(info.inf_count, 1);
  EXPECT_FALSE(info.min.has_value());
  EXPECT_FALSE(info.mean.has_value());
}

TEST(describe, integer_and_bool_tensors) {
  const graft::tensor_info ints = graft::describe(at::tensor({3, -1, 7}, at::kInt));
  EXPECT_EQ(ints.dtype, "int32");
  EXPECT_EQ(ints.min, -1.0);
  EXPECT_EQ(ints.max, 7.0);
  EXPECT_EQ(ints.mean, 3.0);
  const graft::tensor_info bools = graft::describe(at::tensor({1, 0, 1, 1}).to(at::kBool));
  EXPECT_EQ(bools.dtype, "bool");
  EXPECT_EQ(bools.min, 0.0);
  EXPECT_EQ(bools.max, 1.0);
  EXPECT_EQ(bools.mean, 0.75);
}

TEST(describe, low_precision_floats_use_stored_values) {
  for (const at::ScalarType type : {at::kBFloat16, at::kHalf}) {
    const at::Tensor t = at::tensor({0.1f, -3.3f, INFINITY}).to(type);
    const graft::tensor_info info = graft::describe(t);
    const at::Tensor finite = t.slice(0, 0, 2).to(at::kDouble);
    EXPECT_EQ(info.min, finite.min().item<double>());
    EXPECT_EQ(info.max, finite.max().item<double>());
    EXPECT_EQ(info.inf_count, 1);
  }
}

TEST(describe, large_tensor_over_many_chunks) {
  at::manual_seed(5);
  const at::Tensor t = at::randn({777'777}, at::kDouble);
  const graft::tensor_info info = graft::describe(t);
  EXPECT_EQ(info.min, t.min().item<double>());
  EXPECT_EQ(info.max, t.max().item<double>());
  const double mean = t.mean().item<double>();
  EXPECT_NEAR(*info.mean, mean, 1e-12);
}

TEST(describe, dtypes_without_ordered_values_keep_layout_only) {
  const graft::tensor_info complex = graft::describe(at::ones({2, 2}, at::kComplexFloat));
  EXPECT_EQ(complex.dtype, "complex64");
  EXPECT_EQ(complex.numel, 4);
  EXPECT_FALSE(complex.min.has_value());

  const graft::tensor_info quantized =
      graft::describe(at::quantize_per_tensor(at::ones({3}), 0.1, 0, at::kQUInt8));
  EXPECT_EQ(quantized.dtype, "quint8");
  EXPECT_FALSE(quantized.min.has_value());

  const graft::tensor_info meta =
      graft::describe(at::empty({2, 3}, at::TensorOptions().device(at::kMeta)));
  EXPECT_EQ(meta.device, "meta");
  EXPECT_EQ(meta.numel, 6);
  EXPECT_FALSE(meta.min.has_value());

  const graft::tensor_info sparse = graft::describe(at::eye(3).to_sparse());
  EXPECT_EQ(sparse.shape, (shape_t{3, 3}));
  EXPECT_TRUE(sparse.stride.empty());
  EXPECT_FALSE(sparse.min.has_value());
}

// A nested tensor has no single shape: asking libtorch for one throws, so
// describing it must not.
TEST(describe, nested_tensor_keeps_dtype_and_count_without_a_shape) {
  const at::Tensor nested = at::_nested_tensor_from_tensor_list({at::ones({2, 3}), at::ones({4, 3})});
  for (const graft::tensor_info& info : {graft::describe(nested), graft::describe_layout(nested)}) {
    EXPECT_TRUE(info.shape.empty());
    EXPECT_TRUE(info.stride.empty());
    EXPECT_EQ(info.dtype, "float32");
    EXPECT_EQ(info.numel, 18);
    EXPECT_FALSE(info.min.has_value());
    EXPECT_EQ(info.nan_count, 0);
  }
}

TEST(describe, undefined_tensor_throws) {
  EXPECT_THROW(graft::describe(at::Tensor()), graft::error);
}

TEST(tensor_info_json, all_fields) {
  const nlohmann::json j = graft::describe(at::tensor({1.0, -3.0, NAN}).reshape({1, 3}));
  EXPECT_EQ(j.at("shape"), (nlohmann::json{1, 3}));
  EXPECT_EQ(j.at("stride"), (nlohmann::json{3, 1}));
  EXPECT_EQ(j.at("dtype"), "float64");
  EXPECT_EQ(j.at("device"), "cpu");
  EXPECT_EQ(j.at("numel"), 3);
  EXPECT_EQ(j.at("min"), -3.0);
  EXPECT_EQ(j.at("max"), 1.0);
  EXPECT_EQ(j.at("mean"), -1.0);
  EXPECT_EQ(j.at("nan_count"), 1);
  EXPECT_EQ(j.at("inf_count"), 0);
  EXPECT_EQ(j.size(), 10u);
}

TEST(tensor_info_json, negative_zero_is_explicit) {
  const nlohmann::json j = graft::describe(at::tensor({-0.0}));
  EXPECT_EQ(j.at("min"), "-0.0");
  EXPECT_EQ(j.at("max"), "-0.0");
}

}  // namespace
