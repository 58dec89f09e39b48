#include <graft/harness/json_format.hpp>

#include <optional>
#include <string>

#include "scenario/dtype_values.hpp"
#include "scenario/parsers.hpp"

namespace graft::harness {

const std::vector<std::string>& scenario_dtypes() {
  static const std::vector<std::string> dtypes = {"float32", "float64", "float16", "bfloat16", "int32", "int64"};
  return dtypes;
}

namespace detail {

namespace {

// The element count, or nullopt beyond kMaxScenarioTensorElements (checked
// per factor, so that no product overflows).
std::optional<std::int64_t> element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d > kMaxScenarioTensorElements) return std::nullopt;
    n *= d;
    if (n > kMaxScenarioTensorElements) return std::nullopt;
  }
  return n;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

bool is_integer_dtype(const std::string& dtype) { return dtype == "int32" || dtype == "int64"; }

// The literal numbers of a spec, each checked against its dtype: each value,
// the fill, or arange's start and last element (and, for an integer dtype, its
// step, which must be whole for every element to be).
void check_literals(const tensor_spec& spec, const std::string& path, json_checker& check) {
  const std::string dtype = spec.dtype.value_or("float32");
  // shown: the literal as written, when it is one (an integer beyond float64's
  // precision reads back as another number).
  const auto check_value = [&](double v, const std::string& at, const std::string& shown) {
    if (auto problem = dtype_value_problem(v, shown, dtype)) check.add(at, *problem);
  };
  switch (spec.kind) {
    case tensor_spec::source::values:
      for (std::size_t i = 0; i < spec.values.size(); ++i) {
        double v = 0;
        const auto& item = spec.values[i];
        if (item.is_number()) v = item.get<double>();
        else decode_special_float(item.get<std::string>(), &v);
        check_value(v, json_checker::index_path(json_checker::key_path(path, "values"), i),
                    item.is_number_integer() ? item.dump() : number_text(v));
      }
      break;
    case tensor_spec::source::fill:
      check_value(spec.fill, json_checker::key_path(path, "fill"), number_text(spec.fill));
      break;
    case tensor_spec::source::arange: {
      const std::string at = json_checker::key_path(path, "arange");
      check_value(spec.start, json_checker::key_path(at, "start"), number_text(spec.start));
      if (is_integer_dtype(dtype)) check_value(spec.step, json_checker::key_path(at, "step"), number_text(spec.step));
      if (const auto n = element_count(spec.shape); n && *n > 0) {
        const double last = spec.start + spec.step * static_cast<double>(*n - 1);
        check_value(last, at + " (its last element)", number_text(last));
      }
      break;
    }
    case tensor_spec::source::random:
      if (is_integer_dtype(dtype)) {
        check.add(json_checker::key_path(path, "random"),
                  "draws float values (uniform in [0, 1), or normal around 0), which an " + dtype +
                      " tensor would truncate to mostly zeros; use \"values\" or \"arange\" for an integer "
                      "tensor, or a float dtype");
      }
      break;
    case tensor_spec::source::from:
      break;
  }
}

}  // namespace

bool check_value_list(const nlohmann::json& value, const std::string& path, json_checker& check) {
  if (!value.is_array()) {
    check.add(path, "expected a flat array of numbers, got " + json_checker::describe(value));
    return false;
  }
  bool ok = true;
  for (std::size_t i = 0; i < value.size(); ++i) {
    double ignored = 0;
    const auto& item = value[i];
    if (item.is_number() || (item.is_string() && decode_special_float(item.get<std::string>(), &ignored))) continue;
    check.add(json_checker::index_path(path, i),
              "expected a number or \"NaN\"/\"Inf\"/\"-Inf\"/\"-0.0\", got " + json_checker::describe(item));
    ok = false;
  }
  return ok;
}

