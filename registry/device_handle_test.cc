// Tests of PluginDevice over the fake .so and over in-process device tables with failures.
#include "registry/device_handle.h"

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "registry/abi_status.h"
#include "registry/plugin_registry.h"
#include "registry/testing/fake_plugin_paths.h"

namespace tessera {
namespace {

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& substring) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_NE(status.message().find(substring), absl::string_view::npos) << status.message();
}

std::unique_ptr<PluginRegistry> GoodRegistry() {
  RegistryOptions options;
  options.plugin_paths = {testing_paths::FakePluginCase("good")};
  options.plugin_path_env = "";
  options.default_plugin_dir = "";
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
  EXPECT_TRUE(registry.ok()) << registry.status();
  return *std::move(registry);
}

TEST(PluginDeviceTest, DrivesTheFakePluginDevice) {
  std::unique_ptr<PluginRegistry> registry = GoodRegistry();
  const DeviceTypeSpec* spec = registry->FindDeviceType("FAKE");
  ASSERT_NE(spec, nullptr);
  absl::StatusOr<int> count = spec->DeviceCount();
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 2);
  absl::StatusOr<std::unique_ptr<PluginDevice>> device = spec->CreateDevice(1);
  ASSERT_TRUE(device.ok()) << device.status();
  PluginDevice& d = **device;
  EXPECT_EQ(d.name(), "FAKE:1");
  EXPECT_EQ(d.device_type(), "FAKE");
  EXPECT_EQ(d.ordinal(), 1);
  EXPECT_EQ(d.plugin_name(), "fake_good");
  EXPECT_TRUE(d.host_memory());
  EXPECT_NE(d.abi_handle(), nullptr);
  EXPECT_FALSE(d.has_streams());

  absl::StatusOr<void*> a = d.Allocate(16, 8);
  absl::StatusOr<void*> b = d.Allocate(16, 8);
  ASSERT_TRUE(a.ok() && b.ok());
  const char text[16] = "hello, device";
  char back[16] = {};
  ASSERT_TRUE(d.MemcpyHostToDevice(*a, text, sizeof(text)).ok());
  ASSERT_TRUE(d.MemcpyDeviceToDevice(*b, *a, sizeof(text)).ok());
  ASSERT_TRUE(d.MemcpyDeviceToHost(back, *b, sizeof(back)).ok());
  EXPECT_STREQ(back, text);
  EXPECT_TRUE(d.Free(*a, 16).ok());
  EXPECT_TRUE(d.Free(*b, 16).ok());
  EXPECT_TRUE(d.Free(nullptr, 0).ok());

  absl::StatusOr<DeviceProperties> properties = d.Properties();
  ASSERT_TRUE(properties.ok());
  EXPECT_EQ(properties->description, "fake device");
  EXPECT_EQ(properties->memory_bytes, 1 << 20);
  EXPECT_EQ(properties->memory_alignment, 64u);
  EXPECT_TRUE(d.StreamSynchronize(nullptr).ok());
  ExpectError(d.CreateStream().status(), absl::StatusCode::kUnimplemented,
              "device 'FAKE:1' from plugin 'fake_good' has no streams");
}

TEST(PluginDeviceTest, ErrorsCarryDeviceAndPluginContext) {
  std::unique_ptr<PluginRegistry> registry = GoodRegistry();
  const DeviceTypeSpec* spec = registry->FindDeviceType("FAKE");
  ASSERT_NE(spec, nullptr);
  ExpectError(spec->CreateDevice(2).status(), absl::StatusCode::kOutOfRange,
              "device type 'FAKE' from plugin 'fake_good' Device_Create (ordinal 2): ordinal 2 is "
              "outside [0, 2)");
  ExpectError(spec->CreateDevice(0, {{"fail", "bad option value"}}).status(),
              absl::StatusCode::kInvalidArgument,
              "device type 'FAKE' from plugin 'fake_good' Device_Create (ordinal 0): bad option "
              "value");
  absl::StatusOr<std::unique_ptr<PluginDevice>> device = spec->CreateDevice(0);
  ASSERT_TRUE(device.ok());
  ExpectError(
      (*device)->Allocate(size_t{1} << 30, 64).status(), absl::StatusCode::kResourceExhausted,
      "device 'FAKE:0' from plugin 'fake_good' Memory_Allocate: fake device memory is 1 MiB");
}

