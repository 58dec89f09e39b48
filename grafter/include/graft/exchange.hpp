#pragma once
// The exchange: moves each sender's (tensor, extras) to every receiver of one
// matched dump call.
//
// Contract. Every rank of both sides calls run() once for every matched call,
// in the same order; a sender passes its contribution (an undefined tensor
// means "absent": its value was not a tensor), a receiver passes nullptr. The
// call first exchanges a small header (sequence number, fingerprint of name and
// tags, direction, the senders' dtype/shape/extras length); if any two
// fingerprints or sequence numbers disagree, every rank throws desync_error and
// no payload moves. Then payloads flow from senders to receivers only.
// run() blocks, bounded by the exchange's timeout: a peer that does not arrive
// gives timeout_error, a broken connection exchange_error. An exchange object
// is used from one thread at a time.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include <graft/role.hpp>

namespace graft {

struct graft_config;

struct exchange_call {
  std::uint64_t sequence = 0;
  std::uint64_t fingerprint = 0;  // of name + tags
  graft::direction direction = graft::direction::b2t;
  std::string name;               // for messages only
  c10::Device recv_device = c10::Device(c10::kCPU);  // where a receiver wants the tensors
};

struct contribution {
  at::Tensor tensor;                      // undefined: absent
  nlohmann::json extras = nullptr;        // null: omitted
};

struct received {
  std::vector<int> sender_ranks;          // senders' local ranks on their side
  std::vector<at::Tensor> tensors;        // one per sender; undefined where absent
  std::vector<nlohmann::json> extras;     // one per sender; null where omitted
};

class exchange {
 public:
  virtual ~exchange() = default;
  // See the contract above. Senders get an empty result.
  virtual received run(const exchange_call& call, const contribution* outgoing) = 0;
  // For the group_init event: {"transport": ..., "backend": ..., ...}.
  virtual nlohmann::json describe() const = 0;
  // Why this exchange cannot carry a sender's tensor t, as a clause with its
  // fix; nullopt when it can. The grafter asks before run() and sends such a
  // tensor as absent, so one odd tensor skips one call instead of failing
  // every rank.
  virtual std::optional<std::string> cannot_carry(const at::Tensor& /*t*/) const { return std::nullopt; }
};

// Creates the exchange of this rank; may block (rendezvous) up to the config's
// timeout and throws timeout_error / exchange_error / config_error.
using exchange_factory =
    std::function<std::unique_ptr<exchange>(const graft_config&, const rank_layout&)>;

}  // namespace graft
