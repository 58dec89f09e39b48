#include <graft/harness/scenario.hpp>

#include <algorithm>
#include <set>

#include <graft/harness/errors.hpp>
#include <graft/harness/bounded_json.hpp>
#include <graft/harness/input_file.hpp>
#include <graft/harness/snapshot.hpp>
#include <graft/harness/snapshot_store.hpp>
#include <graft/harness/tolerance.hpp>

#include "scenario/parsers.hpp"

namespace graft::harness {

namespace {

using detail::json_checker;

// graft_config keys a scenario may set, and those the runner sets itself.
constexpr const char* kGrafterKeys[] = {"b2t_filter", "t2b_filter", "backend", "group_name", "timeout",
                                        "transform_path", "measure"};
constexpr const char* kRunnerKeys[] = {"enable", "role", "master_address", "master_port", "baseline_world_size",
                                       "target_world_size"};

void parse_grafter(const nlohmann::json& value, const std::string& path, json_checker& check) {
  if (!check.is_object(value, path)) return;
  for (const auto& [key, v] : value.items()) {
    const std::string at = json_checker::key_path(path, key);
    const bool runner_key = std::find(std::begin(kRunnerKeys), std::end(kRunnerKeys), key) != std::end(kRunnerKeys);
    const bool known = std::find(std::begin(kGrafterKeys), std::end(kGrafterKeys), key) != std::end(kGrafterKeys);
    if (runner_key) {
      check.add(at, "set by the runner (from the scenario's world and the run's port); remove it");
    } else if (!known) {
      check.add(at, "unknown grafter key; expected one of: b2t_filter, t2b_filter, backend, group_name, timeout, "
                    "transform_path, measure");
    } else if (key == "timeout") {
      check.seconds(value, key, path, true, kMaxScenarioTimeoutSeconds);
    } else if (key == "measure") {
      if (v != "full" && v != "off") check.add(at, "expected \"full\" or \"off\", got " + json_checker::describe(v));
    } else if (!v.is_string() && !(v.is_null() && key != "backend" && key != "group_name")) {
      check.add(at, "expected a string, got " + json_checker::describe(v));
    }
  }
}

// A rank's call from JSON (the side's fields with the rank's overrides laid
// over them). With require_value, a rank that runs must have a tensor or a
// non-tensor value.
rank_call parse_rank_call(const nlohmann::json& fields, const std::string& step_name, const std::string& path,
                          bool require_value, json_checker& check) {
  rank_call call;
  call.runs = !check.boolean(fields, "skip", path).value_or(false);
  call.name = check.string(fields, "name", path, false).value_or(step_name);
  if (fields.contains("extras")) call.extras = fields["extras"];
  if (fields.contains("expect")) {
    call.expect = detail::parse_expectation(fields["expect"], json_checker::key_path(path, "expect"), false, check);
  }
  if (fields.contains("tensor")) {
    call.tensor = detail::parse_tensor_spec(fields["tensor"], json_checker::key_path(path, "tensor"), check);
  }
  if (fields.contains("non_tensor")) call.non_tensor = check.string(fields, "non_tensor", path, true);
  if (require_value && call.runs && fields.contains("tensor") == fields.contains("non_tensor")) {
    check.add(path, "a rank that runs needs exactly one of \"tensor\" and \"non_tensor\" (or \"skip\": true)");
  }
  return call;
}

// Problems are reported where the offending JSON is: the side's own fields at
// the side's path, an override's at its ranks[r] path.
std::vector<rank_call> parse_side(const nlohmann::json& side, int world_size, const std::string& step_name,
                                  const std::string& path, json_checker& check) {
  std::vector<rank_call> calls;
  if (!check.is_object(side, path)) return calls;
  check.known_keys(side, path, {"tensor", "non_tensor", "extras", "name", "skip", "expect", "ranks"});
  nlohmann::json defaults = side;
  defaults.erase("ranks");
  const nlohmann::json* ranks = side.contains("ranks") ? &side["ranks"] : nullptr;
  const std::string ranks_path = json_checker::key_path(path, "ranks");
  if (ranks != nullptr && (!ranks->is_array() || static_cast<int>(ranks->size()) != world_size)) {
    check.add(ranks_path, "expected an array of " + std::to_string(world_size) +
                              " objects (one per rank of this side), got " + json_checker::describe(*ranks));
    ranks = nullptr;
  }
  parse_rank_call(defaults, step_name, path, ranks == nullptr, check);
  for (int r = 0; r < world_size; ++r) {
    json_checker reported_already;
    nlohmann::json merged = defaults;
    if (ranks != nullptr) {
      const auto& entry = (*ranks)[static_cast<std::size_t>(r)];
      const std::string at = json_checker::index_path(ranks_path, static_cast<std::size_t>(r));
      if (check.is_object(entry, at)) {
        check.known_keys(entry, at, {"tensor", "non_tensor", "extras", "name", "skip", "expect"});
        parse_rank_call(entry, step_name, at, false, check);
        for (const auto& [key, v] : entry.items()) merged[key] = v;
        // A rank that switches value kind drops the side's other one.
        if (entry.contains("tensor")) merged.erase("non_tensor");
        if (entry.contains("non_tensor")) merged.erase("tensor");
        const bool runs = !(merged.contains("skip") && merged["skip"] == true);
        if (runs && merged.contains("tensor") == merged.contains("non_tensor")) {
          check.add(at, "a rank that runs needs exactly one of \"tensor\" and \"non_tensor\" (or \"skip\": true)");
        }
      }
    }
    calls.push_back(parse_rank_call(merged, step_name, path, false, reported_already));
  }
  return calls;
}

void check_relations(const scenario& s, json_checker& check) {
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    for (graft::role side : {graft::role::baseline, graft::role::target}) {
      const auto& calls = s.steps[i].calls(side);
      for (std::size_t r = 0; r < calls.size(); ++r) {
        const auto& e = calls[r].expect;
        if (!e || !e->relation) continue;
        const int other_rank = e->relation->rank.value_or(static_cast<int>(r));
        const std::string at = "steps[" + std::to_string(i) + "]." + std::string(to_string(side)) +
                               " (rank " + std::to_string(r) + ").expect.equals";
        if (other_rank >= s.world_size(e->relation->side)) {
          check.add(at, "rank " + std::to_string(other_rank) + " does not exist on the " +
                            std::string(to_string(e->relation->side)) + " side (world size " +
                            std::to_string(s.world_size(e->relation->side)) + "); set \"rank\"");
        }
      }
    }
  }
}

void check_variables(const scenario& s, json_checker& check) {
  std::set<std::string> defined;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    for (graft::role side : {graft::role::baseline, graft::role::target}) {
      for (const auto& call : s.steps[i].calls(side)) {
        if (call.tensor && call.tensor->kind == tensor_spec::source::from && defined.count(call.tensor->from) == 0) {
          check.add("steps[" + std::to_string(i) + "]." + std::string(to_string(side)) + ".tensor.from",
                    "variable \"" + call.tensor->from + "\" is not set by an earlier step");
        }
      }
    }
    defined.insert(s.steps[i].var);
  }
}

}  // namespace