TEST(PluginDeviceTest, DeviceOutlivesItsRegistry) {
  std::unique_ptr<PluginDevice> device;
  {
    std::unique_ptr<PluginRegistry> registry = GoodRegistry();
    const DeviceTypeSpec* spec = registry->FindDeviceType("FAKE");
    ASSERT_NE(spec, nullptr);
    device = *spec->CreateDevice(0);
  }
  // The library stays loaded while the device lives.
  absl::StatusOr<void*> ptr = device->Allocate(8, 8);
  ASSERT_TRUE(ptr.ok());
  EXPECT_TRUE(device->Free(*ptr, 8).ok());
}

// ---- An in-process device whose every call can be made to fail ------------------------------
struct Behavior {
  bool fail = false;
  int32_t count = 1;
  int32_t config_count = -1;  // GetDeviceCountForConfig's answer; -1: echo the request
  int32_t last_requested = -100;
  int config_calls = 0;
  bool null_device = false;
  bool null_memory = false;
  bool odd_memory = false;
  std::atomic<int> destroyed{0};
  std::atomic<int> in_call{0};
  std::atomic<bool> overlapped{false};
};
Behavior* behavior = nullptr;

TSR_Status* MaybeFail(const char* what) {
  return behavior->fail ? AbiStatusCreate(TSR_CODE_INTERNAL, what) : nullptr;
}

// Detects concurrent entry (for the serialisation test).
struct CallGuard {
  CallGuard() {
    if (behavior->in_call.fetch_add(1) != 0) behavior->overlapped = true;
    std::this_thread::yield();
  }
  ~CallGuard() { behavior->in_call.fetch_sub(1); }
};

int device_object = 0;

TSR_DeviceTypeRegistration Table(const char* type, uint32_t flags) {
  TSR_DeviceTypeRegistration r;
  std::memset(&r, 0, sizeof(r));
  r.struct_size = sizeof(r);
  r.device_type = type;
  r.flags = flags;
  r.GetDeviceCount = [](void*, int32_t* count) {
    *count = behavior->count;
    return MaybeFail("count failed");
  };
  r.Device_Create = [](void*, const TSR_Device_Create_Args*, TSR_Device** device) {
    *device = behavior->null_device ? nullptr : reinterpret_cast<TSR_Device*>(&device_object);
    return static_cast<TSR_Status*>(nullptr);
  };
  r.Device_Destroy = [](TSR_Device*) { ++behavior->destroyed; };
  r.Memory_Allocate = [](TSR_Device*, TSR_Memory_Allocate_Args* args) {
    CallGuard guard;
    args->ptr = behavior->null_memory ? nullptr
                : behavior->odd_memory ? reinterpret_cast<char*>(&device_object) + 1
                                       : static_cast<void*>(&device_object);
    return MaybeFail("allocate failed");
  };
  r.Memory_Free = [](TSR_Device*, const TSR_Memory_Free_Args*) {
    CallGuard guard;
    return MaybeFail("free failed");
  };
  r.Memcpy_HostToDevice = [](TSR_Device*, TSR_Stream*, void*, const void*, size_t) {
    CallGuard guard;
    return MaybeFail("h2d failed");
  };
  r.Memcpy_DeviceToHost = [](TSR_Device*, TSR_Stream*, void*, const void*, size_t) {
    return MaybeFail("d2h failed");
  };
  r.Memcpy_DeviceToDevice = [](TSR_Device*, TSR_Stream*, void*, const void*, size_t) {
    return MaybeFail("d2d failed");
  };
  return r;
}

class InProcessDeviceTest : public testing::Test {
 protected:
  void SetUp() override { behavior = &behavior_; }
  void TearDown() override { behavior = nullptr; }

