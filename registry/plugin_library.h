// A loaded plugin library (Boost.DLL, RTLD_LOCAL | RTLD_NOW) or an in-process plugin. Every spec
// from a plugin holds its library, so code is never unloaded while anything can call into it.
#ifndef TESSERA_REGISTRY_PLUGIN_LIBRARY_H_
#define TESSERA_REGISTRY_PLUGIN_LIBRARY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

class PluginLibrary {
 public:
  // Loads the shared object at `path` with RTLD_LOCAL | RTLD_NOW (never RTLD_GLOBAL).
  // UNAVAILABLE with the dynamic loader's message when it cannot be loaded.
  static absl::StatusOr<std::shared_ptr<const PluginLibrary>> Load(const std::string& path);

  // A library standing for an in-process plugin (its code is the host's own).
  static std::shared_ptr<const PluginLibrary> InProcess(const std::string& name);

  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  // The file loaded, or "(in-process)".
  const std::string& path() const { return path_; }

  // TSR_Plugin_Init; NOT_FOUND naming the symbol and the file when the library lacks it.
  absl::StatusOr<TSR_Plugin_InitFn> FindInit() const;

 private:
  struct Impl;
  PluginLibrary(std::string path, std::unique_ptr<Impl> impl);

  std::string path_;
  std::unique_ptr<Impl> impl_;  // NULL for in-process plugins
};

}  // namespace tessera

#endif  // TESSERA_REGISTRY_PLUGIN_LIBRARY_H_
