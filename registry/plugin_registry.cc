// PluginRegistry: discovery, loading, ranking of providers and selection of registrations.
#include "registry/plugin_registry.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "registry/discovery.h"
#include "registry/host_api.h"

namespace tessera {
namespace {

absl::Status ValidateOptions(const RegistryOptions& options) {
  for (const InProcessPlugin& plugin : options.in_process_plugins) {
    if (!IsValidPluginName(plugin.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("in-process plugin name '", plugin.name, "' does not match [a-z0-9_-]+"));
    }
    if (plugin.init == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("in-process plugin '", plugin.name, "' has no init function"));
    }
  }
  if (options.emulate_newer_host &&
      options.host_abi_minor > TSR_ABI_VERSION_MINOR + kMaxEmulatedNewerMinors) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host_abi_minor ", options.host_abi_minor, " is more than ", kMaxEmulatedNewerMinors,
        " minors newer than this host's ABI ", TSR_ABI_VERSION_MAJOR, ".", TSR_ABI_VERSION_MINOR,
        " (an emulated newer host may be at most ", TSR_ABI_VERSION_MAJOR, ".",
        TSR_ABI_VERSION_MINOR + kMaxEmulatedNewerMinors, ")"));
  }
  if (!options.emulate_newer_host && options.host_abi_minor > TSR_ABI_VERSION_MINOR) {
    return absl::InvalidArgumentError(
        absl::StrCat("host_abi_minor ", options.host_abi_minor, " is newer than this host's ABI ",
                     TSR_ABI_VERSION_MAJOR, ".", TSR_ABI_VERSION_MINOR,
                     " (only an older host can be emulated)"));
  }
  return absl::OkStatus();
}

// Ranking key of a provider: preferred first, then higher manifest priority, then name.
auto RankKey(const PluginOrigin& origin, const std::string& preferred) {
  return std::make_tuple(origin.plugin_name != preferred,
                         -static_cast<int64_t>(origin.plugin_priority), origin.plugin_name);
}

}  // namespace

absl::StatusOr<std::unique_ptr<PluginRegistry>> PluginRegistry::Create(
    const RegistryOptions& options) {
  RETURN_IF_ERROR(ValidateOptions(options));
  std::unique_ptr<PluginRegistry> registry(new PluginRegistry);
  ASSIGN_OR_RETURN(registry->policy_, ResolvePluginPolicy(options.policy, options.discover));

  DiscoveryResult discovered;
  if (options.discover) {
    DiscoveryOptions discovery;
    discovery.explicit_paths = options.plugin_paths;
    discovery.plugin_path_env = options.plugin_path_env;
    discovery.default_plugin_dir = options.default_plugin_dir;
    ASSIGN_OR_RETURN(discovered, DiscoverManifests(discovery));
  }
  registry->warnings_ = discovered.warnings;

  LoaderOptions loader;
  loader.policy.allowlist = registry->policy_.allowlist;
  loader.policy.allowlist_source = registry->policy_.allowlist_source;
  loader.policy.require_sha256 = registry->policy_.require_sha256;
  loader.policy.require_sha256_source = registry->policy_.require_sha256_source;
  loader.policy.host_abi_minor = options.host_abi_minor;
  loader.host_api = options.host_abi_minor > TSR_ABI_VERSION_MINOR
                        ? GetEmulatedNewerHostApi(options.runtime_slots, options.host_abi_minor)
                        : GetHostApi(options.runtime_slots);
  registry->host_api_ = loader.host_api;

  for (const InProcessPlugin& plugin : options.in_process_plugins) {
    if (const PluginRecord* first = registry->FindRecord(plugin.name);
        first != nullptr && first->state != PluginState::kRejected) {
      LoadedPlugin duplicate;
      duplicate.record.name = plugin.name;
      duplicate.record.version = plugin.version;
      duplicate.record.state = PluginState::kRejected;
      duplicate.record.status = absl::AlreadyExistsError(
          absl::StrCat("in-process plugin '", plugin.name, "' is given twice"));
      duplicate.record.reason = std::string(duplicate.record.status.message());
      registry->Add(std::move(duplicate));
      continue;
    }
    registry->Add(LoadInProcessPlugin(plugin, loader));
  }
  for (const std::string& manifest_path : discovered.manifest_paths) {
    absl::StatusOr<PluginManifest> manifest = ReadManifest(manifest_path);
    if (manifest.ok()) {
      const PluginRecord* first = nullptr;
      for (const PluginRecord& record : registry->records_) {
        if (record.name == manifest->name && record.state != PluginState::kRejected) {
          first = &record;
        }
      }
      if (first != nullptr) {
        LoadedPlugin duplicate;
        duplicate.record.manifest_path = manifest->path;
        duplicate.record.library_path = manifest->library_path;
        duplicate.record.name = manifest->name;
        duplicate.record.version = manifest->version;
        duplicate.record.vendor = manifest->vendor;
        duplicate.record.priority = manifest->priority;
        duplicate.record.provides = manifest->provides;
        duplicate.record.state = PluginState::kRejected;
        duplicate.record.status = absl::AlreadyExistsError(absl::StrCat(
            "plugin '", manifest->name, "' from ", manifest->path, " is already loaded from ",
            first->manifest_path.empty() ? first->library_path : first->manifest_path,
            " (the first one found wins)"));
        duplicate.record.reason = std::string(duplicate.record.status.message());
        registry->Add(std::move(duplicate));
        continue;
      }
      registry->Add(LoadPluginFromManifest(*manifest, loader));
    } else {
      registry->Add(LoadPlugin(manifest_path, loader));  // records the parse error
    }
  }

  registry->RankDeviceTypes();
  registry->SelectOps();
  registry->SelectKernels();
  registry->SelectTransports();
  registry->UpdateRecordStates();
  return registry;
}

