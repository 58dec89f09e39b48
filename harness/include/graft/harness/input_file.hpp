#pragma once
// The whole text of a file a user names: a snapshot, a scenario, a bench
// result. Such a path can be anything: `graft diff /dev/zero x` must be an
// error rather than a read that never ends while it fills memory, and a
// device is not opened at all (opening one can act on it). A pipe, as bash's
// `<(git show HEAD:fixtures/snapshots/x.json)` gives, is read like a file,
// within the same bound.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace graft::harness {

// More than any file graft writes or reads (its snapshots are kilobytes).
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{256} << 20;

// Why a file cannot be read, as a clause for the caller to prefix with the
// path and follow with its own fix: "is a folder", "is a character device,
// not a file", "cannot read the file (No such file or directory)", "is larger
// than 256 MiB, ...".
class unreadable_file : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The file's bytes; throws unreadable_file for a folder, a device or socket,
// a file it cannot open or read, and one longer than kMaxInputFileBytes.
std::string read_input_file(const std::filesystem::path& path);

}  // namespace graft::harness
