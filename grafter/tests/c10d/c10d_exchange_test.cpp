// The c10d exchange between threads of one process: real TCPStore, real Gloo
// groups on 127.0.0.1, one exchange per rank.

#include <future>
#include <optional>
#include <string>

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <graft/error.hpp>

#include "c10d_world.hpp"

namespace {

using graft::direction;
using graft::rank_layout;
using graft::role;

graft::exchange_call make_call(std::uint64_t sequence, direction d, const std::string& name = "x") {
  graft::exchange_call call;
  call.sequence = sequence;
  call.fingerprint = 0xfeed0000 + sequence;
  call.direction = d;
  call.name = name;
  return call;
}

// What sender `local_rank` sends at `sequence`: distinct per sender and call.
at::Tensor value_of(std::uint64_t sequence, int local_rank, at::IntArrayRef shape = {2, 3}) {
  return at::arange(c10::multiply_integers(shape), at::kFloat).reshape(shape) + 100.0 * local_rank +
         1000.0 * static_cast<double>(sequence);
}

bool sends(const rank_layout& layout, direction d) { return graft::is_sender(layout.side, d); }

// One call where every sender sends value_of(...) and every receiver checks
// what it got from every sender.
void exchange_values(const rank_layout& layout, graft::exchange& ex, std::uint64_t sequence, direction d) {
  const graft::exchange_call call = make_call(sequence, d);
  if (sends(layout, d)) {
    const graft::contribution mine{value_of(sequence, layout.local_rank), nullptr};
    const graft::received got = ex.run(call, &mine);
    EXPECT_TRUE(got.tensors.empty());
    return;
  }
  const graft::received got = ex.run(call, nullptr);
  const int senders = layout.side_world_size(graft::sender_role(d));
  ASSERT_EQ(got.tensors.size(), static_cast<std::size_t>(senders));
  ASSERT_EQ(got.extras.size(), static_cast<std::size_t>(senders));
  for (int s = 0; s < senders; ++s) {
    EXPECT_EQ(got.sender_ranks[static_cast<std::size_t>(s)], s);
    EXPECT_TRUE(at::equal(got.tensors[static_cast<std::size_t>(s)], value_of(sequence, s)))
        << "call " << sequence << " from sender " << s;
    EXPECT_TRUE(got.extras[static_cast<std::size_t>(s)].is_null());
  }
}

template <typename Error>
void expect_every_rank_threw(const std::vector<std::exception_ptr>& errors, const std::string& needle) {
  for (std::size_t r = 0; r < errors.size(); ++r) {
    ASSERT_TRUE(errors[r]) << "graft rank " << r << " did not throw";
    try {
      std::rethrow_exception(errors[r]);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "graft rank " << r << " threw another kind: " << e.what();
    }
  }
}

TEST(C10dExchange, OneBaselineToOneTarget) {
  graft_test::c10d_world world;
  graft_test::rethrow_if_any(world.run([](const rank_layout& l, graft::exchange& ex) {
    exchange_values(l, ex, 0, direction::b2t);
  }));
}

TEST(C10dExchange, OneTargetToOneBaseline) {
  graft_test::c10d_world world;
  graft_test::rethrow_if_any(world.run([](const rank_layout& l, graft::exchange& ex) {
    exchange_values(l, ex, 0, direction::t2b);
  }));
}

TEST(C10dExchange, TwoByTwoBothDirections) {
  graft_test::c10d_world world{2, 2};
  graft_test::rethrow_if_any(world.run([](const rank_layout& l, graft::exchange& ex) {
    exchange_values(l, ex, 0, direction::b2t);
    exchange_values(l, ex, 1, direction::t2b);
  }));
}

TEST(C10dExchange, FourByTwoBothDirections) {
  graft_test::c10d_world world{4, 2};
  graft_test::rethrow_if_any(world.run([](const rank_layout& l, graft::exchange& ex) {
    exchange_values(l, ex, 0, direction::b2t);
    exchange_values(l, ex, 1, direction::t2b);
  }));
}

TEST(C10dExchange, ManyCallsReuseOneExchange) {
  graft_test::c10d_world world{1, 2};
  graft_test::rethrow_if_any(world.run([](const rank_layout& l, graft::exchange& ex) {
    for (std::uint64_t seq = 0; seq < 40; ++seq) {
      exchange_values(l, ex, seq, seq % 3 == 2 ? direction::t2b : direction::b2t);
    }
  }));
}

// Received tensors are reused from call to call (receive_buffers.hpp), but
// never one that the caller still holds: kept tensors keep their values,
// released ones are written again in place.
TEST(C10dExchange, ReceivedTensorsTheCallerKeepsAreNeverReused) {
  graft_test::c10d_world world{1, 1};
  graft_test::rethrow_if_any(world.run([](const rank_layout& l, graft::exchange& ex) {
    std::vector<at::Tensor> kept;
    const void* released = nullptr;
    for (std::uint64_t seq = 0; seq < 6; ++seq) {
      const graft::exchange_call call = make_call(seq, direction::b2t);
      if (sends(l, direction::b2t)) {
        const graft::contribution mine{value_of(seq, 0), nullptr};
        ex.run(call, &mine);
        continue;
      }
      const graft::received got = ex.run(call, nullptr);
      ASSERT_EQ(got.tensors.size(), 1u);
      const void* storage = got.tensors[0].storage().data();
      if (seq % 2 == 0) {
        // The previous call's tensor was released: it comes back.
        if (released != nullptr) {
          EXPECT_EQ(storage, released) << "call " << seq;
        }
        kept.push_back(got.tensors[0]);
      } else {
        // The previous call's tensor is kept: this one is fresh.
        EXPECT_NE(storage, kept.back().storage().data()) << "call " << seq;
        released = storage;
      }
    }
    for (std::size_t k = 0; k < kept.size(); ++k) {
      EXPECT_TRUE(at::equal(kept[k], value_of(2 * k, 0))) << "kept tensor of call " << 2 * k;
    }
  }));
}

TEST(C10dExchange, SendersMayDifferInShapeAndDtype) {
  const std::vector<at::Tensor> sent = {
      at::arange(6, at::kFloat).reshape({2, 3}),
      at::arange(5, at::kLong) * -3,
      at::full({}, 1.5, at::kBFloat16),
      at::arange(8, at::kInt).reshape({2, 2, 2}).remainder(3).eq(0),
      at::empty({0, 3}, at::kDouble),
      at::arange(12, at::kDouble).reshape({3, 4}).t(),  // not contiguous
      // Lazily conjugated: the values as they read travel, not the stored ones.
      at::complex(at::arange(3, at::kFloat), at::full({3}, -1.0f)).conj(),
  };
  graft_test::c10d_world world{static_cast<int>(sent.size()), 1};
  graft_test::rethrow_if_any(world.run([&](const rank_layout& l, graft::exchange& ex) {
    const graft::exchange_call call = make_call(7, direction::b2t);
    if (l.side == role::baseline) {
      const graft::contribution mine{sent[static_cast<std::size_t>(l.local_rank)], nullptr};
      ex.run(call, &mine);
      return;
    }
    const graft::received got = ex.run(call, nullptr);
    ASSERT_EQ(got.tensors.size(), sent.size());
    for (std::size_t s = 0; s < sent.size(); ++s) {
      EXPECT_EQ(got.tensors[s].scalar_type(), sent[s].scalar_type()) << "sender " << s;
      EXPECT_EQ(got.tensors[s].sizes(), sent[s].sizes()) << "sender " << s;
      EXPECT_FALSE(got.tensors[s].is_conj()) << "sender " << s;
      EXPECT_TRUE(at::equal(got.tensors[s], sent[s].resolve_conj())) << "sender " << s;
    }
  }));
}

TEST(C10dExchange, ExtrasTravelAndNullStaysNull) {
  const nlohmann::json extras = {{"scale", 0.5}, {"tags", {"a", "b"}}, {"layer", 3}};
  graft_test::c10d_world world{2, 2};
  graft_test::rethrow_if_any(world.run([&](const rank_layout& l, graft::exchange& ex) {
    const graft::exchange_call call = make_call(0, direction::t2b);
    if (l.side == role::target) {
      const graft::contribution mine{value_of(0, l.local_rank), l.local_rank == 0 ? extras : nullptr};
      ex.run(call, &mine);
      return;
    }
    const graft::received got = ex.run(call, nullptr);
    ASSERT_EQ(got.extras.size(), 2u);
    EXPECT_EQ(got.extras[0], extras);
    EXPECT_TRUE(got.extras[1].is_null());
    EXPECT_TRUE(at::equal(got.tensors[0], value_of(0, 0)));
    EXPECT_TRUE(at::equal(got.tensors[1], value_of(0, 1)));
  }));
}

// One b2t call of a world of 1+1: the baseline sends value_of(0, 0) with
// `extras`; returns what the target received.
graft::received one_b2t_call(const graft_test::c10d_world& world, const nlohmann::json& extras) {
  graft::received got;
  graft_test::rethrow_if_any(world.run([&](const rank_layout& l, graft::exchange& ex) {
    const graft::exchange_call call = make_call(0, direction::b2t);
    if (l.side == role::baseline) {
      const graft::contribution mine{value_of(0, 0), extras};
      ex.run(call, &mine);
    } else {
      got = ex.run(call, nullptr);
    }
  }));
  return got;
}

// Extras strings come from the host program: bytes that are not UTF-8 travel
// as U+FFFD instead of failing the sender alone (which would leave every
// other rank waiting out the timeout).
TEST(C10dExchange, ExtrasThatAreNotUtf8TravelWithReplacementCharacters) {
  const graft::received got = one_b2t_call({1, 1, 10}, nlohmann::json{{"note", "bad\xff"}});
  ASSERT_EQ(got.extras.size(), 1u);
  EXPECT_EQ(got.extras[0], (nlohmann::json{{"note", "bad\xEF\xBF\xBD"}}));
}

// c10d's store connects to itself in whole seconds: with a timeout under one
// second, graft rank 0 must still host it, and then wait for its peer as long
// as the timeout says. Rank 0 runs alone, so the outcome does not depend on
// how loaded the machine is.
TEST(C10dExchange, SubSecondTimeoutStillHostsTheStore) {
  graft::rank_layout layout;
  layout.baseline_world_size = 1;
  layout.target_world_size = 1;
  layout.side = role::baseline;
  layout.local_rank = 0;
  std::string message;
  try {
    graft::c10d_exchange_factory()(graft_test::c10d_config(1, 1, graft_test::free_port(), 0.5), layout);
  } catch (const std::exception& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("the rendezvous timed out after 0.5 s; never arrived: graft rank 1"), std::string::npos)
      << message;
}

// What a rendezvous that timed out says, where another program (sglang's own
// grafter, torch.distributed's rendezvous) reached the store instead of graft:
// a key graft does not write stands for it here.
std::string rendezvous_message(role side, int port) {
  graft::rank_layout layout;
  layout.baseline_world_size = 1;
  layout.target_world_size = 1;
  layout.side = side;
  layout.local_rank = 0;
  try {
    graft::c10d_exchange_factory()(graft_test::c10d_config(1, 1, port, 2), layout);
  } catch (const graft::timeout_error& e) {
    return e.what();
  }
  return "no timeout_error";
}

c10d::TCPStoreOptions store_options(int port, bool server) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  options.isServer = server;
  options.waitWorkers = false;
  options.timeout = std::chrono::seconds(10);
  return options;
}

