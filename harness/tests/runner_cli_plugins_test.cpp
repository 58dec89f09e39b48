// `graft plugins LIBRARY` on the sample plugins of fixtures/transforms: the
// registry listed one transform a line, and a clear error with exit 2 for a
// library graft cannot load as a plugin.

#include <string>

#include <gtest/gtest.h>
#include <torch/version.h>

#include "cli_driver.hpp"

namespace graft::harness {
namespace {

using testing::graft;
using testing::quoted;
using testing::temp_dir;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(GraftCliPlugins, ListsEachTransformAndWhetherItHasAFusedPlan) {
  temp_dir dir;
  const auto r = graft(dir, "plugins " + quoted(GRAFT_TEST_PLUGIN_ARITHMETIC), "", true);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind(std::string(GRAFT_TEST_PLUGIN_ARITHMETIC) +
                               ": plugin ABI 2, built against libtorch " TORCH_VERSION ", 2 transforms\n",
                           0),
            0u)
      << r.output;
  EXPECT_TRUE(contains(r.output, "\nadd_one  [no fused plan]\ntriple  [fused plan]\n")) << r.output;
}

TEST(GraftCliPlugins, FindsABareFileNameThroughGraftPluginPath) {
  temp_dir dir;
  const auto r = graft(dir, "plugins libgraft_double_transform.so", "GRAFT_PLUGIN_PATH=" + quoted(GRAFT_TEST_PLUGIN_DIR));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, ", 1 transform\ndouble_it  [no fused plan]\n")) << r.output;
}

TEST(GraftCliPlugins, AMissingLibraryIsBadInput) {
  temp_dir dir;
  const auto r = graft(dir, "plugins " + quoted(dir / "libnothing.so"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "graft plugins: plugin library '" + (dir / "libnothing.so").string() +
                                     "': cannot load library"))
      << r.output;
}

TEST(GraftCliPlugins, ALibraryThatIsNoPluginIsBadInput) {
  temp_dir dir;
  const auto r = graft(dir, "plugins " + quoted(GRAFT_TEST_PLUGIN_NOT_A_TRANSFORM));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "is no graft plugin: it exports no graft_plugin_registry")) << r.output;
}

TEST(GraftCliPlugins, APluginForAnotherAbiIsBadInput) {
  temp_dir dir;
  const auto old = graft(dir, "plugins " + quoted(GRAFT_TEST_PLUGIN_OLD_ABI));
  EXPECT_EQ(old.exit_code, 2) << old.output;
  EXPECT_TRUE(contains(old.output, "built for plugin ABI 1")) << old.output;
  const auto newer = graft(dir, "plugins " + quoted(GRAFT_TEST_PLUGIN_WRONG_ABI));
  EXPECT_EQ(newer.exit_code, 2) << newer.output;
  EXPECT_TRUE(contains(newer.output, "was built for plugin ABI 999, but this graft speaks plugin ABI 2")) << newer.output;
}

TEST(GraftCliPlugins, TheLibraryIsRequired) {
  temp_dir dir;
  const auto r = graft(dir, "plugins");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "library is required")) << r.output;
}

}  // namespace
}  // namespace graft::harness
