// RunDeviceSuite: every device type the plugin registers (or --device), through the host's
// PluginDevice; here the suite's order, enumeration, properties and the final leak check.
#include <algorithm>
#include <climits>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kit/device_cases.h"
#include "kit/suite.h"
#include "registry/abi_status.h"
#include "registry/host_api.h"

namespace tessera::plugin_check {
namespace {

constexpr uint64_t kDefaultLargeAllocationBytes = uint64_t{256} << 20;
// More devices than this are not all created (a type may offer hundreds of virtual devices).
constexpr int kMaxDevicesCreated = 16;

// Calls Device_Create directly with an ordinal the host would never pass, so that the plugin's
// own refusal is what is checked.
std::string RefusesOrdinal(const DeviceTypeSpec& spec, int32_t ordinal) {
  TSR_Device_Create_Args args{};
  args.struct_size = sizeof(args);
  args.ordinal = ordinal;
  TSR_Device* device = nullptr;
  TSR_Status* status = spec.registration.Device_Create(spec.registration.user_data, &args, &device);
  if (status != nullptr) {
    FromAbiStatus(status, "").IgnoreError();
    return "";
  }
  if (device != nullptr) spec.registration.Device_Destroy(device);
  return absl::StrCat("Device_Create accepted ordinal ", ordinal,
                      "; an ordinal outside [0, count) must be refused with INVALID_ARGUMENT");
}

// Destroys every device while collecting what the plugin logs at WARNING or above: a device that
// reports live allocations (or anything else) on destruction fails the case.
void DestroyDevices(DeviceTarget& target, CaseList& cases) {
  std::mutex mutex;
  std::vector<std::string> logged;
  SetPluginLogSink([&](TSR_LogSeverity severity, absl::string_view source,
                       absl::string_view message) {
    if (severity < TSR_LOG_SEVERITY_WARNING) return;
    std::lock_guard<std::mutex> lock(mutex);
    logged.push_back(absl::StrCat("[", source, "] ", message));
  });
  const size_t count = target.devices.size();
  target.devices.clear();
  SetPluginLogSink(nullptr);
  if (logged.empty()) {
    cases.Pass("leak/destroy", absl::StrCat(count, " device(s) destroyed quietly"));
  } else {
    cases.Fail("leak/destroy",
               absl::StrCat("destroying the devices logged ", logged.size(),
                            " warning(s) (all memory was freed, so none is expected):\n",
                            absl::StrJoin(logged, "\n")));
  }
}

void RunDeviceType(const SuiteContext& context, const DeviceTypeSpec& spec,
                   std::vector<CaseResult>* results) {
  CaseList cases("device", spec.device_type + "/", results);
  DeviceTarget target;
  target.spec = &spec;
  target.large_bytes = context.options->large_allocation_bytes != 0
                           ? context.options->large_allocation_bytes
                           : kDefaultLargeAllocationBytes;
  RunEnumerationCases(&target, cases);
  if (target.devices.empty()) {
    cases.Skip("rest", "no device could be created, so no further device case can run");
    return;
  }
  RunPropertiesCases(&target, cases);
  PluginDevice& device = *target.devices[0];
  const int64_t start_in_use = BytesInUse(device);
  target.has_stats = start_in_use >= 0;
  RunAllocationCases(target, cases);
  RunExhaustionCases(target, cases);
  RunForeignFreeCase(target, cases);
  RunStatsCases(target, cases);
  RunCopyCases(target, cases);
  RunStreamCases(target, cases);
  RunConcurrencyCases(target, cases);
  if (target.has_stats) {
    const std::string leak = LeakText(device, start_in_use, "the device cases");
    if (leak.empty()) {
      cases.Pass("leak/stats", absl::StrCat("bytes_in_use back to ", start_in_use));
    } else {
      cases.Fail("leak/stats", leak);
    }
  } else {
    cases.Skip("leak/stats", "Memory_GetStats not implemented");
  }
  DestroyDevices(target, cases);
}

}  // namespace

void RunEnumerationCases(DeviceTarget* target, CaseList& cases) {
  const DeviceTypeSpec& spec = *target->spec;
  absl::StatusOr<int> count = spec.DeviceCount();
  if (!count.ok()) {
    cases.Fail("enumerate/count", CaseList::Describe(count.status()));
    return;
  }
  if (*count == 0) {
    cases.Skip("enumerate/count", "GetDeviceCount answers 0: no device of this type here");
    return;
  }
  cases.Pass("enumerate/count", absl::StrCat("GetDeviceCount: ", *count));

  absl::StatusOr<int> configured = spec.DeviceCountForConfig(-1);
  absl::StatusOr<int> one = spec.DeviceCountForConfig(1);
  if (!configured.ok() || !one.ok()) {
    cases.Fail("enumerate/count_for_config",
               CaseList::Describe(configured.ok() ? one.status() : configured.status()));
  } else if (*configured < 1 || *one != 1) {
    cases.Fail(
        "enumerate/count_for_config",
        absl::StrCat("GetDeviceCountForConfig answered ", *configured, " for the default and ",
                     *one, " for a request of 1, while GetDeviceCount says ", *count,
                     "; expected at least 1 and exactly 1"));
  } else {
    cases.Pass("enumerate/count_for_config",
               spec.registration.GetDeviceCountForConfig == nullptr
                   ? "not implemented; the host uses GetDeviceCount"
                   : absl::StrCat("default ", *configured, ", request of 1 gives 1"));
  }

  const int create = std::min(configured.ok() ? *configured : *count, kMaxDevicesCreated);
  std::vector<std::string> errors;
  for (int ordinal = 0; ordinal < create; ++ordinal) {
    absl::StatusOr<std::unique_ptr<PluginDevice>> device = spec.CreateDevice(ordinal);
    if (device.ok()) {
      target->devices.push_back(std::move(*device));
    } else {
      errors.push_back(CaseList::Describe(device.status()));
    }
  }
  if (errors.empty()) {
    cases.Pass("enumerate/create_every_ordinal", absl::StrCat(create, " device(s) created"));
  } else {
    cases.Fail("enumerate/create_every_ordinal", absl::StrJoin(errors, "\n"));
  }

  std::string refused = RefusesOrdinal(spec, -1);
  if (refused.empty()) refused = RefusesOrdinal(spec, INT32_MAX);
  if (refused.empty()) {
    cases.Pass("enumerate/out_of_range_ordinal", "ordinals -1 and 2147483647 refused");
  } else {
    cases.Fail("enumerate/out_of_range_ordinal", refused);
  }
}

void RunPropertiesCases(DeviceTarget* target, CaseList& cases) {
  PluginDevice& device = *target->devices[0];
  absl::StatusOr<DeviceProperties> properties = device.Properties();
  if (!properties.ok()) {
    cases.Fail("properties", CaseList::Describe(properties.status()));
    return;
  }
  target->properties = *properties;
  const DeviceProperties& p = *properties;
  std::vector<std::string> problems;
  if (p.memory_alignment != 0 && (p.memory_alignment & (p.memory_alignment - 1)) != 0) {
    problems.push_back(absl::StrCat("memory_alignment ", p.memory_alignment,
                                    " is not a power of two"));
  }
  if (p.memory_bytes < 0) problems.push_back(absl::StrCat("memory_bytes ", p.memory_bytes, " < 0"));
  if (p.compute_units < 0) {
    problems.push_back(absl::StrCat("compute_units ", p.compute_units, " < 0"));
  }
  if (p.description.empty()) problems.push_back("description is empty");
  if ((p.memory_kinds & (1u << TSR_MEMORY_KIND_DEVICE)) == 0 && p.memory_kinds != 0) {
    problems.push_back("memory_kinds does not list DEVICE memory");
  }
  if (p.compute_capability_major < -1 || p.compute_capability_minor < -1 || p.numa_node < -1) {
    problems.push_back("a compute capability or numa_node below -1 (unknown is -1)");
  }
  if (!problems.empty()) {
    cases.Fail("properties", absl::StrJoin(problems, "; "));
    return;
  }
  target->alignment = p.memory_alignment == 0 ? 1 : p.memory_alignment;
  cases.Pass("properties", absl::StrCat("'", p.description, "', alignment ", p.memory_alignment,
                                        ", memory ", p.memory_bytes, " bytes"));
}

void RunDeviceSuite(const SuiteContext& context, std::vector<CaseResult>* results) {
  std::vector<const DeviceTypeSpec*> types;
  std::vector<std::string> names;
  for (const DeviceTypeSpec& spec : context.registry->device_types()) {
    if (spec.origin.plugin_name != context.plugin->name) continue;
    names.push_back(spec.device_type);
    if (context.options->device_type.empty() || spec.device_type == context.options->device_type) {
      types.push_back(&spec);
    }
  }
  CaseList suite("device", "", results);
  if (names.empty()) {
    suite.Skip("device_types", absl::StrCat("plugin '", context.plugin->name,
                                            "' registers no device type"));
    return;
  }
  if (types.empty()) {
    suite.Fail("device_types", absl::StrCat("plugin '", context.plugin->name,
                                            "' does not register device type '",
                                            context.options->device_type, "'; it registers ",
                                            absl::StrJoin(names, ", ")));
    return;
  }
  for (const DeviceTypeSpec* spec : types) RunDeviceType(context, *spec, results);
}

}  // namespace tessera::plugin_check
