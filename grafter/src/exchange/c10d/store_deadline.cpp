#include "exchange/c10d/store_deadline.hpp"

#include <dirent.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "exchange/c10d/host_addresses.hpp"

namespace graft::detail {
namespace {

// An IPv4 address as IPv4, also where an IPv6 socket holds it v4-mapped
// (::ffff:a.b.c.d), as c10d's client sockets do.
sockaddr_storage unmapped(const sockaddr_storage& address) {
  if (address.ss_family != AF_INET6) return address;
  const auto& six = reinterpret_cast<const sockaddr_in6&>(address);
  if (!IN6_IS_ADDR_V4MAPPED(&six.sin6_addr)) return address;
  sockaddr_storage out{};
  auto& four = reinterpret_cast<sockaddr_in&>(out);
  four.sin_family = AF_INET;
  four.sin_port = six.sin6_port;
  std::memcpy(&four.sin_addr, six.sin6_addr.s6_addr + 12, sizeof(four.sin_addr));
  return out;
}

// The host's addresses, IPv4 ones as IPv4, to compare with peers.
std::vector<sockaddr_storage> resolve(const std::string& host) {
  std::vector<sockaddr_storage> out;
  for (const sockaddr_storage& address : resolve_host(host).addresses) out.push_back(unmapped(address));
  return out;
}

// Whether peer is host:port for one of host's addresses.
bool same_endpoint(const sockaddr_storage& mapped_peer, const std::vector<sockaddr_storage>& host, int port) {
  const sockaddr_storage peer = unmapped(mapped_peer);
  for (const sockaddr_storage& h : host) {
    if (peer.ss_family != h.ss_family) continue;
    if (peer.ss_family == AF_INET) {
      const auto& p = reinterpret_cast<const sockaddr_in&>(peer);
      const auto& a = reinterpret_cast<const sockaddr_in&>(h);
      if (ntohs(p.sin_port) == port && p.sin_addr.s_addr == a.sin_addr.s_addr) return true;
    } else if (peer.ss_family == AF_INET6) {
      const auto& p = reinterpret_cast<const sockaddr_in6&>(peer);
      const auto& a = reinterpret_cast<const sockaddr_in6&>(h);
      if (ntohs(p.sin6_port) == port && std::memcmp(&p.sin6_addr, &a.sin6_addr, sizeof(in6_addr)) == 0) return true;
    }
  }
  return false;
}

}  // namespace

store_deadline::store_deadline(const std::string& master_address, int master_port,
                               std::chrono::steady_clock::time_point deadline)
    : store_addresses_(resolve(master_address)), master_port_(master_port) {
  watchdog_ = std::thread([this, deadline] { watch(deadline); });
}

store_deadline::~store_deadline() {
  disarm();
  watchdog_.join();
}

void store_deadline::disarm() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    disarmed_ = true;
  }
  wake_.notify_all();
}

bool store_deadline::fired() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return fired_;
}

void store_deadline::watch(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wake_.wait_until(lock, deadline, [this] { return disarmed_; })) return;
  // Past the deadline, until the rendezvous gives up: a client still
  // connecting then (c10d bounds connecting itself) may connect later and
  // wait for its first answer like any other. Under the lock, so that a
  // rendezvous that ends meanwhile sees fired() once its connections are
  // shut down.
  do {
    if (shut_down_store_connections() > 0) fired_ = true;
  } while (!wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return disarmed_; }));
}

// The process's open sockets are its /proc/self/fd entries that are
// sockets; only those connected to the store's address and port are shut
// down (never the store host's own listening or accepted sockets, whose
// peers are ephemeral ports).
int store_deadline::shut_down_store_connections() const {
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return 0;
  int shut = 0;
  while (const dirent* entry = readdir(fds)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == dirfd(fds)) continue;
    struct stat info{};
    if (fstat(static_cast<int>(fd), &info) != 0 || !S_ISSOCK(info.st_mode)) continue;
    sockaddr_storage peer{};
    socklen_t length = sizeof(peer);
    if (getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&peer), &length) != 0) continue;
    if (same_endpoint(peer, store_addresses_, master_port_) && shutdown(static_cast<int>(fd), SHUT_RDWR) == 0) {
      ++shut;
    }
  }
  closedir(fds);
  return shut;
}

}  // namespace graft::detail