  absl::StatusOr<DeviceTypeSpec> Spec(const TSR_DeviceTypeRegistration& r) {
    return MakeDeviceTypeSpec(r, PluginOrigin{"inproc", 0, nullptr});
  }

  Behavior behavior_;
};

TEST_F(InProcessDeviceTest, DestructorDestroysTheDevice) {
  DeviceTypeSpec spec = *Spec(Table("T", 0));
  {
    auto device = spec.CreateDevice(0);
    ASSERT_TRUE(device.ok());
  }
  EXPECT_EQ(behavior_.destroyed, 1);
}

TEST_F(InProcessDeviceTest, EveryFailingCallIsReportedWithItsSlot) {
  DeviceTypeSpec spec = *Spec(Table("T", 0));
  std::unique_ptr<PluginDevice> device = *spec.CreateDevice(0);
  behavior_.fail = true;
  ExpectError(spec.DeviceCount().status(), absl::StatusCode::kInternal,
              "device type 'T' from plugin 'inproc' GetDeviceCount: count failed");
  ExpectError(spec.CreateDevice(0).status(), absl::StatusCode::kInternal, "count failed");
  ExpectError(device->Allocate(1, 1).status(), absl::StatusCode::kInternal,
              "device 'T:0' from plugin 'inproc' Memory_Allocate: allocate failed");
  ExpectError(device->Free(&device_object, 1), absl::StatusCode::kInternal,
              "device 'T:0' from plugin 'inproc' Memory_Free: free failed");
  char byte = 0;
  ExpectError(device->MemcpyHostToDevice(&byte, &byte, 1), absl::StatusCode::kInternal,
              "Memcpy_HostToDevice: h2d failed");
  ExpectError(device->MemcpyDeviceToHost(&byte, &byte, 1), absl::StatusCode::kInternal,
              "Memcpy_DeviceToHost: d2h failed");
  ExpectError(device->MemcpyDeviceToDevice(&byte, &byte, 1), absl::StatusCode::kInternal,
              "Memcpy_DeviceToDevice: d2d failed");
}

TEST_F(InProcessDeviceTest, BrokenPromisesAreInternalErrors) {
  DeviceTypeSpec spec = *Spec(Table("T", 0));
  behavior_.count = -1;
  ExpectError(spec.DeviceCount().status(), absl::StatusCode::kInternal,
              "GetDeviceCount: returned negative count -1");
  behavior_.count = 1;
  behavior_.null_device = true;
  ExpectError(spec.CreateDevice(0).status(), absl::StatusCode::kInternal,
              "returned OK but no device");
  behavior_.null_device = false;
  std::unique_ptr<PluginDevice> device = *spec.CreateDevice(0);
  behavior_.null_memory = true;
  ExpectError(device->Allocate(4, 4).status(), absl::StatusCode::kInternal,
              "Memory_Allocate: returned OK but no memory for 4 bytes");
  behavior_.null_memory = false;
  behavior_.odd_memory = true;
  ExpectError(device->Allocate(4, 4).status(), absl::StatusCode::kInternal,
              "bytes, which is not aligned to the 4 bytes asked for");
}

TEST_F(InProcessDeviceTest, MemoryStatsAreUnimplementedWithoutTheSlotAndReadWithIt) {
  TSR_DeviceTypeRegistration r = Table("M", 0);
  std::unique_ptr<PluginDevice> without = *Spec(r)->CreateDevice(0);
  ExpectError(without->MemoryStats().status(), absl::StatusCode::kUnimplemented,
              "device 'M:0' from plugin 'inproc' reports no memory statistics");
  r.Memory_GetStats = [](TSR_Device*, TSR_MemoryStats* stats) {
    stats->bytes_in_use = 10;
    stats->peak_bytes_in_use = 20;
    return MaybeFail("stats failed");
  };
  std::unique_ptr<PluginDevice> with = *Spec(r)->CreateDevice(0);
  absl::StatusOr<DeviceMemoryStats> stats = with->MemoryStats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->bytes_in_use, 10);
  EXPECT_EQ(stats->peak_bytes_in_use, 20);
  EXPECT_EQ(stats->bytes_limit, -1);  // left alone by the plugin: unknown
  behavior_.fail = true;
  ExpectError(with->MemoryStats().status(), absl::StatusCode::kInternal,
              "Memory_GetStats: stats failed");
}

