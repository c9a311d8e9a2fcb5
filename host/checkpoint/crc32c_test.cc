// Tests of CRC32C against published check values, and of the masking.
#include "host/checkpoint/crc32c.h"

#include <string>

#include "gtest/gtest.h"

namespace tessera {
namespace checkpoint {
namespace {

TEST(Crc32cTest, MatchesPublishedCheckValues) {
  // RFC 3720 (iSCSI) appendix B.4 test patterns, also in LevelDB's and TensorFlow's tests.
  std::string zeros(32, '\0');
  std::string ones(32, '\xff');
  std::string ascending(32, '\0');
  std::string descending(32, '\0');
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<char>(i);
    descending[i] = static_cast<char>(31 - i);
  }
  EXPECT_EQ(crc32c::Value(zeros.data(), zeros.size()), 0x8a9136aau);
  EXPECT_EQ(crc32c::Value(ones.data(), ones.size()), 0x62a8ab43u);
  EXPECT_EQ(crc32c::Value(ascending.data(), ascending.size()), 0x46dd794eu);
  EXPECT_EQ(crc32c::Value(descending.data(), descending.size()), 0x113fdb5cu);
  EXPECT_EQ(crc32c::Value("123456789", 9), 0xe3069283u);
  EXPECT_EQ(crc32c::Value("", 0), 0u);
}

TEST(Crc32cTest, ExtendEqualsValueOfConcatenation) {
  const std::string text = "hello world, this string is longer than sixteen bytes";
  for (size_t split = 0; split <= text.size(); ++split) {
    const uint32_t first = crc32c::Value(text.data(), split);
    EXPECT_EQ(crc32c::Extend(first, text.data() + split, text.size() - split),
              crc32c::Value(text.data(), text.size()));
  }
}

TEST(Crc32cTest, TableAndHardwareImplementationsAgree) {
  std::string data(1000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 + 7);
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t n : {0, 1, 7, 8, 9, 63, 64, 500, 991}) {
      EXPECT_EQ(crc32c::Extend(0x1234, data.data() + offset, n),
                crc32c::internal::ExtendPortableForTest(0x1234, data.data() + offset, n));
    }
  }
}

TEST(Crc32cTest, MaskIsInvertibleAndChangesTheValue) {
  const uint32_t crc = crc32c::Value("foo", 3);
  EXPECT_NE(crc, crc32c::Mask(crc));
  EXPECT_NE(crc, crc32c::Mask(crc32c::Mask(crc)));
  EXPECT_EQ(crc, crc32c::Unmask(crc32c::Mask(crc)));
  EXPECT_EQ(crc, crc32c::Unmask(crc32c::Unmask(crc32c::Mask(crc32c::Mask(crc)))));
  // The masked CRC of the empty string, which every checkpoint stores for an empty tensor.
  EXPECT_EQ(crc32c::Mask(0), 0xa282ead8u);
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera
