#include <graft/event.hpp>

#include <string>

#include <graft/metrics.hpp>

#include "base/json_text.hpp"

namespace graft {

std::string_view to_string(event_kind kind) {
  switch (kind) {
    case event_kind::group_init: return "group_init";
    case event_kind::group_error: return "group_error";
    case event_kind::send: return "send";
    case event_kind::send_skipped: return "send_skipped";
    case event_kind::recv_grafted: return "recv_grafted";
    case event_kind::recv_skipped: return "recv_skipped";
    case event_kind::compare: return "compare";
    case event_kind::compare_skipped: return "compare_skipped";
    case event_kind::non_tensor: return "non_tensor";
    case event_kind::filter_conflict: return "filter_conflict";
    case event_kind::concurrent_call: return "concurrent_call";
    case event_kind::desync: return "desync";
    case event_kind::transform_load: return "transform_load";
    case event_kind::internal_error: return "internal_error";
  }
  return "unknown";
}

std::string_view to_string(skip_kind kind) {
  switch (kind) {
    case skip_kind::sender_absent: return "sender_absent";
    case skip_kind::transform_load: return "transform_load";
    case skip_kind::transform_error: return "transform_error";
    case skip_kind::transform_raised: return "transform_raised";
    case skip_kind::transform_wrote_target: return "transform_wrote_target";
    case skip_kind::transform_undefined: return "transform_undefined";
    case skip_kind::shape_mismatch: return "shape_mismatch";
    case skip_kind::dtype_incompatible: return "dtype_incompatible";
    case skip_kind::cast_out_of_range: return "cast_out_of_range";
    case skip_kind::ungraftable_target: return "ungraftable_target";
    case skip_kind::ungraftable_tensor: return "ungraftable_tensor";
    case skip_kind::cuda_failed: return "cuda_failed";
    case skip_kind::copy_failed: return "copy_failed";
    case skip_kind::internal: return "internal";
  }
  return "unknown";
}

nlohmann::json event::to_json() const {
  nlohmann::json out = fields;
  out["schema_version"] = kEventSchemaVersion;
  out["kind"] = kind;
  out["time"] = time;
  out["pid"] = pid;
  out["role"] = side;
  out["graft_rank"] = graft_rank;
  out["local_rank"] = local_rank;
  return out;
}

namespace {

std::string number_text(const nlohmann::json& v) {
  if (v.is_number()) return format_g6(v.get<double>());
  return v.is_string() ? v.get<std::string>() : detail::json_text(v);
}

// Compact text for one field value: strings bare; tensor info and metrics
// summarised like the reference's lines; everything else as JSON.
std::string field_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.contains("dtype") && value.contains("shape")) {
    std::string text = "{shape=" + detail::json_text(value["shape"]) + " dtype=" + number_text(value["dtype"]);
    for (const char* stat : {"min", "max", "mean"}) {
      if (value.contains(stat)) text += std::string(" ") + stat + "=" + number_text(value[stat]);
    }
    return text + "}";
  }
  if (value.is_object() && value.contains("rel_diff") && value.contains("max_abs")) {
    return "{rel_diff=" + number_text(value["rel_diff"]) + " max_abs=" + number_text(value["max_abs"]) +
           " mean_abs=" + number_text(value["mean_abs"]) + "}";
  }
  return detail::json_text(value);
}

// The fields a reader wants first, in this order; the rest follow sorted.
constexpr const char* kLeadingFields[] = {"direction", "name", "tags", "error_kind", "message"};

}  // namespace

std::string event::to_display_line() const {
  std::string line = "[graft role=" + side + " rank=" + std::to_string(local_rank) +
                     " graft_rank=" + std::to_string(graft_rank) + "] " + kind;
  for (const char* key : kLeadingFields) {
    if (fields.contains(key)) line += std::string(" ") + key + "=" + field_text(fields[key]);
  }
  for (const auto& [key, value] : fields.items()) {
    bool leading = false;
    for (const char* k : kLeadingFields) leading = leading || key == k;
    if (!leading) line += " " + key + "=" + field_text(value);
  }
  return line;
}

}  // namespace graft
