#include <graft/harness/device_needs.hpp>

#include <fstream>
#include <vector>

#include <graft/error.hpp>
#include <graft/harness/process.hpp>

namespace graft::harness {

device_inventory device_inventory_from_json(const nlohmann::json& answer) {
  const auto flag = [&](const char* key) {
    if (!answer.is_object() || !answer.contains(key) || !answer[key].is_boolean()) {
      GRAFT_THROW(error, std::string("the worker's device answer lacks \"") + key + "\" (true or false): " +
                             answer.dump() + "; rebuild graft_worker together with graft");
    }
    return answer[key].get<bool>();
  };
  if (!answer.is_object() || answer.value("schema_version", 0) != kDeviceAnswerSchemaVersion) {
    GRAFT_THROW(error, "the worker's device answer is not schema_version " +
                           std::to_string(kDeviceAnswerSchemaVersion) + ": " + answer.dump() +
                           "; rebuild graft_worker together with graft");
  }
  device_inventory have;
  have.cuda_built = flag("cuda_built");
  have.nccl_built = flag("nccl_built");
  if (!answer.contains("cuda_devices") || !answer["cuda_devices"].is_number_integer() ||
      answer["cuda_devices"].get<int>() < 0) {
    GRAFT_THROW(error, "the worker's device answer lacks \"cuda_devices\" (an integer >= 0): " + answer.dump() +
                           "; rebuild graft_worker together with graft");
  }
  have.cuda_devices = answer["cuda_devices"].get<int>();
  return have;
}

std::optional<std::string> unmet_device_needs(const scenario& s, const device_inventory& have) {
  const int cuda_ranks = s.cuda_ranks();
  if (cuda_ranks == 0) return std::nullopt;
  if (!have.cuda_built) {
    return "needs CUDA (" + std::to_string(cuda_ranks) + " rank" + (cuda_ranks == 1 ? "" : "s") +
           " on \"cuda\"), and this graft was built against a CPU-only libtorch; build against a CUDA libtorch "
           "(ci/gpu-check.sh) to run it";
  }
  if (have.cuda_devices == 0) {
    return "needs a CUDA device: none visible (torch.cuda device_count 0); run it on a machine with one";
  }
  if (s.backend() != "nccl") return std::nullopt;
  if (!have.nccl_built) {
    return "backend nccl, and this graft was built without NCCL (CMake found no nccl.h); rebuild with "
           "GRAFT_NCCL_INCLUDE_DIR set to the folder holding nccl.h";
  }
  if (cuda_ranks > have.cuda_devices) {
    return "backend nccl needs a CUDA device per CUDA rank (NCCL refuses two ranks of one group on one device): " +
           std::to_string(cuda_ranks) + " CUDA ranks, " + std::to_string(have.cuda_devices) + " device" +
           (have.cuda_devices == 1 ? "" : "s") + " visible";
  }
  return std::nullopt;
}

device_inventory probe_devices(const std::filesystem::path& worker, const std::filesystem::path& folder,
                               std::chrono::seconds limit) {
  std::filesystem::create_directories(folder);
  const std::filesystem::path answer_path = folder / "devices.json";
  const std::filesystem::path log = folder / "devices.log";
  std::filesystem::remove(answer_path);
  std::vector<child_process> probe;
  probe.emplace_back(std::vector<std::string>{worker.string(), "--probe-devices", answer_path.string()},
                     environment_without({"GRAFT_PLUGIN_PATH"}), log);
  const bool in_time = wait_all(probe, std::chrono::steady_clock::now() + limit);
  if (!in_time) probe.front().kill();
  const std::string status = probe.front().describe_status();
  std::ifstream in(answer_path);
  const nlohmann::json answer = in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json();
  if (!in_time || status != "exit 0" || answer.is_discarded() || answer.is_null()) {
    GRAFT_THROW(error, "asking " + worker.string() + " --probe-devices which CUDA devices it sees failed (" +
                           (in_time ? status : "still running after " + std::to_string(limit.count()) + " s") +
                           "); its log " + log.string() + " ends:\n" + tail_of_file(log, 15));
  }
  return device_inventory_from_json(answer);
}

}  // namespace graft::harness
