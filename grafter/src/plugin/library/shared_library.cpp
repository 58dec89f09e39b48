#include "plugin/library/shared_library.hpp"

#include <dlfcn.h>
#include <link.h>

namespace graft::detail {

std::unique_ptr<shared_library> shared_library::open(const std::string& file, std::string* error) {
  dlerror();  // clear a stale message
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* message = dlerror();
    *error = message != nullptr ? message : "dlopen failed without a message";
    return nullptr;
  }
  std::string path = file;
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0) map = nullptr;
  if (map != nullptr && map->l_name != nullptr && map->l_name[0] != '\0') path = map->l_name;
  return std::unique_ptr<shared_library>(new shared_library(handle, map, std::move(path)));
}

shared_library::~shared_library() { dlclose(handle_); }

void* shared_library::find_own(const std::string& symbol) const {
  void* address = dlsym(handle_, symbol.c_str());
  if (address == nullptr || link_map_ == nullptr) return nullptr;
  // dlsym also searches the library's dependencies; the defining object decides.
  Dl_info info{};
  link_map* owner = nullptr;
  if (dladdr1(address, &info, reinterpret_cast<void**>(&owner), RTLD_DL_LINKMAP) == 0) return nullptr;
  return owner == link_map_ ? address : nullptr;
}

}  // namespace graft::detail
