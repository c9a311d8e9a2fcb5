// Compatibility with TensorFlow's checkpoint format, checked against a checkpoint built byte by
// byte by an independent implementation of the published format (testdata/make_compat_vector.py:
// hand-encoded protos, ordered-code slice keys, LevelDB table blocks, bitwise CRC32C, TensorFlow's
// constants). Tessera must read those bytes, and BundleWriter must reproduce them exactly.
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/checkpoint/bundle_test_util.h"
#include "host/checkpoint/bundle_writer.h"
#include "host/checkpoint/testdata/reference_checkpoint.h"

namespace tessera {
namespace checkpoint {
namespace {

using testing_util::ReadFileBytes;
using testing_util::TestDir;
using testing_util::WriteFileBytes;

using reference::DataBytes;
using reference::IndexBytes;

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

TEST(BundleCompatTest, ReadsTheReferenceCheckpoint) {
  const std::string prefix = TestDir() + "/reference";
  WriteFileBytes(MetaFilename(prefix), IndexBytes());
  WriteFileBytes(DataFilename(prefix, 0, 1), DataBytes());
  absl::StatusOr<std::unique_ptr<BundleReader>> opened = BundleReader::Open(prefix);
  ASSERT_TRUE(opened.ok()) << opened.status();
  BundleReader& reader = **opened;
  EXPECT_EQ(reader.Keys(), (std::vector<std::string>{"counts", "dense/bias", "dense/kernel", "emb",
                                                     "global_step", "mask", "scale"}));

  absl::StatusOr<Tensor> t = reader.Lookup("global_step");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), TSR_DTYPE_INT64);
  EXPECT_EQ(t->shape(), TensorShape{});
  EXPECT_EQ(*t->data<int64_t>(), 42);

  t = reader.Lookup("dense/kernel");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), (TensorShape{2, 3}));
  EXPECT_EQ(Values<float>(*t), (std::vector<float>{0.5f, -1.0f, 2.0f, 3.25f, 0.0f, -7.5f}));

  t = reader.Lookup("dense/bias");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(Values<float>(*t), (std::vector<float>{0.125f, 0.25f, 0.375f}));

  t = reader.Lookup("mask");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), TSR_DTYPE_BOOL);
  EXPECT_EQ(Values<bool>(*t), (std::vector<bool>{true, false, false, true}));

  t = reader.Lookup("counts");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), TSR_DTYPE_INT32);
  EXPECT_EQ(t->shape(), (TensorShape{2, 0}));

  t = reader.Lookup("scale");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), TSR_DTYPE_HALF);
  EXPECT_EQ(Values<uint16_t>(*t), (std::vector<uint16_t>{0x3c00, 0xc000}));  // 1.0, -2.0

  t = reader.Lookup("emb");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), (TensorShape{4, 2}));
  EXPECT_EQ(Values<float>(*t), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  t = reader.LookupShapeAndSlice("emb", "4 2 1,2:-");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(Values<float>(*t), (std::vector<float>{3, 4, 5, 6}));
}

TEST(BundleCompatTest, WritesTheReferenceCheckpointByteForByte) {
  const std::string prefix = TestDir() + "/written";
  {
    absl::StatusOr<std::unique_ptr<BundleWriter>> created = BundleWriter::Create(prefix);
    ASSERT_TRUE(created.ok()) << created.status();
    BundleWriter& writer = **created;
    ASSERT_TRUE(writer.Add("global_step", Tensor::Scalar<int64_t>(42)).ok());
    ASSERT_TRUE(writer
                    .Add("dense/kernel",
                         Tensor::FromVector<float>({2, 3}, {0.5f, -1.0f, 2.0f, 3.25f, 0.0f, -7.5f}))
                    .ok());
    ASSERT_TRUE(writer.Add("dense/bias", Tensor::Vector<float>({0.125f, 0.25f, 0.375f})).ok());
    Tensor mask(TSR_DTYPE_BOOL, TensorShape{4});
    const bool mask_values[] = {true, false, false, true};
    std::memcpy(mask.data(), mask_values, sizeof(mask_values));
    ASSERT_TRUE(writer.Add("mask", mask).ok());
    ASSERT_TRUE(writer.Add("counts", Tensor(TSR_DTYPE_INT32, TensorShape{2, 0})).ok());
    Tensor scale(TSR_DTYPE_HALF, TensorShape{2});
    scale.data<uint16_t>()[0] = 0x3c00;
    scale.data<uint16_t>()[1] = 0xc000;
    ASSERT_TRUE(writer.Add("scale", scale).ok());
    const TensorShape emb{4, 2};
    ASSERT_TRUE(writer
                    .AddSlice("emb", emb, TensorSlice{{0, 2}, {0, -1}},
                              Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4}))
                    .ok());
    ASSERT_TRUE(writer
                    .AddSlice("emb", emb, TensorSlice{{2, 2}, {0, -1}},
                              Tensor::FromVector<float>({2, 2}, {5, 6, 7, 8}))
                    .ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  EXPECT_EQ(ReadFileBytes(DataFilename(prefix, 0, 1)), DataBytes());
  EXPECT_EQ(ReadFileBytes(MetaFilename(prefix)), IndexBytes());
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera
