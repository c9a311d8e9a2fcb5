// The ref forms of control flow that TensorFlow 1 writes around ref variables (RefSwitch in a
// tf.cond, RefEnter in a tf.while_loop, RefIdentity) and Assert, through a real session and the
// CPU plugin, from GraphDefs written as TensorFlow writes them.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;

// A float ref variable `w` of shape [2] with an initializer `init` (w = [1, 2]), then `nodes`.
std::unique_ptr<Session> MakeSession(const std::string& nodes) {
  const std::string text = R"pb(
                             node {
                               name: "w"
                               op: "VariableV2"
                               attr {
                                 key: "dtype"
                                 value { type: DT_FLOAT }
                               }
                               attr {
                                 key: "shape"
                                 value { shape { dim { size: 2 } } }
                               }
                             }
                             node {
                               name: "w/initial_value"
                               op: "Const"
                               attr {
                                 key: "dtype"
                                 value { type: DT_FLOAT }
                               }
                               attr {
                                 key: "value"
                                 value {
                                   tensor {
                                     dtype: DT_FLOAT
                                     tensor_shape { dim { size: 2 } }
                                     float_val: 1
                                     float_val: 2
                                   }
                                 }
                               }
                             }
                             node {
                               name: "init"
                               op: "Assign"
                               input: "w"
                               input: "w/initial_value"
                               attr {
                                 key: "T"
                                 value { type: DT_FLOAT }
                               }
                             }
                             node {
                               name: "ones"
                               op: "Const"
                               attr {
                                 key: "dtype"
                                 value { type: DT_FLOAT }
                               }
                               attr {
                                 key: "value"
                                 value {
                                   tensor {
                                     dtype: DT_FLOAT
                                     tensor_shape { dim { size: 2 } }
                                     float_val: 1
                                   }
                                 }
                               }
                             }
                           )pb" +
                           nodes;
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), def);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

Tensor BoolScalar(bool value) {
  absl::StatusOr<Tensor> t = Tensor::Allocate(HostAllocator(), TSR_DTYPE_BOOL, TensorShape());
  EXPECT_TRUE(t.ok());
  *t->data<bool>() = value;
  return *t;
}

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

