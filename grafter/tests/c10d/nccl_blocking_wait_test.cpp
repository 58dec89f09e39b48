// nccl_blocking_wait_problem: backend=nccl is refused unless torch's
// ProcessGroupNCCL would read its blocking-wait switch as on, with a message
// that names the variable libtorch reads and how to set it.

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <torch/version.h>

#include <graft/error.hpp>

#include "exchange/c10d/nccl_blocking_wait.hpp"

namespace {

using graft::detail::blocking_wait_names;

constexpr const char* kTorchName = "TORCH_NCCL_BLOCKING_WAIT";
constexpr const char* kNcclName = "NCCL_BLOCKING_WAIT";

// The problem for an environment that holds exactly these variables.
std::optional<std::string> problem_for(const std::map<std::string, std::string>& environment,
                                       blocking_wait_names names) {
  const auto lookup = [&environment](const char* name) -> const char* {
    const auto found = environment.find(name);
    return found == environment.end() ? nullptr : found->second.c_str();
  };
  return graft::detail::nccl_blocking_wait_problem(lookup, names);
}

bool contains(const std::optional<std::string>& problem, const std::string& part) {
  return problem.has_value() && problem->find(part) != std::string::npos;
}

TEST(NcclBlockingWait, OldLibtorchNeedsNcclBlockingWaitOne) {
  EXPECT_EQ(problem_for({{kNcclName, "1"}}, blocking_wait_names::nccl_only), std::nullopt);
  const auto unset = problem_for({}, blocking_wait_names::nccl_only);
  EXPECT_TRUE(contains(unset, "NCCL_BLOCKING_WAIT is unset: set NCCL_BLOCKING_WAIT=1")) << unset.value_or("");
  EXPECT_TRUE(contains(unset, "use backend=gloo")) << unset.value_or("");
  EXPECT_TRUE(contains(problem_for({{kNcclName, "0"}}, blocking_wait_names::nccl_only), "NCCL_BLOCKING_WAIT is '0'"));
}

TEST(NcclBlockingWait, OldLibtorchReadsAnIntegerOnly) {
  const auto word = problem_for({{kNcclName, "true"}}, blocking_wait_names::nccl_only);
  EXPECT_TRUE(contains(word, "NCCL_BLOCKING_WAIT is 'true': set NCCL_BLOCKING_WAIT=1")) << word.value_or("");
}

TEST(NcclBlockingWait, OldLibtorchIgnoresTheTorchName) {
  const auto problem = problem_for({{kTorchName, "1"}}, blocking_wait_names::nccl_only);
  EXPECT_TRUE(contains(problem, "set NCCL_BLOCKING_WAIT=1")) << problem.value_or("");
  EXPECT_TRUE(contains(problem, "reads only NCCL_BLOCKING_WAIT, not TORCH_NCCL_BLOCKING_WAIT"))
      << problem.value_or("");
}

TEST(NcclBlockingWait, NewLibtorchTakesEitherNameAndTorchsWordsForTrue) {
  for (const char* on : {"1", "y", "Yes", "t", "TRUE"}) {
    EXPECT_EQ(problem_for({{kTorchName, on}}, blocking_wait_names::torch_first), std::nullopt) << on;
  }
  EXPECT_EQ(problem_for({{kNcclName, "1"}}, blocking_wait_names::torch_first), std::nullopt);
  const auto unset = problem_for({}, blocking_wait_names::torch_first);
  EXPECT_TRUE(contains(unset, "TORCH_NCCL_BLOCKING_WAIT and NCCL_BLOCKING_WAIT are unset: set "
                              "TORCH_NCCL_BLOCKING_WAIT=1"))
      << unset.value_or("");
  EXPECT_FALSE(contains(unset, "reads only")) << unset.value_or("");
}

TEST(NcclBlockingWait, NewLibtorchLetsTheTorchNameWin) {
  // torch reads TORCH_NCCL_BLOCKING_WAIT first: its "0" turns blocking off
  // whatever NCCL_BLOCKING_WAIT says.
  const auto off = problem_for({{kTorchName, "0"}, {kNcclName, "1"}}, blocking_wait_names::torch_first);
  EXPECT_TRUE(contains(off, "TORCH_NCCL_BLOCKING_WAIT is '0': set TORCH_NCCL_BLOCKING_WAIT=1")) << off.value_or("");
  EXPECT_EQ(problem_for({{kTorchName, "1"}, {kNcclName, "0"}}, blocking_wait_names::torch_first), std::nullopt);
}

TEST(NcclBlockingWait, NamesFollowTheLibtorchVersion) {
  constexpr bool reads_torch_name = TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 2);
  EXPECT_EQ(graft::detail::libtorch_blocking_wait_names(),
            reads_torch_name ? blocking_wait_names::torch_first : blocking_wait_names::nccl_only);
}

// The variable this build's libtorch reads, set (or unset) for one test and
// restored afterwards.
class scoped_blocking_wait {
 public:
  explicit scoped_blocking_wait(const char* value) {
    for (const char* name : {kTorchName, kNcclName}) {
      if (const char* old = std::getenv(name)) saved_[name] = old;
      unsetenv(name);
    }
    if (value != nullptr) setenv(kNcclName, value, 1);
  }
  ~scoped_blocking_wait() {
    unsetenv(kNcclName);
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  std::map<std::string, std::string> saved_;
};

TEST(NcclBlockingWait, RequireReadsThisProcesssEnvironment) {
  {
    const scoped_blocking_wait unset(nullptr);
    EXPECT_THROW(graft::detail::require_nccl_blocking_wait(), graft::config_error);
  }
  {
    const scoped_blocking_wait on("1");
    EXPECT_NO_THROW(graft::detail::require_nccl_blocking_wait());
  }
}

}  // namespace
