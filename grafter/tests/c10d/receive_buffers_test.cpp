// The receive side's buffer reuse: a buffer comes back only to the next call,
// only for the same shape, dtype and device, and only when nothing else
// holds it or a view of its storage.
#include "exchange/c10d/receive_buffers.hpp"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace graft::detail {
namespace {

const void* storage_of(const at::Tensor& t) { return t.storage().data(); }

TEST(receive_buffers, a_released_buffer_serves_the_next_call) {
  receive_buffers pool;
  pool.start_call();
  const void* first = storage_of(pool.take({4, 8}, at::kFloat, at::kCPU));
  pool.start_call();
  const at::Tensor again = pool.take({4, 8}, at::kFloat, at::kCPU);
  EXPECT_EQ(storage_of(again), first);
  EXPECT_EQ(again.sizes(), (std::vector<std::int64_t>{4, 8}));
}

TEST(receive_buffers, a_buffer_someone_still_holds_is_never_handed_out) {
  receive_buffers pool;
  pool.start_call();
  const at::Tensor kept = pool.take({16}, at::kFloat, at::kCPU);
  pool.start_call();
  EXPECT_NE(storage_of(pool.take({16}, at::kFloat, at::kCPU)), storage_of(kept));
}

TEST(receive_buffers, a_view_of_the_storage_also_keeps_it) {
  receive_buffers pool;
  pool.start_call();
  const at::Tensor view = pool.take({16}, at::kFloat, at::kCPU).narrow(0, 2, 4);
  pool.start_call();
  const at::Tensor fresh = pool.take({16}, at::kFloat, at::kCPU);
  EXPECT_NE(fresh.storage().data(), view.storage().data());
}

TEST(receive_buffers, shape_dtype_or_call_mismatch_allocates) {
  receive_buffers pool;
  pool.start_call();
  const void* first = storage_of(pool.take({16}, at::kFloat, at::kCPU));
  pool.start_call();
  EXPECT_NE(storage_of(pool.take({4, 4}, at::kFloat, at::kCPU)), first);
  EXPECT_NE(storage_of(pool.take({16}, at::kBFloat16, at::kCPU)), first);
  pool.start_call();
  pool.start_call();  // a call that received nothing: older buffers are let go
  EXPECT_NE(storage_of(pool.take({16}, at::kFloat, at::kCPU)), first);
}

TEST(receive_buffers, two_buffers_of_one_call_are_distinct) {
  receive_buffers pool;
  pool.start_call();
  const void* a = storage_of(pool.take({8}, at::kFloat, at::kCPU));
  const void* b = storage_of(pool.take({8}, at::kFloat, at::kCPU));
  EXPECT_NE(a, b);
  pool.start_call();
  const void* c = storage_of(pool.take({8}, at::kFloat, at::kCPU));
  const void* d = storage_of(pool.take({8}, at::kFloat, at::kCPU));
  EXPECT_NE(c, d);
  EXPECT_TRUE((c == a && d == b) || (c == b && d == a));
}

}  // namespace
}  // namespace graft::detail