TEST_F(InProcessDeviceTest, MissingPropertiesSlotGivesDefaults) {
  DeviceTypeSpec spec = *Spec(Table("T", 0));
  absl::StatusOr<DeviceProperties> properties = (*spec.CreateDevice(0))->Properties();
  ASSERT_TRUE(properties.ok());
  EXPECT_EQ(properties->description, "T:0");
  EXPECT_EQ(properties->memory_bytes, 0);
}

TEST_F(InProcessDeviceTest, PropertiesAndStreamErrors) {
  TSR_DeviceTypeRegistration r = Table("S", 0);
  r.Device_GetProperties = [](TSR_Device*, TSR_DeviceProperties*) {
    return AbiStatusCreate(TSR_CODE_UNAVAILABLE, "device lost");
  };
  r.Stream_Create = [](TSR_Device*, TSR_Stream_Create_Args* args) {
    args->stream = behavior->null_device ? nullptr : reinterpret_cast<TSR_Stream*>(&device_object);
    return MaybeFail("no streams left");
  };
  r.Stream_Destroy = [](TSR_Device*, TSR_Stream*) { ++behavior->destroyed; };
  r.Stream_Synchronize = [](TSR_Device*, TSR_Stream*) { return MaybeFail("sync failed"); };
  r.Stream_WaitEvent = [](TSR_Device*, TSR_Stream*, TSR_Event*) { return MaybeFail("wait failed"); };
  r.Event_Create = [](TSR_Device*, TSR_Event** event) {
    *event = reinterpret_cast<TSR_Event*>(&device_object);
    return MaybeFail("no events left");
  };
  r.Event_Destroy = [](TSR_Device*, TSR_Event*) { ++behavior->destroyed; };
  r.Event_Record = [](TSR_Device*, TSR_Event*, TSR_Stream*) { return MaybeFail("record failed"); };
  r.Event_Query = [](TSR_Device*, TSR_Event*, bool* complete) {
    *complete = true;
    return MaybeFail("query failed");
  };
  r.Event_Synchronize = [](TSR_Device*, TSR_Event*) { return MaybeFail("event sync failed"); };
  DeviceTypeSpec spec = *Spec(r);
  std::unique_ptr<PluginDevice> device = *spec.CreateDevice(0);
  ExpectError(device->Properties().status(), absl::StatusCode::kUnavailable,
              "device 'S:0' from plugin 'inproc' Device_GetProperties: device lost");
  ASSERT_TRUE(device->has_streams());
  absl::StatusOr<TSR_Stream*> stream = device->CreateStream();
  ASSERT_TRUE(stream.ok());
  EXPECT_TRUE(device->StreamSynchronize(*stream).ok());
  behavior_.fail = true;
  ExpectError(device->StreamSynchronize(*stream), absl::StatusCode::kInternal,
              "Stream_Synchronize: sync failed");
  ExpectError(device->CreateStream().status(), absl::StatusCode::kInternal,
              "Stream_Create: no streams left");
  absl::StatusOr<TSR_Event*> event = device->CreateEvent();
  ASSERT_FALSE(event.ok());
  ExpectError(event.status(), absl::StatusCode::kInternal, "Event_Create: no events left");
  TSR_Event* handle = reinterpret_cast<TSR_Event*>(&device_object);
  ExpectError(device->RecordEvent(handle, *stream), absl::StatusCode::kInternal,
              "Event_Record: record failed");
  ExpectError(device->StreamWaitEvent(*stream, handle), absl::StatusCode::kInternal,
              "Stream_WaitEvent: wait failed");
  ExpectError(device->QueryEvent(handle).status(), absl::StatusCode::kInternal,
              "Event_Query: query failed");
  ExpectError(device->SynchronizeEvent(handle), absl::StatusCode::kInternal,
              "Event_Synchronize: event sync failed");
  ExpectError(device->ElapsedMicros(handle, handle).status(), absl::StatusCode::kUnimplemented,
              "has no device profiling extension");
  behavior_.fail = false;
  behavior_.null_device = true;
  ExpectError(device->CreateStream().status(), absl::StatusCode::kInternal,
              "Stream_Create: returned OK but no stream");
  behavior_.null_device = false;
  device->DestroyStream(*stream);
  device->DestroyEvent(handle);
  EXPECT_EQ(behavior_.destroyed, 2);
}

