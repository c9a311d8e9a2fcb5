// The device suite's parts: what every group of device cases shares, and the groups. Internal to
// kit/; the suite itself (RunDeviceSuite) is in device_suite.cc.
#ifndef TESSERA_KIT_DEVICE_CASES_H_
#define TESSERA_KIT_DEVICE_CASES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kit/case_list.h"
#include "registry/device_handle.h"
#include "registry/specs.h"

namespace tessera::plugin_check {

// One device type under test and the devices the enumeration cases created.
struct DeviceTarget {
  const DeviceTypeSpec* spec = nullptr;
  std::vector<std::unique_ptr<PluginDevice>> devices;  // ordinals 0 .. default count - 1
  DeviceProperties properties;                         // of devices[0]
  size_t alignment = 1;       // properties.memory_alignment, or 1 when it is not given
  bool has_stats = false;     // Memory_GetStats answers
  uint64_t large_bytes = 0;   // bound of the large allocations
};

// Fills `size` bytes with a pattern that differs between positions and seeds, so that a dropped,
// repeated or shifted byte shows.
std::vector<uint8_t> Pattern(size_t size, uint32_t seed);

// "" when `actual` equals `expected`, otherwise where they first differ and how many bytes do:
// "byte 64 of 65 differs (expected 0x3f, got 0xcd); 1 byte differs in all".
std::string CompareBytes(const std::vector<uint8_t>& expected, const std::vector<uint8_t>& actual);

// Synchronous copies on one device: on a device with streams they are enqueued on a stream the
// copier owns and waited for (Stream_Synchronize); otherwise the copy slots get no stream.
class SyncCopier {
 public:
  explicit SyncCopier(PluginDevice* device, TSR_StreamKind kind = TSR_STREAM_KIND_COMPUTE);
  ~SyncCopier();
  SyncCopier(const SyncCopier&) = delete;
  SyncCopier& operator=(const SyncCopier&) = delete;

  // The stream creation's error, if any.
  const absl::Status& status() const { return status_; }
  absl::Status ToDevice(void* dst, const void* src, size_t size);
  absl::Status ToHost(void* dst, const void* src, size_t size);
  absl::Status DeviceToDevice(void* dst, const void* src, size_t size);

 private:
  absl::Status Finish(absl::Status enqueued);

  PluginDevice* device_;
  TSR_Stream* stream_ = nullptr;
  absl::Status status_;
};

// Writes `bytes` to device memory `dst` and reads them back, comparing byte by byte. "" on
// success, otherwise what went wrong.
std::string RoundTrip(PluginDevice& device, void* dst, const std::vector<uint8_t>& bytes);

// Memory_GetStats' bytes_in_use, or -1 when the device has no statistics.
int64_t BytesInUse(PluginDevice& device);

// Compares bytes_in_use before and after a case that returned everything it took: "" when equal
// (or when the device has no statistics), otherwise the failure text.
std::string LeakText(PluginDevice& device, int64_t before, const std::string& what);

// The groups of cases, run in this order by RunDeviceSuite. Each appends its cases to `cases`.
// Enumeration creates target->devices; the others need at least one device.
void RunEnumerationCases(DeviceTarget* target, CaseList& cases);
void RunPropertiesCases(DeviceTarget* target, CaseList& cases);
void RunAllocationCases(DeviceTarget& target, CaseList& cases);
void RunExhaustionCases(DeviceTarget& target, CaseList& cases);
void RunForeignFreeCase(DeviceTarget& target, CaseList& cases);
void RunStatsCases(DeviceTarget& target, CaseList& cases);
void RunCopyCases(DeviceTarget& target, CaseList& cases);
void RunStreamCases(DeviceTarget& target, CaseList& cases);
void RunConcurrencyCases(DeviceTarget& target, CaseList& cases);

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_DEVICE_CASES_H_
