// Tests of BuildControlFlowInfo: frames of a TensorFlow-style while loop, nesting, and each error.
#include "host/graph/control_flow.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// A counting loop in the form tf.while_loop emits, with the predicate fed as a loop invariant.
constexpr char kLoop[] = R"pb(
  node {
    name: "start"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "p"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_BOOL }
    }
  }
  node {
    name: "while/Enter"
    op: "Enter"
    input: "start"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "frame_name"
      value { s: "while/ctx" }
    }
    attr {
      key: "parallel_iterations"
      value { i: 4 }
    }
  }
  node {
    name: "while/p"
    op: "Enter"
    input: "p"
    attr {
      key: "T"
      value { type: DT_BOOL }
    }
    attr {
      key: "frame_name"
      value { s: "while/ctx" }
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
      value { type: DT_FLOAT }
    }
    attr {
      key: "N"
      value { i: 2 }
    }
  }
  node { name: "while/LoopCond" op: "LoopCond" input: "while/p" }
  node {
    name: "while/Switch"
    op: "Switch"
    input: "while/Merge"
    input: "while/LoopCond"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "while/Identity"
    op: "Identity"
    input: "while/Switch:1"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "while/NextIteration"
    op: "NextIteration"
    input: "while/Identity"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "while/Exit"
    op: "Exit"
    input: "while/Switch"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "out"
    op: "Identity"
    input: "while/Exit"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

class ControlFlowTest : public ::testing::Test {
 protected:
  std::unique_ptr<Graph> Import(const std::string& text) {
    tensorflow::GraphDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
    absl::StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(def, *ops_);
    EXPECT_TRUE(graph.ok()) << graph.status();
    return graph.ok() ? std::move(*graph) : nullptr;
  }
  int FrameOf(const Graph& graph, const ControlFlowInfo& info, const std::string& name) {
    return info.node_frame[graph.FindNode(name)->id()];
  }
  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

TEST_F(ControlFlowTest, AssignsLoopNodesToTheirFrame) {
  std::unique_ptr<Graph> graph = Import(kLoop);
  ASSERT_NE(graph, nullptr);
  absl::StatusOr<ControlFlowInfo> info = BuildControlFlowInfo(*graph);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->frames.size(), 2u);
  EXPECT_TRUE(info->has_loops());
  const FrameInfo& loop = info->frames[1];
  EXPECT_EQ(loop.name, "while/ctx");
  EXPECT_EQ(loop.parent, 0);
  EXPECT_EQ(loop.depth, 1);
  EXPECT_EQ(loop.parallel_iterations, 4);
  // A hostile value runs with the most there may be; a non-positive one with TensorFlow's 10.
  for (auto [given, used] : std::vector<std::pair<std::string, int>>{
           {"2147483647", kMaxParallelIterations}, {"0", 10}, {"-3", 10}}) {
    std::string text = kLoop;
    for (size_t at = text.find("i: 4"); at != std::string::npos; at = text.find("i: 4", at)) {
      text.replace(at, 4, "i: " + given);
    }
    std::unique_ptr<Graph> other = Import(text);
    ASSERT_NE(other, nullptr);
    absl::StatusOr<ControlFlowInfo> other_info = BuildControlFlowInfo(*other);
    ASSERT_TRUE(other_info.ok()) << other_info.status();
    EXPECT_EQ(other_info->frames[1].parallel_iterations, used) << given;
  }
  EXPECT_EQ(loop.enters.size(), 2u);
  EXPECT_EQ(loop.loop_cond, graph->FindNode("while/LoopCond"));
  // Enter runs where its input is; everything it feeds is in the loop; Exit's consumer is outside.
  EXPECT_EQ(FrameOf(*graph, *info, "while/Enter"), 0);
  for (const char* name : {"while/Merge", "while/LoopCond", "while/Switch", "while/Identity",
                           "while/NextIteration", "while/Exit"}) {
    EXPECT_EQ(FrameOf(*graph, *info, name), 1) << name;
  }
  EXPECT_EQ(FrameOf(*graph, *info, "out"), 0);
  EXPECT_EQ(info->OutputFrame(*graph->FindNode("while/Enter")), 1);
  EXPECT_EQ(info->OutputFrame(*graph->FindNode("while/Exit")), 0);
  EXPECT_EQ(info->OutputFrame(*graph->FindNode("while/Merge")), 1);
  EXPECT_EQ(info->FindFrame("nope"), -1);
}

TEST_F(ControlFlowTest, GraphWithoutLoopsHasOnlyTheRootFrame) {
  std::unique_ptr<Graph> graph = Import(R"pb(
    node {
      name: "a"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "b"
      op: "Identity"
      input: "a"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    })pb");
  absl::StatusOr<ControlFlowInfo> info = BuildControlFlowInfo(*graph);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE(info->has_loops());
  EXPECT_EQ(FrameOf(*graph, *info, "b"), 0);
}

void ExpectError(const absl::StatusOr<ControlFlowInfo>& info, const std::string& message) {
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument) << info.status();
  EXPECT_THAT(std::string(info.status().message()), HasSubstr(message));
}

TEST_F(ControlFlowTest, EnterWithoutFrameNameIsAnError) {
  std::string text = kLoop;
  text.replace(text.find("s: \"while/ctx\""), 14, "s: \"\"");
  std::unique_ptr<Graph> graph = Import(text);
  ExpectError(BuildControlFlowInfo(*graph), "Enter node 'while/Enter' (Enter) has no frame_name");
}

TEST_F(ControlFlowTest, InputsFromTwoFramesAreAnError) {
  std::string text = kLoop;
  text += R"pb(node {
                 name: "mix"
                 op: "AddV2"
                 input: "while/Identity"
                 input: "start"
                 attr {
                   key: "T"
                   value { type: DT_FLOAT }
                 }
               })pb";
  std::unique_ptr<Graph> graph = Import(text);
  ExpectError(BuildControlFlowInfo(*graph), "node 'mix' (AddV2) has inputs from different frames");
}

TEST_F(ControlFlowTest, ExitOutsideALoopIsAnError) {
  std::unique_ptr<Graph> graph = Import(R"pb(
    node {
      name: "a"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "x"
      op: "Exit"
      input: "a"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    })pb");
  ExpectError(BuildControlFlowInfo(*graph), "Exit node 'x' (Exit) is not inside a loop frame");
}

TEST_F(ControlFlowTest, TwoLoopCondsInOneFrameAreAnError) {
  std::string text = kLoop;
  text += R"pb(node { name: "while/LoopCond2" op: "LoopCond" input: "while/p" })pb";
  std::unique_ptr<Graph> graph = Import(text);
  ExpectError(BuildControlFlowInfo(*graph), "frame 'while/ctx' has two LoopCond nodes");
}

TEST_F(ControlFlowTest, OneFrameNameEnteredFromTwoFramesIsAnError) {
  std::string text = kLoop;
  text += R"pb(node {
                 name: "inner"
                 op: "Enter"
                 input: "while/Identity"
                 attr {
                   key: "T"
                   value { type: DT_FLOAT }
                 }
                 attr {
                   key: "frame_name"
                   value { s: "while/ctx" }
                 }
               })pb";
  std::unique_ptr<Graph> graph = Import(text);
  ExpectError(BuildControlFlowInfo(*graph),
              "frame 'while/ctx' is entered from two different frames");
}

}  // namespace
}  // namespace tessera
