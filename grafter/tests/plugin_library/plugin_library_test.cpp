// inspect_plugin_library, what graft plugins prints, on sample plugins of
// fixtures/transforms: a registry read without libtorch linked into this test.

#include <string>

#include <gtest/gtest.h>
#include <torch/version.h>

#include <graft/plugin_library.hpp>

namespace {

using kind = graft::plugin_load_error_kind;

std::string inspect_error(const std::string& library, kind expected) {
  try {
    graft::inspect_plugin_library(library);
  } catch (const graft::plugin_load_error& e) {
    EXPECT_EQ(e.kind(), expected) << graft::to_string(e.kind()) << ": " << e.what();
    return e.what();
  }
  ADD_FAILURE() << library << " was read";
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(plugin_library, lists_a_librarys_transforms_and_versions) {
  const graft::plugin_library_info info = graft::inspect_plugin_library(GRAFT_TEST_PLUGIN_THROWS);
  EXPECT_EQ(info.path, GRAFT_TEST_PLUGIN_THROWS);
  EXPECT_EQ(info.abi_version, 2u);
  EXPECT_EQ(info.torch_version, TORCH_VERSION);
  ASSERT_EQ(info.transforms.size(), 2u);
  EXPECT_EQ(info.transforms[0].name, "throws");
  EXPECT_EQ(info.transforms[1].name, "torch_error");
  EXPECT_FALSE(info.transforms[0].fused_plan);
  EXPECT_FALSE(info.transforms[1].fused_plan);
}

TEST(plugin_library, tells_which_transforms_have_a_fused_plan) {
  const graft::plugin_library_info info = graft::inspect_plugin_library(GRAFT_TEST_PLUGIN_ARITHMETIC);
  ASSERT_EQ(info.transforms.size(), 2u);
  EXPECT_EQ(info.transforms[0].name, "add_one");
  EXPECT_FALSE(info.transforms[0].fused_plan);
  EXPECT_EQ(info.transforms[1].name, "triple");
  EXPECT_TRUE(info.transforms[1].fused_plan);
}

TEST(plugin_library, a_missing_library_is_named) {
  const std::string message = inspect_error("/nonexistent-graft-dir/libx.so", kind::library_not_found);
  EXPECT_EQ(message.rfind("plugin library '/nonexistent-graft-dir/libx.so': ", 0), 0u) << message;
}

TEST(plugin_library, a_library_built_for_abi_1_is_refused) {
  const std::string message = inspect_error(GRAFT_TEST_PLUGIN_OLD_ABI, kind::not_a_transform);
  EXPECT_TRUE(contains(message, std::string("'") + GRAFT_TEST_PLUGIN_OLD_ABI + "' is no graft plugin"))
      << message;
  EXPECT_TRUE(contains(message, "built for plugin ABI 1")) << message;
}

TEST(plugin_library, another_abi_version_is_refused) {
  const std::string message = inspect_error(GRAFT_TEST_PLUGIN_WRONG_ABI, kind::abi_mismatch);
  EXPECT_TRUE(contains(message, "built for plugin ABI 999")) << message;
}

}  // namespace
