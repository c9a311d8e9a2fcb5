// Tests of the Graph API: adding and removing nodes and edges, export and cloning.
#include "host/graph/graph.h"

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/ops/attr_util.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

tensorflow::NodeDef MakeNode(const std::string& name, const std::string& op,
                             DataType type = TSR_DTYPE_FLOAT) {
  tensorflow::NodeDef def;
  def.set_name(name);
  def.set_op(op);
  if (op == "Placeholder") {
    (*def.mutable_attr())["dtype"] = TypeAttrValue(type);
  } else if (op != "NoOp") {
    (*def.mutable_attr())["T"] = TypeAttrValue(type);
  }
  return def;
}

class GraphTest : public ::testing::Test {
 protected:
  Node* Add(const std::string& name, const std::string& op) {
    absl::StatusOr<Node*> node = graph_.AddNode(MakeNode(name, op));
    EXPECT_TRUE(node.ok()) << node.status();
    return node.ok() ? *node : nullptr;
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
  Graph graph_{ops_.get()};
};

TEST_F(GraphTest, StartsWithSourceAndSink) {
  EXPECT_EQ(graph_.num_node_ids(), 2);
  EXPECT_EQ(graph_.num_nodes(), 2);
  EXPECT_TRUE(graph_.source()->IsSource());
  EXPECT_EQ(graph_.source()->id(), 0);
  EXPECT_EQ(graph_.source()->name(), "_SOURCE");
  EXPECT_TRUE(graph_.sink()->IsSink());
  EXPECT_EQ(graph_.sink()->id(), 1);
  EXPECT_EQ(graph_.sink()->name(), "_SINK");
  EXPECT_EQ(graph_.source()->op_registration(), nullptr);
  EXPECT_FALSE(graph_.source()->IsOp());
  EXPECT_TRUE(graph_.op_nodes().empty());
}

TEST_F(GraphTest, AddNodeResolvesTypesAndDefaults) {
  Node* p = Add("p", "Placeholder");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->id(), 2);
  EXPECT_EQ(p->num_inputs(), 0);
  EXPECT_EQ(p->output_type(0), TSR_DTYPE_FLOAT);
  EXPECT_NE(p->attr("shape"), nullptr);
  EXPECT_EQ(p->op_registration()->op_def.name(), "Placeholder");
  EXPECT_EQ(graph_.FindNode("p"), p);
}

TEST_F(GraphTest, AddNodeRejectsDuplicatesUnknownOpsAndBadAttrs) {
  Add("p", "Placeholder");
  absl::StatusOr<Node*> node = graph_.AddNode(MakeNode("p", "Placeholder"));
  EXPECT_EQ(node.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(node.status().message()),
              HasSubstr("node name 'p' is used by more than one node"));

  node = graph_.AddNode(MakeNode("q", "Nope"));
  EXPECT_EQ(node.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(node.status().message()), HasSubstr("node 'q': op 'Nope'"));

  tensorflow::NodeDef unnamed = MakeNode("", "NoOp");
  node = graph_.AddNode(unnamed);
  EXPECT_EQ(node.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(node.status().message()), HasSubstr("a node of op 'NoOp' has no name"));

  tensorflow::NodeDef bad = MakeNode("r", "Relu", TSR_DTYPE_BOOL);
  node = graph_.AddNode(bad);
  EXPECT_EQ(node.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(node.status().message()), HasSubstr("attr 'T' of node 'r' (Relu)"));
}

