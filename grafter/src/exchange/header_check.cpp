#include "exchange/header_check.hpp"

#include <graft/error.hpp>

namespace graft::detail {

namespace {

std::string describe(const call_header& h) {
  std::string out = "call #" + std::to_string(h.sequence);
  if (!h.name.empty()) out += " '" + h.name + "'";
  out += " (" + std::string(to_string(h.dir)) + ", fingerprint " + std::to_string(h.fingerprint) + ")";
  return out;
}

bool same_call(const call_header& a, const call_header& b) {
  return a.sequence == b.sequence && a.fingerprint == b.fingerprint && a.dir == b.dir;
}

}  // namespace

void check_headers(const std::vector<call_header>& headers, int self) {
  std::string disagreeing;
  for (std::size_t rank = 0; rank < headers.size(); ++rank) {
    if (!same_call(headers[rank], headers[0])) {
      disagreeing += "; graft rank " + std::to_string(rank) + " reached " + describe(headers[rank]);
    }
  }
  if (disagreeing.empty()) return;
  GRAFT_THROW(desync_error, "desync: the ranks reached different dump calls, nothing was grafted. Graft rank 0 "
                            "reached " + describe(headers[0]) + disagreeing + " (this is graft rank " +
                                std::to_string(self) +
                                "). Both sides must make the same matched dump calls in the same order; check "
                                "the filters and the call sequence of each side");
}

}  // namespace graft::detail
