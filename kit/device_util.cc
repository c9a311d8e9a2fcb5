// What the device cases share: byte patterns and their comparison, synchronous copies, memory
// statistics.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kit/device_cases.h"

namespace tessera::plugin_check {

std::vector<uint8_t> Pattern(size_t size, uint32_t seed) {
  std::vector<uint8_t> bytes(size);
  uint32_t state = seed * 2654435761u + 1;
  for (size_t i = 0; i < size; ++i) {
    state = state * 1664525u + 1013904223u;  // a different byte at every position
    bytes[i] = static_cast<uint8_t>((state >> 24) ^ i);
  }
  return bytes;
}

std::string CompareBytes(const std::vector<uint8_t>& expected, const std::vector<uint8_t>& actual) {
  if (expected.size() != actual.size()) {
    return absl::StrCat("expected ", expected.size(), " bytes, got ", actual.size());
  }
  size_t first = expected.size();
  size_t differing = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] != actual[i]) {
      if (first == expected.size()) first = i;
      ++differing;
    }
  }
  if (differing == 0) return "";
  char detail[64];
  std::snprintf(detail, sizeof(detail), "(expected 0x%02x, got 0x%02x)", expected[first],
                actual[first]);
  return absl::StrCat("byte ", first, " of ", expected.size(), " differs ", detail, "; ", differing,
                      differing == 1 ? " byte differs" : " bytes differ", " in all");
}

SyncCopier::SyncCopier(PluginDevice* device, TSR_StreamKind kind) : device_(device) {
  if (!device_->has_streams()) return;
  absl::StatusOr<TSR_Stream*> stream = device_->CreateStream(kind);
  if (stream.ok()) {
    stream_ = *stream;
  } else {
    status_ = stream.status();
  }
}

SyncCopier::~SyncCopier() {
  if (stream_ != nullptr) {
    device_->StreamSynchronize(stream_).IgnoreError();  // Stream_Destroy comes after its work
    device_->DestroyStream(stream_);
  }
}

absl::Status SyncCopier::Finish(absl::Status enqueued) {
  if (!enqueued.ok() || stream_ == nullptr) return enqueued;
  return device_->StreamSynchronize(stream_);
}

absl::Status SyncCopier::ToDevice(void* dst, const void* src, size_t size) {
  if (!status_.ok()) return status_;
  return Finish(device_->MemcpyHostToDevice(dst, src, size, stream_));
}

absl::Status SyncCopier::ToHost(void* dst, const void* src, size_t size) {
  if (!status_.ok()) return status_;
  return Finish(device_->MemcpyDeviceToHost(dst, src, size, stream_));
}

absl::Status SyncCopier::DeviceToDevice(void* dst, const void* src, size_t size) {
  if (!status_.ok()) return status_;
  return Finish(device_->MemcpyDeviceToDevice(dst, src, size, stream_));
}

std::string RoundTrip(PluginDevice& device, void* dst, const std::vector<uint8_t>& bytes) {
  SyncCopier copier(&device);
  if (absl::Status status = copier.ToDevice(dst, bytes.data(), bytes.size()); !status.ok()) {
    return CaseList::Describe(status);
  }
  std::vector<uint8_t> back(bytes.size(), 0xcd);
  if (absl::Status status = copier.ToHost(back.data(), dst, back.size()); !status.ok()) {
    return CaseList::Describe(status);
  }
  std::string differs = CompareBytes(bytes, back);
  if (differs.empty()) return "";
  return absl::StrCat(bytes.size(), " bytes written with Memcpy_HostToDevice and read back with "
                      "Memcpy_DeviceToHost: ", differs);
}

int64_t BytesInUse(PluginDevice& device) {
  absl::StatusOr<DeviceMemoryStats> stats = device.MemoryStats();
  return stats.ok() ? stats->bytes_in_use : -1;
}

std::string LeakText(PluginDevice& device, int64_t before, const std::string& what) {
  if (before < 0) return "";
  const int64_t after = BytesInUse(device);
  if (after == before) return "";
  return absl::StrCat("Memory_GetStats bytes_in_use was ", before, " before ", what, " and ", after,
                      " after freeing everything: ", after - before,
                      " bytes not returned (Memory_Free must release what it is given)");
}

}  // namespace tessera::plugin_check
