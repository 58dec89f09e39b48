// When a scenario with CUDA ranks is skipped, and the reason it gives.

#include <gtest/gtest.h>

#include <graft/error.hpp>
#include <graft/harness/device_needs.hpp>
#include <graft/harness/runner.hpp>

namespace graft::harness {
namespace {

scenario with_devices(std::vector<std::string> baseline, std::vector<std::string> target,
                      const std::string& backend = "gloo") {
  scenario s;
  s.baseline_world_size = static_cast<int>(baseline.size());
  s.target_world_size = static_cast<int>(target.size());
  s.baseline_devices = std::move(baseline);
  s.target_devices = std::move(target);
  s.grafter = {{"backend", backend}};
  return s;
}

TEST(DeviceNeeds, ACpuScenarioAlwaysRuns) {
  EXPECT_FALSE(unmet_device_needs(with_devices({"cpu"}, {"cpu"}, "nccl"), device_inventory{}));
}

TEST(DeviceNeeds, EachMissingPieceIsNamed) {
  const scenario cuda = with_devices({"cuda"}, {"cuda"});
  EXPECT_NE(unmet_device_needs(cuda, {false, false, 0}).value_or("").find(
                "this graft was built against a CPU-only libtorch"),
            std::string::npos);
  EXPECT_NE(unmet_device_needs(cuda, {true, true, 0}).value_or("").find(
                "needs a CUDA device: none visible (torch.cuda device_count 0)"),
            std::string::npos);
  EXPECT_FALSE(unmet_device_needs(cuda, {true, false, 1}));  // Gloo: ranks may share a device

  const scenario nccl = with_devices({"cuda"}, {"cuda", "cuda"}, "nccl");
  EXPECT_NE(unmet_device_needs(nccl, {true, false, 8}).value_or("").find("built without NCCL"), std::string::npos);
  const std::string few = unmet_device_needs(nccl, {true, true, 2}).value_or("");
  EXPECT_NE(few.find("3 CUDA ranks, 2 devices visible"), std::string::npos) << few;
  EXPECT_FALSE(unmet_device_needs(nccl, {true, true, 3}));
  // Only CUDA ranks count: a CPU rank beside them needs no device.
  EXPECT_FALSE(unmet_device_needs(with_devices({"cuda"}, {"cpu"}, "nccl"), {true, true, 1}));
}

TEST(DeviceNeeds, TheWorkersAnswerIsChecked) {
  const device_inventory have =
      device_inventory_from_json({{"schema_version", 1}, {"cuda_built", true}, {"nccl_built", false},
                                  {"cuda_devices", 2}});
  EXPECT_TRUE(have.cuda_built);
  EXPECT_FALSE(have.nccl_built);
  EXPECT_EQ(have.cuda_devices, 2);
  EXPECT_THROW(device_inventory_from_json({{"cuda_built", true}, {"nccl_built", true}, {"cuda_devices", 2}}),
               graft::error);  // no schema_version
  EXPECT_THROW(device_inventory_from_json({{"schema_version", 1}, {"cuda_built", true}, {"cuda_devices", 2}}),
               graft::error);
  EXPECT_THROW(device_inventory_from_json(
                   {{"schema_version", 1}, {"cuda_built", true}, {"nccl_built", true}, {"cuda_devices", -1}}),
               graft::error);
}

TEST(DeviceNeeds, SkipsAreNeverPassesAndAllSkippedExits77) {
  scenario_result pass{"a", scenario_result::status::pass, {}, "", 0};
  scenario_result skip{"b", scenario_result::status::skip, {"needs a CUDA device"}, "", 0};
  scenario_result fail{"c", scenario_result::status::fail, {"x"}, "", 0};
  EXPECT_EQ(run_exit_code({skip}), kExitAllSkipped);
  EXPECT_EQ(run_exit_code({pass, skip}), 0);
  EXPECT_EQ(run_exit_code({fail, skip}), 1);
  const std::string table = summary_table({pass, skip});
  EXPECT_NE(table.find("SKIP"), std::string::npos) << table;
  EXPECT_NE(table.find("1 passed, 0 failed, 0 errors, 1 skipped"), std::string::npos) << table;
  EXPECT_NE(table.find("SKIPPED b: needs a CUDA device"), std::string::npos) << table;
}

}  // namespace
}  // namespace graft::harness
