#pragma once
// Transforms written in Python. A dotted transform_path (pkg.module.symbol,
// the reference's form) is loaded once, by graft._transforms, into a callable
// transform(graft_input) -> Tensor; the grafter calls it with the GIL taken
// around the call only. LIBRARY:SYMBOL and builtin: specs load as in C++.

#include <functional>
#include <string_view>

#include <pybind11/pybind11.h>

#include <graft/transform.hpp>

namespace graft::python {

// The grafter's transform loader: dotted specs through python_loader (a
// callable path -> transform callable that raises TransformLoadError with a
// kind), everything else through graft::load_transform.
std::function<transform(std::string_view spec)> make_transform_loader(pybind11::object python_loader);

// callable as a graft transform named name. Its candidate must be a tensor;
// anything it raises becomes a std::runtime_error with the traceback's last
// line (a transform_raised skip), a result that is no tensor a transform_error.
transform python_callable_transform(std::string name, pybind11::object callable);

}  // namespace graft::python
