// A downstream program that links graft::core from an installed package and
// loads a transform plugin built against that package.
#include <iostream>

#include <ATen/ATen.h>

#include <graft/config.hpp>
#include <graft/filter.hpp>
#include <graft/grafter.hpp>
#include <graft/plugin_library.hpp>
#include <graft/transform_loader.hpp>

namespace {

// The plugin's one transform, loaded by its spec and listed from its registry.
bool plugin_works() {
  const graft::transform negate = graft::load_transform(DOWNSTREAM_PLUGIN ":negate");
  const graft::tags tags{{"name", "x"}};
  const at::Tensor target = at::zeros({2});
  const graft::graft_transform_input in{tags, {at::ones({2})}, {nullptr}, target, graft::direction::b2t, 0, 1, {0}};
  const graft::plugin_library_info info = graft::inspect_plugin_library(DOWNSTREAM_PLUGIN);
  return at::equal(negate.fn(in), -at::ones({2})) && negate.plan && info.transforms.size() == 1 &&
         info.transforms[0].name == "negate" && info.transforms[0].fused_plan;
}

}  // namespace

int main() {
  const auto f = graft::filter::compile("name == 'attn_output' and layer_id < 3");
  graft::graft_config config = graft::graft_config::from_kv_pairs(
      {"enable=true", "role=target", "master_address=127.0.0.1", "master_port=29500",
       "baseline_world_size=1", "target_world_size=1", "b2t_filter=name == 'attn_output'"});
  config.validate();
  if (!f.matches({{"name", "attn_output"}, {"layer_id", 1}})) return 1;
  if (!plugin_works()) return 1;
  std::cout << "downstream: filter matched, config valid, plugin transform loaded\n";
  return 0;
}
