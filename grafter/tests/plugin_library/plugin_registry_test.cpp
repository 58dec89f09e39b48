// The checks every registry passes before its transforms are trusted, on
// registries made here: each refusal is a plugin_load_error of its kind that
// names the library and the fix.

#include <cstddef>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <torch/version.h>

#include <graft/plugin_abi.hpp>
#include <graft/plugin_load_error.hpp>

#include "plugin/library/plugin_registry.hpp"

namespace {

using kind = graft::plugin_load_error_kind;

constexpr const char* kPath = "/plugins/libexample.so";
constexpr const char* kContext = "transform spec '/plugins/libexample.so:a'";

int call_nothing(const graft::graft_transform_input*, at::Tensor*, char*, std::size_t) { return 1; }
int plan_nothing(const graft::graft_transform_input*, graft::graft_plugin_fused_plan*) { return 0; }

// A registry as the macros build it, with two transforms, for each test to spoil.
struct sample_registry {
  std::vector<graft::plugin_registry_entry> entries{{"a", &call_nothing, nullptr},
                                                    {"b", &call_nothing, &plan_nothing}};
  graft::plugin_registry registry{graft::kGraftPluginMagic, graft::kGraftPluginAbiVersion,
                                  sizeof(graft::plugin_registry), TORCH_VERSION, 2, nullptr};

  sample_registry() { registry.entries = entries.data(); }
};

// The error check_plugin_registry throws, after checking its kind and that it
// names the library after the context.
std::string refusal(const graft::plugin_registry* registry, kind expected) {
  try {
    graft::detail::check_plugin_registry(registry, kPath, kContext);
  } catch (const graft::plugin_load_error& e) {
    EXPECT_EQ(e.kind(), expected) << graft::to_string(e.kind()) << ": " << e.what();
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(std::string(kContext) + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(kPath), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "the registry was accepted";
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(plugin_registry, a_sound_registry_is_accepted) {
  const sample_registry sample;
  EXPECT_NO_THROW(graft::detail::check_plugin_registry(&sample.registry, kPath, kContext));
}

TEST(plugin_registry, an_empty_registry_is_accepted) {
  sample_registry sample;
  sample.registry.count = 0;
  sample.registry.entries = nullptr;
  EXPECT_NO_THROW(graft::detail::check_plugin_registry(&sample.registry, kPath, kContext));
}

TEST(plugin_registry, no_registry_is_refused) {
  EXPECT_TRUE(contains(refusal(nullptr, kind::not_a_transform), "returned no registry"));
}

TEST(plugin_registry, wrong_magic_is_refused) {
  sample_registry sample;
  sample.registry.magic = 0x1234;
  const std::string message = refusal(&sample.registry, kind::not_a_transform);
  EXPECT_TRUE(contains(message, "magic 0x0000000000001234, expected 0x475241465458464d")) << message;
  EXPECT_TRUE(contains(message, "registration macros of <graft/plugin.hpp>")) << message;
}

TEST(plugin_registry, another_abi_version_is_refused_naming_both) {
  for (const std::uint32_t version : {1u, 3u}) {
    sample_registry sample;
    sample.registry.abi_version = version;
    const std::string message = refusal(&sample.registry, kind::abi_mismatch);
    EXPECT_TRUE(contains(message, "'" + std::string(kPath) + "' was built for plugin ABI " +
                                      std::to_string(version) + ", but this graft speaks plugin ABI 2"))
        << message;
    EXPECT_TRUE(contains(message, "rebuild the plugin against this graft's <graft/plugin.hpp>")) << message;
  }
}

TEST(plugin_registry, a_registry_smaller_than_abi_2s_is_refused) {
  sample_registry sample;
  sample.registry.struct_size = 16;
  const std::string message = refusal(&sample.registry, kind::abi_mismatch);
  EXPECT_TRUE(contains(message, "is 16 bytes, fewer than the " +
                                    std::to_string(sizeof(graft::plugin_registry))))
      << message;
}

// A later compatible version may append fields.
TEST(plugin_registry, a_larger_registry_is_accepted) {
  sample_registry sample;
  sample.registry.struct_size = sizeof(graft::plugin_registry) + 16;
  EXPECT_NO_THROW(graft::detail::check_plugin_registry(&sample.registry, kPath, kContext));
}

TEST(plugin_registry, another_libtorch_minor_release_is_refused_naming_both) {
  sample_registry sample;
  sample.registry.torch_version = "0.4.1";
  const std::string message = refusal(&sample.registry, kind::abi_mismatch);
  EXPECT_TRUE(contains(message, "built against libtorch 0.4.1")) << message;
  EXPECT_TRUE(contains(message, std::string("this graft uses libtorch ") + TORCH_VERSION)) << message;

  sample.registry.torch_version = nullptr;
  EXPECT_TRUE(contains(refusal(&sample.registry, kind::abi_mismatch), "built against libtorch (none)"));
}

TEST(plugin_registry, another_libtorch_patch_release_is_accepted) {
  sample_registry sample;
  const std::string patched =
      std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + ".99";
  sample.registry.torch_version = patched.c_str();
  EXPECT_NO_THROW(graft::detail::check_plugin_registry(&sample.registry, kPath, kContext));
}

TEST(plugin_registry, a_count_without_entries_is_refused) {
  sample_registry sample;
  sample.registry.entries = nullptr;
  EXPECT_TRUE(contains(refusal(&sample.registry, kind::not_a_transform), "counts 2 transforms but has no entries"));
}

TEST(plugin_registry, an_entry_without_a_name_or_a_function_is_refused) {
  sample_registry nameless;
  nameless.entries[1].name = nullptr;
  EXPECT_TRUE(contains(refusal(&nameless.registry, kind::not_a_transform), "entry 1 of the registry"));
  sample_registry blank;
  blank.entries[0].name = "";
  EXPECT_TRUE(contains(refusal(&blank.registry, kind::not_a_transform), "entry 0 of the registry"));
  sample_registry functionless;
  functionless.entries[1].call = nullptr;
  EXPECT_TRUE(contains(refusal(&functionless.registry, kind::not_a_transform),
                       "transform 'b' in the registry of '/plugins/libexample.so' has no function"));
}

TEST(plugin_registry, a_name_registered_twice_is_refused) {
  sample_registry sample;
  sample.entries[1].name = "a";
  const std::string message = refusal(&sample.registry, kind::not_a_transform);
  EXPECT_TRUE(contains(message, "registers transform 'a' twice")) << message;
  EXPECT_TRUE(contains(message, "its own SYMBOL")) << message;
}

}  // namespace
