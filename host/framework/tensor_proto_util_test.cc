// Tests of Tensor <-> TensorProto conversion and TensorFlow's value-field rules.
#include "host/framework/tensor_proto_util.h"

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

tensorflow::TensorProto Parse(const std::string& text) {
  tensorflow::TensorProto proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto)) << text;
  return proto;
}

void ExpectInvalid(const std::string& text, const std::string& message) {
  absl::StatusOr<Tensor> tensor = TensorFromProto(Parse(text));
  ASSERT_FALSE(tensor.ok()) << text;
  EXPECT_EQ(tensor.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(tensor.status().message()), HasSubstr(message));
}

TEST(TensorFromProtoTest, ReadsTypedValues) {
  absl::StatusOr<Tensor> t =
      TensorFromProto(Parse("dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } "
                            "float_val: 1 float_val: 2 float_val: 3 float_val: 4"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), TSR_DTYPE_FLOAT);
  EXPECT_EQ(t->shape(), TensorShape({2, 2}));
  EXPECT_THAT(t->flat<float>(), ElementsAre(1, 2, 3, 4));
}

TEST(TensorFromProtoTest, SingleValueFillsTheShape) {
  absl::StatusOr<Tensor> t =
      TensorFromProto(Parse("dtype: DT_INT64 tensor_shape { dim { size: 3 } } int64_val: 7"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->flat<int64_t>(), ElementsAre(7, 7, 7));
}

TEST(TensorFromProtoTest, FewerValuesRepeatTheLast) {
  absl::StatusOr<Tensor> t = TensorFromProto(
      Parse("dtype: DT_INT32 tensor_shape { dim { size: 4 } } int_val: 1 int_val: 2"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->flat<int32_t>(), ElementsAre(1, 2, 2, 2));
}

TEST(TensorFromProtoTest, NoValuesMeansZeros) {
  absl::StatusOr<Tensor> t =
      TensorFromProto(Parse("dtype: DT_DOUBLE tensor_shape { dim { size: 2 } }"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->flat<double>(), ElementsAre(0, 0));
}

TEST(TensorFromProtoTest, ReadsSmallIntsHalfBoolAndComplex) {
  absl::StatusOr<Tensor> t = TensorFromProto(
      Parse("dtype: DT_UINT8 tensor_shape { dim { size: 2 } } int_val: 255 int_val: 3"));
  ASSERT_TRUE(t.ok());
  EXPECT_THAT(t->flat<uint8_t>(), ElementsAre(255, 3));
  t = TensorFromProto(Parse("dtype: DT_HALF tensor_shape { dim { size: 1 } } half_val: 15360"));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->flat<uint16_t>()[0], 15360);
  t = TensorFromProto(Parse("dtype: DT_BOOL tensor_shape {} bool_val: true"));
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->flat<bool>()[0]);
  t = TensorFromProto(Parse(
      "dtype: DT_COMPLEX64 tensor_shape { dim { size: 2 } } scomplex_val: 1 scomplex_val: 2"));
  ASSERT_TRUE(t.ok());
  EXPECT_THAT(t->flat<float>().subspan(0, 0), ElementsAre());
  const float* values = t->data<float>();
  EXPECT_EQ(values[0], 1);
  EXPECT_EQ(values[1], 2);
  EXPECT_EQ(values[2], 1);
  EXPECT_EQ(values[3], 2);
}

TEST(TensorFromProtoTest, ReadsTensorContent) {
  tensorflow::TensorProto proto;
  proto.set_dtype(tensorflow::DT_INT32);
  proto.mutable_tensor_shape()->add_dim()->set_size(2);
  const int32_t values[] = {5, -6};
  proto.set_tensor_content(values, sizeof(values));
  absl::StatusOr<Tensor> t = TensorFromProto(proto);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->flat<int32_t>(), ElementsAre(5, -6));
}

TEST(TensorFromProtoTest, RejectsTensorContentOfWrongSize) {
  ExpectInvalid(
      "dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } "
      "tensor_content: \"\\001\\002\\003\"",
      "tensor proto for float [2,2] has tensor_content of 3 bytes, expected 16");
}

TEST(TensorFromProtoTest, RejectsTooManyValues) {
  ExpectInvalid(
      "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } "
      "float_val: 1 float_val: 2 float_val: 3",
      "tensor proto for float [2] has 3 values in float_val, expected 2");
}

