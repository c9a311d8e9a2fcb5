// Round trips through BundleWriter and BundleReader: every dtype and shape, large tensors, large
// indexes, key order, the files left behind, and the writer's argument errors.
#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/checkpoint/bundle_test_util.h"
#include "host/checkpoint/bundle_writer.h"

namespace tessera {
namespace checkpoint {
namespace {

using ::testing::HasSubstr;
using testing_util::RandomTensor;
using testing_util::SameTensor;
using testing_util::TestDir;

constexpr DataType kAllDtypes[] = {
    TSR_DTYPE_FLOAT,  TSR_DTYPE_DOUBLE,     TSR_DTYPE_INT32,    TSR_DTYPE_UINT8,  TSR_DTYPE_INT16,
    TSR_DTYPE_INT8,   TSR_DTYPE_COMPLEX64,  TSR_DTYPE_INT64,    TSR_DTYPE_BOOL,   TSR_DTYPE_QINT8,
    TSR_DTYPE_QUINT8, TSR_DTYPE_QINT32,     TSR_DTYPE_BFLOAT16, TSR_DTYPE_QINT16, TSR_DTYPE_QUINT16,
    TSR_DTYPE_UINT16, TSR_DTYPE_COMPLEX128, TSR_DTYPE_HALF,     TSR_DTYPE_UINT32, TSR_DTYPE_UINT64,
};

std::unique_ptr<BundleReader> OpenOrDie(const std::string& prefix) {
  absl::StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(prefix);
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? *std::move(reader) : nullptr;
}

TEST(BundleTest, RoundTripsEveryDtypeAndShape) {
  const std::string prefix = TestDir() + "/model.ckpt";
  const std::vector<TensorShape> shapes = {{}, {0}, {7}, {2, 3}, {3, 0, 2}, {2, 1, 3, 2}};
  std::map<std::string, Tensor> saved;
  {
    auto writer = BundleWriter::Create(prefix);
    ASSERT_TRUE(writer.ok()) << writer.status();
    uint32_t seed = 1;
    for (DataType dtype : kAllDtypes) {
      for (size_t s = 0; s < shapes.size(); ++s) {
        const std::string key = absl::StrFormat("%s/shape%d", DataTypeString(dtype), s);
        Tensor value = RandomTensor(dtype, shapes[s], seed++);
        ASSERT_TRUE((*writer)->Add(key, value).ok()) << key;
        saved.emplace(key, value);
      }
    }
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  std::unique_ptr<BundleReader> reader = OpenOrDie(prefix);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->num_shards(), 1);
  std::vector<std::string> expected_keys;
  for (const auto& [key, value] : saved) expected_keys.push_back(key);
  EXPECT_EQ(reader->Keys(), expected_keys);
  for (const auto& [key, value] : saved) {
    DataType dtype;
    TensorShape shape;
    ASSERT_TRUE(reader->LookupDtypeAndShape(key, &dtype, &shape).ok());
    EXPECT_EQ(dtype, value.dtype());
    EXPECT_EQ(shape, value.shape());
    absl::StatusOr<Tensor> read = reader->Lookup(key);
    ASSERT_TRUE(read.ok()) << key << ": " << read.status();
    EXPECT_TRUE(SameTensor(*read, value)) << key;
    EXPECT_TRUE(reader->Contains(key));
  }
  EXPECT_FALSE(reader->Contains("nope"));
  EXPECT_FALSE(reader->Contains(""));
}

TEST(BundleTest, LeavesOnlyTheFinalFiles) {
  const std::string dir = TestDir();
  const std::string prefix = dir + "/sub/dir/ckpt";  // missing directories are created
  auto writer = BundleWriter::Create(prefix);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Add("x", Tensor::Scalar<float>(1.5f)).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/sub/dir")) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ckpt.data-00000-of-00001", "ckpt.index"}));
}

