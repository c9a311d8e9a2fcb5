// The plugin manifest (<name>.tessera-plugin.json): what the host reads before loading a plugin.
#ifndef TESSERA_REGISTRY_MANIFEST_H_
#define TESSERA_REGISTRY_MANIFEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {

// The file-name suffix every manifest has.
inline constexpr absl::string_view kManifestSuffix = ".tessera-plugin.json";

// What a plugin says it provides (`provides[].kind`).
enum class ProvideKind { kDevice, kKernels, kOps, kTransport };

// "device", "kernels", "ops" or "transport".
absl::string_view ProvideKindName(ProvideKind kind);

struct ManifestProvide {
  ProvideKind kind = ProvideKind::kDevice;
  std::string name;  // empty when the manifest gives none

  // "device:CPU", or "ops" when there is no name.
  std::string ToString() const;
};

// A parsed, validated manifest. Field meanings follow sdk/cmake/WriteManifest.cmake.
struct PluginManifest {
  std::string path;  // the manifest file as given
  int32_t manifest_version = 1;
  std::string name;  // [a-z0-9_-]+
  std::string vendor;
  std::string version;  // semantic version "X.Y.Z" (optionally "-pre" or "+build")
  int32_t abi_major = 0;
  int32_t abi_min_minor = 0;
  std::string library;       // as written in the manifest
  std::string library_path;  // `library` resolved against the manifest's folder
  std::vector<ManifestProvide> provides;
  std::vector<std::string> required_cpu_features;
  int32_t priority = 0;
  std::string sha256;  // 64 lowercase hex characters; empty when the manifest has none
};

// Parses and validates a manifest's `contents`; `path` names the file in errors and anchors a
// relative `library`. Errors are INVALID_ARGUMENT and read
// "manifest <path>: field 'abi.major': expected an integer, got \"one\"", or for malformed JSON
// "manifest <path>: malformed JSON: parse error at line 3, column 7: ...". Unknown fields are
// ignored. Never throws, whatever the bytes. Manifests are small: more than kMaxManifestBytes,
// or JSON nested more than kMaxManifestDepth levels deep, is INVALID_ARGUMENT.
inline constexpr size_t kMaxManifestBytes = size_t{1} << 20;
inline constexpr int kMaxManifestDepth = 32;
absl::StatusOr<PluginManifest> ParseManifest(absl::string_view path, absl::string_view contents);

// Reads and parses the manifest file at `path`: NOT_FOUND when it cannot be read; INVALID_ARGUMENT
// when it is not a regular file (a FIFO, a device, a socket, a folder; a symbolic link counts as
// what it points to), read without waiting for a writer and only up to the size limit.
absl::StatusOr<PluginManifest> ReadManifest(const std::string& path);

// True for names matching [a-z0-9_-]+ (plugin names in manifests and allowlists).
bool IsValidPluginName(absl::string_view name);

}  // namespace tessera

#endif  // TESSERA_REGISTRY_MANIFEST_H_