TEST(C10dExchange, AStoreHostReachedByAnotherProgramSaysSoNotNeverArrived) {
  const int port = graft_test::free_port();
  auto host = std::async(std::launch::async, [port] { return rendezvous_message(role::baseline, port); });
  c10d::TCPStore other("127.0.0.1", store_options(port, false));  // retries until graft's store listens
  other.set("init/", std::vector<std::uint8_t>{1});
  const std::string message = host.get();
  EXPECT_NE(message.find("holds no graft world within 2 s, but another program reached it"), std::string::npos)
      << message;
  EXPECT_NE(message.find("sglang's own grafter"), std::string::npos) << message;
}

TEST(C10dExchange, AClientInAStoreAnotherProgramHostsSaysSo) {
  const int port = graft_test::free_port();
  c10d::TCPStore other("127.0.0.1", store_options(port, true));
  other.set("init/", std::vector<std::uint8_t>{1});
  const std::string message = rendezvous_message(role::target, port);
  EXPECT_NE(message.find("holds no graft world within 2 s, but another program reached it"), std::string::npos)
      << message;
}

TEST(C10dExchange, AbsentSendersGiveUndefinedTensors) {
  graft_test::c10d_world world{3, 2};
  graft_test::rethrow_if_any(world.run([](const rank_layout& l, graft::exchange& ex) {
    const graft::exchange_call call = make_call(0, direction::b2t);
    if (l.side == role::baseline) {
      // Sender 1: its value was not a tensor; sender 2 passes no contribution at all.
      const graft::contribution present{value_of(0, l.local_rank), nullptr};
      const graft::contribution absent{at::Tensor(), {{"why", "not a tensor"}}};
      ex.run(call, l.local_rank == 0 ? &present : l.local_rank == 1 ? &absent : nullptr);
      return;
    }
    const graft::received got = ex.run(call, nullptr);
    ASSERT_EQ(got.tensors.size(), 3u);
    EXPECT_TRUE(at::equal(got.tensors[0], value_of(0, 0)));
    EXPECT_FALSE(got.tensors[1].defined());
    EXPECT_FALSE(got.tensors[2].defined());
    EXPECT_EQ(got.extras[1], (nlohmann::json{{"why", "not a tensor"}}));
    EXPECT_TRUE(got.extras[2].is_null());
  }));
}

TEST(C10dExchange, FingerprintMismatchIsDesyncOnEveryRankAndTheGroupStaysInStep) {
  graft_test::c10d_world world{2, 1};
  std::vector<std::exception_ptr> desyncs(3);
  graft_test::rethrow_if_any(world.run([&](const rank_layout& l, graft::exchange& ex) {
    graft::exchange_call call = make_call(4, direction::b2t, "layer3.mlp");
    if (l.side == role::target) call.fingerprint += 1;  // the target reached another call
    const graft::contribution mine{value_of(4, l.local_rank), nullptr};
    try {
      ex.run(call, l.side == role::baseline ? &mine : nullptr);
    } catch (...) {
      desyncs[static_cast<std::size_t>(l.graft_rank())] = std::current_exception();
    }
    exchange_values(l, ex, 5, direction::b2t);
  }));
  expect_every_rank_threw<graft::desync_error>(desyncs, "layer3.mlp");
}

TEST(C10dExchange, SequenceMismatchIsDesyncOnEveryRank) {
  graft_test::c10d_world world{1, 1};
  std::vector<std::exception_ptr> desyncs(2);
  graft_test::rethrow_if_any(world.run([&](const rank_layout& l, graft::exchange& ex) {
    graft::exchange_call call = make_call(l.side == role::baseline ? 2 : 3, direction::t2b);
    call.fingerprint = 42;
    const graft::contribution mine{value_of(2, 0), nullptr};
    try {
      ex.run(call, l.side == role::target ? &mine : nullptr);
    } catch (...) {
      desyncs[static_cast<std::size_t>(l.graft_rank())] = std::current_exception();
    }
  }));
  expect_every_rank_threw<graft::desync_error>(desyncs, "desync");
}

