#include "exchange/c10d/receive_buffers.hpp"

#include <utility>

#include <ATen/ops/empty.h>

namespace graft::detail {
namespace {

// Held by this pool alone: no other tensor handle, and no view of its storage.
bool only_ours(const at::Tensor& t) { return t.use_count() == 1 && t.storage().use_count() == 1; }

}  // namespace

at::Tensor receive_buffers::take(c10::IntArrayRef shape, at::ScalarType dtype, c10::Device device) {
  for (auto it = previous_.begin(); it != previous_.end(); ++it) {
    if (it->sizes() == shape && it->scalar_type() == dtype && it->device() == device && only_ours(*it)) {
      current_.push_back(std::move(*it));
      previous_.erase(it);
      return current_.back();
    }
  }
  current_.push_back(at::empty(shape, at::TensorOptions().dtype(dtype).device(device)));
  return current_.back();
}

void receive_buffers::start_call() {
  previous_ = std::move(current_);
  current_.clear();
}

}  // namespace graft::detail
