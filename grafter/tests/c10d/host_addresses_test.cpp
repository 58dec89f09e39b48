// This host's address on the way to another: the interface Gloo listens on
// when GLOO_SOCKET_IFNAME is unset and the master address is not a loopback.

#include "exchange/c10d/host_addresses.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace graft::detail {
namespace {

// This host's IPv4 addresses on interfaces that are up, the loopback's aside.
std::vector<std::string> own_ipv4_addresses() {
  std::vector<std::string> out;
  ifaddrs* all = nullptr;
  if (getifaddrs(&all) != 0) return out;
  for (const ifaddrs* a = all; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET || (a->ifa_flags & IFF_UP) == 0 ||
        (a->ifa_flags & IFF_LOOPBACK) != 0) {
      continue;
    }
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
    out.emplace_back(text);
  }
  freeifaddrs(all);
  return out;
}

TEST(host_addresses, the_loopback_is_reached_from_the_loopback) {
  EXPECT_EQ(local_address_towards("127.0.0.1"), "127.0.0.1");
}

// Each of this host's own addresses is reached from itself, whatever the
// host's name resolves to.
TEST(host_addresses, an_address_of_this_host_is_reached_from_itself) {
  const std::vector<std::string> own = own_ipv4_addresses();
  if (own.empty()) GTEST_SKIP() << "this host has no IPv4 address outside the loopback";
  for (const std::string& address : own) EXPECT_EQ(local_address_towards(address), address);
}

TEST(host_addresses, a_name_that_does_not_resolve_has_no_local_address) {
  EXPECT_EQ(local_address_towards("no-such-host.invalid"), std::nullopt);
}

}  // namespace
}  // namespace graft::detail
