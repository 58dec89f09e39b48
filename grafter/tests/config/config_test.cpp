// The reference's TestGrafterConfig cases, and where graft is stricter.
#include <graft/config.hpp>

#include <cstdint>
#include <cstdlib>
#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <graft/error.hpp>

namespace graft {
namespace {

using env_map = std::map<std::string, std::string>;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const config_error& e) {
    return e.what();
  }
  return "";
}

TEST(config_from_env, parses_filters) {
  const auto c = graft_config::from_env_map(
      {{"DUMPER_GRAFTER_B2T_FILTER", "name == 'x'"}, {"DUMPER_GRAFTER_T2B_FILTER", "name == 'y'"}});
  EXPECT_EQ(c.b2t_filter, "name == 'x'");
  EXPECT_EQ(c.t2b_filter, "name == 'y'");
}

TEST(config_from_env, parses_int_fields) {
  const auto c = graft_config::from_env_map({{"DUMPER_GRAFTER_BASELINE_WORLD_SIZE", "8"},
                                             {"DUMPER_GRAFTER_TARGET_WORLD_SIZE", "8"},
                                             {"DUMPER_GRAFTER_MASTER_PORT", "29999"},
                                             {"DUMPER_GRAFTER_TIMEOUT", "120"}});
  EXPECT_EQ(c.baseline_world_size, 8);
  EXPECT_EQ(c.target_world_size, 8);
  EXPECT_EQ(c.c10d.master_port, 29999);
  EXPECT_DOUBLE_EQ(c.timeout_seconds, 120.0);
}

TEST(config_from_env, parses_the_compare_filter) {
  const auto c = graft_config::from_env_map({{"DUMPER_GRAFTER_COMPARE_FILTER", "name == 'mlp_output'"}});
  EXPECT_EQ(c.compare_filter, "name == 'mlp_output'");
}

TEST(config_from_env, unknown_grafter_variable_is_an_error_naming_it) {
  const std::string text = error_of([] {
    graft_config::from_env_map({{"DUMPER_GRAFTER_TIMEOUT_SECONDS", "30"}, {"DUMPER_GRAFTER_ROLE", "target"}});
  });
  EXPECT_NE(text.find("unknown variable DUMPER_GRAFTER_TIMEOUT_SECONDS"), std::string::npos) << text;
  EXPECT_NE(text.find("DUMPER_GRAFTER_TIMEOUT,"), std::string::npos) << text;
  // Other variables are none of the grafter's business.
  EXPECT_EQ(graft_config::from_env_map({{"DUMPER_ENABLE", "1"}, {"PATH", "/bin"}}).enable, false);
}

TEST(config_measure, defaults_to_full_and_reads_every_source) {
  EXPECT_EQ(graft_config{}.measure, measure_mode::full);
  EXPECT_EQ(graft_config::from_env_map({{"DUMPER_GRAFTER_MEASURE", "off"}}).measure, measure_mode::off);
  EXPECT_EQ(graft_config::from_kv_pairs({"measure=OFF"}).measure, measure_mode::off);
  EXPECT_EQ(graft_config::from_kv_pairs({"grafter_measure=full"}).measure, measure_mode::full);
  EXPECT_EQ(graft_config::from_json(nlohmann::json{{"measure", "off"}}).measure, measure_mode::off);
  EXPECT_EQ(to_string(measure_mode::off), "off");
}

TEST(config_measure, other_values_are_errors_naming_both_choices) {
  const std::string env = error_of([] { graft_config::from_env_map({{"DUMPER_GRAFTER_MEASURE", "fast"}}); });
  EXPECT_NE(env.find("DUMPER_GRAFTER_MEASURE: expected 'full'"), std::string::npos) << env;
  EXPECT_NE(env.find("or 'off'"), std::string::npos) << env;
  EXPECT_NE(env.find("got 'fast'"), std::string::npos) << env;
  EXPECT_NE(error_of([] { graft_config::from_json(nlohmann::json{{"measure", false}}); })
                .find("measure: expected a string"),
            std::string::npos);
}

TEST(config_validate, a_compare_filter_alone_is_enough_and_must_compile) {
  graft_config c;
  c.enable = true;
  c.side = role::target;
  c.c10d.master_address = "127.0.0.1";
  c.c10d.master_port = 2000;
  c.baseline_world_size = c.target_world_size = 1;
  c.compare_filter = "layer_id >= 0";
  EXPECT_NO_THROW(c.validate());
  c.compare_filter = "layer_id >=";
  EXPECT_NE(error_of([&] { c.validate(); }).find("compare_filter"), std::string::npos);
}

TEST(config_from_env, role) {
  const auto c = graft_config::from_env_map({{"DUMPER_GRAFTER_ROLE", "baseline"}});
  ASSERT_TRUE(c.side.has_value());
  EXPECT_EQ(*c.side, role::baseline);
}