TEST(BundleTest, AbandonedWriterRemovesItsTemporaryFile) {
  const std::string dir = TestDir();
  {
    auto writer = BundleWriter::Create(dir + "/ckpt");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Add("x", Tensor::Scalar<int32_t>(3)).ok());
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(BundleTest, RoundTripsTensorsLargerThanTheWriteBuffer) {
  const std::string prefix = TestDir() + "/big";
  const Tensor big = RandomTensor(TSR_DTYPE_FLOAT, TensorShape{3, 1000, 1000}, 7);  // 12 MB
  const Tensor small = RandomTensor(TSR_DTYPE_INT8, TensorShape{5}, 8);
  {
    auto writer = BundleWriter::Create(prefix);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Add("small_before", small).ok());
    ASSERT_TRUE((*writer)->Add("big", big).ok());
    ASSERT_TRUE((*writer)->Add("small_after", small).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  std::unique_ptr<BundleReader> reader = OpenOrDie(prefix);
  ASSERT_NE(reader, nullptr);
  for (const char* key : {"small_before", "small_after"}) {
    absl::StatusOr<Tensor> read = reader->Lookup(key);
    ASSERT_TRUE(read.ok());
    EXPECT_TRUE(SameTensor(*read, small));
  }
  absl::StatusOr<Tensor> read = reader->Lookup("big");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(SameTensor(*read, big));
}

TEST(BundleTest, ManyKeysGiveAnIndexOfManyBlocksInKeyOrder) {
  const std::string prefix = TestDir() + "/many";
  std::vector<std::string> keys;
  for (int i = 0; i < 20000; ++i) {
    keys.push_back(absl::StrFormat("model/block_%03d/layer_%02d/dense/kernel/.ATTRIBUTES/value",
                                   i / 100, i % 100));
  }
  std::vector<std::string> shuffled = keys;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(42));
  {
    auto writer = BundleWriter::Create(prefix);
    ASSERT_TRUE(writer.ok());
    std::map<std::string, int64_t> ids;
    for (size_t i = 0; i < keys.size(); ++i) ids[keys[i]] = static_cast<int64_t>(i);
    for (const std::string& key : shuffled) {
      ASSERT_TRUE((*writer)->Add(key, Tensor::Scalar<int64_t>(ids[key])).ok());
    }
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  // More than TensorFlow's 256 KiB block size, so the index has several data blocks.
  EXPECT_GT(std::filesystem::file_size(MetaFilename(prefix)), 3u * 262144u);
  std::unique_ptr<BundleReader> reader = OpenOrDie(prefix);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->Keys(), keys);  // byte order, not the order added
  for (int i : {0, 1, 9999, 19999}) {
    absl::StatusOr<Tensor> read = reader->Lookup(keys[i]);
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(*read->data<int64_t>(), i);
  }
}

TEST(BundleTest, KeysSortAsBytes) {
  const std::string prefix = TestDir() + "/order";
  const std::vector<std::string> keys = {"B", "a", "\xc3\xa9", "a/b", "a0", "_"};
  {
    auto writer = BundleWriter::Create(prefix);
    ASSERT_TRUE(writer.ok());
    for (const std::string& key : keys) {
      ASSERT_TRUE((*writer)->Add(key, Tensor::Scalar<uint8_t>(1)).ok());
    }
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  std::unique_ptr<BundleReader> reader = OpenOrDie(prefix);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->Keys(), (std::vector<std::string>{"B", "_", "a", "a/b", "a0", "\xc3\xa9"}));
}

TEST(BundleTest, WriterRejectsBadArguments) {
  const std::string prefix = TestDir() + "/bad";
  auto writer = BundleWriter::Create(prefix);
  ASSERT_TRUE(writer.ok());
  BundleWriter& w = **writer;
  ASSERT_TRUE(w.Add("x", Tensor::Scalar<float>(1)).ok());

  absl::Status status = w.Add("x", Tensor::Scalar<float>(2));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("tensor 'x' was already added"));

  status = w.Add("", Tensor::Scalar<float>(2));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("empty key, which holds the checkpoint header"));

  status = w.Add("uninit", Tensor());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("tensor 'uninit' is uninitialized"));

  status = w.Add("str", Tensor(TSR_DTYPE_STRING, TensorShape{2}, nullptr));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("string tensor 'str' of shape [2] has no buffer"));

  status = w.Add("handle", Tensor(TSR_DTYPE_RESOURCE, TensorShape{}, nullptr));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("cannot save tensor 'handle' of dtype resource"));

  // Argument errors do not poison the writer.
  ASSERT_TRUE(w.Add("y", Tensor::Scalar<float>(3)).ok());
  ASSERT_TRUE(w.Finish().ok());
  status = w.Add("z", Tensor::Scalar<float>(3));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("is already finished"));
  status = w.Finish();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("is already finished"));
  std::unique_ptr<BundleReader> reader = OpenOrDie(prefix);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->Keys(), (std::vector<std::string>{"x", "y"}));
}

TEST(BundleTest, CreateReportsUnwritableLocations) {
  const std::string dir = TestDir();
  testing_util::WriteFileBytes(dir + "/file", "x");
  absl::StatusOr<std::unique_ptr<BundleWriter>> writer = BundleWriter::Create(dir + "/file/ckpt");
  ASSERT_FALSE(writer.ok());
  EXPECT_THAT(writer.status().message(), HasSubstr(dir + "/file"));
  writer = BundleWriter::Create("");
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(writer.status().message(), HasSubstr("checkpoint prefix is empty"));
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera
