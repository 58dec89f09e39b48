#include <graft/harness/worker_protocol.hpp>

namespace graft::harness {

std::string worker_files::stem() const { return std::string(to_string(side)) + "-" + std::to_string(rank); }

std::string resolve_transform_spec(const std::string& spec, const std::filesystem::path& plugins_dir) {
  const std::size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon == 0) return spec;
  const std::string library = spec.substr(0, colon);
  if (library == "builtin" || library.find_first_of("/.:") != std::string::npos) return spec;
  return (plugins_dir / ("libgraft_" + library + "_transform.so")).string() + spec.substr(colon);
}

nlohmann::json worker_grafter_settings(const scenario& s, graft::role side, int port,
                                       const std::filesystem::path& plugins_dir) {
  nlohmann::json json = s.grafter;
  json["enable"] = true;
  json["role"] = std::string(to_string(side));
  json["master_address"] = "127.0.0.1";
  json["master_port"] = port;
  json["baseline_world_size"] = s.baseline_world_size;
  json["target_world_size"] = s.target_world_size;
  if (!json.contains("timeout")) json["timeout"] = kDefaultWorkerGraftTimeout;
  if (json.contains("transform_path") && json["transform_path"].is_string()) {
    json["transform_path"] = resolve_transform_spec(json["transform_path"].get<std::string>(), plugins_dir);
  }
  return json;
}

namespace {

std::string_view source_name(tensor_spec::source source) {
  switch (source) {
    case tensor_spec::source::values: return "values";
    case tensor_spec::source::fill: return "fill";
    case tensor_spec::source::arange: return "arange";
    case tensor_spec::source::random: return "random";
    case tensor_spec::source::from: return "from";
  }
  return "?";
}

nlohmann::json spec_json(const tensor_spec& t) {
  return {{"source", source_name(t.kind)},
          {"dtype", t.dtype ? nlohmann::json(*t.dtype) : nlohmann::json()},
          {"shape", t.shape},
          {"values", t.values},
          {"fill", t.fill},
          {"start", t.start},
          {"step", t.step},
          {"seed", t.seed},
          {"distribution", t.distribution},
          {"from", t.from},
          {"scale", t.scale},
          {"offset", t.offset},
          {"layout", t.layout}};
}

}  // namespace

nlohmann::json rank_plan(const scenario& s, const worker_files& f, int port, int side_port,
                         const std::filesystem::path& plugins_dir) {
  nlohmann::json steps = nlohmann::json::array();
  for (const scenario_step& step : s.steps) {
    const rank_call& call = step.calls(f.side)[static_cast<std::size_t>(f.rank)];
    steps.push_back({{"step", step.name},
                     {"runs", call.runs},
                     {"name", call.name},
                     {"tags", step.tags},
                     {"var", step.var},
                     {"tensor", call.tensor ? spec_json(*call.tensor) : nlohmann::json()},
                     {"non_tensor", call.non_tensor ? nlohmann::json(*call.non_tensor) : nlohmann::json()},
                     {"extras", call.extras}});
  }
  return {{"schema_version", kWorkerResultSchemaVersion},
          {"scenario", s.name},
          {"role", std::string(to_string(f.side))},
          {"local_rank", f.rank},
          {"graft_rank", f.side == graft::role::baseline ? f.rank : s.baseline_world_size + f.rank},
          {"world", {{"baseline", s.baseline_world_size}, {"target", s.target_world_size}}},
          {"device", s.devices(f.side)[static_cast<std::size_t>(f.rank)]},
          {"grafter", worker_grafter_settings(s, f.side, port, plugins_dir)},
          {"side_port", side_port},
          {"steps", std::move(steps)}};
}

}  // namespace graft::harness