std::optional<tensor_spec> parse_tensor_spec(const nlohmann::json& value, const std::string& path,
                                             json_checker& check) {
  if (!check.is_object(value, path)) return std::nullopt;
  check.known_keys(value, path,
                   {"dtype", "shape", "values", "fill", "arange", "random", "from", "scale", "offset", "layout"});
  tensor_spec spec;
  const std::size_t before = check.problems().size();
  spec.dtype = check.choice(value, "dtype", path, scenario_dtypes(), false);
  spec.layout = check.choice(value, "layout", path, {"strided", "sparse"}, false).value_or("strided");
  if (auto shape = check.int_array(value, "shape", path, false)) {
    spec.shape = *shape;
    if (!element_count(spec.shape)) {
      check.add(json_checker::key_path(path, "shape"),
                shape_text(spec.shape) + " holds more than " + std::to_string(kMaxScenarioTensorElements) +
                    " elements, a scenario tensor's limit; scenarios check correctness, so use a smaller shape");
    }
  }

  int sources = 0;
  for (const char* key : {"values", "fill", "arange", "random", "from"}) sources += value.contains(key) ? 1 : 0;
  if (sources != 1) {
    check.add(path, "expected exactly one of \"values\", \"fill\", \"arange\", \"random\", \"from\" (found " +
                        std::to_string(sources) + ")");
    return std::nullopt;
  }
  const bool has_shape = value.contains("shape");
  if (value.contains("values")) {
    spec.kind = tensor_spec::source::values;
    spec.values = value["values"];
    if (check_value_list(spec.values, json_checker::key_path(path, "values"), check)) {
      const auto n = static_cast<std::int64_t>(spec.values.size());
      const auto count = element_count(spec.shape);
      if (!has_shape) spec.shape = {n};
      else if (count && *count != n) {
        check.add(json_checker::key_path(path, "shape"),
                  "holds " + std::to_string(*count) + " elements but \"values\" has " + std::to_string(n) +
                      "; make them agree");
      }
    }
  } else if (value.contains("fill")) {
    spec.kind = tensor_spec::source::fill;
    if (auto fill = check.number(value, "fill", path, true)) spec.fill = *fill;
  } else if (value.contains("arange")) {
    spec.kind = tensor_spec::source::arange;
    const auto& arange = value["arange"];
    const std::string at = json_checker::key_path(path, "arange");
    if (arange.is_object()) {
      check.known_keys(arange, at, {"start", "step"});
      spec.start = check.number(arange, "start", at, false).value_or(0);
      spec.step = check.number(arange, "step", at, false).value_or(1);
    } else if (!arange.is_boolean() || !arange.get<bool>()) {
      check.add(at, "expected true or {\"start\": S, \"step\": D}, got " + json_checker::describe(arange));
    }
  } else if (value.contains("random")) {
    spec.kind = tensor_spec::source::random;
    const auto& random = value["random"];
    const std::string at = json_checker::key_path(path, "random");
    if (check.is_object(random, at)) {
      check.known_keys(random, at, {"seed", "distribution"});
      if (auto seed = check.integer(random, "seed", at, true)) {
        if (*seed < 0) check.add(json_checker::key_path(at, "seed"), "expected an integer >= 0");
        spec.seed = static_cast<std::uint64_t>(*seed);
      }
      spec.distribution = check.choice(random, "distribution", at, {"normal", "uniform"}, false).value_or("normal");
    }
  } else {
    spec.kind = tensor_spec::source::from;
    spec.from = check.string(value, "from", path, true).value_or("");
    if (has_shape) check.add(json_checker::key_path(path, "shape"), "not allowed with \"from\" (the variable's shape is used)");
  }
  if (spec.kind != tensor_spec::source::from) {
    for (const char* key : {"scale", "offset"}) {
      if (value.contains(key)) check.add(json_checker::key_path(path, key), "only allowed with \"from\"");
    }
    if (!has_shape && spec.kind != tensor_spec::source::values) {
      check.add(json_checker::key_path(path, "shape"), "required array of ints is missing");
    }
  } else {
    spec.scale = check.number(value, "scale", path, false).value_or(1);
    spec.offset = check.number(value, "offset", path, false).value_or(0);
  }
  if (check.problems().size() != before) return std::nullopt;
  check_literals(spec, path, check);
  if (check.problems().size() != before) return std::nullopt;
  return spec;
}

}  // namespace detail
}  // namespace graft::harness
