// Tests of the checkpoint file helpers and of the small format helpers in bundle_format.h.
#include "host/checkpoint/file_io.h"

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_test_util.h"

namespace tessera {
namespace checkpoint {
namespace {

using ::testing::HasSubstr;
using testing_util::TestDir;

TEST(FileIoTest, ReadsAreBoundsChecked) {
  std::unique_ptr<RandomAccessFile> file = NewMemoryFile("mem", "abcdef");
  char buf[8] = {};
  ASSERT_TRUE(file->Read(2, 3, buf).ok());
  EXPECT_EQ(std::string(buf, 3), "cde");
  absl::Status status = file->Read(4, 3, buf);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("read of bytes [4, 7) is past the end of 'mem' (6"));
  status = file->Read(~uint64_t{0}, 2, buf);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
}

TEST(FileIoTest, LocalFilesReportMissingAndOddPaths) {
  const std::string dir = TestDir();
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file = OpenLocalFile(dir + "/missing");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(file.status().message(), HasSubstr("cannot open '" + dir + "/missing'"));
  file = OpenLocalFile(dir);
  EXPECT_EQ(file.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(file.status().message(), HasSubstr("is not a regular file"));

  testing_util::WriteFileBytes(dir + "/f", "hello");
  file = OpenLocalFile(dir + "/f");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ((*file)->size(), 5u);
  char buf[5];
  ASSERT_TRUE((*file)->Read(0, 5, buf).ok());
  EXPECT_EQ(std::string(buf, 5), "hello");
  EXPECT_EQ((*file)->Read(3, 5, buf).code(), absl::StatusCode::kDataLoss);

  absl::Status status = RenameFile(dir + "/missing", dir + "/other");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("cannot rename to '" + dir + "/other'"));
  EXPECT_TRUE(RemoveFile(dir + "/missing").ok());
  status = CreateDirectories(dir + "/f/sub");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("cannot create directory '" + dir + "/f/sub'"));
  absl::StatusOr<std::unique_ptr<WritableFile>> out = WritableFile::Create(dir + "/no/such/file");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(out.status().message(), HasSubstr("cannot create '" + dir + "/no/such/file'"));
}

TEST(FileIoTest, WriteFailuresAreReported) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "skipped: no /dev/full";
  absl::StatusOr<std::unique_ptr<WritableFile>> out = WritableFile::Create("/dev/full");
  ASSERT_TRUE(out.ok()) << out.status();
  absl::Status status = (*out)->Append(std::string(size_t{9} << 20, 'x'));  // written directly
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("cannot write '/dev/full'"));
  ASSERT_TRUE((*out)->Append("small").ok());  // buffered
  status = (*out)->Close();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  status = (*out)->Append("more");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("'/dev/full' is closed"));
}

TEST(FileIoTest, DirnameSplitsAtTheLastSlash) {
  EXPECT_EQ(Dirname("a/b/c"), "a/b");
  EXPECT_EQ(Dirname("/c"), "/");
  EXPECT_EQ(Dirname("c"), "");
}

TEST(BundleFormatTest, NamesFilesAsTensorFlow) {
  EXPECT_EQ(MetaFilename("/tmp/model.ckpt-10"), "/tmp/model.ckpt-10.index");
  EXPECT_EQ(DataFilename("/tmp/m", 0, 1), "/tmp/m.data-00000-of-00001");
  EXPECT_EQ(DataFilename("m", 12, 345), "m.data-00012-of-00345");
  // The header TensorFlow writes: num_shards 1, LITTLE (the default, not written), version 1.
  EXPECT_EQ(MakeHeader(1).SerializeAsString(), std::string("\x08\x01\x1a\x02\x08\x01", 6));
}

TEST(BundleFormatTest, ValidatesStoredShapesAndNamesDtypes) {
  tensorflow::TensorShapeProto proto;
  for (int i = 0; i < 255; ++i) proto.add_dim()->set_size(1);
  absl::StatusOr<TensorShape> shape = ShapeFromProto(proto);
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(shape.status().message(), HasSubstr("shape has rank 255, above 254"));
  proto.mutable_dim()->RemoveLast();
  EXPECT_TRUE(ShapeFromProto(proto).ok());

  EXPECT_EQ(StoredDtypeName(1), "float");
  EXPECT_EQ(StoredDtypeName(101), "DT_FLOAT_REF");
  EXPECT_EQ(StoredDtypeName(12345), "unknown dtype 12345");
  EXPECT_TRUE(CheckSupportedDtype(TSR_DTYPE_BFLOAT16, "k").ok());
  absl::Status status = CheckSupportedDtype(TSR_DTYPE_RESOURCE, "k");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("tensor 'k' has dtype resource"));
}

TEST(BundleFormatTest, SwapsBytesPerElementAndPerComplexComponent) {
  std::string bytes("\x01\x02\x03\x04\x05\x06\x07\x08", 8);
  ByteSwapElements(TSR_DTYPE_INT32, bytes.data(), bytes.size());
  EXPECT_EQ(bytes, std::string("\x04\x03\x02\x01\x08\x07\x06\x05", 8));
  ByteSwapElements(TSR_DTYPE_COMPLEX64, bytes.data(), bytes.size());
  EXPECT_EQ(bytes, std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  ByteSwapElements(TSR_DTYPE_INT8, bytes.data(), bytes.size());
  EXPECT_EQ(bytes, std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera

namespace tessera {
namespace checkpoint {
namespace {

TEST(FileIoTest, RemoveEmptyDirectoryAndFileExists) {
  const std::string dir = testing_util::TestDir();
  EXPECT_TRUE(FileExists(dir));
  EXPECT_FALSE(FileExists(dir + "/nothing"));
  ASSERT_TRUE(CreateDirectories(dir + "/a/b").ok());
  absl::Status status = RemoveEmptyDirectory(dir + "/a");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("it is not empty"), std::string::npos);
  EXPECT_TRUE(RemoveEmptyDirectory(dir + "/a/b").ok());
  EXPECT_TRUE(RemoveEmptyDirectory(dir + "/a").ok());
  EXPECT_FALSE(FileExists(dir + "/a"));
  status = RemoveEmptyDirectory(dir + "/a");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(status.message().find("cannot remove directory"), std::string::npos);
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera
