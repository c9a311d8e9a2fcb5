// Tests of the ordered-code encodings against TensorFlow's published encodings.
#include "host/checkpoint/ordered_code.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace checkpoint {
namespace {

using ordered_code::ReadNumIncreasing;
using ordered_code::ReadSignedNumIncreasing;
using ordered_code::ReadString;
using ordered_code::WriteNumIncreasing;
using ordered_code::WriteSignedNumIncreasing;
using ordered_code::WriteString;

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

TEST(OrderedCodeTest, UnsignedEncodingsAreTensorFlows) {
  const std::vector<std::pair<uint64_t, std::string>> cases = {
      {0, Bytes({0x00})},
      {1, Bytes({0x01, 0x01})},
      {0xff, Bytes({0x01, 0xff})},
      {0x100, Bytes({0x02, 0x01, 0x00})},
      {0x1000001, Bytes({0x04, 0x01, 0x00, 0x00, 0x01})},
      {0x8000000000000000ull, Bytes({0x08, 0x80, 0, 0, 0, 0, 0, 0, 0})},
  };
  for (const auto& [value, encoded] : cases) {
    std::string out;
    WriteNumIncreasing(&out, value);
    EXPECT_EQ(out, encoded) << value;
    absl::string_view in = out;
    uint64_t decoded = 0;
    ASSERT_TRUE(ReadNumIncreasing(&in, &decoded));
    EXPECT_EQ(decoded, value);
    EXPECT_TRUE(in.empty());
  }
}

TEST(OrderedCodeTest, SignedEncodingsAreTensorFlows) {
  const std::vector<std::pair<int64_t, std::string>> cases = {
      {0, Bytes({0x80})},
      {1, Bytes({0x81})},
      {63, Bytes({0xbf})},
      {64, Bytes({0xc0, 0x40})},
      {8191, Bytes({0xdf, 0xff})},
      {8192, Bytes({0xe0, 0x20, 0x00})},
      {1048576, Bytes({0xf0, 0x10, 0x00, 0x00})},
      {134217728, Bytes({0xf8, 0x08, 0x00, 0x00, 0x00})},
      {281474976710656ll, Bytes({0xff, 0x01, 0, 0, 0, 0, 0, 0})},
      {36028797018963968ll, Bytes({0xff, 0x80, 0x80, 0, 0, 0, 0, 0, 0})},
      {4611686018427387904ll, Bytes({0xff, 0xc0, 0x40, 0, 0, 0, 0, 0, 0, 0})},
      {9223372036854775807ll, Bytes({0xff, 0xc0, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})},
      {-1, Bytes({0x7f})},
      {-2, Bytes({0x7e})},
      {-64, Bytes({0x40})},
      {-65, Bytes({0x3f, 0xbf})},
      {-8192, Bytes({0x20, 0x00})},
      {-8193, Bytes({0x1f, 0xdf, 0xff})},
      {-1048577, Bytes({0x0f, 0xef, 0xff, 0xff})},
      {-36028797018963969ll, Bytes({0x00, 0x7f, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})},
      {-9223372036854775807ll, Bytes({0x00, 0x3f, 0x80, 0, 0, 0, 0, 0, 0, 0x01})},
  };
  for (const auto& [value, encoded] : cases) {
    std::string out;
    WriteSignedNumIncreasing(&out, value);
    EXPECT_EQ(out, encoded) << value;
    absl::string_view in = out;
    int64_t decoded = 0;
    ASSERT_TRUE(ReadSignedNumIncreasing(&in, &decoded)) << value;
    EXPECT_EQ(decoded, value);
    EXPECT_TRUE(in.empty());
  }
}

TEST(OrderedCodeTest, SignedEncodingPreservesOrder) {
  std::vector<int64_t> values = {
      std::numeric_limits<int64_t>::min(), -1000000, -65, -64, -1, 0, 1, 63, 64, 1000000,
      std::numeric_limits<int64_t>::max()};
  std::string previous;
  for (size_t i = 0; i < values.size(); ++i) {
    std::string out;
    WriteSignedNumIncreasing(&out, values[i]);
    if (i > 0) {
      EXPECT_LT(previous, out) << values[i];
    }
    absl::string_view in = out;
    int64_t decoded = 0;
    ASSERT_TRUE(ReadSignedNumIncreasing(&in, &decoded));
    EXPECT_EQ(decoded, values[i]);
    previous = out;
  }
}

TEST(OrderedCodeTest, StringEncodingsAreTensorFlows) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", Bytes({0x00, 0x01})},
      {"foo", "foo" + Bytes({0x00, 0x01})},
      {Bytes({0x00, 0x01, 0xff}), Bytes({0x00, 0xff, 0x01, 0xff, 0x00, 0x00, 0x01})},
  };
  for (const auto& [value, encoded] : cases) {
    std::string out;
    WriteString(&out, value);
    EXPECT_EQ(out, encoded);
    absl::string_view in = out;
    std::string decoded;
    ASSERT_TRUE(ReadString(&in, &decoded));
    EXPECT_EQ(decoded, value);
    EXPECT_TRUE(in.empty());
  }
}

TEST(OrderedCodeTest, RejectsMalformedInput) {
  uint64_t u = 0;
  int64_t s = 0;
  std::string str;
  absl::string_view in;
  in = "";
  EXPECT_FALSE(ReadNumIncreasing(&in, &u));
  in = absl::string_view("\x09\x01\x02", 3);  // length above 8
  EXPECT_FALSE(ReadNumIncreasing(&in, &u));
  in = absl::string_view("\x03\x01", 2);  // truncated
  EXPECT_FALSE(ReadNumIncreasing(&in, &u));
  in = "";
  EXPECT_FALSE(ReadSignedNumIncreasing(&in, &s));
  in = absl::string_view("\xe0\x20", 2);  // needs three bytes
  EXPECT_FALSE(ReadSignedNumIncreasing(&in, &s));
  in = absl::string_view("\xff\xff\xff", 3);  // longer than 10 bytes
  EXPECT_FALSE(ReadSignedNumIncreasing(&in, &s));
  in = absl::string_view("\xc0\x01", 2);  // 1 written in two bytes: not the shortest form
  EXPECT_FALSE(ReadSignedNumIncreasing(&in, &s));
  in = "abc";  // no terminator
  EXPECT_FALSE(ReadString(&in, &str));
  in = absl::string_view("a\x00\x02", 3);  // bad escape
  EXPECT_FALSE(ReadString(&in, &str));
  in = absl::string_view("a\xff\x01", 3);  // bad escape
  EXPECT_FALSE(ReadString(&in, &str));
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera
