// Tests of the TESTDEV plugin loaded through the registry: its registrations, device counts,
// scrambled memory (the host reading it directly sees garbage), copies in every direction and the
// errors that catch a host misusing device memory.
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/runtime/device_manager.h"
#include "registry/abi_status.h"
#include "registry/device_handle.h"
#include "registry/host_api.h"
#include "registry/plugin_registry.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint8_t kKey = 0x5A;

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& substring) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(substring));
}

const PluginRegistry& Plugins() {
  static const PluginRegistry* registry = [] {
    RegistryOptions options;
    options.plugin_paths = {TESSERA_TESTDEVICE_PLUGIN_DIR};
    options.plugin_path_env = "";
    options.default_plugin_dir = "";
    absl::StatusOr<std::unique_ptr<PluginRegistry>> created = PluginRegistry::Create(options);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->release() : nullptr;
  }();
  return *registry;
}

const DeviceTypeSpec& TestDevType() {
  const DeviceTypeSpec* spec = Plugins().FindDeviceType("TESTDEV");
  TESSERA_CHECK(spec != nullptr, "TESTDEV is not registered");
  return *spec;
}

std::unique_ptr<PluginDevice> NewDevice(int ordinal) {
  absl::StatusOr<std::unique_ptr<PluginDevice>> device = TestDevType().CreateDevice(ordinal);
  EXPECT_TRUE(device.ok()) << device.status();
  return device.ok() ? *std::move(device) : nullptr;
}

// Collects what plugins log at ERROR while alive.
class LogCapture {
 public:
  LogCapture() {
    SetPluginLogSink(
        [this](TSR_LogSeverity severity, absl::string_view source, absl::string_view message) {
          if (severity != TSR_LOG_SEVERITY_ERROR) return;
          std::lock_guard<std::mutex> lock(mu_);
          errors_.push_back(absl::StrCat("[", source, "] ", message));
        });
  }
  ~LogCapture() { SetPluginLogSink(nullptr); }
  std::vector<std::string> errors() {
    std::lock_guard<std::mutex> lock(mu_);
    return errors_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> errors_;
};

std::vector<uint8_t> Pattern(size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 3);
  return bytes;
}

TEST(TestDevicePluginTest, RegistersTheDeviceTypeAndItsKernels) {
  const PluginRecord* record = Plugins().FindRecord("testdevice");
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->state, PluginState::kLoaded) << record->reason;
  EXPECT_TRUE(record->warnings.empty());
  const DeviceTypeSpec& spec = TestDevType();
  EXPECT_EQ(spec.priority, 40);
  EXPECT_EQ(spec.flags & TSR_DEVICE_FLAG_HOST_MEMORY, 0u);
  EXPECT_NE(spec.registration.GetDeviceCountForConfig, nullptr);
  for (const char* op : {"Const", "Identity", "AddV2", "Sub", "Mul", "MatMul", "Less", "Greater"}) {
    EXPECT_EQ(Plugins().FindKernels(op, "TESTDEV").size(), 1u) << op;
  }
}

TEST(TestDevicePluginTest, CountsTwoByDefaultAndAtMostEight) {
  const DeviceTypeSpec& spec = TestDevType();
  EXPECT_EQ(*spec.DeviceCount(), 2);
  EXPECT_EQ(*spec.DeviceCountForConfig(-1), 2);
  EXPECT_EQ(*spec.DeviceCountForConfig(1), 1);
  EXPECT_EQ(*spec.DeviceCountForConfig(8), 8);
  EXPECT_EQ(*spec.DeviceCountForConfig(100), 8);
  // The plugin's own refusals, called as a host would.
  int32_t count = 0;
  ExpectError(FromAbiStatus(spec.registration.GetDeviceCountForConfig(spec.registration.user_data,
                                                                      -3, &count),
                            "count"),
              absl::StatusCode::kInvalidArgument, "TESTDEV device count -3 is negative");
  TSR_Device_Create_Args args{};
  args.struct_size = sizeof(args);
  args.ordinal = 8;
  TSR_Device* device = nullptr;
  ExpectError(
      FromAbiStatus(spec.registration.Device_Create(spec.registration.user_data, &args, &device),
                    "create"),
      absl::StatusCode::kInvalidArgument, "TESTDEV device ordinal 8 is out of range [0, 8)");
  EXPECT_EQ(device, nullptr);
}

