// Tests of the definitions and shape functions of Slice, StridedSlice, Split, SplitV and Unpack.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/standard_ops.h"
#include "host/ops/testing/infer_shapes.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

class ArraySliceOpsTest : public ::testing::Test {
 protected:
  void ExpectError(const absl::StatusOr<std::vector<PartialShape>>& out,
                   const std::string& message) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(message));
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

constexpr char kSliceAttrs[] = R"(attr { key: "T" value { type: DT_FLOAT } }
                                  attr { key: "Index" value { type: DT_INT32 } })";

TEST_F(ArraySliceOpsTest, SliceUsesBeginAndSize) {
  Tensor begin = Tensor::Vector<int32_t>({1, 0, 2});
  Tensor size = Tensor::Vector<int32_t>({2, -1, -1});
  const std::vector<PartialShape> shapes = {PartialShape({4, -1, 5}), PartialShape({3}),
                                            PartialShape({3})};
  auto out = InferShapes(*ops_, "Slice", kSliceAttrs, shapes, {nullptr, &begin, &size});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, -1, 3})));
  out = InferShapes(*ops_, "Slice", kSliceAttrs, shapes, {nullptr, nullptr, &size});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, -1, -1})));
  out = InferShapes(*ops_, "Slice", kSliceAttrs, shapes);
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, ElementsAre(PartialShape({-1, -1, -1})));
  EXPECT_FALSE(ops_->Find("Slice")->op_def.attr(1).has_default_value());
}

TEST_F(ArraySliceOpsTest, SliceRejectsBadArguments) {
  Tensor size = Tensor::Vector<int32_t>({2, -2});
  ExpectError(InferShapes(*ops_, "Slice", kSliceAttrs,
                          {PartialShape({4, 5}), PartialShape({2}), PartialShape({2})},
                          {nullptr, nullptr, &size}),
              "Slice: size[1] must be -1 or non-negative, got -2");
  ExpectError(InferShapes(*ops_, "Slice", kSliceAttrs,
                          {PartialShape({4, 5}), PartialShape({3}), PartialShape({3})}),
              "begin and size have 3 entries, but the input has rank 2");
  ExpectError(InferShapes(*ops_, "Slice", kSliceAttrs,
                          {PartialShape({4, 5}), PartialShape({2}), PartialShape({3})}),
              "dimensions must be equal, but are 2 and 3");
  Tensor two = Tensor::Vector<int32_t>({0, 0});
  Tensor three = Tensor::Vector<int32_t>({1, 1, 1});
  ExpectError(InferShapes(*ops_, "Slice", kSliceAttrs,
                          {PartialShape::Unknown(), PartialShape({-1}), PartialShape({-1})},
                          {nullptr, &two, &three}),
              "begin has 2 entries but size has 3");
  Tensor begin = Tensor::Vector<int32_t>({6, 0});
  Tensor rest = Tensor::Vector<int32_t>({-1, 1});
  ExpectError(InferShapes(*ops_, "Slice", kSliceAttrs,
                          {PartialShape({4, 5}), PartialShape({2}), PartialShape({2})},
                          {nullptr, &begin, &rest}),
              "begin[0] = 6 is not in [0, 4]");
}

// StridedSlice attrs with the given masks.
std::string StridedSliceAttrs(int begin_mask, int end_mask, int ellipsis_mask, int new_axis_mask,
                              int shrink_axis_mask) {
  return absl::StrCat(R"(attr { key: "T" value { type: DT_FLOAT } }
                         attr { key: "Index" value { type: DT_INT32 } })",
                      " attr { key: 'begin_mask' value { i: ", begin_mask, " } }",
                      " attr { key: 'end_mask' value { i: ", end_mask, " } }",
                      " attr { key: 'ellipsis_mask' value { i: ", ellipsis_mask, " } }",
                      " attr { key: 'new_axis_mask' value { i: ", new_axis_mask, " } }",
                      " attr { key: 'shrink_axis_mask' value { i: ", shrink_axis_mask, " } }");
}

absl::StatusOr<std::vector<PartialShape>> StridedSlice(const OpRegistry& ops,
                                                       const PartialShape& input,
                                                       const Tensor* begin, const Tensor* end,
                                                       const Tensor* strides,
                                                       const std::string& attrs) {
  const int64_t n = strides != nullptr ? strides->NumElements() : -1;
  return InferShapes(ops, "StridedSlice", attrs,
                     {input, PartialShape({n}), PartialShape({n}), PartialShape({n})},
                     {nullptr, begin, end, strides});
}

TEST_F(ArraySliceOpsTest, StridedSliceFollowsNumpy) {
  const PartialShape input({4, 5, 6});
  // x[1:3, ..., ::-2] -> [2, 5, 3]
  Tensor begin = Tensor::Vector<int32_t>({1, 0, 0});
  Tensor end = Tensor::Vector<int32_t>({3, 0, 0});
  Tensor strides = Tensor::Vector<int32_t>({1, 1, -2});
  auto out = StridedSlice(*ops_, input, &begin, &end, &strides, StridedSliceAttrs(4, 4, 2, 0, 0));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 5, 3})));
  // x[-1, newaxis, 2:] -> [1, 3, 6]
  Tensor begin2 = Tensor::Vector<int32_t>({-1, 0, 2});
  Tensor end2 = Tensor::Vector<int32_t>({0, 0, 0});
  Tensor ones = Tensor::Vector<int32_t>({1, 1, 1});
  out = StridedSlice(*ops_, input, &begin2, &end2, &ones, StridedSliceAttrs(0, 4, 0, 2, 1));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({1, 3, 6})));
  // Unknown begin/end: only fully masked and shrunk dimensions are known.
  out = StridedSlice(*ops_, PartialShape({4, -1, 6}), nullptr, nullptr, &ones,
                     StridedSliceAttrs(1, 1, 0, 0, 2));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4, -1})));
  // Unknown strides or input rank: nothing is known.
  out = StridedSlice(*ops_, input, &begin, &end, nullptr, StridedSliceAttrs(0, 0, 0, 0, 0));
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE((*out)[0].rank_known());
}

TEST_F(ArraySliceOpsTest, StridedSliceRejectsBadSpecs) {
  const PartialShape input({4, 5});
  Tensor zeros = Tensor::Vector<int32_t>({0, 0});
  Tensor ones = Tensor::Vector<int32_t>({1, 1});
  Tensor zero_stride = Tensor::Vector<int32_t>({1, 0});
  ExpectError(
      StridedSlice(*ops_, input, &zeros, &ones, &zero_stride, StridedSliceAttrs(0, 0, 0, 0, 0)),
      "StridedSlice: strides[1] must be non-zero");
  ExpectError(StridedSlice(*ops_, input, &zeros, &ones, &ones, StridedSliceAttrs(0, 0, 3, 0, 0)),
              "Multiple ellipses in slice spec not allowed");
  Tensor far = Tensor::Vector<int32_t>({0, 7});
  ExpectError(StridedSlice(*ops_, input, &far, &ones, &ones, StridedSliceAttrs(0, 0, 0, 0, 2)),
              "slice index 7 of dimension 1 out of bounds.");
  Tensor backward = Tensor::Vector<int32_t>({1, -1});
  ExpectError(
      StridedSlice(*ops_, input, &zeros, &ones, &backward, StridedSliceAttrs(0, 0, 0, 0, 2)),
      "only stride 1 allowed on non-range indexing.");
  Tensor three = Tensor::Vector<int32_t>({1, 1, 1});
  ExpectError(StridedSlice(*ops_, input, &three, &three, &three, StridedSliceAttrs(0, 0, 0, 0, 0)),
              "Index out of range using input dim 2; input has only 2 dims");
  Tensor nine = Tensor::Vector<int32_t>({0, 0, 0, 0, 0, 0, 0, 0, 0});
  Tensor nine_ones = Tensor::Vector<int32_t>({1, 1, 1, 1, 1, 1, 1, 1, 1});
  ExpectError(
      StridedSlice(*ops_, input, &nine, &nine, &nine_ones, StridedSliceAttrs(0, 0, 0, 0x7f, 0)),
      "the result has rank 9, above the maximum 8");
  ExpectError(InferShapes(*ops_, "StridedSlice", StridedSliceAttrs(0, 0, 0, 0, 0),
                          {input, PartialShape({2}), PartialShape({3}), PartialShape({2})}),
              "dimension 0 in both shapes must be equal, but are 2 and 3");
}

constexpr char kSplitAttrs[] = R"(attr { key: "T" value { type: DT_FLOAT } }
                                  attr { key: "num_split" value { i: 3 } })";

TEST_F(ArraySliceOpsTest, SplitDividesOneDimension) {
  Tensor dim = Tensor::Scalar<int32_t>(-1);
  auto out = InferShapes(*ops_, "Split", kSplitAttrs,
                         {PartialShape::Scalar(), PartialShape({2, 6})}, {&dim, nullptr});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 2}), PartialShape({2, 2}), PartialShape({2, 2})));
  out = InferShapes(*ops_, "Split", kSplitAttrs, {PartialShape::Scalar(), PartialShape({2, 6})});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[2], PartialShape({-1, -1}));
  Tensor zero = Tensor::Scalar<int32_t>(0);
  ExpectError(InferShapes(*ops_, "Split", kSplitAttrs,
                          {PartialShape::Scalar(), PartialShape({4, 6})}, {&zero, nullptr}),
              "Number of ways to split should evenly divide the split dimension, but got "
              "split_dim 0 (size = 4) and num_split 3");
  Tensor far = Tensor::Scalar<int32_t>(2);
  ExpectError(InferShapes(*ops_, "Split", kSplitAttrs,
                          {PartialShape::Scalar(), PartialShape({4, 6})}, {&far, nullptr}),
              "-input rank(-2) <= split_dim < input rank (2), but got 2");
}

