// Tests of TensorSlice: string form, validation, geometry, shape_and_slice specs, slice keys.
#include "host/checkpoint/tensor_slice.h"

#include <numeric>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace checkpoint {
namespace {

using ::testing::HasSubstr;

TEST(TensorSliceTest, ParsesAndFormatsTensorFlowsStringForm) {
  for (const char* spec : {"-", "0,2", "-:0,2:-", "1,3:-:5,7", ""}) {
    absl::StatusOr<TensorSlice> slice = TensorSlice::Parse(spec);
    ASSERT_TRUE(slice.ok()) << slice.status();
    EXPECT_EQ(slice->ToString(), spec);
  }
  absl::StatusOr<TensorSlice> slice = TensorSlice::Parse("-:1,3");
  ASSERT_TRUE(slice.ok());
  EXPECT_EQ(slice->rank(), 2);
  EXPECT_TRUE(slice->IsFullAt(0));
  EXPECT_EQ(slice->start(1), 1);
  EXPECT_EQ(slice->length(1), 3);
  EXPECT_FALSE(slice->IsFull());
  EXPECT_TRUE(TensorSlice::Full(3).IsFull());
}

TEST(TensorSliceTest, RejectsBadSpecs) {
  struct Case {
    const char* spec;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"abc", "expected '-' or 'start,length' but got 'abc'"},
           {"0,1,2", "expected '-' or 'start,length'"},
           {"0", "expected '-' or 'start,length'"},
           {"-1,2", "non-negative start and a positive length but got start = -1"},
           {"0,0", "got start = 0, length = 0"},
           {"3,-1", "length = -1"},
           {"9223372036854775807,1", "start = 9223372036854775807"},
       }) {
    absl::StatusOr<TensorSlice> slice = TensorSlice::Parse(c.spec);
    ASSERT_FALSE(slice.ok()) << c.spec;
    EXPECT_EQ(slice.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(slice.status().message(), HasSubstr(c.message)) << c.spec;
  }
}

TEST(TensorSliceTest, ProtoRoundTripWritesWholeDimensionsAsEmptyExtents) {
  const TensorSlice slice{{0, -1}, {2, 3}, {0, 4}};
  tensorflow::TensorSliceProto proto;
  slice.ToProto(&proto);
  ASSERT_EQ(proto.extent_size(), 3);
  EXPECT_EQ(proto.extent(0).SerializeAsString(), "");
  EXPECT_EQ(proto.extent(1).start(), 2);
  EXPECT_EQ(proto.extent(1).length(), 3);
  // Start 0 is proto3's default and is not written; the length is (it sits in a oneof).
  EXPECT_EQ(proto.extent(2).SerializeAsString(), std::string("\x10\x04", 2));
  absl::StatusOr<TensorSlice> back = TensorSlice::FromProto(proto);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, slice);
}

TEST(TensorSliceTest, FromProtoRejectsBadExtents) {
  tensorflow::TensorSliceProto proto;
  proto.add_extent()->set_start(3);  // a start without a length
  absl::StatusOr<TensorSlice> slice = TensorSlice::FromProto(proto);
  ASSERT_FALSE(slice.ok());
  EXPECT_EQ(slice.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(slice.status().message(), HasSubstr("start = 3, length = -1"));
  proto.mutable_extent(0)->set_length(std::numeric_limits<int64_t>::max());
  slice = TensorSlice::FromProto(proto);
  ASSERT_FALSE(slice.ok());
  EXPECT_THAT(slice.status().message(), HasSubstr("bad tensor slice extent"));
}

TEST(TensorSliceTest, SliceShapeChecksRankAndBounds) {
  const TensorShape full{4, 5};
  absl::StatusOr<TensorShape> shape = TensorSlice{{1, 2}, {0, -1}}.SliceShape(full);
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(*shape, (TensorShape{2, 5}));
  shape = TensorSlice{{1, 2}}.SliceShape(full);
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(shape.status().message(), HasSubstr("has rank 1 but the tensor shape [4,5]"));
  shape = TensorSlice{{3, 2}, {0, -1}}.SliceShape(full);
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(shape.status().message(), HasSubstr("extent 3,2 of dimension 0 ends past 4"));
  EXPECT_TRUE((TensorSlice{{0, 4}, {0, -1}}).CoversShape(full));
  EXPECT_FALSE((TensorSlice{{0, 3}, {0, -1}}).CoversShape(full));
}

TEST(TensorSliceTest, IntersectsLikeTensorFlow) {
  const TensorSlice a{{0, 4}, {0, -1}};
  const TensorSlice b{{2, 4}, {1, 2}};
  TensorSlice common;
  ASSERT_TRUE(a.Intersect(b, &common));
  EXPECT_EQ(common.ToString(), "2,2:1,2");
  EXPECT_FALSE((TensorSlice{{0, 2}}).Overlaps(TensorSlice{{2, 2}}));
  EXPECT_FALSE((TensorSlice{{0, 2}}).Overlaps(TensorSlice{{0, 2}, {0, 1}}));  // ranks differ
  EXPECT_TRUE(TensorSlice::Full(2).Overlaps(b));
}

TEST(TensorSliceTest, ParsesShapeAndSliceSpecs) {
  absl::StatusOr<ShapeAndSlice> spec = ParseShapeAndSlice("4 5 0,2:-");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->full_shape, (TensorShape{4, 5}));
  EXPECT_EQ(spec->slice.ToString(), "0,2:-");
  EXPECT_EQ(spec->slice_shape, (TensorShape{2, 5}));
  EXPECT_EQ(FormatShapeAndSlice(spec->full_shape, spec->slice), "4 5 0,2:-");

  struct Case {
    const char* spec;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"4", "needs at least two space-separated parts"},
           {"4 x -", "has dimension 'x', expected a non-negative integer"},
           {"4 -3 -:-", "has dimension '-3'"},
           {"4  5 -:-", "has dimension ''"},
           {"4 5 0,5:-", "extent 0,5 of dimension 0 ends past 4"},
           {"4 5 -", "has rank 1 but the tensor shape [4,5] has rank 2"},
           {"4 5 a:-", "expected '-' or 'start,length' but got 'a'"},
           {"9223372036854775807 2 -:-", "more elements than int64 holds"},
       }) {
    absl::StatusOr<ShapeAndSlice> parsed = ParseShapeAndSlice(c.spec);
    ASSERT_FALSE(parsed.ok()) << c.spec;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << c.spec;
    EXPECT_THAT(parsed.status().message(), HasSubstr(c.message)) << c.spec;
  }
}

