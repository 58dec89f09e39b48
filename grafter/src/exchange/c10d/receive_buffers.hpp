#pragma once
// The receive side's tensors, reused from one call to the next. Fresh memory
// costs a page fault per page on its first write, and the transfer is that
// first write: for a 16 MiB tensor on a virtual machine the faults took about
// as long as the copy out of the socket. A call takes its buffers here; one
// from the previous call with the same shape, dtype and device is handed out
// again when nothing else holds it any more (the grafter is done with it, and
// no transform, host or view kept a reference). Only the previous call's
// buffers are kept, so the memory held is at most one call's payload.

#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <c10/util/ArrayRef.h>

namespace graft::detail {

class receive_buffers {
 public:
  // Starts a call: the buffers handed out so far become the ones it may reuse.
  void start_call();

  // A tensor of this shape, dtype and device, contents undefined.
  at::Tensor take(c10::IntArrayRef shape, at::ScalarType dtype, c10::Device device);

 private:
  std::vector<at::Tensor> previous_;
  std::vector<at::Tensor> current_;
};

}  // namespace graft::detail
