// Tests of DeviceManager over real plugins loaded through the registry: the CPU plugin, the
// TESTDEV test plugin and fake plugins with older device tables, with and without device counts.
#include "host/runtime/device_manager.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/plugin_registry.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& substring) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(substring));
}

// The CPU plugin, TESTDEV and the older-table fake plugins (device types OLD and OLDSHORT), found only
// where named.
const PluginRegistry& Plugins() {
  static const PluginRegistry* registry = [] {
    RegistryOptions options;
    options.plugin_paths = {TESSERA_CPU_PLUGIN_MANIFEST, TESSERA_TESTDEVICE_PLUGIN_DIR,
                            TESSERA_OLDER_TABLE_PLUGIN_DIR};
    options.plugin_path_env = "";
    options.default_plugin_dir = "";
    absl::StatusOr<std::unique_ptr<PluginRegistry>> created = PluginRegistry::Create(options);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->release() : nullptr;
  }();
  return *registry;
}

absl::StatusOr<std::unique_ptr<DeviceManager>> Create(std::map<std::string, int> device_count) {
  DeviceManagerOptions options;
  options.device_count = std::move(device_count);
  return DeviceManager::Create(Plugins().device_types(), options);
}

// Names of the devices of `type`, in creation order.
std::vector<std::string> NamesOf(const DeviceManager& manager, const std::string& type) {
  std::vector<std::string> names;
  for (const Device* device : manager.devices()) {
    if (device->device_type() == type) names.push_back(device->name());
  }
  return names;
}

TEST(DeviceManagerTest, PluginsLoaded) {
  for (const char* type : {"CPU", "TESTDEV", "OLD", "OLDSHORT"}) {
    EXPECT_NE(Plugins().FindDeviceType(type), nullptr) << type;
  }
}

