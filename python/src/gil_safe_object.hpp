#pragma once
// A Python object that C++ may copy and drop on any thread. The grafter keeps
// transforms and sinks in std::function and shared_ptr copies, and drops them
// wherever it likes, some with the GIL released: the last reference is
// released with the GIL taken.

#include <memory>
#include <utility>

#include <pybind11/pybind11.h>

namespace graft::python {

using shared_object = std::shared_ptr<const pybind11::object>;

inline shared_object share(pybind11::object object) {
  return shared_object(new pybind11::object(std::move(object)), [](const pybind11::object* held) {
    const pybind11::gil_scoped_acquire gil;
    delete held;
  });
}

}  // namespace graft::python
