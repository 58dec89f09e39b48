#include <graft/harness/input_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace graft::harness {
namespace {

[[noreturn]] void refuse(const std::string& why) { throw unreadable_file(why); }

[[noreturn]] void refuse_errno(int error) {
  refuse(std::string("cannot read the file (") + std::strerror(error) + ")");
}

[[noreturn]] void refuse_too_large() {
  refuse("is larger than " + std::to_string(kMaxInputFileBytes >> 20) +
         " MiB, more than any file graft writes or reads");
}

// Only regular files and pipes are read; the rest is refused before open().
void check_kind(const struct stat& info) {
  if (S_ISDIR(info.st_mode)) refuse("is a folder");
  if (S_ISCHR(info.st_mode)) refuse("is a character device, not a file");
  if (S_ISBLK(info.st_mode)) refuse("is a block device, not a file");
  if (S_ISSOCK(info.st_mode)) refuse("is a socket, not a file");
  if (S_ISREG(info.st_mode) && static_cast<std::uintmax_t>(info.st_size) > kMaxInputFileBytes) refuse_too_large();
}

class file_descriptor {
 public:
  explicit file_descriptor(int fd) : fd_(fd) {}
  ~file_descriptor() { ::close(fd_); }
  file_descriptor(const file_descriptor&) = delete;
  file_descriptor& operator=(const file_descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string read_input_file(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) refuse_errno(errno);
  check_kind(info);

  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) refuse_errno(errno);
  const file_descriptor file(fd);
  // The path may have been replaced between stat() and open().
  if (::fstat(file.get(), &info) != 0) refuse_errno(errno);
  check_kind(info);

  std::string text;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.get(), chunk, sizeof chunk);
    if (n == 0) return text;
    if (n < 0) {
      if (errno == EINTR) continue;
      refuse_errno(errno);
    }
    if (text.size() + static_cast<std::size_t>(n) > kMaxInputFileBytes) refuse_too_large();
    text.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace graft::harness
