#include "python_event_sink.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "python_exception_text.hpp"
#include "python_values.hpp"

namespace py = pybind11;

namespace graft::python {

python_event_sink::python_event_sink(py::object callback) : callback_(share(std::move(callback))) {}

void python_event_sink::write(const event& e) {
  const py::gil_scoped_acquire gil;
  try {
    (*callback_)(json_to_python(e.to_json()));
  } catch (py::error_already_set& failure) {
    throw std::runtime_error("the Python event callback raised " + exception_text(failure));
  }
}

}  // namespace graft::python
