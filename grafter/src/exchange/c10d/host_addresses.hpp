#pragma once
// A host name's addresses, as getaddrinfo gives them for a stream socket: one
// place for the lookup the rendezvous checks up front and the store deadline
// matches its peers against; and this host's own address on the way to one.

#include <sys/socket.h>

#include <optional>
#include <string>
#include <vector>

namespace graft::detail {

struct host_addresses {
  std::vector<sockaddr_storage> addresses;
  int lookup_error = 0;  // getaddrinfo's code (gai_strerror names it); 0 when it resolved
};

host_addresses resolve_host(const std::string& host);

// The address of this host that its routes send traffic to `host` from (the
// first of host's addresses that has a route), as text: the interface that
// faces it. Nothing leaves the host: a datagram socket's connect only picks
// the route. Empty when host does not resolve or no address has a route.
std::optional<std::string> local_address_towards(const std::string& host);

}  // namespace graft::detail