scenario parse_scenario(const nlohmann::json& document, const std::string& source) {
  json_checker check;
  scenario s;
  if (check.is_object(document, "")) {
    check.known_keys(document, "", {"schema_version", "name", "description", "world", "timeout_s", "grafter",
                                    "tolerances", "absent", "steps", "expect_setup", "device", "golden"});
    if (auto version = check.integer(document, "schema_version", "", true)) {
      if (*version != kScenarioSchemaVersion) {
        check.add("schema_version", "unsupported version " + std::to_string(*version) + "; this graft reads " +
                                        std::to_string(kScenarioSchemaVersion));
      }
    }
    if (auto name = check.string(document, "name", "", true)) {
      s.name = *name;
      if (!is_scenario_name(s.name)) {
        check.add("name", json_checker::describe(document["name"]) + " is not a scenario name: " + kScenarioNameRule +
                              " (it names the scenario's files)");
      }
    }
    s.description = check.string(document, "description", "", false).value_or("");
    if (document.contains("world") && check.is_object(document["world"], "world")) {
      const auto& world = document["world"];
      check.known_keys(world, "world", {"baseline", "target"});
      for (graft::role side : {graft::role::baseline, graft::role::target}) {
        const std::string key(to_string(side));
        if (auto n = check.integer_in(world, key, "world", true, 1, kMaxScenarioWorldSize)) {
          (side == graft::role::baseline ? s.baseline_world_size : s.target_world_size) = static_cast<int>(*n);
        }
      }
    } else if (!document.contains("world")) {
      check.add("world", "required object {\"baseline\": B, \"target\": T} is missing");
    }
    if (auto t = check.seconds(document, "timeout_s", "", false, kMaxScenarioTimeoutSeconds)) s.timeout_s = *t;
    detail::parse_devices(document, s, check);
    s.golden = check.boolean(document, "golden", "").value_or(true);
    if (document.contains("grafter")) {
      parse_grafter(document["grafter"], "grafter", check);
      s.grafter = document["grafter"];
    } else {
      check.add("grafter", "required object (graft_config keys, e.g. {\"b2t_filter\": \"name == 'x'\"}) is missing");
    }
    if (document.contains("tolerances")) {
      try {
        tolerance_policy::from_json(document["tolerances"], "tolerances");
        s.tolerances = document["tolerances"];
      } catch (const snapshot_error& e) {
        check.add("tolerances", e.what());
      }
    }
    if (document.contains("absent")) {
      const auto& absent = document["absent"];
      for (std::size_t i = 0; absent.is_array() && i < absent.size(); ++i) {
        if (absent[i] == "baseline") s.absent.push_back(graft::role::baseline);
        else if (absent[i] == "target") s.absent.push_back(graft::role::target);
        else check.add(json_checker::index_path("absent", i), "expected \"baseline\" or \"target\", got " + json_checker::describe(absent[i]));
      }
      if (!absent.is_array()) check.add("absent", "expected an array of sides, got " + json_checker::describe(absent));
      if (s.absent.size() > 1) check.add("absent", "at least one side must run");
    }
    if (document.contains("expect_setup") && check.is_object(document["expect_setup"], "expect_setup")) {
      const auto& setup = document["expect_setup"];
      check.known_keys(setup, "expect_setup", {"baseline", "target"});
      if (setup.contains("baseline")) s.expect_setup_baseline = detail::parse_expectation(setup["baseline"], "expect_setup.baseline", true, check);
      if (setup.contains("target")) s.expect_setup_target = detail::parse_expectation(setup["target"], "expect_setup.target", true, check);
    }
    const auto steps = document.find("steps");
    if (steps == document.end() || !steps->is_array() || steps->empty()) {
      check.add("steps", "expected a non-empty array of dump calls");
    } else {
      for (std::size_t i = 0; i < steps->size(); ++i) {
        const auto& raw = (*steps)[i];
        const std::string at = json_checker::index_path("steps", i);
        if (!check.is_object(raw, at)) continue;
        check.known_keys(raw, at, {"name", "tags", "var", "baseline", "target"});
        scenario_step step;
        step.name = check.string(raw, "name", at, true).value_or("");
        step.var = check.string(raw, "var", at, false).value_or(step.name);
        if (raw.contains("tags")) {
          const auto& tags = raw["tags"];
          const std::string tags_at = json_checker::key_path(at, "tags");
          if (check.is_object(tags, tags_at)) {
            for (const auto& [key, v] : tags.items()) {
              if (key == "name") check.add(json_checker::key_path(tags_at, key), "set the name with the step's \"name\"");
              else if (v.is_structured()) check.add(json_checker::key_path(tags_at, key), "expected a scalar tag value, got " + json_checker::describe(v));
            }
            step.tags = tags;
          }
        }
        for (graft::role side : {graft::role::baseline, graft::role::target}) {
          const std::string key(to_string(side));
          const std::string side_at = json_checker::key_path(at, key);
          if (!raw.contains(key)) {
            check.add(side_at, "required; say what this side does (or {\"skip\": true})");
            continue;
          }
          (side == graft::role::baseline ? step.baseline : step.target) =
              parse_side(raw[key], s.world_size(side), step.name, side_at, check);
        }
        s.steps.push_back(std::move(step));
      }
    }
    if (check.problems().empty()) {
      check_relations(s, check);
      check_variables(s, check);
    }
  }
  check.throw_if_problems(source, "fixtures/README.md");
  return s;
}

nlohmann::json read_fixture_json(const std::filesystem::path& path, const std::string& format_doc) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const unreadable_file& e) {
    GRAFT_THROW(fixture_error, path.string() + ": " + e.what() + "; pass a scenario file (format: " + format_doc + ")");
  }
  try {
    return parse_bounded_json(text);
  } catch (const unreadable_json& e) {
    GRAFT_THROW(fixture_error, path.string() + ": " + e.what() + " (format: " + format_doc + ")");
  }
}

scenario load_scenario(const std::filesystem::path& path) {
  scenario s = parse_scenario(read_fixture_json(path, "fixtures/README.md"), path.string());
  if (s.name != path.stem().string()) {
    json_checker check;
    check.add("name", "\"" + s.name + "\" differs from the file name; name the file " + s.name +
                          ".json or the scenario \"" + path.stem().string() + "\"");
    check.throw_if_problems(path.string(), "fixtures/README.md");
  }
  s.path = path;
  return s;
}

std::vector<std::filesystem::path> scenario_files(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  std::filesystem::directory_iterator entries(folder, ec);
  if (ec) {
    GRAFT_THROW(fixture_error, folder.string() + ": cannot read this folder of scenarios (" + ec.message() +
                                   "); check the path, or --fixtures (a folder holding scenarios/)");
  }
  // Every *.json here is taken for a scenario: one that is no file (a folder,
  // a dangling or looping link) is named, not skipped.
  std::vector<std::string> problems;
  for (const auto& entry : entries) {
    if (entry.path().extension() != ".json") continue;
    const std::filesystem::file_status status = entry.status(ec);
    if (ec) {
      problems.push_back(entry.path().string() + ": " + ec.message());  // a dangling or looping link
    } else if (!std::filesystem::is_regular_file(status)) {
      problems.push_back(entry.path().string() + ": not a file");
    } else {
      files.push_back(entry.path());
    }
  }
  if (!problems.empty()) {
    std::sort(problems.begin(), problems.end());
    std::string message = folder.string() + ": every *.json in a folder of scenarios is read as one, and " +
                          std::to_string(problems.size()) + " cannot be; remove or rename " +
                          (problems.size() == 1 ? "it" : "them") + ":";
    for (const auto& problem : problems) message += "\n  " + problem;
    GRAFT_THROW(fixture_error, message);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace graft::harness
