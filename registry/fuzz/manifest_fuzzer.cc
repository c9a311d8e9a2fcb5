// libFuzzer target for the manifest parser: any bytes give a manifest or an INVALID_ARGUMENT.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "registry/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view contents(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tessera::PluginManifest> manifest =
      tessera::ParseManifest("/fuzz/input.tessera-plugin.json", contents);
  if (!manifest.ok()) {
    // Every refusal is INVALID_ARGUMENT and names the file.
    if (manifest.status().code() != absl::StatusCode::kInvalidArgument ||
        manifest.status().message().find("/fuzz/input.tessera-plugin.json") ==
            absl::string_view::npos) {
      std::abort();
    }
    return 0;
  }
  // An accepted manifest satisfies the documented invariants.
  if (!tessera::IsValidPluginName(manifest->name) || manifest->manifest_version != 1 ||
      manifest->library.empty() || manifest->library_path.empty() ||
      (!manifest->sha256.empty() && manifest->sha256.size() != 64)) {
    std::abort();
  }
  return 0;
}
