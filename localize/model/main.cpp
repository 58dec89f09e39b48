// graft_model: one rank of one side running the localize model. The grafter
// comes from DUMPER_GRAFTER_* (so localize sets the filters per pass) and
// RANK/WORLD_SIZE; --role/--rank/--world-size override them. Prints the
// logits' checksum as one JSON line on stdout. With --check it only checks
// its options: graft localize asks it so before any pass, since the model,
// not localize, knows which sizes and bugs it takes.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <graft/error.hpp>
#include <graft/exception_message.hpp>
#include <graft/grafter.hpp>

#include "model.hpp"

namespace loc = graft::harness::localize;

int main(int argc, char** argv) {
  CLI::App app{"graft_model: one rank of the localize model (a small transformer) with a grafter at every dump point.\n"
               "The grafter reads DUMPER_GRAFTER_* and RANK/WORLD_SIZE from the environment."};
  loc::model_options opt;
  std::string role_text, dtype_text = "float32", bug_text = "none", kernel_text = "standard", events_path;
  int rank = -1, world_size = -1;
  app.add_option("--role", role_text, "baseline | target (overrides DUMPER_GRAFTER_ROLE)")
      ->check(CLI::IsMember({"baseline", "target"}));
  app.add_option("--rank", rank, "rank on this side (overrides RANK)");
  app.add_option("--world-size", world_size, "ranks on this side (overrides WORLD_SIZE)");
  app.add_option("--layers", opt.layers, "transformer blocks")->capture_default_str();
  app.add_option("--hidden", opt.hidden, "hidden size")->capture_default_str();
  app.add_option("--heads", opt.heads, "attention heads (must divide --hidden)")->capture_default_str();
  app.add_option("--vocab", opt.vocab, "vocabulary size")->capture_default_str();
  app.add_option("--seq-len", opt.seq_len, "tokens")->capture_default_str();
  app.add_option("--seed", opt.seed, "seed of weights and tokens")->capture_default_str();
  app.add_option("--dtype", dtype_text, "float32 | bfloat16")->check(CLI::IsMember({"float32", "bfloat16"}))
      ->capture_default_str();
  app.add_option("--bug", bug_text, "a bug to plant: " + CLI::detail::join(loc::bug_kind_names(), " | "))
      ->check(CLI::IsMember(loc::bug_kind_names()))
      ->capture_default_str();
  app.add_option("--bug-layer", opt.bug_layer, "the layer that carries the bug")->capture_default_str();
  app.add_option("--bug-eps", opt.buggy_norm_eps, "the epsilon the norm_eps bug uses")->capture_default_str();
  app.add_option("--kernels", kernel_text, "standard | alt (same function, other reduction orders)")
      ->check(CLI::IsMember({"standard", "alt"}))
      ->capture_default_str();
  app.add_option("--events", events_path, "append the grafter's JSON-lines events to this file");
  bool check_only = false;
  app.add_flag("--check", check_only, "check the options and exit: 0 when the model takes them, 2 naming the "
                                      "one at fault (joins no world, builds no model)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // Bad input, one line as --check promises (graft localize shows it as it is).
    std::cerr << "graft_model: " << e.what() << "\n";
    return 2;
  }

  try {
    opt.dtype = dtype_text == "bfloat16" ? at::kBFloat16 : at::kFloat;
    opt.bug = *loc::parse_bug_kind(bug_text);
    opt.kernel_choice = kernel_text == "alt" ? loc::kernels::alt : loc::kernels::standard;
    if (check_only) {
      opt.validate();
      return 0;
    }
    const loc::model m(opt);

    graft::graft_config config = graft::graft_config::from_env();
    if (!role_text.empty()) config.side = role_text == "target" ? graft::role::target : graft::role::baseline;
    graft::side_rank local = graft::side_rank_from_env();
    if (rank >= 0) local.rank = rank;
    if (world_size > 0) local.world_size = world_size;

    std::vector<std::shared_ptr<graft::event_sink>> sinks{std::make_shared<graft::text_sink>(std::cerr)};
    if (!events_path.empty()) sinks.push_back(std::make_shared<graft::jsonl_file_sink>(events_path));
    graft::grafter_options grafter_opts;
    grafter_opts.sink = std::make_shared<graft::multi_sink>(std::move(sinks));
    graft::grafter g(config, local, grafter_opts);

    const at::Tensor logits = m.forward(g).to(at::kDouble);
    std::cout << nlohmann::json{{"logits_sum", logits.sum().item<double>()},
                                {"logits_abs_sum", logits.abs().sum().item<double>()}}
                     .dump()
              << std::endl;
    return 0;
  } catch (const graft::error& e) {
    std::cerr << "graft_model: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "graft_model: libtorch: " << graft::exception_message(e) << "\n";
    return 2;
  }
}
