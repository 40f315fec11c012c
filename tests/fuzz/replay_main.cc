// The replay driver of the fuzz targets in the gcc presets (no libFuzzer):
// runs LLVMFuzzerTestOneInput once over every file of the directories (and
// the files) given, so that CTest replays the seed corpus and every crash
// kept under regressions/ on each build. A finding aborts, as under
// libFuzzer; the sanitizers of the asan preset apply.
//
//   <name>_replay DIR_OR_FILE...
//
// Exits 1 when a path does not exist or no input was found, so that a
// misspelt corpus path cannot pass by replaying nothing.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

// The files to replay under `path`, sorted so that runs are repeatable.
bool CollectInputs(const fs::path& path, std::vector<fs::path>* inputs) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    inputs->push_back(path);
    return true;
  }
  if (!fs::is_directory(path, ec)) {
    std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", path.c_str());
    return false;
  }
  std::vector<fs::path> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(path, ec)) {
    if (entry.is_regular_file()) found.push_back(entry.path());
  }
  if (ec) {
    std::fprintf(stderr, "replay: cannot list %s: %s\n", path.c_str(), ec.message().c_str());
    return false;
  }
  std::sort(found.begin(), found.end());
  inputs->insert(inputs->end(), found.begin(), found.end());
  return true;
}

// Runs one input from a buffer of exactly its size (as libFuzzer does), so
// that ASan reports a read past its end.
bool Replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  auto data = std::make_unique<uint8_t[]>(bytes.size());
  std::copy(bytes.begin(), bytes.end(), data.get());
  std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
  LLVMFuzzerTestOneInput(data.get(), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (!CollectInputs(argv[i], &inputs)) return 1;
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no input files in the paths given\n");
    return 1;
  }
  for (const fs::path& file : inputs) {
    if (!Replay(file)) return 1;
  }
  std::fprintf(stderr, "replay: %zu inputs, no finding\n", inputs.size());
  return 0;
}
