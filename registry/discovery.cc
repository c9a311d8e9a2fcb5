// Discovery of plugin manifests: explicit paths, TESSERA_PLUGIN_PATH, the install's folder.
#include "registry/discovery.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "registry/manifest.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

// Collects manifests in order, once each (compared by canonical path).
class ManifestList {
 public:
  void Add(const fs::path& manifest) {
    std::error_code error;
    fs::path canonical = fs::weakly_canonical(manifest, error);
    if (error) canonical = manifest.lexically_normal();
    if (seen_.insert(canonical.string()).second) {
      result_.manifest_paths.push_back(fs::absolute(manifest, error).lexically_normal().string());
    }
  }
  void AddFolder(const std::string& folder) {
    for (const std::string& manifest : ListManifests(folder)) Add(manifest);
  }
  DiscoveryResult& result() { return result_; }

 private:
  std::set<std::string> seen_;
  DiscoveryResult result_;
};

}  // namespace

std::string DefaultPluginDir() {
  std::error_code error;
  fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return "";
  return (exe.parent_path() / ".." / "lib" / "tessera" / "plugins").lexically_normal().string();
}

std::vector<std::string> ListManifests(const std::string& folder) {
  std::vector<std::string> manifests;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string file_name = it->path().filename().string();
    if (!absl::EndsWith(file_name, kManifestSuffix)) continue;
    std::error_code type_error;
    if (it->is_directory(type_error)) continue;
    manifests.push_back(it->path().string());
  }
  std::sort(manifests.begin(), manifests.end());
  return manifests;
}

absl::StatusOr<DiscoveryResult> DiscoverManifests(const DiscoveryOptions& options) {
  ManifestList list;

  for (const std::string& path : options.explicit_paths) {
    std::error_code error;
    const fs::path absolute = fs::absolute(path, error);
    if (error || !fs::exists(absolute, error)) {
      return absl::NotFoundError(
          absl::StrCat("plugin path '", path, "' does not exist (given explicitly)"));
    }
    if (fs::is_directory(absolute, error)) {
      list.AddFolder(absolute.string());
    } else {
      list.Add(absolute);
    }
  }

  std::string env_value;
  if (options.plugin_path_env.has_value()) {
    env_value = *options.plugin_path_env;
  } else if (const char* env = std::getenv(kPluginPathEnv)) {
    env_value = env;
  }
  if (!env_value.empty()) {
    for (absl::string_view entry : absl::StrSplit(env_value, ':')) {
      if (entry.empty()) {
        list.result().warnings.push_back(
            absl::StrCat(kPluginPathEnv,
                         ": empty entry ignored (the current directory is never "
                         "searched)"));
        continue;
      }
      if (!fs::path(std::string(entry)).is_absolute()) {
        list.result().warnings.push_back(
            absl::StrCat(kPluginPathEnv, ": relative entry '", entry,
                         "' ignored (the current directory is never searched)"));
        continue;
      }
      std::error_code error;
      if (!fs::is_directory(std::string(entry), error)) {
        list.result().warnings.push_back(
            absl::StrCat(kPluginPathEnv, ": '", entry, "' is not a folder"));
        continue;
      }
      list.AddFolder(std::string(entry));
    }
  }

  const std::string default_dir =
      options.default_plugin_dir.has_value() ? *options.default_plugin_dir : DefaultPluginDir();
  if (!default_dir.empty()) {
    if (fs::path(default_dir).is_absolute()) {
      list.AddFolder(default_dir);
    } else {
      list.result().warnings.push_back(
          absl::StrCat("default plugin folder '", default_dir, "' is relative and was ignored"));
    }
  }
  return std::move(list.result());
}

}  // namespace tessera
