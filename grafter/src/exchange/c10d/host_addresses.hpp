#pragma once
// A host name's addresses, as getaddrinfo gives them for a stream socket: one
// place for the lookup the rendezvous checks up front and the store deadline
// matches its peers against.

#include <sys/socket.h>

#include <string>
#include <vector>

namespace graft::detail {

struct host_addresses {
  std::vector<sockaddr_storage> addresses;
  int lookup_error = 0;  // getaddrinfo's code (gai_strerror names it); 0 when it resolved
};

host_addresses resolve_host(const std::string& host);

}  // namespace graft::detail
