#pragma once
// Holds the rendezvous to its deadline whatever libtorch does with the
// store's socket. From libtorch 2.x on, c10d's TCPStore client pings the
// store in its constructor and waits for each answer with no timeout of its
// own, so a store that took the connection but never answers (its host
// stopped in a debugger or by SIGSTOP, another program on the port) would
// hold the rank forever; libtorch 1.13 kept a wait's timeout on the socket.
//
// A watchdog thread waits until the deadline. If the rendezvous is still
// running then, it shuts down this process's connections to the store (the
// sockets whose peer is the master address and port), and goes on doing so
// until the rendezvous ends: the blocked request fails at once, and fired()
// tells the caller why. disarm() (or the destructor) ends the watchdog; one
// disarmed before the deadline touches nothing.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/socket.h>

namespace graft::detail {

class store_deadline {
 public:
  store_deadline(const std::string& master_address, int master_port,
                 std::chrono::steady_clock::time_point deadline);
  ~store_deadline();
  store_deadline(const store_deadline&) = delete;
  store_deadline& operator=(const store_deadline&) = delete;

  // The rendezvous is over: the connections stay as they are.
  void disarm();
  // Whether the deadline passed and a connection to the store was shut down.
  bool fired() const;

 private:
  void watch(std::chrono::steady_clock::time_point deadline);
  int shut_down_store_connections() const;  // how many

  std::vector<sockaddr_storage> store_addresses_;
  int master_port_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool disarmed_ = false;
  bool fired_ = false;
  std::thread watchdog_;
};

}  // namespace graft::detail
