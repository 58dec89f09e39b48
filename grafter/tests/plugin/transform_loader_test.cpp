// load_transform against the real sample plugins of fixtures/transforms.

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft/error.hpp>
#include <graft/plugin_library.hpp>
#include <graft/transform_loader.hpp>
#include <graft_test/tensor_checks.hpp>

#include "transform_input.hpp"

namespace {

using graft_test::transform_call;
using graft_test::values;
using kind = graft::plugin_load_error_kind;

std::string spec(const char* library, const char* symbol) {
  return std::string(library) + ":" + symbol;
}

// The error load_transform throws for spec, after checking its kind.
std::string load_error(const std::string& spec, kind expected) {
  try {
    graft::load_transform(spec);
  } catch (const graft::plugin_load_error& e) {
    EXPECT_EQ(e.kind(), expected) << graft::to_string(e.kind()) << ": " << e.what();
    return e.what();
  }
  ADD_FAILURE() << spec << " loaded";
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Sets an environment variable for one test, restoring it afterwards.
class scoped_env {
 public:
  scoped_env(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~scoped_env() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(transform_loader, double_plugin_doubles_own_rank) {
  const graft::transform t = graft::load_transform(spec(GRAFT_TEST_PLUGIN_DOUBLE, "double_it"));
  EXPECT_EQ(t.name, "double_it");
  const transform_call call(at::zeros({3}),
                            {at::tensor({1.0, 2.0, 3.0}), at::tensor({4.0, 5.0, 6.0})}, 1, 2);
  EXPECT_EQ(values(call.run(t)), (std::vector<double>{8, 10, 12}));
}

TEST(transform_loader, extras_reach_the_plugin) {
  const graft::transform t =
      graft::load_transform(spec(GRAFT_TEST_PLUGIN_USES_EXTRAS, "uses_extras"));
  transform_call call(at::zeros({3}), {at::ones({3})}, 0, 1);
  call.extras = {nlohmann::json::object({{"fill_value", 42.0}})};
  EXPECT_EQ(values(call.run(t)), (std::vector<double>{42, 42, 42}));
}

TEST(transform_loader, concat_all_with_mixed_shapes) {
  const graft::transform t =
      graft::load_transform(spec(GRAFT_TEST_PLUGIN_CONCAT_ALL, "concat_all"));
  std::vector<at::Tensor> received;
  for (int i = 0; i < 4; ++i) received.push_back(at::full({i + 1}, static_cast<double>(i)));
  const transform_call call(at::zeros({10}), received, 0, 2);
  EXPECT_EQ(values(call.run(t)), (std::vector<double>{0, 1, 1, 2, 2, 2, 3, 3, 3, 3}));
}

TEST(transform_loader, throwing_plugin_becomes_transform_error_with_its_message) {
  const graft::transform t = graft::load_transform(spec(GRAFT_TEST_PLUGIN_THROWS, "throws"));
  const transform_call call(at::zeros({3}), {at::ones({3})}, 0, 1);
  try {
    call.run(t);
    FAIL() << "no error";
  } catch (const graft::transform_error& e) {
    EXPECT_TRUE(contains(e.what(), "intentional test error from user transform")) << e.what();
    EXPECT_TRUE(contains(e.what(), ":throws")) << e.what();
  }
}

TEST(transform_loader, libtorch_error_crosses_without_backtrace) {
  const graft::transform t = graft::load_transform(spec(GRAFT_TEST_PLUGIN_THROWS, "torch_error"));
  const transform_call call(at::zeros({3}), {at::ones({3})}, 0, 1);
  try {
    call.run(t);
    FAIL() << "no error";
  } catch (const graft::transform_error& e) {
    EXPECT_TRUE(contains(e.what(), "Dimension out of range")) << e.what();
    EXPECT_FALSE(contains(e.what(), "Exception raised from")) << e.what();
  }
}

TEST(transform_loader, wrong_shape_is_returned_as_is) {
  const graft::transform t =
      graft::load_transform(spec(GRAFT_TEST_PLUGIN_WRONG_SHAPE, "wrong_shape"));
  const transform_call call(at::zeros({3}), {at::ones({3})}, 0, 1);
  EXPECT_EQ(call.run(t).sizes(), at::IntArrayRef({99}));
}

// The counting transform returns [library loads, calls so far].
TEST(transform_loader, loaded_once_and_cached) {
  const std::string count = spec(GRAFT_TEST_PLUGIN_COUNTING, "count");
  const graft::transform first = graft::load_transform(count);
  const graft::transform second = graft::load_transform(count);
  const transform_call call(at::zeros({2}), {at::zeros({2})}, 0, 1);
  at::Tensor out;
  for (int i = 0; i < 100; ++i) out = call.run(i % 2 == 0 ? first : second);
  EXPECT_EQ(values(out), (std::vector<double>{1, 100}));
}

TEST(transform_loader, library_unloads_when_the_last_transform_goes) {
  const std::string count = spec(GRAFT_TEST_PLUGIN_COUNTING, "count");
  const transform_call call(at::zeros({2}), {at::zeros({2})}, 0, 1);
  {
    const graft::transform t = graft::load_transform(count);
    call.run(t);
    EXPECT_EQ(values(call.run(t))[1], 2);
  }
  // A fresh load runs the library's initialisers again: its call count restarts.
  const graft::transform again = graft::load_transform(count);
  EXPECT_EQ(values(call.run(again)), (std::vector<double>{1, 1}));
}

TEST(transform_loader, transform_outlives_its_copies_and_keeps_the_library) {
  graft::transform kept{"", nullptr};
  {
    const graft::transform t = graft::load_transform(spec(GRAFT_TEST_PLUGIN_DOUBLE, "double_it"));
    kept = t;
  }
  const transform_call call(at::zeros({1}), {at::ones({1})}, 0, 1);
  EXPECT_EQ(values(call.run(kept)), (std::vector<double>{2}));
}

TEST(transform_loader, bare_name_found_through_graft_plugin_path) {
  const scoped_env path(graft::kGraftPluginPathEnv,
                        std::string("/nonexistent-graft-dir::") + GRAFT_TEST_PLUGIN_DIR);
  const graft::transform t = graft::load_transform("libgraft_double_transform.so:double_it");
  const transform_call call(at::zeros({1}), {at::full({1}, 5.0)}, 0, 1);
  EXPECT_EQ(values(call.run(t)), (std::vector<double>{10}));
}

TEST(transform_loader, library_not_found_lists_what_was_searched) {
  const scoped_env path(graft::kGraftPluginPathEnv,
                        "/nonexistent-graft-dir-a:/nonexistent-graft-dir-b");
  const std::string message =
      load_error("libno_such_graft_transform.so:double_it", kind::library_not_found);
  EXPECT_TRUE(contains(message, "'libno_such_graft_transform.so' not found")) << message;
  EXPECT_TRUE(contains(message, "cannot open shared object file")) << message;  // dlerror()
  EXPECT_TRUE(contains(message, "[/nonexistent-graft-dir-a, /nonexistent-graft-dir-b]")) << message;
  EXPECT_TRUE(contains(message, "LD_LIBRARY_PATH")) << message;
}

TEST(transform_loader, missing_path_is_library_not_found) {
  const std::string message =
      load_error("/nonexistent-graft-dir/libx.so:double_it", kind::library_not_found);
  EXPECT_TRUE(contains(message, "/nonexistent-graft-dir/libx.so")) << message;
  EXPECT_TRUE(contains(message, "No such file")) << message;
}

TEST(transform_loader, file_that_is_not_a_library_is_library_not_found) {
  const std::string path = ::testing::TempDir() + "graft_not_a_library.so";
  std::ofstream(path) << "not an ELF file\n";
  const std::string message = load_error(path + ":double_it", kind::library_not_found);
  EXPECT_TRUE(contains(message, "cannot load library")) << message;
  EXPECT_TRUE(contains(message, "graft_not_a_library.so")) << message;
  std::remove(path.c_str());
}

// dlopen would block on a FIFO until something writes to it: a grafter that
// never starts. Such paths are refused before dlopen sees them.
TEST(transform_loader, a_path_that_is_no_file_is_refused_before_dlopen) {
  const std::string fifo = ::testing::TempDir() + "graft_transform_fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(contains(load_error(fifo + ":double_it", kind::library_not_found),
                       "'" + fifo + "' is a FIFO, not a shared library"));
  std::remove(fifo.c_str());
  EXPECT_TRUE(contains(load_error("/dev/zero:double_it", kind::library_not_found),
                       "'/dev/zero' is a device, not a shared library"));
  EXPECT_TRUE(contains(load_error("/tmp/:double_it", kind::library_not_found),
                       "'/tmp/' is a folder, not a shared library"));
}

TEST(transform_loader, symbol_not_found_lists_the_registered_transforms) {
  const std::string message =
      load_error(spec(GRAFT_TEST_PLUGIN_THROWS, "no_such_symbol"), kind::symbol_not_found);
  EXPECT_TRUE(contains(message, std::string("'") + GRAFT_TEST_PLUGIN_THROWS +
                                    "' has no transform named 'no_such_symbol'"))
      << message;
  EXPECT_TRUE(contains(message, "it has: throws, torch_error")) << message;
}

TEST(transform_loader, symbol_of_a_dependency_is_not_found) {
  // malloc is visible through the library's dependencies but is not its own.
  const std::string message =
      load_error(spec(GRAFT_TEST_PLUGIN_DOUBLE, "malloc"), kind::symbol_not_found);
  EXPECT_TRUE(contains(message, "it has: double_it")) << message;
}

TEST(transform_loader, exported_but_unregistered_function_is_not_a_transform) {
  const std::string message = load_error(spec(GRAFT_TEST_PLUGIN_COUNTING, "graft_counting_calls"),
                                         kind::not_a_transform);
  EXPECT_TRUE(contains(message, "'graft_counting_calls' is exported by")) << message;
  EXPECT_TRUE(contains(message, "GRAFT_REGISTER_TRANSFORM(graft_counting_calls, function)")) << message;
  EXPECT_TRUE(contains(message, "it has: count")) << message;
}

TEST(transform_loader, library_without_a_registry_is_no_plugin) {
  const std::string plain =
      load_error(spec(GRAFT_TEST_PLUGIN_NOT_A_TRANSFORM, "plain_function"), kind::not_a_transform);
  EXPECT_TRUE(contains(plain, "'plain_function' is exported by")) << plain;
  EXPECT_TRUE(contains(plain, "it exports no graft_plugin_registry")) << plain;
  EXPECT_TRUE(contains(plain, "GRAFT_REGISTER_TRANSFORM(plain_function, function)")) << plain;

  const std::string absent =
      load_error(spec(GRAFT_TEST_PLUGIN_NOT_A_TRANSFORM, "nothing_here"), kind::not_a_transform);
  EXPECT_TRUE(contains(absent, std::string("'") + GRAFT_TEST_PLUGIN_NOT_A_TRANSFORM +
                                   "' is no graft plugin: it exports no graft_plugin_registry"))
      << absent;
}

TEST(transform_loader, abi_version_mismatch_names_both_versions) {
  const std::string message =
      load_error(spec(GRAFT_TEST_PLUGIN_WRONG_ABI, "wrong_abi"), kind::abi_mismatch);
  EXPECT_TRUE(contains(message, std::string("'") + GRAFT_TEST_PLUGIN_WRONG_ABI +
                                    "' was built for plugin ABI 999, but this graft speaks plugin ABI 2"))
      << message;
  EXPECT_TRUE(contains(message, "rebuild the plugin against this graft's <graft/plugin.hpp>")) << message;
}

TEST(transform_loader, plugin_built_for_abi_1_is_refused_with_a_rebuild_request) {
  const std::string message =
      load_error(spec(GRAFT_TEST_PLUGIN_OLD_ABI, "old_double"), kind::abi_mismatch);
  EXPECT_TRUE(contains(message, std::string("'") + GRAFT_TEST_PLUGIN_OLD_ABI +
                                    "' was built for plugin ABI 1 (it exports 'graft_transform_old_double'"))
      << message;
  EXPECT_TRUE(contains(message, "rebuild the plugin against this graft's <graft/plugin.hpp>")) << message;
  // Without an ABI 1 entry for the name asked, the message still names ABI 1.
  const std::string other = load_error(spec(GRAFT_TEST_PLUGIN_OLD_ABI, "other"), kind::not_a_transform);
  EXPECT_TRUE(contains(other, "built for plugin ABI 1")) << other;
  EXPECT_TRUE(contains(other, "rebuilt against this graft")) << other;
}

// arithmetic registers add_one and triple from two source files.
TEST(transform_loader, one_registry_holds_the_transforms_of_every_source_file) {
  const graft::transform add_one = graft::load_transform(spec(GRAFT_TEST_PLUGIN_ARITHMETIC, "add_one"));
  const graft::transform triple = graft::load_transform(spec(GRAFT_TEST_PLUGIN_ARITHMETIC, "triple"));
  const transform_call call(at::zeros({2}), {at::tensor({1.0, 2.0}), at::tensor({3.0, 4.0})}, 1, 2);
  EXPECT_EQ(values(call.run(add_one)), (std::vector<double>{4, 5}));
  EXPECT_EQ(values(call.run(triple)), (std::vector<double>{9, 12}));

  const graft::plugin_library_info info = graft::inspect_plugin_library(GRAFT_TEST_PLUGIN_ARITHMETIC);
  ASSERT_EQ(info.transforms.size(), 2u);
  EXPECT_EQ(info.transforms[0].name, "add_one");
  EXPECT_EQ(info.transforms[1].name, "triple");
}

TEST(transform_loader, fused_plan_crosses_only_where_registered) {
  const graft::transform add_one = graft::load_transform(spec(GRAFT_TEST_PLUGIN_ARITHMETIC, "add_one"));
  const graft::transform triple = graft::load_transform(spec(GRAFT_TEST_PLUGIN_ARITHMETIC, "triple"));
  EXPECT_FALSE(static_cast<bool>(add_one.plan));
  ASSERT_TRUE(static_cast<bool>(triple.plan));
  const transform_call call(at::zeros({2}), {at::ones({2}), at::ones({2})}, 1, 2);
  const std::optional<graft::fused_plan> plan = triple.plan(call.input());
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->source, 1u);
  EXPECT_EQ(plan->scale, 3.0);
}

// Both libraries export every symbol: were a registry's list one object per
// process, the second library loaded would register into the first's.
TEST(transform_loader, two_plugins_in_one_process_keep_their_own_registries) {
  const graft::transform add_one = graft::load_transform(spec(GRAFT_TEST_PLUGIN_ARITHMETIC, "add_one"));
  const graft::transform concat = graft::load_transform(spec(GRAFT_TEST_PLUGIN_CONCAT_ALL, "concat_all"));
  const graft::transform dbl = graft::load_transform(spec(GRAFT_TEST_PLUGIN_DOUBLE, "double_it"));
  const auto names = [](const char* library) {
    std::vector<std::string> out;
    for (const auto& t : graft::inspect_plugin_library(library).transforms) out.push_back(t.name);
    return out;
  };
  EXPECT_EQ(names(GRAFT_TEST_PLUGIN_ARITHMETIC), (std::vector<std::string>{"add_one", "triple"}));
  EXPECT_EQ(names(GRAFT_TEST_PLUGIN_CONCAT_ALL), (std::vector<std::string>{"concat_all"}));
  EXPECT_EQ(names(GRAFT_TEST_PLUGIN_DOUBLE), (std::vector<std::string>{"double_it"}));
  const transform_call call(at::zeros({2}), {at::ones({1}), at::full({1}, 5.0)}, 0, 2);
  EXPECT_EQ(values(call.run(add_one)), (std::vector<double>{2}));
  EXPECT_EQ(values(call.run(concat)), (std::vector<double>{1, 5}));
  EXPECT_EQ(values(call.run(dbl)), (std::vector<double>{2}));
}

}  // namespace