TEST(TensorFromProtoTest, RejectsOddComplexValues) {
  ExpectInvalid("dtype: DT_COMPLEX64 tensor_shape { dim { size: 2 } } scomplex_val: 1",
                "tensor proto field scomplex_val has 1 values, expected a multiple of 2");
}

TEST(TensorFromProtoTest, RejectsUnsupportedDtypes) {
  ExpectInvalid("dtype: DT_RESOURCE tensor_shape {}",
                "tensor proto has dtype resource, which the runtime cannot hold");
  ExpectInvalid("dtype: DT_VARIANT tensor_shape {}", "tensor proto has dtype variant");
  ExpectInvalid("dtype: DT_INVALID", "tensor proto has dtype invalid");
  ExpectInvalid("dtype: DT_FLOAT_REF", "tensor proto has dtype float_ref");
  ExpectInvalid("dtype: DT_FLOAT8_E5M2", "tensor proto has dtype float8_e5m2");
}

TEST(TensorFromProtoTest, RejectsBadShapes) {
  ExpectInvalid("dtype: DT_FLOAT tensor_shape { unknown_rank: true }",
                "tensor shape has unknown rank");
  ExpectInvalid("dtype: DT_FLOAT tensor_shape { dim { size: -1 } }",
                "tensor shape has dimension -1, expected a size >= 0");
  ExpectInvalid(
      "dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 1 } dim { size: 1 } "
      "dim { size: 1 } dim { size: 1 } dim { size: 1 } dim { size: 1 } dim { size: 1 } "
      "dim { size: 1 } }",
      "tensor shape has rank 9, above the maximum 8");
  ExpectInvalid(
      "dtype: DT_FLOAT tensor_shape { dim { size: 4294967296 } "
      "dim { size: 4294967296 } }",
      "more elements than an int64 can count");
  ExpectInvalid("dtype: DT_COMPLEX128 tensor_shape { dim { size: 4611686018427387904 } }",
                "tensor proto of shape [4611686018427387904] is too large");
}

TEST(TensorToProtoTest, RoundTripsThroughTensorContent) {
  Tensor t = Tensor::FromVector<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  tensorflow::TensorProto proto;
  TensorToProto(t, &proto);
  EXPECT_EQ(proto.dtype(), tensorflow::DT_FLOAT);
  EXPECT_EQ(proto.tensor_shape().dim_size(), 2);
  EXPECT_EQ(proto.tensor_content().size(), 24u);
  absl::StatusOr<Tensor> back = TensorFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), t.shape());
  EXPECT_THAT(back->flat<float>(), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(TensorToProtoTest, HandlesEmptyTensors) {
  Tensor t(TSR_DTYPE_INT32, TensorShape({0, 3}));
  tensorflow::TensorProto proto;
  TensorToProto(t, &proto);
  absl::StatusOr<Tensor> back = TensorFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), TensorShape({0, 3}));
}

TEST(ProtoDataTypeStringTest, NamesEveryKind) {
  EXPECT_EQ(ProtoDataTypeString(tensorflow::DT_FLOAT), "float");
  EXPECT_EQ(ProtoDataTypeString(tensorflow::DT_INT32_REF), "int32_ref");
  EXPECT_EQ(ProtoDataTypeString(tensorflow::DT_INT4), "int4");
  EXPECT_EQ(ProtoDataTypeString(999), "unknown type 999");
  EXPECT_TRUE(IsRuntimeDataType(tensorflow::DT_UINT64));
  EXPECT_FALSE(IsRuntimeDataType(tensorflow::DT_FLOAT8_E5M2));
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::StatusOr<Tensor> FromText(const std::string& text) {
  tensorflow::TensorProto proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto)) << text;
  return TensorFromProto(proto);
}

void ExpectStringInvalid(const tensorflow::TensorProto& proto, const std::string& message) {
  absl::StatusOr<Tensor> tensor = TensorFromProto(proto);
  ASSERT_FALSE(tensor.ok());
  EXPECT_EQ(tensor.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(tensor.status().message()), HasSubstr(message));
}

// TensorFlow's tensor_content encoding of strings: varint32 lengths, then the bytes.
tensorflow::TensorProto StringContentProto(std::vector<int64_t> dims, const std::string& content) {
  tensorflow::TensorProto proto;
  proto.set_dtype(tensorflow::DT_STRING);
  for (int64_t d : dims) proto.mutable_tensor_shape()->add_dim()->set_size(d);
  proto.set_tensor_content(content);
  return proto;
}

