#include <graft/tensor_info.hpp>

#include <string>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <graft/error.hpp>
#include <graft/metrics.hpp>

#include <graft/ascii_lower.hpp>
#include "stats/passes.hpp"
#include "stats/write_measure.hpp"

namespace graft {
namespace {

// Statistics need readable, ordered values: a strided tensor with storage
// and a real dtype. Anything else (complex, quantized, meta, sparse, nested) is
// described by its layout alone.
bool has_value_stats(const at::Tensor& t) {
  return t.numel() > 0 && t.layout() == at::kStrided && !t.is_nested() && !t.is_meta() &&
         detail::is_real_dtype(t.scalar_type());
}

}  // namespace

std::string dtype_name(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kByte: return "uint8";
    case at::kChar: return "int8";
    case at::kShort: return "int16";
    case at::kInt: return "int32";
    case at::kLong: return "int64";
    case at::kBool: return "bool";
    case at::kComplexHalf: return "complex32";
    case at::kComplexFloat: return "complex64";
    case at::kComplexDouble: return "complex128";
    default: break;
  }
  // The remaining ATen names (QInt8, QUInt4x2, and the float8 and unsigned
  // types of later releases) differ from torch's only in case.
  return ascii_lower(c10::toString(t.scalar_type()));
}

namespace detail {

tensor_info describe_with(const at::Tensor& t, const std::vector<std::int64_t>& stride,
                          const value_stats& s) {
  tensor_info info;
  info.shape = t.sizes().vec();
  info.stride = stride;
  info.dtype = dtype_name(t);
  info.device = t.device().str();
  info.numel = t.numel();
  info.nan_count = s.nan_count;
  info.inf_count = s.inf_count;
  if (s.finite_count > 0) {
    info.min = s.min;
    info.max = s.max;
    info.mean = s.sum / static_cast<double>(s.finite_count);
  }
  return info;
}

}  // namespace detail

tensor_info describe_layout(const at::Tensor& t) {
  if (!t.defined()) {
    GRAFT_THROW(error, "describe: the tensor is undefined; pass a defined at::Tensor");
  }
  tensor_info info;
  // A nested tensor has no single shape (asking for one throws): its shape
  // and stride stay empty. Only strided tensors have strides; asking a
  // sparse one throws.
  if (!t.is_nested()) info.shape = t.sizes().vec();
  if (t.layout() == at::kStrided && !t.is_nested()) info.stride = t.strides().vec();
  info.dtype = dtype_name(t);
  info.device = t.device().str();
  info.numel = t.numel();
  info.measured = false;
  return info;
}

tensor_info describe(const at::Tensor& t) {
  tensor_info info = describe_layout(t);
  info.measured = true;
  if (!has_value_stats(t)) return info;

  const at::Tensor values = t.detach();
  const detail::value_stats s = values.is_cpu() && detail::has_cpu_loop(values.scalar_type())
                                    ? detail::cpu_value_stats(values)
                                    : detail::aten_value_stats(values);
  return detail::describe_with(t, info.stride, s);
}

void to_json(nlohmann::json& out, const tensor_info& info) {
  const auto optional_number = [](const std::optional<double>& v) {
    return v ? json_number(*v) : nlohmann::json(nullptr);
  };
  // Member by member: an initializer list would build every value twice.
  out = nlohmann::json::object();
  out["shape"] = info.shape;
  out["stride"] = info.stride;
  out["dtype"] = info.dtype;
  out["device"] = info.device;
  out["numel"] = info.numel;
  if (!info.measured) {
    out["measured"] = false;
    return;
  }
  out["min"] = optional_number(info.min);
  out["max"] = optional_number(info.max);
  out["mean"] = optional_number(info.mean);
  out["nan_count"] = info.nan_count;
  out["inf_count"] = info.inf_count;
}

}  // namespace graft
