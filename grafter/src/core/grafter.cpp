#include <graft/grafter.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <utility>

#include <graft/c10d_exchange.hpp>
#include <graft/error.hpp>
#include <graft/events_path.hpp>
#include <graft/exception_message.hpp>
#include <graft/filter.hpp>
#include <graft/tensor_info.hpp>
#include <graft/transform_loader.hpp>
#include <graft/version.hpp>

#include "core/recv_guard.hpp"
#include "exchange/graftable.hpp"

namespace graft {

struct grafter::state {
  graft_config config;
  rank_layout layout;
  std::optional<filter> b2t;
  std::optional<filter> t2b;
  std::optional<filter> compare;
  std::shared_ptr<event_sink> sink;
  exchange_factory make_exchange;
  // What the exchange says of where it meets its peers, for a group_error
  // of a world that never formed (c10d: its master address and port).
  nlohmann::json meeting_point = nlohmann::json::object();
  nlohmann::json group_init_notes;  // grafter_options::group_init_notes
  std::unique_ptr<exchange> group;
  std::optional<transform> chosen_transform;
  std::string transform_problem;  // why chosen_transform is empty
  std::uint64_t sequence = 0;
  // Set while a matched call runs: the sequence, the group and the exchange
  // are that call's alone.
  std::atomic<bool> call_in_flight{false};

  // Loaded once, at construction. A failure is reported once; every later
  // graft on this side is skipped with the same reason, and the host carries on.
  void load_transform_once(const std::string& spec,
                           const std::function<transform(std::string_view spec)>& custom_loader) {
    try {
      chosen_transform = custom_loader ? custom_loader(spec) : load_transform(spec);
    } catch (const std::exception& e) {
      transform_problem = exception_message(e);
      nlohmann::json fields = {{"spec", spec}, {"message", transform_problem}};
      if (const auto* load_error = dynamic_cast<const plugin_load_error*>(&e)) {
        fields["error_kind"] = to_string(load_error->kind());
      }
      emit(event_kind::transform_load, std::move(fields));
    }
  }

