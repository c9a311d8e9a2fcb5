// Checks made from a manifest before any dlopen.
#include "registry/load_checks.h"

#include <openssl/evp.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <filesystem>
#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace tessera {
namespace {

struct CpuFeature {
  const char* name;
  bool (*present)();
};

// __builtin_cpu_supports needs a literal, hence one function per feature.
#if defined(__x86_64__) || defined(__i386__)
#define TESSERA_CPU_FEATURE(name, builtin_name)                    \
  {                                                                \
    name, [] { return __builtin_cpu_supports(builtin_name) != 0; } \
  }
const CpuFeature kCpuFeatures[] = {
    TESSERA_CPU_FEATURE("sse", "sse"),
    TESSERA_CPU_FEATURE("sse2", "sse2"),
    TESSERA_CPU_FEATURE("sse3", "sse3"),
    TESSERA_CPU_FEATURE("ssse3", "ssse3"),
    TESSERA_CPU_FEATURE("sse4_1", "sse4.1"),
    TESSERA_CPU_FEATURE("sse4_2", "sse4.2"),
    TESSERA_CPU_FEATURE("popcnt", "popcnt"),
    TESSERA_CPU_FEATURE("avx", "avx"),
    TESSERA_CPU_FEATURE("avx2", "avx2"),
    TESSERA_CPU_FEATURE("fma", "fma"),
    // clang's __builtin_cpu_supports does not know "f16c": CPUID leaf 1, ECX bit 29.
    {"f16c",
     [] {
       unsigned eax, ebx, ecx, edx;
       return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
     }},
    TESSERA_CPU_FEATURE("bmi", "bmi"),
    TESSERA_CPU_FEATURE("bmi2", "bmi2"),
    TESSERA_CPU_FEATURE("aes", "aes"),
    TESSERA_CPU_FEATURE("avx512f", "avx512f"),
    TESSERA_CPU_FEATURE("avx512bw", "avx512bw"),
    TESSERA_CPU_FEATURE("avx512cd", "avx512cd"),
    TESSERA_CPU_FEATURE("avx512dq", "avx512dq"),
    TESSERA_CPU_FEATURE("avx512vl", "avx512vl"),
    TESSERA_CPU_FEATURE("avx512vnni", "avx512vnni"),
    TESSERA_CPU_FEATURE("avx512bf16", "avx512bf16"),
};
#undef TESSERA_CPU_FEATURE
#else
const CpuFeature kCpuFeatures[] = {{"none", [] { return false; }}};
#endif

std::string Article(absl::string_view name) {
  return !name.empty() && absl::string_view("aeiou").find(name[0]) != absl::string_view::npos ? "an"
                                                                                              : "a";
}

std::string FileName(absl::string_view path) {
  return std::filesystem::path(std::string(path)).filename().string();
}

}  // namespace

std::string DescribePlugin(absl::string_view name, absl::string_view version,
                           absl::string_view library_path) {
  return absl::StrCat("plugin '", name, "' ", version, " (", FileName(library_path), ")");
}

absl::Status CheckAbiVersion(absl::string_view plugin, absl::string_view name, int64_t plugin_major,
                             int64_t plugin_min_minor, const LoadPolicy& policy,
                             absl::string_view source) {
  const std::string host = absl::StrCat(policy.host_abi_major, ".", policy.host_abi_minor);
  const std::string install =
      absl::StrCat("install ", Article(name), " ", name, " built for ABI ", host);
  const std::string from = source.empty() ? "" : absl::StrCat(" (", source, ")");
  if (plugin_major != static_cast<int64_t>(policy.host_abi_major)) {
    const bool newer = plugin_major > static_cast<int64_t>(policy.host_abi_major);
    return absl::FailedPreconditionError(
        absl::StrCat(plugin, " is built for ABI major ", plugin_major, from, "; this host is ",
                     host, ": ", newer ? "upgrade Tessera or " : "", install));
  }
  if (plugin_min_minor > static_cast<int64_t>(policy.host_abi_minor)) {
    return absl::FailedPreconditionError(
        absl::StrCat(plugin, " needs host ABI >= ", plugin_major, ".", plugin_min_minor, from,
                     "; this host is ", host, ": upgrade Tessera or ", install));
  }
  return absl::OkStatus();
}

