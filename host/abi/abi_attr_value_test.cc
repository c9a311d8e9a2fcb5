// Attribute values handed to plugin kernels: every TensorFlow attribute kind crosses the C ABI.
#include "host/abi/abi_attr_value.h"

#include <cstring>
#include <string>

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

uint64_t Offset(const TSR_TensorView& view, int index) {
  uint64_t value;
  std::memcpy(&value, static_cast<const char*>(view.data) + 8 * index, 8);
  return value;
}

TEST(AbiAttrValueTest, PassesNumericTensors) {
  AttrScratch scratch;
  TSR_AttrValue out{};
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
}

TEST(AbiAttrValueTest, PassesStringTensorsPacked) {
  AttrScratch scratch;
  TSR_AttrValue out{};
  ASSERT_TRUE(FillAbiAttrValue(Parse(R"pb(tensor {
                                            dtype: DT_STRING
                                            tensor_shape { dim { size: 2 } }
                                            string_val: "ab"
                                            string_val: "cde"
                                          })pb"),
                               &scratch, &out)
                  .ok());
  ASSERT_EQ(out.type, TSR_ATTR_TYPE_TENSOR);
  EXPECT_EQ(out.tensor.dtype, TSR_DTYPE_STRING);
  ASSERT_EQ(out.tensor.rank, 1);
  EXPECT_EQ(out.tensor.dims[0], 2);
  EXPECT_EQ(out.tensor.byte_size, TSR_STRING_OFFSETS_SIZE(2) + 5);
  EXPECT_EQ(Offset(out.tensor, 0), 0u);
  EXPECT_EQ(Offset(out.tensor, 1), 2u);
  EXPECT_EQ(Offset(out.tensor, 2), 5u);
  EXPECT_EQ(std::string(static_cast<const char*>(out.tensor.data) + 24, 5), "abcde");
}

TEST(AbiAttrValueTest, PassesListsOfStringsShapesAndTensors) {
  AttrScratch scratch;
  TSR_AttrValue out{};
  // The value outlives `out`: strings and numbers are borrowed from it.
  const tensorflow::AttrValue strings = Parse(R"pb(list { s: "x" s: "yz" })pb");
  ASSERT_TRUE(FillAbiAttrValue(strings, &scratch, &out).ok());
  ASSERT_EQ(out.type, TSR_ATTR_TYPE_LIST_STRING);
  ASSERT_EQ(out.list_size, 2u);
  EXPECT_EQ(std::string(out.list_s[1], out.list_s_size[1]), "yz");

  ASSERT_TRUE(FillAbiAttrValue(Parse(R"pb(list {
                                            shape { dim { size: 2 } dim { size: -1 } }
                                            shape { unknown_rank: true }
                                          })pb"),
                               &scratch, &out)
                  .ok());
  ASSERT_EQ(out.type, TSR_ATTR_TYPE_LIST_SHAPE);
  ASSERT_EQ(out.list_size, 2u);
  EXPECT_EQ(out.list_shape_rank[0], 2);
  EXPECT_EQ(out.list_shape_dims[0][1], -1);
  EXPECT_EQ(out.list_shape_rank[1], -1);

  ASSERT_TRUE(FillAbiAttrValue(Parse(R"pb(list {
                                            tensor { dtype: DT_INT32 tensor_shape {} int_val: 7 }
                                            tensor { dtype: DT_STRING tensor_shape {} string_val: "q" }
                                          })pb"),
                               &scratch, &out)
                  .ok());
  ASSERT_EQ(out.type, TSR_ATTR_TYPE_LIST_TENSOR);
  ASSERT_EQ(out.list_size, 2u);
  EXPECT_EQ(*static_cast<const int32_t*>(out.list_tensor[0].data), 7);
  EXPECT_EQ(out.list_tensor[1].dtype, TSR_DTYPE_STRING);
  EXPECT_EQ(out.list_tensor[1].byte_size, TSR_STRING_OFFSETS_SIZE(1) + 1);
}

TEST(AbiAttrValueTest, PassesFuncsWithSortedNestedAttrs) {
  AttrScratch scratch;
  TSR_AttrValue out{};
  ASSERT_TRUE(FillAbiAttrValue(Parse(R"pb(func {
                                            name: "body"
                                            attr { key: "T" value { type: DT_FLOAT } }
                                            attr {
                                              key: "inner"
                                              value { func { name: "leaf" } }
                                            }
                                            attr { key: "N" value { i: 3 } }
                                          })pb"),
                               &scratch, &out)
                  .ok());
  ASSERT_EQ(out.type, TSR_ATTR_TYPE_FUNC);
  ASSERT_NE(out.func, nullptr);
  EXPECT_STREQ(out.func->name, "body");
  ASSERT_EQ(out.func->num_attrs, 3u);
  EXPECT_STREQ(out.func->attr_names[0], "N");
  EXPECT_EQ(out.func->attr_values[0].i, 3);
  EXPECT_STREQ(out.func->attr_names[1], "T");
  EXPECT_EQ(out.func->attr_values[1].dtype, TSR_DTYPE_FLOAT);
  EXPECT_STREQ(out.func->attr_names[2], "inner");
  ASSERT_EQ(out.func->attr_values[2].type, TSR_ATTR_TYPE_FUNC);
  EXPECT_STREQ(out.func->attr_values[2].func->name, "leaf");

  ASSERT_TRUE(
      FillAbiAttrValue(Parse(R"pb(list { func { name: "a" } func { name: "b" } })pb"), &scratch,
                       &out)
          .ok());
  ASSERT_EQ(out.type, TSR_ATTR_TYPE_LIST_FUNC);
  ASSERT_EQ(out.list_size, 2u);
  EXPECT_STREQ(out.func[1].name, "b");
}

TEST(AbiAttrValueTest, RefusesPlaceholdersAndTooDeepFuncs) {
  AttrScratch scratch;
  TSR_AttrValue out{};
  absl::Status placeholder = FillAbiAttrValue(Parse(R"pb(placeholder: "T")pb"), &scratch, &out);
  EXPECT_EQ(placeholder.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(placeholder.message(), HasSubstr("unresolved placeholder '$T'"));

  std::string text = R"pb(name: "f0")pb";
  for (int i = 1; i <= 20; ++i) {
    text = "name: \"f" + std::to_string(i) + "\" attr { key: \"g\" value { func { " + text +
           " } } }";
  }
  absl::Status deep = FillAbiAttrValue(Parse(("func { " + text + " }").c_str()), &scratch, &out);
  EXPECT_EQ(deep.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(deep.message(), HasSubstr("nests more than 16 levels of attributes"));
}

}  // namespace
}  // namespace tessera
