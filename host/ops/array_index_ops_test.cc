// Tests of the definitions and shape functions of Unique, DynamicStitch, ParallelDynamicStitch,
// GatherNd and ScatterNd.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

class ArrayIndexOpsTest : public ::testing::Test {
 protected:
  void ExpectError(const absl::StatusOr<std::vector<PartialShape>>& out,
                   const std::string& message) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(message));
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

constexpr char kFloat[] = R"pb(attr { key: "T" value { type: DT_FLOAT } })pb";
constexpr char kStitchOfTwo[] = R"pb(attr { key: "T" value { type: DT_FLOAT } }
                                     attr { key: "N" value { i: 2 } })pb";

TEST_F(ArrayIndexOpsTest, UniqueGivesAVectorAndTheIndicesOfItsInput) {
  auto out = InferShapes(*ops_, "Unique", kFloat, {PartialShape({5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1}), PartialShape({5})));
  out = InferShapes(*ops_, "Unique", kFloat, {PartialShape::Unknown()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1}), PartialShape::Unknown()));
  const tensorflow::OpDef& def = ops_->Find("Unique")->op_def;
  ASSERT_EQ(def.attr_size(), 2);
  EXPECT_EQ(def.attr(1).name(), "out_idx");
  EXPECT_EQ(def.attr(1).default_value().type(), tensorflow::DT_INT32);
  EXPECT_EQ(def.attr(1).allowed_values().list().type_size(), 2);
}

TEST_F(ArrayIndexOpsTest, UniqueRejectsAnythingButAVector) {
  ExpectError(InferShapes(*ops_, "Unique", kFloat, {PartialShape({2, 3})}), "must be rank 1");
  ExpectError(InferShapes(*ops_, "Unique", kFloat, {PartialShape::Scalar()}), "must be rank 1");
  ExpectError(InferShapes(*ops_, "Unique",
                          R"pb(attr { key: "T" value { type: DT_FLOAT } }
                               attr { key: "out_idx" value { type: DT_FLOAT } })pb",
                          {PartialShape({2})}),
              "out_idx");
}

TEST_F(ArrayIndexOpsTest, DynamicStitchSizesItsOutputByTheLargestConstantIndex) {
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    SCOPED_TRACE(op);
    Tensor first = Tensor::Vector<int32_t>({0, 4});
    Tensor second = Tensor::FromVector<int32_t>(TensorShape{2, 2}, {1, 6, 2, 3});
    auto out = InferShapes(
        *ops_, op, kStitchOfTwo,
        {PartialShape({2}), PartialShape({2, 2}), PartialShape({2, 5}), PartialShape({2, 2, -1})},
        {&first, &second});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({7, 5})));
    // One indices input not constant: the first dimension is unknown.
    out = InferShapes(
        *ops_, op, kStitchOfTwo,
        {PartialShape({2}), PartialShape({2, 2}), PartialShape({2, -1}), PartialShape({2, 2, 3})},
        {&first});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape({-1, 3})));
    // Unknown data shapes leave the extra dimensions unknown.
    out = InferShapes(*ops_, op, kStitchOfTwo,
                      {PartialShape({2}), PartialShape({4}), PartialShape::Unknown(),
                       PartialShape::Unknown()});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(*out, ElementsAre(PartialShape::Unknown()));
  }
  // Every indices input empty: zero rows.
  Tensor empty = Tensor::Vector<int32_t>({});
  auto out = InferShapes(*ops_, "DynamicStitch",
                         R"pb(attr { key: "T" value { type: DT_FLOAT } }
                              attr { key: "N" value { i: 1 } })pb",
                         {PartialShape({0}), PartialShape({0, 2})}, {&empty});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({0, 2})));
}

TEST_F(ArrayIndexOpsTest, DynamicStitchRejectsDataThatDoesNotFitItsIndices) {
  ExpectError(InferShapes(*ops_, "DynamicStitch", kStitchOfTwo,
                          {PartialShape({3}), PartialShape({2}), PartialShape({4}),
                           PartialShape({2})}),
              "dimensions must be equal, but are 4 and 3");
  ExpectError(InferShapes(*ops_, "DynamicStitch", kStitchOfTwo,
                          {PartialShape({3}), PartialShape({2, 2}), PartialShape({3, 5}),
                           PartialShape({2})}),
              "Shape of data[1] must be at least rank 2 (the rank of indices[1]) but is rank 1");
  ExpectError(InferShapes(*ops_, "DynamicStitch", kStitchOfTwo,
                          {PartialShape({3}), PartialShape({2}), PartialShape({3, 5}),
                           PartialShape({2, 6})}),
              "5 and 6");
  const tensorflow::OpDef& def = ops_->Find("DynamicStitch")->op_def;
  EXPECT_EQ(def.input_arg(0).type(), tensorflow::DT_INT32);
  EXPECT_EQ(def.attr(0).name(), "N");
  EXPECT_EQ(def.attr(0).minimum(), 1);
}

