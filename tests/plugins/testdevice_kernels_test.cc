// Tests of the TESTDEV kernels: each op runs in a one-device graph (_Arg -> op -> _Retval) built
// by a real Executor on a TESTDEV device of an Environment that loaded the plugin. Inputs are
// copied into device memory first and outputs copied back, so every value crosses the scrambled
// memory the way a multi-device session will move it.
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/executor/executor.h"
#include "host/framework/tensor_proto_util.h"
#include "host/graph/graph.h"
#include "host/runtime/device_manager.h"
#include "host/session/environment.h"
#include "registry/device_handle.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& substring) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(substring));
}

EnvironmentOptions Options() {
  EnvironmentOptions options;
  options.plugin_paths = {TESSERA_TESTDEVICE_PLUGIN_DIR};
  options.device_count = {{"CPU", 2}, {"TESTDEV", 3}};
  options.intra_op_threads = 1;
  options.inter_op_threads = 1;
  return options;
}

Environment& Env() {
  static const std::shared_ptr<Environment>* env = [] {
    absl::StatusOr<std::shared_ptr<Environment>> created = Environment::Get(Options());
    TESSERA_CHECK(created.ok(), created.status().ToString());
    return new std::shared_ptr<Environment>(*std::move(created));
  }();
  return **env;
}

tensorflow::AttrValue TypeAttr(DataType dtype) {
  tensorflow::AttrValue value;
  value.set_type(static_cast<tensorflow::DataType>(dtype));
  return value;
}

tensorflow::AttrValue IntAttr(int64_t i) {
  tensorflow::AttrValue value;
  value.set_i(i);
  return value;
}

struct OpRun {
  std::string op;
  std::map<std::string, tensorflow::AttrValue> attrs;
  std::vector<Tensor> inputs;     // host tensors, copied to the device unless `raw_inputs`
  std::vector<DataType> outputs;  // dtype of each output
  int ordinal = 0;                // TESTDEV:<ordinal>
  bool raw_inputs = false;        // pass the host tensors to the kernel as they are
};

// Runs `run.op` on TESTDEV (`device`, or Env()'s TESTDEV:<ordinal>) and returns host copies of
// its outputs; fails when an output is not in device memory.
absl::StatusOr<std::vector<Tensor>> RunOnTestDevice(const OpRun& run, Device* device = nullptr) {
  tensorflow::GraphDef def;
  tensorflow::NodeDef* node = nullptr;
  for (size_t i = 0; i < run.inputs.size(); ++i) {
    tensorflow::NodeDef* arg = def.add_node();
    arg->set_name(absl::StrCat("arg_", i));
    arg->set_op("_Arg");
    (*arg->mutable_attr())["T"] = TypeAttr(run.inputs[i].dtype());
    (*arg->mutable_attr())["index"] = IntAttr(static_cast<int64_t>(i));
  }
  node = def.add_node();
  node->set_name("op_under_test");
  node->set_op(run.op);
  for (size_t i = 0; i < run.inputs.size(); ++i) node->add_input(absl::StrCat("arg_", i));
  for (const auto& [name, value] : run.attrs) (*node->mutable_attr())[name] = value;
  for (size_t o = 0; o < run.outputs.size(); ++o) {
    tensorflow::NodeDef* retval = def.add_node();
    retval->set_name(absl::StrCat("retval_", o));
    retval->set_op("_Retval");
    retval->add_input(absl::StrCat("op_under_test:", o));
    (*retval->mutable_attr())["T"] = TypeAttr(run.outputs[o]);
    (*retval->mutable_attr())["index"] = IntAttr(static_cast<int64_t>(o));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, ImportGraphDef(def, Env().ops()));
  if (device == nullptr) device = Env().devices().FindDevice(absl::StrCat("TESTDEV:", run.ordinal));
  if (device == nullptr) return absl::NotFoundError("no TESTDEV device");
  ExecutorParams params;
  params.device = device;
  params.intra_op_pool = Env().intra_op_pool();
  params.kernel_factory = &Env().kernels();
  ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor, Executor::Create(params, *graph));

  CallFrame frame;
  for (const Tensor& input : run.inputs) {
    if (run.raw_inputs) {
      frame.args.push_back(input);
      continue;
    }
    Tensor on_device;
    RETURN_IF_ERROR(device->CopyFromHost(input, &on_device));
    frame.args.push_back(std::move(on_device));
  }
  frame.retvals.resize(run.outputs.size());
  Executor::Args args;
  args.step_id = 1;
  args.call_frame = &frame;
  RETURN_IF_ERROR(executor->Run(args));
  std::vector<Tensor> outputs;
  for (const Tensor& value : frame.retvals) {
    if (value.buffer() != nullptr && value.host_accessible()) {
      return absl::InternalError("a TESTDEV kernel returned host memory");
    }
    Tensor host;
    RETURN_IF_ERROR(device->CopyToHost(value, &host));
    outputs.push_back(std::move(host));
  }
  return outputs;
}

