#pragma once
// The header check every exchange runs before any payload moves: all ranks
// must be at the same matched call (sequence number, fingerprint of name and
// tags, direction). Every rank sees the same headers, so every rank reaches
// the same verdict and throws the same desync_error.

#include <cstdint>
#include <string>
#include <vector>

#include <graft/role.hpp>

namespace graft::detail {

struct call_header {
  std::uint64_t sequence = 0;
  std::uint64_t fingerprint = 0;
  direction dir = direction::b2t;
  std::string name;  // may be empty when the transport does not carry it
};

// headers[i] is graft rank i's. Throws desync_error naming the disagreeing
// ranks and what each reached, from the point of view of `self`.
void check_headers(const std::vector<call_header>& headers, int self);

}  // namespace graft::detail
