#include "exchange/c10d/host_addresses.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

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

std::optional<std::string> local_address_towards(const std::string& host) {
  for (const sockaddr_storage& remote : resolve_host(host).addresses) {
    const int fd = ::socket(remote.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    // Any port routes the same; connect needs one.
    sockaddr_storage target = remote;
    if (target.ss_family == AF_INET) reinterpret_cast<sockaddr_in&>(target).sin_port = htons(9);
    if (target.ss_family == AF_INET6) reinterpret_cast<sockaddr_in6&>(target).sin6_port = htons(9);
    const socklen_t length = target.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    sockaddr_storage local{};
    socklen_t local_length = sizeof local;
    const bool routed = ::connect(fd, reinterpret_cast<const sockaddr*>(&target), length) == 0 &&
                        ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length) == 0;
    ::close(fd);
    if (!routed) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* bytes = local.ss_family == AF_INET
                            ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in&>(local).sin_addr)
                            : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6&>(local).sin6_addr);
    if (::inet_ntop(local.ss_family, bytes, text, sizeof text) != nullptr) return std::string(text);
  }
  return std::nullopt;
}

}  // namespace graft::detail