TEST(DeviceManagerTest, DefaultCountsComeFromThePlugins) {
  absl::StatusOr<std::unique_ptr<DeviceManager>> manager = Create({});
  ASSERT_TRUE(manager.ok()) << manager.status();
  EXPECT_THAT(NamesOf(**manager, "CPU"),
              ElementsAre("/job:localhost/replica:0/task:0/device:CPU:0"));
  EXPECT_THAT(NamesOf(**manager, "TESTDEV"),
              ElementsAre("/job:localhost/replica:0/task:0/device:TESTDEV:0",
                          "/job:localhost/replica:0/task:0/device:TESTDEV:1"));
  EXPECT_EQ(NamesOf(**manager, "OLD").size(), 2u);
  EXPECT_TRUE((*manager)->skipped().empty());
  EXPECT_EQ((*manager)->client_device()->name(), "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST(DeviceManagerTest, OneCpuDevice) {
  absl::StatusOr<std::unique_ptr<DeviceManager>> manager = Create({{"CPU", 1}});
  ASSERT_TRUE(manager.ok()) << manager.status();
  EXPECT_THAT(NamesOf(**manager, "CPU"),
              ElementsAre("/job:localhost/replica:0/task:0/device:CPU:0"));
}

TEST(DeviceManagerTest, TwoCpuDevices) {
  absl::StatusOr<std::unique_ptr<DeviceManager>> manager = Create({{"CPU", 2}});
  ASSERT_TRUE(manager.ok()) << manager.status();
  EXPECT_THAT(NamesOf(**manager, "CPU"),
              ElementsAre("/job:localhost/replica:0/task:0/device:CPU:0",
                          "/job:localhost/replica:0/task:0/device:CPU:1"));
  Device* cpu1 = (*manager)->FindDevice("/job:localhost/replica:0/task:0/device:CPU:1");
  ASSERT_NE(cpu1, nullptr);
  EXPECT_EQ((*manager)->FindDevice("CPU:1"), cpu1);
  EXPECT_TRUE(cpu1->host_memory());
  EXPECT_EQ(cpu1->plugin_name(), "cpu");
  EXPECT_NE(cpu1->incarnation(), (*manager)->FindDevice("CPU:0")->incarnation());
  // The client device stays CPU:0.
  EXPECT_EQ((*manager)->client_device()->name(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_TRUE((*manager)->skipped().empty());
}

TEST(DeviceManagerTest, EightCpuDevicesEachAllocateAndCopy) {
  absl::StatusOr<std::unique_ptr<DeviceManager>> manager = Create({{"CPU", 8}});
  ASSERT_TRUE(manager.ok()) << manager.status();
  std::vector<std::string> names = NamesOf(**manager, "CPU");
  ASSERT_EQ(names.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(names[i], "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i));
    Device* device = (*manager)->FindDevice(names[i]);
    ASSERT_NE(device, nullptr);
    Tensor host = Tensor::Scalar<int32_t>(i);
    Tensor on_device;
    ASSERT_TRUE(device->CopyFromHost(host, &on_device).ok());
    EXPECT_EQ(*on_device.data<int32_t>(), i);
  }
}

TEST(DeviceManagerTest, ZeroCreatesNoDevicesOfThatType) {
  absl::StatusOr<std::unique_ptr<DeviceManager>> manager = Create({{"TESTDEV", 0}});
  ASSERT_TRUE(manager.ok()) << manager.status();
  EXPECT_TRUE(NamesOf(**manager, "TESTDEV").empty());
  EXPECT_EQ(NamesOf(**manager, "CPU").size(), 1u);
  EXPECT_TRUE((*manager)->skipped().empty());
}

TEST(DeviceManagerTest, MoreThanAvailableCreatesWhatExistsAndSaysSo) {
  absl::StatusOr<std::unique_ptr<DeviceManager>> manager = Create({{"TESTDEV", 9}});
  ASSERT_TRUE(manager.ok()) << manager.status();
  EXPECT_EQ(NamesOf(**manager, "TESTDEV").size(), 8u);
  EXPECT_THAT((*manager)->skipped(),
              ElementsAre("device type TESTDEV from plugin 'testdevice': 9 devices requested, 8 "
                          "available; created 8"));
}

TEST(DeviceManagerTest, OlderDeviceTablesAreCountedByGetDeviceCount) {
  absl::StatusOr<std::unique_ptr<DeviceManager>> manager = Create({{"OLD", 5}, {"OLDSHORT", 1}});
  ASSERT_TRUE(manager.ok()) << manager.status();
  EXPECT_THAT(NamesOf(**manager, "OLD"),
              ElementsAre("/job:localhost/replica:0/task:0/device:OLD:0",
                          "/job:localhost/replica:0/task:0/device:OLD:1"));
  EXPECT_THAT(NamesOf(**manager, "OLDSHORT"),
              ElementsAre("/job:localhost/replica:0/task:0/device:OLDSHORT:0"));
  EXPECT_THAT((*manager)->skipped(),
              ElementsAre("device type OLD from plugin 'fake_older': 5 devices requested, 2 "
                          "available; created 2"));
}

TEST(DeviceManagerTest, NegativeCountIsInvalidArgument) {
  ExpectError(Create({{"CPU", -1}}).status(), absl::StatusCode::kInvalidArgument,
              "device_count for device type 'CPU' is -1; expected a count >= 0");
  ExpectError(Create({{"TESTDEV", -5}}).status(), absl::StatusCode::kInvalidArgument,
              "device_count for device type 'TESTDEV' is -5");
}

TEST(DeviceManagerTest, UnknownTypeIsInvalidArgumentListingTheKnownTypes) {
  ExpectError(Create({{"GPU", 1}}).status(), absl::StatusCode::kInvalidArgument,
              "device_count names device type 'GPU', which no loaded plugin provides (known device "
              "types: CPU, OLD, OLDSHORT, TESTDEV)");
  ExpectError(DeviceManager::Create({},
                                    [] {
                                      DeviceManagerOptions options;
                                      options.device_count = {{"CPU", 1}};
                                      return options;
                                    }())
                  .status(),
              absl::StatusCode::kInvalidArgument, "(known device types: none)");
}

TEST(DeviceManagerTest, CountThePluginRefusesIsItsError) {
  ExpectError(Create({{"CPU", 257}}).status(), absl::StatusCode::kInvalidArgument,
              "device_count asks for 257 CPU devices: device type 'CPU' from plugin 'cpu' "
              "GetDeviceCountForConfig (requested 257): CPU device count 257 is outside [0, 256]");
  absl::StatusOr<std::unique_ptr<DeviceManager>> most = Create({{"CPU", 256}});
  ASSERT_TRUE(most.ok()) << most.status();
  EXPECT_EQ(NamesOf(**most, "CPU").back(), "/job:localhost/replica:0/task:0/device:CPU:255");
}

TEST(DeviceManagerTest, TypeOptionsReachOnlyThatTypesDevices) {
  DeviceManagerOptions options;
  options.device_count = {{"CPU", 1}, {"TESTDEV", 1}};
  options.type_options = {{"TESTDEV", {{"stream_delay_us", "10"}}}};
  absl::StatusOr<std::unique_ptr<DeviceManager>> manager =
      DeviceManager::Create(Plugins().device_types(), options);
  ASSERT_TRUE(manager.ok()) << manager.status();
  int testdev = 0;
  for (const Device* device : (*manager)->devices()) testdev += device->device_type() == "TESTDEV";
  EXPECT_EQ(testdev, 1);
  // A value the plugin refuses fails creation, naming the option (not a silently missing device).
  options.type_options = {{"TESTDEV", {{"stream_delay_us", "soon"}}}};
  ExpectError(DeviceManager::Create(Plugins().device_types(), options).status(),
              absl::StatusCode::kInvalidArgument,
              "the device options of TESTDEV: device type 'TESTDEV' from plugin 'testdevice' "
              "Device_Create (ordinal 0): TESTDEV option stream_delay_us 'soon' is not a number of "
              "microseconds in [0, 1000000]");
  options.type_options = {{"GPU", {{"allow_tf32", "false"}}}};
  ExpectError(DeviceManager::Create(Plugins().device_types(), options).status(),
              absl::StatusCode::kInvalidArgument,
              "device options name device type 'GPU', which no loaded plugin provides");
}

}  // namespace
}  // namespace tessera
