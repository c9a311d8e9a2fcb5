// Paths of the comparison and logical kernels that a real host's type checking never lets
// through (mixed or unregistered dtypes, a malformed attr, a missing attr), and their sharded
// broadcasting and buffer reuse, run through FakeHost.
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

// A bool tensor from bytes (0 or 1), as FakeTensor stores bools.
FakeTensor Bools(std::vector<int64_t> dims, const std::vector<uint8_t>& values) {
  return FakeTensor::Make<uint8_t>(TSR_DTYPE_BOOL, std::move(dims), values);
}

RunResult RunBool(const std::string& op, std::vector<FakeTensor> inputs,
                  const FakeAttrs& attrs = {}) {
  return CpuPluginHost().Run(op, std::move(inputs), attrs, 1, {TSR_DTYPE_BOOL});
}

TEST(ComparisonLogicalContractTest, ComparisonRejectsMixedDtypes) {
  RunResult r = RunBool("Less", {FakeTensor::Allocate(TSR_DTYPE_FLOAT, {2}),
                                 FakeTensor::Allocate(TSR_DTYPE_INT32, {2})});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
              "node 'node' has inputs of different dtypes: float vs. int32");
}

TEST(ComparisonLogicalContractTest, UnregisteredDtypesAreUnimplemented) {
  RunResult r = RunBool("Greater", {FakeTensor::Allocate(TSR_DTYPE_BOOL, {2}),
                                    FakeTensor::Allocate(TSR_DTYPE_BOOL, {2})});
  ExpectError(r, TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype bool");
  r = RunBool("LogicalAnd", {FakeTensor::Allocate(TSR_DTYPE_INT32, {2}),
                             FakeTensor::Allocate(TSR_DTYPE_INT32, {2})});
  ExpectError(r, TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype int32");
  r = RunBool("LogicalNot", {FakeTensor::Allocate(TSR_DTYPE_FLOAT, {2})});
  ExpectError(r, TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype float");
}

TEST(ComparisonLogicalContractTest, EqualRejectsNonBoolShapeErrorAttr) {
  RunResult r = RunBool(
      "Equal",
      {FakeTensor::Allocate(TSR_DTYPE_FLOAT, {2}), FakeTensor::Allocate(TSR_DTYPE_FLOAT, {2})},
      {{"incompatible_shape_error", FakeAttr::Int(0)}});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
              "attribute 'incompatible_shape_error' of node 'node' is a int, expected bool");
}

TEST(ComparisonLogicalContractTest, MissingShapeErrorAttrMeansTrue) {
  // TensorFlow's kernels read the attr with a default of true: without it, a mismatch is an
  // error, not a scalar.
  RunResult r = RunBool("NotEqual", {FakeTensor::Allocate(TSR_DTYPE_FLOAT, {2}),
                                     FakeTensor::Allocate(TSR_DTYPE_FLOAT, {3})});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT, "Incompatible shapes: [2] vs. [3]");
  r = RunBool(
      "NotEqual",
      {FakeTensor::Allocate(TSR_DTYPE_FLOAT, {2}), FakeTensor::Allocate(TSR_DTYPE_FLOAT, {3})},
      {{"incompatible_shape_error", FakeAttr::Bool(false)}});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_TRUE(r.outputs[0].dims.empty());
  EXPECT_THAT(r.outputs[0].values<uint8_t>(), ElementsAre(1));
}

TEST(ComparisonLogicalContractTest, ShardedBroadcastMatchesReference) {
  // FakeHost always splits ParallelFor into four shards, so shard starts fall mid-row.
  const std::vector<int32_t> x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};  // [4, 3]
  const std::vector<int32_t> y = {5, 0, 10};                              // [3]
  RunResult r = RunBool("GreaterEqual", {FakeTensor::Make(TSR_DTYPE_INT32, {4, 3}, x),
                                         FakeTensor::Make(TSR_DTYPE_INT32, {3}, y)});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_EQ(r.outputs[0].dims, (std::vector<int64_t>{4, 3}));
  std::vector<bool> expected;
  for (int i = 0; i < 12; ++i) expected.push_back(x[i] >= y[i % 3]);
  std::vector<bool> actual;
  for (uint8_t b : r.outputs[0].values<uint8_t>()) actual.push_back(b != 0);
  EXPECT_EQ(actual, expected);
}

TEST(ComparisonLogicalContractTest, BoolOutputsReuseOnlyBoolInputs) {
  RunResult r = RunBool("LogicalOr", {Bools({2}, {1, 0}), Bools({2}, {0, 0})});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.forwarded_inputs, ElementsAre(0));
  EXPECT_THAT(r.outputs[0].values<uint8_t>(), ElementsAre(1, 0));

  // The broadcast operand has fewer elements than the output: only the other one is reused.
  r = RunBool("LogicalAnd", {Bools({}, {1}), Bools({3}, {1, 0, 1})});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.forwarded_inputs, ElementsAre(1));
  EXPECT_THAT(r.outputs[0].values<uint8_t>(), ElementsAre(1, 0, 1));

  r = RunBool("LogicalNot", {Bools({2}, {1, 0})});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.forwarded_inputs, ElementsAre(0));
  EXPECT_THAT(r.outputs[0].values<uint8_t>(), ElementsAre(0, 1));

  // int32 inputs cannot hold a bool output.
  r = RunBool("Equal", {FakeTensor::Make<int32_t>(TSR_DTYPE_INT32, {2}, {1, 2}),
                        FakeTensor::Make<int32_t>(TSR_DTYPE_INT32, {2}, {1, 3})});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.forwarded_inputs, ElementsAre(-1));
  EXPECT_THAT(r.outputs[0].values<uint8_t>(), ElementsAre(1, 0));
}

}  // namespace
}  // namespace tessera::cpu::testing