void PluginRegistry::Add(LoadedPlugin loaded) {
  if (loaded.library != nullptr) libraries_.push_back(loaded.library);
  PluginRegistrations& r = loaded.registrations;
  for (DeviceTypeSpec& spec : r.device_types) device_types_.push_back(std::move(spec));
  for (OpSpec& spec : r.ops) ops_.push_back(std::move(spec));
  for (KernelSpec& spec : r.kernels) kernels_.push_back(std::move(spec));
  for (TransportSpec& spec : r.transports) transports_.push_back(std::move(spec));
  records_.push_back(std::move(loaded.record));
}

void PluginRegistry::RankDeviceTypes() {
  auto preferred_for = [&](const std::string& device_type) -> std::string {
    auto it = policy_.preferred_providers.find(device_type);
    return it == policy_.preferred_providers.end() ? std::string() : it->second.plugin;
  };
  std::stable_sort(device_types_.begin(), device_types_.end(),
                   [&](const DeviceTypeSpec& a, const DeviceTypeSpec& b) {
                     if (a.device_type != b.device_type) return a.device_type < b.device_type;
                     const std::string preferred = preferred_for(a.device_type);
                     return RankKey(a.origin, preferred) < RankKey(b.origin, preferred);
                   });
  const DeviceTypeSpec* winner = nullptr;
  for (DeviceTypeSpec& spec : device_types_) {
    const bool preferred = preferred_for(spec.device_type) == spec.origin.plugin_name;
    const std::string preference =
        preferred ? policy_.DescribePreference(spec.device_type) : std::string();
    if (winner == nullptr || winner->device_type != spec.device_type) {
      winner = &spec;
      spec.active = true;
      spec.shadowed_reason.clear();
      spec.preferred_by = preference;
      continue;
    }
    spec.active = false;
    spec.preferred_by.clear();
    spec.shadowed_reason =
        absl::StrCat("device type '", spec.device_type, "' is provided by '",
                     winner->origin.plugin_name, "' (priority ", winner->origin.plugin_priority,
                     "), which ",
                     winner->preferred_by.empty()
                         ? "ranks higher"
                         : absl::StrCat("is preferred by ", winner->preferred_by));
  }
  for (const auto& entry : policy_.preferred_providers) {
    const std::string& device_type = entry.first;  // a plain name: lambdas may capture it
    const auto& preferred = entry.second;
    const std::string& plugin = preferred.plugin;
    const bool provides =
        std::any_of(device_types_.begin(), device_types_.end(), [&](const DeviceTypeSpec& spec) {
          return spec.device_type == device_type && spec.origin.plugin_name == plugin;
        });
    if (!provides) {
      warnings_.push_back(absl::StrCat("preferred provider '", plugin, "' for device type '",
                                       device_type, "' is not loaded or does not provide it (from ",
                                       preferred.source, ")"));
    }
  }
}

void PluginRegistry::SelectOps() {
  std::stable_sort(ops_.begin(), ops_.end(), [](const OpSpec& a, const OpSpec& b) {
    if (a.name != b.name) return a.name < b.name;
    return RankKey(a.origin, "") < RankKey(b.origin, "");
  });
  std::vector<OpSpec> kept;
  for (OpSpec& op : ops_) {
    if (!kept.empty() && kept.back().name == op.name) {
      warnings_.push_back(absl::StrCat("op '", op.name, "' from plugin '", op.origin.plugin_name,
                                       "' is ignored: plugin '", kept.back().origin.plugin_name,
                                       "' defines it too and ranks higher"));
      continue;
    }
    kept.push_back(std::move(op));
  }
  ops_ = std::move(kept);
}

