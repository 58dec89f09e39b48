#include "worker/tensor_factory.hpp"

#include <optional>
#include <string>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <graft/harness/errors.hpp>
#include <graft/harness/json_format.hpp>
#include <graft/tensor_info.hpp>

#include "scenario/dtype_values.hpp"

namespace graft::harness::worker {

namespace {

at::ScalarType scalar_type(const std::string& dtype) {
  if (dtype == "float64") return at::kDouble;
  if (dtype == "float16") return at::kHalf;
  if (dtype == "bfloat16") return at::kBFloat16;
  if (dtype == "int32") return at::kInt;
  if (dtype == "int64") return at::kLong;
  return at::kFloat;
}

// The scenario name of a dtype ("" for one no scenario makes).
std::string scenario_dtype_name(at::ScalarType type) {
  for (const auto& name : scenario_dtypes()) {
    if (scalar_type(name) == type) return name;
  }
  return "";
}

double decode(const nlohmann::json& v) {
  double out = 0;
  if (v.is_string() && decode_special_float(v.get<std::string>(), &out)) return out;
  return v.get<double>();
}

// t itself, or a strided copy of a sparse t.
at::Tensor dense_values(const at::Tensor& t) { return t.layout() == at::kStrided ? t : t.to_dense(); }

// A `from` spec's values are known only here, on the rank: the first one its
// dtype cannot hold is a fixture error, with how many more there are.
void check_from_values(const tensor_spec& spec, const at::Tensor& values, const std::string& dtype) {
  const double* data = values.data_ptr<double>();
  const std::int64_t n = values.numel();
  std::optional<std::string> first;
  std::int64_t first_index = 0, count = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    auto problem = detail::dtype_value_problem(data[i], detail::number_text(data[i]), dtype);
    if (!problem) continue;
    if (count++ == 0) first = std::move(problem), first_index = i;
  }
  if (!first) return;
  GRAFT_THROW(fixture_error, "tensor.from: \"" + spec.from + "\" * " + format_float(spec.scale) + " + " +
                                 format_float(spec.offset) + ", element " + std::to_string(first_index) + ": " +
                                 *first + " (" + std::to_string(count) + " of " + std::to_string(n) +
                                 " elements cannot be held)");
}

// The spec's values as a dense tensor of its dtype.
at::Tensor make_dense(const tensor_spec& spec, const std::map<std::string, at::Tensor>& vars) {
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  at::Tensor t;
  switch (spec.kind) {
    case tensor_spec::source::values: {
      std::vector<double> values;
      for (const auto& v : spec.values) values.push_back(decode(v));
      t = at::tensor(values, f64).reshape(spec.shape);
      break;
    }
    case tensor_spec::source::fill:
      t = at::full(spec.shape, spec.fill, f64);
      break;
    case tensor_spec::source::arange: {
      std::int64_t numel = 1;
      for (auto d : spec.shape) numel *= d;
      t = (at::arange(numel, f64) * spec.step + spec.start).reshape(spec.shape);
      break;
    }
    case tensor_spec::source::random: {
      at::Generator generator = at::detail::createCPUGenerator(spec.seed);
      t = spec.distribution == "uniform" ? at::rand(spec.shape, generator, f64) : at::randn(spec.shape, generator, f64);
      break;
    }
    case tensor_spec::source::from: {
      const auto it = vars.find(spec.from);
      if (it == vars.end()) {
        GRAFT_THROW(fixture_error, "tensor.from: variable \"" + spec.from + "\" holds no tensor on this rank");
      }
      // On the host: the variable may live on a CUDA device, and the check reads the values.
      t = (dense_values(it->second).to(at::kCPU).to(at::kDouble) * spec.scale + spec.offset).contiguous();
      const at::ScalarType type = spec.dtype ? scalar_type(*spec.dtype) : it->second.scalar_type();
      check_from_values(spec, t, scenario_dtype_name(type));
      return t.to(type).contiguous();
    }
  }
  return t.to(scalar_type(spec.dtype.value_or("float32"))).contiguous();
}

}  // namespace

at::Tensor make_tensor(const tensor_spec& spec, const std::map<std::string, at::Tensor>& vars) {
  const at::Tensor dense = make_dense(spec, vars);
  return spec.layout == "sparse" ? dense.to_sparse() : dense;
}

nlohmann::json tensor_value(const at::Tensor& t) {
  const at::Tensor dense = dense_values(t.detach()).to(at::kCPU).contiguous();
  const at::Tensor flat = dense.to(at::kDouble).flatten();
  nlohmann::json values = nlohmann::json::array();
  const double* data = flat.data_ptr<double>();
  for (std::int64_t i = 0; i < flat.numel(); ++i) values.push_back(data[i]);
  // The elements' own bytes: what "unchanged" compares, so that a change
  // below any printed precision, a zero's sign or a NaN's payload shows.
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* bytes = static_cast<const unsigned char*>(dense.data_ptr());
  const auto size = static_cast<std::size_t>(dense.numel()) * dense.element_size();
  std::string hex;
  hex.reserve(2 * size);
  for (std::size_t i = 0; i < size; ++i) {
    hex += kHex[bytes[i] >> 4];
    hex += kHex[bytes[i] & 0xF];
  }
  return {{"dtype", dtype_name(t)},
          {"shape", t.sizes().vec()},
          {"values", encode_special_floats(values)},
          {"element_size", dense.element_size()},
          {"bytes", hex}};
}

}  // namespace graft::harness::worker