// tf.cond(pred, lambda: w.assign_add(ones), lambda: w): the true branch updates the variable
// through RefSwitch's output, the false branch reads it.
TEST(RefControlFlowTest, RefSwitchUpdatesTheVariableOnlyInTheTakenBranch) {
  std::unique_ptr<Session> session = MakeSession(R"pb(
    node {
      name: "pred"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_BOOL }
      }
    }
    node {
      name: "cond/Switch"
      op: "RefSwitch"
      input: "w"
      input: "pred"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "cond/AssignAdd"
      op: "AssignAdd"
      input: "cond/Switch:1"
      input: "ones"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "cond/true"
      op: "Identity"
      input: "cond/AssignAdd"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "cond/false"
      op: "Identity"
      input: "cond/Switch"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "cond/Merge"
      op: "Merge"
      input: "cond/false"
      input: "cond/true"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "N"
        value { i: 2 }
      }
    }
  )pb");
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {"init"}, &out).ok());
  for (const auto& [pred, expected] : std::vector<std::pair<bool, std::vector<float>>>{
           {true, {2, 3}}, {false, {2, 3}}, {true, {3, 4}}}) {
    absl::Status status = session->Run({{"pred", BoolScalar(pred)}}, {"cond/Merge"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(Values(out[0]), expected) << "pred " << pred;
  }
  ASSERT_TRUE(session->Run({}, {"w"}, {}, &out).ok());
  EXPECT_THAT(Values(out[0]), ElementsAre(3, 4));
}

// A tf.while_loop that adds ones to `w` three times: the variable enters the loop through
// RefEnter (is_constant), and RefIdentity forwards it to the update.
TEST(RefControlFlowTest, RefEnterCarriesTheVariableIntoALoop) {
  std::unique_ptr<Session> session = MakeSession(R"pb(
    node {
      name: "zero"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
      attr {
        key: "value"
        value { tensor { dtype: DT_INT32 int_val: 0 } }
      }
    }
    node {
      name: "three"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
      attr {
        key: "value"
        value { tensor { dtype: DT_INT32 int_val: 3 } }
      }
    }
    node {
      name: "one"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
      attr {
        key: "value"
        value { tensor { dtype: DT_INT32 int_val: 1 } }
      }
    }
    node {
      name: "while/Enter"
      op: "Enter"
      input: "zero"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
      attr {
        key: "frame_name"
        value { s: "while" }
      }
    }
    node {
      name: "while/Enter_w"
      op: "RefEnter"
      input: "w"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "frame_name"
        value { s: "while" }
      }
      attr {
        key: "is_constant"
        value { b: true }
      }
    }
    node {
      name: "while/Enter_limit"
      op: "Enter"
      input: "three"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
      attr {
        key: "frame_name"
        value { s: "while" }
      }
      attr {
        key: "is_constant"
        value { b: true }
      }
    }
    node {
      name: "while/Enter_ones"
      op: "Enter"
      input: "ones"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "frame_name"
        value { s: "while" }
      }
      attr {
        key: "is_constant"
        value { b: true }
      }
    }
    node {
      name: "while/Enter_one"
      op: "Enter"
      input: "one"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
      attr {
        key: "frame_name"
        value { s: "while" }
      }
      attr {
        key: "is_constant"
        value { b: true }
      }
    }
    node {
      name: "while/Merge"
      op: "Merge"
      input: "while/Enter"
      input: "while/NextIteration"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
      attr {
        key: "N"
        value { i: 2 }
      }
    }
    node {
      name: "while/Less"
      op: "Less"
      input: "while/Merge"
      input: "while/Enter_limit"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
    node { name: "while/LoopCond" op: "LoopCond" input: "while/Less" }
    node {
      name: "while/Switch"
      op: "Switch"
      input: "while/Merge"
      input: "while/LoopCond"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
    node {
      name: "while/Identity"
      op: "Identity"
      input: "while/Switch:1"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
    node {
      name: "while/w"
      op: "RefIdentity"
      input: "while/Enter_w"
      input: "^while/Identity"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "while/AssignAdd"
      op: "AssignAdd"
      input: "while/w"
      input: "while/Enter_ones"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "while/add"
      op: "AddV2"
      input: "while/Identity"
      input: "while/Enter_one"
      input: "^while/AssignAdd"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
    node {
      name: "while/NextIteration"
      op: "NextIteration"
      input: "while/add"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
    node {
      name: "while/Exit"
      op: "Exit"
      input: "while/Switch"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
  )pb");
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {"init"}, &out).ok());
  absl::Status status = session->Run({}, {"while/Exit"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(*out[0].data<int32_t>(), 3);
  ASSERT_TRUE(session->Run({}, {"w"}, {}, &out).ok());
  EXPECT_THAT(Values(out[0]), ElementsAre(4, 5));
}

// tf.Assert(pred, ["w is", w, "and more", range]) guarding a read of w, summarize 3.
constexpr char kAssertGraph[] = R"pb(
  node {
    name: "pred"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_BOOL }
    }
  }
  node {
    name: "message"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_STRING }
    }
    attr {
      key: "value"
      value { tensor { dtype: DT_STRING string_val: "w is\n" } }
    }
  }
  node {
    name: "counts"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape { dim { size: 5 } }
          int_val: 10
          int_val: 11
          int_val: 12
          int_val: 13
          int_val: 14
        }
      }
    }
  }
  node {
    name: "Assert"
    op: "Assert"
    input: "pred"
    input: "message"
    input: "w"
    input: "counts"
    attr {
      key: "T"
      value { list { type: DT_STRING type: DT_FLOAT type: DT_INT32 } }
    }
    attr {
      key: "summarize"
      value { i: 3 }
    }
  }
  node {
    name: "read"
    op: "Identity"
    input: "w"
    input: "^Assert"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

TEST(AssertTest, PassesWhenTrueAndFailsWithTheSummarizedData) {
  std::unique_ptr<Session> session = MakeSession(kAssertGraph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {"init"}, &out).ok());
  absl::Status status = session->Run({{"pred", BoolScalar(true)}}, {"read"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(Values(out[0]), ElementsAre(1, 2));

  status = session->Run({{"pred", BoolScalar(false)}}, {"read"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              ::testing::HasSubstr("assertion failed: [w is\\n] [1 2] [10 11 12...]"));
}

TEST(AssertTest, RefusesAConditionThatIsNotAScalar) {
  std::string graph = kAssertGraph;
  std::unique_ptr<Session> session = MakeSession(graph);
  ASSERT_NE(session, nullptr);
  absl::StatusOr<Tensor> pred = Tensor::Allocate(HostAllocator(), TSR_DTYPE_BOOL, TensorShape({2}));
  ASSERT_TRUE(pred.ok());
  pred->data<bool>()[0] = true;
  pred->data<bool>()[1] = true;
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {"init"}, &out).ok());
  absl::Status status = session->Run({{"pred", *pred}}, {"read"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("In[0] should be a scalar: [2]"));
}

}  // namespace
}  // namespace tessera