std::vector<std::string> KnownCpuFeatures() {
  std::vector<std::string> names;
  for (const CpuFeature& feature : kCpuFeatures) names.push_back(feature.name);
  return names;
}

absl::StatusOr<bool> CpuHasFeature(absl::string_view feature) {
  for (const CpuFeature& known : kCpuFeatures) {
    if (feature == known.name) return known.present();
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown CPU feature '", feature, "' (known: ",
                                                 absl::StrJoin(KnownCpuFeatures(), ", "), ")"));
}

absl::StatusOr<std::string> Sha256OfFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read ", path, " to hash it"));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                  &EVP_MD_CTX_free);
  if (context == nullptr || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
    return absl::InternalError("OpenSSL could not start a SHA-256 digest");
  }
  char buffer[1 << 16];
  while (file) {
    file.read(buffer, sizeof(buffer));
    if (file.gcount() > 0 &&
        EVP_DigestUpdate(context.get(), buffer, static_cast<size_t>(file.gcount())) != 1) {
      return absl::InternalError("OpenSSL SHA-256 update failed");
    }
  }
  if (file.bad()) return absl::NotFoundError(absl::StrCat("read of ", path, " failed"));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context.get(), digest, &length) != 1) {
    return absl::InternalError("OpenSSL SHA-256 final failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 15]);
  }
  return hex;
}

absl::Status CheckBeforeLoad(const PluginManifest& manifest, const LoadPolicy& policy) {
  const std::string plugin = DescribePlugin(manifest.name, manifest.version, manifest.library_path);
  auto from = [](const std::string& source) {
    return source.empty() ? std::string() : absl::StrCat("from ", source);
  };
  if (policy.allowlist.has_value() && policy.allowlist->count(manifest.name) == 0) {
    const std::string allowed =
        policy.allowlist->empty() ? "none" : absl::StrJoin(*policy.allowlist, ", ");
    const std::string source = from(policy.allowlist_source);
    return absl::PermissionDeniedError(absl::StrCat(plugin, " is not in the allowlist (allowed: ",
                                                    allowed, source.empty() ? "" : "; ", source,
                                                    ")"));
  }
  if (policy.require_sha256 && manifest.sha256.empty()) {
    const std::string source = from(policy.require_sha256_source);
    return absl::PermissionDeniedError(
        absl::StrCat(plugin, ": manifest ", manifest.path,
                     " has no sha256 and this host requires one",
                     source.empty() ? "" : absl::StrCat(" (", source, ")")));
  }
  RETURN_IF_ERROR(
      CheckAbiVersion(plugin, manifest.name, manifest.abi_major, manifest.abi_min_minor, policy));
  for (const std::string& feature : manifest.required_cpu_features) {
    absl::StatusOr<bool> present = CpuHasFeature(feature);
    if (!present.ok()) return WithContext(present.status(), plugin);
    if (!*present) {
      return absl::FailedPreconditionError(
          absl::StrCat(plugin, " needs CPU feature '", feature, "', which this CPU lacks"));
    }
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(manifest.library_path, error)) {
    return absl::NotFoundError(absl::StrCat(plugin, ": library ", manifest.library_path,
                                            " named by manifest ", manifest.path,
                                            " does not exist"));
  }
  if (!manifest.sha256.empty()) {
    ASSIGN_OR_RETURN(const std::string actual, Sha256OfFile(manifest.library_path));
    if (actual != manifest.sha256) {
      return absl::FailedPreconditionError(
          absl::StrCat(plugin, ": library ", manifest.library_path, " has sha256 ", actual,
                       " but manifest ", manifest.path, " expects ", manifest.sha256));
    }
  }
  return absl::OkStatus();
}

}  // namespace tessera
