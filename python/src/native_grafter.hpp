#pragma once
// graft._graft.NativeGrafter: graft::grafter for graft.Grafter (graft/_grafter.py),
// which turns the Python call's keywords into the dicts this takes.

#include <cstdint>
#include <memory>
#include <string>

#include <pybind11/pybind11.h>

#include <graft/config.hpp>
#include <graft/grafter.hpp>

namespace graft::python {

class native_grafter {
 public:
  // events: None (stderr lines), a path (JSON lines) or a callable (dicts).
  // transform_loader: graft._transforms.load_python_transform.
  // group_init_notes: None or a dict the group_init event carries as well.
  native_grafter(const graft_config& config, int rank, int world_size, const pybind11::object& events,
                 pybind11::object transform_loader, const pybind11::handle& group_init_notes);

  // The tensor is read and, on a receiving rank, overwritten with the GIL
  // released; tags and extras are converted before.
  void intercept(const pybind11::handle& tensor, const pybind11::dict& tags, const pybind11::handle& extras);
  void intercept_non_tensor(const std::string& type_name, const pybind11::dict& tags);

  bool active() const { return grafter_->active(); }
  std::uint64_t matched_calls() const { return grafter_->matched_calls(); }

 private:
  std::unique_ptr<grafter> grafter_;
};

// Registers NativeGrafter, Filter, check_env_map and side_rank_from_env on the module.
void bind_grafter(pybind11::module_& module);

}  // namespace graft::python
