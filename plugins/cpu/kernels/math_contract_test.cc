// Paths of the math kernels (AddN, Div and friends, Select, ArgMax, Cumsum, All/Any, LinSpace,
// Bucketize, Cumprod, ClipByValue) that a real
// host's type checking never lets through (mixed or unregistered dtypes, index tensors of the
// wrong type, malformed attrs), and their sharded loops and in-place outputs, run through
// FakeHost, which always splits ParallelFor into four shards and reuses every input it can.
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
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

void ExpectError(const RunResult& r, TSR_Code code, const std::string& substring) {
  EXPECT_EQ(r.code, code) << r.message;
  EXPECT_THAT(r.message, HasSubstr(substring));
}

FakeAttrs FloatT() { return {{"T", FakeAttr::Type(TSR_DTYPE_FLOAT)}}; }

FakeTensor Floats(std::vector<int64_t> dims, const std::vector<float>& values) {
  return FakeTensor::Make(TSR_DTYPE_FLOAT, std::move(dims), values);
}
FakeTensor Ints(std::vector<int64_t> dims, const std::vector<int32_t>& values) {
  return FakeTensor::Make(TSR_DTYPE_INT32, std::move(dims), values);
}
FakeTensor Bools(std::vector<int64_t> dims, const std::vector<uint8_t>& values) {
  return FakeTensor::Make(TSR_DTYPE_BOOL, std::move(dims), values);
}

TEST(MathContractTest, AddNRejectsWhatTheHostNeverSends) {
  RunResult r = CpuPluginHost().Run("AddN", {}, FloatT(), 1, {TSR_DTYPE_FLOAT});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT, "AddN node 'node' has no inputs");
  r = CpuPluginHost().Run("AddN", {Floats({2}, {1, 2}), Ints({2}, {1, 2})}, FloatT());
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
              "node 'node' has inputs of different dtypes: float vs. int32");
  r = CpuPluginHost().Run(
      "AddN",
      {FakeTensor::Allocate(TSR_DTYPE_UINT8, {2}), FakeTensor::Allocate(TSR_DTYPE_UINT8, {2})},
      FloatT());
  ExpectError(r, TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype uint8");
}

TEST(MathContractTest, CheckedBinaryOpsRejectMixedAndUnregisteredDtypes) {
  for (const char* op : {"Div", "FloorMod", "Pow"}) {
    RunResult r = CpuPluginHost().Run(op, {Floats({2}, {1, 2}), Ints({2}, {1, 2})}, FloatT());
    ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
                "node 'node' has inputs of different dtypes: float vs. int32");
    r = CpuPluginHost().Run(
        op,
        {FakeTensor::Allocate(TSR_DTYPE_UINT8, {2}), FakeTensor::Allocate(TSR_DTYPE_UINT8, {2})},
        FloatT());
    ExpectError(r, TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype uint8");
  }
}

TEST(MathContractTest, IntegerDivisionShardsAndWritesInPlace) {
  std::vector<int32_t> x;
  for (int i = 0; i < 12; ++i) x.push_back(i - 6);  // [4, 3]
  RunResult r = CpuPluginHost().Run("FloorDiv", {Ints({4, 3}, x), Ints({3}, {4, -4, 5})},
                           {{"T", FakeAttr::Type(TSR_DTYPE_INT32)}});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.forwarded_inputs, ElementsAre(0));
  EXPECT_THAT(r.outputs[0].values<int32_t>(),
              ElementsAre(-2, 1, -1, -1, 0, -1, 0, -1, 0, 0, -1, 1));
}

TEST(MathContractTest, SelectRejectsElementSizesItCannotMove) {
  for (const char* op : {"Select", "SelectV2"}) {
    RunResult r = CpuPluginHost().Run(op,
                             {Bools({2}, {1, 0}), FakeTensor::Allocate(TSR_DTYPE_STRING, {2}),
                              FakeTensor::Allocate(TSR_DTYPE_STRING, {2})},
                             {{"T", FakeAttr::Type(TSR_DTYPE_FLOAT)}}, 1, {TSR_DTYPE_STRING});
    ExpectError(r, TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype string");
  }
}

TEST(MathContractTest, SelectV2BroadcastsAcrossShards) {
  // cond [3, 1], t [4], e [] -> [3, 4]; four shards of three elements start mid-row.
  RunResult r = CpuPluginHost().Run("SelectV2",
                           {Bools({3, 1}, {1, 0, 1}), Floats({4}, {1, 2, 3, 4}), Floats({}, {-1})},
                           FloatT(), 1, {TSR_DTYPE_FLOAT});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_EQ(r.outputs[0].dims, (std::vector<int64_t>{3, 4}));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(1, 2, 3, 4, -1, -1, -1, -1, 1, 2, 3, 4));
}

