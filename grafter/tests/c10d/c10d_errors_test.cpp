// rethrow_as_graft_error: what libtorch's c10d and Gloo throw becomes a graft
// error of the right type, with the context and fix around the bare message.

#include <stdexcept>
#include <string>
#include <typeinfo>

#include <c10/util/Exception.h>
#include <gtest/gtest.h>
#include <torch/csrc/distributed/c10d/exception.h>
#include <torch/version.h>

#include <graft/error.hpp>

#include "exchange/c10d/c10d_errors.hpp"

namespace {

constexpr const char* context = "recv 'layer.0' from rank 1";
constexpr const char* fix = "Raise timeout_s";

struct converted {
  const std::type_info* type = nullptr;
  std::string what;
};

// What rethrow_as_graft_error makes of the exception throw_it throws.
template <typename Thrower>
converted convert(Thrower throw_it) {
  try {
    try {
      throw_it();
    } catch (...) {
      graft::detail::rethrow_as_graft_error(context, fix);
    }
  } catch (const graft::error& e) {
    return {&typeid(e), e.what()};
  }
  ADD_FAILURE() << "nothing was thrown";
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(c10d_errors, c10_error_becomes_an_exchange_error_without_its_backtrace) {
  const converted c = convert([] { TORCH_CHECK(false, "Connection reset by peer"); });
  EXPECT_EQ(*c.type, typeid(graft::exchange_error));
  EXPECT_EQ(c.what, std::string(context) + ": Connection reset by peer. " + fix);
  EXPECT_FALSE(contains(c.what, "Exception raised from")) << c.what;
}

TEST(c10d_errors, c10_error_that_reads_as_a_timeout_becomes_a_timeout_error) {
  const converted c = convert([] { TORCH_CHECK(false, "Operation timed out!"); });
  EXPECT_EQ(*c.type, typeid(graft::timeout_error));
  EXPECT_EQ(c.what, std::string(context) + ": Operation timed out! " + fix);
}

TEST(c10d_errors, c10d_timeout_error_becomes_a_timeout_error_without_a_backtrace) {
  const converted c = convert([] {
#if TORCH_VERSION_MAJOR >= 2
    C10D_THROW_ERROR(TimeoutError, "Wait timeout after 2000ms");
#else
    throw c10d::TimeoutError("Wait timeout after 2000ms");
#endif
  });
  EXPECT_EQ(*c.type, typeid(graft::timeout_error));
  EXPECT_EQ(c.what, std::string(context) + ": Wait timeout after 2000ms. " + fix);
}

TEST(c10d_errors, gloo_style_timeout_text_becomes_a_timeout_error) {
  const converted c = convert([] { throw std::runtime_error("Timed out waiting 2000ms for recv operation to complete"); });
  EXPECT_EQ(*c.type, typeid(graft::timeout_error));
  EXPECT_TRUE(contains(c.what, "Timed out waiting 2000ms")) << c.what;
}

TEST(c10d_errors, other_std_exception_becomes_an_exchange_error_with_trailing_punctuation_trimmed) {
  const converted c = convert([] { throw std::runtime_error("peer closed the socket.\n"); });
  EXPECT_EQ(*c.type, typeid(graft::exchange_error));
  EXPECT_EQ(c.what, std::string(context) + ": peer closed the socket. " + fix);
}

TEST(c10d_errors, graft_error_passes_unchanged) {
  const converted c = convert([] { throw graft::desync_error("rank 1 sent 'b' where rank 0 expected 'a'"); });
  EXPECT_EQ(*c.type, typeid(graft::desync_error));
  EXPECT_EQ(c.what, "rank 1 sent 'b' where rank 0 expected 'a'");
}

TEST(c10d_errors, unknown_exception_becomes_an_exchange_error) {
  const converted c = convert([] { throw 42; });
  EXPECT_EQ(*c.type, typeid(graft::exchange_error));
  EXPECT_EQ(c.what, std::string(context) + ": an unknown exception. " + fix);
}

}  // namespace
