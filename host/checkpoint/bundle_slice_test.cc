// Tensors saved in slices (partitioned variables) and read whole, in part, or across slices.
#include <numeric>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/checkpoint/bundle_test_util.h"
#include "host/checkpoint/bundle_writer.h"

namespace tessera {
namespace checkpoint {
namespace {

using ::testing::HasSubstr;
using testing_util::TestDir;

// A [6,4] float tensor holding 0..23.
Tensor FullValue() {
  std::vector<float> values(24);
  std::iota(values.begin(), values.end(), 0.0f);
  return Tensor::FromVector<float>({6, 4}, values);
}

// The rows [begin, end) of FullValue(), columns [cbegin, cend).
Tensor Part(int begin, int end, int cbegin = 0, int cend = 4) {
  std::vector<float> values;
  for (int r = begin; r < end; ++r) {
    for (int c = cbegin; c < cend; ++c) values.push_back(static_cast<float>(r * 4 + c));
  }
  return Tensor::FromVector<float>({end - begin, cend - cbegin}, values);
}

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

class BundleSliceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    prefix_ = TestDir() + "/sliced";
    auto writer = BundleWriter::Create(prefix_);
    ASSERT_TRUE(writer.ok());
    const TensorShape full{6, 4};
    // Rows 0-1, rows 2-5 split by columns, as two partitioners might have saved them.
    ASSERT_TRUE((*writer)->AddSlice("w", full, TensorSlice{{0, 2}, {0, -1}}, Part(0, 2)).ok());
    ASSERT_TRUE((*writer)->AddSlice("w", full, TensorSlice{{2, 4}, {0, 2}}, Part(2, 6, 0, 2)).ok());
    ASSERT_TRUE((*writer)->AddSlice("w", full, TensorSlice{{2, 4}, {2, 2}}, Part(2, 6, 2, 4)).ok());
    ASSERT_TRUE((*writer)->Add("whole", FullValue()).ok());
    // A slice covering everything is stored as a plain tensor.
    ASSERT_TRUE(
        (*writer)->AddSlice("covered", full, TensorSlice{{0, 6}, {0, 4}}, FullValue()).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
    auto reader = BundleReader::Open(prefix_);
    ASSERT_TRUE(reader.ok()) << reader.status();
    reader_ = *std::move(reader);
  }

