// Tests of ImportGraphDef: each validation fault, defaults, edges, cycles and shape inference.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/graph/graph.h"
#include "host/graph/graph_extend.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

class ImportTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::unique_ptr<Graph>> Import(const std::string& text) {
    tensorflow::GraphDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
    return ImportGraphDef(def, *ops_);
  }

  void ExpectError(const std::string& text, absl::StatusCode code, const std::string& message) {
    absl::StatusOr<std::unique_ptr<Graph>> graph = Import(text);
    ASSERT_FALSE(graph.ok()) << text;
    EXPECT_EQ(graph.status().code(), code) << graph.status();
    EXPECT_THAT(std::string(graph.status().message()), HasSubstr(message));
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

constexpr char kPlaceholders[] = R"pb(
  node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
  node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 3 } dim { size: 4 } } } } }
)pb";

TEST_F(ImportTest, ImportsMatMulWithEdgesShapesAndDefaults) {
  absl::StatusOr<std::unique_ptr<Graph>> graph = Import(std::string(kPlaceholders) + R"pb(
    node { name: "m" op: "MatMul" input: "a" input: "b:0"
           attr { key: "T" value { type: DT_FLOAT } } }
    versions { producer: 1234 }
  )pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  Node* m = (*graph)->FindNode("m");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->num_inputs(), 2);
  EXPECT_EQ(m->num_outputs(), 1);
  EXPECT_EQ(m->input_type(0), TSR_DTYPE_FLOAT);
  EXPECT_EQ(m->output_type(0), TSR_DTYPE_FLOAT);
  ASSERT_NE(m->attr("transpose_a"), nullptr);
  EXPECT_FALSE(m->attr("transpose_a")->b());
  EXPECT_EQ(m->output_shape(0), PartialShape({2, 4}));
  EXPECT_EQ(m->input_edge(0)->src->name(), "a");
  EXPECT_EQ(m->input_edge(1)->src->name(), "b");
  EXPECT_EQ((*graph)->versions.producer(), 1234);
  // SOURCE feeds the placeholders, m feeds SINK.
  Node* a = (*graph)->FindNode("a");
  ASSERT_EQ(a->in_edges().size(), 1u);
  EXPECT_TRUE(a->in_edges()[0]->src->IsSource());
  EXPECT_TRUE(a->in_edges()[0]->IsControlEdge());
  ASSERT_EQ(m->out_edges().size(), 1u);
  EXPECT_TRUE(m->out_edges()[0]->dst->IsSink());
  EXPECT_EQ((*graph)->op_nodes().size(), 3u);
}

TEST_F(ImportTest, FillsPlaceholderShapeDefaultAsUnknownRank) {
  absl::StatusOr<std::unique_ptr<Graph>> graph = Import(R"pb(
    node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } })pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  Node* p = (*graph)->FindNode("p");
  ASSERT_NE(p->attr("shape"), nullptr);
  EXPECT_TRUE(p->attr("shape")->shape().unknown_rank());
  EXPECT_FALSE(p->output_shape(0).rank_known());
}

TEST_F(ImportTest, RejectsUnknownOp) {
  ExpectError(R"pb(node { name: "x" op: "Frobnicate" })pb", absl::StatusCode::kNotFound,
              "node 'x': op 'Frobnicate' is not registered (no standard definition and no "
              "plugin defines it)");
}

TEST_F(ImportTest, RejectsMissingInputNode) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "b2" op: "Add" input: "a" input: "missing"
           attr { key: "T" value { type: DT_FLOAT } } })pb",
              absl::StatusCode::kInvalidArgument,
              "node 'b2' (Add): input 1 refers to node 'missing', which is not in the graph");
}

TEST_F(ImportTest, RejectsMissingControlInputNode) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "n" op: "NoOp" input: "^ghost" })pb",
              absl::StatusCode::kInvalidArgument,
              "node 'n' (NoOp): control input '^ghost' refers to node 'ghost', which is not in "
              "the graph");
}

TEST_F(ImportTest, RejectsBadOutputIndex) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "i" op: "Identity" input: "a:3" attr { key: "T" value { type: DT_FLOAT } } })pb",
              absl::StatusCode::kInvalidArgument,
              "input 0 'a:3' refers to output 3 of 'a', but 'a' has 1 outputs");
}

TEST_F(ImportTest, RejectsWrongAttrType) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "x" op: "Add" input: "a" input: "a" attr { key: "T" value { i: 3 } } })pb",
              absl::StatusCode::kInvalidArgument,
              "attr 'T' of node 'x' (Add): expected type, got int");
}

TEST_F(ImportTest, RejectsMissingRequiredAttr) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "x" op: "Add" input: "a" input: "a" })pb",
              absl::StatusCode::kInvalidArgument, "node 'x' (Add) is missing required attr 'T'");
}

TEST_F(ImportTest, RejectsTypeNotInAllowedList) {
  ExpectError(R"pb(
    node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
    node { name: "x" op: "Relu" input: "p" attr { key: "T" value { type: DT_BOOL } } })pb",
              absl::StatusCode::kInvalidArgument,
              "attr 'T' of node 'x' (Relu): value bool is not in the allowed list {float,");
}

TEST_F(ImportTest, RejectsStringNotInAllowedList) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "x" op: "BiasAdd" input: "a" input: "a"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "data_format" value { s: "NCDHW" } } })pb",
              absl::StatusCode::kInvalidArgument,
              "attr 'data_format' of node 'x' (BiasAdd): value \"NCDHW\" is not in the allowed "
              "list {\"NHWC\", \"NCHW\"}");
}

TEST_F(ImportTest, RejectsAttrBelowMinimum) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "k" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node { name: "c" op: "ConcatV2" input: "a" input: "k"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 1 } } })pb",
              absl::StatusCode::kInvalidArgument,
              "attr 'N' of node 'c' (ConcatV2): value 1 is less than the minimum 2");
}

TEST_F(ImportTest, RejectsUndefinedAttr) {
  ExpectError(R"pb(node { name: "n" op: "NoOp" attr { key: "color" value { s: "red" } } })pb",
              absl::StatusCode::kInvalidArgument,
              "node 'n' (NoOp) has attr 'color', which op 'NoOp' does not define");
}

TEST_F(ImportTest, AllowsInternalAttrs) {
  EXPECT_TRUE(Import(R"pb(node { name: "n" op: "NoOp"
                                 attr { key: "_class" value { list { s: "loc:@x" } } } })pb")
                  .ok());
}

TEST_F(ImportTest, RejectsUnsupportedReferenceType) {
  ExpectError(R"pb(
    node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT_REF } } })pb",
              absl::StatusCode::kInvalidArgument,
              "attr 'dtype' of node 'p' (Placeholder): type float_ref is not supported");
}

TEST_F(ImportTest, RejectsWrongNumberOfInputs) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "x" op: "Add" input: "a" attr { key: "T" value { type: DT_FLOAT } } })pb",
              absl::StatusCode::kInvalidArgument,
              "node 'x' (Add) has 1 data inputs, expected 2");
}

TEST_F(ImportTest, RejectsInputDtypeMismatch) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "x" op: "Add" input: "a" input: "i"
           attr { key: "T" value { type: DT_FLOAT } } })pb",
              absl::StatusCode::kInvalidArgument,
              "node 'x' (Add): input 1 'i' has type int32, expected float");
}

TEST_F(ImportTest, RejectsDuplicateNodeName) {
  ExpectError(R"pb(node { name: "n" op: "NoOp" } node { name: "n" op: "NoOp" })pb",
              absl::StatusCode::kInvalidArgument, "duplicate node name 'n' (node 1)");
}

TEST_F(ImportTest, RejectsMalformedNodeName) {
  ExpectError(R"pb(node { name: "bad name" op: "NoOp" })pb", absl::StatusCode::kInvalidArgument,
              "node 0 (NoOp) has name 'bad name', which does not match");
  ExpectError(R"pb(node { name: "_internal" op: "NoOp" })pb",
              absl::StatusCode::kInvalidArgument, "has name '_internal'");
  ExpectError(R"pb(node { name: "" op: "NoOp" })pb", absl::StatusCode::kInvalidArgument,
              "has name ''");
}

TEST_F(ImportTest, RejectsMalformedInputName) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "i" op: "Identity" input: "a:x" attr { key: "T" value { type: DT_FLOAT } } })pb",
              absl::StatusCode::kInvalidArgument,
              "node 'i' (Identity): input 0: tensor name 'a:x' is malformed");
}

TEST_F(ImportTest, RejectsControlInputBeforeDataInput) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "i" op: "Identity" input: "^b" input: "a"
           attr { key: "T" value { type: DT_FLOAT } } })pb",
              absl::StatusCode::kInvalidArgument,
              "node 'i' (Identity): data input 'a' comes after control input '^b'; control "
              "inputs must come last");
}

TEST_F(ImportTest, ReportsCycleInOrder) {
  ExpectError(R"pb(
    node { name: "x" op: "NoOp" }
    node { name: "a" op: "NoOp" input: "^c" }
    node { name: "b" op: "NoOp" input: "^a" }
    node { name: "c" op: "NoOp" input: "^b" input: "^x" }
    node { name: "d" op: "NoOp" input: "^c" })pb",
              absl::StatusCode::kInvalidArgument, "graph has a cycle: a -> b -> c -> a");
}

TEST_F(ImportTest, ReportsDataSelfLoop) {
  ExpectError(R"pb(
    node { name: "i" op: "Identity" input: "i" attr { key: "T" value { type: DT_FLOAT } } })pb",
              absl::StatusCode::kInvalidArgument, "graph has a cycle: i -> i");
}

TEST_F(ImportTest, AllowsNextIterationBackEdge) {
  absl::StatusOr<std::unique_ptr<Graph>> graph = Import(R"pb(
    node { name: "init" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node { name: "enter" op: "Enter" input: "init" attr { key: "T" value { type: DT_INT32 } }
           attr { key: "frame_name" value { s: "loop" } } }
    node { name: "merge" op: "Merge" input: "enter" input: "next"
           attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
    node { name: "next" op: "NextIteration" input: "merge"
           attr { key: "T" value { type: DT_INT32 } } })pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  // The back edge's shape is not known yet when Merge is inferred.
  EXPECT_FALSE((*graph)->FindNode("merge")->output_shape(0).rank_known());
  EXPECT_EQ((*graph)->FindNode("merge")->output_shape(1), PartialShape::Scalar());
}

TEST_F(ImportTest, ReportsShapeErrorsWithNodeContext) {
  ExpectError(std::string(kPlaceholders) + R"pb(
    node { name: "m" op: "MatMul" input: "a" input: "a"
           attr { key: "T" value { type: DT_FLOAT } } })pb",
              absl::StatusCode::kInvalidArgument,
              "while inferring shapes for node 'm' (MatMul): MatMul: dimensions must be equal, "
              "but are 3 and 2 for 'm' with input shapes: [2,3], [2,3]");
}

TEST_F(ImportTest, UsesConstantAndShapeValuesForShapes) {
  absl::StatusOr<std::unique_ptr<Graph>> graph = Import(std::string(kPlaceholders) + R"pb(
    node { name: "s" op: "Shape" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "r" op: "Reshape" input: "a" input: "s"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "k" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                                                int_val: 1 } } } }
    node { name: "sum" op: "Sum" input: "a" input: "k"
           attr { key: "T" value { type: DT_FLOAT } } })pb");
  // a has 6 elements, b's shape [3,4] has 12: the reshape is invalid.
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(std::string(graph.status().message()),
              HasSubstr("cannot reshape a tensor with 6 elements to shape [3,4] (12 elements)"));

  graph = Import(std::string(kPlaceholders) + R"pb(
    node { name: "k" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                                                int_val: 1 } } } }
    node { name: "sum" op: "Sum" input: "a" input: "k"
           attr { key: "T" value { type: DT_FLOAT } } })pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ((*graph)->FindNode("sum")->output_shape(0), PartialShape({2}));
}

TEST_F(ImportTest, RejectsConstWithMismatchedDtype) {
  ExpectError(R"pb(
    node { name: "k" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } })pb",
              absl::StatusCode::kInvalidArgument,
              "Const: value has dtype int32, but attr dtype is float for 'k'");
}

