#pragma once
// The messages of one call: what a rank puts on the wire (its header; for a
// sender also its tensor's raw bytes and its extras as JSON text), the headers'
// all-to-all, and the payload's move, point to point, from every sender to
// every receiver.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include <graft/exchange.hpp>

#include "exchange/c10d/receive_buffers.hpp"
#include "exchange/c10d/wire_header.hpp"
#include "exchange/c10d/rendezvous.hpp"

namespace graft::detail {

struct outgoing_payload {
  wire_header header;
  at::Tensor bytes;   // contiguous, on the route's device; undefined unless present
  at::Tensor extras;  // uint8 JSON text; undefined when omitted
  std::optional<std::string> refusal;  // why the tensor cannot travel (header state refused)
};

// This rank's contribution to a call; receivers (outgoing == nullptr or not a
// sender) contribute only the call's identity.
outgoing_payload prepare_outgoing(const exchange_call& call, const contribution* outgoing, bool sending,
                                  int graft_rank, bool has_nccl);

// Moves one call's messages. Each wait ends by `deadline`; failures are
// rethrown as graft errors (timeout_error, exchange_error) with `context`.
class call_transport {
 public:
  call_transport(const c10d_groups& groups, const rank_layout& layout, std::chrono::steady_clock::time_point deadline,
                 std::string context);

  // Every rank's header, index = graft rank.
  std::vector<wire_header> gather_headers(const wire_header& mine);
  // The payload, after every rank has checked the headers.
  void send(const exchange_call& call, const outgoing_payload& payload);
  // The payload's tensors are taken from `buffers` (see receive_buffers.hpp).
  received receive(const exchange_call& call, const std::vector<wire_header>& headers, receive_buffers& buffers);

 private:
  c10::intrusive_ptr<c10d::Work> send_on(payload_route route, const at::Tensor& tensor, int to, int tag) const;
  c10::intrusive_ptr<c10d::Work> recv_on(payload_route route, const at::Tensor& tensor, int from, int tag) const;
  void await_all(const std::vector<c10::intrusive_ptr<c10d::Work>>& works) const;

  const c10d_groups& groups_;
  const rank_layout& layout_;
  std::chrono::steady_clock::time_point deadline_;
  std::string context_;
};

}  // namespace graft::detail
