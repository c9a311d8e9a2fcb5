#include "host/runtime/packed_strings.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::vector<uint64_t> Words(const Tensor& buffer) {
  std::vector<uint64_t> words(buffer.NumElements() / 8);
  std::memcpy(words.data(), buffer.data(), words.size() * 8);
  return words;
}

TEST(PackedStringsTest, PacksOffsetsThenBytesAndUnpacksTheSameStrings) {
  const std::string with_nul("a\0b", 3);
  Tensor strings = Tensor::Strings(TensorShape{2, 2}, {"", "xy", with_nul, "hello"});
  EXPECT_EQ(PackedStringsSize(strings), 5 * 8 + 10u);
  absl::StatusOr<Tensor> packed = PackStringsToBuffer(strings);
  ASSERT_TRUE(packed.ok()) << packed.status();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(packed->data()) % 8, 0u);
  std::vector<uint64_t> words = Words(*packed);
  EXPECT_EQ(std::vector<uint64_t>(words.begin(), words.begin() + 5),
            (std::vector<uint64_t>{0, 0, 2, 5, 10}));
  absl::StatusOr<Tensor> unpacked =
      UnpackStrings(TensorShape{2, 2}, packed->data(), packed->NumElements());
  ASSERT_TRUE(unpacked.ok()) << unpacked.status();
  EXPECT_EQ(unpacked->shape(), (TensorShape{2, 2}));
  auto flat = unpacked->flat<std::string>();
  EXPECT_EQ(std::vector<std::string>(flat.begin(), flat.end()),
            (std::vector<std::string>{"", "xy", with_nul, "hello"}));
}

TEST(PackedStringsTest, EmptyTensorIsOneOffset) {
  Tensor strings = Tensor::Strings(TensorShape{0, 3}, {});
  absl::StatusOr<Tensor> packed = PackStringsToBuffer(strings);
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(packed->NumElements(), 8);
  absl::StatusOr<Tensor> unpacked = UnpackStrings(TensorShape{0, 3}, packed->data(), 8);
  ASSERT_TRUE(unpacked.ok()) << unpacked.status();
  EXPECT_EQ(unpacked->NumElements(), 0);
}

struct Malformed {
  std::vector<uint64_t> offsets;
  size_t extra_bytes;
  const char* message;
};

TEST(PackedStringsTest, MalformedBuffersAreDataLossNamingTheProblem) {
  const Malformed cases[] = {
      {{1, 2, 3}, 3, "the first offset is 1, not 0"},
      {{0, 3, 2}, 3, "offset 2 (2) is below offset 1 (3)"},
      {{0, 2, 9}, 3, "offset 2 (9) runs past the 3 bytes after the offsets"},
      {{0, 1, 2}, 3, "the elements end at byte 2 but the buffer holds 3 bytes"},
  };
  for (const Malformed& c : cases) {
    std::vector<unsigned char> buffer(c.offsets.size() * 8 + c.extra_bytes, 'z');
    std::memcpy(buffer.data(), c.offsets.data(), c.offsets.size() * 8);
    absl::StatusOr<Tensor> unpacked = UnpackStrings(TensorShape{2}, buffer.data(), buffer.size());
    EXPECT_EQ(unpacked.status().code(), absl::StatusCode::kDataLoss) << c.message;
    EXPECT_THAT(unpacked.status().message(), HasSubstr(c.message));
  }
}

TEST(PackedStringsTest, TooSmallForTheOffsetsIsDataLoss) {
  uint64_t words[2] = {0, 0};
  absl::StatusOr<Tensor> unpacked = UnpackStrings(TensorShape{3}, words, sizeof(words));
  EXPECT_EQ(unpacked.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(unpacked.status().message(),
              HasSubstr("16 bytes cannot hold the offsets of 3 strings (32 bytes)"));
  EXPECT_EQ(UnpackStrings(TensorShape{1}, nullptr, 16).status().code(),
            absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace tessera
