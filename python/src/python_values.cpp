#include "python_values.hpp"

#include <cstdint>
#include <string>
#include <utility>

namespace py = pybind11;

namespace graft::python {
namespace {

std::string type_name(const py::handle& value) { return py::str(py::type::handle_of(value).attr("__name__")); }

[[noreturn]] void wrong_type(const std::string& where, const std::string& expected, const py::handle& value) {
  throw py::type_error(where + ": expected " + expected + ", got " + type_name(value));
}

std::int64_t int_value(const py::handle& value, const std::string& where) {
  try {
    return value.cast<std::int64_t>();
  } catch (const py::cast_error&) {
    throw py::value_error(where + ": the integer " + std::string(py::str(value)) +
                          " does not fit in 64 bits");
  }
}

}  // namespace

graft::tags tags_from_python(const py::dict& values) {
  graft::tags out;
  for (const auto& [key, value] : values) {
    if (!py::isinstance<py::str>(key)) wrong_type("tag names", "str", key);
    const std::string name = key.cast<std::string>();
    const std::string where = "tag '" + name + "'";
    // bool first: a Python bool is an int too.
    if (value.is_none()) {
      out.set(name, nullptr);
    } else if (py::isinstance<py::bool_>(value)) {
      out.set(name, value.cast<bool>());
    } else if (py::isinstance<py::int_>(value)) {
      out.set(name, int_value(value, where));
    } else if (py::isinstance<py::float_>(value)) {
      out.set(name, value.cast<double>());
    } else if (py::isinstance<py::str>(value)) {
      out.set(name, value.cast<std::string>());
    } else {
      wrong_type(where, "None, bool, int, float or str", value);
    }
  }
  return out;
}

py::dict tags_to_python(const graft::tags& t) {
  py::dict out;
  for (const auto& [key, value] : t.entries()) {
    py::object item = py::none();
    if (value.is_bool()) {
      item = py::bool_(value.as_bool());
    } else if (value.is_int()) {
      item = py::int_(value.as_int());
    } else if (value.is_double()) {
      item = py::float_(value.as_double());
    } else if (value.is_string()) {
      item = py::str(value.as_string());
    }
    out[py::str(key)] = std::move(item);
  }
  return out;
}

nlohmann::json json_from_python(const py::handle& value, const std::string& where) {
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) return int_value(value, where);
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    nlohmann::json out = nlohmann::json::array();
    std::size_t index = 0;
    for (const py::handle& item : value) {
      out.push_back(json_from_python(item, where + "[" + std::to_string(index++) + "]"));
    }
    return out;
  }
  if (py::isinstance<py::dict>(value)) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, item] : value.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key)) wrong_type(where + " keys", "str", key);
      const std::string name = key.cast<std::string>();
      out[name] = json_from_python(item, where + "['" + name + "']");
    }
    return out;
  }
  wrong_type(where, "None, bool, int, float, str, or a list or dict of them", value);
}

py::object json_to_python(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      return py::none();
    case nlohmann::json::value_t::boolean:
      return py::bool_(value.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
      return py::float_(value.get<double>());
    case nlohmann::json::value_t::string:
      return py::str(value.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& item : value) out.append(json_to_python(item));
      return std::move(out);
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [key, item] : value.items()) out[py::str(key)] = json_to_python(item);
      return std::move(out);
    }
    case nlohmann::json::value_t::binary:
      break;
  }
  return py::bytes(std::string(value.get_binary().begin(), value.get_binary().end()));
}

}  // namespace graft::python