constexpr char kSplitVAttrs[] = R"(attr { key: "T" value { type: DT_FLOAT } }
                                   attr { key: "num_split" value { i: 3 } })";

TEST_F(ArraySliceOpsTest, SplitVUsesTheSizes) {
  Tensor sizes = Tensor::Vector<int64_t>({1, -1, 2});
  Tensor dim = Tensor::Scalar<int32_t>(1);
  const std::vector<PartialShape> shapes = {PartialShape({5, 6}), PartialShape({3}),
                                            PartialShape::Scalar()};
  auto out = InferShapes(*ops_, "SplitV", kSplitVAttrs, shapes, {nullptr, &sizes, &dim});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({5, 1}), PartialShape({5, 3}), PartialShape({5, 2})));
  Tensor int8_sizes(TSR_DTYPE_INT8, TensorShape{3});
  for (int i = 0; i < 3; ++i) int8_sizes.data<int8_t>()[i] = static_cast<int8_t>(2);
  out = InferShapes(*ops_, "SplitV",
                    absl::StrCat(kSplitVAttrs, R"( attr { key: "Tlen" value { type: DT_INT8 } })"),
                    shapes, {nullptr, &int8_sizes, &dim});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({5, 2}), PartialShape({5, 2}), PartialShape({5, 2})));
  out = InferShapes(*ops_, "SplitV", kSplitVAttrs, shapes, {nullptr, nullptr, &dim});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0], PartialShape({5, -1}));
  const tensorflow::OpDef& def = ops_->Find("SplitV")->op_def;
  EXPECT_EQ(def.attr(2).name(), "Tlen");
  EXPECT_EQ(def.attr(2).default_value().type(), tensorflow::DT_INT64);
  EXPECT_EQ(def.attr(2).allowed_values().list().type_size(), 3);
}

TEST_F(ArraySliceOpsTest, SplitVRejectsBadSizes) {
  Tensor dim = Tensor::Scalar<int32_t>(0);
  const std::vector<PartialShape> shapes = {PartialShape({6}), PartialShape({3}),
                                            PartialShape::Scalar()};
  Tensor two_wildcards = Tensor::Vector<int64_t>({-1, -1, 2});
  ExpectError(InferShapes(*ops_, "SplitV", kSplitVAttrs, shapes, {nullptr, &two_wildcards, &dim}),
              "size_splits can only have one -1");
  Tensor huge_sizes = Tensor::Vector<int64_t>({std::numeric_limits<int64_t>::max(), 2, 2});
  ExpectError(InferShapes(*ops_, "SplitV", kSplitVAttrs, shapes, {nullptr, &huge_sizes, &dim}),
              "size_splits [9223372036854775807,2,2] add up to more than 64 bits hold");
  Tensor short_sizes = Tensor::Vector<int64_t>({1, 2, 2});
  ExpectError(InferShapes(*ops_, "SplitV", kSplitVAttrs, shapes, {nullptr, &short_sizes, &dim}),
              "can't split axis of size 6 into pieces of size [1,2,2]");
  Tensor two = Tensor::Vector<int64_t>({3, 3});
  ExpectError(InferShapes(*ops_, "SplitV", kSplitVAttrs,
                          {PartialShape({6}), PartialShape({2}), PartialShape::Scalar()},
                          {nullptr, &two, &dim}),
              "Length of size_splits should be equal to num_outputs");
  ExpectError(InferShapes(*ops_, "SplitV", kSplitVAttrs,
                          {PartialShape::Scalar(), PartialShape({3}), PartialShape::Scalar()}),
              "Can't split scalars");
  Tensor negative = Tensor::Vector<int64_t>({-2, 4, 4});
  ExpectError(InferShapes(*ops_, "SplitV", kSplitVAttrs, shapes, {nullptr, &negative, &dim}),
              "size_splits must be >= 0 or -1, got -2");
}

TEST_F(ArraySliceOpsTest, UnpackRemovesTheAxis) {
  constexpr char kAttrs[] = R"(attr { key: "T" value { type: DT_FLOAT } }
                               attr { key: "num" value { i: 3 } }
                               attr { key: "axis" value { i: -2 } })";
  auto out = InferShapes(*ops_, "Unpack", kAttrs, {PartialShape({2, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({2, 4}), PartialShape({2, 4}), PartialShape({2, 4})));
  out = InferShapes(*ops_, "Unpack", kAttrs, {PartialShape::Unknown()});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE((*out)[1].rank_known());
  ExpectError(InferShapes(*ops_, "Unpack", kAttrs, {PartialShape({2, 4, 4})}),
              "dimension 1 of the value has size 4, but num is 3");
  ExpectError(InferShapes(*ops_, "Unpack", kAttrs, {PartialShape({3})}),
              "Invalid axis: -2; must be in [-1,1)");
  EXPECT_EQ(ops_->Find("Unpack")->op_def.attr(0).minimum(), 0);
}

}  // namespace
}  // namespace tessera
