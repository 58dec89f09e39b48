#include "python_transform.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include <torch/csrc/autograd/python_variable.h>

#include <graft/error.hpp>
#include <graft/role.hpp>
#include <graft/transform_loader.hpp>

#include "gil_safe_object.hpp"
#include "python_exception_text.hpp"
#include "python_values.hpp"

namespace py = pybind11;

namespace graft::python {
namespace {

plugin_load_error_kind kind_named(const std::string& name) {
  for (const auto kind : {plugin_load_error_kind::malformed_spec, plugin_load_error_kind::library_not_found,
                          plugin_load_error_kind::symbol_not_found, plugin_load_error_kind::not_a_transform,
                          plugin_load_error_kind::abi_mismatch}) {
    if (to_string(kind) == name) return kind;
  }
  throw std::logic_error("graft._transforms raised TransformLoadError of unknown kind '" + name + "'");
}

py::list tensors_to_python(const std::vector<at::Tensor>& tensors) {
  py::list out;
  for (const at::Tensor& t : tensors) out.append(py::reinterpret_steal<py::object>(THPVariable_Wrap(t)));
  return out;
}

py::object graft_input_to_python(const py::object& input_class, const graft_transform_input& in) {
  py::list extras;
  for (const nlohmann::json& e : in.received_extras_list) extras.append(json_to_python(e));
  py::list senders;
  for (const int rank : in.sender_ranks) senders.append(rank);
  return input_class(py::arg("tags") = tags_to_python(in.tags),
                     py::arg("received_list") = tensors_to_python(in.received_list),
                     py::arg("received_extras_list") = std::move(extras),
                     py::arg("target") = py::reinterpret_steal<py::object>(THPVariable_Wrap(in.target)),
                     py::arg("direction") = std::string(to_string(in.direction)),
                     py::arg("recv_rank") = in.recv_rank, py::arg("recv_world_size") = in.recv_world_size,
                     py::arg("sender_ranks") = std::move(senders));
}

}  // namespace

transform python_callable_transform(std::string name, py::object callable) {
  const shared_object function = share(std::move(callable));
  const shared_object input_class = share(py::module_::import("graft._transforms").attr("GraftInput"));
  transform out;
  out.name = name;
  out.fn = [name, function, input_class](const graft_transform_input& in) -> at::Tensor {
    const py::gil_scoped_acquire gil;
    py::object candidate;
    try {
      candidate = (*function)(graft_input_to_python(*input_class, in));
    } catch (py::error_already_set& failure) {
      throw std::runtime_error(exception_text(failure));
    }
    if (!THPVariable_Check(candidate.ptr())) {
      throw transform_error("transform '" + name + "' returned " +
                            py::str(py::type::handle_of(candidate).attr("__name__")).cast<std::string>() +
                            ", not a tensor; a transform returns the tensor to write into graft_input.target");
    }
    return THPVariable_Unpack(candidate.ptr());
  };
  return out;
}

std::function<transform(std::string_view spec)> make_transform_loader(py::object python_loader) {
  const shared_object loader = share(std::move(python_loader));
  return [loader](std::string_view spec) -> transform {
    if (!is_python_transform_spec(spec)) return load_transform(spec);
    const py::gil_scoped_acquire gil;
    py::object callable;
    try {
      callable = (*loader)(std::string(spec));
    } catch (py::error_already_set& failure) {
      if (failure.matches(py::module_::import("graft._transforms").attr("TransformLoadError"))) {
        const std::string kind = py::str(failure.value().attr("kind"));
        const std::string message = py::str(failure.value());
        throw plugin_load_error(kind_named(kind), message);
      }
      throw std::runtime_error("loading transform '" + std::string(spec) + "' raised " + exception_text(failure));
    }
    return python_callable_transform(std::string(spec), std::move(callable));
  };
}

}  // namespace graft::python
