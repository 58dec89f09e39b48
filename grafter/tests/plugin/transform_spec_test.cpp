// Spec syntax: what spec_problem accepts and the malformed_spec errors of
// load_transform (no file is touched for these).

#include <string>

#include <gtest/gtest.h>

#include <graft/transform_loader.hpp>

namespace {

using kind = graft::plugin_load_error_kind;

std::string malformed_message(const std::string& spec) {
  try {
    graft::load_transform(spec);
  } catch (const graft::plugin_load_error& e) {
    EXPECT_EQ(e.kind(), kind::malformed_spec) << spec << ": " << e.what();
    return e.what();
  }
  ADD_FAILURE() << spec << " loaded";
  return "";
}

TEST(transform_spec, well_formed_specs_have_no_problem) {
  for (const char* spec : {"libx.so:double_it", "/abs/dir/libx.so:double_it", "./rel/libx.so:f_1",
                           "weird:dir/libx.so:sym", "builtin:identity_by_rank", "builtin:reshard",
                           "builtin:reshard:dim=1", "builtin:reshard:dim=-1"}) {
    EXPECT_EQ(graft::spec_problem(spec), std::nullopt) << spec;
  }
}

TEST(transform_spec, no_colon_is_the_missing_prefix_case) {
  const std::string message = malformed_message("only_one_segment");
  EXPECT_NE(message.find("'only_one_segment'"), std::string::npos) << message;
  EXPECT_NE(message.find("no ':'"), std::string::npos) << message;
  EXPECT_NE(message.find("LIBRARY:SYMBOL"), std::string::npos) << message;
}

TEST(transform_spec, no_colon_and_no_dot_names_both_forms) {
  const std::string message = malformed_message("only_one_segment");
  EXPECT_NE(message.find("missing dotted prefix"), std::string::npos) << message;
  EXPECT_NE(message.find("pkg.module.symbol"), std::string::npos) << message;
}

TEST(transform_spec, dotted_paths_are_python_transforms) {
  for (const char* spec : {"pkg.module.symbol", "my_transforms.double_it", "a.b"}) {
    EXPECT_TRUE(graft::is_python_transform_spec(spec)) << spec;
    EXPECT_EQ(graft::spec_problem(spec), std::nullopt) << spec;
  }
  for (const char* spec : {"libx.so", "libx.so.1", "lib/x.y", "a..b", ".a", "a.", "a.9b", "a.b:c",
                           "builtin:reshard", "only_one_segment", ""}) {
    EXPECT_FALSE(graft::is_python_transform_spec(spec)) << spec;
  }
}

TEST(transform_spec, a_library_name_without_symbol_is_not_python) {
  const std::string message = malformed_message("libx.so");
  EXPECT_NE(message.find("no ':'"), std::string::npos) << message;
}

TEST(transform_spec, cpp_refuses_python_transforms_with_the_fix) {
  const std::string message = malformed_message("pkg.module.double_it");
  EXPECT_NE(message.find("'pkg.module.double_it' is a Python transform"), std::string::npos) << message;
  EXPECT_NE(message.find("import graft"), std::string::npos) << message;
}

TEST(transform_spec, empty_parts) {
  EXPECT_NE(malformed_message(":double_it").find("empty LIBRARY"), std::string::npos);
  EXPECT_NE(malformed_message("libx.so:").find("empty SYMBOL"), std::string::npos);
  EXPECT_NE(malformed_message("builtin:").find("empty built-in NAME"), std::string::npos);
}

TEST(transform_spec, symbol_must_be_a_c_identifier) {
  EXPECT_NE(malformed_message("libx.so:double-it").find("'double-it' is not a C identifier"),
            std::string::npos);
  EXPECT_NE(malformed_message("libx.so:9lives").find("not a C identifier"), std::string::npos);
}

TEST(transform_spec, unknown_builtin_lists_the_builtins) {
  const std::string message = malformed_message("builtin:transpose");
  EXPECT_NE(message.find("unknown built-in 'transpose'"), std::string::npos) << message;
  EXPECT_NE(message.find("identity_by_rank and reshard"), std::string::npos) << message;
}

TEST(transform_spec, builtin_options_are_checked) {
  EXPECT_NE(malformed_message("builtin:reshard:axis=1").find("unknown option 'axis'"),
            std::string::npos);
  EXPECT_NE(malformed_message("builtin:reshard:dim=one").find("dim='one' is not an integer"),
            std::string::npos);
  EXPECT_NE(malformed_message("builtin:reshard:dim").find("'dim' is not KEY=VALUE"),
            std::string::npos);
  EXPECT_NE(malformed_message("builtin:identity_by_rank:dim=0").find("takes no options"),
            std::string::npos);
}

TEST(transform_spec, spec_problem_returns_the_load_message) {
  const std::optional<std::string> problem = graft::spec_problem("only_one_segment");
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem, malformed_message("only_one_segment"));
}

TEST(transform_spec, builtins_load_by_name) {
  EXPECT_EQ(graft::load_transform("builtin:identity_by_rank").name, "identity_by_rank");
  EXPECT_EQ(graft::load_transform("builtin:reshard").name, "reshard");
}

TEST(transform_spec, kinds_have_names) {
  EXPECT_EQ(graft::to_string(kind::malformed_spec), "malformed_spec");
  EXPECT_EQ(graft::to_string(kind::abi_mismatch), "abi_mismatch");
}

}  // namespace
