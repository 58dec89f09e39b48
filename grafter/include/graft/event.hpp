#pragma once
// Events: one structured record per grafter action, written as one JSON line.
//
// Every event carries schema_version, kind, time (unix seconds), pid, role,
// graft rank and local rank; the kind's own fields follow. The kinds are
// event_kind's (docs/events.md says what each carries).

#include <array>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace graft {

inline constexpr int kEventSchemaVersion = 1;

// What an event reports.
enum class event_kind {
  group_init,       // the exchange group is up
  group_error,      // the group could not be created or broke; grafter disabled
  send,             // a sender contributed its tensor
  send_skipped,     // a sender's tensor cannot travel; it takes part as absent
  recv_grafted,     // the target tensor was overwritten
  recv_skipped,     // a receiver skipped (error_kind + message); target unchanged
  compare,          // a compare-only call measured by the graft's path, nothing written
  compare_skipped,  // a compare-only call that could not be measured (error_kind)
  non_tensor,       // a matched name carried no tensor on this rank
  filter_conflict,  // the tags matched more than one filter; the call is skipped
  concurrent_call,  // a matched call from a second thread while one ran; refused
  desync,           // the ranks reached different dump calls; the call is skipped
  transform_load,   // a transform plugin failed to load; grafts will be skipped
  internal_error,   // an unexpected failure (out of memory, a bug); grafter disabled
};

// Every kind, in declaration order.
inline constexpr std::array<event_kind, 14> kEventKinds{
    event_kind::group_init,      event_kind::group_error,     event_kind::send,
    event_kind::send_skipped,    event_kind::recv_grafted,    event_kind::recv_skipped,
    event_kind::compare,         event_kind::compare_skipped, event_kind::non_tensor,
    event_kind::filter_conflict, event_kind::concurrent_call, event_kind::desync,
    event_kind::transform_load,  event_kind::internal_error};

// The kind's name in events: "recv_grafted".
std::string_view to_string(event_kind kind);

// Why a call was skipped: the error_kind of recv_skipped, compare_skipped and
// send_skipped events. Each leaves the target unchanged (recv_guard.cpp says
// where a transform or a failed device is the exception).
enum class skip_kind {
  sender_absent,           // a sender took part as absent; its tensor is missing
  transform_load,          // the transform could not be loaded
  transform_error,         // the transform refused the call (a graft::transform_error)
  transform_raised,        // the transform threw anything else
  transform_wrote_target,  // the transform wrote into the target itself
  transform_undefined,     // the transform returned an undefined tensor
  shape_mismatch,          // the candidate's shape is not the target's
  dtype_incompatible,      // the candidate cannot become the target's dtype (complex to real)
  cast_out_of_range,       // the candidate's values do not fit the target's integer dtype
  ungraftable_target,      // the target cannot be written (sparse, quantized, nested, meta)
  ungraftable_tensor,      // the sender's tensor cannot travel (send_skipped)
  cuda_failed,             // the device failed during graft's CUDA pass
  copy_failed,             // writing the candidate into the target failed
  internal,                // an unexpected failure, such as running out of memory
};

// Every skip kind, in declaration order.
inline constexpr std::array<skip_kind, 14> kSkipKinds{
    skip_kind::sender_absent,       skip_kind::transform_load,     skip_kind::transform_error,
    skip_kind::transform_raised,    skip_kind::transform_wrote_target, skip_kind::transform_undefined,
    skip_kind::shape_mismatch,      skip_kind::dtype_incompatible, skip_kind::cast_out_of_range,
    skip_kind::ungraftable_target,  skip_kind::ungraftable_tensor, skip_kind::cuda_failed,
    skip_kind::copy_failed,         skip_kind::internal};

// The skip kind's name in events: "shape_mismatch".
std::string_view to_string(skip_kind kind);

struct event {
  std::string kind;  // to_string(event_kind) for the grafter's own events
  nlohmann::json fields = nlohmann::json::object();  // kind-specific

  // The full JSON record: header fields plus `fields`.
  nlohmann::json to_json() const;
  // One human-readable line, like the reference's "[Grafter] ..." lines.
  std::string to_display_line() const;

  // Header, filled by the grafter.
  double time = 0;
  long pid = 0;
  std::string side;  // "baseline" | "target"
  int graft_rank = -1;
  int local_rank = -1;
};

}  // namespace graft
