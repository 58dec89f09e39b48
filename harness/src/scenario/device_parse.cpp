// The scenario's "device" key: where each rank makes its tensors.
//
//   "device": "cuda"                                   every rank
//   "device": {"baseline": "cpu", "target": "cuda"}    per side
//   "device": {"target": ["cuda", "cpu"]}              per rank of a side
//
// A side left out, or the key left out, is "cpu".

#include <algorithm>

#include "scenario/parsers.hpp"

namespace graft::harness {

const std::vector<std::string>& scenario_devices() {
  static const std::vector<std::string> devices{"cpu", "cuda"};
  return devices;
}

bool scenario::is_absent(graft::role r) const { return std::find(absent.begin(), absent.end(), r) != absent.end(); }

int scenario::cuda_ranks() const {
  int count = 0;
  for (graft::role side : {graft::role::baseline, graft::role::target}) {
    if (is_absent(side)) continue;
    const auto& list = devices(side);
    count += static_cast<int>(std::count(list.begin(), list.end(), "cuda"));
  }
  return count;
}

std::string scenario::backend() const {
  const auto it = grafter.find("backend");
  return it != grafter.end() && it->is_string() ? it->get<std::string>() : "gloo";
}

namespace detail {

namespace {

std::optional<std::string> one_device(const nlohmann::json& value, const std::string& path, json_checker& check) {
  const auto& known = scenario_devices();
  if (value.is_string() && std::find(known.begin(), known.end(), value.get<std::string>()) != known.end()) {
    return value.get<std::string>();
  }
  check.add(path, "unknown device " + json_checker::describe(value) +
                      "; expected \"cpu\" or \"cuda\" (a CUDA rank runs on cuda:(graft rank % device count))");
  return std::nullopt;
}

std::vector<std::string> side_devices(const nlohmann::json& value, int world_size, const std::string& path,
                                      json_checker& check) {
  std::vector<std::string> out(static_cast<std::size_t>(world_size), "cpu");
  if (value.is_array()) {
    if (static_cast<int>(value.size()) != world_size) {
      check.add(path, "expected one device per rank of this side (" + std::to_string(world_size) + "), got " +
                          std::to_string(value.size()) + "; list " + std::to_string(world_size) +
                          " devices, or give one string for the whole side");
      return out;
    }
    for (std::size_t r = 0; r < value.size(); ++r) {
      if (auto d = one_device(value[r], json_checker::index_path(path, r), check)) out[r] = *d;
    }
  } else if (auto d = one_device(value, path, check)) {
    std::fill(out.begin(), out.end(), *d);
  }
  return out;
}

}  // namespace

void parse_devices(const nlohmann::json& document, scenario& s, json_checker& check) {
  s.baseline_devices.assign(static_cast<std::size_t>(s.baseline_world_size), "cpu");
  s.target_devices.assign(static_cast<std::size_t>(s.target_world_size), "cpu");
  const auto it = document.find("device");
  if (it == document.end()) return;
  if (!it->is_object()) {
    s.baseline_devices = side_devices(*it, s.baseline_world_size, "device", check);
    s.target_devices = side_devices(*it, s.target_world_size, "device", check);
    return;
  }
  check.known_keys(*it, "device", {"baseline", "target"});
  for (graft::role side : {graft::role::baseline, graft::role::target}) {
    const std::string key(to_string(side));
    if (!it->contains(key)) continue;
    (side == graft::role::baseline ? s.baseline_devices : s.target_devices) =
        side_devices((*it)[key], s.world_size(side), json_checker::key_path("device", key), check);
  }
}

}  // namespace detail

}  // namespace graft::harness