TEST(MathContractTest, SelectWritesInPlace) {
  RunResult r =
      CpuPluginHost().Run("Select", {Bools({3}, {1, 0, 1}), Floats({3}, {1, 2, 3}), Floats({3}, {4, 5, 6})},
                 FloatT(), 1, {TSR_DTYPE_FLOAT});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.forwarded_inputs, ElementsAre(1));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(1, 5, 3));
  // Rows picked by a vector condition, over then's own buffer.
  r = CpuPluginHost().Run("Select",
                 {Bools({2}, {0, 1}), Floats({2, 2}, {1, 2, 3, 4}), Floats({2, 2}, {5, 6, 7, 8})},
                 FloatT(), 1, {TSR_DTYPE_FLOAT});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.forwarded_inputs, ElementsAre(1));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(5, 6, 3, 4));
}

FakeAttrs ArgAttrs(TSR_DataType output_type) {
  return {{"T", FakeAttr::Type(TSR_DTYPE_FLOAT)},
          {"Tidx", FakeAttr::Type(TSR_DTYPE_INT32)},
          {"output_type", FakeAttr::Type(output_type)}};
}

TEST(MathContractTest, ArgMaxRejectsWhatTheHostNeverSends) {
  RunResult r = CpuPluginHost().Run("ArgMax", {Floats({2}, {1, 2}), Floats({}, {0})},
                           ArgAttrs(TSR_DTYPE_INT64), 1, {TSR_DTYPE_INT64});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
              "dimension of node 'node' must be int32 or int64, got float");
  r = CpuPluginHost().Run("ArgMax", {Floats({2}, {1, 2}), Ints({}, {0})}, ArgAttrs(TSR_DTYPE_INT64), 1,
                 {TSR_DTYPE_INT16});
  ExpectError(r, TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype int16");
  r = CpuPluginHost().Run("ArgMin", {FakeTensor::Allocate(TSR_DTYPE_UINT8, {2}), Ints({}, {0})},
                 ArgAttrs(TSR_DTYPE_INT64), 1, {TSR_DTYPE_INT64});
  ExpectError(r, TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype uint8");
}

TEST(MathContractTest, ArgMaxShardsAcrossRows) {
  // [2, 3, 3] over axis 1: six outputs in four shards, so shards cross the outer dimension.
  const std::vector<float> x = {0, 5, 1, 9, 2, 1, 3, 2, 1,  //
                                1, 1, 7, 1, 8, 7, 0, 8, 2};
  RunResult r = CpuPluginHost().Run("ArgMax", {Floats({2, 3, 3}, x), Ints({}, {1})},
                           ArgAttrs(TSR_DTYPE_INT32), 1, {TSR_DTYPE_INT32});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_EQ(r.outputs[0].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_THAT(r.outputs[0].values<int32_t>(), ElementsAre(1, 0, 0, 0, 1, 0));
}

FakeAttrs CumsumAttrs(bool exclusive, bool reverse) {
  return {{"T", FakeAttr::Type(TSR_DTYPE_FLOAT)},
          {"Tidx", FakeAttr::Type(TSR_DTYPE_INT32)},
          {"exclusive", FakeAttr::Bool(exclusive)},
          {"reverse", FakeAttr::Bool(reverse)}};
}

TEST(MathContractTest, CumsumRejectsWhatTheHostNeverSends) {
  RunResult r =
      CpuPluginHost().Run("Cumsum", {Floats({2}, {1, 2}), Floats({}, {0})}, CumsumAttrs(false, false));
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
              "axis of node 'node' must be int32 or int64, got float");
  r = CpuPluginHost().Run("Cumsum", {FakeTensor::Allocate(TSR_DTYPE_UINT8, {2}), Ints({}, {0})},
                 CumsumAttrs(false, false));
  ExpectError(r, TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype uint8");
  FakeAttrs bad = CumsumAttrs(false, false);
  bad["reverse"] = FakeAttr::Int(1);
  r = CpuPluginHost().Run("Cumsum", {Floats({2}, {1, 2}), Ints({}, {0})}, bad);
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
              "attribute 'reverse' of node 'node' is a int, expected bool");
}

TEST(MathContractTest, LinSpaceAndBucketizeRejectWhatTheHostNeverSends) {
  // A float num (the op's Tidx allows only integers).
  RunResult r = CpuPluginHost().Run("LinSpace", {Floats({}, {0}), Floats({}, {1}), Floats({}, {3})},
                                    FloatT());
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT, "num of node 'node' must be int32 or int64, got float");
  // Non-empty boundaries that are not floats (the op's attr is list(float)).
  FakeAttrs attrs = FloatT();
  attrs["boundaries"] = FakeAttr::IntList({1, 2});
  r = CpuPluginHost().Run("Bucketize", {Floats({2}, {0, 3})}, attrs, 1, {TSR_DTYPE_INT32});
  ExpectError(r, TSR_CODE_INVALID_ARGUMENT,
              "attr 'boundaries' of node 'node' must be a list of floats");
  // An empty list reads as LIST_INT and is accepted: every value lands in bucket 0.
  attrs["boundaries"] = FakeAttr::IntList({});
  r = CpuPluginHost().Run("Bucketize", {Floats({3}, {-1, 0, 5})}, attrs, 1, {TSR_DTYPE_INT32});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].values<int32_t>(), ElementsAre(0, 0, 0));
}

