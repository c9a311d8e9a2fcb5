// Tests of PluginRegistry over every fake plugin case: isolation, ranking, options, output.
#include "registry/plugin_registry.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "registry/device_handle.h"
#include "registry/host_api.h"
#include "registry/testing/fake_plugin_paths.h"

namespace tessera {
namespace {

using testing_paths::FakePluginCase;

// This host's ABI version as refusals print it ("0.2").
std::string HostAbi() { return absl::StrCat(TSR_ABI_VERSION_MAJOR, ".", TSR_ABI_VERSION_MINOR); }

const char* const kAllCases[] = {"good",
                                 "malformed",
                                 "missing_library",
                                 "no_init",
                                 "abi_major",
                                 "newer_minor_manifest",
                                 "newer_minor_info",
                                 "init_error",
                                 "init_throws",
                                 "dual",
                                 "sha256_mismatch",
                                 "cpu_feature",
                                 "name_mismatch",
                                 "bad_registration"};

RegistryOptions Isolated() {
  RegistryOptions options;
  options.plugin_path_env = "";
  options.default_plugin_dir = "";
  options.policy.config_env = "";
  options.policy.system_config_file = "";
  return options;
}

RegistryOptions AllCases() {
  RegistryOptions options = Isolated();
  for (const char* name : kAllCases) options.plugin_paths.push_back(FakePluginCase(name));
  return options;
}

std::unique_ptr<PluginRegistry> MustCreate(const RegistryOptions& options) {
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
  EXPECT_TRUE(registry.ok()) << registry.status();
  return registry.ok() ? *std::move(registry) : nullptr;
}

void ExpectRecord(const PluginRegistry& registry, const std::string& name, PluginState state,
                  absl::StatusCode code, const std::string& reason_substring) {
  const PluginRecord* record = registry.FindRecord(name);
  ASSERT_NE(record, nullptr) << name;
  EXPECT_EQ(record->state, state) << name << ": " << record->reason;
  EXPECT_EQ(record->status.code(), code) << name << ": " << record->status;
  EXPECT_NE(record->reason.find(reason_substring), std::string::npos)
      << name << ": " << record->reason;
}

TEST(PluginRegistryTest, AFailingPluginNeverStopsTheOthers) {
  std::unique_ptr<PluginRegistry> registry = MustCreate(AllCases());
  ASSERT_NE(registry, nullptr);
  const absl::StatusCode ok = absl::StatusCode::kOk;
  ExpectRecord(*registry, "fake_good", PluginState::kLoaded, ok, "");
  ExpectRecord(*registry, "broken", PluginState::kRejected, absl::StatusCode::kInvalidArgument,
               "malformed JSON");
  ExpectRecord(*registry, "bad_field", PluginState::kRejected, absl::StatusCode::kInvalidArgument,
               "field 'abi.major': expected an integer, got \"one\"");
  ExpectRecord(*registry, "nowhere", PluginState::kRejected, absl::StatusCode::kNotFound,
               "libtessera_nowhere.so");
  ExpectRecord(*registry, "fake_no_init", PluginState::kRejected, absl::StatusCode::kNotFound,
               "does not export TSR_Plugin_Init");
  ExpectRecord(*registry, "fake_major", PluginState::kRejected,
               absl::StatusCode::kFailedPrecondition, "is built for ABI major 7");
  ExpectRecord(*registry, "fake_minor_manifest", PluginState::kRejected,
               absl::StatusCode::kFailedPrecondition,
               "needs host ABI >= 1.7; this host is " + HostAbi());
  ExpectRecord(*registry, "fake_minor_info", PluginState::kRejected,
               absl::StatusCode::kFailedPrecondition,
               "needs host ABI >= 1.7 (as reported by TSR_Plugin_Init)");
  ExpectRecord(*registry, "fake_init_error", PluginState::kRejected,
               absl::StatusCode::kFailedPrecondition, "fake device driver not installed");
  ExpectRecord(*registry, "fake_init_throws", PluginState::kRejected, absl::StatusCode::kInternal,
               "fake plugin exploded during init");
  ExpectRecord(*registry, "fake_sha", PluginState::kRejected, absl::StatusCode::kFailedPrecondition,
               "has sha256");
  ExpectRecord(*registry, "fake_cpu_feature", PluginState::kRejected,
               absl::StatusCode::kInvalidArgument, "unknown CPU feature 'avx512_not_a_feature'");
  ExpectRecord(*registry, "fake_misnamed", PluginState::kRejected,
               absl::StatusCode::kInvalidArgument, "reports name 'someone_else'");
  ExpectRecord(*registry, "fake_bad_slot", PluginState::kRejected,
               absl::StatusCode::kInvalidArgument, "required slot 'Memory_Allocate' is NULL");
  EXPECT_EQ(registry->records().size(), 18u);

  // Only accepted plugins contributed registrations.
  EXPECT_NE(registry->FindDeviceType("FAKE"), nullptr);
  EXPECT_EQ(registry->FindDeviceType("BROKEN"), nullptr);
  EXPECT_EQ(registry->FindDeviceType("MINOR"), nullptr);
  EXPECT_EQ(registry->FindDeviceType("BADSLOT"), nullptr);
  ASSERT_NE(registry->FindOp("FakeOp"), nullptr);
  EXPECT_EQ(registry->FindOp("Missing"), nullptr);
  EXPECT_NE(registry->FindTransport("fake"), nullptr);
  EXPECT_EQ(registry->FindTransport("grpc"), nullptr);
}

TEST(PluginRegistryTest, RanksProvidersByPriorityThenName) {
  RegistryOptions options = Isolated();
  options.plugin_paths = {FakePluginCase("dual")};
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  std::vector<std::string> order;
  for (const DeviceTypeSpec& spec : registry->device_types()) {
    order.push_back(spec.device_type + "/" + spec.origin.plugin_name + "/" +
                    (spec.active ? "active" : "shadowed"));
  }
  EXPECT_EQ(order,
            (std::vector<std::string>{"DUAL/fake_dual_high/active", "DUAL/fake_dual_low/shadowed",
                                      "TIE/fake_tie_a/active", "TIE/fake_tie_b/shadowed"}));
  EXPECT_EQ(registry->FindDeviceType("DUAL")->origin.plugin_name, "fake_dual_high");
  EXPECT_EQ(registry->device_types()[1].shadowed_reason,
            "device type 'DUAL' is provided by 'fake_dual_high' (priority 20), which ranks "
            "higher");
  ExpectRecord(*registry, "fake_dual_low", PluginState::kShadowed, absl::StatusCode::kOk,
               "device type 'DUAL' is provided by 'fake_dual_high' (priority 20)");
  ExpectRecord(*registry, "fake_tie_b", PluginState::kShadowed, absl::StatusCode::kOk,
               "device type 'TIE' is provided by 'fake_tie_a' (priority 15), which ranks higher");
  ExpectRecord(*registry, "fake_dual_high", PluginState::kLoaded, absl::StatusCode::kOk, "");
  // The shadowed provider's kernels for its own type go with it.
  std::vector<const KernelSpec*> kernels = registry->FindKernels("FakeOp", "DUAL");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0]->origin.plugin_name, "fake_dual_high");
}

TEST(PluginRegistryTest, UserPreferenceRanksFirst) {
  RegistryOptions options = Isolated();
  options.plugin_paths = {FakePluginCase("dual")};
  options.policy.preferred_providers = {{"DUAL", "fake_dual_low"}, {"GPU", "nobody"}};
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  EXPECT_EQ(registry->FindDeviceType("DUAL")->origin.plugin_name, "fake_dual_low");
  ExpectRecord(*registry, "fake_dual_high", PluginState::kShadowed, absl::StatusCode::kOk,
               "device type 'DUAL' is provided by 'fake_dual_low' (priority 10), which is "
               "preferred by the options (DUAL=fake_dual_low)");
  ExpectRecord(*registry, "fake_dual_low", PluginState::kLoaded, absl::StatusCode::kOk,
               "serves device type 'DUAL', preferred by the options (DUAL=fake_dual_low)");
  EXPECT_THAT(registry->warnings(),
              testing::Contains("preferred provider 'nobody' for device type 'GPU' is not "
                                "loaded or does not provide it (from the options)"));
}

TEST(PluginRegistryTest, AllowlistLoadsOnlyListedPlugins) {
  RegistryOptions options = AllCases();
  options.policy.allowlist = std::set<std::string>{"fake_good"};
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  ExpectRecord(*registry, "fake_good", PluginState::kLoaded, absl::StatusCode::kOk, "");
  ExpectRecord(*registry, "fake_dual_high", PluginState::kRejected,
               absl::StatusCode::kPermissionDenied,
               "is not in the allowlist (allowed: fake_good; from the options)");
}

