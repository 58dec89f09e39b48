#include "core/recv_guard.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <c10/core/InferenceMode.h>

#include <graft/error.hpp>
#include <graft/exception_message.hpp>
#include <graft/metrics.hpp>
#include <graft/tensor_info.hpp>

#include "core/integer_cast.hpp"
#include "core/one_pass_device.hpp"
#include "exchange/graftable.hpp"
#include "stats/write_measure.hpp"
#ifdef GRAFT_WITH_CUDA_KERNELS
#include "cuda/write_measure_cuda.hpp"
#endif

namespace graft::detail {

namespace {

// What a failed call left in the target.
enum class target_state {
  unchanged,
  changed_by_transform,
  // graft's CUDA kernel was queued and the device failed afterwards.
  maybe_partly_written,
};

// A failure with its kind, for the recv_skipped event. Every failure leaves
// the target as it was, unless a transform wrote into it itself or the
// device failed while graft's CUDA kernel ran.
struct skip : std::runtime_error {
  skip(skip_kind kind_, const std::string& message, target_state left_ = target_state::unchanged)
      : std::runtime_error(message), kind(kind_), left(left_) {}
  skip_kind kind;
  target_state left;
};

const char* left_note(target_state left) {
  switch (left) {
    case target_state::unchanged: return " (target tensor unchanged)";
    case target_state::changed_by_transform: return " (target tensor changed by the transform, not by the graft)";
    case target_state::maybe_partly_written:
      return " (target tensor may be partly written: the device failed after graft's CUDA kernel was queued)";
  }
  return "";
}

std::vector<at::Tensor> senders_on_target_device(const received& incoming, const at::Tensor& target) {
  std::vector<at::Tensor> out;
  for (std::size_t i = 0; i < incoming.tensors.size(); ++i) {
    const at::Tensor& t = incoming.tensors[i];
    if (!t.defined()) {
      throw skip(skip_kind::sender_absent, "sender rank " + std::to_string(incoming.sender_ranks[i]) +
                                      " sent no tensor for this call (its value was not a tensor, or one that "
                                      "cannot travel: that rank's events say which); nothing to graft");
    }
    out.push_back(t.device() == target.device() ? t : t.to(target.device()));
  }
  return out;
}

at::Tensor call_transform(const transform& chosen, const graft_transform_input& input) {
  try {
    return chosen.fn(input);
  } catch (const transform_error& e) {
    throw skip(skip_kind::transform_error, e.what());
  } catch (const std::exception& e) {
    throw skip(skip_kind::transform_raised, "transform '" + chosen.name + "' raised: " + exception_message(e));
  } catch (...) {
    throw skip(skip_kind::transform_raised, std::string("transform '") + chosen.name +
                                       "' raised something that is not a std::exception");
  }
}

// The transform's candidate, refused when the transform wrote into the
// target, which it gets read-only: the values the graft would measure against
// and overwrite are gone, and a compare-only call would have changed what it
// must only read. An in-place ATen op on the target or a view of it bumps
// their shared version counter (writes through a bare data pointer do not);
// an inference tensor keeps none, so it is not checked.
at::Tensor run_transform(const transform& chosen, const graft_transform_input& input) {
  const std::optional<std::int64_t> version =
      input.target.is_inference() ? std::nullopt : std::optional<std::int64_t>(input.target._version());
  std::optional<skip> failed;
  at::Tensor candidate;
  try {
    candidate = call_transform(chosen, input);
  } catch (const skip& s) {
    failed = s;
  }
  if (version && input.target._version() != *version) {
    throw skip(skip_kind::transform_wrote_target,
               "transform '" + chosen.name + "' wrote into the target (an in-place op on "
               "graft_transform_input::target or a view of it), which a transform may only read; so the "
               "call is skipped, nothing measured against the changed values and nothing written. Return a "
               "new tensor instead" + (failed ? std::string(". It also failed: ") + failed->what() : std::string()),
               target_state::changed_by_transform);
  }
  if (failed) throw *failed;
  return candidate;
}

// Everything that can make a candidate unusable, checked before any write;
// records a cast or a move in the outcome. Never broadcasts.
void validate_candidate(const at::Tensor& candidate, const at::Tensor& target,
                        const std::string& transform_name, recv_outcome& outcome) {
  if (!candidate.defined()) {
    throw skip(skip_kind::transform_undefined, "transform '" + transform_name + "' returned an undefined tensor");
  }
  if (candidate.sizes() != target.sizes()) {
    throw skip(skip_kind::shape_mismatch, "transform '" + transform_name + "' returned shape " +
                                     shape_string(candidate.sizes().vec()) + " but the target has shape " +
                                     shape_string(target.sizes().vec()) +
                                     "; a graft never broadcasts. Return a tensor of the target's shape");
  }
  if (candidate.is_complex() && !target.is_complex()) {
    throw skip(skip_kind::dtype_incompatible, "transform '" + transform_name + "' returned complex " +
                                         dtype_name(candidate) + " for a real " + dtype_name(target) + " target");
  }
  if (candidate.scalar_type() != target.scalar_type()) {
    if (const std::optional<std::string> problem = integer_cast_problem(candidate, target)) {
      throw skip(skip_kind::cast_out_of_range, "the candidate (" + dtype_name(candidate) + ") cannot be cast to the " +
                                          dtype_name(target) + " target: it holds " + *problem +
                                          "; graft a tensor whose dtype holds these values");
    }
    outcome.cast = dtype_name(candidate) + " -> " + dtype_name(target);
  }
  if (candidate.device() != target.device()) {
    outcome.moved = candidate.device().str() + " -> " + target.device().str();
  }
}

// The candidate as the target's dtype and device.
at::Tensor conform(const at::Tensor& candidate, const at::Tensor& target) {
  at::Tensor out = candidate;
  if (candidate.scalar_type() != target.scalar_type()) out = out.to(target.scalar_type());
  if (candidate.device() != target.device()) out = out.to(target.device());
  return out;
}

// Whether a one-pass write takes source and target: strided tensors of the
// instantiated dtypes and the same, non-zero numel, both on the CPU or both
// on one CUDA device (one_pass_device.hpp), the target contiguous (the
// source is made so).
bool one_pass_operands(const at::Tensor& source, const at::Tensor& target) {
  const auto plain = [](const at::Tensor& t) {
    return t.defined() && t.layout() == at::kStrided && !t.is_neg() && !t.is_conj() &&
           detail::has_write_measure_loop(t.scalar_type());
  };
  return plain(source) && plain(target) &&
         one_pass_device_for(source.device(), target.device(), cuda_kernels_built()) != one_pass_device::none &&
         target.is_contiguous() && source.sizes() == target.sizes() && target.numel() != 0;
}

// Whether the one-pass write may write source into target with exactly
// copy_'s outcome: one-pass operands, no partial overlap, and a target that
// copy_ would write without a word (no autograd, no inference tensor).
bool writes_in_one_pass(const at::Tensor& source, const at::Tensor& target) {
  if (!one_pass_operands(source, target)) return false;
  if (target.requires_grad() || target.is_inference()) return false;
  const at::MemOverlapStatus overlap = at::get_overlap_status(source, target);
  return overlap == at::MemOverlapStatus::No || overlap == at::MemOverlapStatus::Full;
}

// The contiguous strides of shape: the layout of `source * scale` for a
// contiguous source.
std::vector<std::int64_t> row_major_strides(at::IntArrayRef shape) {
  std::vector<std::int64_t> strides(shape.size());
  std::int64_t step = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    strides[k] = step;
    step *= std::max<std::int64_t>(shape[k], 1);
  }
  return strides;
}

#ifdef GRAFT_WITH_CUDA_KERNELS
// Runs one pass of graft's CUDA kernel, its failure a skip. Guaranteed: an
// error found before the kernel was queued (one pending from earlier work,
// the workspace, the launch itself: no kernel image for this GPU, no
// resources) leaves the target unchanged. An error the device reports while
// the queued kernel runs (found when the sums are fetched) may leave it
// partly written, and says so; a write-only pass is not waited for, so such
// an error surfaces in the next CUDA call, graft's or the host program's.
template <typename Pass>
auto on_cuda(const at::Tensor& target, Pass&& pass) {
  try {
    return pass();
  } catch (const detail::cuda_pass_error& e) {
    // The write may have happened: autograd's saved tensors must notice.
    if (!e.target_unchanged()) target.unsafeGetTensorImpl()->bump_version();
    throw skip(skip_kind::cuda_failed, e.what(),
               e.target_unchanged() ? target_state::unchanged : target_state::maybe_partly_written);
  }
}
#endif

// The one-pass write for the target's device (one_pass_operands holds).
detail::measured_write write_measured(const at::Tensor& source, double scale, const at::Tensor& target) {
#ifdef GRAFT_WITH_CUDA_KERNELS
  if (target.is_cuda()) return on_cuda(target, [&] { return detail::cuda_write_measured(source, scale, target); });
#endif
  return detail::cpu_write_measured(source, scale, target);
}

void write_only(const at::Tensor& source, double scale, const at::Tensor& target) {
#ifdef GRAFT_WITH_CUDA_KERNELS
  if (target.is_cuda()) return on_cuda(target, [&] { detail::cuda_write(source, scale, target); });
#endif
  detail::cpu_write(source, scale, target);
}

detail::measured_write measure_graft(const at::Tensor& candidate, const at::Tensor& target) {
#ifdef GRAFT_WITH_CUDA_KERNELS
  if (target.is_cuda()) return on_cuda(target, [&] { return detail::cuda_measure_graft(candidate, target); });
#endif
  return detail::cpu_measure_graft(candidate, target);
}

// Writes scale * source into target in one pass; when measuring, fills the
// outcome's before, candidate and metrics from that same pass, else their
// layouts only. candidate_stride is the layout the candidate tensor would
// have had. On the CPU it cannot fail once called; on a CUDA device see
// on_cuda.
void write_in_one_pass(const at::Tensor& source, double scale, const at::Tensor& target,
                       const std::vector<std::int64_t>& candidate_stride, bool measure,
                       recv_outcome& outcome) {
  const at::Tensor dense = source.contiguous();
  if (!measure) {
    outcome.before = describe_layout(target);
    outcome.candidate = describe_layout(source);
    outcome.candidate->stride = candidate_stride;
    write_only(dense, scale, target);
    target.unsafeGetTensorImpl()->bump_version();
    return;
  }
  const detail::measured_write result = write_measured(dense, scale, target);
  // What copy_ does: autograd's saved tensors notice the in-place write.
  target.unsafeGetTensorImpl()->bump_version();
  outcome.before = detail::describe_with(target, target.strides().vec(), result.before);
  outcome.candidate = detail::describe_with(source, candidate_stride, result.candidate);
  outcome.metrics = result.metrics;
}

// Measures writing candidate into target in one pass that writes nothing
// (cpu_measure_graft, cuda_measure_graft): the compare-only counterpart of
// write_in_one_pass.
void measure_in_one_pass(const at::Tensor& candidate, const at::Tensor& target, recv_outcome& outcome) {
  const detail::measured_write result = measure_graft(candidate.contiguous(), target);
  outcome.before = detail::describe_with(target, target.strides().vec(), result.before);
  outcome.candidate = detail::describe_with(candidate, candidate.strides().vec(), result.candidate);
  outcome.metrics = result.metrics;
}

// The transform's fused plan for this call when the grafter can honour it:
// the source is a valid, one-pass-writable tensor. Otherwise nullopt, and
// the transform runs as usual (a plan that throws counts as none).
std::optional<fused_plan> usable_plan(const transform& chosen, const graft_transform_input& input) {
  if (!chosen.plan) return std::nullopt;
  std::optional<fused_plan> plan;
  try {
    plan = chosen.plan(input);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!plan || plan->source >= input.received_list.size()) return std::nullopt;
  const at::Tensor& source = input.received_list[plan->source];
  if (!writes_in_one_pass(source, input.target)) return std::nullopt;
  if (!detail::scale_is_exact(source.scalar_type(), plan->scale)) return std::nullopt;
  return plan;
}

// copy_ into an inference tensor outside InferenceMode writes the values and
// only then throws (when it bumps the version): refuse it before writing.
void check_writable(const at::Tensor& target) {
  if (target.is_inference() && !c10::InferenceMode::is_enabled()) {
    throw skip(skip_kind::copy_failed,
               "the target is an inference tensor (created under c10::InferenceMode) and this "
               "dump point runs outside InferenceMode, where in-place writes to it are not "
               "allowed; call the grafter inside InferenceMode or pass a normal tensor");
  }
}

// The transform's view of this call; the sender tensors and extras move into it.
graft_transform_input transform_input(recv_request& request) {
  return graft_transform_input{request.call_tags,
                               senders_on_target_device(request.incoming, request.target),
                               std::move(request.incoming.extras),
                               request.target,
                               request.dir,
                               request.layout.local_rank,
                               request.layout.side_world_size(request.layout.side),
                               std::move(request.incoming.sender_ranks)};
}

// Any other device, dtype or layout than the one-pass paths take: convert,
// measure, then copy_.
void conform_and_copy(const at::Tensor& candidate, const recv_request& request, recv_outcome& outcome) {
  const at::Tensor& target = request.target;
  const at::Tensor conformed = conform(candidate, target);
  if (request.measure) {
    outcome.before = describe(target);
    outcome.candidate = describe(candidate);
    outcome.metrics = compare(target, conformed);
  } else {
    outcome.before = describe_layout(target);
    outcome.candidate = describe_layout(candidate);
  }
  if (!request.write) return;
  check_writable(target);
  try {
    target.copy_(conformed);
  } catch (const std::exception& e) {
    throw skip(skip_kind::copy_failed, "copying the candidate into the target failed: " + exception_message(e));
  }
}

// The graft (or, compare-only, its measurement) on the fastest path that
// fits; returns when it is done and throws skip when it cannot be.
void graft_or_skip(recv_request& request, recv_outcome& outcome) {
  const at::Tensor& target = request.target;
  if (const std::optional<std::string> why = ungraftable_reason(target)) {
    throw skip(skip_kind::ungraftable_target, "the target cannot be written: " + *why);
  }
  if (request.chosen == nullptr) {
    throw skip(skip_kind::transform_load, "the transform could not be loaded: " + request.transform_problem);
  }
  const transform& chosen = *request.chosen;
  outcome.transform = chosen.name;
  const graft_transform_input input = transform_input(request);

  // Fused: no candidate tensor at all, one pass from the sender's tensor.
  // (Compare-only runs the transform itself: the plan promises its values.)
  if (const std::optional<fused_plan> plan = request.write ? usable_plan(chosen, input) : std::nullopt) {
    const at::Tensor& source = input.received_list[plan->source];
    validate_candidate(source, target, chosen.name, outcome);
    const std::vector<std::int64_t> stride =
        plan->scale == 1.0 ? source.strides().vec() : row_major_strides(source.sizes());
    write_in_one_pass(source, plan->scale, target, stride, request.measure, outcome);
    return;
  }

  const at::Tensor candidate = run_transform(chosen, input);
  validate_candidate(candidate, target, chosen.name, outcome);
  if (!request.write && request.measure && one_pass_operands(candidate, target)) {
    measure_in_one_pass(candidate, target, outcome);
  } else if (request.write && writes_in_one_pass(candidate, target)) {
    write_in_one_pass(candidate, 1.0, target, candidate.strides().vec(), request.measure, outcome);
  } else {
    conform_and_copy(candidate, request, outcome);
  }
}

}  // namespace