template <typename T>
Tensor Make(TensorShape shape, std::vector<T> values) {
  Tensor tensor(DataTypeOf<T>::value, shape);
  for (size_t i = 0; i < values.size(); ++i) tensor.data<T>()[i] = values[i];
  return tensor;
}

template <typename T>
std::vector<T> Values(const Tensor& tensor) {
  absl::Span<T> flat = tensor.flat<T>();
  return std::vector<T>(flat.begin(), flat.end());
}

OpRun Binary(const char* op, Tensor x, Tensor y, DataType out) {
  OpRun run;
  run.op = op;
  run.attrs["T"] = TypeAttr(x.dtype());
  run.inputs = {std::move(x), std::move(y)};
  run.outputs = {out};
  return run;
}

bool HasOp(const char* op) { return Env().ops().Find(op) != nullptr; }

TEST(TestDeviceKernelsTest, EnvironmentCreatesTheConfiguredDevices) {
  std::vector<std::string> names;
  for (const Device* device : Env().devices().devices()) names.push_back(device->name());
  EXPECT_THAT(names, testing::IsSupersetOf({"/job:localhost/replica:0/task:0/device:CPU:0",
                                            "/job:localhost/replica:0/task:0/device:CPU:1",
                                            "/job:localhost/replica:0/task:0/device:TESTDEV:0",
                                            "/job:localhost/replica:0/task:0/device:TESTDEV:2"}));
  EXPECT_EQ(Env().devices().FindDevice("TESTDEV:3"), nullptr);
  EnvironmentOptions other = Options();
  other.device_count["TESTDEV"] = 1;
  EXPECT_NE(other.Key(), Options().Key());
}

TEST(TestDeviceKernelsTest, ConstOfSeveralTypes) {
  for (const Tensor& value :
       {Make<float>({2, 2}, {1.5f, -2, 0, 8}), Make<int64_t>({3}, {1, -1, int64_t{1} << 40}),
        Make<bool>({2}, {true, false}), Make<double>({}, {2.25}), Make<uint8_t>({2}, {7, 250})}) {
    SCOPED_TRACE(DataTypeString(value.dtype()));
    OpRun run;
    run.op = "Const";
    run.attrs["dtype"] = TypeAttr(value.dtype());
    TensorToProto(value, run.attrs["value"].mutable_tensor());
    run.outputs = {value.dtype()};
    absl::StatusOr<std::vector<Tensor>> out = RunOnTestDevice(run);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), value.shape());
    ASSERT_EQ((*out)[0].TotalBytes(), value.TotalBytes());
    EXPECT_EQ(std::memcmp((*out)[0].data(), value.data(), value.TotalBytes()), 0);
  }
}

TEST(TestDeviceKernelsTest, IdentityPassesInt64ThroughOnAnotherDevice) {
  OpRun run;
  run.op = "Identity";
  run.attrs["T"] = TypeAttr(TSR_DTYPE_INT64);
  run.inputs = {Make<int64_t>({2}, {5, -6})};
  run.outputs = {TSR_DTYPE_INT64};
  run.ordinal = 2;
  absl::StatusOr<std::vector<Tensor>> out = RunOnTestDevice(run);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<int64_t>((*out)[0]), ElementsAre(5, -6));
}

