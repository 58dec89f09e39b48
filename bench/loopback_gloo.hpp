#pragma once
// What the c10d benchmarks share: a free loopback port, and a raw
// ProcessGroupGloo on 127.0.0.1 (the floor a graft's exchange is held to).
// Group construction is collective: every rank's thread must call it.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

namespace graft_bench {

inline int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("free_port: no loopback port");
  }
  close(fd);
  return ntohs(address.sin_port);
}

// Rank `rank` of a `size`-rank Gloo group whose store rank 0 hosts at `port`.
inline c10::intrusive_ptr<c10d::ProcessGroupGloo> raw_gloo_group(int port, int rank, int size) {
  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<std::uint16_t>(port);
  store_options.isServer = rank == 0;
  store_options.waitWorkers = false;
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options);
  auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(60));
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(c10::make_intrusive<c10d::PrefixStore>("raw", store), rank,
                                                     size, options);
}

}  // namespace graft_bench
