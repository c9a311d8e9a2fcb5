// Parsing and validation of plugin manifests.
#include "registry/manifest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "nlohmann/json.hpp"

namespace tessera {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxShownValue = 40;

// The value as JSON text, shortened for messages.
std::string Shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > kMaxShownValue) text = absl::StrCat(text.substr(0, kMaxShownValue), "...");
  return text;
}

// Builds INVALID_ARGUMENT errors that name the file and the field.
class FieldErrors {
 public:
  explicit FieldErrors(absl::string_view path) : path_(path) {}

  absl::Status Error(absl::string_view field, absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("manifest ", path_, ": field '", field, "': ", what));
  }
  absl::Status Expected(absl::string_view field, absl::string_view expected,
                        const Json& got) const {
    return Error(field, absl::StrCat("expected ", expected, ", got ", Shown(got)));
  }
  absl::Status Missing(absl::string_view field) const { return Error(field, "missing (required)"); }

 private:
  std::string path_;
};

absl::StatusOr<int32_t> GetInt(const FieldErrors& errors, const Json& value,
                               absl::string_view field) {
  if (!value.is_number_integer()) return errors.Expected(field, "an integer", value);
  if (value.is_number_unsigned()) {
    const uint64_t v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return errors.Expected(field, "a 32-bit integer", value);
    }
    return static_cast<int32_t>(v);
  }
  const int64_t v = value.get<int64_t>();
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return errors.Expected(field, "a 32-bit integer", value);
  }
  return static_cast<int32_t>(v);
}

absl::StatusOr<std::string> GetString(const FieldErrors& errors, const Json& value,
                                      absl::string_view field) {
  if (!value.is_string()) return errors.Expected(field, "a string", value);
  return value.get<std::string>();
}

// The member `key` of `object`, or nullptr when absent.
const Json* Member(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

absl::StatusOr<const Json*> Required(const FieldErrors& errors, const Json& object, const char* key,
                                     absl::string_view field) {
  const Json* value = Member(object, key);
  if (value == nullptr) return errors.Missing(field);
  return value;
}

bool IsDigits(absl::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// "X.Y.Z" with an optional "-prerelease" and/or "+build" suffix of [0-9A-Za-z.-].
bool IsSemanticVersion(absl::string_view version) {
  size_t suffix = version.find_first_of("-+");
  absl::string_view core = version.substr(0, suffix);
  std::vector<absl::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t dot = core.find('.', start);
    parts.push_back(core.substr(start, dot == absl::string_view::npos ? dot : dot - start));
    if (dot == absl::string_view::npos) break;
    start = dot + 1;
  }
  if (parts.size() != 3) return false;
  for (absl::string_view part : parts) {
    if (!IsDigits(part)) return false;
  }
  if (suffix == absl::string_view::npos) return true;
  absl::string_view rest = version.substr(suffix + 1);
  if (rest.empty()) return false;
  for (char c : rest) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '+') {
      return false;
    }
  }
  return true;
}

