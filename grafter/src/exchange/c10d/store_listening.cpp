#include "exchange/c10d/store_listening.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "exchange/c10d/host_addresses.hpp"
#include "exchange/c10d/time_left.hpp"

namespace graft::detail {
namespace {

constexpr auto kRetryPause = std::chrono::milliseconds(50);

void set_port(sockaddr_storage& address, int port) {
  if (address.ss_family == AF_INET) reinterpret_cast<sockaddr_in&>(address).sin_port = htons(static_cast<std::uint16_t>(port));
  if (address.ss_family == AF_INET6) reinterpret_cast<sockaddr_in6&>(address).sin6_port = htons(static_cast<std::uint16_t>(port));
}

int milliseconds_until(std::chrono::steady_clock::time_point deadline) {
  return static_cast<int>(std::min<long long>(time_left(deadline, std::chrono::milliseconds(0)).count(), 1000));
}

bool connects(sockaddr_storage address, int port, std::chrono::steady_clock::time_point deadline) {
  set_port(address, port);
  const int fd = socket(address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const socklen_t length = address.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  bool connected = connect(fd, reinterpret_cast<const sockaddr*>(&address), length) == 0;
  if (!connected && errno == EINPROGRESS) {
    pollfd waiting{fd, POLLOUT, 0};
    int error = 0;
    socklen_t error_length = sizeof(error);
    connected = poll(&waiting, 1, milliseconds_until(deadline)) == 1 &&
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &error_length) == 0 && error == 0;
  }
  close(fd);
  return connected;
}

}  // namespace

bool await_listening(const std::string& host, int port, std::chrono::steady_clock::time_point deadline) {
  const host_addresses found = resolve_host(host);
  for (;;) {
    for (const sockaddr_storage& address : found.addresses) {
      if (connects(address, port, deadline)) return true;
    }
    if (std::chrono::steady_clock::now() + kRetryPause >= deadline) return false;
    std::this_thread::sleep_for(kRetryPause);
  }
}

}  // namespace graft::detail
