#include "python_exception_text.hpp"

namespace py = pybind11;

namespace graft::python {

std::string exception_text(py::error_already_set& failure) {
  std::string text;
  try {
    const py::module_ traceback = py::module_::import("traceback");
    const py::list lines = traceback.attr("format_exception_only")(failure.type(), failure.value());
    text = py::str(lines[py::len(lines) - 1]).cast<std::string>();
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    const py::object frames = traceback.attr("extract_tb")(failure.trace());
    if (py::len(frames) > 0) {
      const py::object innermost = frames[py::int_(-1)];
      text += " (at " + py::str(innermost.attr("filename")).cast<std::string>() + ":" +
              py::str(innermost.attr("lineno")).cast<std::string>() + " in " +
              py::str(innermost.attr("name")).cast<std::string>() + ")";
    }
  } catch (const py::error_already_set&) {
    text = failure.what();
  }
  return text;
}

}  // namespace graft::python
