// The one replay driver of every fuzz target: runs LLVMFuzzerTestOneInput over the files and
// folders named on the command line (sorted, so runs repeat), so that a gcc build replays each
// target's seed corpus, and any crash reproducer, as a plain test without libFuzzer.
//
//   <target>_replay [--prefixes] FILE_OR_FOLDER...
//
// --prefixes also runs every prefix of every input (truncation is the most common corruption of
// a file). Exits 2 on a usage error or an input that is neither a file nor a folder.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  bool prefixes = false;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--prefixes") == 0) {
      prefixes = true;
      continue;
    }
    std::error_code error;
    if (fs::is_directory(argv[i], error)) {
      for (const fs::directory_entry& entry : fs::directory_iterator(argv[i])) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else if (fs::is_regular_file(argv[i], error)) {
      files.emplace_back(argv[i]);
    } else {
      std::fprintf(stderr, "replay: '%s' is neither a file nor a folder\n", argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s [--prefixes] FILE_OR_FOLDER... (no inputs given)\n", argv[0]);
    return 2;
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "replay: cannot read '%s'\n", file.c_str());
      return 2;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    LLVMFuzzerTestOneInput(data, bytes.size());
    if (prefixes) {
      for (size_t n = 0; n < bytes.size(); ++n) LLVMFuzzerTestOneInput(data, n);
    }
  }
  std::printf("replay: %zu inputs ran%s without a crash\n", files.size(),
              prefixes ? " (and every prefix of each)" : "");
  return 0;
}
