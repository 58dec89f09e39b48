// graft._graft: the extension module under the graft package.

#include <pybind11/pybind11.h>
#include <torch/version.h>

#include <graft/error.hpp>
#include <graft/version.hpp>

#include "native_grafter.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_graft, module) {
  module.doc() = "graft's C++ grafter; use it through the graft package";
  module.attr("__version__") = graft::version();
  module.attr("torch_version") = TORCH_VERSION;  // the libtorch this module was built against

  // graft::error -> GraftError; graft::config_error -> ConfigError, a
  // ValueError too, with the same message. The types live as long as the
  // process (the module is never unloaded), so the translator keeps bare
  // pointers to them.
  static PyObject* const graft_error = PyErr_NewException("graft.GraftError", PyExc_Exception, nullptr);
  static PyObject* const config_error =
      PyErr_NewException("graft.ConfigError", py::make_tuple(py::handle(graft_error), py::handle(PyExc_ValueError)).ptr(),
                         nullptr);
  if (graft_error == nullptr || config_error == nullptr) throw py::error_already_set();
  module.attr("GraftError") = py::handle(graft_error);
  module.attr("ConfigError") = py::handle(config_error);
  py::register_exception_translator([](std::exception_ptr failure) {
    try {
      if (failure) std::rethrow_exception(failure);
    } catch (const graft::config_error& e) {
      PyErr_SetString(config_error, e.what());
    } catch (const graft::error& e) {
      PyErr_SetString(graft_error, e.what());
    }
  });

  graft::python::bind_grafter(module);
}
