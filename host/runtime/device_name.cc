// Parsing and matching of device names.
#include "host/runtime/device_name.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tessera {
namespace {

bool IsValidJobName(absl::string_view s) {
  if (s.empty() || !absl::ascii_isalpha(s[0])) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

bool IsValidType(absl::string_view s) {
  if (s.empty() || !absl::ascii_isalpha(s[0])) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

// Parses "N" or "*" into (has, value).
bool ParseIdOrStar(absl::string_view s, bool* has, int* value) {
  if (s == "*") {
    *has = false;
    return true;
  }
  if (s.empty() || !absl::ascii_isdigit(s[0])) return false;
  if (!absl::SimpleAtoi(s, value) || *value < 0) return false;
  *has = true;
  return true;
}

absl::Status Malformed(absl::string_view name, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("malformed device name '", name, "': ", why));
}

}  // namespace

std::string ParsedDeviceName::ToString() const {
  std::string out;
  if (has_job) absl::StrAppend(&out, "/job:", job);
  if (has_replica) absl::StrAppend(&out, "/replica:", replica);
  if (has_task) absl::StrAppend(&out, "/task:", task);
  if (has_type || has_id) {
    absl::StrAppend(&out, "/device:", has_type ? type : "*", ":",
                    has_id ? absl::StrCat(id) : "*");
  }
  return out;
}

absl::StatusOr<ParsedDeviceName> ParseDeviceName(absl::string_view name) {
  ParsedDeviceName parsed;
  if (name.empty()) return parsed;
  absl::string_view rest = name;
  if (rest[0] != '/') {
    // "CPU:0" and "cpu:0" are accepted as a device part alone.
    rest = name;
  } else {
    rest.remove_prefix(1);
  }
  std::vector<absl::string_view> parts = absl::StrSplit(rest, '/');
  for (absl::string_view part : parts) {
    if (part.empty()) return Malformed(name, "empty component");
    std::vector<absl::string_view> kv = absl::StrSplit(part, ':');
    absl::string_view key = kv[0];
    if (key == "job" && kv.size() == 2) {
      if (kv[1] == "*") continue;
      if (!IsValidJobName(kv[1])) return Malformed(name, absl::StrCat("bad job '", kv[1], "'"));
      parsed.has_job = true;
      parsed.job = std::string(kv[1]);
    } else if (key == "replica" && kv.size() == 2) {
      if (!ParseIdOrStar(kv[1], &parsed.has_replica, &parsed.replica)) {
        return Malformed(name, absl::StrCat("bad replica '", kv[1], "'"));
      }
    } else if (key == "task" && kv.size() == 2) {
      if (!ParseIdOrStar(kv[1], &parsed.has_task, &parsed.task)) {
        return Malformed(name, absl::StrCat("bad task '", kv[1], "'"));
      }
    } else if (key == "device" && kv.size() == 3) {
      if (kv[1] != "*") {
        if (!IsValidType(kv[1])) return Malformed(name, absl::StrCat("bad type '", kv[1], "'"));
        parsed.has_type = true;
        parsed.type = absl::AsciiStrToUpper(kv[1]);
      }
      if (!ParseIdOrStar(kv[2], &parsed.has_id, &parsed.id)) {
        return Malformed(name, absl::StrCat("bad device id '", kv[2], "'"));
      }
    } else if (key == "device" && kv.size() == 2) {
      // "/device:CPU" (any id).
      if (kv[1] != "*") {
        if (!IsValidType(kv[1])) return Malformed(name, absl::StrCat("bad type '", kv[1], "'"));
        parsed.has_type = true;
        parsed.type = absl::AsciiStrToUpper(kv[1]);
      }
    } else if (kv.size() == 2 && IsValidType(key)) {
      // Legacy "/cpu:0", "/gpu:1", and "CPU:0".
      parsed.has_type = true;
      parsed.type = absl::AsciiStrToUpper(key);
      if (!ParseIdOrStar(kv[1], &parsed.has_id, &parsed.id)) {
        return Malformed(name, absl::StrCat("bad device id '", kv[1], "'"));
      }
    } else {
      return Malformed(name, absl::StrCat("unknown component '", part, "'"));
    }
  }
  return parsed;
}

bool DeviceNameMatches(const ParsedDeviceName& spec, const ParsedDeviceName& device) {
  if (spec.has_job && (!device.has_job || spec.job != device.job)) return false;
  if (spec.has_replica && (!device.has_replica || spec.replica != device.replica)) return false;
  if (spec.has_task && (!device.has_task || spec.task != device.task)) return false;
  if (spec.has_type && (!device.has_type || spec.type != device.type)) return false;
  if (spec.has_id && (!device.has_id || spec.id != device.id)) return false;
  return true;
}

absl::Status MergeDeviceNames(ParsedDeviceName* target, const ParsedDeviceName& other) {
  auto conflict = [&](absl::string_view field) {
    return absl::InvalidArgumentError(absl::StrCat("cannot merge devices with incompatible ",
                                                   field, ": '", target->ToString(), "' and '",
                                                   other.ToString(), "'"));
  };
  if (other.has_job) {
    if (target->has_job && target->job != other.job) return conflict("jobs");
    target->has_job = true;
    target->job = other.job;
  }
  if (other.has_replica) {
    if (target->has_replica && target->replica != other.replica) return conflict("replicas");
    target->has_replica = true;
    target->replica = other.replica;
  }
  if (other.has_task) {
    if (target->has_task && target->task != other.task) return conflict("tasks");
    target->has_task = true;
    target->task = other.task;
  }
  if (other.has_type) {
    if (target->has_type && target->type != other.type) return conflict("types");
    target->has_type = true;
    target->type = other.type;
  }
  if (other.has_id) {
    if (target->has_id && target->id != other.id) return conflict("ids");
    target->has_id = true;
    target->id = other.id;
  }
  return absl::OkStatus();
}

std::string FullDeviceName(absl::string_view job, int replica, int task, absl::string_view type,
                           int id) {
  return absl::StrCat("/job:", job, "/replica:", replica, "/task:", task, "/device:", type, ":",
                      id);
}

}  // namespace tessera
