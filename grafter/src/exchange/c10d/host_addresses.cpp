#include "exchange/c10d/host_addresses.hpp"

#include <netdb.h>

#include <cstring>

namespace graft::detail {

host_addresses resolve_host(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  host_addresses out;
  out.lookup_error = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (out.lookup_error != 0) return out;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    sockaddr_storage address{};
    std::memcpy(&address, a->ai_addr, a->ai_addrlen);
    out.addresses.push_back(address);
  }
  freeaddrinfo(found);
  return out;
}

}  // namespace graft::detail