TEST_F(ImportTest, KeepsLibrary) {
  absl::StatusOr<std::unique_ptr<Graph>> graph = Import(R"pb(
    library { function { signature { name: "F" } } })pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_EQ((*graph)->library.function_size(), 1);
  EXPECT_EQ((*graph)->ToGraphDef().library().function(0).signature().name(), "F");
}

// Importing from an rvalue moves the nodes out of the GraphDef and gives the same graph.
TEST_F(ImportTest, ImportFromAnRvalueTakesTheNodesAndGivesTheSameGraph) {
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }"
      "node { name: 'y' op: 'Identity' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } }"
      "versions { producer: 9 }",
      &def));
  absl::StatusOr<std::unique_ptr<Graph>> copied = ImportGraphDef(def, *ops_);
  ASSERT_TRUE(copied.ok()) << copied.status();
  absl::StatusOr<std::unique_ptr<Graph>> moved = ImportGraphDef(std::move(def), *ops_);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ((*moved)->ToGraphDef().DebugString(), (*copied)->ToGraphDef().DebugString());
  EXPECT_EQ(def.node_size(), 0);  // NOLINT(bugprone-use-after-move): moved-from is documented
  // Errors are the same too.
  tensorflow::GraphDef bad;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString("node { name: 'z' op: 'Nope' }", &bad));
  absl::StatusOr<std::unique_ptr<Graph>> refused_copy = ImportGraphDef(bad, *ops_);
  absl::StatusOr<std::unique_ptr<Graph>> refused = ImportGraphDef(std::move(bad), *ops_);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(refused.status().message(), HasSubstr("Nope"));
  EXPECT_EQ(refused.status(), refused_copy.status());
}

class ExtendTest : public ImportTest {
 protected:
  std::vector<tensorflow::NodeDef> Nodes(const std::string& text) {
    tensorflow::GraphDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
    return {def.node().begin(), def.node().end()};
  }
};

TEST_F(ExtendTest, AddsNodesWithEdgesAndShapes) {
  absl::StatusOr<std::unique_ptr<Graph>> graph = Import(kPlaceholders);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<Node*> added;
  ASSERT_TRUE(ExtendGraph(graph->get(), Nodes(R"pb(
    node { name: "mm" op: "MatMul" input: "a" input: "b"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "r" op: "Relu" input: "mm" attr { key: "T" value { type: DT_FLOAT } } }
  )pb"), &added).ok());
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(added[1]->output_shape(0).ToString(), "[2,4]");
  EXPECT_EQ(added[1]->input_edge(0)->src, added[0]);
}

TEST_F(ExtendTest, FailuresLeaveTheGraphUnchanged) {
  absl::StatusOr<std::unique_ptr<Graph>> graph = Import(kPlaceholders);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const int before = (*graph)->num_nodes();
  auto expect_error = [&](const std::string& text, const std::string& message) {
    absl::Status status = ExtendGraph(graph->get(), Nodes(text));
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(message));
    EXPECT_EQ((*graph)->num_nodes(), before);
    EXPECT_EQ((*graph)->FindNode("ok"), nullptr);
  };
  const std::string ok =
      R"pb(node { name: "ok" op: "Relu" input: "a" attr { key: "T" value { type: DT_FLOAT } } })pb";
  expect_error(ok + R"pb(node { name: "a" op: "NoOp" })pb", "'a' (NoOp): the name is already used");
  expect_error(ok + R"pb(node { name: "ok" op: "NoOp" })pb", "already used");
  expect_error(ok + R"pb(node { name: "-bad" op: "NoOp" })pb", "does not match");
  expect_error(ok + R"pb(node { name: "c" op: "Relu" input: "nowhere"
                                attr { key: "T" value { type: DT_FLOAT } } })pb", "nowhere");
  expect_error(ok + R"pb(node { name: "m" op: "MatMul" input: "a" input: "a"
                                attr { key: "T" value { type: DT_FLOAT } } })pb",
               "dimensions must be equal");
  expect_error(ok + R"pb(
    node { name: "p" op: "Relu" input: "q" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "q" op: "Relu" input: "p" attr { key: "T" value { type: DT_FLOAT } } }
  )pb", "graph has a cycle: p -> q -> p");
}

}  // namespace
}  // namespace tessera
