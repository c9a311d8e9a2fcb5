// Where the registry tests find the fake plugin cases built by registry/testing/CMakeLists.txt.
#ifndef TESSERA_REGISTRY_TESTING_FAKE_PLUGIN_PATHS_H_
#define TESSERA_REGISTRY_TESTING_FAKE_PLUGIN_PATHS_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace tessera {
namespace testing_paths {

// The folder of one case, e.g. FakePluginCase("good").
inline std::string FakePluginCase(absl::string_view case_name) {
  return absl::StrCat(TESSERA_TEST_PLUGIN_DIR, "/", case_name);
}

// The manifest file of `plugin` in `case_name`.
inline std::string FakeManifest(absl::string_view case_name, absl::string_view plugin) {
  return absl::StrCat(FakePluginCase(case_name), "/", plugin, ".tessera-plugin.json");
}

}  // namespace testing_paths
}  // namespace tessera

#endif  // TESSERA_REGISTRY_TESTING_FAKE_PLUGIN_PATHS_H_