// A tensor that cannot travel, passed straight to the exchange (the grafter
// refuses it before), fails every rank at the header, with no desync and no
// wait for a payload that never comes; the sender names its reason, and the
// next call goes through.
void expect_refused_on_every_rank(const at::Tensor& unsendable, const std::string& senders_reason) {
  graft_test::c10d_world world{1, 2};
  std::vector<std::exception_ptr> errors(3);
  graft_test::rethrow_if_any(world.run([&](const rank_layout& l, graft::exchange& ex) {
    const graft::contribution mine{unsendable, nullptr};
    try {
      ex.run(make_call(0, direction::b2t), l.side == role::baseline ? &mine : nullptr);
    } catch (const graft::desync_error&) {
      ADD_FAILURE() << "not a desync";
    } catch (...) {
      errors[static_cast<std::size_t>(l.graft_rank())] = std::current_exception();
    }
    exchange_values(l, ex, 1, direction::b2t);
  }));
  expect_every_rank_threw<graft::exchange_error>(errors, "graft rank 0 (baseline rank 0) cannot send its tensor");
  expect_every_rank_threw<graft::exchange_error>({errors[0]}, senders_reason);
  expect_every_rank_threw<graft::exchange_error>({errors[1], errors[2]}, "that rank's error names the reason");
}

