// Tests of loading one plugin: the fake .so cases, in-process plugins and the registrar rules.
#include "registry/plugin_loader.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "registry/abi_op_def_builder.h"
#include "registry/abi_status.h"
#include "registry/host_api.h"
#include "registry/plugin_library.h"
#include "registry/testing/fake_plugin_paths.h"

namespace tessera {
namespace {

using testing_paths::FakeManifest;

// This host's ABI version as refusals print it ("0.2").
std::string HostAbi() { return absl::StrCat(TSR_ABI_VERSION_MAJOR, ".", TSR_ABI_VERSION_MINOR); }

LoaderOptions Options() {
  LoaderOptions options;
  options.host_api = GetHostApi(TSR_HostApi{});
  return options;
}

void ExpectRejected(const LoadedPlugin& loaded, absl::StatusCode code,
                    const std::string& substring) {
  EXPECT_EQ(loaded.record.state, PluginState::kRejected);
  EXPECT_EQ(loaded.record.status.code(), code) << loaded.record.status;
  EXPECT_NE(loaded.record.status.message().find(substring), absl::string_view::npos)
      << loaded.record.status.message();
  EXPECT_EQ(loaded.record.reason, loaded.record.status.message());
  EXPECT_TRUE(loaded.registrations.device_types.empty());
  EXPECT_TRUE(loaded.registrations.ops.empty());
  EXPECT_TRUE(loaded.registrations.kernels.empty());
  EXPECT_TRUE(loaded.registrations.transports.empty());
}

TEST(PluginLoaderTest, LoadsTheGoodPlugin) {
  LoadedPlugin loaded = LoadPlugin(FakeManifest("good", "fake_good"), Options());
  ASSERT_EQ(loaded.record.state, PluginState::kLoaded) << loaded.record.status;
  EXPECT_EQ(loaded.record.name, "fake_good");
  EXPECT_EQ(loaded.record.version, "1.2.3");
  EXPECT_EQ(loaded.record.vendor, "Tessera tests");
  EXPECT_EQ(loaded.record.priority, 5);
  EXPECT_EQ(loaded.record.provides.size(), 4u);
  EXPECT_TRUE(loaded.record.warnings.empty());
  ASSERT_EQ(loaded.registrations.device_types.size(), 1u);
  EXPECT_EQ(loaded.registrations.device_types[0].device_type, "FAKE");
  EXPECT_EQ(loaded.registrations.device_types[0].origin.plugin_priority, 5);
  EXPECT_NE(loaded.registrations.device_types[0].origin.library, nullptr);
  ASSERT_EQ(loaded.registrations.ops.size(), 1u);
  EXPECT_EQ(loaded.registrations.ops[0].name, "FakeOp");
  EXPECT_EQ(loaded.registrations.ops[0].origin.plugin_name, "fake_good");
  ASSERT_EQ(loaded.registrations.kernels.size(), 1u);
  EXPECT_EQ(loaded.registrations.kernels[0].device_type, "FAKE");
  ASSERT_EQ(loaded.registrations.transports.size(), 1u);
  EXPECT_EQ(loaded.registrations.transports[0].name, "fake");
  EXPECT_NE(loaded.library, nullptr);
}

TEST(PluginLoaderTest, RejectsMalformedManifest) {
  LoadedPlugin loaded = LoadPlugin(FakeManifest("malformed", "broken"), Options());
  ExpectRejected(loaded, absl::StatusCode::kInvalidArgument,
                 "broken.tessera-plugin.json: malformed JSON: parse error at line 5");
  EXPECT_EQ(loaded.record.name, "broken");
  EXPECT_EQ(loaded.library, nullptr);
}

TEST(PluginLoaderTest, RejectsManifestWithBadField) {
  ExpectRejected(LoadPlugin(FakeManifest("malformed", "bad_field"), Options()),
                 absl::StatusCode::kInvalidArgument,
                 "bad_field.tessera-plugin.json: field 'abi.major': expected an integer, got "
                 "\"one\"");
}

TEST(PluginLoaderTest, RejectsMissingLibrary) {
  LoadedPlugin loaded = LoadPlugin(FakeManifest("missing_library", "nowhere"), Options());
  ExpectRejected(loaded, absl::StatusCode::kNotFound, "libtessera_nowhere.so named by manifest");
  EXPECT_EQ(loaded.library, nullptr);
}

TEST(PluginLoaderTest, RejectsLibraryWithoutInit) {
  ExpectRejected(LoadPlugin(FakeManifest("no_init", "fake_no_init"), Options()),
                 absl::StatusCode::kNotFound,
                 "libtessera_fake_no_init.so does not export TSR_Plugin_Init");
}

TEST(PluginLoaderTest, RejectsAbiMajorMismatchBeforeLoading) {
  LoadedPlugin loaded = LoadPlugin(FakeManifest("abi_major", "fake_major"), Options());
  ExpectRejected(loaded, absl::StatusCode::kFailedPrecondition,
                 absl::StrCat("plugin 'fake_major' 3.0.0 (libtessera_fake_major.so) is built for "
                              "ABI major 7; this host is ",
                              HostAbi(), ": upgrade Tessera or install a fake_major built for ABI ",
                              HostAbi()));
  EXPECT_EQ(loaded.library, nullptr);  // never dlopened
}

TEST(PluginLoaderTest, RejectsPluginNeedingNewerHostMinorInManifest) {
  LoadedPlugin loaded =
      LoadPlugin(FakeManifest("newer_minor_manifest", "fake_minor_manifest"), Options());
  ExpectRejected(
      loaded, absl::StatusCode::kFailedPrecondition,
      absl::StrCat("plugin 'fake_minor_manifest' 0.1.0 "
                   "(libtessera_fake_minor_manifest.so) needs host ABI >= 1.7; this "
                   "host is ",
                   HostAbi(), ": upgrade Tessera or install a fake_minor_manifest built for ABI ",
                   HostAbi()));
  EXPECT_EQ(loaded.library, nullptr);
}

TEST(PluginLoaderTest, RejectsPluginNeedingNewerHostMinorInInitInfo) {
  LoadedPlugin loaded = LoadPlugin(FakeManifest("newer_minor_info", "fake_minor_info"), Options());
  ExpectRejected(loaded, absl::StatusCode::kFailedPrecondition,
                 absl::StrCat("plugin 'fake_minor_info' 0.1.0 (libtessera_fake_minor_info.so) "
                              "needs host ABI >= 1.7 (as reported by TSR_Plugin_Init); this host "
                              "is ",
                              HostAbi(), ": upgrade Tessera"));
  EXPECT_NE(loaded.library, nullptr);  // loaded, kept alive, unused
}

TEST(PluginLoaderTest, RejectsInitThatReturnsAnErrorAndDropsItsRegistrations) {
  ExpectRejected(LoadPlugin(FakeManifest("init_error", "fake_init_error"), Options()),
                 absl::StatusCode::kFailedPrecondition,
                 "plugin 'fake_init_error' 0.1.0 (libtessera_fake_init_error.so) TSR_Plugin_Init: "
                 "fake device driver not installed");
}

TEST(PluginLoaderTest, RejectsInitThatThrows) {
  ExpectRejected(LoadPlugin(FakeManifest("init_throws", "fake_init_throws"), Options()),
                 absl::StatusCode::kInternal,
                 "TSR_Plugin_Init threw an exception: fake plugin exploded during init");
}

TEST(PluginLoaderTest, RejectsSha256Mismatch) {
  LoadedPlugin loaded = LoadPlugin(FakeManifest("sha256_mismatch", "fake_sha"), Options());
  ExpectRejected(loaded, absl::StatusCode::kFailedPrecondition,
                 "libtessera_fake_sha.so has sha256 ");
  EXPECT_NE(loaded.record.reason.find("expects " + std::string(64, '0')), std::string::npos);
  EXPECT_EQ(loaded.library, nullptr);
}

TEST(PluginLoaderTest, RejectsUnknownCpuFeature) {
  ExpectRejected(LoadPlugin(FakeManifest("cpu_feature", "fake_cpu_feature"), Options()),
                 absl::StatusCode::kInvalidArgument, "unknown CPU feature 'avx512_not_a_feature'");
}

TEST(PluginLoaderTest, RejectsNameMismatch) {
  ExpectRejected(LoadPlugin(FakeManifest("name_mismatch", "fake_misnamed"), Options()),
                 absl::StatusCode::kInvalidArgument,
                 "TSR_Plugin_Init reports name 'someone_else', but its manifest says "
                 "'fake_misnamed'");
}

TEST(PluginLoaderTest, RejectsPluginWhoseRegistrationFails) {
  ExpectRejected(LoadPlugin(FakeManifest("bad_registration", "fake_bad_slot"), Options()),
                 absl::StatusCode::kInvalidArgument,
                 "device type 'BADSLOT' registration: required slot 'Memory_Allocate' is NULL");
}

TEST(PluginLoaderTest, RejectsLibraryTheLoaderCannotLoad) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tessera_loader_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "libtessera_text.so") << "not an ELF file";
  std::ofstream(dir / "text.tessera-plugin.json")
      << R"({"manifest_version": 1, "name": "text", "vendor": "v", "version": "1.0.0",
            "abi": {"major": 1, "min_minor": 0}, "library": "libtessera_text.so"})";
  LoadedPlugin loaded = LoadPlugin((dir / "text.tessera-plugin.json").string(), Options());
  fs::remove_all(dir);
  ExpectRejected(loaded, absl::StatusCode::kUnavailable,
                 "plugin 'text' 1.0.0 (libtessera_text.so): cannot load ");
}

