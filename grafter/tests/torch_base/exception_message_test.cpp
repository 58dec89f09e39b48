#include <graft/exception_message.hpp>

#include <stdexcept>
#include <string>

#include <c10/util/Exception.h>
#include <gtest/gtest.h>

namespace {

// The message of whatever `raise` throws, caught as std::exception.
template <typename Raise>
std::string message_of(Raise raise) {
  try {
    raise();
  } catch (const std::exception& e) {
    return graft::exception_message(e);
  }
  return "(nothing was thrown)";
}

TEST(exception_message, a_libtorch_error_loses_its_backtrace) {
  const std::string message = message_of([] { TORCH_CHECK(false, "the shards disagree: ", 3, " vs ", 4); });
  EXPECT_EQ(message, "the shards disagree: 3 vs 4");
}

TEST(exception_message, a_libtorch_error_with_a_backtrace_in_what_keeps_only_its_text) {
  try {
    TORCH_CHECK(false, "bad value");
  } catch (const c10::Error& e) {
    // The backtrace is there to strip: otherwise the first test proves nothing.
    EXPECT_NE(std::string(e.what()), "bad value");
    EXPECT_EQ(graft::exception_message(e), "bad value");
  }
}

TEST(exception_message, other_exceptions_keep_what) {
  EXPECT_EQ(message_of([] { throw std::runtime_error("disk full"); }), "disk full");
}

}  // namespace
