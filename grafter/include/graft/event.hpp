#pragma once
// Events: one structured record per grafter action, written as one JSON line.
//
// Every event carries schema_version, kind, time (unix seconds), pid, role,
// graft rank and local rank; the kind's own fields follow. Kinds:
//   group_init      the exchange group is being / was created
//   group_error     the group could not be created or broke; grafter disabled
//   send            a sender contributed its tensor
//   recv_grafted    the target tensor was overwritten
//   recv_skipped    a receiver skipped (error_kind + message); target unchanged
//   compare         a compare-only call: a graft's metrics and infos, measured
//                   by the graft's path without its write; the target is only read
//   compare_skipped a compare-only call that could not be measured (error_kind)
//   non_tensor      a matched name carried no tensor on this rank
//   filter_conflict the tags matched both filters; the call is skipped
//   desync          the ranks reached different dump calls; the call is skipped
//   transform_load  a transform plugin failed to load; grafts will be skipped
//   internal_error  an unexpected failure (out of memory, a bug); grafter disabled

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace graft {

inline constexpr int kEventSchemaVersion = 1;

struct event {
  std::string kind;
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
