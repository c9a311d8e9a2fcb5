// Device names: full ("/job:localhost/replica:0/task:0/device:CPU:0") and partial specs
// ("/device:CPU:*", "/job:worker/task:1", legacy "/cpu:0"), parsed and matched as TensorFlow does.
#ifndef TESSERA_HOST_RUNTIME_DEVICE_NAME_H_
#define TESSERA_HOST_RUNTIME_DEVICE_NAME_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {

struct ParsedDeviceName {
  bool has_job = false;
  std::string job;
  bool has_replica = false;
  int replica = 0;
  bool has_task = false;
  int task = 0;
  bool has_type = false;
  std::string type;  // upper case: "CPU", "GPU", "FAKE"
  bool has_id = false;
  int id = 0;

  bool IsFullySpecified() const { return has_job && has_replica && has_task && has_type && has_id; }
  // "/job:j/replica:r/task:t/device:T:n", leaving out the parts that are not set.
  std::string ToString() const;
};

// Parses a full or partial device name; "" is the empty spec. INVALID_ARGUMENT on malformed names
// (naming the name and what is wrong).
absl::StatusOr<ParsedDeviceName> ParseDeviceName(absl::string_view name);

// True when every field set in `spec` equals the same field of `device`.
bool DeviceNameMatches(const ParsedDeviceName& spec, const ParsedDeviceName& device);

// Merges `other` into `target`; INVALID_ARGUMENT when both set a field to different values.
absl::Status MergeDeviceNames(ParsedDeviceName* target, const ParsedDeviceName& other);

// "/job:localhost/replica:0/task:0/device:CPU:0".
std::string FullDeviceName(absl::string_view job, int replica, int task, absl::string_view type,
                           int id);

}  // namespace tessera

#endif  // TESSERA_HOST_RUNTIME_DEVICE_NAME_H_
