#include <graft/localize/passes.hpp>

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

namespace {

// What every process of a pass gets, whichever command starts it.
std::vector<std::string> world_variables(const pass_spec& spec, int port) {
  std::vector<std::string> variables{"DUMPER_GRAFTER_ENABLE=1",
                                     "DUMPER_GRAFTER_MASTER_ADDRESS=127.0.0.1",
                                     "DUMPER_GRAFTER_MASTER_PORT=" + std::to_string(port),
                                     "DUMPER_GRAFTER_BASELINE_WORLD_SIZE=" + std::to_string(spec.baseline.world_size),
                                     "DUMPER_GRAFTER_TARGET_WORLD_SIZE=" + std::to_string(spec.target.world_size),
                                     "DUMPER_GRAFTER_TIMEOUT=" + std::to_string(spec.timeout.count()),
                                     // Localizing reads every graft's metrics: a user's
                                     // DUMPER_GRAFTER_MEASURE=off must not leak in.
                                     "DUMPER_GRAFTER_MEASURE=full",
                                     "DUMPER_GRAFTER_EVENTS_PATH=" + (spec.directory / kEnvironmentEventsPattern).string()};
  // Every filter is set, blank when unused, so none leaks in from the
  // launcher's own environment.
  for (const char* key : {"b2t_filter", "t2b_filter", "compare_filter"}) {
    const auto it = spec.filters.find(key);
    variables.push_back(env_name(key) + "=" + (it != spec.filters.end() ? it->second : ""));
  }
  return variables;
}

// The launcher's environment passes on (a user's DUMPER_GRAFTER_TRANSFORM_PATH,
// say); what the pass sets replaces it.
std::vector<std::string> child_environment(const std::vector<std::string>& variables) {
  std::vector<std::string> names;
  for (const auto& v : variables) names.push_back(v.substr(0, v.find('=')));
  std::vector<std::string> env = environment_without(names);
  env.insert(env.end(), variables.begin(), variables.end());
  return env;
}

rank_launch rank_files(const pass_spec& spec, const std::string& role, int rank) {
  const std::string stem = role + "-rank" + std::to_string(rank);
  rank_launch launch{role, rank, spec.directory / (stem + ".events.jsonl"),
                     spec.directory / (stem + ".environment.events.jsonl"), spec.directory / (stem + ".log")};
  std::filesystem::remove(launch.events);
  std::filesystem::remove(launch.environment_events);
  return launch;
}

// One process per rank, each told its role and rank.
void start_each_rank(const pass_spec& spec, const std::vector<std::string>& world, std::vector<rank_launch>& launches,
                     std::vector<child_process>& children, std::vector<std::string>& who) {
  for (const auto* side : {&spec.baseline, &spec.target}) {
    const std::string role = side == &spec.baseline ? "baseline" : "target";
    for (int rank = 0; rank < side->world_size; ++rank) {
      rank_launch launch = rank_files(spec, role, rank);
      const std::map<std::string, std::string> values{{"role", role},
                                                      {"rank", std::to_string(rank)},
                                                      {"world_size", std::to_string(side->world_size)},
                                                      {"events", launch.events.string()}};
      std::vector<std::string> variables = world;
      variables.push_back("DUMPER_GRAFTER_ROLE=" + role);
      variables.push_back("RANK=" + std::to_string(rank));
      variables.push_back("WORLD_SIZE=" + std::to_string(side->world_size));
      std::vector<std::string> argv;
      for (const auto& arg : side->argv) argv.push_back(substitute(arg, values, side->placeholders));
      children.emplace_back(argv, child_environment(variables), launch.log);
      who.push_back(spec.label + ": " + role + " rank " + std::to_string(rank));
      launches.push_back(std::move(launch));
    }
  }
}

// One command that starts every rank itself; each rank's grafter names its
// own events file from its role and rank, which is how ranks are told apart.
void start_launcher(const pass_spec& spec, const std::vector<std::string>& world, std::vector<rank_launch>& launches,
                    std::vector<child_process>& children, std::vector<std::string>& who) {
  for (int rank = 0; rank < spec.target.world_size; ++rank) launches.push_back(rank_files(spec, "target", rank));
  // The baseline's files are only cleared: localize reads the target's.
  for (int rank = 0; rank < spec.baseline.world_size; ++rank) rank_files(spec, "baseline", rank);
  const std::map<std::string, std::string> values{{"baseline_world_size", std::to_string(spec.baseline.world_size)},
                                                  {"target_world_size", std::to_string(spec.target.world_size)}};
  std::vector<std::string> argv;
  for (const auto& arg : spec.launch->argv) argv.push_back(substitute(arg, values, spec.launch->placeholders));
  children.emplace_back(argv, child_environment(world), spec.directory / "launch.log");
  who.push_back(spec.label + ": the launch command");
}

}  // namespace

pass_outcome run_pass(const pass_spec& spec) {
  pass_outcome outcome;
  outcome.label = spec.label;
  std::filesystem::create_directories(spec.directory);
  const std::vector<std::string> world = world_variables(spec, free_port());

  std::vector<rank_launch> launches;
  std::vector<child_process> children;
  std::vector<std::string> who;
  if (spec.launch) {
    start_launcher(spec, world, launches, children, who);
  } else {
    start_each_rank(spec, world, launches, children, who);
  }

  const auto deadline = std::chrono::steady_clock::now() + spec.timeout;
  wait_all(children, deadline);
  for (std::size_t i = 0; i < children.size(); ++i) {
    const std::filesystem::path log = spec.launch ? spec.directory / "launch.log" : launches[i].log;
    if (children[i].running()) {
      children[i].kill();
      outcome.problems.push_back(who[i] + " still running after " + std::to_string(spec.timeout.count()) +
                                 " s; killed (raise --timeout?). Log " + log.string() + ":\n" +
                                 tail_of_file(log, kLogTailLines));
    } else if (children[i].describe_status() != "exit 0") {
      outcome.problems.push_back(who[i] + " ended with " + children[i].describe_status() + ". Log " + log.string() +
                                 ":\n" + tail_of_file(log, kLogTailLines));
    }
  }

  for (const auto& launch : launches) {
    if (launch.role != "target") continue;
    const std::optional<std::filesystem::path> events = launch.written_events();
    std::ifstream in(events ? *events : launch.events);
    if (!events || !in) {
      outcome.problems.push_back(
          spec.label + ": target rank " + std::to_string(launch.rank) + " wrote no events to " +
          (spec.launch ? launch.environment_events.string() + " (does the launch command start " +
                             std::to_string(spec.target.world_size) + " target ranks, each with " +
                             "DUMPER_GRAFTER_ROLE=target and its RANK, building its grafter from the environment?)"
                       : launch.events.string() + " nor " + launch.environment_events.string() +
                             " (does the program build its grafter from the environment, or does the command "
                             "pass {events} to it?)"));
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
