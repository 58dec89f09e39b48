#pragma once
// Python values to graft's and back: tags (None, bool, int, float, str),
// JSON-like extras and event records. A value of another type is a TypeError
// naming where it was found.

#include <string>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include <graft/tags.hpp>

namespace graft::python {

// A dict of tag name -> scalar, in the dict's order.
graft::tags tags_from_python(const pybind11::dict& values);
pybind11::dict tags_to_python(const graft::tags& t);

// None, bool, int, float, str, and lists/tuples/dicts (str keys) of them.
nlohmann::json json_from_python(const pybind11::handle& value, const std::string& where);
pybind11::object json_to_python(const nlohmann::json& value);

}  // namespace graft::python
