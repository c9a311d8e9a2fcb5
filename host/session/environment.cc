// Environment creation and the process-wide cache of environments.
#include "host/session/environment.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/abi/plugin_ops.h"
#include "host/abi/runtime_slots.h"

namespace tessera {
namespace {

// The reasons of the rejected plugins whose manifests provide device type `type` (any device type
// when `type` is empty), in load order.
std::vector<std::string> RefusedProvidersOf(const PluginRegistry& plugins,
                                            const std::string& type) {
  std::vector<std::string> reasons;
  for (const PluginRecord& record : plugins.records()) {
    if (record.state != PluginState::kRejected) continue;
    for (const ManifestProvide& provide : record.provides) {
      if (provide.kind == ProvideKind::kDevice && (type.empty() || provide.name == type)) {
        reasons.push_back(record.reason);
        break;
      }
    }
  }
  return reasons;
}

// device_count without the types whose plugin was refused (a GPU plugin on a machine without a
// GPU): a count of 0 for such a type is what the machine has, and a positive count cannot be met,
// which the error says with the plugin's reason. A count of 0 for a type no plugin provides at all
// asks for nothing and is dropped too (a configuration written for machines with GPUs, run where
// no GPU plugin is installed); a positive one is left for the device manager to refuse.
absl::StatusOr<std::map<std::string, int>> DeviceCountsOfLoadedTypes(
    const PluginRegistry& plugins, const std::map<std::string, int>& device_count) {
  std::map<std::string, int> kept;
  for (const auto& [type, count] : device_count) {
    const bool loaded = plugins.FindDeviceType(type) != nullptr;
    if (!loaded && count == 0) continue;
    // A negative count goes on to the device manager, which says what is wrong with it.
    const std::vector<std::string> refused =
        loaded || count < 0 ? std::vector<std::string>() : RefusedProvidersOf(plugins, type);
    if (refused.empty()) {
      kept.emplace(type, count);
    } else {
      return absl::FailedPreconditionError(absl::StrCat(
          "device_count asks for ", count, " ", type, " device", count == 1 ? "" : "s",
          ", but every plugin that provides them was refused: ", absl::StrJoin(refused, "; ")));
    }
  }
  return kept;
}

}  // namespace

std::string EnvironmentOptions::DeviceOptionsKey() const {
  std::string key;
  for (const auto& [type, options] : device_options) {
    absl::StrAppend(&key, type, "{", absl::StrJoin(options, "\x1f", absl::PairFormatter("=")),
                    "}");
  }
  return key;
}

std::string EnvironmentOptions::Key() const {
  return absl::StrCat(
      absl::StrJoin(plugin_paths, "\x1f"), "|",
      default_plugin_dir.has_value() ? "dir=" + *default_plugin_dir : std::string("exe"), "|",
      inter_op_threads, "|", intra_op_threads, "|",
      absl::StrJoin(device_count, ",", absl::PairFormatter("=")), "|", DeviceOptionsKey(), "|",
      job, "|", task, "|",
      plugin_policy.Key());
}

absl::StatusOr<std::shared_ptr<Environment>> Environment::Get(const EnvironmentOptions& options) {
  static std::mutex mu;
  static auto* cache = new absl::flat_hash_map<std::string, std::shared_ptr<Environment>>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(options.Key());
  if (it != cache->end()) return it->second;
  ASSIGN_OR_RETURN(std::shared_ptr<Environment> env, Create(options));
  cache->emplace(options.Key(), env);
  return env;
}

absl::StatusOr<std::shared_ptr<Environment>> Environment::Create(
    const EnvironmentOptions& options) {
  auto env = std::shared_ptr<Environment>(new Environment());
  RegistryOptions registry_options;
  registry_options.plugin_paths = options.plugin_paths;
  registry_options.default_plugin_dir = options.default_plugin_dir;
  registry_options.policy = options.plugin_policy;
  registry_options.runtime_slots = RuntimeSlots();
  ASSIGN_OR_RETURN(env->plugins_, PluginRegistry::Create(registry_options));

  env->ops_ = OpRegistry::CreateStandard();
  // A plugin op that cannot be registered (say, one reusing a standard op's name) is left out
  // with a warning; it never stops the other plugins' ops.
  absl::Status ops_status =
      RegisterPluginOps(env->plugins_->ops(), *env->plugins_->host_api(), env->ops_.get());
  if (!ops_status.ok()) {
    std::fprintf(stderr, "tessera: warning: %s\n", std::string(ops_status.message()).c_str());
  }

  DeviceManagerOptions device_options;
  ASSIGN_OR_RETURN(device_options.device_count,
                   DeviceCountsOfLoadedTypes(*env->plugins_, options.device_count));
  for (const auto& [type, type_options] : options.device_options) {
    // A refused plugin's type has no devices to configure.
    if (env->plugins_->FindDeviceType(type) == nullptr &&
        !RefusedProvidersOf(*env->plugins_, type).empty()) {
      continue;
    }
    device_options.type_options.emplace(type, type_options);
  }
  device_options.job = options.job;
  device_options.task = options.task;
  ASSIGN_OR_RETURN(env->devices_,
                   DeviceManager::Create(env->plugins_->device_types(), device_options));
  if (env->devices_->devices().empty()) {
    std::vector<std::string> reasons = env->devices_->skipped();
    // A device plugin the policy or a check refused says why here, not only in `tessera plugins`.
    for (std::string& reason : RefusedProvidersOf(*env->plugins_, /*type=*/"")) {
      reasons.push_back(std::move(reason));
    }
    std::string why = absl::StrJoin(reasons, "; ");
    return absl::FailedPreconditionError(
        absl::StrCat("no device is available: no device plugin loaded",
                     why.empty() ? "" : absl::StrCat(" (", why, ")"),
                     "; run 'tessera plugins' to see every plugin found and why it was rejected"));
  }
  env->kernels_ = std::make_unique<KernelFactory>(env->plugins_->kernels());
  env->inter_op_pool_ = std::make_unique<ThreadPool>("inter_op", options.inter_op_threads);
  // Kernels run ParallelFor from the thread that runs the node, which works too.
  env->intra_op_pool_ =
      std::make_unique<ThreadPool>("intra_op", options.intra_op_threads, /*caller_works=*/true);
  return env;
}

}  // namespace tessera
