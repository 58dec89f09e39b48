#pragma once
// Whether anything listens at the store's address yet. A rank that starts
// before graft rank 0 waits here, with plain sockets, rather than in c10d's
// store client, whose connect does not keep a deadline: libtorch 1.13's gives
// up after the timeout's whole seconds less one (2 s of 3), 2.x's retries
// with a fresh timeout after a pause (7 s of 3).

#include <chrono>
#include <string>

namespace graft::detail {

// True once a TCP connection to host:port succeeds (it is closed at once);
// false when the deadline passes first.
bool await_listening(const std::string& host, int port, std::chrono::steady_clock::time_point deadline);

}  // namespace graft::detail
