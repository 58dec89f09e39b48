#pragma once
// The grafter: called at every dump point of a host program, it decides from
// the tags whether this call sends, receives or does nothing, and on a receive
// overwrites the host's tensor with the transformed baseline (or target) value.
//
// Contract. maybe_intercept never throws and never leaves the host tensor
// half-written: on any failure the tensor is unchanged bit for bit and an event
// says why. A disabled grafter returns at once. The exchange group is created
// lazily on the first matched call and reused. After a timeout or a broken
// connection the grafter disables itself with one group_error event, and later
// calls return at once. One grafter is used from one thread at a time: a
// matched call from a second thread while one runs is refused with a
// concurrent_call event, its value untouched.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <graft/config.hpp>
#include <graft/event_sink.hpp>
#include <graft/exchange.hpp>
#include <graft/tags.hpp>
#include <graft/transform.hpp>

namespace graft {

struct grafter_options {
  std::shared_ptr<event_sink> sink;          // default: human-readable lines on stderr
  exchange_factory make_exchange;            // default: the c10d exchange
  std::optional<transform> custom_transform; // overrides config.transform_path
  // Turns config.transform_path into a transform (default: load_transform).
  // Whatever it throws becomes the transform_load event, with error_kind when
  // it is a plugin_load_error. The Python package loads pkg.module.symbol here.
  std::function<transform(std::string_view spec)> load_transform;
  // Fields the host adds to the group_init event: how its settings came to be
  // (the sglang bridge says where the backend came from). A JSON object or null.
  nlohmann::json group_init_notes;
};

class grafter {
 public:
  // Throws config_error when an enabled config is invalid or disagrees with
  // `local` (this process's rank and world size on its side).
  grafter(graft_config config, side_rank local, grafter_options options = {});
  ~grafter();
  grafter(const grafter&) = delete;
  grafter& operator=(const grafter&) = delete;

  // A dump point with a tensor value; extras travel to the receivers when this
  // rank sends.
  void maybe_intercept(const at::Tensor& value, const tags& t, const nlohmann::json& extras) {
    if (active_.load(std::memory_order_relaxed)) intercept(&value, {}, t, extras);
  }
  // The same without extras. Not a default argument: that would build and
  // destroy a null json on every call, active or not (about 2 ns of a disabled
  // call's 5); here it is built only when the call goes on.
  void maybe_intercept(const at::Tensor& value, const tags& t) {
    if (active_.load(std::memory_order_relaxed)) intercept(&value, {}, t, nullptr);
  }
  // A dump point whose value is not a tensor (type_name says what it is). On a
  // matched name this rank still takes part in the exchange as "absent".
  void maybe_intercept_non_tensor(std::string_view type_name, const tags& t) {
    if (active_.load(std::memory_order_relaxed)) intercept(nullptr, type_name, t, nullptr);
  }

  bool active() const { return active_.load(std::memory_order_relaxed); }
  bool has_group() const;
  // The number of matched calls so far (the exchange sequence number).
  std::uint64_t matched_calls() const;
  const rank_layout& layout() const;

 private:
  // run_intercept, with anything it throws turned into an internal_error event.
  void intercept(const at::Tensor* value, std::string_view type_name, const tags& t,
                 const nlohmann::json& extras);
  // match -> contribute -> report: which filter the tags matched (a conflict
  // is reported), this rank's part in the exchange (a rank that has nothing
  // to report after it gets nullopt), and the send or graft it reports.
  void run_intercept(const at::Tensor* value, std::string_view type_name, const tags& t,
                     const nlohmann::json& extras);
  struct matched_call;
  std::optional<matched_call> match(const tags& t);
  std::optional<received> contribute(const matched_call& call, const at::Tensor* value,
                                     std::string_view type_name, const tags& t, const nlohmann::json& extras);
  void report(const matched_call& call, const at::Tensor& value, received incoming, const tags& t,
              const nlohmann::json& extras);
  // Creates the exchange group; on failure reports it and turns the grafter off.
  bool ensure_group();
  // Atomic so that a thread calling while another turns the grafter off
  // (a second thread's call is refused, see concurrent_call) reads it without
  // a data race; a relaxed load is the plain load a bool's would be.
  std::atomic<bool> active_{false};
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace graft