TEST_F(InProcessDeviceTest, StreamSlotsComeAllTogether) {
  TSR_DeviceTypeRegistration r = Table("P", 0);
  r.Stream_Create = [](TSR_Device*, TSR_Stream_Create_Args*) -> TSR_Status* { return nullptr; };
  ExpectError(Spec(r).status(), absl::StatusCode::kInvalidArgument,
              "device type 'P' registration: slot 'Stream_Destroy' is NULL but other slots of "
              "its group are set");
}

TEST_F(InProcessDeviceTest, ExtensionsAreFoundCopiedAndChecked) {
  TSR_DeviceTypeRegistration r = Table("X", 0);
  TSR_DeviceProfilingExtension profiling{};
  profiling.base.struct_size = sizeof(profiling);
  profiling.base.type = TSR_EXTENSION_TYPE_DEVICE_PROFILING;
  // An unknown extension first: skipped.
  TSR_Extension unknown{};
  unknown.struct_size = sizeof(unknown);
  unknown.type = 999;
  unknown.next = &profiling.base;
  r.extension_start = &unknown;
  ExpectError(Spec(r).status(), absl::StatusCode::kInvalidArgument,
              "device type 'X' registration: the device profiling extension needs events, and "
              "the type has none");
  unknown.next = &unknown;  // a cycle
  ExpectError(Spec(r).status(), absl::StatusCode::kInvalidArgument,
              "the extension list has more than 64 entries (a cycle?)");
  unknown.next = nullptr;
  unknown.struct_size = 4;
  ExpectError(Spec(r).status(), absl::StatusCode::kInvalidArgument,
              "extension 1 has struct_size 4, smaller than its header");
  r.extension_start = nullptr;
  absl::StatusOr<DeviceTypeSpec> plain = Spec(r);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->profiling.Event_ElapsedMicros, nullptr);
}

TSR_Status* CountForConfig(void*, int32_t requested, int32_t* count) {
  ++behavior->config_calls;
  behavior->last_requested = requested;
  *count =
      behavior->config_count == -1 ? (requested == -1 ? 3 : requested) : behavior->config_count;
  return behavior->fail ? AbiStatusCreate(TSR_CODE_INVALID_ARGUMENT, "too many devices") : nullptr;
}

TEST_F(InProcessDeviceTest, DeviceCountForConfigWithoutTheSlotCapsGetDeviceCount) {
  DeviceTypeSpec spec = *Spec(Table("T", 0));
  behavior_.count = 2;
  EXPECT_EQ(*spec.DeviceCountForConfig(-1), 2);
  EXPECT_EQ(*spec.DeviceCountForConfig(1), 1);
  EXPECT_EQ(*spec.DeviceCountForConfig(5), 2);
  EXPECT_EQ(*spec.DeviceCountForConfig(0), 0);
  ExpectError(spec.CreateDevice(1, {}, 1).status(), absl::StatusCode::kOutOfRange,
              "ordinal 1 is outside [0, 1)");
  EXPECT_TRUE(spec.CreateDevice(1, {}, 5).ok());
}