TEST(config_from_env, enable_flag) {
  env_map env = {{"DUMPER_GRAFTER_ENABLE", "1"},         {"DUMPER_GRAFTER_ROLE", "baseline"},
                 {"DUMPER_GRAFTER_MASTER_ADDRESS", "127.0.0.1"}, {"DUMPER_GRAFTER_MASTER_PORT", "29999"},
                 {"DUMPER_GRAFTER_BASELINE_WORLD_SIZE", "1"},   {"DUMPER_GRAFTER_TARGET_WORLD_SIZE", "1"},
                 {"DUMPER_GRAFTER_B2T_FILTER", "name == 'x'"}};
  auto c = graft_config::from_env_map(env);
  EXPECT_TRUE(c.enable);
  EXPECT_NO_THROW(c.validate());
  env["DUMPER_GRAFTER_ENABLE"] = "false";
  EXPECT_FALSE(graft_config::from_env_map(env).enable);
  env["DUMPER_GRAFTER_ENABLE"] = "TRUE";
  EXPECT_TRUE(graft_config::from_env_map(env).enable);
}

TEST(config_from_env, blank_value_keeps_default) {
  const auto c = graft_config::from_env_map({{"DUMPER_GRAFTER_MASTER_PORT", "  "}, {"DUMPER_GRAFTER_BACKEND", ""}});
  EXPECT_EQ(c.c10d.master_port, -1);
  EXPECT_EQ(c.c10d.backend, "gloo");
}

// Stricter than the reference, whose int("12x") raises but whose bool parse
// silently reads anything unknown as false.
TEST(config_from_env, malformed_values_are_errors_naming_the_variable) {
  EXPECT_NE(error_of([] { graft_config::from_env_map({{"DUMPER_GRAFTER_MASTER_PORT", "12x"}}); })
                .find("DUMPER_GRAFTER_MASTER_PORT: expected an integer, got '12x'"),
            std::string::npos);
  EXPECT_NE(error_of([] { graft_config::from_env_map({{"DUMPER_GRAFTER_ENABLE", "yes please"}}); })
                .find("DUMPER_GRAFTER_ENABLE"),
            std::string::npos);
  EXPECT_NE(error_of([] { graft_config::from_env_map({{"DUMPER_GRAFTER_ROLE", "teacher"}}); })
                .find("expected 'baseline' or 'target', got 'teacher'"),
            std::string::npos);
  EXPECT_NE(error_of([] { graft_config::from_env_map({{"DUMPER_GRAFTER_TIMEOUT", "soon"}}); }).find("seconds"),
            std::string::npos);
}

TEST(config_from_env, reads_the_process_environment) {
  ::setenv("DUMPER_GRAFTER_GROUP_NAME", "from_process_env", 1);
  const auto c = graft_config::from_env();
  ::unsetenv("DUMPER_GRAFTER_GROUP_NAME");
  EXPECT_EQ(c.c10d.group_name, "from_process_env");
}

// The reference checks required fields in this order when enabled.
TEST(config_validate, enable_without_required_fields_raises_in_order) {
  graft_config c;
  c.enable = true;
  EXPECT_NE(error_of([&] { c.validate(); }).find("role"), std::string::npos);
  c.side = role::baseline;
  EXPECT_NE(error_of([&] { c.validate(); }).find("master_address"), std::string::npos);
  c.c10d.master_address = "127.0.0.1";
  EXPECT_NE(error_of([&] { c.validate(); }).find("master_port"), std::string::npos);
  c.c10d.master_port = 12345;
  EXPECT_NE(error_of([&] { c.validate(); }).find("baseline_world_size"), std::string::npos);
  c.baseline_world_size = 1;
  EXPECT_NE(error_of([&] { c.validate(); }).find("target_world_size"), std::string::npos);
  c.target_world_size = 1;
  EXPECT_NE(error_of([&] { c.validate(); }).find("neither b2t_filter nor t2b_filter"), std::string::npos);
  c.b2t_filter = "False";  // a set filter that never matches counts as set, as in the reference
  EXPECT_NO_THROW(c.validate());
}

TEST(config_validate, ranges_and_choices) {
  graft_config c;
  c.enable = true;
  c.side = role::target;
  c.c10d.master_address = "127.0.0.1";
  c.baseline_world_size = c.target_world_size = 1;
  c.b2t_filter = "name == 'x'";
  c.c10d.master_port = 70000;
  EXPECT_NE(error_of([&] { c.validate(); }).find("a port in 1..65535 when the grafter is enabled, got 70000"), std::string::npos);
  c.c10d.master_port = 2000;
  c.c10d.backend = "mpi";
  EXPECT_NE(error_of([&] { c.validate(); }).find("'gloo' or 'nccl', got 'mpi'"), std::string::npos);
  c.c10d.backend = "gloo";
  c.timeout_seconds = 0;
  EXPECT_NE(error_of([&] { c.validate(); }).find("timeout must be more than 0 and at most 2592000 seconds (30 days), got 0"),
            std::string::npos);
  // Beyond what a deadline's clock holds: rejected, not wrapped into the past.
  c.timeout_seconds = 1e10;
  EXPECT_NE(error_of([&] { c.validate(); }).find("got 1e+10; set DUMPER_GRAFTER_TIMEOUT"), std::string::npos);
  c.timeout_seconds = graft_config::max_timeout_seconds;
  EXPECT_NO_THROW(c.validate());
  c.timeout_seconds = 1;
  c.b2t_filter = "name == ";
  EXPECT_NE(error_of([&] { c.validate(); }).find("b2t_filter"), std::string::npos);
}

TEST(config_world_token, read_from_every_source_and_never_empty) {
  EXPECT_EQ(graft_config::from_env_map({{"DUMPER_GRAFTER_WORLD_TOKEN", "job-42"}}).c10d.world_token, "job-42");
  EXPECT_FALSE(graft_config::from_env_map({{"DUMPER_GRAFTER_WORLD_TOKEN", "  "}}).c10d.world_token);
  EXPECT_EQ(graft_config::from_kv_pairs({"world_token=job-42"}).c10d.world_token, "job-42");
  graft_config c = graft_config::from_json({{"enable", true}, {"role", "target"}, {"master_address", "h"},
                                            {"master_port", 2000}, {"baseline_world_size", 1},
                                            {"target_world_size", 1}, {"b2t_filter", "True"}, {"world_token", ""}});
  EXPECT_NE(error_of([&] { c.validate(); }).find("world_token must not be empty when it is set; set "
                                                 "DUMPER_GRAFTER_WORLD_TOKEN"),
            std::string::npos);
  c.c10d.world_token = "job-42";
  EXPECT_NO_THROW(c.validate());
}

TEST(config_validate, disabled_config_is_not_checked) {
  graft_config c;
  c.c10d.master_port = -5;
  EXPECT_NO_THROW(c.validate());
}

TEST(config_names, env_name_for_field) {
  EXPECT_EQ(graft_config::env_name("b2t_filter"), "DUMPER_GRAFTER_B2T_FILTER");
}

TEST(config_kv_pairs, parses_and_accepts_the_reference_prefix) {
  const auto c = graft_config::from_kv_pairs({"role=target", "grafter_b2t_filter=layer_id is not None and layer_id < 3",
                                              "master_port=1234", "enable=true"});
  EXPECT_EQ(c.side, role::target);
  EXPECT_EQ(c.b2t_filter, "layer_id is not None and layer_id < 3");
  EXPECT_EQ(c.c10d.master_port, 1234);
  EXPECT_TRUE(c.enable);
}

TEST(config_kv_pairs, errors) {
  EXPECT_NE(error_of([] { graft_config::from_kv_pairs({"role"}); }).find("missing '='"), std::string::npos);
  const std::string unknown = error_of([] { graft_config::from_kv_pairs({"colour=red"}); });
  EXPECT_NE(unknown.find("unknown config key 'colour'"), std::string::npos);
  EXPECT_NE(unknown.find("Valid keys: enable, role, b2t_filter, t2b_filter, compare_filter"), std::string::npos);
  EXPECT_NE(error_of([] { graft_config::from_kv_pairs({"master_port=abc"}); }).find("expected an integer"),
            std::string::npos);
}

TEST(config_from_env, timeout_is_a_decimal_number) {
  EXPECT_DOUBLE_EQ(graft_config::from_env_map({{"DUMPER_GRAFTER_TIMEOUT", " 2.5e1 "}}).timeout_seconds, 25.0);
  for (const char* text : {"0x10", "inf", "nan", "1e400", "10s"}) {
    EXPECT_NE(error_of([&] { graft_config::from_env_map({{"DUMPER_GRAFTER_TIMEOUT", text}}); })
                  .find(std::string("expected a number of seconds, got '") + text + "'"),
              std::string::npos)
        << text;
  }
}

TEST(config_from_env, backend_address_and_group_name_are_trimmed_and_the_backend_lowered) {
  const auto c = graft_config::from_env_map({{"DUMPER_GRAFTER_BACKEND", " GLOO "},
                                             {"DUMPER_GRAFTER_MASTER_ADDRESS", " 127.0.0.1\t"},
                                             {"DUMPER_GRAFTER_GROUP_NAME", " run7 "}});
  EXPECT_EQ(c.c10d.backend, "gloo");
  EXPECT_EQ(c.c10d.master_address, "127.0.0.1");
  EXPECT_EQ(c.c10d.group_name, "run7");
  EXPECT_EQ(graft_config::from_json(nlohmann::json{{"backend", "NCCL"}}).c10d.backend, "nccl");
}

