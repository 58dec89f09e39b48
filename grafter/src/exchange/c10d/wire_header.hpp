#pragma once
// The fixed-size header every rank contributes to a call's all-gather: enough
// for every rank to check that all ranks reached the same dump call, and for
// receivers to allocate each sender's tensor and extras before the payload.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <graft/error.hpp>
#include <graft/role.hpp>

namespace graft {

// A call whose sender and receiver hold tensors on devices the route between
// them cannot join (check_wire_headers). Private to the c10d exchange: the
// grafter reports it as any exchange_error.
class mixed_device_error : public exchange_error {
 public:
  using exchange_error::exchange_error;
};

}  // namespace graft

namespace graft::detail {

inline constexpr int kMaxHeaderDims = 8;
inline constexpr std::size_t kHeaderNameBytes = 64;  // the name travels, truncated, for messages

// What a rank contributes. For receivers only the call's identity matters.
enum class payload_state : std::int64_t {
  none = 0,     // a receiver, or a sender whose value is absent
  present = 1,
  refused = 2,  // a sender's tensor that cannot travel (cannot_travel): nothing moves
};

// The group a sender's tensor bytes travel on.
enum class payload_route : std::int64_t { gloo = 0, nccl = 1 };

// Where a receiver wants the tensors (exchange_call::recv_device), so that
// every rank can refuse a payload the receiver cannot take on its route.
enum class receiver_device : std::int64_t { none = 0, cpu = 1, cuda = 2 };

struct wire_header {
  std::uint64_t sequence = 0;
  std::uint64_t fingerprint = 0;
  graft::direction direction = graft::direction::b2t;
  int graft_rank = 0;
  payload_state state = payload_state::none;
  c10::ScalarType dtype = c10::ScalarType::Float;
  std::vector<std::int64_t> shape;  // empty unless present
  std::int64_t extras_bytes = 0;    // 0: extras omitted
  payload_route route = payload_route::gloo;
  receiver_device receives_on = receiver_device::none;  // none for senders
  std::string name;                 // truncated to kHeaderNameBytes
};

// A 1-D int64 CPU tensor of kHeaderSlots elements.
at::Tensor encode_header(const wire_header& header);
// Throws exchange_error when the tensor is not a header of this version.
wire_header decode_header(const at::Tensor& slots, int graft_rank);

std::int64_t header_slots();

// Why t cannot travel in this exchange, as a clause with its fix: it has no
// raw bytes (ungraftable_reason) or more dimensions than the header
// describes; nullopt when it can.
std::optional<std::string> cannot_travel(const at::Tensor& t);

// Checks the gathered headers (index = graft rank); every rank reaches the
// same verdict. Throws desync_error (the exchanges' shared check) when any rank
// is at a different call, exchange_error when a sender's tensor cannot travel
// (the refusing rank names its reason (my_refusal), the others name that
// rank), and mixed_device_error when a sender's CUDA tensor would travel over
// NCCL to a receiver that wants it on the CPU.
void check_wire_headers(const std::vector<wire_header>& headers, const wire_header& mine,
                        const rank_layout& layout, const std::optional<std::string>& my_refusal);

}  // namespace graft::detail
