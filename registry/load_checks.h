// The checks made from a manifest before any dlopen: allowlist, ABI versions, CPU features,
// library presence and sha256.
#ifndef TESSERA_REGISTRY_LOAD_CHECKS_H_
#define TESSERA_REGISTRY_LOAD_CHECKS_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "registry/manifest.h"
#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

// What the host will accept.
struct LoadPolicy {
  // When set, only plugins with these names load (the others: PERMISSION_DENIED).
  std::optional<std::set<std::string>> allowlist;
  // When true, a manifest without sha256 is refused (PERMISSION_DENIED).
  bool require_sha256 = false;
  // Where the two settings above came from, named by refusals ("--plugin-allow",
  // "config file /etc/tessera/plugins.json"); "" names none.
  std::string allowlist_source;
  std::string require_sha256_source;
  // The host's ABI version as the plugins see it. Tests and the conformance kit lower the minor
  // to emulate an older host.
  uint32_t host_abi_major = TSR_ABI_VERSION_MAJOR;
  uint32_t host_abi_minor = TSR_ABI_VERSION_MINOR;
};

// "plugin 'acme-npu' 2.3.0 (libtessera_acme.so)": how refusals name a plugin.
std::string DescribePlugin(absl::string_view name, absl::string_view version,
                           absl::string_view library_path);

// FAILED_PRECONDITION in the words of ABI.md when `plugin_major` differs from the host's or
// `plugin_min_minor` exceeds it, e.g. "plugin 'acme-npu' 2.3.0 (libtessera_acme.so) needs host
// ABI >= 0.7; this host is 0.1: upgrade Tessera or install an acme-npu built for ABI 0.1".
// `source` says where the plugin's numbers came from ("" for the manifest).
absl::Status CheckAbiVersion(absl::string_view plugin, absl::string_view name, int64_t plugin_major,
                             int64_t plugin_min_minor, const LoadPolicy& policy,
                             absl::string_view source = "");

// The CPU feature names a manifest may require (x86: "sse4_2", "avx2", "fma", "avx512f", ...).
std::vector<std::string> KnownCpuFeatures();

// Whether this CPU has `feature`; INVALID_ARGUMENT when the name is unknown.
absl::StatusOr<bool> CpuHasFeature(absl::string_view feature);

// The lowercase hex SHA-256 of the file at `path` (NOT_FOUND when unreadable).
absl::StatusOr<std::string> Sha256OfFile(const std::string& path);

// All checks, in order: allowlist, sha256 required, ABI major and minor, CPU features, library
// present (NOT_FOUND), sha256 match (FAILED_PRECONDITION naming both digests).
absl::Status CheckBeforeLoad(const PluginManifest& manifest, const LoadPolicy& policy);

}  // namespace tessera

#endif  // TESSERA_REGISTRY_LOAD_CHECKS_H_
