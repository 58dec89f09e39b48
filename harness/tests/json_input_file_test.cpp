// Reading a file a user names: its bytes, or an error saying what the path is.
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include <graft/harness/input_file.hpp>

#include "temp_dir.hpp"

namespace graft::harness {
namespace {

using testing::temp_dir;

std::string refusal_of(const std::filesystem::path& path) {
  try {
    read_input_file(path);
  } catch (const unreadable_file& e) {
    return e.what();
  }
  return "";
}

TEST(InputFile, ReadsAFileByteForByte) {
  temp_dir dir;
  const std::string bytes = std::string("{\"a\": 1}\n\0\xff", 11) + std::string(200000, 'x');
  const auto path = dir.write("f.json", bytes);
  EXPECT_EQ(read_input_file(path), bytes);
  EXPECT_EQ(read_input_file(dir.write("empty.json", "")), "");
}

TEST(InputFile, ReadsAPipeLikeAFile) {
  temp_dir dir;
  const auto fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const std::string bytes(300000, 'p');  // more than a pipe holds at once
  std::thread writer([&] { std::ofstream(fifo) << bytes; });
  const std::string read = read_input_file(fifo);
  writer.join();
  EXPECT_EQ(read, bytes);
}

TEST(InputFile, AMissingFileNamesTheSystemsReason) {
  temp_dir dir;
  EXPECT_EQ(refusal_of(dir / "absent.json"), "cannot read the file (No such file or directory)");
  EXPECT_EQ(refusal_of(dir.write("file", "x") / "below"), "cannot read the file (Not a directory)");
}

TEST(InputFile, AFolderADeviceAndASocketAreRefusedUnread) {
  temp_dir dir;
  EXPECT_EQ(refusal_of(dir.path()), "is a folder");
  EXPECT_EQ(refusal_of("/dev/zero"), "is a character device, not a file");

  const auto socket_path = dir / "s";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.string().size(), sizeof address.sun_path);
  std::strcpy(address.sun_path, socket_path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << std::strerror(errno);
  EXPECT_EQ(refusal_of(socket_path), "is a socket, not a file");
  ::close(fd);
}

TEST(InputFile, AFileBeyondTheBoundIsRefused) {
  temp_dir dir;
  const auto path = dir.write("sparse.json", "");
  // Sparse: it takes no disk space.
  std::filesystem::resize_file(path, kMaxInputFileBytes + 1);
  EXPECT_EQ(refusal_of(path), "is larger than 256 MiB, more than any file graft writes or reads");
  std::filesystem::resize_file(path, 0);
  EXPECT_EQ(read_input_file(path), "");
}

TEST(InputFile, APipeBeyondTheBoundIsRefusedOnceItPassesIt) {
  temp_dir dir;
  const auto fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  // The writer outlives its reader: it should see EPIPE, not die of SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  std::thread writer([&] {
    std::ofstream out(fifo);
    const std::string chunk(1 << 20, 'z');
    // Stops when the reader goes away (the write fails) or at twice the bound.
    for (std::uintmax_t sent = 0; out && sent <= 2 * kMaxInputFileBytes; sent += chunk.size()) out << chunk;
  });
  const std::string refusal = refusal_of(fifo);
  writer.join();
  EXPECT_EQ(refusal, "is larger than 256 MiB, more than any file graft writes or reads");
}

}  // namespace
}  // namespace graft::harness
