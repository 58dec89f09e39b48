#pragma once
// Events to a Python callable, one dict per event (the JSON record's fields).
// The callable runs with the GIL taken, on the thread that grafts. What it
// raises reaches the grafter as a std::runtime_error with the Python
// exception's text, and the grafter then prints that event to stderr.

#include <pybind11/pybind11.h>

#include <graft/event_sink.hpp>

#include "gil_safe_object.hpp"

namespace graft::python {

class python_event_sink final : public event_sink {
 public:
  explicit python_event_sink(pybind11::object callback);
  void write(const event& e) override;

 private:
  shared_object callback_;
};

}  // namespace graft::python
