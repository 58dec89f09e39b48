// The registration macros, exercised in-process: the registry they build in
// this program and the exception firewall of its entries, without the loader.

#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft/plugin.hpp>
#include <graft_test/tensor_checks.hpp>

#include "transform_input.hpp"

namespace {

at::Tensor plus_one(const graft::graft_transform_input& in) { return in.received_list.at(0) + 1; }
at::Tensor refuse(const graft::graft_transform_input&) {
  throw std::invalid_argument("refused: 0123456789");
}
at::Tensor throw_int(const graft::graft_transform_input&) { throw 42; }

at::Tensor halve(const graft::graft_transform_input& in) { return in.received_list.at(0) * 0.5; }
std::optional<graft::fused_plan> halve_plan(const graft::graft_transform_input& in) {
  if (in.tags.contains("refuse_plan")) throw std::runtime_error("plan refused");
  return graft::fused_plan{0, 0.5};
}

}  // namespace

GRAFT_REGISTER_TRANSFORM(abi_plus_one, plus_one)
GRAFT_REGISTER_TRANSFORM(abi_refuse, refuse)
GRAFT_REGISTER_TRANSFORM(abi_throw_int, throw_int)
GRAFT_REGISTER_FUSED_TRANSFORM(abi_halve, halve, halve_plan)

namespace {

const graft_test::transform_call kCall(at::zeros({2}), {at::ones({2})}, 0, 1);

const graft::plugin_registry_entry& entry(const std::string& name) {
  const graft::plugin_registry* registry = graft_plugin_registry();
  for (std::uint64_t i = 0; i < registry->count; ++i) {
    if (name == registry->entries[i].name) return registry->entries[i];
  }
  throw std::out_of_range("no entry " + name);
}

TEST(plugin_abi, registry_carries_magic_versions_and_its_size) {
  const graft::plugin_registry* registry = graft_plugin_registry();
  ASSERT_NE(registry, nullptr);
  EXPECT_EQ(registry->magic, graft::kGraftPluginMagic);
  EXPECT_EQ(registry->abi_version, 2u);
  EXPECT_EQ(registry->struct_size, sizeof(graft::plugin_registry));
  EXPECT_STREQ(registry->torch_version, TORCH_VERSION);
  EXPECT_EQ(registry, graft_plugin_registry()) << "one registry per library";
}

TEST(plugin_abi, registry_lists_every_registration_in_order) {
  const graft::plugin_registry* registry = graft_plugin_registry();
  ASSERT_EQ(registry->count, 4u);
  std::vector<std::string> names;
  for (std::uint64_t i = 0; i < registry->count; ++i) names.emplace_back(registry->entries[i].name);
  EXPECT_EQ(names, (std::vector<std::string>{"abi_plus_one", "abi_refuse", "abi_throw_int", "abi_halve"}));
}

TEST(plugin_abi, only_a_fused_registration_has_a_plan) {
  EXPECT_EQ(entry("abi_plus_one").plan, nullptr);
  ASSERT_NE(entry("abi_halve").plan, nullptr);
  const graft::graft_transform_input in = kCall.input();
  graft::graft_plugin_fused_plan plan{99, 99.0};
  ASSERT_EQ(entry("abi_halve").plan(&in, &plan), 1);
  EXPECT_EQ(plan.source, 0u);
  EXPECT_EQ(plan.scale, 0.5);
}

TEST(plugin_abi, plan_that_throws_means_no_plan) {
  graft_test::transform_call refusing = kCall;
  refusing.tags = {{"name", "x"}, {"refuse_plan", true}};
  const graft::graft_transform_input in = refusing.input();
  graft::graft_plugin_fused_plan plan{};
  EXPECT_EQ(entry("abi_halve").plan(&in, &plan), 0);
}

TEST(plugin_abi, call_returns_the_candidate) {
  const graft::graft_transform_input in = kCall.input();
  at::Tensor out;
  char error[64] = "untouched";
  ASSERT_EQ(entry("abi_plus_one").call(&in, &out, error, sizeof error), 0);
  EXPECT_EQ(graft_test::values(out), (std::vector<double>{2, 2}));
}

TEST(plugin_abi, exception_becomes_a_message) {
  const graft::graft_transform_input in = kCall.input();
  at::Tensor out;
  char error[64] = {};
  EXPECT_NE(entry("abi_refuse").call(&in, &out, error, sizeof error), 0);
  EXPECT_STREQ(error, "refused: 0123456789");
  EXPECT_FALSE(out.defined());
}

TEST(plugin_abi, message_is_truncated_to_capacity) {
  const graft::graft_transform_input in = kCall.input();
  at::Tensor out;
  char error[9];
  std::memset(error, 'x', sizeof error);
  EXPECT_NE(entry("abi_refuse").call(&in, &out, error, sizeof error), 0);
  EXPECT_STREQ(error, "refused:");
}

TEST(plugin_abi, non_std_exception_is_caught_too) {
  const graft::graft_transform_input in = kCall.input();
  at::Tensor out;
  char error[128] = {};
  EXPECT_NE(entry("abi_throw_int").call(&in, &out, error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("unknown exception"), std::string::npos) << error;
}

}  // namespace
