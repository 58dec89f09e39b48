#include <graft/harness/worker_protocol.hpp>

namespace graft::harness {

std::string worker_files::stem() const { return std::string(to_string(side)) + "-" + std::to_string(rank); }

std::string resolve_transform_spec(const std::string& spec, const std::filesystem::path& plugins_dir) {
  const std::size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon == 0) return spec;
  const std::string library = spec.substr(0, colon);
  if (library == "builtin" || library.find_first_of("/.:") != std::string::npos) return spec;
  return (plugins_dir / ("libgraft_" + library + "_transform.so")).string() + spec.substr(colon);
}

}  // namespace graft::harness