  void emit(event_kind kind, nlohmann::json fields) const {
    event e;
    e.kind = std::string(to_string(kind));
    e.fields = std::move(fields);
    e.time = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    e.pid = static_cast<long>(::getpid());
    e.side = std::string(to_string(layout.side));
    e.graft_rank = layout.graft_rank();
    e.local_rank = layout.local_rank;
    // A sink that throws (a full disk, a host's own sink) must not make
    // maybe_intercept throw: the event then goes to stderr, with why.
    // The line goes out as one string in one write: ranks on threads of one
    // process share stderr, and pieces written apart interleave.
    try {
      sink->write(e);
    } catch (const std::exception& failure) {
      std::cerr << "graft: the event sink failed (" + exception_message(failure) + "); the event: " +
                       e.to_display_line() + "\n"
                << std::flush;
    } catch (...) {
      std::cerr << "graft: the event sink failed; the event: " + e.to_display_line() + "\n" << std::flush;
    }
  }
};

namespace {

std::optional<filter> compile_optional(const std::optional<std::string>& expression, const char* field) {
  if (!expression) return std::nullopt;
  return filter::compile(*expression, field);
}

// "b2t_filter and compare_filter": the filters a call matched, for messages.
std::string filter_names(bool b2t, bool t2b, bool compare) {
  std::string out;
  for (const auto& [matched, name] : {std::pair{b2t, "b2t_filter"}, std::pair{t2b, "t2b_filter"},
                                      std::pair{compare, "compare_filter"}}) {
    if (matched) out += std::string(out.empty() ? "" : " and ") + name;
  }
  return out;
}

nlohmann::json tags_json(const tags& t) {
  nlohmann::json out;
  to_json(out, t);
  return out;
}

// The fields of the events a call can meet before its graft; `matched` names
// the filters it matched ("b2t_filter").

nlohmann::json non_tensor_fields(const tags& t, direction dir, const std::string& matched, const at::Tensor* value,
                                 std::string_view type_name) {
  const std::string got = value != nullptr ? "an undefined tensor" : "type=" + std::string(type_name);
  return {{"tags", tags_json(t)},
          {"direction", to_string(dir)},
          {"value_type", value != nullptr ? "undefined tensor" : std::string(type_name)},
          {"message", "tags " + t.to_display_string() + " matched " + matched +
                          " but the value is not a tensor (got " + got +
                          "); this rank takes part as 'absent'. Narrow the filter or pass a tensor"}};
}

nlohmann::json send_skipped_fields(const tags& t, direction dir, const std::string& matched, const at::Tensor& value,
                                   const std::string& why) {
  return {{"tags", tags_json(t)},
          {"direction", to_string(dir)},
          {"tensor", describe_layout(value)},
          {"error_kind", to_string(skip_kind::ungraftable_tensor)},
          {"message", "tags " + t.to_display_string() + " matched " + matched + " but the tensor cannot be sent: " +
                          why + "; this rank takes part as 'absent', so its receivers skip this call"}};
}

nlohmann::json desync_fields(const tags& t, direction dir, std::uint64_t sequence, const std::exception& e) {
  return {{"tags", tags_json(t)}, {"direction", to_string(dir)}, {"sequence", sequence},
          {"message", exception_message(e)}};
}

nlohmann::json exchange_failed_fields(const tags& t, direction dir, const std::exception& e) {
  return {{"phase", "exchange"},
          {"tags", tags_json(t)},
          {"direction", to_string(dir)},
          {"message", exception_message(e) + "; the grafter is now disabled on this rank"}};
}

// The host's sink, plus the events file when events_path names one. The
// user's wish for a copy of the events never stops the host program: a log
// that cannot be opened is said once, and the host's sink goes on.
std::shared_ptr<event_sink> with_events_file(std::shared_ptr<event_sink> sink,
                                             const std::optional<std::string>& events_path,
                                             const rank_layout& layout) {
  if (!events_path) return sink;
  const std::string path = expand_events_path(*events_path, to_string(layout.side), layout.local_rank,
                                              layout.graft_rank(), static_cast<long>(::getpid()));
  try {
    return std::make_shared<multi_sink>(
        std::vector<std::shared_ptr<event_sink>>{sink, std::make_shared<jsonl_file_sink>(path)});
  } catch (const error& e) {
    std::cerr << "graft: DUMPER_GRAFTER_EVENTS_PATH: " + std::string(e.what()) + "; grafting goes on without it\n"
              << std::flush;
    return sink;
  }
}

}  // namespace

grafter::grafter(graft_config config, side_rank local, grafter_options options)
    : state_(std::make_unique<state>()) {
  config.validate();
  state_->config = std::move(config);
  if (!state_->config.enable) return;
  const graft_config& c = state_->config;
  state_->layout = make_rank_layout(c, local);
  state_->b2t = compile_optional(c.b2t_filter, "b2t_filter");
  state_->t2b = compile_optional(c.t2b_filter, "t2b_filter");
  state_->compare = compile_optional(c.compare_filter, "compare_filter");
  if (!options.group_init_notes.is_null() && !options.group_init_notes.is_object()) {
    GRAFT_THROW(config_error, "grafter_options::group_init_notes: expected a JSON object or null, got " +
                                  options.group_init_notes.dump());
  }
  state_->group_init_notes = std::move(options.group_init_notes);
  state_->sink = with_events_file(options.sink ? std::move(options.sink) : std::make_shared<text_sink>(std::cerr),
                                  c.events_path, state_->layout);
  if (options.make_exchange) {
    state_->make_exchange = std::move(options.make_exchange);
  } else {
    state_->make_exchange = c10d_exchange_factory();
    state_->meeting_point = c10d_meeting_point(c);
  }
  if (options.custom_transform) {
    state_->chosen_transform = std::move(options.custom_transform);
  } else if (c.transform_path) {
    state_->load_transform_once(*c.transform_path, options.load_transform);
  } else {
    state_->chosen_transform = identity_by_rank();
  }
  active_ = true;
}

grafter::~grafter() = default;

bool grafter::has_group() const { return state_->group != nullptr; }

std::uint64_t grafter::matched_calls() const { return state_->sequence; }

const rank_layout& grafter::layout() const { return state_->layout; }

bool grafter::ensure_group() {
  state& s = *state_;
  const auto started = std::chrono::steady_clock::now();
  try {
    s.group = s.make_exchange(s.config, s.layout);
  } catch (const std::exception& e) {
    nlohmann::json fields = s.meeting_point;
    fields["phase"] = "init";
    fields["graft_world_size"] = s.layout.graft_world_size();
    fields["message"] = exception_message(e) + "; the grafter is now disabled on this rank";
    s.emit(event_kind::group_error, std::move(fields));
    active_ = false;
    return false;
  }
  nlohmann::json fields = s.group->describe();
  fields["baseline_world_size"] = s.layout.baseline_world_size;
  fields["target_world_size"] = s.layout.target_world_size;
  fields["duration_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fields["graft_version"] = version();
  if (s.group_init_notes.is_object()) fields.update(s.group_init_notes);
  s.emit(event_kind::group_init, std::move(fields));
  return true;
}

void grafter::intercept(const at::Tensor* value, std::string_view type_name, const tags& t,
                        const nlohmann::json& extras) {
  // Every failure the exchange, the transform or the write can meet is
  // handled where it happens; this is for the rest (out of memory, a bug), so
  // that maybe_intercept keeps its promise never to throw. The target is
  // unchanged unless the failure came after its write.
  const auto turn_off = [&](const std::string& why) {
    state_->emit(event_kind::internal_error,
                 {{"tags", tags_json(t)}, {"message", why + "; the grafter is now disabled on this rank"}});
    active_ = false;
  };
  try {
    run_intercept(value, type_name, t, extras);
  } catch (const std::exception& e) {
    turn_off(exception_message(e));
  } catch (...) {
    turn_off("something that is not a std::exception was thrown");
  }
}

// A call whose tags matched exactly one filter: which, and this rank's part.
struct grafter::matched_call {
  direction dir;        // a compare-only name flows like b2t
  bool sends;           // this rank's side sends in that direction
  bool measure_only;    // matched compare_filter: the receiver measures, never writes
  std::string filters;  // "b2t_filter", for messages
};

std::optional<grafter::matched_call> grafter::match(const tags& t) {
  state& s = *state_;
  const bool b2t = s.b2t && s.b2t->matches(t);
  const bool t2b = s.t2b && s.t2b->matches(t);
  const bool measure_only = s.compare && s.compare->matches(t);
  const int matches = int{b2t} + int{t2b} + int{measure_only};
  if (matches == 0) return std::nullopt;
  const std::string which = filter_names(b2t, t2b, measure_only);
  if (matches > 1) {
    s.emit(event_kind::filter_conflict,
           {{"tags", tags_json(t)},
            {"filters", which},
            {"message", "tags " + t.to_display_string() + " matched " + (matches == 2 ? "BOTH " : "ALL OF ") +
                            which + "; the call is skipped. Narrow the filters so that a name matches one of them"}});
    return std::nullopt;
  }
  const direction dir = t2b ? direction::t2b : direction::b2t;
  return matched_call{dir, is_sender(s.layout.side, dir), measure_only, which};
}

std::optional<received> grafter::contribute(const matched_call& call, const at::Tensor* value,
                                            std::string_view type_name, const tags& t,
                                            const nlohmann::json& extras) {
  state& s = *state_;
  const bool has_tensor = value != nullptr && value->defined();
  if (!has_tensor) s.emit(event_kind::non_tensor, non_tensor_fields(t, call.dir, call.filters, value, type_name));
  if (!s.group && !ensure_group()) return std::nullopt;

  // A tensor that cannot travel (sparse, quantized, meta, nested, or beyond
  // what this exchange carries) is refused here, before the exchange: the
  // sender takes part as absent, as for a non-tensor value, so its receivers
  // skip this call and every rank stays in step.
  std::optional<std::string> unsendable;
  if (call.sends && has_tensor) {
    unsendable = detail::ungraftable_reason(*value);
    if (!unsendable) unsendable = s.group->cannot_carry(*value);
    if (unsendable) s.emit(event_kind::send_skipped, send_skipped_fields(t, call.dir, call.filters, *value, *unsendable));
  }

  exchange_call exchanged;
  exchanged.sequence = s.sequence;
  exchanged.fingerprint = fingerprint(t);
  exchanged.direction = call.dir;
  exchanged.name = std::string(t.name());
  if (has_tensor) exchanged.recv_device = value->device();
  contribution outgoing;
  if (call.sends) {
    if (has_tensor && !unsendable) outgoing.tensor = *value;
    outgoing.extras = extras;
  }
  received incoming;
  try {
    incoming = s.group->run(exchanged, call.sends ? &outgoing : nullptr);
  } catch (const desync_error& e) {
    s.emit(event_kind::desync, desync_fields(t, call.dir, s.sequence, e));
    return std::nullopt;
  } catch (const std::exception& e) {
    s.emit(event_kind::group_error, exchange_failed_fields(t, call.dir, e));
    active_ = false;
    return std::nullopt;
  }
  if (!has_tensor || unsendable) return std::nullopt;
  return incoming;
}

void grafter::report(const matched_call& call, const at::Tensor& value, received incoming, const tags& t,
                     const nlohmann::json& extras) {
  state& s = *state_;
  // Compare-only names always measure: measuring is all they do.
  const bool measures = call.measure_only || s.config.measure == measure_mode::full;
  if (call.sends) {
    nlohmann::json fields = {{"tags", tags_json(t)},
                             {"direction", to_string(call.dir)},
                             {"extras", extras},
                             {"tensor", measures ? describe(value) : describe_layout(value)}};
    if (call.measure_only) fields["compare_only"] = true;
    s.emit(event_kind::send, std::move(fields));
    return;
  }
  // Compare-only: the same guarded path without its write, so the metrics and
  // infos are exactly a graft's while the host's tensor is only read.
  detail::recv_request request{t,
                               call.dir,
                               s.layout,
                               value,
                               std::move(incoming),
                               s.chosen_transform ? &*s.chosen_transform : nullptr,
                               s.transform_problem,
                               measures,
                               !call.measure_only};
  const detail::recv_outcome outcome = detail::graft_received(std::move(request));
  nlohmann::json fields = outcome.fields();
  fields["tags"] = tags_json(t);
  fields["direction"] = to_string(call.dir);
  s.emit(outcome.kind(call.measure_only), std::move(fields));
}

void grafter::run_intercept(const at::Tensor* value, std::string_view type_name, const tags& t,
                            const nlohmann::json& extras) {
  const std::optional<matched_call> call = match(t);
  if (!call) return;
  state& s = *state_;
  // One grafter serves one thread at a time. A matched call from a second
  // thread while one runs is refused rather than raced (on the sequence, the
  // group, the exchange): its value is not touched, and since its peers make
  // the call, the ranks may disagree from here on, which the exchange reports
  // as desync.
  if (s.call_in_flight.exchange(true, std::memory_order_acquire)) {
    s.emit(event_kind::concurrent_call,
           {{"tags", tags_json(t)},
            {"message", "tags " + t.to_display_string() + " matched " + call->filters +
                            " while another thread's call to this grafter was running; a grafter serves one "
                            "thread at a time, so this call is skipped and its value left as it is. Call the "
                            "grafter from one thread, or give each thread a grafter of its own"}});
    return;
  }
  struct in_flight_until_return {
    std::atomic<bool>& flag;
    ~in_flight_until_return() { flag.store(false, std::memory_order_release); }
  } const in_flight{s.call_in_flight};
  ++s.sequence;
  std::optional<received> incoming = contribute(*call, value, type_name, t, extras);
  if (incoming) report(*call, *value, std::move(*incoming), t, extras);
}

}  // namespace graft
