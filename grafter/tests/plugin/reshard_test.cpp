#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft/builtin_transforms.hpp>
#include <graft/error.hpp>
#include <graft/transform_loader.hpp>
#include <graft_test/tensor_checks.hpp>

#include "transform_input.hpp"

namespace {

using graft_test::transform_call;
using graft_test::values;

nlohmann::json extras_with(nlohmann::json dim) {
  return nlohmann::json::object({{"reshard_dim", dim}});
}

at::Tensor range(std::int64_t n) { return at::arange(n, at::kFloat); }

std::string error_of(const transform_call& call, const graft::transform& t) {
  try {
    call.run(t);
  } catch (const graft::transform_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(reshard, two_senders_to_one_receiver_along_dim_1) {
  const at::Tensor whole = range(8).reshape({2, 4});
  const transform_call call(at::zeros({2, 4}), whole.chunk(2, 1), 0, 1);
  const at::Tensor out = call.run(graft::reshard(1));
  EXPECT_TRUE(at::equal(out, whole));
}

TEST(reshard, one_sender_to_two_receivers) {
  const at::Tensor whole = range(8).reshape({4, 2});
  for (int rank = 0; rank < 2; ++rank) {
    const transform_call call(at::zeros({2, 2}), {whole}, rank, 2);
    EXPECT_TRUE(at::equal(call.run(graft::reshard()), whole.narrow(0, 2 * rank, 2)))
        << "rank " << rank;
  }
}

TEST(reshard, two_senders_to_four_receivers) {
  const std::vector<at::Tensor> shards = range(8).chunk(2);
  const std::vector<std::vector<double>> expected{{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  for (int rank = 0; rank < 4; ++rank) {
    const transform_call call(at::zeros({2}), shards, rank, 4);
    EXPECT_EQ(values(call.run(graft::reshard(0))), expected[rank]) << "rank " << rank;
  }
}

TEST(reshard, share_spanning_two_shards_three_senders_to_two) {
  const std::vector<at::Tensor> shards = range(6).chunk(3);
  const transform_call first(at::zeros({3}), shards, 0, 2);
  const transform_call second(at::zeros({3}), shards, 1, 2);
  EXPECT_EQ(values(first.run(graft::reshard())), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(values(second.run(graft::reshard())), (std::vector<double>{3, 4, 5}));
}

TEST(reshard, dim_from_senders_extras) {
  const at::Tensor whole = range(8).reshape({2, 4});
  transform_call call(at::zeros({2, 2}), whole.chunk(2, 1), 1, 2);
  call.extras = {extras_with(1), extras_with(1)};
  EXPECT_TRUE(at::equal(call.run(graft::reshard()), whole.narrow(1, 2, 2)));
}

TEST(reshard, spec_dim_wins_over_extras) {
  const at::Tensor whole = range(8).reshape({4, 2});
  transform_call call(at::zeros({2, 2}), whole.chunk(2, 0), 1, 2);
  call.extras = {extras_with(1), nullptr};
  EXPECT_TRUE(at::equal(call.run(graft::reshard(0)), whole.narrow(0, 2, 2)));
}

TEST(reshard, negative_dim_counts_from_the_end) {
  const at::Tensor whole = range(8).reshape({2, 4});
  const transform_call call(at::zeros({2, 4}), whole.chunk(2, 1), 0, 1);
  EXPECT_TRUE(at::equal(call.run(graft::reshard(-1)), whole));
}

TEST(reshard, loads_by_spec_with_options) {
  const at::Tensor whole = range(8).reshape({2, 4});
  const transform_call call(at::zeros({2, 4}), whole.chunk(2, 1), 0, 1);
  const graft::transform t = graft::load_transform("builtin:reshard:dim=1");
  EXPECT_EQ(t.name, "reshard");
  EXPECT_TRUE(at::equal(call.run(t), whole));
}

TEST(reshard, uneven_split_names_shapes_and_dim) {
  const transform_call call(at::zeros({1}), range(3).chunk(3), 0, 2);
  const std::string message = error_of(call, graft::reshard());
  EXPECT_NE(message.find("(1,), (1,), (1,)"), std::string::npos) << message;
  EXPECT_NE(message.find("length 3"), std::string::npos) << message;
  EXPECT_NE(message.find("recv_world_size=2"), std::string::npos) << message;
  EXPECT_NE(message.find("dim 0"), std::string::npos) << message;
}

TEST(reshard, mismatched_shapes_off_the_concat_dim) {
  const transform_call call(at::zeros({2, 3}), {at::zeros({2, 3}), at::zeros({2, 4})}, 0, 1);
  const std::string message = error_of(call, graft::reshard(0));
  EXPECT_NE(
      message.find("received_list[1].shape=(2, 4) does not match received_list[0].shape=(2, 3)"),
      std::string::npos)
      << message;
  EXPECT_NE(message.find("concat dim 0"), std::string::npos) << message;
}

TEST(reshard, dim_out_of_range) {
  const transform_call call(at::zeros({4}), {at::zeros({2}), at::zeros({2})}, 0, 1);
  const std::string message = error_of(call, graft::reshard(2));
  EXPECT_NE(message.find("dim=2 from the spec is out of range for shards of rank 1"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("[-1, 0]"), std::string::npos) << message;
}

TEST(reshard, share_not_of_target_shape) {
  const transform_call call(at::zeros({3}), range(8).chunk(2), 0, 2);
  const std::string message = error_of(call, graft::reshard());
  EXPECT_NE(message.find("gets shape (4,)"), std::string::npos) << message;
  EXPECT_NE(message.find("target.shape=(3,)"), std::string::npos) << message;
}

TEST(reshard, undefined_shard) {
  const transform_call call(at::zeros({2}), {at::zeros({1}), at::Tensor()}, 0, 1);
  EXPECT_NE(error_of(call, graft::reshard()).find("received_list[1] is undefined"),
            std::string::npos);
}

TEST(reshard, senders_disagreeing_on_extras_dim) {
  transform_call call(at::zeros({2, 2}), {at::zeros({2, 2}), at::zeros({2, 2})}, 0, 2);
  call.extras = {extras_with(0), extras_with(1)};
  const std::string message = error_of(call, graft::reshard());
  EXPECT_NE(message.find("senders disagree on 'reshard_dim': 0 vs 1"), std::string::npos)
      << message;
}

TEST(reshard, non_integer_extras_dim) {
  transform_call call(at::zeros({2}), {at::zeros({2})}, 0, 1);
  call.extras = {extras_with("zero")};
  EXPECT_NE(error_of(call, graft::reshard()).find("not an integer"), std::string::npos);
}

}  // namespace
