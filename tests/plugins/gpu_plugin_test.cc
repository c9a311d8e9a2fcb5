// A GPU plugin through the host, built once for cuda and once (TESSERA_GPU_HIP) for rocm from the
// same sources: without a GPU it is refused with its reason and the CPU goes on; its
// registrations, made in-process here whatever the machine has, are all accepted and name real
// ops, attributes and arguments; with a GPU, graphs on it give the CPU's values.
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/ops/op_registry.h"
#include "host/session/session.h"
#include "plugins/cuda/gpu_plugin.h"
#include "registry/plugin_registry.h"
#include "tessera/sdk/plugin.h"

namespace tessera {
namespace {

#if defined(TESSERA_GPU_HIP)
constexpr char kPlatform[] = "HIP";
#else
constexpr char kPlatform[] = "CUDA";
#endif
const std::string kPlugin = gpu::kPluginName;

using ::testing::AnyOf;
using ::testing::HasSubstr;

std::unique_ptr<PluginRegistry> Discovered() {
  RegistryOptions options;
  options.plugin_paths = {TESSERA_PLUGIN_DIR};
  options.plugin_path_env = "";
  options.default_plugin_dir = "";
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
  EXPECT_TRUE(registry.ok()) << registry.status();
  return registry.ok() ? *std::move(registry) : nullptr;
}

bool GpuPresent() {
  static const bool present = [] {
    std::unique_ptr<PluginRegistry> registry = Discovered();
    const PluginRecord* record = registry == nullptr ? nullptr : registry->FindRecord(kPlugin);
    return record != nullptr && record->state == PluginState::kLoaded;
  }();
  return present;
}

TEST(GpuPluginTest, WithoutAGpuItIsRefusedWithItsReasonAndTheCpuWorks) {
  if (GpuPresent()) GTEST_SKIP() << "skipped: a " << kPlatform << " device is present";
  std::unique_ptr<PluginRegistry> registry = Discovered();
  ASSERT_NE(registry, nullptr);
  const PluginRecord* record = registry->FindRecord(kPlugin);
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->state, PluginState::kRejected);
  EXPECT_EQ(record->status.code(), absl::StatusCode::kUnavailable) << record->status;
  const std::string no_driver = absl::StrCat("TSR_Plugin_Init: no ", kPlatform, " driver");
  const std::string no_device = absl::StrCat("TSR_Plugin_Init: no ", kPlatform, " device");
  EXPECT_THAT(std::string(record->status.message()),
              AnyOf(HasSubstr(no_driver), HasSubstr(no_device)));
  EXPECT_THAT(record->reason, AnyOf(HasSubstr(no_driver), HasSubstr(no_device)));
  ASSERT_NE(registry->FindDeviceType("CPU"), nullptr);
  EXPECT_THAT(registry->FormatText(), HasSubstr("REJECTED"));
  if (registry->FindDeviceType("GPU") != nullptr) {
    GTEST_SKIP() << "skipped: another plugin provides GPU devices here";
  }

  // A graph still runs, on the CPU, also when the configuration says "no GPU" ({"GPU": 0}, as a
  // configuration written for several machines does); asking for a GPU says why there is none.
  SessionOptions options;
  options.plugin_paths = {TESSERA_PLUGIN_DIR};
  options.default_plugin_dir = "";
  options.device_count = {{"GPU", 1}};
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Square" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  )pb", &def));
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, def);
  EXPECT_EQ(session.status().code(), absl::StatusCode::kFailedPrecondition) << session.status();
  EXPECT_THAT(std::string(session.status().message()),
              HasSubstr("device_count asks for 1 GPU device, but every plugin that provides "
                        "them was refused: "));
  EXPECT_THAT(std::string(session.status().message()),
              HasSubstr(absl::StrCat("plugin '", kPlugin, "' 0.1.0 (libtessera_", kPlugin,
                                     ".so) TSR_Plugin_Init: no ", kPlatform)));
  // Options for the refused type's devices are options for no device.
  options.device_count = {{"GPU", 0}};
  options.device_options = {{"GPU", {{"allow_tf32", "false"}}}};
  session = Session::Create(options, def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> outputs;
  ASSERT_TRUE((*session)->Run({{"x", Tensor::Scalar<float>(3)}}, {"y"}, {}, &outputs).ok());
  EXPECT_EQ(outputs[0].flat<float>()[0], 9.0f);
}

// The plugin's registrations, made through the real host on any machine.
TSR_Status* InitWithoutProbe(const TSR_Plugin_Init_Args* args) {
  const sdk::PluginInitResult init =
      sdk::InitializePlugin(args, {gpu::kPluginName, "0.1.0", /*min_host_abi_version_minor=*/0});
  if (!init.proceed) return init.status;
  return gpu::RegisterGpuPlugin(args->registrar).Release();
}

TEST(GpuPluginTest, EveryRegistrationIsAcceptedAndNamesRealOpsAttrsAndArgs) {
  RegistryOptions options;
  options.discover = false;
  InProcessPlugin plugin;
  plugin.name = gpu::kPluginName;
  plugin.version = "0.1.0";
  plugin.provides = {{ProvideKind::kDevice, "GPU"}, {ProvideKind::kKernels, "GPU"}};
  plugin.init = &InitWithoutProbe;
  options.in_process_plugins = {plugin};
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry = PluginRegistry::Create(options);
  ASSERT_TRUE(registry.ok()) << registry.status();
  const PluginRecord* record = (*registry)->FindRecord(gpu::kPluginName);
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->state, PluginState::kLoaded) << record->status;
  EXPECT_TRUE(record->warnings.empty()) << record->warnings.front();
  EXPECT_TRUE((*registry)->warnings().empty()) << (*registry)->warnings().front();

  const DeviceTypeSpec* gpu = (*registry)->FindDeviceType("GPU");
  ASSERT_NE(gpu, nullptr);
  EXPECT_GT(gpu->priority, 60) << "a GPU must rank above the CPU (60)";

  std::unique_ptr<OpRegistry> ops = OpRegistry::CreateStandard();
  std::set<std::string> registered;
  for (const KernelSpec& kernel : (*registry)->kernels()) {
    if (kernel.device_type != "GPU") continue;
    registered.insert(kernel.op_name);
    const OpRegistration* op = ops->Find(kernel.op_name);
    ASSERT_NE(op, nullptr) << kernel.op_name << " is not a standard op";
    std::set<std::string> attrs;
    for (const auto& attr : op->op_def.attr()) attrs.insert(attr.name());
    for (const auto& [attr, types] : kernel.type_constraints) {
      EXPECT_TRUE(attrs.count(attr)) << kernel.op_name << " has no attr '" << attr << "'";
      EXPECT_FALSE(types.empty()) << kernel.op_name << " " << attr;
    }
    std::set<std::string> args;
    for (const auto& arg : op->op_def.input_arg()) args.insert(arg.name());
    for (const auto& arg : op->op_def.output_arg()) args.insert(arg.name());
    for (const std::string& arg : kernel.host_memory_args) {
      EXPECT_TRUE(args.count(arg)) << kernel.op_name << " has no argument '" << arg << "'";
    }
  }
  for (const char* op : {"AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Less", "Equal", "ReluGrad",
                         "SigmoidGrad", "Relu", "Tanh", "Sigmoid", "LeakyRelu", "Cast", "Fill",
                         "BiasAdd", "Const", "Identity", "Reshape", "ExpandDims", "Squeeze",
                         "MatMul", "BatchMatMulV2"}) {
    EXPECT_TRUE(registered.count(op)) << op << " has no GPU kernel";
  }
}

// ---- On a GPU: values against the CPU's ----------------------------------------------------

std::vector<float> RunGraph(const tensorflow::GraphDef& def, const std::map<std::string, int>& devices,
                       const std::vector<std::pair<std::string, Tensor>>& feeds,
                       const std::string& fetch) {
  SessionOptions options;
  options.plugin_paths = {TESSERA_PLUGIN_DIR};
  options.default_plugin_dir = "";
  options.device_count = devices;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, def);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  std::vector<Tensor> outputs;
  absl::Status status = (*session)->Run(feeds, {fetch}, {}, &outputs);
  EXPECT_TRUE(status.ok()) << status;
  if (!status.ok()) return {};
  std::vector<float> values;
  for (float v : outputs[0].flat<float>()) values.push_back(v);
  return values;
}

TEST(GpuPluginTest, GraphsOnTheGpuGiveTheCpusValues) {
  if (!GpuPresent()) GTEST_SKIP() << "skipped: no " << kPlatform << " device";
  // relu(x @ w + b) * 0.5 - x[0], through half precision and back for part of it.
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "mm" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "transpose_a" value { b: false } } attr { key: "transpose_b" value { b: false } } }
    node { name: "biased" op: "BiasAdd" input: "mm" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "relu" op: "Relu" input: "biased" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "half" op: "Cast" input: "relu" attr { key: "SrcT" value { type: DT_FLOAT } }
           attr { key: "DstT" value { type: DT_HALF } } }
    node { name: "back" op: "Cast" input: "half" attr { key: "SrcT" value { type: DT_HALF } }
           attr { key: "DstT" value { type: DT_FLOAT } } }
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0.5 } } } }
    node { name: "scaled" op: "Mul" input: "back" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "out" op: "Sub" input: "scaled" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
  )pb", &def));
  std::vector<float> x(64 * 32);
  std::vector<float> w(32 * 16);
  std::vector<float> b(16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i));
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::cos(0.11f * static_cast<float>(i)) / 8;
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.1f * static_cast<float>(i) - 0.5f;
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Tensor::FromVector<float>(TensorShape{64, 32}, x)},
      {"w", Tensor::FromVector<float>(TensorShape{32, 16}, w)},
      {"b", Tensor::Vector<float>(b)}};
  const std::vector<float> on_cpu = RunGraph(def, {{"GPU", 0}}, feeds, "out");
  const std::vector<float> on_gpu = RunGraph(def, {{"GPU", 1}}, feeds, "out");
  ASSERT_EQ(on_cpu.size(), on_gpu.size());
  for (size_t i = 0; i < on_cpu.size(); ++i) {
    // TF32 products and a float16 round trip: about 3 decimal digits.
    EXPECT_NEAR(on_gpu[i], on_cpu[i], 2e-3f + 2e-3f * std::fabs(on_cpu[i])) << "element " << i;
  }
}

}  // namespace
}  // namespace tessera
