// DeviceMemory: the memory of one TESTDEV device. Host memory that holds every byte XOR-scrambled,
// so only the plugin's copy functions and kernels see the real values, and a table of the
// device's allocations, so that a pointer the device never handed out (or a copy running past an
// allocation) is an error instead of silent corruption.
#ifndef TESSERA_PLUGINS_TESTING_TESTDEVICE_MEMORY_H_
#define TESSERA_PLUGINS_TESTING_TESTDEVICE_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "tessera/sdk/status.h"

namespace tessera::testdevice {

// Every stored byte is the real byte XOR this key (XOR is its own inverse).
inline constexpr uint8_t kScrambleKey = 0x5A;
// Alignment of every allocation (the host's tensor alignment).
inline constexpr size_t kMemoryAlignment = 64;
// Memory of one device: an allocation that would take the bytes in use past it is
// RESOURCE_EXHAUSTED, as on hardware.
inline constexpr size_t kMemoryLimitBytes = size_t{1} << 30;

// Copies `size` bytes from `src` to `dst`, XOR-ing each with kScrambleKey: scrambles plain bytes
// or unscrambles stored ones. `dst` and `src` may be equal.
void ScrambleCopy(void* dst, const void* src, size_t size);

// Element `index` of a scrambled array of T.
template <typename T>
T LoadScrambled(const void* base, int64_t index) {
  unsigned char bytes[sizeof(T)];
  ScrambleCopy(bytes, static_cast<const unsigned char*>(base) + index * sizeof(T), sizeof(T));
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

// Stores `value` scrambled as element `index` of an array of T.
template <typename T>
void StoreScrambled(void* base, int64_t index, T value) {
  ScrambleCopy(static_cast<unsigned char*>(base) + index * sizeof(T), &value, sizeof(T));
}

// Thread-safe. Every live DeviceMemory is listed process-wide, so that device-to-device copies
// between two TESTDEV devices can check both ends.
class DeviceMemory {
 public:
  // `device_name` ("TESTDEV:0") appears in every error.
  explicit DeviceMemory(std::string device_name);
  // Frees what is still allocated, reporting it through the host log (a leak by the host).
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  const std::string& device_name() const { return device_name_; }

  // A fresh block of `size` bytes (a unique pointer even for 0 bytes). INVALID_ARGUMENT for an
  // alignment that is not a power of two; RESOURCE_EXHAUSTED when out of memory or when the bytes
  // in use would pass kMemoryLimitBytes.
  sdk::Status Allocate(size_t size, size_t alignment, void** ptr);
  // Frees `ptr`. INVALID_ARGUMENT, leaving the memory alone, for a pointer this device did not
  // allocate (or already freed); INVALID_ARGUMENT after freeing for a size that differs from the
  // allocation's. NULL is a no-op.
  sdk::Status Free(void* ptr, size_t size);
  // Free's checks and bookkeeping, in one step, without returning the block to the system: the
  // caller does that (ReturnBlock) once the device's queued work is past it. INVALID_ARGUMENT,
  // leaving everything alone, for a pointer this device did not allocate (or released already) or
  // a size that differs from the allocation's.
  sdk::Status Release(void* ptr, size_t size);
  static void ReturnBlock(void* ptr);

  struct Stats {
    int64_t bytes_in_use = 0;
    int64_t peak_bytes_in_use = 0;
    int64_t num_allocations = 0;  // successful Allocate calls so far
  };
  Stats stats() const;

  // OK when [ptr, ptr + size) lies inside one live allocation of this device; otherwise
  // INVALID_ARGUMENT "<what> on TESTDEV:0: <ptr> + <size> bytes ..." naming the allocation it runs
  // past, if any. A NULL pointer with size 0 is OK.
  sdk::Status CheckRange(const char* what, const void* ptr, size_t size) const;

  // Like CheckRange, but `ptr` may belong to any live TESTDEV device (device-to-device copies).
  static sdk::Status CheckRangeOnAnyDevice(const char* what, const void* ptr, size_t size);

  // Number of live allocations (for tests of the plugin itself).
  size_t num_allocations() const;

 private:
  // The allocation containing `ptr` (start and size), or false. Caller holds mu_.
  bool FindLocked(const void* ptr, uintptr_t* start, size_t* size) const;

  std::string device_name_;
  mutable std::mutex mu_;
  std::map<uintptr_t, size_t> allocations_;  // start -> size in bytes
  Stats stats_;
};

}  // namespace tessera::testdevice

#endif  // TESSERA_PLUGINS_TESTING_TESTDEVICE_MEMORY_H_
