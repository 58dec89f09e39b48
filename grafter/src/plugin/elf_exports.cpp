#include "plugin/elf_exports.hpp"

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <graft/error.hpp>

namespace graft::detail {
namespace {

// dlopen only loads libraries of the process's own class.
#if UINTPTR_MAX == 0xffffffffu
using elf_ehdr = Elf32_Ehdr;
using elf_shdr = Elf32_Shdr;
using elf_sym = Elf32_Sym;
constexpr unsigned char kElfClass = ELFCLASS32;
inline unsigned char symbol_type(unsigned char info) { return ELF32_ST_TYPE(info); }
inline unsigned char symbol_bind(unsigned char info) { return ELF32_ST_BIND(info); }
inline unsigned char symbol_visibility(unsigned char other) { return ELF32_ST_VISIBILITY(other); }
#else
using elf_ehdr = Elf64_Ehdr;
using elf_shdr = Elf64_Shdr;
using elf_sym = Elf64_Sym;
constexpr unsigned char kElfClass = ELFCLASS64;
inline unsigned char symbol_type(unsigned char info) { return ELF64_ST_TYPE(info); }
inline unsigned char symbol_bind(unsigned char info) { return ELF64_ST_BIND(info); }
inline unsigned char symbol_visibility(unsigned char other) { return ELF64_ST_VISIBILITY(other); }
#endif

[[noreturn]] void unreadable(const std::string& path, const std::string& why) {
  throw plugin_error("cannot list the exports of '" + path + "': " + why);
}

class elf_image {
 public:
  explicit elf_image(const std::string& path) : path_(path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) unreadable(path, "cannot open the file");
    bytes_.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }

  // A copy of the T at offset, after a bounds check (the file may be truncated or hostile).
  template <typename T>
  T read(std::uint64_t offset) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) {
      unreadable(path_, "truncated ELF (offset " + std::to_string(offset) + ")");
    }
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }

  // The NUL-terminated string at offset within [begin, begin + size).
  std::string string_at(std::uint64_t begin, std::uint64_t size, std::uint64_t offset) const {
    if (begin > bytes_.size() || size > bytes_.size() - begin || offset >= size) return {};
    const char* start = bytes_.data() + begin + offset;
    return std::string(start, strnlen(start, size - offset));
  }

 private:
  std::string path_;
  std::vector<char> bytes_;
};

}  // namespace

std::vector<elf_export> read_elf_exports(const std::string& path) {
  const elf_image image(path);
  const auto header = image.read<elf_ehdr>(0);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) unreadable(path, "not an ELF file");
  if (header.e_ident[EI_CLASS] != kElfClass)
    unreadable(path, "ELF class differs from this process");

  std::vector<elf_export> exports;
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    const auto section =
        image.read<elf_shdr>(header.e_shoff + std::uint64_t{i} * header.e_shentsize);
    if (section.sh_type != SHT_DYNSYM || section.sh_entsize == 0) continue;
    const auto strings =
        image.read<elf_shdr>(header.e_shoff + std::uint64_t{section.sh_link} * header.e_shentsize);
    const std::uint64_t count = section.sh_size / section.sh_entsize;
    for (std::uint64_t k = 1; k < count; ++k) {  // entry 0 is the reserved null symbol
      const auto sym = image.read<elf_sym>(section.sh_offset + k * section.sh_entsize);
      const unsigned char bind = symbol_bind(sym.st_info);
      const unsigned char type = symbol_type(sym.st_info);
      const unsigned char visibility = symbol_visibility(sym.st_other);
      if (sym.st_shndx == SHN_UNDEF) continue;
      if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) continue;
      if (visibility != STV_DEFAULT && visibility != STV_PROTECTED) continue;
      if (type == STT_SECTION || type == STT_FILE) continue;
      std::string name = image.string_at(strings.sh_offset, strings.sh_size, sym.st_name);
      if (name.empty()) continue;
      exports.push_back({std::move(name), type == STT_FUNC || type == STT_GNU_IFUNC});
    }
  }
  std::sort(exports.begin(), exports.end(),
            [](const elf_export& a, const elf_export& b) { return a.name < b.name; });
  return exports;
}

}  // namespace graft::detail
