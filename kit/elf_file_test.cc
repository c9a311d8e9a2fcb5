// ReadElfDynamicInfo and SearchPathProblems, on real plugins and on the kit's shared library.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kit/check_test_util.h"
#include "kit/elf_file.h"

namespace tessera::plugin_check {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ElfFileTest, PluginExportsOnlyItsEntryPoint) {
  absl::StatusOr<ElfDynamicInfo> info =
      ReadElfDynamicInfo(std::string(TESSERA_PLUGIN_DIR) + "/libtessera_cpu.so");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_THAT(info->exported, ElementsAre("TSR_Plugin_Init"));
  EXPECT_FALSE(info->undefined.empty());  // at least the C library's functions
  EXPECT_TRUE(info->search_paths.empty());
}

TEST(ElfFileTest, KitLibraryExportsOnlyThePluginCheckNamespace) {
  absl::StatusOr<ElfDynamicInfo> info = ReadElfDynamicInfo(TESSERA_PLUGIN_CHECK_LIBRARY);
  ASSERT_TRUE(info.ok()) << info.status();
  bool run_checks = false;
  for (const std::string& symbol : info->exported) {
    // Mangled names in namespace tessera::plugin_check, or their typeinfo and vtables.
    // (N for namespace members, NK for const member functions).
    EXPECT_THAT(symbol, ::testing::ContainsRegex("NK?7tessera12plugin_check")) << symbol;
    run_checks |= symbol.find("9RunChecks") != std::string::npos;
  }
  EXPECT_TRUE(run_checks);
}

TEST(ElfFileTest, RefusesWhatIsNotAnElfFile) {
  absl::StatusOr<ElfDynamicInfo> info = ReadElfDynamicInfo(testing::CpuManifest());
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(info.status().message()),
              HasSubstr("cpu.tessera-plugin.json: not an ELF file"));
  info = ReadElfDynamicInfo("/nonexistent/libx.so");
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(info.status().message()), HasSubstr("cannot read /nonexistent/libx.so"));
}

TEST(ElfFileTest, SearchPathProblemsAsCheckRunpathSaysThem) {
  EXPECT_TRUE(SearchPathProblems("/opt/acme/lib:$ORIGIN/../lib").empty());
  EXPECT_THAT(SearchPathProblems("/opt/acme/lib:"),
              ElementsAre("an empty entry: the current directory"));
  EXPECT_THAT(SearchPathProblems("lib"),
              ElementsAre("'lib', a relative entry: depends on the current directory"));
}

}  // namespace
}  // namespace tessera::plugin_check
