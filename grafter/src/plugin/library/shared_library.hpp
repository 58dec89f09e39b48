#pragma once
// An open shared library (dlopen handle) as an RAII object. The only code that
// talks to the dynamic loader; everything else sees paths, names and addresses.

#include <memory>
#include <string>
#include <utility>

namespace graft::detail {

class shared_library {
 public:
  // Opens file (a path, or a bare name searched by dlopen) with every symbol
  // bound now, so a missing dependency fails here and not mid-run. Returns
  // nullptr and sets *error to dlerror()'s text on failure.
  static std::unique_ptr<shared_library> open(const std::string& file, std::string* error);

  ~shared_library();
  shared_library(const shared_library&) = delete;
  shared_library& operator=(const shared_library&) = delete;

  // The address of the symbol this library itself defines, or nullptr when
  // only one of its dependencies (or nothing) does: a plugin's registry and
  // names are its own, never those of a library it links.
  void* find_own(const std::string& symbol) const;
  // The file the dynamic loader actually opened.
  const std::string& path() const { return path_; }

 private:
  shared_library(void* handle, const void* link_map, std::string path)
      : handle_(handle), link_map_(link_map), path_(std::move(path)) {}

  void* handle_;
  const void* link_map_;  // the dynamic loader's record of this library
  std::string path_;
};

}  // namespace graft::detail