void PluginRegistry::SelectKernels() {
  // A provider's kernels for its own device type go with it when it is shadowed.
  std::set<std::pair<std::string, std::string>> shadowed;  // (plugin, device type)
  for (const DeviceTypeSpec& spec : device_types_) {
    if (!spec.active) shadowed.emplace(spec.origin.plugin_name, spec.device_type);
  }
  kernels_.erase(
      std::remove_if(kernels_.begin(), kernels_.end(),
                     [&](const KernelSpec& kernel) {
                       return shadowed.count({kernel.origin.plugin_name, kernel.device_type}) != 0;
                     }),
      kernels_.end());
  std::stable_sort(kernels_.begin(), kernels_.end(), [](const KernelSpec& a, const KernelSpec& b) {
    return std::make_tuple(a.op_name, a.device_type, -static_cast<int64_t>(a.priority),
                           a.origin.plugin_name) <
           std::make_tuple(b.op_name, b.device_type, -static_cast<int64_t>(b.priority),
                           b.origin.plugin_name);
  });
}

void PluginRegistry::SelectTransports() {
  std::stable_sort(transports_.begin(), transports_.end(),
                   [](const TransportSpec& a, const TransportSpec& b) {
                     if (a.name != b.name) return a.name < b.name;
                     return RankKey(a.origin, "") < RankKey(b.origin, "");
                   });
  std::vector<TransportSpec> kept;
  for (TransportSpec& transport : transports_) {
    if (!kept.empty() && kept.back().name == transport.name) {
      warnings_.push_back(absl::StrCat("transport '", transport.name, "' from plugin '",
                                       transport.origin.plugin_name, "' is ignored: plugin '",
                                       kept.back().origin.plugin_name,
                                       "' provides it too and ranks higher"));
      continue;
    }
    kept.push_back(std::move(transport));
  }
  transports_ = std::move(kept);
}

void PluginRegistry::UpdateRecordStates() {
  for (PluginRecord& record : records_) {
    if (record.state != PluginState::kLoaded) continue;
    std::vector<std::string> reasons;
    bool any_active = false;
    bool any_device = false;
    for (const DeviceTypeSpec& spec : device_types_) {
      if (spec.origin.plugin_name != record.name) continue;
      any_device = true;
      if (spec.active) {
        any_active = true;
        if (!spec.preferred_by.empty()) {
          reasons.push_back(absl::StrCat("serves device type '", spec.device_type,
                                         "', preferred by ", spec.preferred_by));
        }
      } else {
        reasons.push_back(spec.shadowed_reason);
      }
    }
    auto from_record = [&](const auto& spec) { return spec.origin.plugin_name == record.name; };
    const bool keeps_other = std::any_of(ops_.begin(), ops_.end(), from_record) ||
                             std::any_of(kernels_.begin(), kernels_.end(), from_record) ||
                             std::any_of(transports_.begin(), transports_.end(), from_record);
    record.reason = absl::StrJoin(reasons, "; ");
    if (any_device && !any_active && !keeps_other) record.state = PluginState::kShadowed;
  }
}

const PluginRecord* PluginRegistry::FindRecord(absl::string_view plugin_name) const {
  for (const PluginRecord& record : records_) {
    if (record.name == plugin_name && record.state != PluginState::kRejected) return &record;
  }
  for (const PluginRecord& record : records_) {
    if (record.name == plugin_name) return &record;
  }
  return nullptr;
}

const DeviceTypeSpec* PluginRegistry::FindDeviceType(absl::string_view device_type) const {
  for (const DeviceTypeSpec& spec : device_types_) {
    if (spec.device_type == device_type && spec.active) return &spec;
  }
  return nullptr;
}

std::vector<const DeviceTypeSpec*> PluginRegistry::ActiveDeviceTypes() const {
  std::vector<const DeviceTypeSpec*> active;
  for (const DeviceTypeSpec& spec : device_types_) {
    if (spec.active) active.push_back(&spec);
  }
  std::stable_sort(active.begin(), active.end(),
                   [](const DeviceTypeSpec* a, const DeviceTypeSpec* b) {
                     if (a->priority != b->priority) return a->priority > b->priority;
                     return a->device_type < b->device_type;
                   });
  return active;
}

const OpSpec* PluginRegistry::FindOp(absl::string_view op_name) const {
  auto it =
      std::lower_bound(ops_.begin(), ops_.end(), op_name,
                       [](const OpSpec& op, absl::string_view name) { return op.name < name; });
  return it != ops_.end() && it->name == op_name ? &*it : nullptr;
}

std::vector<const KernelSpec*> PluginRegistry::FindKernels(absl::string_view op_name,
                                                           absl::string_view device_type) const {
  std::vector<const KernelSpec*> found;
  for (const KernelSpec& kernel : kernels_) {
    if (kernel.op_name == op_name && kernel.device_type == device_type) found.push_back(&kernel);
  }
  return found;
}

const TransportSpec* PluginRegistry::FindTransport(absl::string_view name) const {
  for (const TransportSpec& transport : transports_) {
    if (transport.name == name) return &transport;
  }
  return nullptr;
}

}  // namespace tessera
