// Tests of tensor-name parsing and node-name validity.
#include "host/graph/tensor_id.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(ParseTensorNameTest, ParsesTheThreeForms) {
  absl::StatusOr<TensorId> id = ParseTensorName("a/b");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->node, "a/b");
  EXPECT_EQ(id->index, 0);
  id = ParseTensorName("a/b:12");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->node, "a/b");
  EXPECT_EQ(id->index, 12);
  id = ParseTensorName("^ctrl");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->node, "ctrl");
  EXPECT_TRUE(id->IsControl());
}

TEST(ParseTensorNameTest, PrintsBack) {
  EXPECT_EQ((TensorId{"a", 0}).ToString(), "a");
  EXPECT_EQ((TensorId{"a", 2}).ToString(), "a:2");
  EXPECT_EQ((TensorId{"a", kControlSlot}).ToString(), "^a");
}

TEST(ParseTensorNameTest, RejectsMalformedNames) {
  struct Case {
    const char* name;
    const char* message;
  } cases[] = {
      {"", "it is empty"},
      {"^", "the node name is empty"},
      {":1", "the node name is empty"},
      {"a:", "the output index is empty"},
      {"a:x", "the output index is not a number"},
      {"a:-1", "the output index is not a number"},
      {"a:99999999999", "the output index is out of range"},
      {"^a:1", "a control input has no output index"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<TensorId> id = ParseTensorName(c.name);
    ASSERT_FALSE(id.ok()) << c.name;
    EXPECT_EQ(id.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(id.status().message()), HasSubstr(c.message)) << c.name;
  }
}

TEST(IsValidNodeNameTest, FollowsTensorFlowsRule) {
  EXPECT_TRUE(IsValidNodeName("a"));
  EXPECT_TRUE(IsValidNodeName("dense/MatMul_1"));
  EXPECT_TRUE(IsValidNodeName(".hidden"));
  EXPECT_TRUE(IsValidNodeName("0start"));
  EXPECT_TRUE(IsValidNodeName("a>b-c.d"));
  EXPECT_FALSE(IsValidNodeName(""));
  EXPECT_FALSE(IsValidNodeName("_SOURCE"));
  EXPECT_FALSE(IsValidNodeName("/a"));
  EXPECT_FALSE(IsValidNodeName("a:0"));
  EXPECT_FALSE(IsValidNodeName("a b"));
  EXPECT_FALSE(IsValidNodeName("^a"));
}

}  // namespace
}  // namespace tessera