TEST(config_json, integers_beyond_int_are_errors_not_wrapped) {
  // 4294996796 is 2^32 + 29500: a plain conversion would read port 29500.
  for (const nlohmann::json& number : {nlohmann::json(4294996796ULL), nlohmann::json(-4294967297LL),
                                       nlohmann::json(std::numeric_limits<std::uint64_t>::max())}) {
    EXPECT_NE(error_of([&] { graft_config::from_json(nlohmann::json{{"master_port", number}}); })
                  .find("master_port: expected an integer, got " + number.dump()),
              std::string::npos)
        << number;
  }
  EXPECT_EQ(graft_config::from_json(nlohmann::json{{"baseline_world_size", 2147483647}}).baseline_world_size,
            2147483647);
  EXPECT_EQ(graft_config::from_json(nlohmann::json{{"master_port", -2147483648LL}}).c10d.master_port, -2147483648LL);
}

TEST(config_json, strings_that_are_not_utf8_are_named_not_thrown_as_json_errors) {
  EXPECT_NE(error_of([] { graft_config::from_json(nlohmann::json{{"master_port", "80\xff"}}); })
                .find("master_port: expected an integer, got \"80\xEF\xBF\xBD\""),
            std::string::npos);
}

TEST(config_json, parses_and_rejects) {
  const auto c = graft_config::from_json(nlohmann::json{{"enable", true}, {"role", "baseline"}, {"timeout", 2.5},
                                                        {"t2b_filter", "name == 'y'"}, {"transform_path", nullptr}});
  EXPECT_TRUE(c.enable);
  EXPECT_DOUBLE_EQ(c.timeout_seconds, 2.5);
  EXPECT_EQ(c.t2b_filter, "name == 'y'");
  EXPECT_FALSE(c.transform_path.has_value());
  EXPECT_NE(error_of([] { graft_config::from_json(nlohmann::json{{"master_port", "80"}}); })
                .find("master_port: expected an integer, got \"80\""),
            std::string::npos);
  EXPECT_NE(error_of([] { graft_config::from_json(nlohmann::json{{"bogus", 1}}); }).find("Valid keys"),
            std::string::npos);
  EXPECT_NE(error_of([] { graft_config::from_json(nlohmann::json::array()); }).find("expected a JSON object"),
            std::string::npos);
}

TEST(rank_layout_from_config, checks_world_size_and_places_ranks) {
  graft_config c;
  c.side = role::target;
  c.baseline_world_size = 4;
  c.target_world_size = 2;
  const auto layout = make_rank_layout(c, {1, 2});
  EXPECT_EQ(layout.graft_rank(), 5);
  EXPECT_EQ(layout.graft_world_size(), 6);
  EXPECT_NE(error_of([&] { make_rank_layout(c, {0, 3}); }).find("target_world_size=2 but this process's side has WORLD_SIZE=3"),
            std::string::npos);
  EXPECT_NE(error_of([&] { make_rank_layout(c, {2, 2}); }).find("RANK=2 is outside"), std::string::npos);
}

TEST(rank_layout_from_config, reads_torchrun_environment) {
  ::setenv("RANK", "3", 1);
  ::setenv("WORLD_SIZE", "8", 1);
  const auto local = side_rank_from_env();
  ::setenv("RANK", "x", 1);
  EXPECT_NE(error_of([] { side_rank_from_env(); }).find("RANK: expected an integer"), std::string::npos);
  ::unsetenv("RANK");
  ::unsetenv("WORLD_SIZE");
  EXPECT_EQ(local.rank, 3);
  EXPECT_EQ(local.world_size, 8);
}

// One field given twice is ambiguous: neither the key order nor the last pair
// may silently decide.
TEST(config_sources, a_field_given_twice_is_an_error_naming_both_keys) {
  const std::string json = error_of([] {
    graft_config::from_json(nlohmann::json{{"timeout", 5}, {"grafter_timeout", 7}});
  });
  EXPECT_NE(json.find("grafter config: 'timeout' sets timeout, which 'grafter_timeout' already set; give it once"),
            std::string::npos)
      << json;
  const std::string pairs = error_of([] { graft_config::from_kv_pairs({"role=baseline", "role=target"}); });
  EXPECT_NE(pairs.find("config pairs: 'role' sets role, which 'role' already set"), std::string::npos) << pairs;
  EXPECT_EQ(graft_config::from_kv_pairs({"role=target", "timeout=5"}).timeout_seconds, 5);
}

}  // namespace
}  // namespace graft

