#include <graft/harness/path_checks.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace graft::harness {

std::optional<std::string> unstartable_program_reason(const std::filesystem::path& program) {
  std::error_code ec;
  const auto status = std::filesystem::status(program, ec);
  if (!std::filesystem::exists(status)) return "no such file";
  if (!std::filesystem::is_regular_file(status)) return "not a file";
  if (::access(program.c_str(), X_OK) != 0) return std::string("cannot be executed (") + std::strerror(errno) + ")";
  return std::nullopt;
}

std::optional<std::string> unwritable_folder_reason(const std::filesystem::path& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) return "cannot create this folder (" + ec.message() + ")";
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    return std::string("cannot write in this folder (") + std::strerror(errno) + ")";
  }
  return std::nullopt;
}

std::optional<std::string> in_the_way_reason(const std::vector<std::filesystem::path>& folders,
                                             const std::vector<std::filesystem::path>& files) {
  std::error_code ec;
  for (const auto& folder : folders) {
    const auto status = std::filesystem::status(folder, ec);
    if (std::filesystem::exists(status) && !std::filesystem::is_directory(status)) {
      return folder.string() + " is not a folder";
    }
  }
  for (const auto& file : files) {
    if (std::filesystem::is_directory(file, ec)) return file.string() + " is a folder, not a file";
  }
  return std::nullopt;
}

}  // namespace graft::harness
