// PluginRegistry::FormatText and FormatJson: what `tessera plugins [--json]` prints.
#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
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

// The policy in force, one setting a line with its source; "" when nothing is set.
std::string PolicyText(const PluginPolicy& policy) {
  std::vector<std::pair<std::string, std::string>> lines;  // (setting, source)
  if (policy.allowlist.has_value()) {
    lines.emplace_back(absl::StrCat("allow ", policy.allowlist->empty()
                                                  ? "(none)"
                                                  : absl::StrJoin(*policy.allowlist, ", ")),
                       policy.allowlist_source);
  }
  if (policy.require_sha256) lines.emplace_back("require sha256", policy.require_sha256_source);
  for (const auto& [device_type, preferred] : policy.preferred_providers) {
    lines.emplace_back(absl::StrCat("prefer ", device_type, "=", preferred.plugin),
                       preferred.source);
  }
  if (lines.empty() && policy.config_file.empty()) return "";
  std::string out = "\npolicy:\n";
  if (!policy.config_file.empty()) {
    absl::StrAppend(&out, "  config file ", policy.config_file, "\n");
  }
  size_t width = 0;
  for (const auto& line : lines) width = std::max(width, line.first.size());
  for (const auto& [setting, source] : lines) {
    absl::StrAppend(&out, "  ", setting, std::string(width - setting.size() + 2, ' '), "(from ",
                    source, ")\n");
  }
  return out;
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
          spec.active ? (spec.preferred_by.empty()
                             ? std::string("active")
                             : absl::StrCat("active, preferred by ", spec.preferred_by))
                      : absl::StrCat("shadowed: ", spec.shadowed_reason),
          "\n");
    }
  }
  absl::StrAppend(&out, PolicyText(policy_));
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
        {"preferred_by", spec.preferred_by},
    });
  }
  Json preferred = Json::object();
  for (const auto& [device_type, preference] : policy_.preferred_providers) {
    preferred[device_type] = {{"plugin", preference.plugin}, {"source", preference.source}};
  }
  Json policy = {
      {"config_file", policy_.config_file},
      {"allow", policy_.allowlist.has_value() ? Json(*policy_.allowlist) : Json()},
      {"allow_source", policy_.allowlist_source},
      {"require_sha256", policy_.require_sha256},
      {"require_sha256_source", policy_.require_sha256_source},
      {"prefer", std::move(preferred)},
  };
  Json root = {{"plugins", std::move(plugins)},
               {"device_types", std::move(device_types)},
               {"policy", std::move(policy)},
               {"warnings", warnings_}};
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace tessera
