// Which processes a world admits, by world token: the matrix of a configured
// or drawn token on graft rank 0 against a configured one, or none, here.

#include "exchange/c10d/world_token.hpp"

#include <gtest/gtest.h>

namespace graft::detail {
namespace {

graft_config with_token(std::optional<std::string> token) {
  graft_config config;
  config.c10d.world_token = std::move(token);
  return config;
}

bool contains(const std::optional<std::string>& text, const std::string& needle) {
  return text && text->find(needle) != std::string::npos;
}

TEST(world_token, a_configured_token_admits_its_own_world_only) {
  const world_token hosts = host_token(with_token("job-42"));
  EXPECT_TRUE(hosts.from_configuration);
  EXPECT_EQ(admission_problem(with_token("job-42"), hosts), std::nullopt);
  EXPECT_TRUE(contains(admission_problem(with_token("job-43"), hosts), "that world's token differs from this "
                                                                      "process's DUMPER_GRAFTER_WORLD_TOKEN"));
  EXPECT_TRUE(contains(admission_problem(with_token(std::nullopt), hosts),
                       "that world has a world token and this process has none"));
}

TEST(world_token, a_drawn_token_admits_processes_without_one) {
  const world_token hosts = host_token(with_token(std::nullopt));
  EXPECT_FALSE(hosts.from_configuration);
  EXPECT_EQ(admission_problem(with_token(std::nullopt), hosts), std::nullopt);
  EXPECT_EQ(joining_token(with_token(std::nullopt), hosts).digest, hosts.digest);
  EXPECT_TRUE(contains(admission_problem(with_token("job-42"), hosts),
                       "this process has a world token and that world was started without one"));
}

TEST(world_token, drawn_tokens_differ_and_configured_ones_are_stable_digests) {
  EXPECT_NE(host_token(with_token(std::nullopt)).digest, host_token(with_token(std::nullopt)).digest);
  const world_token a = host_token(with_token("job-42"));
  EXPECT_EQ(a.digest, host_token(with_token("job-42")).digest);
  EXPECT_EQ(a.digest.size(), 16u);
  EXPECT_EQ(a.digest.find("job"), std::string::npos);  // the token's text does not travel
}

TEST(world_token, survives_its_record) {
  const world_token a = host_token(with_token("job-42"));
  const world_token back = world_token::from_record(a.record());
  EXPECT_EQ(back.digest, a.digest);
  EXPECT_TRUE(back.from_configuration);
  EXPECT_FALSE(world_token::from_record(host_token(with_token(std::nullopt)).record()).from_configuration);
}

}  // namespace
}  // namespace graft::detail
