#pragma once
// A Python exception as one line for an event: the traceback's last line
// ("ValueError: boom") and where it was raised ("at transforms.py:12 in f").

#include <string>

#include <pybind11/pybind11.h>

namespace graft::python {

// Needs the GIL.
std::string exception_text(pybind11::error_already_set& failure);

}  // namespace graft::python
