// SummarizeRegistrations, CompareSummaries and SmokeTestDevices.
#include "kit/registration_summary.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kit/case_list.h"
#include "kit/device_cases.h"
#include "registry/device_handle.h"

namespace tessera::plugin_check {
namespace {

std::string DeviceLine(const DeviceTypeSpec& spec) {
  const TSR_DeviceTypeRegistration& r = spec.registration;
  auto has = [](const void* slot) { return slot != nullptr ? "1" : "0"; };
  return absl::StrCat("device ", spec.device_type, " priority=", spec.priority,
                      " flags=", spec.flags, " count_for_config=",
                      has(reinterpret_cast<const void*>(r.GetDeviceCountForConfig)),
                      " properties=", has(reinterpret_cast<const void*>(r.Device_GetProperties)),
                      " stats=", has(reinterpret_cast<const void*>(r.Memory_GetStats)),
                      " streams=", has(reinterpret_cast<const void*>(r.Stream_Create)),
                      " profiling=",
                      has(reinterpret_cast<const void*>(spec.profiling.Event_ElapsedMicros)));
}

std::string ArgLine(const OpArgSpec& arg) {
  return absl::StrCat(arg.name, ":", arg.dtype, "/", arg.type_attr, "/", arg.number_attr, "/",
                      arg.type_list_attr, arg.is_ref ? "/ref" : "");
}

std::string OpLine(const OpSpec& op) {
  std::vector<std::string> parts;
  for (const OpArgSpec& arg : op.inputs) parts.push_back("in " + ArgLine(arg));
  for (const OpArgSpec& arg : op.outputs) parts.push_back("out " + ArgLine(arg));
  for (const OpAttrSpec& attr : op.attrs) {
    parts.push_back(absl::StrCat("attr ", attr.name, ":", AttrTypeName(attr.type),
                                 attr.default_value.has_value() ? "=default" : "",
                                 " allowed=", absl::StrJoin(attr.allowed_types, ",")));
  }
  return absl::StrCat("op ", op.name, " flags=", op.flags, " shape_fn=",
                      op.shape_fn != nullptr ? "1" : "0", " ", absl::StrJoin(parts, " "));
}

std::string KernelLine(const KernelSpec& kernel) {
  std::vector<std::string> constraints;
  for (const auto& [attr, dtypes] : kernel.type_constraints) {
    constraints.push_back(absl::StrCat(attr, "=", absl::StrJoin(dtypes, ",")));
  }
  return absl::StrCat("kernel ", kernel.op_name, " on ", kernel.device_type, " ",
                      absl::StrJoin(constraints, " "), " host_memory=",
                      absl::StrJoin(kernel.host_memory_args, ","), " priority=", kernel.priority,
                      " flags=", kernel.flags);
}

}  // namespace

std::vector<std::string> SummarizeRegistrations(const PluginRegistry& registry,
                                                const std::string& plugin_name) {
  std::vector<std::string> lines;
  for (const DeviceTypeSpec& spec : registry.device_types()) {
    if (spec.origin.plugin_name == plugin_name) lines.push_back(DeviceLine(spec));
  }
  for (const OpSpec& op : registry.ops()) {
    if (op.origin.plugin_name == plugin_name) lines.push_back(OpLine(op));
  }
  for (const KernelSpec& kernel : registry.kernels()) {
    if (kernel.origin.plugin_name == plugin_name) lines.push_back(KernelLine(kernel));
  }
  for (const TransportSpec& transport : registry.transports()) {
    if (transport.origin.plugin_name == plugin_name) {
      lines.push_back(absl::StrCat("transport ", transport.name, " capabilities=",
                                   transport.capabilities));
    }
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::string CompareSummaries(const std::vector<std::string>& expected,
                             const std::vector<std::string>& actual) {
  std::vector<std::string> missing;
  std::vector<std::string> added;
  std::set_difference(expected.begin(), expected.end(), actual.begin(), actual.end(),
                      std::back_inserter(missing));
  std::set_difference(actual.begin(), actual.end(), expected.begin(), expected.end(),
                      std::back_inserter(added));
  if (missing.empty() && added.empty()) return "";
  std::string text;
  if (!missing.empty()) absl::StrAppend(&text, "missing: ", absl::StrJoin(missing, "; "));
  if (!added.empty()) {
    absl::StrAppend(&text, text.empty() ? "" : "; ", "extra: ", absl::StrJoin(added, "; "));
  }
  return text;
}

std::string SmokeTestDevices(const PluginRegistry& registry, const std::string& plugin_name) {
  for (const DeviceTypeSpec& spec : registry.device_types()) {
    if (spec.origin.plugin_name != plugin_name) continue;
    absl::StatusOr<int> count = spec.DeviceCount();
    if (!count.ok()) return CaseList::Describe(count.status());
    if (*count == 0) continue;
    absl::StatusOr<std::unique_ptr<PluginDevice>> device = spec.CreateDevice(0);
    if (!device.ok()) return CaseList::Describe(device.status());
    absl::StatusOr<void*> ptr = (*device)->Allocate(4096, 64);
    if (!ptr.ok()) return CaseList::Describe(ptr.status());
    std::string problem = RoundTrip(**device, *ptr, Pattern(4096, 9));
    absl::Status freed = (*device)->Free(*ptr, 4096);
    if (problem.empty() && !freed.ok()) problem = CaseList::Describe(freed);
    if (!problem.empty()) return absl::StrCat(spec.device_type, ":0: ", problem);
  }
  return "";
}

}  // namespace tessera::plugin_check
