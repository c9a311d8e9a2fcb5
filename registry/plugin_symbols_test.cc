// Checks that no plugin leaves a TSR_ or tessera symbol undefined (a plugin never links against
// the host; everything arrives through TSR_HostApi).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> PluginLibraries() {
  std::vector<fs::path> libraries;
  for (absl::string_view dir : absl::StrSplit(TESSERA_PLUGIN_DIRS, ':')) {
    std::error_code error;
    for (fs::recursive_directory_iterator it{std::string(dir), error}, end; !error && it != end;
         it.increment(error)) {
      if (it->is_regular_file() && it->path().extension() == ".so") {
        libraries.push_back(it->path());
      }
    }
  }
  return libraries;
}

// The undefined dynamic symbols of `library`, from `nm -D --undefined-only`.
std::vector<std::string> UndefinedSymbols(const fs::path& library, bool* ok) {
  const std::string command = "nm -D --undefined-only '" + library.string() + "' 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::vector<std::string> symbols;
  *ok = pipe != nullptr;
  if (!*ok) return symbols;
  char line[4096];
  while (fgets(line, sizeof(line), pipe.get()) != nullptr) symbols.emplace_back(line);
  *ok = pclose(pipe.release()) == 0;
  return symbols;
}

TEST(PluginSymbolsTest, NoPluginNeedsATesseraSymbolFromTheHost) {
  const std::vector<fs::path> libraries = PluginLibraries();
  ASSERT_FALSE(libraries.empty()) << "no plugin libraries under " << TESSERA_PLUGIN_DIRS;
  for (const fs::path& library : libraries) {
    bool ok = false;
    const std::vector<std::string> symbols = UndefinedSymbols(library, &ok);
    ASSERT_TRUE(ok) << "nm failed on " << library;
    for (const std::string& symbol : symbols) {
      EXPECT_FALSE(absl::StrContains(symbol, "TSR_") || absl::StrContains(symbol, "tessera"))
          << library << " needs " << symbol;
    }
  }
}

}  // namespace
