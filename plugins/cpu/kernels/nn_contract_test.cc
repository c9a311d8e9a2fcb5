// Paths of the neural-network kernels that a real host's op definitions and type checks never let
// through (attrs of the wrong length or value, unregistered dtypes, missing optional attrs), run
// through FakeHost.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cpu/testing/cpu_plugin_host.h"
#include "plugins/cpu/testing/fake_host.h"

namespace tessera::cpu::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

void ExpectError(const RunResult& r, TSR_Code code, const std::string& substring) {
  EXPECT_EQ(r.code, code) << r.message;
  EXPECT_THAT(r.message, HasSubstr(substring));
}

FakeAttr Float(float v) {
  FakeAttr attr;
  attr.type = TSR_ATTR_TYPE_FLOAT;
  attr.f = v;
  return attr;
}

FakeTensor Floats(std::vector<int64_t> dims) {
  FakeTensor t = FakeTensor::Allocate(TSR_DTYPE_FLOAT, std::move(dims));
  float* p = reinterpret_cast<float*>(t.buffer.get());
  for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = static_cast<float>(i % 7);
  return t;
}

FakeAttrs PoolAttrs(std::vector<int64_t> ksize, std::vector<int64_t> strides,
                    std::string padding = "VALID", std::string data_format = "NHWC") {
  return {{"ksize", FakeAttr::IntList(std::move(ksize))},
          {"strides", FakeAttr::IntList(std::move(strides))},
          {"padding", FakeAttr::String(std::move(padding))},
          {"data_format", FakeAttr::String(std::move(data_format))}};
}

TEST(NnContractTest, PoolingRejectsAttrsOfTheWrongLength) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    RunResult r = CpuPluginHost().Run(op, {Floats({1, 4, 4, 1})}, PoolAttrs({1, 2, 2, 1, 1}, {1, 1, 1, 1}));
    ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
                "Sliding window ksize field must specify 4 dimensions");
    r = CpuPluginHost().Run(op, {Floats({1, 4, 4, 1})}, PoolAttrs({1, 2, 2, 1}, {1, 1, 1}));
    ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
                "Sliding window stride field must specify 4 dimensions");
  }
}

TEST(NnContractTest, PoolingRejectsUnknownPaddingAndFormat) {
  RunResult r = CpuPluginHost().Run("AvgPool", {Floats({1, 4, 4, 1})},
                           PoolAttrs({1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT"));
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT, "Invalid padding: 'EXPLICIT'");
  r = CpuPluginHost().Run("MaxPool", {Floats({1, 4, 4, 1})},
                 PoolAttrs({1, 2, 2, 1}, {1, 1, 1, 1}, "VALID", "NDHWC"));
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
              "Invalid data format: 'NDHWC'; the CPU pooling kernels support NHWC and NCHW");
}

TEST(NnContractTest, MaxPoolChecksExplicitPaddings) {
  FakeAttrs attrs = PoolAttrs({1, 3, 3, 1}, {1, 1, 1, 1}, "EXPLICIT");
  attrs["explicit_paddings"] = FakeAttr::IntList({0, 0, 1, 1});
  ExpectError(CpuPluginHost().Run("MaxPool", {Floats({1, 4, 4, 1})}, attrs), TSR_CODE_INVALID_ARGUMENT,
              "explicit_paddings attribute must contain 8 values, but got: 4");
  attrs["explicit_paddings"] = FakeAttr::IntList({0, 0, 1, -1, 0, 0, 0, 0});
  ExpectError(CpuPluginHost().Run("MaxPool", {Floats({1, 4, 4, 1})}, attrs), TSR_CODE_INVALID_ARGUMENT,
              "All elements of explicit_paddings must be nonnegative");
  attrs["explicit_paddings"] = FakeAttr::IntList({0, 0, 1, 1, 0, 0, 1, 0});
  ExpectError(CpuPluginHost().Run("MaxPool", {Floats({1, 4, 4, 1})}, attrs), TSR_CODE_INVALID_ARGUMENT,
              "Nonzero explicit padding in the batch or depth dimensions is not supported");
  FakeAttrs valid = PoolAttrs({1, 3, 3, 1}, {1, 1, 1, 1}, "VALID");
  valid["explicit_paddings"] = FakeAttr::IntList({0, 0, 1, 1, 0, 0, 0, 0});
  ExpectError(CpuPluginHost().Run("MaxPool", {Floats({1, 4, 4, 1})}, valid), TSR_CODE_INVALID_ARGUMENT,
              "explicit_paddings attribute must be empty if the padding attribute is not "
              "EXPLICIT");
}

TEST(NnContractTest, PoolingWithoutDataFormatMeansNhwc) {
  FakeAttrs attrs = PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1});
  attrs.erase("data_format");
  RunResult r = CpuPluginHost().Run("MaxPool", {Floats({1, 2, 2, 1})}, attrs);
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].dims, ElementsAre(1, 1, 1, 1));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(3.0f));
}