TEST(C10dExchange, TensorWithTooManyDimsFailsOnEveryRankWithoutDesync) {
  expect_refused_on_every_rank(at::ones(std::vector<std::int64_t>(9, 1)), "it has 9 dimensions");
}

TEST(C10dExchange, SparseTensorFailsOnEveryRankWithoutDesync) {
  expect_refused_on_every_rank(at::ones({2, 3}).to_sparse(), "convert it with to_dense()");
}

TEST(C10dExchange, NestedTensorFailsOnEveryRankWithoutWaitingForIt) {
  expect_refused_on_every_rank(at::_nested_tensor_from_tensor_list({at::ones({1, 3}), at::ones({2, 3})}),
                               "it is a nested tensor");
}

TEST(C10dExchange, MetaTensorFailsOnEveryRankWithoutWaitingForIt) {
  expect_refused_on_every_rank(at::empty({2, 3}, at::TensorOptions().device(at::kMeta)), "on the meta device");
}

// The grafter asks first, and sends such a tensor as absent.
TEST(C10dExchange, SaysWhichTensorsItCannotCarry) {
  graft_test::c10d_world world;
  graft_test::rethrow_if_any(world.run([&](const rank_layout& l, graft::exchange& ex) {
    const std::optional<std::string> nine = ex.cannot_carry(at::ones(std::vector<std::int64_t>(9, 1)));
    ASSERT_TRUE(nine.has_value());
    EXPECT_EQ(*nine, "it has 9 dimensions and the c10d exchange carries at most 8; reshape it (merge leading "
                     "dimensions) before the dump call");
    EXPECT_TRUE(ex.cannot_carry(at::ones({2}).to_sparse()).has_value());
    EXPECT_FALSE(ex.cannot_carry(at::ones(std::vector<std::int64_t>(8, 1))).has_value());
    EXPECT_FALSE(ex.cannot_carry(at::ones({})).has_value());
    // A rank that left at once would close its Gloo pairs while its peer still connects them.
    exchange_values(l, ex, 0, direction::b2t);
  }));
}

TEST(C10dExchange, PeerThatStopsCallingTimesOutAndTheExchangeStaysOut) {
  // Long enough that the rendezvous itself never runs out on a loaded machine;
  // the point is the call that never completes.
  graft_test::c10d_world world{1, 1, 5.0};
  std::promise<void> baseline_done;
  std::shared_future<void> done = baseline_done.get_future().share();
  graft_test::rethrow_if_any(world.run([&](const rank_layout& l, graft::exchange& ex) {
    if (l.side == role::target) {
      done.wait();  // alive, but never reaches the call
      return;
    }
    const graft::contribution mine{value_of(0, 0), nullptr};
    EXPECT_THROW(ex.run(make_call(0, direction::b2t), &mine), graft::timeout_error);
    try {
      ex.run(make_call(1, direction::b2t), &mine);
      ADD_FAILURE() << "the second call went through";
    } catch (const graft::timeout_error&) {
      ADD_FAILURE() << "the second call waited again";
    } catch (const graft::exchange_error& e) {
      EXPECT_NE(std::string(e.what()).find("out of service"), std::string::npos) << e.what();
    }
    baseline_done.set_value();
  }));
}

TEST(C10dExchange, DescribeNamesTheEndpoint) {
  graft_test::c10d_world world{1, 2};
  std::vector<nlohmann::json> described(3);
  graft_test::rethrow_if_any(world.run([&](const rank_layout& l, graft::exchange& ex) {
    described[static_cast<std::size_t>(l.graft_rank())] = ex.describe();
    exchange_values(l, ex, 0, direction::b2t);  // nobody leaves before all have joined
  }));
  for (int r = 0; r < 3; ++r) {
    const nlohmann::json& d = described[static_cast<std::size_t>(r)];
    EXPECT_EQ(d.at("transport"), "c10d");
    EXPECT_EQ(d.at("backend"), "gloo");
    EXPECT_EQ(d.at("master_address"), "127.0.0.1");
    EXPECT_GT(d.at("master_port").get<int>(), 0);
    EXPECT_EQ(d.at("group_name"), "graft");
    EXPECT_EQ(d.at("graft_rank"), r);
    EXPECT_EQ(d.at("graft_world_size"), 3);
  }
}

// Config problems surface before any network activity.
std::string config_error_of(const graft::graft_config& config) {
  graft::rank_layout layout;
  try {
    graft::c10d_exchange_factory()(config, layout);
  } catch (const graft::config_error& e) {
    return e.what();
  }
  return "no config_error";
}

TEST(C10dExchangeConfig, NcclWithoutNcclBuildAsksForGloo) {
  graft::graft_config config = graft_test::c10d_config(1, 1, graft_test::free_port());
  config.c10d.backend = "nccl";
#ifndef GRAFT_WITH_NCCL
  EXPECT_NE(config_error_of(config).find("use backend=gloo"), std::string::npos);
#else
  GTEST_SKIP() << "built with NCCL";
#endif
}

TEST(C10dExchangeConfig, UnknownBackendIsNamed) {
  graft::graft_config config = graft_test::c10d_config(1, 1, graft_test::free_port());
  config.c10d.backend = "mpi";
  EXPECT_NE(config_error_of(config).find("backend: 'mpi'"), std::string::npos);
}

TEST(C10dExchangeConfig, PortOutOfRangeIsNamed) {
  EXPECT_NE(config_error_of(graft_test::c10d_config(1, 1, 70000)).find("master_port: 70000"), std::string::npos);
  EXPECT_NE(config_error_of(graft_test::c10d_config(1, 1, 0)).find("master_port: 0"), std::string::npos);
}

TEST(C10dExchangeConfig, TimeoutBeyondThirtyDaysIsNamed) {
  EXPECT_NE(config_error_of(graft_test::c10d_config(1, 1, graft_test::free_port(), 1e10))
                .find("timeout_seconds must be more than 0 and at most 2592000 seconds (30 days)"),
            std::string::npos);
}

TEST(C10dExchangeConfig, UnresolvableAddressIsNamed) {
  graft::graft_config config = graft_test::c10d_config(1, 1, graft_test::free_port());
  config.c10d.master_address = "no-such-host.invalid";
  EXPECT_NE(config_error_of(config).find("master_address: 'no-such-host.invalid' does not resolve"),
            std::string::npos);
}

}  // namespace
