// graft_client: plays one rank of one side of a graft world, the way a host
// program would. It reads DUMPER_GRAFTER_* and RANK/WORLD_SIZE from the
// environment, makes a short deterministic sequence of dump calls, writes the
// grafter's events as JSON lines, and prints each tensor's final values.
//
//   export DUMPER_GRAFTER_ENABLE=1 DUMPER_GRAFTER_ROLE=baseline RANK=0 WORLD_SIZE=1
//   export DUMPER_GRAFTER_MASTER_ADDRESS=127.0.0.1 DUMPER_GRAFTER_MASTER_PORT=29500
//   export DUMPER_GRAFTER_BASELINE_WORLD_SIZE=1 DUMPER_GRAFTER_TARGET_WORLD_SIZE=1
//   export DUMPER_GRAFTER_B2T_FILTER="name == 'attn_output'"
//   graft_client --events baseline.jsonl
//
// The sequence (per call, every rank): attn_input (layer 0), attn_output
// (layer 0), mlp_output (layer 0), then the same for layer 1. The baseline's
// values are arange(numel) * (call + 1) + 1000 * rank; the target's are zeros,
// so a grafted tensor is recognisable at a glance. Each call's extras carry
// {"call", "rank", "scale": 0.5} for transforms that want them.
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <graft/error.hpp>
#include <graft/exception_message.hpp>
#include <graft/grafter.hpp>

namespace {

struct options {
  std::string events_path;
  std::int64_t numel = 4;
  int layers = 2;
};

int usage(const char* program, const std::string& problem) {
  if (!problem.empty()) std::cerr << "graft_client: " << problem << "\n";
  std::cerr << "usage: " << program << " [--events PATH] [--numel N] [--layers L]\n"
            << "  Plays one rank of a graft world configured by DUMPER_GRAFTER_* and RANK/WORLD_SIZE.\n"
            << "  --events PATH  append the grafter's JSON-lines events to PATH (default: stderr lines, and\n"
            << "                 DUMPER_GRAFTER_EVENTS_PATH's file when it is set)\n"
            << "  --numel N      elements per dumped tensor (default 4)\n"
            << "  --layers L     layers of dump calls (default 2)\n";
  return problem.empty() ? 0 : 2;
}

// Every tensor is printed in full, so sizes stay small enough to read.
constexpr std::int64_t kMaxNumel = std::int64_t{1} << 20;
constexpr std::int64_t kMaxLayers = 10000;

// A whole number in [1, max], or nullopt for anything else ("abc", "4x", "-1").
std::optional<std::int64_t> positive_count(const char* text, std::int64_t max) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || value < 1 || value > max) return std::nullopt;
  return value;
}

std::vector<double> values_of(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") return usage(argv[0], "");
    if (arg == "--events" && has_value) {
      opt.events_path = argv[++i];
    } else if ((arg == "--numel" || arg == "--layers") && has_value) {
      const std::int64_t max = arg == "--numel" ? kMaxNumel : kMaxLayers;
      const auto count = positive_count(argv[++i], max);
      if (!count) {
        return usage(argv[0], arg + " '" + argv[i] + "': expected a whole number from 1 to " + std::to_string(max));
      }
      if (arg == "--numel") {
        opt.numel = *count;
      } else {
        opt.layers = static_cast<int>(*count);
      }
    } else {
      return usage(argv[0], "unknown or incomplete argument '" + arg + "'");
    }
  }

  try {
    const graft::graft_config config = graft::graft_config::from_env();
    const graft::side_rank local = graft::side_rank_from_env();
    std::vector<std::shared_ptr<graft::event_sink>> sinks{std::make_shared<graft::text_sink>(std::cerr)};
    if (!opt.events_path.empty()) sinks.push_back(std::make_shared<graft::jsonl_file_sink>(opt.events_path));
    graft::grafter_options grafter_opts;
    grafter_opts.sink = std::make_shared<graft::multi_sink>(std::move(sinks));
    graft::grafter g(config, local, grafter_opts);

    const bool baseline = config.side.value_or(graft::role::baseline) == graft::role::baseline;
    int call = 0;
    for (int layer = 0; layer < opt.layers; ++layer) {
      for (const char* name : {"attn_input", "attn_output", "mlp_output"}) {
        at::Tensor value = baseline ? at::arange(opt.numel, at::kFloat) * (call + 1) + 1000 * local.rank
                                    : at::zeros({opt.numel});
        g.maybe_intercept(value, {{"name", name}, {"layer_id", layer}},
                          nlohmann::json{{"call", call}, {"rank", local.rank}, {"scale", 0.5}});
        std::cout << nlohmann::json{{"call", call}, {"name", name}, {"layer_id", layer}, {"values", values_of(value)}}
                         .dump()
                  << std::endl;
        ++call;
      }
    }
    return 0;
  } catch (const graft::error& e) {
    std::cerr << "graft_client: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    // The host's own work failed (an allocation, say), not the grafter.
    std::cerr << "graft_client: " << graft::exception_message(e) << "\n";
    return 1;
  }
}
