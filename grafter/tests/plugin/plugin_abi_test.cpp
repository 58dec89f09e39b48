// The registration macro, exercised in-process: the exported entry and the
// exception firewall of its descriptor, without the loader.

#include <cstring>
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

}  // namespace

GRAFT_REGISTER_TRANSFORM(abi_plus_one, plus_one)
GRAFT_REGISTER_TRANSFORM(abi_refuse, refuse)
GRAFT_REGISTER_TRANSFORM(abi_throw_int, throw_int)

namespace {

const graft_test::transform_call kCall(at::zeros({2}), {at::ones({2})}, 0, 1);

TEST(plugin_abi, descriptor_carries_magic_versions_and_name) {
  const graft::graft_transform_descriptor* d = graft_transform_abi_plus_one();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->magic, graft::kGraftPluginMagic);
  EXPECT_EQ(d->abi_version, graft::kGraftPluginAbiVersion);
  EXPECT_STREQ(d->torch_version, TORCH_VERSION);
  EXPECT_STREQ(d->name, "abi_plus_one");
  EXPECT_EQ(d, graft_transform_abi_plus_one()) << "one static descriptor per transform";
}

TEST(plugin_abi, call_returns_the_candidate) {
  const graft::graft_transform_input in = kCall.input();
  at::Tensor out;
  char error[64] = "untouched";
  ASSERT_EQ(graft_transform_abi_plus_one()->call(&in, &out, error, sizeof error), 0);
  EXPECT_EQ(graft_test::values(out), (std::vector<double>{2, 2}));
}

TEST(plugin_abi, exception_becomes_a_message) {
  const graft::graft_transform_input in = kCall.input();
  at::Tensor out;
  char error[64] = {};
  EXPECT_NE(graft_transform_abi_refuse()->call(&in, &out, error, sizeof error), 0);
  EXPECT_STREQ(error, "refused: 0123456789");
  EXPECT_FALSE(out.defined());
}

TEST(plugin_abi, message_is_truncated_to_capacity) {
  const graft::graft_transform_input in = kCall.input();
  at::Tensor out;
  char error[9];
  std::memset(error, 'x', sizeof error);
  EXPECT_NE(graft_transform_abi_refuse()->call(&in, &out, error, sizeof error), 0);
  EXPECT_STREQ(error, "refused:");
}

TEST(plugin_abi, non_std_exception_is_caught_too) {
  const graft::graft_transform_input in = kCall.input();
  at::Tensor out;
  char error[128] = {};
  EXPECT_NE(graft_transform_abi_throw_int()->call(&in, &out, error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("unknown exception"), std::string::npos) << error;
}

}  // namespace
