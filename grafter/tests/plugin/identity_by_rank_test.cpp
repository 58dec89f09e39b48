#include <string>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft/error.hpp>
#include <graft/transform.hpp>
#include <graft_test/tensor_checks.hpp>

#include "transform_input.hpp"

namespace {

using graft_test::transform_call;
using graft_test::values;

std::string error_of(const transform_call& call) {
  try {
    call.run(graft::identity_by_rank());
  } catch (const graft::transform_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(identity_by_rank, receiver_takes_its_own_sender) {
  const transform_call call(at::zeros({3}),
                            {at::full({3}, 10.0), at::full({3}, 11.0), at::full({3}, 12.0)}, 1, 3);
  const at::Tensor out = call.run(graft::identity_by_rank());
  EXPECT_EQ(values(out), (std::vector<double>{11, 11, 11}));
  EXPECT_EQ(graft::identity_by_rank().name, "identity_by_rank");
}

TEST(identity_by_rank, sender_count_mismatch_uses_reference_wording) {
  std::vector<at::Tensor> four(4, at::zeros({3}));
  const transform_call call(at::zeros({3}), four, 0, 2);
  EXPECT_EQ(error_of(call),
            "no transform set; default identity-by-rank requires #senders == #recvs but got "
            "#senders=4 vs #recvs=2. Provide a transform via "
            "DUMPER_GRAFTER_TRANSFORM_PATH=LIBRARY:SYMBOL "
            "(see docs/transforms.md).");
}

TEST(identity_by_rank, shape_mismatch_uses_reference_wording) {
  const transform_call call(at::full({4}, 7.0), {at::ones({3})}, 0, 1);
  EXPECT_EQ(error_of(call),
            "no transform set; default identity-by-rank requires matching shapes but "
            "received_list[0].shape=(3,) != target.shape=(4,). Provide a transform via "
            "DUMPER_GRAFTER_TRANSFORM_PATH=LIBRARY:SYMBOL (see docs/transforms.md).");
}

TEST(identity_by_rank, shape_mismatch_names_multi_dim_shapes) {
  const transform_call call(at::zeros({2, 3}), {at::zeros({}), at::zeros({3, 2})}, 1, 2);
  EXPECT_NE(error_of(call).find("received_list[1].shape=(3, 2) != target.shape=(2, 3)"),
            std::string::npos);
}

TEST(identity_by_rank, undefined_tensor_is_an_error) {
  const transform_call call(at::zeros({3}), {at::Tensor()}, 0, 1);
  const std::string message = error_of(call);
  EXPECT_NE(message.find("found no tensor in received_list[0]"), std::string::npos) << message;
}

}  // namespace
