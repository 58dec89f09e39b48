#include <iostream>

#include <graft/plugin_library.hpp>

#include "cli/commands.hpp"

namespace graft::harness::cli {

int plugins_command(const std::string& library) {
  plugin_library_info info;
  try {
    info = inspect_plugin_library(library);
  } catch (const plugin_load_error& e) {
    std::cerr << "graft plugins: " << e.what() << "\n";
    return 2;
  }
  const std::size_t n = info.transforms.size();
  std::cout << info.path << ": plugin ABI " << info.abi_version << ", built against libtorch "
            << info.torch_version << ", " << n << (n == 1 ? " transform" : " transforms") << "\n";
  for (const plugin_transform_info& t : info.transforms) {
    std::cout << t.name << (t.fused_plan ? "  [fused plan]" : "  [no fused plan]") << "\n";
  }
  return 0;
}

}  // namespace graft::harness::cli
