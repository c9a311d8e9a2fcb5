// The rdma transport's message encoders and decoders, without UCX or a host: round trips, and the
// refusal of every malformed header (truncated, trailing bytes, bad flags, ranks and sizes).
#include "plugins/rdma/wire_format.h"

#include <string>

#include "gtest/gtest.h"

namespace tessera::rdma {
namespace {

TEST(RdmaWireFormatTest, CallHeaderRoundTrips) {
  const std::string encoded = EncodeCallHeader({7, 1500, "Worker/RunGraph"});
  CallHeader decoded;
  ASSERT_TRUE(DecodeCallHeader(encoded.data(), encoded.size(), &decoded));
  EXPECT_EQ(decoded.exchange, 7u);
  EXPECT_EQ(decoded.deadline_ms, 1500);
  EXPECT_EQ(decoded.method, "Worker/RunGraph");
}

TEST(RdmaWireFormatTest, CallHeaderRefusesTruncatedTrailingAndOverlongMethods) {
  const std::string encoded = EncodeCallHeader({7, 0, "M"});
  CallHeader decoded;
  EXPECT_FALSE(DecodeCallHeader(encoded.data(), encoded.size() - 1, &decoded));
  const std::string trailing = encoded + "x";
  EXPECT_FALSE(DecodeCallHeader(trailing.data(), trailing.size(), &decoded));
  const std::string overlong = EncodeCallHeader({7, 0, std::string(kMaxMethodSize + 1, 'm')});
  EXPECT_FALSE(DecodeCallHeader(overlong.data(), overlong.size(), &decoded));
  EXPECT_FALSE(DecodeCallHeader(nullptr, 0, &decoded));
}

TEST(RdmaWireFormatTest, PullHeaderRoundTripsAndRefusesWrongSizes) {
  const std::string encoded = EncodePullHeader({9, -1, 1234567890123ull});
  PullHeader decoded;
  ASSERT_TRUE(DecodePullHeader(encoded.data(), encoded.size(), &decoded));
  EXPECT_EQ(decoded.exchange, 9u);
  EXPECT_EQ(decoded.deadline_ms, -1);
  EXPECT_EQ(decoded.step_id, 1234567890123ull);
  EXPECT_FALSE(DecodePullHeader(encoded.data(), encoded.size() - 1, &decoded));
  const std::string trailing = encoded + "x";
  EXPECT_FALSE(DecodePullHeader(trailing.data(), trailing.size(), &decoded));
}

TEST(RdmaWireFormatTest, CallReplyRoundTripsWithMessageAndResponse) {
  const std::string header = EncodeCallReplyHeader({3, TSR_CODE_NOT_FOUND});
  CallReplyHeader decoded;
  ASSERT_TRUE(DecodeCallReplyHeader(header.data(), header.size(), &decoded));
  EXPECT_EQ(decoded.exchange, 3u);
  EXPECT_EQ(decoded.code, static_cast<uint32_t>(TSR_CODE_NOT_FOUND));
  const std::string response("r\0s", 3);
  const std::string data = EncodeCallReplyData("no such step", response.data(), response.size());
  std::string message, got;
  ASSERT_TRUE(DecodeCallReplyData(data, &message, &got));
  EXPECT_EQ(message, "no such step");
  EXPECT_EQ(got, response);
  // A message longer than the data.
  EXPECT_FALSE(DecodeCallReplyData(data.substr(0, 6), &message, &got));
  EXPECT_FALSE(DecodeCallReplyData("", &message, &got));
}

TEST(RdmaWireFormatTest, TensorReplyHeaderRoundTrips) {
  TensorReplyHeader header;
  header.exchange = 11;
  header.dtype = TSR_DTYPE_FLOAT;
  header.dims = {4096, 4096};
  header.byte_size = 64u << 20;
  const std::string encoded = EncodeTensorReplyHeader(header);
  TensorReplyHeader decoded;
  ASSERT_TRUE(DecodeTensorReplyHeader(encoded.data(), encoded.size(), &decoded));
  EXPECT_EQ(decoded.exchange, 11u);
  EXPECT_EQ(decoded.code, 0u);
  EXPECT_EQ(decoded.dtype, static_cast<uint32_t>(TSR_DTYPE_FLOAT));
  EXPECT_FALSE(decoded.is_dead);
  EXPECT_EQ(decoded.dims, header.dims);
  EXPECT_EQ(decoded.byte_size, 64u << 20);
}

TEST(RdmaWireFormatTest, TensorReplyHeaderRefusesBadRanksFlagsDimsAndSizes) {
  TensorReplyHeader header;
  header.dims = {2, 3};
  const std::string encoded = EncodeTensorReplyHeader(header);
  TensorReplyHeader decoded;
  EXPECT_FALSE(DecodeTensorReplyHeader(encoded.data(), encoded.size() - 1, &decoded));
  const std::string trailing = encoded + "x";
  EXPECT_FALSE(DecodeTensorReplyHeader(trailing.data(), trailing.size(), &decoded));

  std::string bad_dead = encoded;
  bad_dead[16] = 2;  // is_dead is 0 or 1
  EXPECT_FALSE(DecodeTensorReplyHeader(bad_dead.data(), bad_dead.size(), &decoded));
  std::string bad_rank = encoded;
  bad_rank[17] = TSR_MAX_RANK + 1;
  EXPECT_FALSE(DecodeTensorReplyHeader(bad_rank.data(), bad_rank.size(), &decoded));
  std::string bad_padding = encoded;
  bad_padding[18] = 1;
  EXPECT_FALSE(DecodeTensorReplyHeader(bad_padding.data(), bad_padding.size(), &decoded));
  header.dims = {-1};
  const std::string negative = EncodeTensorReplyHeader(header);
  EXPECT_FALSE(DecodeTensorReplyHeader(negative.data(), negative.size(), &decoded));
}

}  // namespace
}  // namespace tessera::rdma
