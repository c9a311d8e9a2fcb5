// Scrambled allocations and their bookkeeping for the TESTDEV devices.
#include "plugins/testing/testdevice_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

namespace tessera::testdevice {
namespace {

// Every live DeviceMemory, for checks that accept any TESTDEV device. Lock order: this mutex,
// then a device's own.
std::mutex& RegistryMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}
std::vector<const DeviceMemory*>& Registry() {
  static auto* devices = new std::vector<const DeviceMemory*>();
  return *devices;
}

const void* AsPointer(uintptr_t address) { return reinterpret_cast<const void*>(address); }

void LogError(const std::string& message) {
  sdk::HostApi()->Log(TSR_LOG_SEVERITY_ERROR, "testdevice", message.c_str());
}

}  // namespace

void ScrambleCopy(void* dst, const void* src, size_t size) {
  auto* out = static_cast<unsigned char*>(dst);
  const auto* in = static_cast<const unsigned char*>(src);
  // Eight bytes at a time (memcpy keeps the loads and stores alignment-safe), then the tail.
  constexpr uint64_t kWordKey = 0x0101010101010101ull * kScrambleKey;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
    std::memcpy(&word, in + i, 8);
    word ^= kWordKey;
    std::memcpy(out + i, &word, 8);
  }
  for (; i < size; ++i) out[i] = static_cast<unsigned char>(in[i] ^ kScrambleKey);
}

DeviceMemory::DeviceMemory(std::string device_name) : device_name_(std::move(device_name)) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry().push_back(this);
}

DeviceMemory::~DeviceMemory() {
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    std::vector<const DeviceMemory*>& devices = Registry();
    devices.erase(std::remove(devices.begin(), devices.end(), this), devices.end());
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (allocations_.empty()) return;
  size_t bytes = 0;
  for (const auto& [start, size] : allocations_) {
    bytes += size;
    std::free(reinterpret_cast<void*>(start));
  }
  LogError(sdk::StrCat(device_name_, " destroyed with ", allocations_.size(), " live allocations (",
                       bytes, " bytes): device memory leaked by the host"));
}

sdk::Status DeviceMemory::Allocate(size_t size, size_t alignment, void** ptr) {
  *ptr = nullptr;
  if (alignment != 0 && (alignment & (alignment - 1)) != 0) {
    return sdk::InvalidArgument("alignment ", alignment, " requested on ", device_name_,
                                " is not a power of two");
  }
  const size_t effective = std::max(alignment, kMemoryAlignment);
  const size_t rounded = size == 0 ? effective : (size + effective - 1) / effective * effective;
  if (rounded < size) {
    return sdk::ResourceExhausted("out of memory allocating ", size, " bytes on ", device_name_);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (size > kMemoryLimitBytes - static_cast<size_t>(stats_.bytes_in_use)) {
      return sdk::ResourceExhausted("out of memory allocating ", size, " bytes on ", device_name_,
                                    ": ", stats_.bytes_in_use, " of its ", kMemoryLimitBytes,
                                    " bytes are in use");
    }
  }
  void* block = std::aligned_alloc(effective, rounded);
  if (block == nullptr) {
    return sdk::ResourceExhausted("out of memory allocating ", size, " bytes on ", device_name_);
  }
  try {
    std::lock_guard<std::mutex> lock(mu_);
    allocations_.emplace(reinterpret_cast<uintptr_t>(block), size);
    stats_.bytes_in_use += static_cast<int64_t>(size);
    stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
    ++stats_.num_allocations;
  } catch (const std::bad_alloc&) {
    std::free(block);
    return sdk::ResourceExhausted("out of memory recording an allocation on ", device_name_);
  }
  *ptr = block;
  return sdk::OkStatus();
}

sdk::Status DeviceMemory::Free(void* ptr, size_t size) {
  TESSERA_SDK_RETURN_IF_ERROR(Release(ptr, size));
  ReturnBlock(ptr);
  return sdk::OkStatus();
}

sdk::Status DeviceMemory::Release(void* ptr, size_t size) {
  if (ptr == nullptr) return sdk::OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = allocations_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == allocations_.end()) {
    return sdk::InvalidArgument("Memory_Free on ", device_name_, ": pointer ", ptr, " (size ",
                                size, ") was not allocated by this device or was already freed");
  }
  if (it->second != size) {
    return sdk::InvalidArgument("Memory_Free on ", device_name_, ": pointer ", ptr,
                                " freed with size ", size, ", but it was allocated with ",
                                it->second, " bytes");
  }
  allocations_.erase(it);
  stats_.bytes_in_use -= static_cast<int64_t>(size);
  return sdk::OkStatus();
}

void DeviceMemory::ReturnBlock(void* ptr) { std::free(ptr); }

DeviceMemory::Stats DeviceMemory::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

bool DeviceMemory::FindLocked(const void* ptr, uintptr_t* start, size_t* size) const {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return false;
  --it;
  // The one-past-the-end address still belongs to the allocation (an empty range there is fine).
  if (address - it->first > it->second) return false;
  *start = it->first;
  *size = it->second;
  return true;
}

sdk::Status DeviceMemory::CheckRange(const char* what, const void* ptr, size_t size) const {
  if (ptr == nullptr && size == 0) return sdk::OkStatus();
  uintptr_t start = 0;
  size_t allocated = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!FindLocked(ptr, &start, &allocated)) {
      return sdk::InvalidArgument(what, " on ", device_name_, ": ", ptr, " + ", size,
                                  " bytes is not memory of this device (host memory, another "
                                  "device's, or freed)");
    }
  }
  const size_t offset = reinterpret_cast<uintptr_t>(ptr) - start;
  if (size > allocated - offset) {
    return sdk::InvalidArgument(what, " on ", device_name_, ": ", ptr, " + ", size,
                                " bytes runs past the allocation at ", AsPointer(start), " of ",
                                allocated, " bytes (offset ", offset, ")");
  }
  return sdk::OkStatus();
}

sdk::Status DeviceMemory::CheckRangeOnAnyDevice(const char* what, const void* ptr, size_t size) {
  if (ptr == nullptr && size == 0) return sdk::OkStatus();
  std::lock_guard<std::mutex> registry_lock(RegistryMutex());
  for (const DeviceMemory* device : Registry()) {
    uintptr_t start = 0;
    size_t allocated = 0;
    bool found;
    {
      std::lock_guard<std::mutex> lock(device->mu_);
      found = device->FindLocked(ptr, &start, &allocated);
    }
    if (found) return device->CheckRange(what, ptr, size);
  }
  return sdk::InvalidArgument(what, ": ", ptr, " + ", size,
                              " bytes is not memory of any TESTDEV device");
}

size_t DeviceMemory::num_allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocations_.size();
}

}  // namespace tessera::testdevice
