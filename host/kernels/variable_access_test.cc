// The variable plumbing around kernels, without a session: which nodes get wrapped, the errors for
// kernels that cannot take variables, and state kernels built without a session's variables.
#include "host/kernels/variable_access.h"

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/graph/graph.h"
#include "host/kernels/state_kernels.h"
#include "host/ops/op_def_builder.h"
#include "host/ops/op_registry.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

class FakeKernel : public OpKernel {
 public:
  explicit FakeKernel(bool is_async) : OpKernel(Traits{is_async, false, false}) {}
  absl::Status Compute(TSR_KernelContext*) override { return absl::OkStatus(); }
};

class VariableAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_ = OpRegistry::CreateStandard();
    // A plugin-style op that outputs a ref without taking one.
    absl::StatusOr<OpRegistration> reg =
        OpDefBuilder("MakesRef").RefOutput("r", "T").TypeAttr("T").Build();
    ASSERT_TRUE(reg.ok()) << reg.status();
    ASSERT_TRUE(registry_->Register(*std::move(reg)).ok());
    graph_ = std::make_unique<Graph>(registry_.get());
  }

  Node* Add(const std::string& text) {
    tensorflow::NodeDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
    absl::StatusOr<Node*> node = graph_->AddNode(def);
    EXPECT_TRUE(node.ok()) << node.status();
    return node.ok() ? *node : nullptr;
  }

  std::unique_ptr<OpRegistry> registry_;
  std::unique_ptr<Graph> graph_;
};

TEST_F(VariableAccessTest, LeavesPlainNodesUnwrapped) {
  Node* node = Add(R"pb(name: "c"
                        op: "Const"
                        attr {
                          key: "dtype"
                          value { type: DT_FLOAT }
                        }
                        attr {
                          key: "value"
                          value { tensor { dtype: DT_FLOAT float_val: 1 } }
                        })pb");
  auto kernel = std::make_unique<FakeKernel>(false);
  OpKernel* raw = kernel.get();
  absl::StatusOr<std::unique_ptr<OpKernel>> wrapped =
      WrapForVariableAccess(*node, nullptr, true, std::move(kernel));
  ASSERT_TRUE(wrapped.ok());
  EXPECT_EQ(wrapped->get(), raw);
}

TEST_F(VariableAccessTest, RejectsRefOutputWithoutRefInput) {
  Node* node = Add(R"pb(name: "m"
                        op: "MakesRef"
                        attr {
                          key: "T"
                          value { type: DT_FLOAT }
                        })pb");
  absl::StatusOr<std::unique_ptr<OpKernel>> wrapped =
      WrapForVariableAccess(*node, nullptr, true, std::make_unique<FakeKernel>(false));
  EXPECT_EQ(wrapped.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrapped.status().message()),
              HasSubstr("has a ref output but no ref input to forward to it"));
}

TEST_F(VariableAccessTest, RejectsAsyncKernelsOnVariables) {
  Add(R"pb(name: "w"
           op: "VariableV2"
           attr {
             key: "dtype"
             value { type: DT_FLOAT }
           }
           attr {
             key: "shape"
             value { shape {} }
           })pb");
  Add(R"pb(name: "v"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_FLOAT }
           }
           attr {
             key: "value"
             value { tensor { dtype: DT_FLOAT float_val: 1 } }
           })pb");
  Node* add = Add(R"pb(name: "add"
                       op: "AssignAdd"
                       input: "w"
                       input: "v"
                       attr {
                         key: "T"
                         value { type: DT_FLOAT }
                       })pb");
  graph_->AddEdge(graph_->FindNode("w"), 0, add, 0);
  graph_->AddEdge(graph_->FindNode("v"), 0, add, 1);
  absl::StatusOr<std::unique_ptr<OpKernel>> wrapped =
      WrapForVariableAccess(*add, nullptr, true, std::make_unique<FakeKernel>(true));
  EXPECT_EQ(wrapped.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(wrapped.status().message()),
              HasSubstr("reads a variable, which asynchronous kernels cannot do yet"));
  // The same node with a synchronous kernel is wrapped.
  absl::StatusOr<std::unique_ptr<OpKernel>> sync =
      WrapForVariableAccess(*add, nullptr, true, std::make_unique<FakeKernel>(false));
  EXPECT_TRUE(sync.ok());
}

TEST_F(VariableAccessTest, StateKernelsNeedASessionsVariables) {
  Node* node = Add(R"pb(name: "w"
                        op: "VariableV2"
                        attr {
                          key: "dtype"
                          value { type: DT_FLOAT }
                        }
                        attr {
                          key: "shape"
                          value { shape {} }
                        })pb");
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel = CreateStateKernel(*node, nullptr, nullptr);
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(kernel.status().message()),
              HasSubstr("needs a session's variables; this executor has none"));
  Node* plain = Add(R"pb(name: "n" op: "NoOp")pb");
  EXPECT_EQ(CreateStateKernel(*plain, nullptr, nullptr).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace tessera
