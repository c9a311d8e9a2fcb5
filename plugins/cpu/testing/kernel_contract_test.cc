// Error paths of the CPU kernels that a real host's type checking never lets through (dtype
// mismatches, malformed attribute tensors, absurd shapes): run through FakeHost, which skips
// those checks.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cpu/testing/cpu_plugin_host.h"
#include "plugins/cpu/testing/fake_host.h"

namespace tessera::cpu::testing {
namespace {

using ::testing::HasSubstr;

FakeTensor Floats(std::vector<int64_t> dims) {
  FakeTensor t = FakeTensor::Allocate(TSR_DTYPE_FLOAT, std::move(dims));
  return t;
}

void ExpectError(const RunResult& r, TSR_Code code, const std::string& substring) {
  EXPECT_EQ(r.code, code) << r.message;
  EXPECT_THAT(r.message, HasSubstr(substring));
}

TEST(CpuKernelContractTest, UnregisteredDtypeIsUnimplemented) {
  // No "T" attribute: FakeHost does not filter by dtype, so the kernel sees bool inputs.
  RunResult r = CpuPluginHost().Run("Neg", {FakeTensor::Allocate(TSR_DTYPE_BOOL, {2})}, {});
  ExpectError(r, TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype bool");
}

TEST(CpuKernelContractTest, BinaryOpRejectsMixedDtypes) {
  RunResult r = CpuPluginHost().Run("AddV2", {Floats({2}), FakeTensor::Allocate(TSR_DTYPE_INT32, {2})}, {});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT, "has inputs of different dtypes: float vs. int32");
}

TEST(CpuKernelContractTest, IndexInputsMustBeIntegers) {
  RunResult r = CpuPluginHost().Run("Reshape", {Floats({4}), Floats({2})}, {});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
              "shape of node 'node' must be int32 or int64, got float");
}

TEST(CpuKernelContractTest, ConcatNeedsValues) {
  RunResult r = CpuPluginHost().Run("ConcatV2", {FakeTensor::Make<int32_t>(TSR_DTYPE_INT32, {}, {0})}, {});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT, "has 0 values, expected at least 1");
  r = CpuPluginHost().Run("Pack", {}, {});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT, "Pack node 'node' has no values");
}

TEST(CpuKernelContractTest, ConstRejectsMalformedValue) {
  FakeTensor value = Floats({2});
  value.byte_size = 4;
  RunResult r =
      CpuPluginHost().Run("Const", {},
                 {{"value", FakeAttr::Tensor(value)}, {"dtype", FakeAttr::Type(TSR_DTYPE_FLOAT)}});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT, "holds 4 bytes, expected 8 for float [2]");
  r = CpuPluginHost().Run("Const", {},
                 {{"value", FakeAttr::Tensor(Floats({1, 1, 1, 1, 1, 1, 1, 1, 1}))},
                  {"dtype", FakeAttr::Type(TSR_DTYPE_FLOAT)}});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT, "has rank 9, more than the maximum 8");
}

TEST(CpuKernelContractTest, ConstRejectsValueOfAnotherDtype) {
  RunResult r = CpuPluginHost().Run(
      "Const", {},
      {{"value", FakeAttr::Tensor(Floats({2}))}, {"dtype", FakeAttr::Type(TSR_DTYPE_INT32)}});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
              "Type mismatch between value (float) and dtype (int32)");
}

TEST(CpuKernelContractTest, ConcatOfOneValueForwardsIt) {
  // TensorFlow's ConcatV2 needs N >= 2; the kernel still handles one value by forwarding it.
  FakeTensor value = FakeTensor::Make<float>(TSR_DTYPE_FLOAT, {2}, {1, 2});
  RunResult r =
      CpuPluginHost().Run("ConcatV2", {value, FakeTensor::Make<int32_t>(TSR_DTYPE_INT32, {}, {0})}, {});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_EQ(r.outputs[0].values<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(r.forwarded_inputs[0], 0);
}

TEST(CpuKernelContractTest, ShapeRejectsDimensionBeyondInt32) {
  // The Shape kernel reads only the dims, so the tensor needs no buffer.
  FakeTensor huge{TSR_DTYPE_FLOAT, {3000000000}, nullptr, 0};
  RunResult r = CpuPluginHost().Run("Shape", {huge}, {}, 1, {TSR_DTYPE_INT32});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT, "Shape output type is 32-bit but dim 0 is 3000000000");
  r = CpuPluginHost().Run("Shape", {Floats({2})}, {}, 1, {TSR_DTYPE_FLOAT});
  ExpectError(r, TSR_CODE_UNIMPLEMENTED, "no CPU kernel for dtype float");
}

TEST(CpuKernelContractTest, BiasAddRejectsUnknownDataFormat) {
  RunResult r = CpuPluginHost().Run("BiasAdd", {Floats({2, 3}), Floats({3})},
                           {{"data_format", FakeAttr::String("NDHWC")}});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT, "Invalid data format: 'NDHWC', expected NHWC or NCHW");
}

TEST(CpuKernelContractTest, PlaceholderMessageNamesKnownShape) {
  RunResult r = CpuPluginHost().Run(
      "Placeholder", {},
      {{"dtype", FakeAttr::Type(TSR_DTYPE_INT64)}, {"shape", FakeAttr::ShapeOf({-1, 3})}});
  EXPECT_EQ(r.code, TSR_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(r.message,
            "You must feed a value for placeholder tensor 'node' with dtype int64 and shape "
            "[?,3]");
}

}  // namespace
}  // namespace tessera::cpu::testing
