#include <graft/harness/install_layout.hpp>

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace graft::harness {
namespace {

namespace fs = std::filesystem;

// A prefix as `cmake --install` lays it out: graft in the tools folder, the fixtures under share.
fs::path make_prefix(const testing::temp_dir& dir) {
  const fs::path prefix = dir / "prefix";
  fs::create_directories(prefix / GRAFT_INSTALL_TOOLSDIR);
  fs::create_directories(prefix / GRAFT_INSTALL_FIXTURESDIR);
  return prefix;
}

TEST(install_layout, an_installed_program_finds_everything_under_its_prefix) {
  const testing::temp_dir dir;
  const fs::path prefix = make_prefix(dir);
  const runtime_paths paths = default_runtime_paths(prefix / GRAFT_INSTALL_TOOLSDIR / "graft");
  EXPECT_EQ(install_prefix_of(prefix / GRAFT_INSTALL_TOOLSDIR / "graft"), prefix);
  EXPECT_EQ(paths.fixtures, prefix / GRAFT_INSTALL_FIXTURESDIR);
  EXPECT_EQ(paths.plugins, prefix / GRAFT_INSTALL_PLUGINSDIR);
  EXPECT_EQ(paths.worker, prefix / GRAFT_INSTALL_HELPERSDIR / "graft_worker");
  EXPECT_EQ(paths.model, prefix / GRAFT_INSTALL_HELPERSDIR / "graft_model");
  // The user's working folder, never the prefix (often not writable).
  EXPECT_EQ(paths.reports, fs::path("reports"));
}

TEST(install_layout, a_tools_folder_without_installed_fixtures_is_no_install) {
  const testing::temp_dir dir;
  fs::create_directories(dir / "build" / GRAFT_INSTALL_TOOLSDIR);
  EXPECT_EQ(install_prefix_of(dir / "build" / GRAFT_INSTALL_TOOLSDIR / "graft"), std::nullopt);
}

TEST(install_layout, a_program_outside_the_tools_folder_is_no_install) {
  const testing::temp_dir dir;
  const fs::path prefix = make_prefix(dir);
  EXPECT_EQ(install_prefix_of(prefix / "harness" / "graft"), std::nullopt);
  EXPECT_EQ(install_prefix_of(prefix / GRAFT_INSTALL_HELPERSDIR / "graft_worker"), std::nullopt);
}

TEST(install_layout, a_build_tree_program_keeps_the_checkout_defaults_and_the_worker_beside_it) {
  const testing::temp_dir dir;
  const runtime_paths paths = default_runtime_paths(dir / "harness" / "graft");
  EXPECT_EQ(paths.worker, dir / "harness" / "graft_worker");
  EXPECT_EQ(paths.fixtures.filename(), "fixtures");
  EXPECT_EQ(paths.plugins.filename(), "transforms");
  EXPECT_TRUE(paths.reports.is_absolute()) << paths.reports;
}

}  // namespace
}  // namespace graft::harness
