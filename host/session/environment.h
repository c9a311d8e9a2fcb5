// Environment: what sessions of one configuration share in a process: the loaded plugins, the
// op registry (standard and plugin ops), the devices, the kernel factory and the thread pools.
// Plugins are loaded once per configuration, never once per session.
#ifndef TESSERA_HOST_SESSION_ENVIRONMENT_H_
#define TESSERA_HOST_SESSION_ENVIRONMENT_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "host/kernels/kernel_factory.h"
#include "host/ops/op_registry.h"
#include "host/runtime/device_manager.h"
#include "host/runtime/thread_pool.h"
#include "registry/plugin_policy.h"
#include "registry/plugin_registry.h"

namespace tessera {

struct EnvironmentOptions {
  std::vector<std::string> plugin_paths;
  // The install's plugin folder: unset means next to the program (bin/../lib/tessera/plugins),
  // "" none. The C API library sets the folder beside itself.
  std::optional<std::string> default_plugin_dir;
  // Which plugins may load and which provider serves a device type (registry/plugin_policy.h).
  PluginPolicyOptions plugin_policy;
  int inter_op_threads = 0;
  int intra_op_threads = 0;
  // Devices per device type (SessionOptions::device_count); types not listed get their
  // plugin's default.
  std::map<std::string, int> device_count;
  // Options of each device type's devices (SessionOptions::device_options).
  std::map<std::string, std::map<std::string, std::string>> device_options;
  // The task the devices belong to: /job:<job>/replica:0/task:<task>/device:...
  std::string job = "localhost";
  int task = 0;

  std::string Key() const;
  std::string DeviceOptionsKey() const;
};

class Environment {
 public:
  // The shared environment for `options`, created on first use. Thread-safe.
  static absl::StatusOr<std::shared_ptr<Environment>> Get(const EnvironmentOptions& options);
  // A fresh environment, not shared.
  static absl::StatusOr<std::shared_ptr<Environment>> Create(const EnvironmentOptions& options);

  const PluginRegistry& plugins() const { return *plugins_; }
  const OpRegistry& ops() const { return *ops_; }
  const DeviceManager& devices() const { return *devices_; }
  const KernelFactory& kernels() const { return *kernels_; }
  ThreadPool* inter_op_pool() const { return inter_op_pool_.get(); }
  ThreadPool* intra_op_pool() const { return intra_op_pool_.get(); }

 private:
  std::unique_ptr<PluginRegistry> plugins_;
  std::unique_ptr<OpRegistry> ops_;
  std::unique_ptr<DeviceManager> devices_;
  std::unique_ptr<KernelFactory> kernels_;
  std::unique_ptr<ThreadPool> inter_op_pool_;
  std::unique_ptr<ThreadPool> intra_op_pool_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_SESSION_ENVIRONMENT_H_