TEST(PluginLoaderTest, RejectsWhenThereIsNoHostTable) {
  ExpectRejected(LoadPlugin(FakeManifest("good", "fake_good"), LoaderOptions()),
                 absl::StatusCode::kInternal, "no host table to give the plugin");
}

// ---- In-process plugins ----------------------------------------------------------------------

TSR_Status* FillInfo(const TSR_Plugin_Init_Args* args, const char* name) {
  args->info->name = name;
  args->info->version = "0.0.0";
  args->info->abi_version_major = TSR_ABI_VERSION_MAJOR;
  args->info->abi_version_minor = TSR_ABI_VERSION_MINOR;
  args->info->min_host_abi_version_minor = 0;
  return nullptr;
}

InProcessPlugin InProcess(const char* name, TSR_Plugin_InitFn init) {
  InProcessPlugin plugin;
  plugin.name = name;
  plugin.init = init;
  return plugin;
}

TEST(InProcessPluginTest, LoadsWithTheSameNegotiation) {
  LoadedPlugin loaded = LoadInProcessPlugin(
      InProcess("inproc",
                [](const TSR_Plugin_Init_Args* args) {
                  EXPECT_EQ(args->host_abi_version_major, TSR_ABI_VERSION_MAJOR);
                  EXPECT_EQ(args->host->abi_version_minor, TSR_ABI_VERSION_MINOR);
                  EXPECT_STREQ(args->host->host_version, kHostVersion);
                  return FillInfo(args, "inproc");
                }),
      Options());
  EXPECT_EQ(loaded.record.state, PluginState::kLoaded) << loaded.record.status;
  EXPECT_EQ(loaded.record.library_path, "(in-process)");
}