TEST(StringTensorProtoTest, ReadsStringVal) {
  absl::StatusOr<Tensor> t = FromText(
      R"pb(dtype: DT_STRING
           tensor_shape { dim { size: 3 } }
           string_val: "a"
           string_val: ""
           string_val: "\000\377")pb");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), TSR_DTYPE_STRING);
  EXPECT_THAT(t->flat<std::string>(), ElementsAre("a", "", std::string("\0\377", 2)));
}

TEST(StringTensorProtoTest, FewerValuesRepeatTheLastAndNoneAreEmpty) {
  absl::StatusOr<Tensor> t = FromText(R"pb(dtype: DT_STRING
                                           tensor_shape { dim { size: 3 } }
                                           string_val: "x")pb");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->flat<std::string>(), ElementsAre("x", "x", "x"));
  t = FromText(R"pb(dtype: DT_STRING
                    tensor_shape { dim { size: 2 } })pb");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->flat<std::string>(), ElementsAre("", ""));
  t = FromText(R"pb(dtype: DT_STRING
                    tensor_shape { dim { size: 0 } })pb");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->NumElements(), 0);
}

TEST(StringTensorProtoTest, ReadsTensorFlowsTensorContentEncoding) {
  std::string long_string(200, 'q');  // its length takes two varint bytes
  std::string content = std::string("\x02\x00", 2) + "\xc8\x01" + "hi" + long_string;
  absl::StatusOr<Tensor> t = TensorFromProto(StringContentProto({3}, content));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->flat<std::string>(), ElementsAre("hi", "", long_string));
}

TEST(StringTensorProtoTest, RejectsMalformedTensorContent) {
  ExpectStringInvalid(StringContentProto({4}, "\x01x"),
                      "malformed tensor_content: 2 bytes cannot hold 4 lengths");
  ExpectStringInvalid(StringContentProto({1}, "\x05xy"),
                      "the lengths add up to 5 bytes but 2 follow them");
  ExpectStringInvalid(StringContentProto({2}, "\x01\x01xyz"),
                      "the lengths add up to 2 bytes but 3 follow them");
  ExpectStringInvalid(StringContentProto({1}, "\x80\x80"), "a truncated or overlong length");
  ExpectStringInvalid(StringContentProto({1}, "\xff\xff\xff\xff\x7f"), "a length above 2^32");
  ExpectStringInvalid(StringContentProto({1}, "\xff\xff\xff\xff\x8f\x01"),
                      "a truncated or overlong length");
  // A huge shape with a little content is refused before any string is made.
  ExpectStringInvalid(StringContentProto({int64_t{1} << 40}, std::string("\0", 1)),
                      "1 bytes cannot hold 1099511627776 lengths");
}

TEST(StringTensorProtoTest, RejectsTooManyValuesAndHugeRepetition) {
  absl::StatusOr<Tensor> t = FromText(R"pb(dtype: DT_STRING
                                           tensor_shape { dim { size: 1 } }
                                           string_val: "a"
                                           string_val: "b")pb");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("tensor proto for string [1] has 2 values in string_val, expected 1"));

  tensorflow::TensorProto proto;
  proto.set_dtype(tensorflow::DT_STRING);
  proto.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 24);
  proto.add_string_val(std::string(1024, 'w'));
  ExpectStringInvalid(proto, "would repeat its last 1024-byte string 16777215 times");
}

TEST(StringTensorProtoTest, RoundTripsThroughStringVal) {
  Tensor t = Tensor::Strings(TensorShape({2, 2}), {"a", "", "long value", std::string("\0", 1)});
  tensorflow::TensorProto proto;
  TensorToProto(t, &proto);
  EXPECT_EQ(proto.dtype(), tensorflow::DT_STRING);
  EXPECT_EQ(proto.string_val_size(), 4);
  EXPECT_TRUE(proto.tensor_content().empty());
  absl::StatusOr<Tensor> back = TensorFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), t.shape());
  EXPECT_THAT(back->flat<std::string>(), ElementsAre("a", "", "long value", std::string("\0", 1)));
}

// Random byte strings as tensor_content and random string_val counts: every one is a status,
// never a crash (the graph fuzzer reaches this code through Const nodes).
TEST(StringTensorProtoTest, RandomContentNeverCrashes) {
  uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    std::string content(next() % 12, '\0');
    for (char& c : content) c = static_cast<char>(next() & 0xff);
    absl::StatusOr<Tensor> t = TensorFromProto(StringContentProto({next() % 6}, content));
    if (t.ok()) {
      EXPECT_EQ(t->dtype(), TSR_DTYPE_STRING);
    }
  }
}

}  // namespace
}  // namespace tessera
