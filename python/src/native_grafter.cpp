#include "native_grafter.hpp"

#include <map>
#include <string>
#include <utility>

#include <torch/csrc/autograd/python_variable.h>

#include <graft/error.hpp>
#include <graft/event_sink.hpp>
#include <graft/filter.hpp>

#include "python_event_sink.hpp"
#include "python_transform.hpp"
#include "python_values.hpp"

namespace py = pybind11;

namespace graft::python {
namespace {

std::shared_ptr<event_sink> sink_for(const py::object& events) {
  if (events.is_none()) return nullptr;
  if (py::isinstance<py::str>(events)) return std::make_shared<jsonl_file_sink>(events.cast<std::string>());
  return std::make_shared<python_event_sink>(events);
}

// A dict of DUMPER_GRAFTER_* names to their text, as the environment holds them.
graft_config config_from_env_map(const py::dict& env) {
  std::map<std::string, std::string> names;
  for (const auto& [name, value] : env) {
    if (!py::isinstance<py::str>(name) || !py::isinstance<py::str>(value)) {
      throw py::type_error("settings: expected a dict of str to str, as the environment holds them");
    }
    names.emplace(name.cast<std::string>(), value.cast<std::string>());
  }
  return graft_config::from_env_map(names);
}

}  // namespace

native_grafter::native_grafter(const graft_config& config, int rank, int world_size, const py::object& events,
                               py::object transform_loader, const py::handle& group_init_notes) {
  grafter_options options;
  options.group_init_notes = json_from_python(group_init_notes, "group_init_notes");
  // Only an enabled grafter writes events: a disabled one leaves the file alone.
  if (config.enable) options.sink = sink_for(events);
  options.load_transform = make_transform_loader(std::move(transform_loader));
  grafter_ = std::make_unique<grafter>(config, side_rank{rank, world_size}, std::move(options));
}

void native_grafter::intercept(const py::handle& tensor, const py::dict& tags, const py::handle& extras) {
  if (!THPVariable_Check(tensor.ptr())) {
    throw py::type_error("intercept: expected a torch.Tensor");
  }
  const at::Tensor& value = THPVariable_Unpack(tensor.ptr());
  const graft::tags t = tags_from_python(tags);
  const nlohmann::json sent_extras = json_from_python(extras, "extras");
  const py::gil_scoped_release released;
  grafter_->maybe_intercept(value, t, sent_extras);
}

void native_grafter::intercept_non_tensor(const std::string& type_name, const py::dict& tags) {
  const graft::tags t = tags_from_python(tags);
  const py::gil_scoped_release released;
  grafter_->maybe_intercept_non_tensor(type_name, t);
}

void bind_grafter(py::module_& module) {
  py::class_<native_grafter>(module, "NativeGrafter")
      .def(py::init([](const py::dict& settings, int rank, int world_size, const py::object& events,
                       py::object loader) {
             return std::make_unique<native_grafter>(
                 graft_config::from_json(json_from_python(settings, "grafter config")), rank, world_size,
                 events, std::move(loader), py::none());
           }),
           py::arg("settings"), py::arg("rank"), py::arg("world_size"), py::arg("events"),
           py::arg("transform_loader"))
      .def_static(
          "from_env",
          [](int rank, int world_size, const py::object& events, py::object loader) {
            return std::make_unique<native_grafter>(graft_config::from_env(), rank, world_size, events,
                                                    std::move(loader), py::none());
          },
          py::arg("rank"), py::arg("world_size"), py::arg("events"), py::arg("transform_loader"))
      .def_static(
          "from_env_map",
          [](const py::dict& env, int rank, int world_size, const py::object& events, py::object loader,
             const py::object& group_init_notes) {
            return std::make_unique<native_grafter>(config_from_env_map(env), rank, world_size, events,
                                                    std::move(loader), group_init_notes);
          },
          py::arg("env"), py::arg("rank"), py::arg("world_size"), py::arg("events"), py::arg("transform_loader"),
          py::arg("group_init_notes"))
      .def("intercept", &native_grafter::intercept, py::arg("tensor"), py::arg("tags"), py::arg("extras"))
      .def("intercept_non_tensor", &native_grafter::intercept_non_tensor, py::arg("type_name"), py::arg("tags"))
      .def_property_readonly("active", &native_grafter::active)
      .def_property_readonly("matched_calls", &native_grafter::matched_calls);

  // What an enabled grafter would refuse in these settings, raised now: the
  // sglang bridge checks them when sglang's dumper is made, not at a dump call.
  module.def(
      "check_env_map", [](const py::dict& env) { config_from_env_map(env).validate(); }, py::arg("env"));

  py::class_<filter>(module, "Filter")
      .def(py::init([](const std::string& expression, const std::string& field) {
             return std::make_unique<filter>(filter::compile(expression, field));
           }),
           py::arg("expression"), py::arg("field"))
      .def("matches", [](const filter& f, const py::dict& tags) { return f.matches(tags_from_python(tags)); },
           py::arg("tags"));

  module.def("side_rank_from_env", [] {
    const side_rank local = side_rank_from_env();
    return py::make_tuple(local.rank, local.world_size);
  });
}

}  // namespace graft::python
