// The c10d exchange's wire header: what every rank contributes to a call's
// all-gather, and the verdict every rank draws from all of them.

#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft/error.hpp>

#include "exchange/c10d/wire_header.hpp"

namespace {

using graft::detail::payload_route;
using graft::detail::payload_state;
using graft::detail::wire_header;

wire_header sender_header() {
  wire_header h;
  h.sequence = 0xffffffffffffff01ULL;  // beyond int64: must survive the int64 slots
  h.fingerprint = 0x8000000000000001ULL;
  h.direction = graft::direction::t2b;
  h.graft_rank = 3;
  h.state = payload_state::present;
  h.dtype = at::kBFloat16;
  h.shape = {2, 0, 7, 1, 1, 1, 1, 5};
  h.extras_bytes = 17;
  h.route = payload_route::gloo;
  h.name = "model.layers.3.mlp.down_proj";
  return h;
}

graft::rank_layout layout_2_2() {
  graft::rank_layout l;
  l.baseline_world_size = 2;
  l.target_world_size = 2;
  return l;
}

TEST(C10dWireHeader, RoundTripsEveryField) {
  const wire_header h = sender_header();
  const at::Tensor slots = graft::detail::encode_header(h);
  EXPECT_EQ(slots.scalar_type(), at::kLong);
  EXPECT_EQ(slots.numel(), graft::detail::header_slots());
  const wire_header back = graft::detail::decode_header(slots, 3);
  EXPECT_EQ(back.sequence, h.sequence);
  EXPECT_EQ(back.fingerprint, h.fingerprint);
  EXPECT_EQ(back.direction, h.direction);
  EXPECT_EQ(back.state, h.state);
  EXPECT_EQ(back.dtype, h.dtype);
  EXPECT_EQ(back.shape, h.shape);
  EXPECT_EQ(back.extras_bytes, h.extras_bytes);
  EXPECT_EQ(back.route, h.route);
  EXPECT_EQ(back.name, h.name);
  wire_header receiver;
  receiver.graft_rank = 1;
  receiver.receives_on = graft::detail::receiver_device::cuda;
  EXPECT_EQ(graft::detail::decode_header(graft::detail::encode_header(receiver), 1).receives_on,
            graft::detail::receiver_device::cuda);
}

TEST(C10dWireHeader, LongNamesAreTruncated) {
  wire_header h = sender_header();
  h.name = std::string(100, 'n');
  EXPECT_EQ(graft::detail::decode_header(graft::detail::encode_header(h), 3).name,
            std::string(graft::detail::kHeaderNameBytes, 'n'));
}

TEST(C10dWireHeader, ARefusedTensorTravelsAsItsState) {
  wire_header h = sender_header();
  h.state = payload_state::refused;
  h.shape.clear();
  EXPECT_EQ(graft::detail::decode_header(graft::detail::encode_header(h), 3).state, payload_state::refused);
}

TEST(C10dWireHeader, SaysWhichTensorsCannotTravel) {
  using graft::detail::cannot_travel;
  EXPECT_FALSE(cannot_travel(at::ones(std::vector<std::int64_t>(8, 1))).has_value());
  EXPECT_FALSE(cannot_travel(at::ones({})).has_value());
  const auto nine = cannot_travel(at::ones(std::vector<std::int64_t>(9, 1)));
  ASSERT_TRUE(nine.has_value());
  EXPECT_NE(nine->find("it has 9 dimensions"), std::string::npos) << *nine;
  const auto sparse = cannot_travel(at::ones({2, 2}).to_sparse());
  ASSERT_TRUE(sparse.has_value());
  EXPECT_NE(sparse->find("to_dense()"), std::string::npos) << *sparse;
  const auto meta = cannot_travel(at::empty({2, 2}, at::TensorOptions().device(at::kMeta)));
  ASSERT_TRUE(meta.has_value());
  EXPECT_NE(meta->find("meta device"), std::string::npos) << *meta;
}

TEST(C10dWireHeader, ForeignBytesAreRejected) {
  at::Tensor slots = graft::detail::encode_header(sender_header());
  slots[0] = 12345;
  EXPECT_THROW(graft::detail::decode_header(slots, 3), graft::exchange_error);
  EXPECT_THROW(graft::detail::decode_header(graft::detail::encode_header(sender_header()), 2),
               graft::exchange_error);  // claims another rank
  EXPECT_THROW(graft::detail::decode_header(at::zeros({5}, at::kLong), 3), graft::exchange_error);
}

std::vector<wire_header> world_at(std::uint64_t sequence) {
  std::vector<wire_header> all(4);
  for (int r = 0; r < 4; ++r) {
    all[static_cast<std::size_t>(r)].sequence = sequence;
    all[static_cast<std::size_t>(r)].fingerprint = 77;
    all[static_cast<std::size_t>(r)].graft_rank = r;
    all[static_cast<std::size_t>(r)].name = "x";
  }
  return all;
}

TEST(C10dWireHeader, AgreeingHeadersPass) {
  const auto all = world_at(5);
  EXPECT_NO_THROW(graft::detail::check_wire_headers(all, all[2], layout_2_2(), std::nullopt));
}

TEST(C10dWireHeader, AnyDisagreementIsDesyncOnEveryRank) {
  auto all = world_at(5);
  all[3].fingerprint = 78;
  all[3].name = "y";
  for (int r = 0; r < 4; ++r) {
    try {
      graft::detail::check_wire_headers(all, all[static_cast<std::size_t>(r)], layout_2_2(), std::nullopt);
      ADD_FAILURE() << "rank " << r << " saw no desync";
    } catch (const graft::desync_error& e) {
      EXPECT_NE(std::string(e.what()).find("graft rank 3"), std::string::npos) << e.what();
    }
  }
}

// The refusing rank names its own reason; the others name that rank.
TEST(C10dWireHeader, ASenderTensorThatCannotTravelFailsEveryRank) {
  auto all = world_at(5);  // b2t: graft ranks 0 and 1 send
  all[1].state = payload_state::refused;
  const std::string reason = "its layout is Sparse, and only strided (dense) tensors can be grafted";
  for (int r = 0; r < 4; ++r) {
    const wire_header& mine = all[static_cast<std::size_t>(r)];
    try {
      graft::detail::check_wire_headers(all, mine, layout_2_2(),
                                        r == 1 ? std::optional<std::string>(reason) : std::nullopt);
      ADD_FAILURE() << "rank " << r << " accepted it";
    } catch (const graft::desync_error& e) {
      ADD_FAILURE() << "not a desync: " << e.what();
    } catch (const graft::exchange_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("graft rank 1 (baseline rank 1) cannot send its tensor"), std::string::npos) << what;
      EXPECT_EQ(what.find(reason) != std::string::npos, r == 1) << what;
      EXPECT_EQ(what.find("that rank's error names the reason") != std::string::npos, r != 1) << what;
    }
  }
}

