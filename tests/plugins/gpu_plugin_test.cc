// A GPU plugin through the host, built once for cuda and once (TESSERA_GPU_HIP) for rocm from the
// same sources: without a GPU it is refused with its reason and the CPU goes on; its
// registrations, made in-process here whatever the machine has, are all accepted and name real
// ops, attributes and arguments; with a GPU, graphs on it give the CPU's values.
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/ops/op_registry.h"
#include "host/runtime/step_stats.h"
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

// The build's plugin folder, or TESSERA_TEST_PLUGIN_DIR's (a bundle on a GPU machine,
// scripts/gpu_bundle.sh).
std::string PluginDir() {
  const char* dir = std::getenv("TESSERA_TEST_PLUGIN_DIR");
  return dir != nullptr && dir[0] != '\0' ? dir : TESSERA_PLUGIN_DIR;
}

using ::testing::AnyOf;
using ::testing::HasSubstr;

std::unique_ptr<PluginRegistry> Discovered() {
  RegistryOptions options;
  options.plugin_paths = {PluginDir()};
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
  options.plugin_paths = {PluginDir()};
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
                         "MatMul", "BatchMatMulV2", "Sum", "Mean", "Max", "ArgMax", "BiasAddGrad",
                         "Softmax", "LogSoftmax", "SparseSoftmaxCrossEntropyWithLogits",
                         "SoftmaxCrossEntropyWithLogits", "ApplyGradientDescent",
                         "ResourceApplyAdam", "AssignAddVariableOp", "Transpose", "Slice",
                         "ConcatV2", "Pack", "Tile", "Pad", "PadV2"}) {
    EXPECT_TRUE(registered.count(op)) << op << " has no GPU kernel";
  }
}

// ---- On a GPU: values against the CPU's ----------------------------------------------------

// The fetched tensors as doubles, and the ops that ran on a GPU.
struct Result {
  std::vector<std::vector<double>> values;
  std::set<std::string> gpu_ops;
};

Result RunGraph(const tensorflow::GraphDef& def, const std::map<std::string, int>& devices,
                const std::vector<std::pair<std::string, Tensor>>& feeds,
                const std::vector<std::string>& fetches) {
  SessionOptions options;
  options.plugin_paths = {PluginDir()};
  options.default_plugin_dir = "";
  options.device_count = devices;
  Result result;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, def);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return result;
  RunOptions run_options;
  run_options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  absl::Status status = (*session)->Run(run_options, feeds, fetches, {}, &outputs, &metadata);
  EXPECT_TRUE(status.ok()) << status;
  if (!status.ok()) return result;
  for (const Tensor& t : outputs) {
    std::vector<double> values;
    if (t.dtype() == TSR_DTYPE_INT64) {
      for (int64_t v : t.flat<int64_t>()) values.push_back(static_cast<double>(v));
    } else {
      for (float v : t.flat<float>()) values.push_back(v);
    }
    result.values.push_back(values);
  }
  for (const DeviceStepStats& device : metadata.step_stats.devices) {
    if (device.device.find("GPU") == std::string::npos) continue;
    for (const NodeExecStats& node : device.nodes) result.gpu_ops.insert(node.op);
  }
  return result;
}

Tensor Filled(const TensorShape& shape, float scale, float shift) {
  std::vector<float> values(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = std::sin(scale * static_cast<float>(i) + shift);
  }
  return Tensor::FromVector<float>(shape, values);
}

void ExpectSameValues(const Result& gpu, const Result& cpu, double tolerance) {
  ASSERT_EQ(gpu.values.size(), cpu.values.size());
  for (size_t f = 0; f < cpu.values.size(); ++f) {
    ASSERT_EQ(gpu.values[f].size(), cpu.values[f].size()) << "fetch " << f;
    for (size_t i = 0; i < cpu.values[f].size(); ++i) {
      EXPECT_NEAR(gpu.values[f][i], cpu.values[f][i], tolerance * (1 + std::fabs(cpu.values[f][i])))
          << "fetch " << f << " element " << i;
    }
  }
}

