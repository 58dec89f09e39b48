#include <graft/c10d_exchange.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <graft/config.hpp>
#include <graft/error.hpp>

#include "exchange/c10d/call_transport.hpp"
#include "exchange/c10d/messages.hpp"
#include "exchange/c10d/rendezvous.hpp"
#include "exchange/c10d/wire_header.hpp"

namespace graft {
namespace {

using clock = std::chrono::steady_clock;

class c10d_exchange final : public exchange {
 public:
  c10d_exchange(const graft_config& config, const rank_layout& layout)
      : config_(config), layout_(layout), timeout_(detail::exchange_timeout(config)),
        groups_(detail::join_graft_world(config, layout)) {}

  received run(const exchange_call& call, const contribution* outgoing) override {
    if (broken_) {
      GRAFT_THROW(exchange_error, call_context(call) + ": the exchange is out of service since an earlier "
                                                       "failure: " + *broken_);
    }
    const bool sending = is_sender(layout_.side, call.direction);
    const detail::outgoing_payload payload =
        detail::prepare_outgoing(call, outgoing, sending, layout_.graft_rank(), groups_.has_nccl());
    const std::vector<detail::wire_header> headers = in_transport([&] {
      return transport(call, "header exchange").gather_headers(payload.header);
    });
    // Every rank holds the same headers, so every rank stops here together
    // (desync, a tensor that cannot travel) and the group stays in step.
    detail::check_wire_headers(headers, payload.header, layout_, payload.refusal);
    return in_transport([&] {
      detail::call_transport mover = transport(call, "payload");
      if (!sending) return mover.receive(call, headers, buffers_);
      mover.send(call, payload);
      return received{};
    });
  }

  std::optional<std::string> cannot_carry(const at::Tensor& t) const override { return detail::cannot_travel(t); }

  nlohmann::json describe() const override {
    nlohmann::json out = c10d_meeting_point(config_);
    out["transport"] = "c10d";
    out["backend"] = config_.c10d.backend;
    out["group_name"] = config_.c10d.group_name;
    out["graft_rank"] = layout_.graft_rank();
    out["graft_world_size"] = layout_.graft_world_size();
    return out;
  }

 private:
  // A transfer that fails half-way leaves the ranks out of step: later calls
  // would only wait out the timeout again, so the exchange refuses them.
  template <typename F>
  auto in_transport(F&& transfer) -> decltype(transfer()) {
    try {
      return transfer();
    } catch (const error& e) {
      broken_ = e.what();
      throw;
    }
  }

  // Each phase of a call gets the whole timeout.
  detail::call_transport transport(const exchange_call& call, const std::string& phase) const {
    return detail::call_transport(groups_, layout_, clock::now() + timeout_, call_context(call) + ": " + phase);
  }

  std::string call_context(const exchange_call& call) const {
    return detail::endpoint_text(config_, layout_) + ", dump call '" + call.name + "' (sequence " +
           std::to_string(call.sequence) + ")";
  }

  graft_config config_;
  rank_layout layout_;
  std::chrono::milliseconds timeout_;
  detail::c10d_groups groups_;
  std::optional<std::string> broken_;
  detail::receive_buffers buffers_;
};

}  // namespace

nlohmann::json c10d_meeting_point(const graft_config& config) {
  return {{"master_address", config.c10d.master_address}, {"master_port", config.c10d.master_port}};
}

exchange_factory c10d_exchange_factory() {
  return [](const graft_config& config, const rank_layout& layout) -> std::unique_ptr<exchange> {
    return std::make_unique<c10d_exchange>(config, layout);
  };
}

}  // namespace graft
