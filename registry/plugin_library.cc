// Loading plugin libraries with Boost.DLL.
#define BOOST_DLL_USE_STD_FS
#include "registry/plugin_library.h"

#include <dlfcn.h>

#include <boost/dll/shared_library.hpp>

#include "absl/strings/str_cat.h"

namespace tessera {

struct PluginLibrary::Impl {
  boost::dll::shared_library library;
};

PluginLibrary::PluginLibrary(std::string path, std::unique_ptr<Impl> impl)
    : path_(std::move(path)), impl_(std::move(impl)) {}

PluginLibrary::~PluginLibrary() = default;

absl::StatusOr<std::shared_ptr<const PluginLibrary>> PluginLibrary::Load(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  boost::dll::fs::error_code error;
  // RTLD_NODELETE: a plugin's code stays mapped for the life of the process even after the last
  // handle to it goes (threads, callbacks and static objects of a plugin may outlive a registry;
  // unloading running code is the crash every plugin host eventually meets).
  const auto mode = static_cast<boost::dll::load_mode::type>(
      boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now | RTLD_NODELETE);
  impl->library.load(boost::dll::fs::path(path), mode, error);
  if (error || !impl->library.is_loaded()) {
    // Boost.DLL clears dlerror(); ask the dynamic loader again for its reason.
    std::string reason = error ? error.message() : "unknown error";
    if (void* handle = dlopen(path.c_str(), RTLD_LOCAL | RTLD_NOW | RTLD_NODELETE)) {
      dlclose(handle);
    } else if (const char* message = dlerror()) {
      reason = message;
    }
    return absl::UnavailableError(absl::StrCat("cannot load ", path, ": ", reason));
  }
  return std::shared_ptr<const PluginLibrary>(new PluginLibrary(path, std::move(impl)));
}

std::shared_ptr<const PluginLibrary> PluginLibrary::InProcess(const std::string& name) {
  return std::shared_ptr<const PluginLibrary>(new PluginLibrary("(in-process)", nullptr));
}

absl::StatusOr<TSR_Plugin_InitFn> PluginLibrary::FindInit() const {
  if (impl_ == nullptr) {
    return absl::FailedPreconditionError("an in-process plugin has no library to search");
  }
  if (!impl_->library.has(TSR_PLUGIN_INIT_SYMBOL)) {
    return absl::NotFoundError(absl::StrCat("library ", path_, " does not export ",
                                            TSR_PLUGIN_INIT_SYMBOL,
                                            " (is it a Tessera plugin "
                                            "built with tessera_add_plugin?)"));
  }
  return &impl_->library.get<TSR_Status*(const TSR_Plugin_Init_Args*)>(TSR_PLUGIN_INIT_SYMBOL);
}

}  // namespace tessera
