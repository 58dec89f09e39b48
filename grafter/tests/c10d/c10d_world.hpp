#pragma once
// Helpers for tests that join real c10d exchanges on 127.0.0.1: a free port,
// and B + T ranks as threads of one process, each creating its own exchange
// through c10d_exchange_factory() (graft rank 0 hosts the store).

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <graft/c10d_exchange.hpp>
#include <graft/config.hpp>
#include <graft/role.hpp>

namespace graft_test {

// Binds port 0 on the loopback, reads the port the kernel chose, closes.
inline int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("free_port: socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    throw std::runtime_error("free_port: bind/getsockname failed");
  }
  close(fd);
  return ntohs(address.sin_port);
}

inline graft::graft_config c10d_config(int baseline_world_size, int target_world_size, int port,
                                       double timeout_seconds = 30) {
  graft::graft_config c;
  c.enable = true;
  c.c10d.master_address = "127.0.0.1";
  c.c10d.master_port = port;
  c.baseline_world_size = baseline_world_size;
  c.target_world_size = target_world_size;
  c.timeout_seconds = timeout_seconds;
  return c;
}

struct c10d_world {
  int baseline_world_size = 1;
  int target_world_size = 1;
  double timeout_seconds = 30;
  std::string backend = "gloo";

  // Runs body(layout, exchange) on every rank, each on its own thread; returns
  // what each rank threw (index = graft rank; null where it returned).
  std::vector<std::exception_ptr> run(
      const std::function<void(const graft::rank_layout&, graft::exchange&)>& body) const {
    graft::graft_config config = c10d_config(baseline_world_size, target_world_size, free_port(), timeout_seconds);
    config.c10d.backend = backend;
    const int world = baseline_world_size + target_world_size;
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(world));
    std::vector<std::thread> threads;
    for (int graft_rank = 0; graft_rank < world; ++graft_rank) {
      threads.emplace_back([&, graft_rank] {
        graft::rank_layout layout;
        layout.baseline_world_size = baseline_world_size;
        layout.target_world_size = target_world_size;
        layout.side = graft_rank < baseline_world_size ? graft::role::baseline : graft::role::target;
        layout.local_rank = graft_rank - layout.first_graft_rank(layout.side);
        try {
          std::unique_ptr<graft::exchange> exchange = graft::c10d_exchange_factory()(config, layout);
          body(layout, *exchange);
        } catch (...) {
          errors[static_cast<std::size_t>(graft_rank)] = std::current_exception();
        }
      });
    }
    for (auto& t : threads) t.join();
    return errors;
  }
};

// Rethrows a rank's exception so that a test sees its type and message.
inline void rethrow_if_any(const std::vector<std::exception_ptr>& errors) {
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace graft_test
