// PluginRegistry::FormatText and FormatJson: what `tessera plugins [--json]` prints.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "registry/plugin_registry.h"

namespace tessera {
namespace {

std::string ProvidesText(const PluginRecord& record) {
  std::vector<std::string> parts;
  for (const ManifestProvide& provide : record.provides) parts.push_back(provide.ToString());
  return parts.empty() ? "-" : absl::StrJoin(parts, ",");
}

std::string FileText(const PluginRecord& record) {
  const std::string& path =
      record.library_path.empty() ? record.manifest_path : record.library_path;
  if (path.empty()) return "-";
  const std::string name = std::filesystem::path(path).filename().string();
  return name.empty() ? path : name;
}

}  // namespace

std::string PluginRegistry::FormatText() const {
  const std::vector<std::string> header = {"NAME",     "VERSION", "STATE",
                                           "PROVIDES", "FILE",    "REASON"};
  std::vector<std::vector<std::string>> rows = {header};
  for (const PluginRecord& record : records_) {
    rows.push_back({record.name, record.version.empty() ? "-" : record.version,
                    PluginStateName(record.state), ProvidesText(record), FileText(record),
                    record.reason});
  }
  std::vector<size_t> widths(header.size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    absl::StrAppend(&out, line, "\n");
  }
  if (records_.empty()) absl::StrAppend(&out, "(no plugins found)\n");

  if (!device_types_.empty()) {
    absl::StrAppend(&out, "\ndevice types:\n");
    size_t type_width = 0;
    for (const DeviceTypeSpec& spec : device_types_) {
      type_width = std::max(type_width, spec.device_type.size());
    }
    for (const DeviceTypeSpec& spec : device_types_) {
      absl::StrAppend(
          &out, "  ", spec.device_type, std::string(type_width - spec.device_type.size() + 2, ' '),
          spec.origin.plugin_name, " (priority ", spec.origin.plugin_priority, ")  ",
          spec.active ? "active" : absl::StrCat("shadowed: ", spec.shadowed_reason), "\n");
    }
  }
  std::vector<std::string> warnings = warnings_;
  for (const PluginRecord& record : records_) {
    for (const std::string& warning : record.warnings) {
      warnings.push_back(absl::StrCat("plugin '", record.name, "': ", warning));
    }
  }
  if (!warnings.empty()) {
    absl::StrAppend(&out, "\nwarnings:\n");
    for (const std::string& warning : warnings) absl::StrAppend(&out, "  ", warning, "\n");
  }
  return out;
}

std::string PluginRegistry::FormatJson() const {
  using Json = nlohmann::ordered_json;
  Json plugins = Json::array();
  for (const PluginRecord& record : records_) {
    Json provides = Json::array();
    for (const ManifestProvide& provide : record.provides) {
      Json entry = {{"kind", std::string(ProvideKindName(provide.kind))}};
      if (!provide.name.empty()) entry["name"] = provide.name;
      provides.push_back(std::move(entry));
    }
    plugins.push_back({
        {"name", record.name},
        {"version", record.version},
        {"vendor", record.vendor},
        {"state", PluginStateName(record.state)},
        {"code", record.status.ok() ? "OK" : absl::StatusCodeToString(record.status.code())},
        {"reason", record.reason},
        {"priority", record.priority},
        {"provides", std::move(provides)},
        {"manifest", record.manifest_path},
        {"library", record.library_path},
        {"warnings", record.warnings},
    });
  }
  Json device_types = Json::array();
  for (const DeviceTypeSpec& spec : device_types_) {
    device_types.push_back({
        {"device_type", spec.device_type},
        {"plugin", spec.origin.plugin_name},
        {"plugin_priority", spec.origin.plugin_priority},
        {"type_priority", spec.priority},
        {"active", spec.active},
        {"reason", spec.shadowed_reason},
    });
  }
  Json root = {{"plugins", std::move(plugins)},
               {"device_types", std::move(device_types)},
               {"warnings", warnings_}};
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace tessera