TEST_F(GraphTest, EdgesConnectInputsAndExportAsInputs) {
  Node* a = Add("a", "Placeholder");
  Node* b = Add("b", "Placeholder");
  Node* add = Add("add", "Add");
  Node* n = Add("n", "NoOp");
  const Edge* e0 = graph_.AddEdge(a, 0, add, 0);
  graph_.AddEdge(b, 0, add, 1);
  const Edge* control = graph_.AddControlEdge(n, add);
  EXPECT_EQ(graph_.AddControlEdge(n, add), control);
  EXPECT_TRUE(control->IsControlEdge());
  EXPECT_FALSE(e0->IsControlEdge());
  EXPECT_EQ(add->input_edge(0), e0);
  EXPECT_EQ(add->in_edges().size(), 3u);
  EXPECT_EQ(a->out_edges().size(), 1u);

  add->set_assigned_device("/job:localhost/replica:0/task:0/device:CPU:0");
  tensorflow::GraphDef def = graph_.ToGraphDef();
  ASSERT_EQ(def.node_size(), 4);
  const tensorflow::NodeDef& add_def = def.node(2);
  EXPECT_EQ(add_def.name(), "add");
  ASSERT_EQ(add_def.input_size(), 3);
  EXPECT_EQ(add_def.input(0), "a");
  EXPECT_EQ(add_def.input(1), "b");
  EXPECT_EQ(add_def.input(2), "^n");
  EXPECT_EQ(add_def.device(), "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST_F(GraphTest, RemoveEdgeAndNodeLeaveHoles) {
  Node* a = Add("a", "Placeholder");
  Node* i = Add("i", "Identity");
  const Edge* e = graph_.AddEdge(a, 0, i, 0);
  const int edge_id = e->id;
  graph_.RemoveEdge(e);
  EXPECT_EQ(i->input_edge(0), nullptr);
  EXPECT_EQ(graph_.edge(edge_id), nullptr);
  EXPECT_TRUE(a->out_edges().empty());
  graph_.AddEdge(a, 0, i, 0);
  graph_.RemoveNode(a);
  EXPECT_EQ(graph_.node(2), nullptr);
  EXPECT_EQ(graph_.FindNode("a"), nullptr);
  EXPECT_EQ(i->input_edge(0), nullptr);
  EXPECT_EQ(graph_.num_node_ids(), 4);
  EXPECT_EQ(graph_.num_nodes(), 3);
  ASSERT_EQ(graph_.op_nodes().size(), 1u);
  EXPECT_EQ(graph_.op_nodes()[0], i);
}

TEST_F(GraphTest, FixupConnectsSourceAndSink) {
  Node* a = Add("a", "Placeholder");
  Node* i = Add("i", "Identity");
  graph_.AddEdge(a, 0, i, 0);
  graph_.FixupSourceAndSinkEdges();
  ASSERT_EQ(a->in_edges().size(), 1u);
  EXPECT_TRUE(a->in_edges()[0]->src->IsSource());
  ASSERT_EQ(i->out_edges().size(), 1u);
  EXPECT_TRUE(i->out_edges()[0]->dst->IsSink());
  // SOURCE/SINK edges do not appear in the GraphDef.
  EXPECT_EQ(graph_.ToGraphDef().node(0).input_size(), 0);
}

TEST_F(GraphTest, NewNameAvoidsExistingNames) {
  Add("x/_0", "NoOp");
  EXPECT_EQ(graph_.NewName("x"), "x/_1");
  EXPECT_EQ(graph_.NewName("x"), "x/_2");
}

TEST_F(GraphTest, CloneKeepsIdsEdgesDevicesAndShapes) {
  Node* a = Add("a", "Placeholder");
  Node* i = Add("i", "Identity");
  Node* gone = Add("gone", "NoOp");
  graph_.AddEdge(a, 0, i, 0);
  graph_.AddControlEdge(gone, i);
  const int gone_id = gone->id();
  graph_.RemoveNode(gone);
  graph_.AddControlEdge(a, i);
  i->set_assigned_device("/device:CPU:0");
  i->set_output_shape(0, PartialShape({2, -1}));
  graph_.versions.set_producer(7);

  std::unique_ptr<Graph> copy = graph_.Clone();
  EXPECT_EQ(copy->num_node_ids(), graph_.num_node_ids());
  EXPECT_EQ(copy->num_edge_ids(), graph_.num_edge_ids());
  EXPECT_EQ(copy->node(gone_id), nullptr);
  Node* ci = copy->FindNode("i");
  ASSERT_NE(ci, nullptr);
  EXPECT_NE(ci, i);
  EXPECT_EQ(ci->id(), i->id());
  EXPECT_EQ(ci->assigned_device(), "/device:CPU:0");
  EXPECT_EQ(ci->output_shape(0), PartialShape({2, -1}));
  ASSERT_NE(ci->input_edge(0), nullptr);
  EXPECT_EQ(ci->input_edge(0)->src, copy->FindNode("a"));
  EXPECT_EQ(ci->in_edges().size(), 2u);
  EXPECT_EQ(copy->versions.producer(), 7);
  EXPECT_EQ(copy->ToGraphDef().DebugString(), graph_.ToGraphDef().DebugString());
  // The copy is independent.
  copy->RemoveNode(ci);
  EXPECT_NE(graph_.FindNode("i"), nullptr);
}

// CloneReaching copies the roots and what they reach backwards along data and control edges,
// keeping ids; nodes and edges outside stay holes.
TEST_F(GraphTest, CloneReachingCopiesOnlyWhatTheRootsNeed) {
  Node* a = Add("a", "Placeholder");
  Node* b = Add("b", "Identity");
  Node* c = Add("c", "Identity");
  Node* ctrl = Add("ctrl", "NoOp");
  Node* other = Add("other", "Placeholder");
  Node* after = Add("after", "Identity");
  graph_.AddEdge(a, 0, b, 0);
  graph_.AddEdge(b, 0, c, 0);
  graph_.AddControlEdge(ctrl, c);
  graph_.AddEdge(c, 0, after, 0);  // downstream of the root: not needed
  graph_.FixupSourceAndSinkEdges();

  std::unique_ptr<Graph> copy = graph_.CloneReaching({c});
  EXPECT_EQ(copy->num_node_ids(), graph_.num_node_ids());
  for (const char* kept : {"a", "b", "c", "ctrl"}) {
    ASSERT_NE(copy->FindNode(kept), nullptr) << kept;
    EXPECT_EQ(copy->FindNode(kept)->id(), graph_.FindNode(kept)->id());
  }
  EXPECT_EQ(copy->FindNode("other"), nullptr);
  EXPECT_EQ(copy->FindNode("after"), nullptr);
  EXPECT_EQ(copy->node(other->id()), nullptr);
  const Node* cc = copy->FindNode("c");
  EXPECT_EQ(cc->input_edge(0)->src, copy->FindNode("b"));
  EXPECT_EQ(cc->in_edges().size(), 2u);                   // b and ctrl
  EXPECT_TRUE(cc->out_edges().empty());                   // the edge to "after" is gone with it
  EXPECT_EQ(copy->FindNode("a")->in_edges().size(), 1u);  // from SOURCE
  // Unknown roots (nullptr) are skipped; no roots leave SOURCE and SINK.
  std::unique_ptr<Graph> empty = graph_.CloneReaching({nullptr});
  EXPECT_TRUE(empty->op_nodes().empty());
  EXPECT_NE(empty->source(), nullptr);
  EXPECT_NE(empty->sink(), nullptr);
}

}  // namespace
}  // namespace tessera
