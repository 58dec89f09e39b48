#include "worker/play_rank.hpp"

#include <iostream>
#include <map>

#include <ATen/ATen.h>

#include <graft/config.hpp>
#include <graft/harness/errors.hpp>
#include <graft/event_sink.hpp>
#include <graft/exception_message.hpp>
#include <graft/grafter.hpp>

#include "worker/rank_device.hpp"
#include "worker/tensor_factory.hpp"

namespace graft::harness::worker {

namespace {

graft::tags make_tags(const std::string& name, const nlohmann::json& extra) {
  graft::tags t;
  t.set("name", name);
  for (const auto& [key, v] : extra.items()) {
    if (v.is_null()) t.set(key, nullptr);
    else if (v.is_boolean()) t.set(key, v.get<bool>());
    else if (v.is_number_integer()) t.set(key, v.get<std::int64_t>());
    else if (v.is_number()) t.set(key, v.get<double>());
    else t.set(key, v.get<std::string>());
  }
  return t;
}

// Events as the result file lists them: kind, and error_kind / message if any.
nlohmann::json summarise(const std::vector<event>& events, std::size_t from) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = from; i < events.size(); ++i) {
    nlohmann::json e = {{"kind", events[i].kind}};
    for (const char* key : {"error_kind", "message"}) {
      if (events[i].fields.contains(key)) e[key] = events[i].fields[key];
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

nlohmann::json play_rank(const scenario& s, const rank_assignment& a) {
  const role side = a.files.side;
  const int rank = a.files.rank;
  nlohmann::json result = {{"schema_version", kWorkerResultSchemaVersion},
                           {"role", std::string(to_string(side))},
                           {"local_rank", rank},
                           {"graft_rank", side == role::baseline ? rank : s.baseline_world_size + rank},
                           {"error", nullptr},
                           {"setup", {{"events", nlohmann::json::array()}}},
                           {"steps", nlohmann::json::array()}};
  try {
    // Before the grafter: its process groups take the current device.
    const c10::Device device =
        rank_device(s.devices(side)[static_cast<std::size_t>(rank)], result["graft_rank"].get<int>());
    auto memory = std::make_shared<memory_sink>();
    auto sink = std::make_shared<multi_sink>(std::vector<std::shared_ptr<event_sink>>{
        std::make_shared<jsonl_file_sink>(a.files.events().string()), std::make_shared<text_sink>(std::cerr),
        memory});
    grafter_options options;
    options.sink = sink;
    std::unique_ptr<grafter> g;
    try {
      g = std::make_unique<grafter>(graft_config::from_json(worker_grafter_settings(s, side, a.port, a.plugins)),
                                    side_rank{rank, s.world_size(side)}, options);
    } catch (const config_error& e) {
      // A host whose grafter config is rejected runs on without grafting; the
      // rejection is recorded like a grafter event so the snapshot shows it.
      event rejected;
      rejected.kind = "config_error";
      rejected.fields = {{"message", e.what()}, {"source", "graft_worker"}};
      rejected.side = std::string(to_string(side));
      rejected.graft_rank = result["graft_rank"].get<int>();
      rejected.local_rank = rank;
      sink->write(rejected);
    }
    result["setup"]["events"] = summarise(memory->events(), 0);

    std::map<std::string, at::Tensor> vars;
    for (std::size_t step_index = 0; step_index < s.steps.size(); ++step_index) {
      const scenario_step& step = s.steps[step_index];
      const rank_call& call = step.calls(side)[static_cast<std::size_t>(rank)];
      nlohmann::json record = {{"ran", call.runs}, {"events", nlohmann::json::array()},
                               {"initial", nullptr}, {"final", nullptr}};
      if (call.runs) {
        const std::size_t before = memory->events().size();
        const graft::tags t = make_tags(call.name, step.tags);
        if (call.tensor) {
          at::Tensor value;
          try {
            value = make_tensor(*call.tensor, vars).to(device);
          } catch (const fixture_error& e) {
            // The runner names the side and rank; only this loop knows the step.
            GRAFT_THROW(fixture_error,
                        "steps[" + std::to_string(step_index) + "] '" + step.name + "': " + e.what());
          }
          vars[step.var] = value;
          record["initial"] = tensor_value(value);
          if (g) g->maybe_intercept(value, t, call.extras);
          record["final"] = tensor_value(value);
        } else {
          if (g) g->maybe_intercept_non_tensor(call.non_tensor.value_or("object"), t);
        }
        record["events"] = summarise(memory->events(), before);
      }
      result["steps"].push_back(std::move(record));
    }
  } catch (const std::exception& e) {
    result["error"] = exception_message(e);
  }
  return result;
}

}  // namespace graft::harness::worker
