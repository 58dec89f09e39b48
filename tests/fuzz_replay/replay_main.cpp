// Replays a fuzz target's corpus (fuzz/corpus/PARSER/) through it, built with
// the project's own compiler and without libFuzzer, so that every build runs
// the inputs that once crashed a parser, not only the clang fuzz build.
//
//   graft_fuzz_replay_PARSER DIR...
//
// A finding aborts, as under libFuzzer; exit 0 names how many inputs ran,
// and an empty or unreadable corpus is a failure, not a pass.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    std::vector<std::filesystem::path> inputs;
    for (std::filesystem::directory_iterator it(argv[i], ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file()) inputs.push_back(it->path());
    }
    if (ec) {
      std::cerr << argv[i] << ": cannot read this corpus folder: " << ec.message() << "\n";
      return 1;
    }
    for (const auto& input : inputs) {
      std::ifstream in(input, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!in.good() && !in.eof()) {
        std::cerr << input.string() << ": cannot read\n";
        return 1;
      }
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::cerr << "no input replayed: name one or more corpus folders that hold inputs\n";
    return 1;
  }
  std::cout << "replayed " << replayed << " inputs\n";
  return 0;
}