TEST(TestDevicePluginTest, DeviceManagerCreatesTheConfiguredDevices) {
  DeviceManagerOptions options;
  options.device_count = {{"TESTDEV", 3}};
  absl::StatusOr<std::unique_ptr<DeviceManager>> manager =
      DeviceManager::Create(Plugins().device_types(), options);
  ASSERT_TRUE(manager.ok()) << manager.status();
  std::vector<std::string> names;
  for (const Device* device : (*manager)->devices()) names.push_back(device->name());
  EXPECT_THAT(names, ElementsAre("/job:localhost/replica:0/task:0/device:TESTDEV:0",
                                 "/job:localhost/replica:0/task:0/device:TESTDEV:1",
                                 "/job:localhost/replica:0/task:0/device:TESTDEV:2"));
  Device* device = (*manager)->FindDevice("TESTDEV:2");
  ASSERT_NE(device, nullptr);
  EXPECT_FALSE(device->host_memory());
  absl::StatusOr<DeviceProperties> properties = device->plugin_device()->Properties();
  ASSERT_TRUE(properties.ok());
  EXPECT_EQ(properties->description, "TESTDEV:2 (scrambled host memory, test only)");
  EXPECT_EQ(properties->memory_alignment, 64u);

  // Tensors round-trip through the device's allocator and copies; the device buffer is not
  // host-accessible and holds scrambled bytes.
  Tensor host = Tensor::FromVector<float>(TensorShape{2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor on_device;
  ASSERT_TRUE(device->CopyFromHost(host, &on_device).ok());
  EXPECT_FALSE(on_device.host_accessible());
  EXPECT_NE(std::memcmp(on_device.data(), host.data(), host.TotalBytes()), 0);
  Tensor back;
  ASSERT_TRUE(device->CopyToHost(on_device, &back).ok());
  EXPECT_THAT(back.flat<float>(), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(TestDevicePluginTest, BytesRoundTripAndAreScrambledInDeviceMemory) {
  std::unique_ptr<PluginDevice> device = NewDevice(0);
  ASSERT_NE(device, nullptr);
  const std::vector<uint8_t> data = Pattern(100);
  void* a = *device->Allocate(data.size(), 0);
  void* b = *device->Allocate(data.size(), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  ASSERT_TRUE(device->MemcpyHostToDevice(a, data.data(), data.size()).ok());

  // A direct host read sees every byte XOR 0x5A, never the data.
  const auto* stored = static_cast<const uint8_t*>(a);
  EXPECT_NE(std::memcmp(stored, data.data(), data.size()), 0);
  for (size_t i = 0; i < data.size(); ++i) ASSERT_EQ(stored[i], data[i] ^ kKey) << i;

  ASSERT_TRUE(device->MemcpyDeviceToDevice(b, a, data.size()).ok());
  std::vector<uint8_t> back(data.size());
  ASSERT_TRUE(device->MemcpyDeviceToHost(back.data(), b, back.size()).ok());
  EXPECT_EQ(back, data);

  // Partial copies inside an allocation are fine.
  uint8_t middle[10] = {};
  ASSERT_TRUE(device->MemcpyDeviceToHost(middle, stored + 40, sizeof(middle)).ok());
  EXPECT_EQ(std::memcmp(middle, data.data() + 40, sizeof(middle)), 0);
  EXPECT_TRUE(device->Free(a, data.size()).ok());
  EXPECT_TRUE(device->Free(b, data.size()).ok());
}

TEST(TestDevicePluginTest, DirectHostWritesAreGarbageToTheDevice) {
  std::unique_ptr<PluginDevice> device = NewDevice(0);
  ASSERT_NE(device, nullptr);
  const float value = 3.5f;
  void* ptr = *device->Allocate(sizeof(value), 0);
  std::memcpy(ptr, &value, sizeof(value));  // what a host that ignores the flag would do
  float seen = 0;
  ASSERT_TRUE(device->MemcpyDeviceToHost(&seen, ptr, sizeof(seen)).ok());
  EXPECT_NE(seen, value);
  EXPECT_TRUE(device->Free(ptr, sizeof(value)).ok());
}

TEST(TestDevicePluginTest, CopiesBetweenTwoTestDevices) {
  std::unique_ptr<PluginDevice> d0 = NewDevice(0);
  std::unique_ptr<PluginDevice> d1 = NewDevice(1);
  ASSERT_TRUE(d0 != nullptr && d1 != nullptr);
  const std::vector<uint8_t> data = Pattern(32);
  void* src = *d0->Allocate(data.size(), 0);
  void* dst = *d1->Allocate(data.size(), 0);
  ASSERT_TRUE(d0->MemcpyHostToDevice(src, data.data(), data.size()).ok());
  // Either device may do the copy.
  ASSERT_TRUE(d0->MemcpyDeviceToDevice(dst, src, data.size()).ok());
  ASSERT_TRUE(d1->MemcpyDeviceToDevice(dst, src, data.size()).ok());
  std::vector<uint8_t> back(data.size());
  ASSERT_TRUE(d1->MemcpyDeviceToHost(back.data(), dst, back.size()).ok());
  EXPECT_EQ(back, data);
  // But each device's host copies reach only its own memory.
  ExpectError(d0->MemcpyDeviceToHost(back.data(), dst, back.size()),
              absl::StatusCode::kInvalidArgument, "Memcpy_DeviceToHost source on TESTDEV:0: ");
  EXPECT_TRUE(d0->Free(src, data.size()).ok());
  EXPECT_TRUE(d1->Free(dst, data.size()).ok());
}

TEST(TestDevicePluginTest, CopiesOutsideAnAllocationFail) {
  std::unique_ptr<PluginDevice> device = NewDevice(0);
  ASSERT_NE(device, nullptr);
  void* ptr = *device->Allocate(64, 0);
  const std::vector<uint8_t> data = Pattern(65);
  std::vector<uint8_t> back(65);
  ExpectError(device->MemcpyHostToDevice(ptr, data.data(), 65), absl::StatusCode::kInvalidArgument,
              "device 'TESTDEV:0' from plugin 'testdevice' Memcpy_HostToDevice: "
              "Memcpy_HostToDevice destination on TESTDEV:0: ");
  ExpectError(device->MemcpyHostToDevice(ptr, data.data(), 65), absl::StatusCode::kInvalidArgument,
              " + 65 bytes runs past the allocation at ");
  ExpectError(device->MemcpyHostToDevice(ptr, data.data(), 65), absl::StatusCode::kInvalidArgument,
              " of 64 bytes (offset 0)");
  ExpectError(device->MemcpyDeviceToHost(back.data(), static_cast<char*>(ptr) + 60, 8),
              absl::StatusCode::kInvalidArgument, "+ 8 bytes runs past the allocation");
  ExpectError(device->MemcpyDeviceToHost(back.data(), static_cast<char*>(ptr) + 60, 8),
              absl::StatusCode::kInvalidArgument, "(offset 60)");
  ExpectError(device->MemcpyDeviceToDevice(ptr, static_cast<char*>(ptr) + 1, 64),
              absl::StatusCode::kInvalidArgument, "runs past the allocation");
  // Host memory handed over as device memory.
  ExpectError(device->MemcpyDeviceToHost(back.data(), data.data(), 8),
              absl::StatusCode::kInvalidArgument, "Memcpy_DeviceToHost source on TESTDEV:0: ");
  ExpectError(device->MemcpyHostToDevice(back.data(), data.data(), 8),
              absl::StatusCode::kInvalidArgument,
              "+ 8 bytes is not memory of this device (host memory, another device's, or freed)");
  ExpectError(device->MemcpyDeviceToDevice(back.data(), data.data(), 8),
              absl::StatusCode::kInvalidArgument, "Memcpy_DeviceToDevice destination on TESTDEV:0");
  ExpectError(device->MemcpyDeviceToDevice(ptr, data.data(), 8), absl::StatusCode::kInvalidArgument,
              "Memcpy_DeviceToDevice source: ");
  ExpectError(device->MemcpyDeviceToDevice(ptr, data.data(), 8), absl::StatusCode::kInvalidArgument,
              "is not memory of any TESTDEV device");
  // Freed memory is not device memory any more.
  EXPECT_TRUE(device->Free(ptr, 64).ok());
  ExpectError(device->MemcpyHostToDevice(ptr, data.data(), 1), absl::StatusCode::kInvalidArgument,
              "is not memory of this device");
}

TEST(TestDevicePluginTest, AllocationRules) {
  std::unique_ptr<PluginDevice> device = NewDevice(1);
  ASSERT_NE(device, nullptr);
  ExpectError(device->Allocate(8, 48).status(), absl::StatusCode::kInvalidArgument,
              "alignment 48 requested on TESTDEV:1 is not a power of two");
  void* wide = *device->Allocate(8, 256);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(wide) % 256, 0u);
  void* empty1 = *device->Allocate(0, 0);
  void* empty2 = *device->Allocate(0, 0);
  EXPECT_NE(empty1, nullptr);
  EXPECT_NE(empty1, empty2);
  EXPECT_TRUE(device->MemcpyHostToDevice(empty1, nullptr, 0).ok());
  ExpectError(device->MemcpyHostToDevice(empty1, "x", 1), absl::StatusCode::kInvalidArgument,
              "of 0 bytes");
  ExpectError(device->Allocate(SIZE_MAX - 8, 0).status(), absl::StatusCode::kResourceExhausted,
              "out of memory allocating");
  EXPECT_TRUE(device->Free(wide, 8).ok());
  EXPECT_TRUE(device->Free(empty1, 0).ok());
  EXPECT_TRUE(device->Free(empty2, 0).ok());
}

TEST(TestDevicePluginTest, BadFreesAreRefusedAndLeaveMemoryAlone) {
  std::unique_ptr<PluginDevice> device = NewDevice(0);
  ASSERT_NE(device, nullptr);
  int host_variable = 0;
  ExpectError(device->Free(&host_variable, sizeof(host_variable)),
              absl::StatusCode::kInvalidArgument,
              "device 'TESTDEV:0' from plugin 'testdevice' Memory_Free: Memory_Free on TESTDEV:0: "
              "pointer ");
  ExpectError(device->Free(&host_variable, sizeof(host_variable)),
              absl::StatusCode::kInvalidArgument,
              "(size 4) was not allocated by this device or was already freed");
  void* ptr = *device->Allocate(16, 0);
  ExpectError(device->Free(ptr, 8), absl::StatusCode::kInvalidArgument,
              "freed with size 8, but it was allocated with 16 bytes");
  // Refused, so still allocated: the right size frees it, and then it is gone.
  EXPECT_TRUE(device->Free(ptr, 16).ok());
  ExpectError(device->Free(ptr, 16), absl::StatusCode::kInvalidArgument,
              "(size 16) was not allocated by this device");
  EXPECT_TRUE(device->Free(nullptr, 0).ok());
}

TEST(TestDevicePluginTest, DestroyingADeviceWithLiveAllocationsIsReported) {
  LogCapture log;
  {
    std::unique_ptr<PluginDevice> device = NewDevice(1);
    ASSERT_NE(device, nullptr);
    ASSERT_TRUE(device->Allocate(24, 0).ok());
    ASSERT_TRUE(device->Allocate(8, 0).ok());
  }
  EXPECT_THAT(log.errors(),
              ElementsAre("[testdevice] TESTDEV:1 destroyed with 2 live allocations (32 bytes): "
                          "device memory leaked by the host"));
}

}  // namespace
}  // namespace tessera