TEST(TestDeviceKernelsTest, ArithmeticBroadcasts) {
  absl::StatusOr<std::vector<Tensor>> add =
      RunOnTestDevice(Binary("AddV2", Make<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                             Make<float>({3}, {10, 20, 30}), TSR_DTYPE_FLOAT));
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ((*add)[0].shape(), (TensorShape{2, 3}));
  EXPECT_THAT(Values<float>((*add)[0]), ElementsAre(11, 22, 33, 14, 25, 36));

  absl::StatusOr<std::vector<Tensor>> sub = RunOnTestDevice(Binary(
      "Sub", Make<int32_t>({2, 1}, {100, 200}), Make<int32_t>({1, 3}, {1, 2, 3}), TSR_DTYPE_INT32));
  ASSERT_TRUE(sub.ok()) << sub.status();
  EXPECT_EQ((*sub)[0].shape(), (TensorShape{2, 3}));
  EXPECT_THAT(Values<int32_t>((*sub)[0]), ElementsAre(99, 98, 97, 199, 198, 197));

  absl::StatusOr<std::vector<Tensor>> mul =
      RunOnTestDevice(Binary("Mul", Make<int64_t>({}, {-3}),
                             Make<int64_t>({4}, {1, 2, 3, int64_t{1} << 40}), TSR_DTYPE_INT64));
  ASSERT_TRUE(mul.ok()) << mul.status();
  EXPECT_THAT(Values<int64_t>((*mul)[0]), ElementsAre(-3, -6, -9, -3 * (int64_t{1} << 40)));

  // Integer overflow wraps, as on CPU.
  const int32_t max = std::numeric_limits<int32_t>::max();
  absl::StatusOr<std::vector<Tensor>> wrap = RunOnTestDevice(
      Binary("AddV2", Make<int32_t>({1}, {max}), Make<int32_t>({1}, {1}), TSR_DTYPE_INT32));
  ASSERT_TRUE(wrap.ok()) << wrap.status();
  EXPECT_THAT(Values<int32_t>((*wrap)[0]), ElementsAre(std::numeric_limits<int32_t>::min()));
}

TEST(TestDeviceKernelsTest, IncompatibleShapesAreInvalidArgument) {
  ExpectError(RunOnTestDevice(Binary("AddV2", Make<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                                     Make<float>({4}, {1, 2, 3, 4}), TSR_DTYPE_FLOAT))
                  .status(),
              absl::StatusCode::kInvalidArgument, "Incompatible shapes: [2,3] vs. [4]");
}

TEST(TestDeviceKernelsTest, MatMulWithTransposes) {
  // a = [[1,2,3],[4,5,6]], b = [[7,8],[9,10],[11,12]]: a.b = [[58,64],[139,154]].
  const Tensor a = Make<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor a_t = Make<float>({3, 2}, {1, 4, 2, 5, 3, 6});
  const Tensor b = Make<float>({3, 2}, {7, 8, 9, 10, 11, 12});
  const Tensor b_t = Make<float>({2, 3}, {7, 9, 11, 8, 10, 12});
  struct Case {
    Tensor a, b;
    bool transpose_a, transpose_b;
  };
  for (const Case& c : {Case{a, b, false, false}, Case{a_t, b, true, false},
                        Case{a, b_t, false, true}, Case{a_t, b_t, true, true}}) {
    SCOPED_TRACE(absl::StrCat("transpose_a=", c.transpose_a, " transpose_b=", c.transpose_b));
    OpRun run = Binary("MatMul", c.a, c.b, TSR_DTYPE_FLOAT);
    run.attrs["transpose_a"].set_b(c.transpose_a);
    run.attrs["transpose_b"].set_b(c.transpose_b);
    absl::StatusOr<std::vector<Tensor>> out = RunOnTestDevice(run);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), (TensorShape{2, 2}));
    EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(58, 64, 139, 154));
  }
  ExpectError(RunOnTestDevice(Binary("MatMul", a, a, TSR_DTYPE_FLOAT)).status(),
              absl::StatusCode::kInvalidArgument,
              "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]");
}