TEST(MathContractTest, CumprodAndClipByValueShardAndWriteInPlace) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  RunResult r = CpuPluginHost().Run("Cumprod", {Floats({2, 2, 3}, x), Ints({}, {1})},
                                    CumsumAttrs(true, false));
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.forwarded_inputs, ElementsAre(0));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(1, 1, 1, 1, 2, 3, 1, 1, 1, 7, 8, 9));
  r = CpuPluginHost().Run("ClipByValue", {Floats({12}, x), Floats({}, {3}), Floats({12}, x)},
                          FloatT());
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.forwarded_inputs, ElementsAre(0));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(3, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
}

TEST(MathContractTest, CumsumShardsAndWritesInPlace) {
  // [2, 2, 3] over axis 1, exclusive and reversed: six columns in four shards.
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  RunResult r =
      CpuPluginHost().Run("Cumsum", {Floats({2, 2, 3}, x), Ints({}, {-2})}, CumsumAttrs(true, true));
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.forwarded_inputs, ElementsAre(0));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(4, 5, 6, 0, 0, 0, 10, 11, 12, 0, 0, 0));
}

TEST(MathContractTest, AddNShardsAndWritesInPlace) {
  std::vector<float> a;
  std::vector<float> b;
  std::vector<float> c;
  std::vector<float> expected;
  for (int i = 0; i < 10; ++i) {
    a.push_back(i);
    b.push_back(10 * i);
    c.push_back(100 * i);
    expected.push_back(111 * i);
  }
  RunResult r = CpuPluginHost().Run("AddN", {Floats({10}, a), Floats({10}, b), Floats({10}, c)},
                           {{"T", FakeAttr::Type(TSR_DTYPE_FLOAT)}, {"N", FakeAttr::Int(3)}});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.forwarded_inputs, ElementsAre(0));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAreArray(expected));
}

TEST(MathContractTest, LogicalReductionsOverShardedLongRows) {
  std::vector<uint8_t> values(100000, 1);
  values[77777] = 0;
  RunResult r = CpuPluginHost().Run("All", {Bools({100000}, values), Ints({1}, {0})},
                           {{"Tidx", FakeAttr::Type(TSR_DTYPE_INT32)}});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].values<uint8_t>(), ElementsAre(0));
  r = CpuPluginHost().Run("Any", {Bools({100000}, std::vector<uint8_t>(100000, 0)), Ints({1}, {0})},
                 {{"Tidx", FakeAttr::Type(TSR_DTYPE_INT32)}});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].values<uint8_t>(), ElementsAre(0));
  r = CpuPluginHost().Run("Any", {Floats({2}, {1, 0}), Ints({1}, {0})},
                 {{"Tidx", FakeAttr::Type(TSR_DTYPE_INT32)}});
  ExpectError(r, TSR_CODE_UNIMPLEMENTED, "node 'node' has no CPU kernel for dtype float");
}

}  // namespace
}  // namespace tessera::cpu::testing
