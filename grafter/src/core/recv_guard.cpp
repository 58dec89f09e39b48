#include "core/recv_guard.hpp"

#include <ATen/ATen.h>

#include <graft/error.hpp>
#include <graft/metrics.hpp>
#include <graft/tensor_info.hpp>

namespace graft::detail {

namespace {

// A failure with its kind, for the recv_skipped event.
struct skip : std::runtime_error {
  skip(std::string kind_, const std::string& message) : std::runtime_error(message), kind(std::move(kind_)) {}
  std::string kind;
};

std::vector<at::Tensor> senders_on_target_device(const received& incoming, const at::Tensor& target) {
  std::vector<at::Tensor> out;
  for (std::size_t i = 0; i < incoming.tensors.size(); ++i) {
    const at::Tensor& t = incoming.tensors[i];
    if (!t.defined()) {
      throw skip("sender_absent", "sender rank " + std::to_string(incoming.sender_ranks[i]) +
                                      " had no tensor for this call (its value was not a tensor); nothing to graft");
    }
    out.push_back(t.device() == target.device() ? t : t.to(target.device()));
  }
  return out;
}

at::Tensor run_transform(const transform& chosen, const graft_transform_input& input) {
  try {
    return chosen.fn(input);
  } catch (const transform_error& e) {
    throw skip("transform_error", e.what());
  } catch (const std::exception& e) {
    throw skip("transform_raised", std::string("transform '") + chosen.name + "' raised: " + e.what());
  }
}

// The candidate as the target's dtype and device, or a skip. Never broadcasts.
at::Tensor conform(const at::Tensor& candidate, const at::Tensor& target, const std::string& transform_name,
                   nlohmann::json& notes) {
  if (!candidate.defined()) {
    throw skip("transform_undefined", "transform '" + transform_name + "' returned an undefined tensor");
  }
  if (candidate.sizes() != target.sizes()) {
    throw skip("shape_mismatch", "transform '" + transform_name + "' returned shape " +
                                     shape_string(candidate.sizes().vec()) + " but the target has shape " +
                                     shape_string(target.sizes().vec()) +
                                     "; a graft never broadcasts. Return a tensor of the target's shape");
  }
  if (candidate.is_complex() && !target.is_complex()) {
    throw skip("dtype_incompatible", "transform '" + transform_name + "' returned complex " +
                                         dtype_name(candidate) + " for a real " + dtype_name(target) + " target");
  }
  at::Tensor out = candidate;
  if (candidate.scalar_type() != target.scalar_type()) {
    notes["cast"] = dtype_name(candidate) + " -> " + dtype_name(target);
    out = out.to(target.scalar_type());
  }
  if (candidate.device() != target.device()) {
    notes["moved"] = candidate.device().str() + " -> " + target.device().str();
    out = out.to(target.device());
  }
  return out;
}

}  // namespace

std::pair<std::string, nlohmann::json> graft_received(recv_request request) {
  const at::Tensor& target = request.target;
  const received& incoming = request.incoming;
  nlohmann::json fields;
  fields["n_senders"] = incoming.tensors.size();
  fields["sender_ranks"] = incoming.sender_ranks;
  fields["sender_extras"] = incoming.extras;
  fields["before"] = describe(target);
  try {
    if (request.chosen == nullptr) {
      throw skip("transform_load", "the transform could not be loaded: " + request.transform_problem);
    }
    fields["transform"] = request.chosen->name;
    const graft_transform_input input{request.call_tags,
                                      senders_on_target_device(incoming, target),
                                      incoming.extras,
                                      target,
                                      request.dir,
                                      request.layout.local_rank,
                                      request.layout.side_world_size(request.layout.side),
                                      incoming.sender_ranks};
    const at::Tensor candidate = run_transform(*request.chosen, input);
    const at::Tensor conformed = conform(candidate, target, request.chosen->name, fields);
    fields["candidate"] = describe(candidate);
    fields["metrics"] = compare(target, conformed);
    try {
      target.copy_(conformed);
    } catch (const std::exception& e) {
      throw skip("copy_failed", std::string("copying the candidate into the target failed: ") + e.what());
    }
    return {"recv_grafted", std::move(fields)};
  } catch (const skip& s) {
    fields["error_kind"] = s.kind;
    fields["message"] = std::string(s.what()) + " (target tensor unchanged)";
  } catch (const std::exception& e) {
    fields["error_kind"] = "internal";
    fields["message"] = std::string(e.what()) + " (target tensor unchanged)";
  }
  return {"recv_skipped", std::move(fields)};
}

}  // namespace graft::detail