bool IsHexDigest(absl::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

absl::Status ParseAbi(const FieldErrors& errors, const Json& root, PluginManifest& manifest) {
  ASSIGN_OR_RETURN(const Json* abi, Required(errors, root, "abi", "abi"));
  if (!abi->is_object()) return errors.Expected("abi", "an object", *abi);
  ASSIGN_OR_RETURN(const Json* major_json, Required(errors, *abi, "major", "abi.major"));
  ASSIGN_OR_RETURN(manifest.abi_major, GetInt(errors, *major_json, "abi.major"));
  ASSIGN_OR_RETURN(const Json* minor_json, Required(errors, *abi, "min_minor", "abi.min_minor"));
  ASSIGN_OR_RETURN(manifest.abi_min_minor, GetInt(errors, *minor_json, "abi.min_minor"));
  if (manifest.abi_major < 0) {
    return errors.Expected("abi.major", "a non-negative integer", *major_json);
  }
  if (manifest.abi_min_minor < 0) {
    return errors.Expected("abi.min_minor", "a non-negative integer", *minor_json);
  }
  return absl::OkStatus();
}

absl::Status ParseProvides(const FieldErrors& errors, const Json& root, PluginManifest& manifest) {
  const Json* provides = Member(root, "provides");
  if (provides == nullptr) return absl::OkStatus();
  if (!provides->is_array()) return errors.Expected("provides", "an array", *provides);
  for (size_t i = 0; i < provides->size(); ++i) {
    const Json& entry = (*provides)[i];
    const std::string field = absl::StrCat("provides[", i, "]");
    if (!entry.is_object()) return errors.Expected(field, "an object", entry);
    const std::string kind_field = absl::StrCat(field, ".kind");
    auto kind_json = Required(errors, entry, "kind", kind_field);
    if (!kind_json.ok()) return kind_json.status();
    auto kind = GetString(errors, **kind_json, kind_field);
    if (!kind.ok()) return kind.status();
    ManifestProvide provide;
    if (*kind == "device") {
      provide.kind = ProvideKind::kDevice;
    } else if (*kind == "kernels") {
      provide.kind = ProvideKind::kKernels;
    } else if (*kind == "ops") {
      provide.kind = ProvideKind::kOps;
    } else if (*kind == "transport") {
      provide.kind = ProvideKind::kTransport;
    } else {
      return errors.Expected(kind_field, "one of \"device\", \"kernels\", \"ops\", \"transport\"",
                             **kind_json);
    }
    if (const Json* name = Member(entry, "name")) {
      auto value = GetString(errors, *name, absl::StrCat(field, ".name"));
      if (!value.ok()) return value.status();
      provide.name = *std::move(value);
    }
    manifest.provides.push_back(std::move(provide));
  }
  return absl::OkStatus();
}

absl::Status ParseCpuFeatures(const FieldErrors& errors, const Json& root,
                              PluginManifest& manifest) {
  const Json* features = Member(root, "required_cpu_features");
  if (features == nullptr) return absl::OkStatus();
  if (!features->is_array()) {
    return errors.Expected("required_cpu_features", "an array of strings", *features);
  }
  for (size_t i = 0; i < features->size(); ++i) {
    auto value = GetString(errors, (*features)[i], absl::StrCat("required_cpu_features[", i, "]"));
    if (!value.ok()) return value.status();
    manifest.required_cpu_features.push_back(*std::move(value));
  }
  return absl::OkStatus();
}

absl::Status ParseRoot(const FieldErrors& errors, const Json& root, PluginManifest& manifest) {
  if (!root.is_object()) return errors.Expected("(root)", "an object", root);

  auto version_json = Required(errors, root, "manifest_version", "manifest_version");
  if (!version_json.ok()) return version_json.status();
  auto manifest_version = GetInt(errors, **version_json, "manifest_version");
  if (!manifest_version.ok()) return manifest_version.status();
  if (*manifest_version != 1) return errors.Expected("manifest_version", "1", **version_json);
  manifest.manifest_version = *manifest_version;

  struct StringField {
    const char* key;
    std::string* out;
  };
  for (const StringField& field :
       {StringField{"name", &manifest.name}, StringField{"vendor", &manifest.vendor},
        StringField{"version", &manifest.version}, StringField{"library", &manifest.library}}) {
    auto json = Required(errors, root, field.key, field.key);
    if (!json.ok()) return json.status();
    auto value = GetString(errors, **json, field.key);
    if (!value.ok()) return value.status();
    *field.out = *std::move(value);
  }
  if (!IsValidPluginName(manifest.name)) {
    return errors.Expected("name", "a name matching [a-z0-9_-]+", *Member(root, "name"));
  }
  if (!IsSemanticVersion(manifest.version)) {
    return errors.Expected("version", "a semantic version \"X.Y.Z\"", *Member(root, "version"));
  }
  if (manifest.library.empty()) {
    return errors.Expected("library", "a non-empty path", *Member(root, "library"));
  }

  RETURN_IF_ERROR(ParseAbi(errors, root, manifest));
  RETURN_IF_ERROR(ParseProvides(errors, root, manifest));
  RETURN_IF_ERROR(ParseCpuFeatures(errors, root, manifest));

  if (const Json* priority = Member(root, "priority")) {
    auto value = GetInt(errors, *priority, "priority");
    if (!value.ok()) return value.status();
    manifest.priority = *value;
  }
  if (const Json* sha = Member(root, "sha256")) {
    auto value = GetString(errors, *sha, "sha256");
    if (!value.ok()) return value.status();
    if (!IsHexDigest(*value)) {
      return errors.Expected("sha256", "64 hexadecimal characters", *sha);
    }
    manifest.sha256 = absl::AsciiStrToLower(*value);
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view ProvideKindName(ProvideKind kind) {
  switch (kind) {
    case ProvideKind::kDevice:
      return "device";
    case ProvideKind::kKernels:
      return "kernels";
    case ProvideKind::kOps:
      return "ops";
    case ProvideKind::kTransport:
      return "transport";
  }
  return "unknown";
}

std::string ManifestProvide::ToString() const {
  if (name.empty()) return std::string(ProvideKindName(kind));
  return absl::StrCat(ProvideKindName(kind), ":", name);
}

bool IsValidPluginName(absl::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

absl::StatusOr<PluginManifest> ParseManifest(absl::string_view path, absl::string_view contents) {
  FieldErrors errors(path);
  if (contents.size() > kMaxManifestBytes) {
    return absl::InvalidArgumentError(absl::StrCat("manifest ", path, ": ", contents.size(),
                                                   " bytes, more than the limit of ",
                                                   kMaxManifestBytes));
  }
  // Nesting is refused while it is parsed, before a deep value exists: printing or destroying
  // one recurses once per level.
  struct TooDeep {};
  Json root;
  try {
    root = Json::parse(contents.begin(), contents.end(), [](int depth, Json::parse_event_t, Json&) {
      if (depth > kMaxManifestDepth) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    return absl::InvalidArgumentError(
        absl::StrCat("manifest ", path, ": nests deeper than ", kMaxManifestDepth, " levels"));
  } catch (const Json::exception& e) {
    // e.what() reads "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    absl::string_view what = e.what();
    const size_t bracket = what.find("] ");
    if (bracket != absl::string_view::npos) what.remove_prefix(bracket + 2);
    return absl::InvalidArgumentError(absl::StrCat("manifest ", path, ": malformed JSON: ", what));
  }
  PluginManifest manifest;
  manifest.path = std::string(path);
  RETURN_IF_ERROR(ParseRoot(errors, root, manifest));
  std::filesystem::path library(manifest.library);
  if (library.is_relative()) {
    library = std::filesystem::path(manifest.path).parent_path() / library;
  }
  manifest.library_path = library.lexically_normal().string();
  return manifest;
}

absl::StatusOr<PluginManifest> ReadManifest(const std::string& path) {
  // Opened without blocking (a FIFO would wait for a writer forever), then checked to be a
  // regular file through the descriptor itself, and read up to the limit only (a link to
  // /dev/zero never ends).
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrCat("manifest ", path, ": cannot be read (", std::strerror(errno), ")"));
  }
  struct stat info {};
  std::string contents;
  absl::Status status;
  if (fstat(fd, &info) != 0) {
    status = absl::NotFoundError(
        absl::StrCat("manifest ", path, ": cannot be read (", std::strerror(errno), ")"));
  } else if (!S_ISREG(info.st_mode)) {
    const char* kind = S_ISFIFO(info.st_mode)   ? "a FIFO"
                       : S_ISCHR(info.st_mode)  ? "a character device"
                       : S_ISBLK(info.st_mode)  ? "a block device"
                       : S_ISSOCK(info.st_mode) ? "a socket"
                       : S_ISDIR(info.st_mode)  ? "a folder"
                                                : "not a file";
    status = absl::InvalidArgumentError(
        absl::StrCat("manifest ", path, ": is ", kind, ", not a regular file"));
  } else {
    char buffer[65536];
    while (contents.size() <= kMaxManifestBytes) {
      const ssize_t n = read(fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = absl::NotFoundError(
            absl::StrCat("manifest ", path, ": read failed (", std::strerror(errno), ")"));
        break;
      }
      if (n == 0) break;
      contents.append(buffer, static_cast<size_t>(n));
    }
  }
  close(fd);
  RETURN_IF_ERROR(status);
  if (contents.size() > kMaxManifestBytes) {
    return absl::InvalidArgumentError(absl::StrCat("manifest ", path, ": larger than the limit of ",
                                                   kMaxManifestBytes, " bytes"));
  }
  return ParseManifest(path, contents);
}

}  // namespace tessera
