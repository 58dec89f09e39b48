#include <graft/harness/localize/passes.hpp>

#include <fstream>
#include <optional>

#include <graft/error.hpp>
#include <graft/harness/bounded_json.hpp>
#include <graft/harness/process.hpp>

namespace graft::harness::localize {

namespace {

constexpr std::size_t kLogTailLines = 15;

// graft_config::env_name without linking the config (and with it libtorch)
// into a launcher that only spawns processes.
std::string env_name(const std::string& key) {
  std::string out = "DUMPER_GRAFTER_";
  for (const char c : key) out += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}

// A rank's events reach localize either through {events} in its command (a
// file the program opens itself) or through DUMPER_GRAFTER_EVENTS_PATH (a
// file every grafter built from the environment opens): two files, since two
// sinks appending to one would write each event twice.
struct rank_launch {
  std::string role;
  int rank;
  std::filesystem::path events;
  std::filesystem::path environment_events;
  std::filesystem::path log;

  // The file the program wrote, {events} first; none when it wrote neither.
  std::optional<std::filesystem::path> written_events() const {
    for (const auto& file : {events, environment_events}) {
      if (std::filesystem::exists(file)) return file;
    }
    return std::nullopt;
  }
};

constexpr const char* kEnvironmentEventsPattern = "{role}-rank{rank}.environment.events.jsonl";

}  // namespace

side_command shell_command(const std::string& command_line, int world_size) {
  return {{"/bin/sh", "-c", command_line}, world_size, placeholder_use::shell_line};
}

pass_outcome run_pass(const pass_spec& spec) {
  pass_outcome outcome;
  outcome.label = spec.label;
  std::filesystem::create_directories(spec.directory);
  const int port = free_port();

  std::vector<rank_launch> launches;
  std::vector<child_process> children;
  for (const auto* side : {&spec.baseline, &spec.target}) {
    const std::string role = side == &spec.baseline ? "baseline" : "target";
    for (int rank = 0; rank < side->world_size; ++rank) {
      const std::string stem = role + "-rank" + std::to_string(rank);
      rank_launch launch{role, rank, spec.directory / (stem + ".events.jsonl"),
                         spec.directory / (stem + ".environment.events.jsonl"), spec.directory / (stem + ".log")};
      std::filesystem::remove(launch.events);
      std::filesystem::remove(launch.environment_events);
      const std::map<std::string, std::string> values{{"role", role},
                                                      {"rank", std::to_string(rank)},
                                                      {"world_size", std::to_string(side->world_size)},
                                                      {"events", launch.events.string()}};
      std::vector<std::string> variables{"DUMPER_GRAFTER_ENABLE=1",
                                         "DUMPER_GRAFTER_ROLE=" + role,
                                         "DUMPER_GRAFTER_MASTER_ADDRESS=127.0.0.1",
                                         "DUMPER_GRAFTER_MASTER_PORT=" + std::to_string(port),
                                         "DUMPER_GRAFTER_BASELINE_WORLD_SIZE=" + std::to_string(spec.baseline.world_size),
                                         "DUMPER_GRAFTER_TARGET_WORLD_SIZE=" + std::to_string(spec.target.world_size),
                                         "DUMPER_GRAFTER_TIMEOUT=" + std::to_string(spec.timeout.count()),
                                         // Localizing reads every graft's metrics: a user's
                                         // DUMPER_GRAFTER_MEASURE=off must not leak in.
                                         "DUMPER_GRAFTER_MEASURE=full",
                                         "DUMPER_GRAFTER_EVENTS_PATH=" + (spec.directory / kEnvironmentEventsPattern).string(),
                                         "RANK=" + std::to_string(rank),
                                         "WORLD_SIZE=" + std::to_string(side->world_size)};
      // Every filter is set, blank when unused, so none leaks in from the
      // launcher's own environment.
      for (const char* key : {"b2t_filter", "t2b_filter", "compare_filter"}) {
        const auto it = spec.filters.find(key);
        variables.push_back(env_name(key) + "=" + (it != spec.filters.end() ? it->second : ""));
      }
      // The launcher's environment passes on (a user's DUMPER_GRAFTER_TRANSFORM_PATH,
      // say); what this pass sets replaces it.
      std::vector<std::string> names;
      for (const auto& v : variables) names.push_back(v.substr(0, v.find('=')));
      std::vector<std::string> env = environment_without(names);
      env.insert(env.end(), variables.begin(), variables.end());
      std::vector<std::string> argv;
      for (const auto& arg : side->argv) argv.push_back(substitute(arg, values, side->placeholders));
      children.emplace_back(argv, env, launch.log);
      launches.push_back(std::move(launch));
    }
  }

  const auto deadline = std::chrono::steady_clock::now() + spec.timeout;
  wait_all(children, deadline);
  for (std::size_t i = 0; i < children.size(); ++i) {
    const rank_launch& launch = launches[i];
    const std::string who = spec.label + ": " + launch.role + " rank " + std::to_string(launch.rank);
    if (children[i].running()) {
      children[i].kill();
      outcome.problems.push_back(who + " still running after " + std::to_string(spec.timeout.count()) +
                                 " s; killed (raise --timeout?). Log " + launch.log.string() + ":\n" +
                                 tail_of_file(launch.log, kLogTailLines));
    } else if (children[i].describe_status() != "exit 0") {
      outcome.problems.push_back(who + " ended with " + children[i].describe_status() + ". Log " +
                                 launch.log.string() + ":\n" + tail_of_file(launch.log, kLogTailLines));
    }
  }

  for (const auto& launch : launches) {
    if (launch.role != "target") continue;
    const std::optional<std::filesystem::path> events = launch.written_events();
    std::ifstream in(events ? *events : launch.events);
    if (!events || !in) {
      outcome.problems.push_back(spec.label + ": target rank " + std::to_string(launch.rank) + " wrote no events to " +
                                 launch.events.string() + " nor " + launch.environment_events.string() +
                                 " (does the program build its grafter from the environment, or does the command "
                                 "pass {events} to it?)");
      continue;
    }
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      std::optional<nlohmann::json> e = parse_event_line(line);
      if (!e) {
        outcome.problems.push_back(spec.label + ": unreadable event line in " + events->string() + ": " + line);
        continue;
      }
      (*e)["rank"] = launch.rank;
      outcome.target_events.push_back(std::move(*e));
    }
  }
  return outcome;
}

}  // namespace graft::harness::localize
