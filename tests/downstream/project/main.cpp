// A downstream program that links graft::core from an installed package.
#include <iostream>

#include <graft/config.hpp>
#include <graft/filter.hpp>
#include <graft/grafter.hpp>

int main() {
  const auto f = graft::filter::compile("name == 'attn_output' and layer_id < 3");
  graft::graft_config config = graft::graft_config::from_kv_pairs(
      {"enable=true", "role=target", "master_address=127.0.0.1", "master_port=29500",
       "baseline_world_size=1", "target_world_size=1", "b2t_filter=name == 'attn_output'"});
  config.validate();
  if (!f.matches({{"name", "attn_output"}, {"layer_id", 1}})) return 1;
  std::cout << "downstream: filter matched, config valid\n";
  return 0;
}