TEST(NnContractTest, UnregisteredDtypesAreUnimplemented) {
  FakeTensor ints = FakeTensor::Allocate(TSR_DTYPE_INT32, {2, 2});
  ExpectError(CpuPluginHost().Run("Elu", {ints}, {}), TSR_CODE_UNIMPLEMENTED,
              "node 'node' has no CPU kernel for dtype int32");
  ExpectError(CpuPluginHost().Run("SeluGrad", {ints, ints}, {}), TSR_CODE_UNIMPLEMENTED,
              "node 'node' has no CPU kernel for dtype int32");
  ExpectError(CpuPluginHost().Run("L2Loss", {ints}, {}), TSR_CODE_UNIMPLEMENTED,
              "node 'node' has no CPU kernel for dtype int32");
  ExpectError(CpuPluginHost().Run("LRN", {FakeTensor::Allocate(TSR_DTYPE_DOUBLE, {1, 1, 1, 2})},
                         {{"depth_radius", FakeAttr::Int(1)},
                          {"bias", Float(1)},
                          {"alpha", Float(1)},
                          {"beta", Float(0.5f)}}),
              TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype double");
  FakeTensor halfs = FakeTensor::Allocate(TSR_DTYPE_HALF, {1, 1, 1, 2});
  ExpectError(
      CpuPluginHost().Run("FusedBatchNormV3", {halfs, Floats({2}), Floats({2}), Floats({2}), Floats({2})},
                 {{"epsilon", Float(0.001f)}, {"is_training", FakeAttr::Bool(true)}}, 6,
                 {TSR_DTYPE_HALF, TSR_DTYPE_FLOAT, TSR_DTYPE_FLOAT, TSR_DTYPE_FLOAT,
                  TSR_DTYPE_FLOAT, TSR_DTYPE_FLOAT}),
      TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype half");
}

TEST(NnContractTest, IndexInputsMustBeIntegers) {
  ExpectError(CpuPluginHost().Run("SparseSoftmaxCrossEntropyWithLogits", {Floats({2, 3}), Floats({2})}, {},
                         2, {TSR_DTYPE_FLOAT, TSR_DTYPE_FLOAT}),
              TSR_CODE_INVALID_ARGUMENT, "labels of node 'node' must be int32 or int64, got float");
  ExpectError(CpuPluginHost().Run("AvgPoolGrad", {Floats({4}), Floats({1, 1, 1, 1})},
                         PoolAttrs({1, 1, 1, 1}, {1, 1, 1, 1}), 1, {TSR_DTYPE_FLOAT}),
              TSR_CODE_INVALID_ARGUMENT,
              "orig_input_shape of node 'node' must be int32 or int64, got float");
}

TEST(NnContractTest, DataFormatsOutsideTheDefinitionsAreRejected) {
  ExpectError(
      CpuPluginHost().Run("BiasAddGrad", {Floats({2, 3})}, {{"data_format", FakeAttr::String("NDHWC")}}),
      TSR_CODE_INVALID_ARGUMENT, "Invalid data format: 'NDHWC', expected NHWC or NCHW");
  ExpectError(CpuPluginHost().Run("FusedBatchNormV3",
                         {Floats({1, 1, 1, 2}), Floats({2}), Floats({2}), Floats({2}), Floats({2})},
                         {{"epsilon", Float(0.001f)},
                          {"is_training", FakeAttr::Bool(true)},
                          {"data_format", FakeAttr::String("HWCN")}},
                         6),
              TSR_CODE_INVALID_ARGUMENT, "Invalid data format: 'HWCN'");
}

TEST(NnContractTest, OptionalAttrsTakeTensorFlowsDefaults) {
  // LeakyRelu without alpha scales by 0.2; BiasAddGrad without data_format is NHWC.
  FakeTensor x = FakeTensor::Make<float>(TSR_DTYPE_FLOAT, {2}, {-1.0f, 2.0f});
  RunResult r = CpuPluginHost().Run("LeakyRelu", {x}, {});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(-0.2f, 2.0f));
  r = CpuPluginHost().Run("BiasAddGrad", {FakeTensor::Make<float>(TSR_DTYPE_FLOAT, {2, 2}, {1, 2, 3, 4})},
                 {});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(4.0f, 6.0f));
}

}  // namespace
}  // namespace tessera::cpu::testing