TEST_F(InProcessDeviceTest, DeviceCountForConfigAsksTheSlot) {
  TSR_DeviceTypeRegistration r = Table("T", 0);
  r.GetDeviceCountForConfig = CountForConfig;
  DeviceTypeSpec spec = *Spec(r);
  EXPECT_EQ(*spec.DeviceCountForConfig(-1), 3);
  EXPECT_EQ(behavior_.last_requested, -1);
  EXPECT_EQ(*spec.DeviceCountForConfig(6), 6);
  EXPECT_EQ(behavior_.last_requested, 6);
  // 0 never reaches the plugin.
  const int calls = behavior_.config_calls;
  EXPECT_EQ(*spec.DeviceCountForConfig(0), 0);
  EXPECT_EQ(behavior_.config_calls, calls);
  // Ordinals up to the answer are valid although GetDeviceCount says 1.
  absl::StatusOr<std::unique_ptr<PluginDevice>> device = spec.CreateDevice(5, {}, 6);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->name(), "T:5");
  ExpectError(spec.CreateDevice(6, {}, 6).status(), absl::StatusCode::kOutOfRange,
              "Device_Create (ordinal 6): ordinal 6 is outside [0, 6)");
}

TEST_F(InProcessDeviceTest, DeviceCountForConfigErrors) {
  TSR_DeviceTypeRegistration r = Table("T", 0);
  r.GetDeviceCountForConfig = CountForConfig;
  DeviceTypeSpec spec = *Spec(r);
  ExpectError(spec.DeviceCountForConfig(-2).status(), absl::StatusCode::kInvalidArgument,
              "device type 'T': requested device count -2 is negative");
  behavior_.config_count = -4;
  ExpectError(spec.DeviceCountForConfig(2).status(), absl::StatusCode::kInternal,
              "device type 'T' from plugin 'inproc' GetDeviceCountForConfig: returned negative "
              "count -4 for requested 2");
  behavior_.config_count = 5;
  ExpectError(spec.DeviceCountForConfig(3).status(), absl::StatusCode::kInternal,
              "GetDeviceCountForConfig: returned 5 devices, more than the 3 requested");
  EXPECT_EQ(*spec.DeviceCountForConfig(-1), 5);  // the default is the plugin's to choose
  behavior_.fail = true;
  ExpectError(spec.DeviceCountForConfig(300).status(), absl::StatusCode::kInvalidArgument,
              "device type 'T' from plugin 'inproc' GetDeviceCountForConfig (requested 300): "
              "too many devices");
  ExpectError(spec.CreateDevice(0, {}, 300).status(), absl::StatusCode::kInvalidArgument,
              "too many devices");
}

TEST_F(InProcessDeviceTest, ShortTableHidesTheSlotsPastItsSize) {
  TSR_DeviceTypeRegistration r = Table("T", 0);
  // Alone it would be refused (its group is incomplete): the host must not even see it.
  r.Stream_Create = [](TSR_Device*, TSR_Stream_Create_Args*) {
    return AbiStatusCreate(TSR_CODE_INTERNAL, "read past the table");
  };
  r.struct_size = TSR_STRUCT_SIZE(TSR_DeviceTypeRegistration, Memcpy_DeviceToDevice);
  absl::StatusOr<DeviceTypeSpec> spec = Spec(r);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->registration.Stream_Create, nullptr);
  std::unique_ptr<PluginDevice> device = *spec->CreateDevice(0);
  EXPECT_FALSE(device->has_streams());
}

TEST_F(InProcessDeviceTest, SerializeCallsFlagSerializesEveryCall) {
  DeviceTypeSpec spec = *Spec(Table("SER", TSR_DEVICE_FLAG_SERIALIZE_CALLS));
  behavior_.count = 2;
  std::unique_ptr<PluginDevice> d0 = *spec.CreateDevice(0);
  std::unique_ptr<PluginDevice> d1 = *spec.CreateDevice(1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      PluginDevice& d = t % 2 == 0 ? *d0 : *d1;
      char byte = 0;
      for (int i = 0; i < 2000; ++i) {
        void* ptr = *d.Allocate(1, 1);
        (void)d.MemcpyHostToDevice(ptr, &byte, 0);
        EXPECT_TRUE(d.Free(ptr, 1).ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_FALSE(behavior_.overlapped);
}

}  // namespace
}  // namespace tessera
