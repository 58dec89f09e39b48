// Built-in reshard: the senders' shards, concatenated along one dimension,
// form the whole tensor; this receiver takes its equal share of it. Only the
// shards that overlap the share are touched, so a receiver never materialises
// the whole tensor.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/Functions.h>
#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <graft/builtin_transforms.hpp>
#include <graft/error.hpp>

#include <graft/shape_string.hpp>

#include "base/json_text.hpp"

namespace graft {
namespace {

[[noreturn]] void fail(const std::string& message) { throw transform_error("reshard: " + message); }

std::string shapes_of(const std::vector<at::Tensor>& shards) {
  std::string out;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (i > 0) out += ", ";
    out += shape_string(shards[i].sizes().vec());
  }
  return out;
}

struct chosen_dim {
  std::int64_t value;
  std::string source;
};

chosen_dim choose_dim(std::optional<std::int64_t> spec_dim, const graft_transform_input& in) {
  if (spec_dim) return {*spec_dim, "dim=" + std::to_string(*spec_dim) + " from the spec"};
  const std::string key(kReshardDimExtrasKey);
  std::optional<std::int64_t> found;
  for (std::size_t i = 0; i < in.received_extras_list.size(); ++i) {
    const nlohmann::json& extras = in.received_extras_list[i];
    if (!extras.is_object() || !extras.contains(key)) continue;
    const nlohmann::json& value = extras.at(key);
    if (!value.is_number_integer()) {
      fail("received_extras_list[" + std::to_string(i) + "]['" + key + "'] is " + detail::json_text(value) +
           ", not an integer; send the concat dimension as an integer");
    }
    const auto dim = value.get<std::int64_t>();
    if (found && *found != dim) {
      fail("senders disagree on '" + key + "': " + std::to_string(*found) + " vs " +
           std::to_string(dim) + " in received_extras_list[" + std::to_string(i) +
           "]; send the same dimension from every sender or fix it with builtin:reshard:dim=D");
    }
    found = dim;
  }
  if (found)
    return {*found, "dim=" + std::to_string(*found) + " from the senders' extras '" + key + "'"};
  return {0, "dim=0 (the default; neither the spec nor the senders' extras set one)"};
}

void check_shards(const graft_transform_input& in) {
  if (in.received_list.empty()) fail("received no shards (received_list is empty)");
  for (std::size_t i = 0; i < in.received_list.size(); ++i) {
    if (!in.received_list[i].defined()) {
      fail("received_list[" + std::to_string(i) + "] is undefined (sender " + std::to_string(i) +
           " sent no tensor)");
    }
  }
  if (in.recv_world_size <= 0 || in.recv_rank < 0 || in.recv_rank >= in.recv_world_size) {
    fail("recv_rank=" + std::to_string(in.recv_rank) +
         " is not in [0, recv_world_size=" + std::to_string(in.recv_world_size) + ")");
  }
}

// The dimension, normalised to [0, ndim), after checking every shard agrees off it.
std::int64_t concat_dim(const chosen_dim& dim, const std::vector<at::Tensor>& shards) {
  const at::Tensor& first = shards.front();
  const std::int64_t ndim = first.dim();
  if (dim.value < -ndim || dim.value >= ndim) {
    fail(dim.source + " is out of range for shards of rank " + std::to_string(ndim) +
         " (received_list[0].shape=" + shape_string(first.sizes().vec()) + ")" +
         (ndim == 0 ? "; 0-dim shards cannot be concatenated"
                    : "; use a dim in [" + std::to_string(-ndim) + ", " + std::to_string(ndim - 1) +
                          "]"));
  }
  const std::int64_t d = dim.value < 0 ? dim.value + ndim : dim.value;
  for (std::size_t i = 1; i < shards.size(); ++i) {
    const at::Tensor& shard = shards[i];
    bool same = shard.dim() == ndim;
    for (std::int64_t k = 0; same && k < ndim; ++k) same = k == d || shard.size(k) == first.size(k);
    if (!same) {
      fail("received_list[" + std::to_string(i) + "].shape=" + shape_string(shard.sizes().vec()) +
           " does not match received_list[0].shape=" + shape_string(first.sizes().vec()) +
           " off the concat dim " + std::to_string(d) + " (" + dim.source +
           "); shards may differ only along that dim");
    }
  }
  return d;
}

// Where this receiver's share lies in the concatenation of the shards.
struct share_span {
  chosen_dim dim;
  std::int64_t d, begin, end;
};

share_span locate_share(std::optional<std::int64_t> spec_dim, const graft_transform_input& in) {
  check_shards(in);
  const std::vector<at::Tensor>& shards = in.received_list;
  const chosen_dim dim = choose_dim(spec_dim, in);
  const std::int64_t d = concat_dim(dim, shards);

  std::int64_t total = 0;
  for (const at::Tensor& shard : shards) total += shard.size(d);
  if (total % in.recv_world_size != 0) {
    fail("the senders' shards " + shapes_of(shards) + " concatenated along dim " +
         std::to_string(d) + " have length " + std::to_string(total) +
         ", which does not split into recv_world_size=" + std::to_string(in.recv_world_size) +
         " equal parts (" + dim.source + ")");
  }
  const std::int64_t part = total / in.recv_world_size;
  return {dim, d, part * in.recv_rank, part * (in.recv_rank + 1)};
}

at::Tensor take_share(std::optional<std::int64_t> spec_dim, const graft_transform_input& in) {
  const share_span span = locate_share(spec_dim, in);
  const std::vector<at::Tensor>& shards = in.received_list;
  const chosen_dim& dim = span.dim;
  const std::int64_t d = span.d;
  const std::int64_t begin = span.begin;
  const std::int64_t end = span.end;

  std::vector<at::Tensor> pieces;
  std::int64_t offset = 0;
  for (const at::Tensor& shard : shards) {
    const std::int64_t lo = std::max(begin, offset);
    const std::int64_t hi = std::min(end, offset + shard.size(d));
    if (lo < hi) pieces.push_back(shard.narrow(d, lo - offset, hi - lo));
    offset += shard.size(d);
  }
  // No piece only when the whole is empty along d: the share is empty too.
  at::Tensor share = pieces.empty()       ? shards.front().narrow(d, 0, 0)
                     : pieces.size() == 1 ? pieces.front()
                                          : at::cat(pieces, d);

  if (share.sizes() != in.target.sizes()) {
    fail("receiver " + std::to_string(in.recv_rank) + " of " + std::to_string(in.recv_world_size) +
         " gets shape " + shape_string(share.sizes().vec()) + " from shards " +
         shapes_of(shards) + " along dim " + std::to_string(d) +
         " but target.shape=" + shape_string(in.target.sizes().vec()) + " (" + dim.source +
         "); check the dim and both sides' world sizes");
  }
  return share;
}

// When the share is exactly one whole shard (TP=N -> TP=N, or 1 -> 1) the
// candidate is that shard itself. Anything else, errors included, has no
// plan: take_share then builds the candidate or reports the problem.
std::optional<fused_plan> whole_shard_plan(std::optional<std::int64_t> spec_dim,
                                           const graft_transform_input& in) {
  std::optional<share_span> span;
  try {
    span = locate_share(spec_dim, in);
  } catch (const transform_error&) {
    return std::nullopt;
  }
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < in.received_list.size(); ++i) {
    const at::Tensor& shard = in.received_list[i];
    const std::int64_t length = shard.size(span->d);
    if (offset == span->begin && offset + length == span->end) {
      if (shard.sizes() != in.target.sizes()) return std::nullopt;
      return fused_plan{i, 1.0};
    }
    offset += length;
  }
  return std::nullopt;
}

}  // namespace

transform reshard(std::optional<std::int64_t> dim) {
  return transform{"reshard",
                   [dim](const graft_transform_input& in) { return take_share(dim, in); },
                   [dim](const graft_transform_input& in) { return whole_shard_plan(dim, in); }};
}

}  // namespace graft