  std::string prefix_;
  std::unique_ptr<BundleReader> reader_;
};

TEST_F(BundleSliceTest, KeysHideTheSliceEntries) {
  EXPECT_EQ(reader_->Keys(), (std::vector<std::string>{"covered", "w", "whole"}));
  absl::StatusOr<std::vector<TensorSlice>> slices = reader_->LookupTensorSlices("w");
  ASSERT_TRUE(slices.ok());
  ASSERT_EQ(slices->size(), 3u);
  EXPECT_EQ((*slices)[0].ToString(), "0,2:-");
  EXPECT_EQ((*slices)[1].ToString(), "2,4:0,2");
  slices = reader_->LookupTensorSlices("covered");
  ASSERT_TRUE(slices.ok());
  EXPECT_TRUE(slices->empty());
  DataType dtype;
  TensorShape shape;
  ASSERT_TRUE(reader_->LookupDtypeAndShape("w", &dtype, &shape).ok());
  EXPECT_EQ(dtype, TSR_DTYPE_FLOAT);
  EXPECT_EQ(shape, (TensorShape{6, 4}));
}

TEST_F(BundleSliceTest, RestoresTheFullTensorFromSlices) {
  for (const char* key : {"w", "whole", "covered"}) {
    absl::StatusOr<Tensor> full = reader_->Lookup(key);
    ASSERT_TRUE(full.ok()) << full.status();
    EXPECT_EQ(full->shape(), (TensorShape{6, 4}));
    EXPECT_EQ(Values(*full), Values(FullValue())) << key;
  }
}

TEST_F(BundleSliceTest, RestoresPartsAsRestoreV2Does) {
  struct Case {
    const char* spec;
    Tensor expected;
  };
  const std::vector<Case> cases = {
      {"6 4 0,2:-", Part(0, 2)},          // exactly a stored slice
      {"6 4 2,4:2,2", Part(2, 6, 2, 4)},  // exactly another
      {"6 4 1,3:-", Part(1, 4)},          // across three stored slices
      {"6 4 3,2:1,2", Part(3, 5, 1, 3)},  // across two, partial in both dimensions
      {"6 4 -:3,1", Part(0, 6, 3, 4)},    // one column
      {"6 4 -:-", FullValue()},           // everything
  };
  for (const char* key : {"w", "whole"}) {
    for (const Case& c : cases) {
      absl::StatusOr<Tensor> part = reader_->LookupShapeAndSlice(key, c.spec);
      ASSERT_TRUE(part.ok()) << key << " " << c.spec << ": " << part.status();
      EXPECT_EQ(part->shape(), c.expected.shape()) << key << " " << c.spec;
      EXPECT_EQ(Values(*part), Values(c.expected)) << key << " " << c.spec;
    }
  }
  absl::StatusOr<Tensor> whole = reader_->LookupShapeAndSlice("w", "");
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(Values(*whole), Values(FullValue()));
}

TEST_F(BundleSliceTest, RejectsRequestsThatDoNotFit) {
  absl::StatusOr<Tensor> part = reader_->LookupShapeAndSlice("w", "6 5 0,2:-");
  EXPECT_EQ(part.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(part.status().message(),
              HasSubstr("tensor_name = w; shape in shape_and_slice spec [6,5] ('6 5 0,2:-') "
                        "does not match the shape stored"));
  part = reader_->LookupSlice("w", TensorSlice{{5, 2}, {0, -1}});
  EXPECT_EQ(part.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(part.status().message(), HasSubstr("cannot read a slice of tensor 'w'"));
  EXPECT_THAT(part.status().message(), HasSubstr("ends past 6"));
  part = reader_->LookupSlice("whole", TensorSlice{{0, 1}});
  EXPECT_EQ(part.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(part.status().message(), HasSubstr("has rank 1 but the tensor shape [6,4]"));
  part = reader_->LookupShapeAndSlice("w", "6 4 x");
  EXPECT_EQ(part.status().code(), absl::StatusCode::kInvalidArgument);
  part = reader_->LookupSlice("absent", TensorSlice{{0, 1}});
  EXPECT_EQ(part.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(part.status().message(), HasSubstr("Key absent not found in checkpoint"));
}

TEST(BundleSliceWriterTest, ReportsMissingCoverage) {
  const std::string prefix = TestDir() + "/partial";
  {
    auto writer = BundleWriter::Create(prefix);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(
        (*writer)->AddSlice("w", TensorShape{6, 4}, TensorSlice{{0, 2}, {0, -1}}, Part(0, 2)).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  absl::StatusOr<Tensor> full = (*reader)->Lookup("w");
  EXPECT_EQ(full.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(full.status().message(),
              HasSubstr("does not have sufficient slices of partitioned tensor 'w' to restore "
                        "slice '-:-' (stored slices: 0,2:-)"));
  absl::StatusOr<Tensor> part = (*reader)->LookupShapeAndSlice("w", "6 4 1,1:1,2");
  ASSERT_TRUE(part.ok()) << part.status();
  EXPECT_EQ(Values(*part), Values(Part(1, 2, 1, 3)));
}

TEST(BundleSliceWriterTest, RejectsInconsistentSlices) {
  auto writer = BundleWriter::Create(TestDir() + "/bad");
  ASSERT_TRUE(writer.ok());
  BundleWriter& w = **writer;
  const TensorShape full{6, 4};
  ASSERT_TRUE(w.AddSlice("w", full, TensorSlice{{0, 2}, {0, -1}}, Part(0, 2)).ok());
  struct Case {
    absl::Status status;
    const char* message;
  };
  const std::vector<Case> cases = {
      {w.AddSlice("w", full, TensorSlice{{1, 2}, {0, -1}}, Part(1, 3)),
       "slice '1,2:-' of tensor 'w' overlaps the slice '0,2:-' added before"},
      {w.AddSlice("w", TensorShape{7, 4}, TensorSlice{{2, 2}, {0, -1}}, Part(2, 4)),
       "has full shape [7,4] but earlier slices have full shape [6,4]"},
      {w.AddSlice("w", full, TensorSlice{{2, 2}, {0, -1}},
                  Tensor::FromVector<int32_t>({2, 4}, std::vector<int32_t>(8))),
       "has dtype int32 but earlier slices have dtype float"},
      {w.AddSlice("w", full, TensorSlice{{2, 2}, {0, -1}}, Part(2, 3)),
       "has shape [2,4] but the value given has shape [1,4]"},
      {w.AddSlice("w", full, TensorSlice{{5, 2}, {0, -1}}, Part(5, 6)),
       "while saving a slice of 'w': slice '5,2:-' does not fit the tensor shape [6,4]"},
      {w.AddSlice("w", full, TensorSlice{{2, 2}}, Part(2, 4)), "has rank 1"},
      {w.AddSlice("", full, TensorSlice{{2, 2}, {0, -1}}, Part(2, 4)), "empty key"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.status.code(), absl::StatusCode::kInvalidArgument) << c.status;
    EXPECT_THAT(c.status.message(), HasSubstr(c.message));
  }
  ASSERT_TRUE(w.Add("plain", FullValue()).ok());
  absl::Status status = w.AddSlice("plain", full, TensorSlice{{0, 2}, {0, -1}}, Part(0, 2));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("tensor 'plain' was already added whole"));
  status = w.Add("w", FullValue());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("tensor 'w' was already added"));
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera
