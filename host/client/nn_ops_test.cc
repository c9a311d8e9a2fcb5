// Tests that the neural-network op wrappers emit exactly TensorFlow's NodeDefs, and their errors.
#include "host/client/nn_ops.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/array_ops.h"
#include "host/client/client_test_util.h"

namespace tessera {
namespace {

using ::tessera::testing::GraphOf;
using ::tessera::testing::NodeEquals;
using ::testing::HasSubstr;

TEST(NnOpsTest, Activations) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  EXPECT_EQ(ops::Relu(root, x).activations.type(), DT_FLOAT);
  EXPECT_EQ(ops::Relu6(root, x).activations.type(), DT_FLOAT);
  EXPECT_EQ(ops::Softmax(root, x).softmax.type(), DT_FLOAT);
  tensorflow::GraphDef def = GraphOf(root);
  for (const char* op : {"Relu", "Relu6", "Softmax"}) {
    EXPECT_TRUE(NodeEquals(def, op, absl::StrCat("name: '", op, "' op: '", op, "' input: 'x' ",
                                                 "attr { key: 'T' value { type: DT_FLOAT } }")));
  }
}

TEST(NnOpsTest, BiasAdd) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::BiasAdd(root, x, {1.f, 2.f});
  ops::BiasAdd(root.WithOpName("nchw"), x, {1.f, 2.f}, ops::BiasAdd::DataFormat("NCHW"));
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "BiasAdd", R"pb(
    name: "BiasAdd" op: "BiasAdd" input: "x" input: "Const/Const"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "data_format" value { s: "NHWC" } }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "nchw", R"pb(
    name: "nchw" op: "BiasAdd" input: "x" input: "Const_1/Const"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "data_format" value { s: "NCHW" } }
  )pb"));
}

TEST(NnOpsErrorTest, BiasAddDataFormat) {
  Scope root = Scope::NewRootScope();
  ops::BiasAdd(root.WithOpName("b"), {{1.f}}, {1.f}, ops::BiasAdd::DataFormat("NWHC"));
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("while building node 'b' (BiasAdd): attr 'data_format' must be \"NHWC\" "
                        "or \"NCHW\", got \"NWHC\""));
}

TEST(NnOpsErrorTest, BiasAddTypes) {
  Scope root = Scope::NewRootScope();
  ops::BiasAdd(root.WithOpName("b"), {{1.f}}, {1});
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("inconsistent values for attr 'T': input 0 is float but input 1 is int32"));
}

TEST(NnOpsErrorTest, WrappersAfterAnErrorAddNothing) {
  Scope root = Scope::NewRootScope();
  root.UpdateStatus(absl::InvalidArgumentError("earlier"));
  EXPECT_FALSE(ops::BiasAdd(root, {{1.f}}, {1.f}).operation.valid());
  EXPECT_FALSE(ops::Relu(root, 1.f).operation.valid());
  EXPECT_EQ(root.status().message(), "earlier");
}

}  // namespace
}  // namespace tessera
