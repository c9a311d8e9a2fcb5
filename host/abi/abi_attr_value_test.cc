// Attribute values handed to plugin kernels: what the C ABI can carry and what it refuses.
#include "host/abi/abi_attr_value.h"

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

tensorflow::AttrValue Parse(const char* text) {
  tensorflow::AttrValue value;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &value)) << text;
  return value;
}

TEST(AbiAttrValueTest, PassesNumericTensorsAndRefusesStringTensors) {
  AttrScratch scratch;
  TSR_AttrValue out{};
  out.struct_size = sizeof(out);
  ASSERT_TRUE(FillAbiAttrValue(Parse(R"pb(tensor {
                                            dtype: DT_FLOAT
                                            tensor_shape { dim { size: 2 } }
                                            float_val: 1
                                            float_val: 3
                                          })pb"),
                               &scratch, &out)
                  .ok());
  EXPECT_EQ(out.type, TSR_ATTR_TYPE_TENSOR);
  EXPECT_EQ(static_cast<const float*>(out.tensor.data)[1], 3.0f);
  absl::Status strings = FillAbiAttrValue(Parse(R"pb(tensor {
                                                       dtype: DT_STRING
                                                       tensor_shape { dim { size: 1 } }
                                                       string_val: "a"
                                                     })pb"),
                                          &scratch, &out);
  EXPECT_EQ(strings.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(strings.message()),
              HasSubstr("a string tensor attribute cannot be passed to a plugin"));
}

}  // namespace
}  // namespace tessera
