// Tests of string tensors in tensor bundles: TensorFlow's layout byte for byte, round trips,
// corruption, and what slices of strings can and cannot do.
#include "host/checkpoint/bundle_strings.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/checkpoint/bundle_test_util.h"
#include "host/checkpoint/bundle_writer.h"
#include "host/checkpoint/crc32c.h"

namespace tessera {
namespace checkpoint {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_util::ReadFileBytes;
using testing_util::SameTensor;
using testing_util::TestDir;
using testing_util::WriteFileBytes;

std::string Fixed32(uint32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

TEST(BundleStringsTest, EncodesAsTensorFlowDoes) {
  const std::string long_string(300, 'L');  // length 300 = varint bytes ac 02
  Tensor t = Tensor::Strings(TensorShape{3}, {"a", "", long_string});
  uint32_t crc = 0;
  const std::string bytes = EncodeStringTensor(t, &crc);

  // Lengths as varint64, then the masked CRC32C of the lengths taken as little-endian uint32s.
  const std::string lengths_as_uint32 = Fixed32(1) + Fixed32(0) + Fixed32(300);
  const uint32_t lengths_crc = crc32c::Value(lengths_as_uint32.data(), lengths_as_uint32.size());
  const std::string checksum = Fixed32(crc32c::Mask(lengths_crc));
  const std::string expected = std::string("\x01\x00\xac\x02", 4) + checksum + "a" + long_string;
  EXPECT_EQ(bytes, expected);
  // The entry's CRC runs over the lengths (as uint32s), the checksum bytes and the strings.
  const std::string checked = lengths_as_uint32 + checksum + "a" + long_string;
  EXPECT_EQ(crc, crc32c::Value(checked.data(), checked.size()));
}

TEST(BundleStringsTest, EmptyTensorIsJustTheChecksum) {
  uint32_t crc = 0;
  const std::string bytes = EncodeStringTensor(Tensor(TSR_DTYPE_STRING, TensorShape{0}), &crc);
  EXPECT_EQ(bytes, Fixed32(crc32c::Mask(0)));
  absl::StatusOr<Tensor> back = DecodeStringTensor(bytes, TensorShape{0}, crc, false, "t");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->NumElements(), 0);
}

TEST(BundleStringsTest, RoundTripsThroughAWriterAndReader) {
  const std::string prefix = TestDir() + "/strings";
  Tensor names = Tensor::Strings(TensorShape{2, 2}, {"w", "", std::string("\0\xff", 2), "bias"});
  Tensor scalar = Tensor::Scalar<std::string>(std::string(100000, 'x'));
  Tensor empty(TSR_DTYPE_STRING, TensorShape{0, 4});
  {
    absl::StatusOr<std::unique_ptr<BundleWriter>> writer = BundleWriter::Create(prefix);
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE((*writer)->Add("names", names).ok());
    ASSERT_TRUE((*writer)->Add("scalar", scalar).ok());
    ASSERT_TRUE((*writer)->Add("empty", empty).ok());
    ASSERT_TRUE((*writer)->Add("floats", Tensor::Vector<float>({1.5f, 2.5f})).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  absl::StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  for (const auto& [key, expected] : std::vector<std::pair<std::string, Tensor>>{
           {"names", names}, {"scalar", scalar}, {"empty", empty}}) {
    absl::StatusOr<Tensor> value = (*reader)->Lookup(key);
    ASSERT_TRUE(value.ok()) << key << ": " << value.status();
    EXPECT_TRUE(SameTensor(*value, expected)) << key;
  }
  absl::StatusOr<Tensor> floats = (*reader)->Lookup("floats");
  ASSERT_TRUE(floats.ok());
  EXPECT_THAT(floats->flat<float>(), ElementsAre(1.5f, 2.5f));
  // "" in shape_and_slice reads the whole tensor, as RestoreV2 does.
  absl::StatusOr<Tensor> whole = (*reader)->LookupShapeAndSlice("names", "");
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(SameTensor(*whole, names));
}

TEST(BundleStringsTest, SlicesAreReadAsStored) {
  const std::string prefix = TestDir() + "/sliced";
  {
    absl::StatusOr<std::unique_ptr<BundleWriter>> writer = BundleWriter::Create(prefix);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)
                    ->AddSlice("vocab", TensorShape{4}, TensorSlice{{0, 2}},
                               Tensor::Strings(TensorShape{2}, {"the", "a"}))
                    .ok());
    ASSERT_TRUE((*writer)
                    ->AddSlice("vocab", TensorShape{4}, TensorSlice{{2, 2}},
                               Tensor::Strings(TensorShape{2}, {"of", "to"}))
                    .ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  absl::StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  absl::StatusOr<Tensor> second = (*reader)->LookupShapeAndSlice("vocab", "4 2,2");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_THAT(second->flat<std::string>(), ElementsAre("of", "to"));
  absl::StatusOr<Tensor> all = (*reader)->Lookup("vocab");
  EXPECT_EQ(all.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(all.status().message(), HasSubstr("cannot read slice '-' of string tensor 'vocab'"));
}

TEST(BundleStringsTest, CorruptionIsDataLoss) {
  const std::string prefix = TestDir() + "/corrupt";
  {
    absl::StatusOr<std::unique_ptr<BundleWriter>> writer = BundleWriter::Create(prefix);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Add("s", Tensor::Strings(TensorShape{2}, {"abc", "de"})).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  const std::string data_path = DataFilename(prefix, 0, 1);
  const std::string good = ReadFileBytes(data_path);
  ASSERT_EQ(good.size(), 2 + 4 + 5u);
  struct Case {
    size_t offset;
    char flip;
    const char* message;
  };
  // Byte 0 is the first length (3), bytes 2-5 the lengths' checksum, 6-10 "abcde".
  for (const Case& c : {Case{0, '\x07', "the checksum of the string lengths does not match"},
                        Case{0, '\x83', "has length 256, more than the 11 bytes stored"},
                        Case{3, '\x01', "the checksum of the string lengths does not match"},
                        Case{7, '\x20', "checksum mismatch"}}) {
    std::string bad = good;
    bad[c.offset] = static_cast<char>(bad[c.offset] ^ c.flip);
    WriteFileBytes(data_path, bad);
    absl::StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(prefix);
    ASSERT_TRUE(reader.ok());
    absl::StatusOr<Tensor> value = (*reader)->Lookup("s");
    EXPECT_EQ(value.status().code(), absl::StatusCode::kDataLoss) << c.offset;
    EXPECT_THAT(value.status().message(), HasSubstr(c.message)) << c.offset;
    EXPECT_THAT(value.status().message(), HasSubstr("string tensor 's'")) << c.offset;
  }
}

TEST(BundleStringsTest, DecodeChecksLengthsAgainstTheBytes) {
  const auto expect_loss = [](const std::string& bytes, int64_t n, const std::string& message) {
    absl::StatusOr<Tensor> t = DecodeStringTensor(bytes, TensorShape{n}, 0, false, "tensor 't'");
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(t.status().message(), HasSubstr(message));
  };
  expect_loss("", 0, "0 stored bytes cannot hold the lengths of 0 strings");
  expect_loss(std::string(6, '\0'), 3, "6 stored bytes cannot hold the lengths of 3 strings");
  expect_loss(std::string("\x7f", 1) + std::string(8, '\0'), 1, "has length 127, more than");
  expect_loss(std::string("\x05\x05", 2) + std::string(7, '\0'), 2,
              "the string lengths add up to more than the 9 bytes stored");
  expect_loss(std::string("\x81\x00\x00\x00\x00", 5), 1,
              "the checksum of the string lengths is missing");
  // A huge claimed element count is refused before anything is allocated.
  expect_loss(std::string(16, '\0'), int64_t{1} << 40, "cannot hold the lengths of");
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera
