#include <graft/local_exchange.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <graft/config.hpp>
#include <graft/error.hpp>

#include "exchange/header_check.hpp"

namespace graft {

// One rendezvous per matched call: every rank deposits its header (and a copy
// of its payload, when it sends); the last to arrive completes the round.
class local_exchange_hub {
 public:
  struct slot {
    exchange_call call;
    bool sends = false;
    std::optional<contribution> payload;
  };
  struct round {
    std::vector<std::optional<slot>> slots;
    int arrived = 0;
    bool complete = false;
  };

  local_exchange_hub(int baseline_world_size, int target_world_size)
      : baseline_world_size_(baseline_world_size), target_world_size_(target_world_size) {}

  int world_size() const { return baseline_world_size_ + target_world_size_; }
  int baseline_world_size() const { return baseline_world_size_; }
  int target_world_size() const { return target_world_size_; }

  // Deposits `mine` for graft rank `rank` and waits for the round to complete.
  std::shared_ptr<const round> meet(int rank, slot mine, std::chrono::duration<double> timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (broken_) GRAFT_THROW(exchange_error, "in-process exchange: the group broke earlier (" + broken_reason_ + ")");
    if (!pending_) {
      pending_ = std::make_shared<round>();
      pending_->slots.resize(world_size());
    }
    std::shared_ptr<round> mine_round = pending_;
    mine_round->slots[rank] = std::move(mine);
    if (++mine_round->arrived == world_size()) {
      mine_round->complete = true;
      pending_.reset();
      ready_.notify_all();
      return mine_round;
    }
    const bool done = ready_.wait_for(lock, timeout, [&] { return mine_round->complete || broken_; });
    if (mine_round->complete) return mine_round;
    if (!done) {
      broken_ = true;
      broken_reason_ = "graft rank " + std::to_string(rank) + " timed out";
      ready_.notify_all();
      GRAFT_THROW(timeout_error, "in-process exchange: graft rank " + std::to_string(rank) + " waited " +
                                     std::to_string(timeout.count()) + " s but only " +
                                     std::to_string(mine_round->arrived) + " of " + std::to_string(world_size()) +
                                     " ranks arrived; every rank must reach the same matched dump calls");
    }
    GRAFT_THROW(exchange_error, "in-process exchange: the group broke (" + broken_reason_ + ")");
  }

 private:
  const int baseline_world_size_;
  const int target_world_size_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::shared_ptr<round> pending_;
  bool broken_ = false;
  std::string broken_reason_;
};

namespace {

class local_exchange final : public exchange {
 public:
  local_exchange(std::shared_ptr<local_exchange_hub> hub, rank_layout layout, double timeout_seconds)
      : hub_(std::move(hub)), layout_(layout), timeout_(timeout_seconds) {}

  received run(const exchange_call& call, const contribution* outgoing) override {
    local_exchange_hub::slot mine;
    mine.call = call;
    mine.sends = outgoing != nullptr;
    if (outgoing != nullptr) {
      // Copy now: the sender may change its tensor as soon as it returns.
      contribution copy;
      if (outgoing->tensor.defined()) copy.tensor = outgoing->tensor.detach().clone();
      copy.extras = outgoing->extras;
      mine.payload = std::move(copy);
    }
    const auto round = hub_->meet(layout_.graft_rank(), std::move(mine), timeout_);

    std::vector<detail::call_header> headers;
    for (const auto& s : round->slots) headers.push_back({s->call.sequence, s->call.fingerprint, s->call.direction, s->call.name});
    detail::check_headers(headers, layout_.graft_rank());

    received out;
    if (outgoing != nullptr) return out;
    const role senders = sender_role(call.direction);
    const int first = layout_.first_graft_rank(senders);
    for (int i = 0; i < layout_.side_world_size(senders); ++i) {
      const auto& s = *round->slots[first + i];
      if (!s.sends || !s.payload) {
        GRAFT_THROW(exchange_error, "in-process exchange: graft rank " + std::to_string(first + i) +
                                        " did not send for a " + std::string(to_string(call.direction)) + " call");
      }
      out.sender_ranks.push_back(i);
      out.tensors.push_back(s.payload->tensor.defined() ? s.payload->tensor.to(call.recv_device).clone()
                                                        : at::Tensor());
      out.extras.push_back(s.payload->extras);
    }
    return out;
  }

  nlohmann::json describe() const override {
    return {{"transport", "in-process"},
            {"graft_rank", layout_.graft_rank()},
            {"graft_world_size", layout_.graft_world_size()}};
  }

 private:
  std::shared_ptr<local_exchange_hub> hub_;
  rank_layout layout_;
  std::chrono::duration<double> timeout_;
};

}  // namespace

std::shared_ptr<local_exchange_hub> make_local_exchange_hub(int baseline_world_size, int target_world_size) {
  return std::make_shared<local_exchange_hub>(baseline_world_size, target_world_size);
}

exchange_factory local_exchange_factory(std::shared_ptr<local_exchange_hub> hub) {
  return [hub](const graft_config& config, const rank_layout& layout) -> std::unique_ptr<exchange> {
    if (layout.baseline_world_size != hub->baseline_world_size() ||
        layout.target_world_size != hub->target_world_size()) {
      GRAFT_THROW(config_error, "in-process exchange: this rank's layout is " +
                                    std::to_string(layout.baseline_world_size) + "+" +
                                    std::to_string(layout.target_world_size) + " but the hub was made for " +
                                    std::to_string(hub->baseline_world_size()) + "+" +
                                    std::to_string(hub->target_world_size()));
    }
    return std::make_unique<local_exchange>(hub, layout, config.timeout_seconds);
  };
}

}  // namespace graft
