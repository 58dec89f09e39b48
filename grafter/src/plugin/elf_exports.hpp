#pragma once
// The symbols a shared library itself exports, read from its ELF .dynsym.
// The loader uses them to tell "not exported" from "exported but not a
// function" from "defined only in a dependency", and to list what a library
// does offer when the requested symbol is missing.

#include <string>
#include <vector>

namespace graft::detail {

struct elf_export {
  std::string name;
  bool is_function;  // STT_FUNC / STT_GNU_IFUNC; otherwise data
};

// The defined, globally visible dynamic symbols of the ELF file at path,
// sorted by name. Throws plugin_error when the file cannot be read as ELF of
// this machine's class.
std::vector<elf_export> read_elf_exports(const std::string& path);

}  // namespace graft::detail
