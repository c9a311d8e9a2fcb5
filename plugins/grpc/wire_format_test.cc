// Tests of the gRPC transport's wire format: round trips, zero-copy payload slices, the release
// of lent tensors, and every way a received body is refused.
#include "plugins/grpc/wire_format.h"

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera::grpc_plugin {
namespace {

using ::testing::HasSubstr;

grpc::ByteBuffer FromBytes(const std::string& bytes) {
  grpc::Slice slice(bytes.data(), bytes.size());
  return grpc::ByteBuffer(&slice, 1);
}

// The same bytes cut into slices of `piece` bytes, as gRPC delivers large messages.
grpc::ByteBuffer Fragmented(const grpc::ByteBuffer& buffer, size_t piece) {
  grpc::Slice whole;
  EXPECT_TRUE(buffer.DumpToSingleSlice(&whole).ok());
  std::vector<grpc::Slice> slices;
  for (size_t at = 0; at < whole.size(); at += piece) {
    slices.push_back(whole.sub(at, std::min(whole.size(), at + piece)));
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

std::string Bytes(const grpc::ByteBuffer& buffer) {
  grpc::Slice whole;
  EXPECT_TRUE(buffer.DumpToSingleSlice(&whole).ok());
  return std::string(reinterpret_cast<const char*>(whole.begin()), whole.size());
}

std::string Le32(uint32_t value) {
  std::string bytes(4, '\0');
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  return bytes;
}

std::string Le64(uint64_t value) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  return bytes;
}

void CountRelease(void* arg) { ++*static_cast<int*>(arg); }

TEST(WireFormatTest, CallRequestRoundTripsAcrossSliceBoundaries) {
  const std::string payload = "some request bytes";
  grpc::ByteBuffer buffer =
      Fragmented(EncodeCallRequest("Worker/RunGraph", payload.data(), payload.size()), 3);
  SliceReader reader(buffer);
  std::string method, storage;
  std::string_view request;
  ASSERT_TRUE(DecodeCallRequest(&reader, &method, &storage, &request).ok());
  EXPECT_EQ(method, "Worker/RunGraph");
  EXPECT_EQ(request, payload);
}

TEST(WireFormatTest, CallRequestBorrowsARestInOneSlice) {
  grpc::ByteBuffer buffer = EncodeCallRequest("M", "abc", 3);
  SliceReader reader(buffer);
  std::string method, storage;
  std::string_view request;
  ASSERT_TRUE(DecodeCallRequest(&reader, &method, &storage, &request).ok());
  EXPECT_EQ(request, "abc");
  EXPECT_TRUE(storage.empty());
}

TEST(WireFormatTest, EmptyCallRequestHasNoBytes) {
  grpc::ByteBuffer buffer = EncodeCallRequest("", nullptr, 0);
  SliceReader reader(buffer);
  std::string method, storage;
  std::string_view request;
  ASSERT_TRUE(DecodeCallRequest(&reader, &method, &storage, &request).ok());
  EXPECT_EQ(method, "");
  EXPECT_TRUE(request.empty());
}

TEST(WireFormatTest, RefusesTruncatedCallRequests) {
  std::string method, storage;
  std::string_view request;
  {
    grpc::ByteBuffer buffer = FromBytes("ab");
    SliceReader reader(buffer);
    Error error = DecodeCallRequest(&reader, &method, &storage, &request);
    EXPECT_EQ(error.code, TSR_CODE_INTERNAL);
    EXPECT_THAT(error.message, HasSubstr("malformed call request: shorter than its method size"));
  }
  {
    grpc::ByteBuffer buffer = FromBytes(Le32(10) + "abc");
    SliceReader reader(buffer);
    Error error = DecodeCallRequest(&reader, &method, &storage, &request);
    EXPECT_EQ(error.code, TSR_CODE_INTERNAL);
    EXPECT_THAT(error.message, HasSubstr("method name runs past the end"));
  }
}

TEST(WireFormatTest, CallResponseCarriesStatusAndBody) {
  const std::string long_message(10000, 'm');
  grpc::ByteBuffer buffer =
      Fragmented(EncodeCallResponse(TSR_CODE_NOT_FOUND, long_message, "body", 4), 7);
  SliceReader reader(buffer);
  TSR_Code code = TSR_CODE_OK;
  std::string message, storage;
  std::string_view body;
  ASSERT_TRUE(DecodeCallResponse(&reader, &code, &message, &storage, &body).ok());
  EXPECT_EQ(code, TSR_CODE_NOT_FOUND);
  EXPECT_EQ(message, long_message);
  EXPECT_EQ(body, "body");
}

TEST(WireFormatTest, RefusesTruncatedCallResponse) {
  grpc::ByteBuffer buffer = FromBytes(Le32(5) + Le32(100) + "short");
  SliceReader reader(buffer);
  TSR_Code code;
  std::string message, storage;
  std::string_view body;
  Error error = DecodeCallResponse(&reader, &code, &message, &storage, &body);
  EXPECT_EQ(error.code, TSR_CODE_INTERNAL);
  EXPECT_THAT(error.message, HasSubstr("malformed call response: status runs past the end"));
}

TEST(WireFormatTest, RecvTensorRequestRoundTrips) {
  grpc::ByteBuffer buffer = EncodeRecvTensorRequest(0x0102030405060708ull, "a;b;c");
  SliceReader reader(buffer);
  uint64_t step_id = 0;
  std::string key;
  ASSERT_TRUE(DecodeRecvTensorRequest(&reader, &step_id, &key).ok());
  EXPECT_EQ(step_id, 0x0102030405060708ull);
  EXPECT_EQ(key, "a;b;c");
}

TEST(WireFormatTest, RefusesMalformedRecvTensorRequests) {
  uint64_t step_id;
  std::string key;
  const struct {
    std::string bytes;
    const char* expected;
  } cases[] = {
      {Le64(1), "shorter than its step id and key size"},
      {Le64(1) + Le32(9) + "abc", "rendezvous key runs past the end"},
      {Le64(1) + Le32(3) + "abcdef", "bytes follow the rendezvous key"},
  };
  for (const auto& c : cases) {
    grpc::ByteBuffer buffer = FromBytes(c.bytes);
    SliceReader reader(buffer);
    Error error = DecodeRecvTensorRequest(&reader, &step_id, &key);
    EXPECT_EQ(error.code, TSR_CODE_INTERNAL) << c.expected;
    EXPECT_THAT(error.message, HasSubstr(c.expected));
  }
}

TSR_TensorView View(std::vector<float>& values, const std::vector<int64_t>& dims) {
  TSR_TensorView view{};
  view.struct_size = sizeof(view);
  view.dtype = TSR_DTYPE_FLOAT;
  view.rank = static_cast<int32_t>(dims.size());
  view.dims = dims.data();
  view.data = values.data();
  view.byte_size = values.size() * sizeof(float);
  return view;
}

TEST(WireFormatTest, SmallTensorIsCopiedIntoTheHeaderAndReleasedAtOnce) {
  std::vector<float> values = {1, 2, 3, 4, 5, 6};
  const std::vector<int64_t> dims = {2, 3};
  int released = 0;
  std::vector<grpc::ByteBuffer> messages;
  ASSERT_TRUE(
      EncodeTensorResponse(View(values, dims), false, &CountRelease, &released, &messages).ok());
  EXPECT_EQ(released, 1);
  ASSERT_EQ(messages.size(), 1u);

  SliceReader reader(messages[0]);
  TensorHeader header;
  ASSERT_TRUE(DecodeTensorHeader(&reader, &header).ok());
  EXPECT_EQ(header.code, TSR_CODE_OK);
  EXPECT_EQ(header.dtype, TSR_DTYPE_FLOAT);
  EXPECT_FALSE(header.is_dead);
  EXPECT_EQ(header.dims, dims);
  EXPECT_EQ(header.byte_size, 24u);
  EXPECT_EQ(reader.remaining(), 24u);
  std::vector<float> received(6);
  ASSERT_TRUE(reader.Read(received.data(), 24));
  EXPECT_EQ(received, values);
}

TEST(WireFormatTest, LargeTensorTravelsInChunksOfItsOwnBuffer) {
  // Two whole chunks and a partial one.
  std::vector<float> values((2 * kTensorChunkBytes + 4096) / sizeof(float));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 1000);
  const std::vector<int64_t> dims = {static_cast<int64_t>(values.size())};
  const size_t byte_size = values.size() * sizeof(float);
  int released = 0;
  {
    std::vector<grpc::ByteBuffer> messages;
    ASSERT_TRUE(
        EncodeTensorResponse(View(values, dims), false, &CountRelease, &released, &messages).ok());
    ASSERT_EQ(messages.size(), 4u);  // the header, then three chunks
    EXPECT_EQ(released, 0);

    SliceReader header_reader(messages[0]);
    TensorHeader header;
    ASSERT_TRUE(DecodeTensorHeader(&header_reader, &header).ok());
    EXPECT_EQ(header.byte_size, byte_size);
    EXPECT_EQ(header_reader.remaining(), 0u);

    std::vector<char> copy(byte_size);
    size_t received = 0;
    for (size_t i = 1; i < messages.size(); ++i) {
      std::vector<grpc::Slice> slices;
      ASSERT_TRUE(messages[i].Dump(&slices).ok());
      ASSERT_EQ(slices.size(), 1u);
      // Not a copy: the chunk points into the sender's buffer.
      EXPECT_EQ(static_cast<const void*>(slices[0].begin()),
                reinterpret_cast<const char*>(values.data()) + received);
      SliceReader reader(Fragmented(messages[i], 100000));
      const size_t size = reader.remaining();
      EXPECT_EQ(size, std::min(kTensorChunkBytes, byte_size - received));
      ASSERT_TRUE(reader.Read(copy.data() + received, size));
      received += size;
    }
    EXPECT_EQ(received, byte_size);
    EXPECT_EQ(std::memcmp(copy.data(), values.data(), byte_size), 0);
  }
  EXPECT_EQ(released, 1);  // when the last reference to a chunk went
}

TEST(WireFormatTest, DeadTensorCarriesNoBytes) {
  std::vector<float> values(1000);
  const std::vector<int64_t> dims = {1000};
  int released = 0;
  std::vector<grpc::ByteBuffer> messages;
  ASSERT_TRUE(
      EncodeTensorResponse(View(values, dims), true, &CountRelease, &released, &messages).ok());
  EXPECT_EQ(released, 1);
  ASSERT_EQ(messages.size(), 1u);
  SliceReader reader(messages[0]);
  TensorHeader header;
  ASSERT_TRUE(DecodeTensorHeader(&reader, &header).ok());
  EXPECT_TRUE(header.is_dead);
  EXPECT_TRUE(header.dims.empty());
  EXPECT_EQ(header.byte_size, 0u);
}

TEST(WireFormatTest, RefusesInvalidTensorViewsAndReleasesThem) {
  std::vector<float> values(4);
  const std::vector<int64_t> dims = {2, 2};
  const std::vector<int64_t> negative = {-1, 4};
  const struct {
    TSR_TensorView view;
    TSR_Code code;
    const char* expected;
  } cases[] = {
      {[&] {
         auto v = View(values, dims);
         v.rank = TSR_MAX_RANK + 1;
         return v;
       }(),
       TSR_CODE_INVALID_ARGUMENT, "tensor rank 9 is outside [0, 8]"},
      {[&] {
         auto v = View(values, dims);
         v.dims = nullptr;
         return v;
       }(),
       TSR_CODE_INVALID_ARGUMENT, "tensor of rank 2 has no dims"},
      {[&] {
         auto v = View(values, dims);
         v.data = nullptr;
         return v;
       }(),
       TSR_CODE_INVALID_ARGUMENT, "tensor of 16 bytes has no data"},
      {[&] {
         auto v = View(values, negative);
         return v;
       }(),
       TSR_CODE_INVALID_ARGUMENT, "tensor dimension 0 is negative (-1)"},
  };
  for (const auto& c : cases) {
    int released = 0;
    std::vector<grpc::ByteBuffer> messages;
    Error error = EncodeTensorResponse(c.view, false, &CountRelease, &released, &messages);
    EXPECT_EQ(error.code, c.code) << c.expected;
    EXPECT_THAT(error.message, HasSubstr(c.expected));
    EXPECT_EQ(released, 1) << c.expected;
  }
}

TEST(WireFormatTest, TensorErrorResponseCarriesTheStatus) {
  grpc::ByteBuffer buffer = EncodeTensorErrorResponse(TSR_CODE_ABORTED, "step 7 aborted");
  SliceReader reader(buffer);
  TensorHeader header;
  ASSERT_TRUE(DecodeTensorHeader(&reader, &header).ok());
  EXPECT_EQ(header.code, TSR_CODE_ABORTED);
  EXPECT_EQ(header.message, "step 7 aborted");
}

TEST(WireFormatTest, RefusesMalformedTensorResponses) {
  const std::string ok_status = Le32(0) + Le32(0);
  const std::string float_rank1 = Le32(TSR_DTYPE_FLOAT) + std::string("\0\1\0\0", 4);
  const struct {
    std::string bytes;
    const char* expected;
  } cases[] = {
      {Le32(0), "malformed tensor response: status runs past the end"},
      {ok_status + "\1\0", "shorter than its tensor header"},
      {ok_status + Le32(1) + std::string("\0\11\0\0", 4), "rank 9 exceeds 8"},
      {ok_status + Le32(0x80000000u) + std::string("\0\0\0\0", 4), "dtype 2147483648"},
      {ok_status + float_rank1 + "\1\2", "dims run past the end"},
      {ok_status + float_rank1 + Le64(~0ull), "dimension 0 is negative"},
      {ok_status + float_rank1 + Le64(2), "shorter than its byte size"},
      {ok_status + float_rank1 + Le64(2) + Le64(2) + "1234",
       "header says 2 tensor bytes but 4 follow it in its message"},
  };
  for (const auto& c : cases) {
    grpc::ByteBuffer buffer = FromBytes(c.bytes);
    SliceReader reader(buffer);
    TensorHeader header;
    Error error = DecodeTensorHeader(&reader, &header);
    EXPECT_EQ(error.code, TSR_CODE_INTERNAL) << c.expected;
    EXPECT_THAT(error.message, HasSubstr(c.expected));
  }
}

TEST(WireFormatTest, SliceReaderRefusesToReadPastTheEnd) {
  grpc::ByteBuffer buffer = Fragmented(FromBytes("abcdef"), 4);
  SliceReader reader(buffer);
  char out[8];
  EXPECT_FALSE(reader.Read(out, 7));
  EXPECT_EQ(reader.remaining(), 6u);
  EXPECT_TRUE(reader.Read(out, 6));
  EXPECT_EQ(std::string(out, 6), "abcdef");
  EXPECT_EQ(Bytes(buffer), "abcdef");
}

}  // namespace
}  // namespace tessera::grpc_plugin