TEST(GpuPluginTest, AnMlpStepOnTheGpuGivesTheCpusValues) {
  if (!GpuPresent()) GTEST_SKIP() << "skipped: no " << kPlatform << " device";
  // relu(x @ w + b) through a float16 round trip, its softmax, the row sums and argmax, and the
  // sparse cross-entropy against labels.
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "labels" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } }
    node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node { name: "mm" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "transpose_a" value { b: false } } attr { key: "transpose_b" value { b: false } } }
    node { name: "biased" op: "BiasAdd" input: "mm" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "relu" op: "Relu" input: "biased" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "half" op: "Cast" input: "relu" attr { key: "SrcT" value { type: DT_FLOAT } }
           attr { key: "DstT" value { type: DT_HALF } } }
    node { name: "back" op: "Cast" input: "half" attr { key: "SrcT" value { type: DT_HALF } }
           attr { key: "DstT" value { type: DT_FLOAT } } }
    node { name: "probs" op: "Softmax" input: "back" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "sums" op: "Sum" input: "back" input: "axis" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tidx" value { type: DT_INT32 } } attr { key: "keep_dims" value { b: false } } }
    node { name: "best" op: "ArgMax" input: "biased" input: "axis" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tidx" value { type: DT_INT32 } } attr { key: "output_type" value { type: DT_INT64 } } }
    node { name: "xent" op: "SparseSoftmaxCrossEntropyWithLogits" input: "biased" input: "labels"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tlabels" value { type: DT_INT64 } } }
  )pb", &def));
  std::vector<int64_t> labels(64);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int64_t>((i * 7) % 16);
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Filled(TensorShape{64, 32}, 0.37f, 0)},
      {"w", Filled(TensorShape{32, 16}, 0.11f, 1)},
      {"b", Filled(TensorShape{16}, 0.5f, 2)},
      {"labels", Tensor::Vector<int64_t>(labels)}};
  const std::vector<std::string> fetches = {"probs", "sums", "best", "xent:0", "xent:1"};
  const Result cpu = RunGraph(def, {{"GPU", 0}}, feeds, fetches);
  const Result gpu = RunGraph(def, {{"GPU", 1}}, feeds, fetches);
  for (const char* op : {"MatMul", "BiasAdd", "Relu", "Cast", "Softmax", "Sum", "ArgMax",
                         "SparseSoftmaxCrossEntropyWithLogits"}) {
    EXPECT_TRUE(gpu.gpu_ops.count(op)) << op << " did not run on the GPU";
  }
  // TF32 products and a float16 round trip: about 3 decimal digits.
  ExpectSameValues(gpu, cpu, 2e-3);
}

TEST(GpuPluginTest, BatchedProductsAndChannelsFirstBiasOnTheGpu) {
  if (!GpuPresent()) GTEST_SKIP() << "skipped: no " << kPlatform << " device";
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "images" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "bias" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "bmm" op: "BatchMatMulV2" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "adj_x" value { b: false } } attr { key: "adj_y" value { b: true } } }
    node { name: "nchw" op: "BiasAdd" input: "images" input: "bias" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "data_format" value { s: "NCHW" } } }
    node { name: "grad" op: "BiasAddGrad" input: "nchw" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "data_format" value { s: "NCHW" } } }
  )pb", &def));
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Filled(TensorShape{2, 1, 5, 4}, 0.3f, 0)},
      {"y", Filled(TensorShape{1, 3, 6, 4}, 0.7f, 1)},
      {"images", Filled(TensorShape{2, 3, 4, 5}, 0.13f, 2)},
      {"bias", Filled(TensorShape{3}, 1.1f, 3)}};
  const std::vector<std::string> fetches = {"bmm", "nchw", "grad"};
  const Result cpu = RunGraph(def, {{"GPU", 0}}, feeds, fetches);
  const Result gpu = RunGraph(def, {{"GPU", 1}}, feeds, fetches);
  for (const char* op : {"BatchMatMulV2", "BiasAdd", "BiasAddGrad"}) {
    EXPECT_TRUE(gpu.gpu_ops.count(op)) << op << " did not run on the GPU";
  }
  ASSERT_EQ(gpu.values.size(), 3u);
  EXPECT_EQ(gpu.values[0].size(), 2u * 3 * 5 * 6);
  ExpectSameValues(gpu, cpu, 2e-3);
}

TEST(GpuPluginTest, DataMovementOnTheGpu) {
  if (!GpuPresent()) GTEST_SKIP() << "skipped: no " << kPlatform << " device";
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "perm" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 2 int_val: 0 int_val: 1 } } } }
    node { name: "begin" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 1 int_val: 0 int_val: 2 } } } }
    node { name: "size" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 1 int_val: -1 int_val: 3 } } } }
    node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node { name: "multiples" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 1 int_val: 2 int_val: 3 } } } }
    node { name: "paddings" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } dim { size: 2 } } int_val: 0 int_val: 1 int_val: 2 int_val: 0 int_val: 1 int_val: 1 } } } }
    node { name: "t" op: "Transpose" input: "x" input: "perm" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tperm" value { type: DT_INT32 } } }
    node { name: "s" op: "Slice" input: "x" input: "begin" input: "size" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Index" value { type: DT_INT32 } } }
    node { name: "c" op: "ConcatV2" input: "x" input: "x" input: "axis" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "N" value { i: 2 } } attr { key: "Tidx" value { type: DT_INT32 } } }
    node { name: "p" op: "Pack" input: "x" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "N" value { i: 3 } } attr { key: "axis" value { i: 2 } } }
    node { name: "tile" op: "Tile" input: "x" input: "multiples" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tmultiples" value { type: DT_INT32 } } }
    node { name: "pad" op: "Pad" input: "x" input: "paddings" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tpaddings" value { type: DT_INT32 } } }
  )pb", &def));
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Filled(TensorShape{2, 3, 5}, 0.31f, 0)}};
  const std::vector<std::string> fetches = {"t", "s", "c", "p", "tile", "pad"};
  const Result cpu = RunGraph(def, {{"GPU", 0}}, feeds, fetches);
  const Result gpu = RunGraph(def, {{"GPU", 1}}, feeds, fetches);
  for (const char* op : {"Transpose", "Slice", "ConcatV2", "Pack", "Tile", "Pad"}) {
    EXPECT_TRUE(gpu.gpu_ops.count(op)) << op << " did not run on the GPU";
  }
  ExpectSameValues(gpu, cpu, 0);
}

}  // namespace
}  // namespace tessera
