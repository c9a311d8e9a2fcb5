// A TensorFlow 2 export end to end: the MetaGraphDef tf.saved_model.save writes for a module
// (testdata/tf2_module.meta.pbtxt: a resource variable, a signature wrapper calling the traced
// function through StatefulPartitionedCall, a StatelessIf and a StatelessWhile in its body, the
// save and restore functions of an object-based checkpoint, the init op signature). The test saves
// the variable with the export's own save function, writes the SavedModel folder, and loads it
// back with TensorFlow's results, on one device and with the function bodies spread over two.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/framework/proto/trackable_object_graph.pb.h"
#include "host/saved_model/saved_model.h"
#include "host/saved_model/saved_model_test_util.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;

using testing::Floats;

// The checkpoint's object graph: the root's child "v" has its value under
// "v/.ATTRIBUTES/VARIABLE_VALUE".
std::string ObjectGraph() {
  tensorflow::TrackableObjectGraph graph;
  auto* root = graph.add_nodes();
  auto* child = root->add_children();
  child->set_node_id(1);
  child->set_local_name("v");
  auto* attribute = graph.add_nodes()->add_attributes();
  attribute->set_name("VARIABLE_VALUE");
  attribute->set_full_name("v");
  attribute->set_checkpoint_key("v/.ATTRIBUTES/VARIABLE_VALUE");
  return graph.SerializeAsString();
}

class SavedModelTf2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("tf2_saved_model");
    meta_ = testing::ReadTestMetaGraph("tf2_module.meta.pbtxt");
    for (tensorflow::NodeDef& node : *meta_.mutable_graph_def()->mutable_node()) {
      if (node.name() == "Const") {
        *(*node.mutable_attr())["value"].mutable_tensor()->mutable_string_val(0) = ObjectGraph();
      }
    }
    SaveVariable({3.0f, -4.0f});
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Gives v `value` (on two CPU devices, which every graph here may use) and saves it with the export's save function (StatefulPartitionedCall_1)
  // to DIR/variables/variables, then writes DIR/saved_model.pb.
  void SaveVariable(const std::vector<float>& value) {
    tensorflow::GraphDef graph = meta_.graph_def();
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        absl::StrCat(R"pb(
          node {
            name: "test/value"
            op: "Const"
            attr { key: "dtype" value { type: DT_FLOAT } }
            attr {
              key: "value"
              value {
                tensor {
                  dtype: DT_FLOAT
                  tensor_shape { dim { size: 2 } }
                  float_val: )pb",
                     value[0], " float_val: ", value[1], R"pb(
                }
              }
            }
          }
          node {
            name: "test/assign"
            op: "AssignVariableOp"
            input: "v"
            input: "test/value"
            attr { key: "dtype" value { type: DT_FLOAT } }
          })pb"),
        &graph_addition_));
    graph.mutable_node()->MergeFrom(graph_addition_.node());
    SessionOptions options;
    options.device_count["CPU"] = 2;
    testing::RunInitAndSave(graph, meta_.saver_def(), {"test/assign"},
                            (dir_ / "variables" / "variables").string(), options);
    testing::WriteSavedModel(dir_, meta_);
  }

  fs::path dir_;
  tensorflow::MetaGraphDef meta_;
  tensorflow::GraphDef graph_addition_;
};

TEST_F(SavedModelTf2Test, TheSaveFunctionWritesAnObjectBasedCheckpoint) {
  absl::StatusOr<std::unique_ptr<checkpoint::BundleReader>> reader =
      checkpoint::BundleReader::Open((dir_ / "variables" / "variables").string());
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<Tensor> value = (*reader)->Lookup("v/.ATTRIBUTES/VARIABLE_VALUE");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_THAT(Floats(*value), ElementsAre(3.0f, -4.0f));
  absl::StatusOr<Tensor> graph = (*reader)->Lookup("_CHECKPOINTABLE_OBJECT_GRAPH");
  ASSERT_TRUE(graph.ok()) << graph.status();
  tensorflow::TrackableObjectGraph parsed;
  ASSERT_TRUE(parsed.ParseFromString(graph->flat<std::string>()[0]));
  EXPECT_EQ(parsed.nodes(1).attributes(0).checkpoint_key(), "v/.ATTRIBUTES/VARIABLE_VALUE");
}

TEST_F(SavedModelTf2Test, LoadsAndServesWithTheIfAndTheWhileLoop) {
  absl::StatusOr<SavedModelBundle> bundle = LoadSavedModel(SessionOptions(), dir_.string());
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  // The init op's signature is not one of the model's.
  ASSERT_EQ(bundle->signatures.size(), 1u);
  EXPECT_EQ(bundle->meta_graph.object_graph_def().nodes(1).variable().name(), "v");
  // The init op (the __saved_model_init_op signature's NoOp) ran: it set steps to 100.
  std::vector<Tensor> steps;
  ASSERT_TRUE(bundle->session->Run({}, {"steps/Read/ReadVariableOp:0"}, {}, &steps).ok());
  EXPECT_EQ(*steps[0].data<int32_t>(), 100);
  // v = [3, -4] restored; x = [1, 1]: x * v = [3, -4], sum(x) > 0 adds 1, the loop doubles 3 times.
  absl::StatusOr<std::map<std::string, Tensor>> out =
      RunSignature(*bundle, "serving_default", {{"x", Tensor::Vector<float>({1.0f, 1.0f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats(out->at("output_0")), ElementsAre(32.0f, -24.0f));
  // sum(x) <= 0 takes the else branch: x * v - 1 = [-4, 3], doubled 3 times.
  out = RunSignature(*bundle, "serving_default", {{"x", Tensor::Vector<float>({-1.0f, -1.0f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats(out->at("output_0")), ElementsAre(-32.0f, 24.0f));
}

TEST_F(SavedModelTf2Test, FunctionBodiesSpreadOverTwoDevicesGiveTheSameResults) {
  // The traced function's multiply and its loop on the second CPU device, the rest on the first:
  // the placer and partitioner see the inlined bodies and add the transfers.
  for (tensorflow::FunctionDef& function : *meta_.mutable_graph_def()->mutable_library()
                                                ->mutable_function()) {
    if (function.signature().name() != "__inference___call___90") continue;
    for (tensorflow::NodeDef& node : *function.mutable_node_def()) {
      if (node.name() == "mul" || node.name() == "while") node.set_device("/device:CPU:1");
    }
  }
  SaveVariable({3.0f, -4.0f});
  SessionOptions options;
  options.device_count["CPU"] = 2;
  absl::StatusOr<SavedModelBundle> bundle = LoadSavedModel(options, dir_.string());
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  RunOptions run_options;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status run = bundle->session->Run(
      run_options, {{"serving_default_x:0", Tensor::Vector<float>({1.0f, 1.0f})}},
      {"StatefulPartitionedCall:0"}, {}, &out, &metadata);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(Floats(out[0]), ElementsAre(32.0f, -24.0f));
  EXPECT_EQ(metadata.partition_devices.size(), 2u);
}

}  // namespace
}  // namespace tessera