TEST(InProcessPluginTest, RejectsMissingInit) {
  ExpectRejected(LoadInProcessPlugin(InProcess("nothing", nullptr), Options()),
                 absl::StatusCode::kInvalidArgument,
                 "in-process plugin 'nothing' has no init function");
}

TEST(InProcessPluginTest, RejectsInitThatLeavesInfoEmpty) {
  ExpectRejected(
      LoadInProcessPlugin(
          InProcess("silent", [](const TSR_Plugin_Init_Args*) -> TSR_Status* { return nullptr; }),
          Options()),
      absl::StatusCode::kInvalidArgument, "returned OK without filling its info");
}

TEST(InProcessPluginTest, RejectsOtherAbiMajorReportedByInit) {
  ExpectRejected(LoadInProcessPlugin(InProcess("future",
                                               [](const TSR_Plugin_Init_Args* args) {
                                                 FillInfo(args, "future");
                                                 args->info->abi_version_major = 9;
                                                 return static_cast<TSR_Status*>(nullptr);
                                               }),
                                     Options()),
                 absl::StatusCode::kFailedPrecondition,
                 "is built for ABI major 9 (as reported by TSR_Plugin_Init)");
}

TEST(InProcessPluginTest, RejectsInitThrowingANonStandardException) {
  ExpectRejected(LoadInProcessPlugin(
                     InProcess("odd", [](const TSR_Plugin_Init_Args*) -> TSR_Status* { throw 42; }),
                     Options()),
                 absl::StatusCode::kInternal, "threw an exception of unknown type");
}

TEST(InProcessPluginTest, VersionDifferenceFromManifestIsAWarning) {
  InProcessPlugin plugin = InProcess(
      "versioned", [](const TSR_Plugin_Init_Args* args) { return FillInfo(args, "versioned"); });
  plugin.version = "2.0.0";
  LoadedPlugin loaded = LoadInProcessPlugin(plugin, Options());
  ASSERT_EQ(loaded.record.state, PluginState::kLoaded);
  ASSERT_EQ(loaded.record.warnings.size(), 1u);
  EXPECT_EQ(loaded.record.warnings[0],
            "TSR_Plugin_Init reports version 0.0.0, the manifest says 2.0.0");
}

TEST(InProcessPluginTest, EmulatedOlderHostRefusesNewerPlugin) {
  LoaderOptions options = Options();
  options.policy.host_abi_minor = 0;
  ExpectRejected(LoadInProcessPlugin(InProcess("needs1",
                                               [](const TSR_Plugin_Init_Args* args) {
                                                 FillInfo(args, "needs1");
                                                 args->info->min_host_abi_version_minor = 1;
                                                 EXPECT_EQ(args->host_abi_version_minor, 0u);
                                                 return static_cast<TSR_Status*>(nullptr);
                                               }),
                                     options),
                 absl::StatusCode::kFailedPrecondition,
                 "needs host ABI >= 1.1 (as reported by TSR_Plugin_Init); this host is 1.0");
}

// ---- Registrar rules --------------------------------------------------------------------------

TSR_Registrar* saved_registrar = nullptr;
const TSR_HostApi* saved_host = nullptr;

TSR_TransportRegistration MinimalTransport(const char* name) {
  TSR_TransportRegistration r;
  std::memset(&r, 0, sizeof(r));
  r.struct_size = sizeof(r);
  r.name = name;
  r.Server_Start = [](void*, const TSR_Transport_Listen_Args*,
                      TSR_TransportServer**) -> TSR_Status* { return nullptr; };
  r.Server_Address = [](TSR_TransportServer*) { return ""; };
  r.Server_Stop = [](TSR_TransportServer*) {};
  r.Channel_Create = [](void*, const TSR_Transport_Connect_Args*,
                        TSR_TransportChannel**) -> TSR_Status* { return nullptr; };
  r.Channel_Destroy = [](TSR_TransportChannel*) {};
  r.Channel_Call = [](TSR_TransportChannel*, const char*, const void*, size_t, int64_t,
                      TSR_CallDoneFn, void*) {};
  r.Channel_RecvTensor = [](TSR_TransportChannel*, const TSR_Channel_RecvTensor_Args*) {};
  r.Reply_Send = [](TSR_TransportReply*, TSR_Status*, const void*, size_t) {};
  r.Reply_SendTensor = [](TSR_TransportReply*, TSR_Status*, const TSR_TensorView*, bool,
                          TSR_ReleaseFn, void*) {};
  return r;
}

TEST(RegistrarTest, RefusedRegistrationsBecomeWarningsWhenInitIgnoresThem) {
  LoadedPlugin loaded = LoadInProcessPlugin(
      InProcess("sloppy",
                [](const TSR_Plugin_Init_Args* args) {
                  const TSR_HostApi* host = args->host;
                  TSR_Registrar* registrar = args->registrar;
                  host->Status_Destroy(host->Registrar_RegisterDeviceType(registrar, nullptr));
                  host->Status_Destroy(host->Registrar_RegisterKernel(registrar, nullptr));
                  host->Status_Destroy(host->Registrar_RegisterTransport(registrar, nullptr));
                  TSR_TransportRegistration transport = MinimalTransport("dup");
                  EXPECT_EQ(host->Registrar_RegisterTransport(registrar, &transport), nullptr);
                  host->Status_Destroy(host->Registrar_RegisterTransport(registrar, &transport));
                  EXPECT_EQ(host->Registrar_RegisterOp(registrar, host->OpDefBuilder_Create("Dup")),
                            nullptr);
                  host->Status_Destroy(
                      host->Registrar_RegisterOp(registrar, host->OpDefBuilder_Create("Dup")));
                  host->Status_Destroy(
                      host->Registrar_RegisterOp(registrar, host->OpDefBuilder_Create("bad")));
                  return FillInfo(args, "sloppy");
                }),
      Options());
  ASSERT_EQ(loaded.record.state, PluginState::kLoaded) << loaded.record.status;
  EXPECT_EQ(loaded.registrations.transports.size(), 1u);
  EXPECT_EQ(loaded.registrations.ops.size(), 1u);
  const std::vector<std::string> expected = {
      "registration refused: device type registration is NULL",
      "registration refused: kernel registration is NULL",
      "registration refused: transport registration is NULL",
      "registration refused: transport 'dup' is registered twice by plugin 'sloppy'",
      "registration refused: op 'Dup' is registered twice by plugin 'sloppy'",
      "registration refused: op name 'bad' does not match [A-Z][a-zA-Z0-9>_]*",
  };
  EXPECT_EQ(loaded.record.warnings, expected);
}

TEST(RegistrarTest, DuplicateDeviceTypeIsAlreadyExists) {
  ExpectRejected(
      LoadInProcessPlugin(
          InProcess("twice",
                    [](const TSR_Plugin_Init_Args* args) -> TSR_Status* {
                      FillInfo(args, "twice");
                      TSR_DeviceTypeRegistration r;
                      std::memset(&r, 0, sizeof(r));
                      r.struct_size = sizeof(r);
                      r.device_type = "TWICE";
                      r.GetDeviceCount = [](void*, int32_t*) -> TSR_Status* { return nullptr; };
                      r.Device_Create = [](void*, const TSR_Device_Create_Args*,
                                           TSR_Device**) -> TSR_Status* { return nullptr; };
                      r.Device_Destroy = [](TSR_Device*) {};
                      r.Memory_Allocate = [](TSR_Device*,
                                             TSR_Memory_Allocate_Args*) -> TSR_Status* {
                        return nullptr;
                      };
                      r.Memory_Free = [](TSR_Device*,
                                         const TSR_Memory_Free_Args*) -> TSR_Status* {
                        return nullptr;
                      };
                      auto copy = [](TSR_Device*, TSR_Stream*, void*, const void*,
                                     size_t) -> TSR_Status* { return nullptr; };
                      r.Memcpy_HostToDevice = copy;
                      r.Memcpy_DeviceToHost = copy;
                      r.Memcpy_DeviceToDevice = copy;
                      TSR_Status* status =
                          args->host->Registrar_RegisterDeviceType(args->registrar, &r);
                      if (status != nullptr) return status;
                      return args->host->Registrar_RegisterDeviceType(args->registrar, &r);
                    }),
          Options()),
      absl::StatusCode::kAlreadyExists,
      "device type 'TWICE' is registered twice by plugin 'twice'");
}

TEST(RegistrarTest, RegistrationAfterInitOrFromAnotherThreadIsRefused) {
  LoadedPlugin loaded = LoadInProcessPlugin(
      InProcess("late",
                [](const TSR_Plugin_Init_Args* args) {
                  saved_registrar = args->registrar;
                  saved_host = args->host;
                  TSR_Status* from_thread = nullptr;
                  std::thread([&] {
                    TSR_TransportRegistration transport = MinimalTransport("threaded");
                    from_thread =
                        saved_host->Registrar_RegisterTransport(saved_registrar, &transport);
                  }).join();
                  absl::Status status = FromAbiStatus(from_thread, "thread");
                  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
                  EXPECT_NE(status.message().find("registered from a thread other than the one "
                                                  "running TSR_Plugin_Init"),
                            absl::string_view::npos);
                  return FillInfo(args, "late");
                }),
      Options());
  ASSERT_EQ(loaded.record.state, PluginState::kLoaded);
  // The registrar is gone with the Init call; a fresh closed one shows the rule.
  TSR_Registrar closed(PluginOrigin{"late", 0, nullptr});
  closed.open = false;
  TSR_TransportRegistration transport = MinimalTransport("after");
  absl::Status status =
      FromAbiStatus(saved_host->Registrar_RegisterTransport(&closed, &transport), "late");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("registered after TSR_Plugin_Init returned"),
            absl::string_view::npos);
  status =
      FromAbiStatus(saved_host->Registrar_RegisterOp(&closed, OpDefBuilderCreate("Late")), "late");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  status = FromAbiStatus(saved_host->Registrar_RegisterKernel(nullptr, nullptr), "late");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("Registrar_RegisterKernel: registrar is NULL"),
            absl::string_view::npos);
}

TEST(PluginLibraryTest, InProcessLibraryHasNoInitToFind) {
  absl::StatusOr<TSR_Plugin_InitFn> init = PluginLibrary::InProcess("x")->FindInit();
  ASSERT_FALSE(init.ok());
  EXPECT_EQ(init.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(init.status().message().find("an in-process plugin has no library to search"),
            absl::string_view::npos);
}

TEST(PluginStateTest, Names) {
  EXPECT_STREQ(PluginStateName(PluginState::kLoaded), "LOADED");
  EXPECT_STREQ(PluginStateName(PluginState::kRejected), "REJECTED");
  EXPECT_STREQ(PluginStateName(PluginState::kShadowed), "SHADOWED");
}

}  // namespace
}  // namespace tessera
