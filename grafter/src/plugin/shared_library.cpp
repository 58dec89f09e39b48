#include "plugin/shared_library.hpp"

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
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    path = map->l_name;
  }
  return std::unique_ptr<shared_library>(new shared_library(handle, std::move(path)));
}

shared_library::~shared_library() { dlclose(handle_); }

void* shared_library::find(const std::string& symbol) const {
  return dlsym(handle_, symbol.c_str());
}

}  // namespace graft::detail