constexpr char kGatherNd[] = R"pb(attr { key: "Tparams" value { type: DT_FLOAT } }
                                  attr { key: "Tindices" value { type: DT_INT32 } })pb";

TEST_F(ArrayIndexOpsTest, GatherNdKeepsTheIndexPrefixAndTheParamsSuffix) {
  auto out = InferShapes(*ops_, "GatherNd", kGatherNd, {PartialShape({4, 5, 6}), PartialShape({2, 3, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 3, 6})));
  out = InferShapes(*ops_, "GatherNd", kGatherNd, {PartialShape({4, 5}), PartialShape({7, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({7})));
  out = InferShapes(*ops_, "GatherNd", kGatherNd, {PartialShape({4, 5}), PartialShape({7, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape::Unknown()));
  ExpectError(InferShapes(*ops_, "GatherNd", kGatherNd, {PartialShape({4}), PartialShape({1, 2})}),
              "indices.shape[-1] must be <= params.rank, but saw indices shape: [1,2] and params "
              "shape: [4]");
  ExpectError(InferShapes(*ops_, "GatherNd", kGatherNd, {PartialShape({4}), PartialShape::Scalar()}),
              "must be at least rank 1");
  EXPECT_EQ(ops_->Find("GatherNd")->op_def.attr(1).allowed_values().list().type_size(), 3);
}

constexpr char kScatterNd[] = R"pb(attr { key: "T" value { type: DT_FLOAT } }
                                   attr { key: "Tindices" value { type: DT_INT32 } })pb";

TEST_F(ArrayIndexOpsTest, ScatterNdTakesTheShapeInput) {
  Tensor shape = Tensor::Vector<int32_t>({4, 5, 6});
  auto out = InferShapes(*ops_, "ScatterNd", kScatterNd,
                         {PartialShape({2, 3, 2}), PartialShape({2, 3, 6}), PartialShape({3})},
                         {nullptr, nullptr, &shape});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4, 5, 6})));
  out = InferShapes(*ops_, "ScatterNd", kScatterNd,
                    {PartialShape({2, 1}), PartialShape({2, 6}), PartialShape({2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1})));
}

TEST_F(ArrayIndexOpsTest, ScatterNdRejectsUpdatesOfTheWrongShape) {
  Tensor shape = Tensor::Vector<int32_t>({4, 5, 6});
  ExpectError(InferShapes(*ops_, "ScatterNd", kScatterNd,
                          {PartialShape({2, 3, 2}), PartialShape({2, 4, 6}), PartialShape({3})},
                          {nullptr, nullptr, &shape}),
              "Dimensions [0,2) of indices[shape=[2,3,2]] = [2,3] must match dimensions [0,2) of "
              "updates[shape=[2,4,6]] = [2,4]");
  ExpectError(InferShapes(*ops_, "ScatterNd", kScatterNd,
                          {PartialShape({2, 3, 2}), PartialShape({2, 3, 7}), PartialShape({3})},
                          {nullptr, nullptr, &shape}),
              "Dimensions [2,3) of input[shape=[4,5,6]] = [6] must match dimensions [2,3) of "
              "updates[shape=[2,3,7]] = [7]");
  Tensor empty = Tensor::Vector<int32_t>({0, 6});
  ExpectError(InferShapes(*ops_, "ScatterNd", kScatterNd,
                          {PartialShape({2, 1}), PartialShape({2, 6}), PartialShape({2})},
                          {nullptr, nullptr, &empty}),
              "Indices and updates specified for empty input");
  // Element counts past 2^63 (found by graph_run_fuzzer) are large, not negative.
  const int64_t huge = int64_t{1} << 61;
  ExpectError(InferShapes(*ops_, "ScatterNd", kScatterNd,
                          {PartialShape({huge, huge, 1}), PartialShape({huge, huge}),
                           PartialShape({2})},
                          {nullptr, nullptr, &empty}),
              "Indices and updates specified for empty input");
}

}  // namespace
}  // namespace tessera