TEST(TensorSliceTest, SliceKeysAreTensorFlowsOrderedCode) {
  // WriteNumIncreasing(0), WriteString("w"), WriteNumIncreasing(2), then per dimension
  // WriteSignedNumIncreasing(start) and (length): a whole dimension is start 0, length -1.
  const std::string key = EncodeTensorNameSlice("w", TensorSlice{{0, -1}, {2, 3}});
  EXPECT_EQ(key, std::string("\x00"
                             "w\x00\x01"
                             "\x01\x02"
                             "\x80\x7f"
                             "\x82\x83",
                             10));
  std::string name;
  TensorSlice slice;
  ASSERT_TRUE(DecodeTensorNameSlice(key, &name, &slice).ok());
  EXPECT_EQ(name, "w");
  EXPECT_EQ(slice.ToString(), "-:2,3");

  absl::Status bad = DecodeTensorNameSlice("plain_name", &name, &slice);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("does not start with ordered-code number 0"));
  bad = DecodeTensorNameSlice(key + "x", &name, &slice);
  EXPECT_THAT(bad.message(), HasSubstr("trailing bytes"));
  bad = DecodeTensorNameSlice(std::string("\x00w\x00\x01\x08\x7f\xff\xff\xff\xff\xff\xff\xff", 13),
                              &name, &slice);
  EXPECT_THAT(bad.message(), HasSubstr("no valid rank"));
  bad = DecodeTensorNameSlice(std::string("\x00w", 2), &name, &slice);
  EXPECT_THAT(bad.message(), HasSubstr("no valid tensor name"));
  bad = DecodeTensorNameSlice(std::string("\x00w\x00\x01\x01\x01\x80\x80", 8), &name, &slice);
  EXPECT_THAT(bad.message(), HasSubstr("bad tensor slice extent"));  // length 0
  bad = DecodeTensorNameSlice(std::string("\x00w\x00\x01\x01\x01\x80\xff", 8), &name, &slice);
  EXPECT_THAT(bad.message(), HasSubstr("no valid extent 0"));
}

TEST(TensorSliceTest, CopiesIntersectionsBetweenSlices) {
  // A [4,3] tensor holding 0..11; copy the stored slice rows 1..2 into a request for columns 1..2.
  const TensorShape full{4, 3};
  std::vector<int32_t> all(12);
  std::iota(all.begin(), all.end(), 0);
  const TensorSlice stored{{1, 2}, {0, -1}};
  const std::vector<int32_t> stored_values(all.begin() + 3, all.begin() + 9);
  const TensorSlice request{{0, -1}, {1, 2}};
  std::vector<int32_t> out(8, -1);
  CopySliceIntersection(full, stored, reinterpret_cast<const char*>(stored_values.data()), request,
                        reinterpret_cast<char*>(out.data()), sizeof(int32_t));
  EXPECT_EQ(out, (std::vector<int32_t>{-1, -1, 4, 5, 7, 8, -1, -1}));
  // Disjoint slices copy nothing.
  std::vector<int32_t> untouched(3, -1);
  CopySliceIntersection(full, TensorSlice{{0, 1}, {0, -1}},
                        reinterpret_cast<const char*>(all.data()), TensorSlice{{3, 1}, {0, -1}},
                        reinterpret_cast<char*>(untouched.data()), sizeof(int32_t));
  EXPECT_EQ(untouched, (std::vector<int32_t>{-1, -1, -1}));
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera
