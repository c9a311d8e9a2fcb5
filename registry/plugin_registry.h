// PluginRegistry: discovers and loads every plugin, ranks providers, and holds what they
// registered (device types, ops, kernels, transports) for the host.
#ifndef TESSERA_REGISTRY_PLUGIN_REGISTRY_H_
#define TESSERA_REGISTRY_PLUGIN_REGISTRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "registry/plugin_loader.h"
#include "registry/plugin_policy.h"
#include "registry/specs.h"
#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

struct RegistryOptions {
  // Discovery (see discovery.h): explicit manifest files or folders, searched first; the value
  // to use for TESSERA_PLUGIN_PATH (nullopt: the environment); the install's plugin folder
  // (nullopt: next to the program, "": none).
  std::vector<std::string> plugin_paths;
  std::optional<std::string> plugin_path_env;
  std::optional<std::string> default_plugin_dir;
  // False: no discovery at all, only `in_process_plugins`.
  bool discover = true;
  // Plugins compiled into this process; loaded before discovered ones.
  std::vector<InProcessPlugin> in_process_plugins;

  // The user's choice and lock of plugins (plugin_policy.h): an allowlist, sha256 required, a
  // preferred provider per device type, each overriding the policy file's setting. In-process
  // plugins are compiled in: neither the allowlist nor sha256 applies to them. With `discover`
  // false no policy file is read unless `policy.config_file` names one.
  PluginPolicyOptions policy;

  // Runtime slots of TSR_HostApi (ShapeContext_*, KernelConstruction_*, KernelContext_*,
  // ThreadPool_*) implemented by the host; non-NULL ones are copied into the plugins' table.
  TSR_HostApi runtime_slots{};
  // The ABI minor the plugins are told this host has; lower than TSR_ABI_VERSION_MINOR only to
  // emulate an older host (conformance kit, tests).
  uint32_t host_abi_minor = TSR_ABI_VERSION_MINOR;
  // Conformance kit only: allows `host_abi_minor` above TSR_ABI_VERSION_MINOR (at most
  // kMaxEmulatedNewerMinors above) to emulate a newer host. Plugins then get a host table that
  // reports that minor and whose struct_size covers kEmulatedHostTailSlots trailing slots this
  // host does not know, all NULL, as a newer host's unused slots would look to an old plugin.
  bool emulate_newer_host = false;
};

// Immutable once created: every accessor may be called from any thread. Specs hold their
// libraries, so devices and kernels made from them may outlive the registry.
class PluginRegistry {
 public:
  // Discovers and loads every plugin. A bad plugin never makes Create fail (it is a REJECTED
  // record); Create fails only for an unusable option: INVALID_ARGUMENT for a malformed
  // allowlist name, preference, policy file, in-process plugin or host minor, NOT_FOUND for an
  // explicit plugin path or policy file that does not exist.
  static absl::StatusOr<std::unique_ptr<PluginRegistry>> Create(const RegistryOptions& options);

  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Every plugin found, in load order (in-process first, then discovery order).
  const std::vector<PluginRecord>& records() const { return records_; }
  const PluginRecord* FindRecord(absl::string_view plugin_name) const;

  // Every device type registration, grouped by type (sorted by name) and, within a type,
  // ranked: preferred provider, then manifest priority (higher first), then plugin name. The
  // first of each type is active; the others have active == false and a shadowed_reason.
  const std::vector<DeviceTypeSpec>& device_types() const { return device_types_; }
  // The active provider of `device_type`, or nullptr.
  const DeviceTypeSpec* FindDeviceType(absl::string_view device_type) const;
  // The active provider of each type, ordered by the type's priority (higher first), then name.
  std::vector<const DeviceTypeSpec*> ActiveDeviceTypes() const;

  // Ops defined by plugins, sorted by name (one per name: a later definition of a name is
  // dropped with a warning).
  const std::vector<OpSpec>& ops() const { return ops_; }
  const OpSpec* FindOp(absl::string_view op_name) const;

  // Kernels, sorted by (op, device type, priority higher first, plugin name). Kernels that a
  // shadowed device provider registered for its own shadowed type are not here: they were
  // written for that provider's devices.
  const std::vector<KernelSpec>& kernels() const { return kernels_; }
  std::vector<const KernelSpec*> FindKernels(absl::string_view op_name,
                                             absl::string_view device_type) const;

  // Transports, sorted by name (one per name).
  const std::vector<TransportSpec>& transports() const { return transports_; }
  const TransportSpec* FindTransport(absl::string_view name) const;

  // The plugin policy in force: the policy file's settings overridden by the options'.
  const PluginPolicy& policy() const { return policy_; }

  // Discovery warnings and dropped duplicate registrations.
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The table plugins received.
  const TSR_HostApi* host_api() const { return host_api_; }

  // `tessera plugins`: a table (NAME VERSION STATE PROVIDES FILE REASON), the device type
  // ranking, the policy in force (when any setting is made) and the warnings.
  std::string FormatText() const;
  // `tessera plugins --json`: {"plugins": [...], "device_types": [...], "policy": {...},
  // "warnings": [...]}.
  std::string FormatJson() const;

 private:
  PluginRegistry() = default;

  void Add(LoadedPlugin loaded);
  void RankDeviceTypes();
  void SelectOps();
  void SelectKernels();
  void SelectTransports();
  void UpdateRecordStates();

  const TSR_HostApi* host_api_ = nullptr;
  PluginPolicy policy_;
  std::vector<PluginRecord> records_;
  std::vector<std::shared_ptr<const PluginLibrary>> libraries_;  // every library ever loaded
  std::vector<DeviceTypeSpec> device_types_;
  std::vector<OpSpec> ops_;
  std::vector<KernelSpec> kernels_;
  std::vector<TransportSpec> transports_;
  std::vector<std::string> warnings_;
};

}  // namespace tessera

#endif  // TESSERA_REGISTRY_PLUGIN_REGISTRY_H_