TEST(PluginRegistryTest, RequireSha256RefusesManifestsWithoutOne) {
  RegistryOptions options = AllCases();
  options.policy.require_sha256 = true;
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  ExpectRecord(*registry, "fake_good", PluginState::kLoaded, absl::StatusCode::kOk, "");
  ExpectRecord(*registry, "fake_tie_a", PluginState::kRejected, absl::StatusCode::kPermissionDenied,
               "has no sha256 and this host requires one");
}

// A policy file in a fresh folder, removed when the test ends.
class PolicyFile {
 public:
  explicit PolicyFile(const std::string& contents)
      : dir_(std::filesystem::temp_directory_path() /
             ("tessera_registry_policy_" + std::to_string(getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::create_directories(dir_);
    std::ofstream(path()) << contents;
  }
  ~PolicyFile() { std::filesystem::remove_all(dir_); }
  std::string path() const { return (dir_ / "plugins.json").string(); }

 private:
  std::filesystem::path dir_;
};

TEST(PluginRegistryTest, AllowlistFromTheConfigFileNamesTheFile) {
  PolicyFile file(R"({"allow": ["fake_good"]})");
  RegistryOptions options = AllCases();
  options.policy.system_config_file = file.path();
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  ExpectRecord(*registry, "fake_good", PluginState::kLoaded, absl::StatusCode::kOk, "");
  ExpectRecord(*registry, "fake_dual_high", PluginState::kRejected,
               absl::StatusCode::kPermissionDenied,
               "is not in the allowlist (allowed: fake_good; from config file " + file.path() +
                   ")");
  EXPECT_EQ(registry->policy().config_file, file.path());
  EXPECT_NE(registry->FormatText().find("policy:\n  config file " + file.path()),
            std::string::npos)
      << registry->FormatText();
}

TEST(PluginRegistryTest, RequireSha256FromTheConfigFileRefusesManifestsWithoutOne) {
  PolicyFile file(R"({"require_sha256": true})");
  RegistryOptions options = AllCases();
  options.policy.config_file = file.path();
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  ExpectRecord(*registry, "fake_good", PluginState::kLoaded, absl::StatusCode::kOk, "");
  ExpectRecord(*registry, "fake_tie_a", PluginState::kRejected, absl::StatusCode::kPermissionDenied,
               "has no sha256 and this host requires one (from config file " + file.path() + ")");
}

TEST(PluginRegistryTest, OptionsOverrideTheConfigFile) {
  PolicyFile file(R"({"allow": ["fake_good"], "prefer": {"DUAL": "fake_dual_low"}})");
  RegistryOptions options = AllCases();
  options.policy.config_file = file.path();
  options.policy.allowlist = std::set<std::string>{"fake_dual_low", "fake_dual_high"};
  options.policy.allowlist_source = "--plugin-allow";
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  ExpectRecord(*registry, "fake_good", PluginState::kRejected, absl::StatusCode::kPermissionDenied,
               "is not in the allowlist (allowed: fake_dual_high, fake_dual_low; from "
               "--plugin-allow)");
  // The file's preference stays where the options say nothing about the type.
  const std::string by_file = "preferred by config file " + file.path() + " (DUAL=fake_dual_low)";
  ExpectRecord(*registry, "fake_dual_high", PluginState::kShadowed, absl::StatusCode::kOk,
               "which is " + by_file);
  ExpectRecord(*registry, "fake_dual_low", PluginState::kLoaded, absl::StatusCode::kOk,
               "serves device type 'DUAL', " + by_file);
  EXPECT_NE(registry->FormatText().find("active, " + by_file), std::string::npos)
      << registry->FormatText();

  options.policy.preferred_providers = {{"DUAL", "fake_dual_high"}};
  options.policy.preferred_providers_source = "--plugin-prefer";
  registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  EXPECT_EQ(registry->FindDeviceType("DUAL")->origin.plugin_name, "fake_dual_high");
  EXPECT_EQ(registry->FindDeviceType("DUAL")->preferred_by, "--plugin-prefer DUAL=fake_dual_high");
  ExpectRecord(*registry, "fake_dual_low", PluginState::kShadowed, absl::StatusCode::kOk,
               "which is preferred by --plugin-prefer DUAL=fake_dual_high");
  const nlohmann::json json = nlohmann::json::parse(registry->FormatJson());
  EXPECT_EQ(json["policy"]["allow_source"], "--plugin-allow");
  EXPECT_EQ(json["policy"]["prefer"]["DUAL"]["source"], "--plugin-prefer");
}

TEST(PluginRegistryTest, BadOrMissingConfigFileFailsCreate) {
  PolicyFile file(R"({"allow": ["fake_good"], "requires_sha256": true})");
  RegistryOptions options = Isolated();
  options.policy.system_config_file = file.path();
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
  ASSERT_FALSE(registry.ok());
  EXPECT_EQ(registry.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(registry.status().message().find("plugin config file " + file.path() +
                                             ": unknown key 'requires_sha256'"),
            absl::string_view::npos)
      << registry.status();

  options = Isolated();
  options.policy.config_file = file.path() + ".missing";
  registry = PluginRegistry::Create(options);
  ASSERT_FALSE(registry.ok());
  EXPECT_EQ(registry.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(registry.status().message().find(file.path() + ".missing"), absl::string_view::npos)
      << registry.status();
}

TEST(PluginRegistryTest, FirstPluginOfANameWins) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tessera_registry_" + std::to_string(getpid()));
  fs::create_directories(dir);
  nlohmann::json manifest =
      nlohmann::json::parse(std::ifstream(testing_paths::FakeManifest("good", "fake_good")));
  manifest["library"] = FakePluginCase("good") + "/libtessera_fake_good.so";
  std::ofstream(dir / "copy.tessera-plugin.json") << manifest.dump();
  RegistryOptions options = Isolated();
  options.plugin_paths = {FakePluginCase("good"), dir.string()};
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  fs::remove_all(dir);
  ASSERT_NE(registry, nullptr);
  ASSERT_EQ(registry->records().size(), 2u);
  EXPECT_EQ(registry->records()[0].state, PluginState::kLoaded);
  const PluginRecord& second = registry->records()[1];
  EXPECT_EQ(second.state, PluginState::kRejected);
  EXPECT_EQ(second.status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(second.reason.find("plugin 'fake_good' from " + (dir / "copy").string()),
            std::string::npos);
  EXPECT_NE(second.reason.find("is already loaded from " +
                               testing_paths::FakeManifest("good", "fake_good")),
            std::string::npos);
}

TEST(PluginRegistryTest, EmulatedOlderHostMinor) {
  RegistryOptions options = Isolated();
  options.plugin_paths = {FakePluginCase("newer_minor_manifest")};
  options.host_abi_minor = 0;
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  ExpectRecord(*registry, "fake_minor_manifest", PluginState::kRejected,
               absl::StatusCode::kFailedPrecondition,
               "this host is 1.0: upgrade Tessera or install a fake_minor_manifest built for ABI "
               "1.0");
}

TEST(PluginRegistryTest, UnusableOptionsFailCreate) {
  struct Case {
    void (*mutate)(RegistryOptions&);
    absl::StatusCode code;
    std::string expected;
  };
  const Case cases[] = {
      {[](RegistryOptions& o) { o.policy.allowlist = std::set<std::string>{"Bad Name"}; },
       absl::StatusCode::kInvalidArgument, "allowlist entry 'Bad Name' is not a plugin name"},
      {[](RegistryOptions& o) {
         o.policy.preferred_providers = {{"gpu", "acme"}};
       },
       absl::StatusCode::kInvalidArgument,
       "preferred provider given for 'gpu', which is not a device type name"},
      {[](RegistryOptions& o) {
         o.policy.preferred_providers = {{"GPU", "Acme"}};
       },
       absl::StatusCode::kInvalidArgument,
       "preferred provider 'Acme' for device type 'GPU' is not a plugin name"},
      {[](RegistryOptions& o) { o.in_process_plugins.push_back(InProcessPlugin{"Bad"}); },
       absl::StatusCode::kInvalidArgument, "in-process plugin name 'Bad' does not match"},
      {[](RegistryOptions& o) { o.in_process_plugins.push_back(InProcessPlugin{"noinit"}); },
       absl::StatusCode::kInvalidArgument, "in-process plugin 'noinit' has no init function"},
      {[](RegistryOptions& o) { o.host_abi_minor = TSR_ABI_VERSION_MINOR + 1; },
       absl::StatusCode::kInvalidArgument,
       absl::StrCat("host_abi_minor ", TSR_ABI_VERSION_MINOR + 1, " is newer than this host's ABI ",
                    HostAbi())},
      {[](RegistryOptions& o) { o.plugin_paths = {"/nonexistent/plugins"}; },
       absl::StatusCode::kNotFound, "plugin path '/nonexistent/plugins' does not exist"},
  };
  for (const Case& c : cases) {
    RegistryOptions options = Isolated();
    c.mutate(options);
    absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
    ASSERT_FALSE(registry.ok()) << c.expected;
    EXPECT_EQ(registry.status().code(), c.code);
    EXPECT_NE(registry.status().message().find(c.expected), absl::string_view::npos)
        << registry.status().message();
  }
}

// ---- In-process plugins: duplicates across plugins, runtime slots, logging ------------------

TSR_Status* FillInfo(const TSR_Plugin_Init_Args* args, const char* name) {
  args->info->name = name;
  args->info->version = "0.0.0";
  args->info->abi_version_major = TSR_ABI_VERSION_MAJOR;
  args->info->abi_version_minor = TSR_ABI_VERSION_MINOR;
  return nullptr;
}

TSR_Status* RegisterSharedOpAndTransport(const TSR_Plugin_Init_Args* args) {
  const TSR_HostApi* host = args->host;
  TSR_Status* status =
      host->Registrar_RegisterOp(args->registrar, host->OpDefBuilder_Create("Shared"));
  if (status != nullptr) return status;
  TSR_TransportRegistration r;
  std::memset(&r, 0, sizeof(r));
  r.struct_size = sizeof(r);
  r.name = "shared";
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
  return host->Registrar_RegisterTransport(args->registrar, &r);
}

InProcessPlugin Plugin(const char* name, int32_t priority, TSR_Plugin_InitFn init) {
  InProcessPlugin plugin;
  plugin.name = name;
  plugin.priority = priority;
  plugin.init = init;
  return plugin;
}

TEST(PluginRegistryTest, DuplicateOpsAndTransportsKeepTheHigherRanked) {
  RegistryOptions options = Isolated();
  options.discover = false;
  options.in_process_plugins = {
      Plugin("low", 1,
             [](const TSR_Plugin_Init_Args* a) {
               FillInfo(a, "low");
               return RegisterSharedOpAndTransport(a);
             }),
      Plugin("high", 9,
             [](const TSR_Plugin_Init_Args* a) {
               FillInfo(a, "high");
               return RegisterSharedOpAndTransport(a);
             }),
      Plugin("high", 9, [](const TSR_Plugin_Init_Args* a) { return FillInfo(a, "high"); }),
  };
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  EXPECT_EQ(registry->FindOp("Shared")->origin.plugin_name, "high");
  EXPECT_EQ(registry->FindTransport("shared")->origin.plugin_name, "high");
  EXPECT_EQ(registry->ops().size(), 1u);
  EXPECT_THAT(registry->warnings(),
              testing::ElementsAre("op 'Shared' from plugin 'low' is ignored: plugin 'high' "
                                   "defines it too and ranks higher",
                                   "transport 'shared' from plugin 'low' is ignored: plugin "
                                   "'high' provides it too and ranks higher"));
  ASSERT_EQ(registry->records().size(), 3u);
  EXPECT_EQ(registry->records()[2].status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry->records()[2].reason, "in-process plugin 'high' is given twice");
}

int32_t FakeNumThreads(const TSR_ThreadPool*) { return 3; }

TEST(PluginRegistryTest, RuntimeSlotsReachThePlugins) {
  static const TSR_HostApi* seen = nullptr;
  RegistryOptions options = Isolated();
  options.discover = false;
  options.runtime_slots.ThreadPool_NumThreads = FakeNumThreads;
  options.in_process_plugins = {Plugin("slots", 0, [](const TSR_Plugin_Init_Args* a) {
    seen = a->host;
    return FillInfo(a, "slots");
  })};
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  ASSERT_EQ(seen, registry->host_api());
  EXPECT_EQ(seen->ThreadPool_NumThreads(nullptr), 3);
  EXPECT_EQ(seen->KernelContext_GetInput, nullptr);
  EXPECT_EQ(seen->struct_size, sizeof(TSR_HostApi));
  // Equal tables are shared; a different one is not. A request without any runtime slot (a
  // tool's registry) gets the slots given last, so a plugin's table never loses them.
  EXPECT_EQ(GetHostApi(options.runtime_slots), seen);
  EXPECT_EQ(GetHostApi(TSR_HostApi{}), seen);
  TSR_HostApi other{};
  other.ThreadPool_CurrentThreadId = [](const TSR_ThreadPool*) { return 7; };
  const TSR_HostApi* different = GetHostApi(other);
  EXPECT_NE(different, seen);
  EXPECT_EQ(different->ThreadPool_NumThreads, nullptr);
  EXPECT_EQ(GetHostApi(TSR_HostApi{}), different);
  // Host memory honours alignment and refuses one that is not a power of two.
  void* ptr = seen->HostMemory_Allocate(100, 256);
  ASSERT_NE(ptr, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 256, 0u);
  seen->HostMemory_Free(ptr);
  EXPECT_EQ(seen->HostMemory_Allocate(8, 48), nullptr);
}

TEST(PluginRegistryTest, PluginLogsReachTheSink) {
  std::vector<std::string> lines;
  SetPluginLogSink(
      [&](TSR_LogSeverity severity, absl::string_view source, absl::string_view message) {
        lines.push_back(std::to_string(severity) + " " + std::string(source) + ": " +
                        std::string(message));
      });
  RegistryOptions options = Isolated();
  options.plugin_paths = {FakePluginCase("good")};
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  SetPluginLogSink(nullptr);
  EXPECT_THAT(lines, testing::Contains("1 fake_good: initialising"));

  // The default sink prints warnings and errors with the plugin's name, and drops the rest.
  testing::internal::CaptureStderr();
  registry->host_api()->Log(TSR_LOG_SEVERITY_WARNING, "fake_good", "running hot");
  registry->host_api()->Log(TSR_LOG_SEVERITY_INFO, "fake_good", "quiet");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "[plugin 'fake_good'] WARNING: running hot\n");
}

// ---- Output of `tessera plugins` --------------------------------------------------------------

TEST(PluginRegistryTest, FormatJsonParsesAndDescribesEveryPlugin) {
  std::unique_ptr<PluginRegistry> registry = MustCreate(AllCases());
  ASSERT_NE(registry, nullptr);
  nlohmann::json json = nlohmann::json::parse(registry->FormatJson());
  ASSERT_EQ(json["plugins"].size(), registry->records().size());
  const nlohmann::json* good = nullptr;
  const nlohmann::json* low = nullptr;
  for (const nlohmann::json& plugin : json["plugins"]) {
    if (plugin["name"] == "fake_good") good = &plugin;
    if (plugin["name"] == "fake_dual_low") low = &plugin;
    EXPECT_TRUE(plugin.contains("reason"));
    EXPECT_TRUE(plugin.contains("manifest"));
  }
  ASSERT_NE(good, nullptr);
  EXPECT_EQ((*good)["state"], "LOADED");
  EXPECT_EQ((*good)["version"], "1.2.3");
  EXPECT_EQ((*good)["vendor"], "Tessera tests");
  EXPECT_EQ((*good)["code"], "OK");
  EXPECT_EQ((*good)["provides"][0]["kind"], "device");
  EXPECT_EQ((*good)["provides"][0]["name"], "FAKE");
  ASSERT_NE(low, nullptr);
  EXPECT_EQ((*low)["state"], "SHADOWED");
  bool found_rejected = false;
  for (const nlohmann::json& plugin : json["plugins"]) {
    if (plugin["name"] == "fake_init_throws") {
      found_rejected = true;
      EXPECT_EQ(plugin["state"], "REJECTED");
      EXPECT_EQ(plugin["code"], "INTERNAL");
    }
  }
  EXPECT_TRUE(found_rejected);
  EXPECT_FALSE(json["device_types"].empty());
  EXPECT_TRUE(json["warnings"].is_array());
}

TEST(PluginRegistryTest, FormatTextShowsTheTable) {
  std::unique_ptr<PluginRegistry> registry = MustCreate(AllCases());
  ASSERT_NE(registry, nullptr);
  const std::string text = registry->FormatText();
  EXPECT_EQ(text.rfind("NAME", 0), 0u) << text;
  for (const char* column : {"VERSION", "STATE", "PROVIDES", "FILE", "REASON"}) {
    EXPECT_NE(text.find(column), std::string::npos) << column;
  }
  EXPECT_THAT(text, testing::HasSubstr("fake_good"));
  EXPECT_THAT(text, testing::HasSubstr("device:FAKE,ops,kernels:FAKE,transport:fake"));
  EXPECT_THAT(text, testing::HasSubstr("libtessera_fake_good.so"));
  EXPECT_THAT(text, testing::HasSubstr("REJECTED"));
  EXPECT_THAT(text, testing::HasSubstr("SHADOWED"));
  EXPECT_THAT(text, testing::HasSubstr("\n  DUAL  fake_dual_high (priority 20)  active\n"));
  const std::string empty = MustCreate(Isolated())->FormatText();
  EXPECT_THAT(empty, testing::HasSubstr("(no plugins found)"));
}

TEST(PluginRegistryTest, DefaultFolderIsTheBuildTreePluginFolder) {
  // The test program lives in <build>/bin; the default folder is <build>/lib/tessera/plugins,
  // never a test_plugins case.
  RegistryOptions options;
  options.plugin_path_env = "";
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  for (const PluginRecord& record : registry->records()) {
    EXPECT_EQ(record.manifest_path.find("test_plugins"), std::string::npos);
    EXPECT_NE(record.manifest_path.find("/lib/tessera/plugins/"), std::string::npos);
  }
}

TEST(PluginRegistryTest, OlderDeviceTablesAreCountedByGetDeviceCount) {
  RegistryOptions options = Isolated();
  options.plugin_paths = {FakePluginCase("older_table")};
  std::unique_ptr<PluginRegistry> registry = MustCreate(options);
  ASSERT_NE(registry, nullptr);
  // "OLD" has no GetDeviceCountForConfig; "OLDSHORT" a table that ends after the copies, with
  // traps in the slots past its struct_size: reading them would fail below.
  const DeviceTypeSpec* short_table = registry->FindDeviceType("OLDSHORT");
  ASSERT_NE(short_table, nullptr);
  EXPECT_EQ(short_table->registration.Stream_Create, nullptr);
  for (const char* type : {"OLD", "OLDSHORT"}) {
    SCOPED_TRACE(type);
    const DeviceTypeSpec* spec = registry->FindDeviceType(type);
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(spec->registration.GetDeviceCountForConfig, nullptr);
    absl::StatusOr<int> by_default = spec->DeviceCountForConfig(-1);
    ASSERT_TRUE(by_default.ok()) << by_default.status();
    EXPECT_EQ(*by_default, 2);  // its GetDeviceCount
    EXPECT_EQ(*spec->DeviceCountForConfig(1), 1);
    EXPECT_EQ(*spec->DeviceCountForConfig(5), 2);
    absl::StatusOr<std::unique_ptr<PluginDevice>> device = spec->CreateDevice(1, {}, 5);
    ASSERT_TRUE(device.ok()) << device.status();
    EXPECT_EQ((*device)->name(), absl::StrCat(type, ":1"));
  }
}

}  // namespace
}  // namespace tessera