TEST(C10dWireHeader, OnlySendersStatesAreRead) {
  auto all = world_at(5);  // b2t: graft ranks 2 and 3 receive, and a receiver's state is not read
  all[3].state = payload_state::refused;
  EXPECT_NO_THROW(graft::detail::check_wire_headers(all, all[0], layout_2_2(), std::nullopt));
}

// A CUDA payload on the NCCL route to a receiver that wants a CPU tensor is
// refused on every rank, before anything moves; the sender's and the
// receiver's ranks and the fix are named.
TEST(C10dWireHeader, CudaOverNcclToACpuReceiverIsRefusedOnEveryRank) {
  auto all = world_at(5);  // b2t: graft ranks 0 and 1 send, 2 and 3 receive
  for (int r : {0, 1}) {
    all[static_cast<std::size_t>(r)].state = payload_state::present;
    all[static_cast<std::size_t>(r)].route = payload_route::nccl;
  }
  all[2].receives_on = graft::detail::receiver_device::cuda;
  all[3].receives_on = graft::detail::receiver_device::cpu;
  for (int r = 0; r < 4; ++r) {
    try {
      graft::detail::check_wire_headers(all, all[static_cast<std::size_t>(r)], layout_2_2(), std::nullopt);
      ADD_FAILURE() << "rank " << r << " accepted it";
    } catch (const graft::mixed_device_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("graft rank 0 (baseline rank 0) sends a CUDA tensor over NCCL"), std::string::npos) << what;
      EXPECT_NE(what.find("graft rank 3 (target rank 1) receives into a CPU tensor"), std::string::npos) << what;
      EXPECT_NE(what.find("backend=gloo"), std::string::npos) << what;
    }
  }
}

// Devices may differ where the route copes: a CPU payload (over Gloo) to a
// CUDA receiver, or CUDA over NCCL to CUDA receivers.
TEST(C10dWireHeader, RoutesThatJoinTheDevicesPass) {
  auto all = world_at(5);
  all[0].state = payload_state::present;
  all[0].route = payload_route::gloo;
  all[2].receives_on = graft::detail::receiver_device::cuda;
  all[3].receives_on = graft::detail::receiver_device::cpu;
  EXPECT_NO_THROW(graft::detail::check_wire_headers(all, all[0], layout_2_2(), std::nullopt));
  all[0].route = payload_route::nccl;
  all[3].receives_on = graft::detail::receiver_device::cuda;
  EXPECT_NO_THROW(graft::detail::check_wire_headers(all, all[0], layout_2_2(), std::nullopt));
}

}  // namespace
