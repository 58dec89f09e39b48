#pragma once
// Libtorch's c10d and Gloo throw c10::Error, c10d::TimeoutError, gloo
// exceptions and plain std exceptions; the exchange turns them into graft
// errors at its edges, with context and a fix.

#include <string>

namespace graft::detail {

// Inside a catch block: rethrows the exception in flight as a graft error.
// Graft errors pass unchanged; timeouts become timeout_error, anything else
// exchange_error. The message is "<context>: <what>. <fix>".
[[noreturn]] void rethrow_as_graft_error(const std::string& context, const std::string& fix);

}  // namespace graft::detail