TEST(TestDeviceKernelsTest, ComparisonsGiveBoolInDeviceMemory) {
  if (!HasOp("Less") || !HasOp("Greater")) GTEST_SKIP() << "skipped: Less/Greater not defined";
  absl::StatusOr<std::vector<Tensor>> less = RunOnTestDevice(
      Binary("Less", Make<float>({2, 2}, {1, 5, 3, 0}), Make<float>({2}, {2, 4}), TSR_DTYPE_BOOL));
  ASSERT_TRUE(less.ok()) << less.status();
  EXPECT_THAT(Values<bool>((*less)[0]), ElementsAre(true, false, false, true));
  absl::StatusOr<std::vector<Tensor>> greater = RunOnTestDevice(
      Binary("Greater", Make<int32_t>({3}, {1, 5, 3}), Make<int32_t>({}, {3}), TSR_DTYPE_BOOL));
  ASSERT_TRUE(greater.ok()) << greater.status();
  EXPECT_THAT(Values<bool>((*greater)[0]), ElementsAre(false, true, false));
  absl::StatusOr<std::vector<Tensor>> greater64 =
      RunOnTestDevice(Binary("Greater", Make<int64_t>({2, 1}, {int64_t{1} << 40, 0}),
                             Make<int64_t>({1, 2}, {1, -1}), TSR_DTYPE_BOOL));
  ASSERT_TRUE(greater64.ok()) << greater64.status();
  EXPECT_EQ((*greater64)[0].shape(), (TensorShape{2, 2}));
  EXPECT_THAT(Values<bool>((*greater64)[0]), ElementsAre(true, true, false, true));
}

// TESTDEV runs every stream on a thread of its own; with stream_delay_us each queued item (a
// kernel's work, a copy, a free) waits 2 ms first. A host that read an output before the kernel's
// work ran, or freed an input it still reads, would see stale bytes here every time.
TEST(TestDeviceKernelsTest, SlowStreamsStillGiveTheRightValues) {
  DeviceManagerOptions options;
  options.device_count = {{"TESTDEV", 1}};
  options.device_options = {{"stream_delay_us", "2000"}};
  std::vector<DeviceTypeSpec> types;
  for (const DeviceTypeSpec& spec : Env().plugins().device_types()) {
    if (spec.device_type == "TESTDEV") types.push_back(spec);
  }
  absl::StatusOr<std::unique_ptr<DeviceManager>> slow = DeviceManager::Create(types, options);
  ASSERT_TRUE(slow.ok()) << slow.status();
  Device* device = (*slow)->FindDevice("TESTDEV:0");
  ASSERT_NE(device, nullptr);
  ASSERT_NE(device->compute_stream(), nullptr);
  for (int repeat = 0; repeat < 3; ++repeat) {
    OpRun run = Binary("AddV2", Make<float>({2, 2}, {1, 2, 3, 4}), Make<float>({2}, {10, 20}),
                       TSR_DTYPE_FLOAT);
    absl::StatusOr<std::vector<Tensor>> added = RunOnTestDevice(run, device);
    ASSERT_TRUE(added.ok()) << added.status();
    EXPECT_EQ(Values<float>((*added)[0]), (std::vector<float>{11, 22, 13, 24}));
    OpRun matmul;
    matmul.op = "MatMul";
    matmul.attrs["T"] = TypeAttr(TSR_DTYPE_FLOAT);
    matmul.inputs = {Make<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                     Make<float>({3, 2}, {1, 0, 0, 1, 1, 1})};
    matmul.outputs = {TSR_DTYPE_FLOAT};
    absl::StatusOr<std::vector<Tensor>> product = RunOnTestDevice(matmul, device);
    ASSERT_TRUE(product.ok()) << product.status();
    EXPECT_EQ(Values<float>((*product)[0]), (std::vector<float>{4, 5, 10, 11}));
  }
  absl::StatusOr<DeviceMemoryStats> stats = device->plugin_device()->MemoryStats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->bytes_in_use, 0);  // every tensor of the runs was freed
}

TEST(TestDeviceKernelsTest, HostMemoryHandedToADeviceKernelIsRefused) {
  OpRun run = Binary("AddV2", Make<float>({2}, {1, 2}), Make<float>({2}, {3, 4}), TSR_DTYPE_FLOAT);
  run.raw_inputs = true;
  ExpectError(RunOnTestDevice(run).status(), absl::StatusCode::kInvalidArgument,
              "input 0 of node 'op_under_test' is not in the memory of its device: kernel input "
              "on TESTDEV:0: ");
}

}  // namespace
}  // namespace tessera