recv_outcome graft_received(recv_request request) {
  recv_outcome outcome;
  outcome.n_senders = request.incoming.tensors.size();
  outcome.sender_ranks = request.incoming.sender_ranks;
  outcome.sender_extras = request.incoming.extras;
  try {
    graft_or_skip(request, outcome);
    outcome.grafted = true;
    return outcome;
  } catch (const skip& s) {
    outcome.error_kind = s.kind;
    outcome.message = s.what() + std::string(left_note(s.left));
  } catch (const std::exception& e) {
    outcome.error_kind = skip_kind::internal;
    outcome.message = exception_message(e) + left_note(target_state::unchanged);
  }
  // Describing the target now describes what the call leaves: the target
  // unchanged, or as a transform that wrote into it left it. A device that
  // failed cannot be read: the layout still says which tensor it was.
  try {
    outcome.before = request.measure ? describe(request.target) : describe_layout(request.target);
  } catch (const std::exception&) {
    outcome.before = describe_layout(request.target);
  }
  return outcome;
}

nlohmann::json recv_outcome::fields() const {
  nlohmann::json out;
  out["n_senders"] = n_senders;
  out["sender_ranks"] = sender_ranks;
  out["sender_extras"] = sender_extras;
  if (transform) out["transform"] = *transform;
  if (cast) out["cast"] = *cast;
  if (moved) out["moved"] = *moved;
  out["before"] = before;
  if (candidate) out["candidate"] = *candidate;
  if (metrics) out["metrics"] = *metrics;
  if (!grafted) {
    out["error_kind"] = to_string(error_kind);
    out["message"] = message;
  }
  return out;
}

}  // namespace graft::detail
