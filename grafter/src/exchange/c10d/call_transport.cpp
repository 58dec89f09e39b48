#include "exchange/c10d/call_transport.hpp"

#include <algorithm>
#include <cstring>

#include <ATen/Functions.h>

#include <graft/error.hpp>

#include "base/json_text.hpp"
#include "exchange/c10d/c10d_errors.hpp"
#include "exchange/c10d/messages.hpp"
#include "exchange/c10d/time_left.hpp"

namespace graft::detail {
namespace {

// Tags keep a call's kinds of message apart, and a call's messages apart from
// any left over by an earlier call that failed half-way (Gloo tags are
// non-negative 32-bit integers). Headers share one fixed tag: ranks at
// different sequence numbers must still meet, to find out that they disagree.
enum class message : int { tensor = 1, extras = 2 };
constexpr int kHeaderTag = 0;
int tag(std::uint64_t sequence, message kind) {
  return static_cast<int>((sequence % (1u << 28)) * 4) + static_cast<int>(kind);
}

at::Tensor text_tensor(const std::string& text) {
  at::Tensor t = at::empty({static_cast<std::int64_t>(text.size())}, at::kByte);
  std::memcpy(t.data_ptr(), text.data(), text.size());
  return t;
}

std::string tensor_text(const at::Tensor& t) {
  return std::string(static_cast<const char*>(t.data_ptr()), static_cast<std::size_t>(t.numel()));
}

void await_work(const c10::intrusive_ptr<c10d::Work>& work, std::chrono::steady_clock::time_point deadline,
                const std::string& context) {
  const auto left = time_left(deadline);
  bool completed = false;
  try {
    completed = work->wait(left);
  } catch (...) {
    rethrow_as_graft_error(context, "Check that every process of both sides is still running and reaches "
                                    "this dump call; raise timeout_seconds if one side is legitimately slower");
  }
  if (!completed) GRAFT_THROW(exchange_error, context + ": the transfer was aborted");
}

}  // namespace

outgoing_payload prepare_outgoing(const exchange_call& call, const contribution* outgoing, bool sending,
                                  int graft_rank, bool has_nccl) {
  outgoing_payload out;
  wire_header& h = out.header;
  h.sequence = call.sequence;
  h.fingerprint = call.fingerprint;
  h.direction = call.direction;
  h.graft_rank = graft_rank;
  h.name = call.name.substr(0, kHeaderNameBytes);
  if (!sending) h.receives_on = call.recv_device.is_cuda() ? receiver_device::cuda : receiver_device::cpu;
  if (!sending || outgoing == nullptr) return out;
  if (const at::Tensor& t = outgoing->tensor; t.defined()) {
    h.dtype = t.scalar_type();
    out.refusal = cannot_travel(t);
    if (out.refusal) {
      h.state = payload_state::refused;
    } else {
      h.state = payload_state::present;
      h.shape = t.sizes().vec();
      h.route = has_nccl && t.is_cuda() ? payload_route::nccl : payload_route::gloo;
      // Raw bytes of the values as they read: no lazy conjugation or negation.
      at::Tensor values = t.detach().resolve_conj().resolve_neg();
      if (h.route == payload_route::gloo) values = values.cpu();
      out.bytes = values.contiguous();
    }
  }
  if (!outgoing->extras.is_null()) {
    out.extras = text_tensor(json_text(outgoing->extras));
    h.extras_bytes = out.extras.numel();
  }
  return out;
}

call_transport::call_transport(const c10d_groups& groups, const rank_layout& layout,
                             std::chrono::steady_clock::time_point deadline, std::string context)
    : groups_(groups), layout_(layout), deadline_(deadline), context_(std::move(context)) {}

c10::intrusive_ptr<c10d::Work> call_transport::send_on(payload_route route, const at::Tensor& tensor, int to,
                                                       int tag) const {
  std::vector<at::Tensor> one{tensor};
#ifdef GRAFT_WITH_NCCL
  if (route == payload_route::nccl) return groups_.nccl->send(one, to, tag);
#endif
  return groups_.gloo->send(one, to, tag);
}

c10::intrusive_ptr<c10d::Work> call_transport::recv_on(payload_route route, const at::Tensor& tensor, int from,
                                                       int tag) const {
  std::vector<at::Tensor> one{tensor};
#ifdef GRAFT_WITH_NCCL
  if (route == payload_route::nccl) return groups_.nccl->recv(one, from, tag);
#endif
  return groups_.gloo->recv(one, from, tag);
}

void call_transport::await_all(const std::vector<c10::intrusive_ptr<c10d::Work>>& works) const {
  for (const auto& work : works) await_work(work, deadline_, context_);
}

// Point to point rather than Gloo's all-gather: sends and receives run on
// the calling thread, while a collective is queued to the group's worker
// thread and back, and a ring all-gather takes B+T-1 steps where the direct
// messages take one. On 1+1 ranks over the loopback, a 208-byte header each
// way plus 4 KiB of payload took a median 431 us with the all-gather and
// 107 us point to point (bench/c10d_exchange_bench.cpp, 2 shared cores).
std::vector<wire_header> call_transport::gather_headers(const wire_header& mine) {
  const int world = layout_.graft_world_size();
  const int me = layout_.graft_rank();
  std::vector<at::Tensor> slots(static_cast<std::size_t>(world));
  slots[static_cast<std::size_t>(me)] = encode_header(mine);
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  try {
    for (int r = 0; r < world; ++r) {
      if (r == me) continue;
      slots[static_cast<std::size_t>(r)] = at::empty({header_slots()}, at::kLong);
      works.push_back(recv_on(payload_route::gloo, slots[static_cast<std::size_t>(r)], r, kHeaderTag));
      works.push_back(send_on(payload_route::gloo, slots[static_cast<std::size_t>(me)], r, kHeaderTag));
    }
  } catch (...) {
    rethrow_as_graft_error(context_ + ": posting the headers failed", "");
  }
  await_all(works);
  std::vector<wire_header> headers;
  for (int r = 0; r < world; ++r) headers.push_back(decode_header(slots[static_cast<std::size_t>(r)], r));
  return headers;
}

// Point-to-point rather than a collective: only receivers get bytes, each
// sender's tensor keeps its own shape and dtype, and no rank pads to the
// largest sender. Gloo runs the sends of one rank concurrently.
void call_transport::send(const exchange_call& call, const outgoing_payload& payload) {
  const role receiving = payload.header.direction == direction::b2t ? role::target : role::baseline;
  const int first = layout_.first_graft_rank(receiving);
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  try {
    for (int r = first; r < first + layout_.side_world_size(receiving); ++r) {
      if (payload.bytes.defined() && payload.bytes.numel() > 0) {
        works.push_back(send_on(payload.header.route, payload.bytes, r, tag(call.sequence, message::tensor)));
      }
      if (payload.extras.defined()) {
        works.push_back(send_on(payload_route::gloo, payload.extras, r, tag(call.sequence, message::extras)));
      }
    }
  } catch (...) {
    rethrow_as_graft_error(context_ + ": posting the payload failed", "");
  }
  await_all(works);
}

received call_transport::receive(const exchange_call& call, const std::vector<wire_header>& headers,
                                 receive_buffers& buffers) {
  const role sending = sender_role(call.direction);
  const int first = layout_.first_graft_rank(sending);
  const int count = layout_.side_world_size(sending);
  received result;
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  std::vector<at::Tensor> extras(static_cast<std::size_t>(count));
  buffers.start_call();
  try {
    for (int i = 0; i < count; ++i) {
      const wire_header& h = headers[static_cast<std::size_t>(first + i)];
      result.sender_ranks.push_back(i);
      at::Tensor tensor;
      if (h.state == payload_state::present) {
        const c10::Device device = h.route == payload_route::gloo ? c10::Device(c10::kCPU)
                                   : call.recv_device.is_cuda()   ? call.recv_device
                                                                  : c10::Device(c10::kCUDA);
        tensor = buffers.take(h.shape, h.dtype, device);
        if (tensor.numel() > 0) {
          works.push_back(recv_on(h.route, tensor, first + i, tag(call.sequence, message::tensor)));
        }
      }
      result.tensors.push_back(tensor);
      if (h.extras_bytes > 0) {
        extras[static_cast<std::size_t>(i)] = at::empty({h.extras_bytes}, at::kByte);
        works.push_back(
            recv_on(payload_route::gloo, extras[static_cast<std::size_t>(i)], first + i, tag(call.sequence, message::extras)));
      }
    }
  } catch (...) {
    rethrow_as_graft_error(context_ + ": posting the receives failed", "");
  }
  await_all(works);
  for (int i = 0; i < count; ++i) {
    at::Tensor& tensor = result.tensors[static_cast<std::size_t>(i)];
    if (tensor.defined() && tensor.device() != call.recv_device) {
      try {
        tensor = tensor.to(call.recv_device);
      } catch (...) {
        rethrow_as_graft_error(context_ + ": moving the tensor from " + rank_text(layout_, first + i) + " to " +
                                   call.recv_device.str() + " failed",
                               "Check exchange_call.recv_device");
      }
    }
    const at::Tensor& text = extras[static_cast<std::size_t>(i)];
    if (!text.defined()) {
      result.extras.emplace_back(nullptr);
      continue;
    }
    try {
      result.extras.push_back(nlohmann::json::parse(tensor_text(text)));
    } catch (const nlohmann::json::exception& e) {
      GRAFT_THROW(exchange_error, context_ + ": the extras from " + rank_text(layout_, first + i) +
                                      " are not valid JSON (" + e.what() + ")");
    }
  }
  return result;
}

}  // namespace graft::detail
