// Every error of the SavedModel and MetaGraphDef loaders, with its code and message: missing,
// corrupt and inconsistent SavedModels (tags, variables, signatures, assets, init ops, function
// libraries), `.meta` files, and signatures run with the wrong inputs.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/saved_model/saved_model.h"
#include "host/saved_model/saved_model_test_util.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class SavedModelErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("saved_model_errors");
    meta_ = testing::ReadTestMetaGraph("tf1_half_plus_two.meta.pbtxt");
  }
  void TearDown() override { fs::remove_all(dir_); }

  absl::Status Load(const std::vector<std::string>& tags = {"serve"}) {
    SavedModelLoadOptions load;
    load.tags = tags;
    return LoadSavedModel(SessionOptions(), dir_.string(), load).status();
  }
  std::string Dir() const { return dir_.string(); }

  fs::path dir_;
  tensorflow::MetaGraphDef meta_;
};

TEST_F(SavedModelErrorsTest, MissingAndUnreadableSavedModels) {
  absl::Status status = LoadSavedModel(SessionOptions(), Dir() + "/nowhere").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), absl::StrCat("SavedModel folder '", Dir(), "/nowhere' does not exist"));

  status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), absl::StrCat("SavedModel folder '", Dir(),
                                           "' has no saved_model.pb or saved_model.pbtxt"));

  std::ofstream(dir_ / "saved_model.pb") << "\xff\xff\xff not a protobuf";
  status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith(absl::StrCat("SavedModel file '", Dir(),
                                      "/saved_model.pb' is not a valid binary SavedModel (")));

  fs::remove(dir_ / "saved_model.pb");
  std::ofstream(dir_ / "saved_model.pbtxt") << "meta_graphs { graph_def { node { name: ";
  status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith(absl::StrCat("SavedModel file '", Dir(),
                                      "/saved_model.pbtxt' is not a valid text SavedModel: 1:")));

  std::ofstream(dir_ / "saved_model.pbtxt") << "saved_model_schema_version: 1";
  status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), absl::StrCat("SavedModel in '", Dir(), "' has no MetaGraph"));
}

TEST_F(SavedModelErrorsTest, TagsThatNoMetaGraphHasListTheTagSets) {
  testing::WriteTf1SavedModel(dir_, meta_);
  absl::Status status = Load({"serve", "gpu"});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(),
            absl::StrCat("SavedModel '", Dir(),
                         "' (see tessera show --saved-model): no MetaGraph has the tag-set "
                         "{ gpu, serve }; the SavedModel's tag-sets are { serve }"));
  // Tags match as a set: order and repeats do not matter.
  EXPECT_TRUE(Load({"serve", "serve"}).ok());
}

TEST_F(SavedModelErrorsTest, MissingOrCorruptVariables) {
  testing::WriteTf1SavedModel(dir_, meta_);
  const std::string prefix = Dir() + "/variables/variables";
  fs::copy_file(prefix + ".data-00000-of-00001", Dir() + "/data.bak");
  std::ofstream(prefix + ".data-00000-of-00001", std::ios::trunc) << "short";
  absl::Status status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(std::string(status.message()),
              StartsWith(absl::StrCat("SavedModel '", Dir(), "': restoring the variables from '",
                                      prefix, "' (save/restore_all): ")));

  fs::remove_all(dir_ / "variables");
  status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(),
            absl::StrCat("SavedModel '", Dir(),
                         "' has a saver (restore op 'save/restore_all') but no variables: '",
                         prefix, ".index' does not exist"));
}

TEST_F(SavedModelErrorsTest, SignaturesMustNameTensorsOfTheGraph) {
  auto& signature = (*meta_.mutable_signature_def())["serving_default"];
  (*signature.mutable_outputs())["y"].set_name("missing:0");
  testing::WriteTf1SavedModel(dir_, meta_);
  absl::Status status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(),
            absl::StrCat("SavedModel '", Dir(),
                         "': signature 'serving_default' output 'y' names tensor 'missing:0', but "
                         "the graph has no node 'missing'"));

  // A TensorInfo without a name (a composite tensor) loads; running the signature is refused,
  // the other signatures run.
  (*signature.mutable_outputs())["y"].clear_name();
  testing::WriteSavedModel(dir_, meta_);
  absl::StatusOr<SavedModelBundle> bundle = LoadSavedModel(SessionOptions(), Dir());
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  absl::StatusOr<std::map<std::string, Tensor>> out =
      RunSignature(*bundle, "serving_default", {{"x", Tensor::Vector<float>({1.0f})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(out.status().message(),
            "signature 'serving_default' output 'y' is not a dense tensor");
  EXPECT_TRUE(RunSignature(*bundle, "with_counter", {{"x", Tensor::Vector<float>({1.0f})}}).ok());
  // So is a sparse input.
  auto* sparse = (*bundle->signatures["with_counter"].mutable_inputs())["x"].mutable_coo_sparse();
  sparse->set_values_tensor_name("x:0");
  out = RunSignature(*bundle, "with_counter", {{"x", Tensor::Vector<float>({1.0f})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(out.status().message(), "signature 'with_counter' input 'x' is not a dense tensor");

  (*signature.mutable_inputs())["x"].set_name("");
  (*signature.mutable_outputs())["y"].set_name("y:0");
  testing::WriteSavedModel(dir_, meta_);
  status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            absl::StrCat("SavedModel '", Dir(),
                         "': signature 'serving_default' input 'x' names '', which is not a "
                         "tensor name"));
}

TEST_F(SavedModelErrorsTest, AssetNamesStayInsideTheAssetsFolder) {
  testing::WriteTf1SavedModel(dir_, meta_);
  for (const std::string& name : {std::string("/etc/passwd"), std::string("../saved_model.pb"),
                                  std::string("sub/../../x")}) {
    meta_.mutable_asset_file_def(0)->set_filename(name);
    testing::WriteSavedModel(dir_, meta_);
    absl::Status status = Load();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message(), absl::StrCat("SavedModel '", Dir(), "': asset 0 file '", name,
                                             "' is not a name inside assets/"));
  }
  meta_.mutable_asset_file_def(0)->clear_filename();
  testing::WriteSavedModel(dir_, meta_);
  absl::Status status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            absl::StrCat("SavedModel '", Dir(), "': asset 0 names no tensor or no file"));

  meta_.clear_asset_file_def();
  (*meta_.mutable_collection_def())["saved_model_assets"].mutable_any_list()->add_value()->PackFrom(
      meta_.saver_def());
  testing::WriteSavedModel(dir_, meta_);
  status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            absl::StrCat("SavedModel '", Dir(),
                         "': collection 'saved_model_assets' holds a "
                         "'type.googleapis.com/tensorflow.SaverDef' that is not an AssetFileDef"));
}

TEST_F(SavedModelErrorsTest, InitOpsAreChosenInTensorFlowsOrder) {
  // legacy_init_op runs when there is no main op.
  testing::WriteTf1SavedModel(dir_, meta_);
  auto& collections = *meta_.mutable_collection_def();
  collections["legacy_init_op"] = collections["saved_model_main_op"];
  collections.erase("saved_model_main_op");
  testing::WriteSavedModel(dir_, meta_);
  absl::StatusOr<SavedModelBundle> bundle = LoadSavedModel(SessionOptions(), Dir());
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  absl::StatusOr<std::map<std::string, Tensor>> out =
      RunSignature(*bundle, "with_counter", {{"x", Tensor::Vector<float>({1.0f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(testing::Floats(out->at("z")), ::testing::ElementsAre(9.5f));

  // The init op signature wins over the collections. Without the asset path both candidates
  // fail, and the error names the one that ran: the signature's main_op, not the collection's
  // check_asset/Assert.
  collections["legacy_init_op"].mutable_node_list()->set_value(0, "check_asset/Assert");
  auto& init = (*meta_.mutable_signature_def())["__saved_model_init_op"];
  (*init.mutable_outputs())["__saved_model_init_op"].set_name("main_op");
  meta_.clear_asset_file_def();  // the Assert fails without its asset path
  testing::WriteSavedModel(dir_, meta_);
  absl::Status status = Load();
  EXPECT_THAT(std::string(status.message()), StartsWith(absl::StrCat(
                                                 "SavedModel '", Dir(),
                                                 "': running the init op 'main_op': ")));

  // An init op signature without its output is FAILED_PRECONDITION; one whose output names no
  // node runs nothing.
  init.mutable_outputs()->clear();
  (*init.mutable_outputs())["other"].set_name("main_op");
  testing::WriteSavedModel(dir_, meta_);
  status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), absl::StrCat("SavedModel '", Dir(),
                                           "': signature '__saved_model_init_op' has no output "
                                           "'__saved_model_init_op'"));
  init.mutable_outputs()->clear();
  (*init.mutable_outputs())["__saved_model_init_op"].set_name("");
  testing::WriteSavedModel(dir_, meta_);
  EXPECT_TRUE(Load().ok()) << Load();
}

TEST_F(SavedModelErrorsTest, TheMetaGraphIsChosenAmongSeveral) {
  testing::WriteTf1SavedModel(dir_, meta_);
  tensorflow::SavedModel model;
  model.set_saved_model_schema_version(1);
  tensorflow::MetaGraphDef* train = model.add_meta_graphs();
  train->mutable_meta_info_def()->add_tags("train");
  *model.add_meta_graphs() = meta_;
  std::ofstream(dir_ / "saved_model.pb", std::ios::binary) << model.SerializeAsString();
  absl::StatusOr<const tensorflow::MetaGraphDef*> found = FindMetaGraph(model, {"serve"});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, &model.meta_graphs(1));
  EXPECT_TRUE(Load().ok()) << Load();
  absl::Status status = Load({"gpu"});
  EXPECT_EQ(status.message(),
            absl::StrCat("SavedModel '", Dir(),
                         "' (see tessera show --saved-model): no MetaGraph has the tag-set "
                         "{ gpu }; the SavedModel's tag-sets are { train }, { serve }"));
}

TEST_F(SavedModelErrorsTest, AssetsMustExistAndInitOpsMustBeOne) {
  testing::WriteTf1SavedModel(dir_, meta_);
  fs::remove(dir_ / "assets" / "vocab.txt");
  absl::Status status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), absl::StrCat("SavedModel '", Dir(), "': asset file '", Dir(),
                                           "/assets/vocab.txt' (fed to 'asset_filepath:0') does "
                                           "not exist"));
  std::ofstream(dir_ / "assets" / "vocab.txt") << "alpha\n";

  // The main op checks that the asset's path was fed; with the asset file defined only in the
  // collection older exports use, the loader still feeds it.
  tensorflow::AssetFileDef asset = meta_.asset_file_def(0);
  meta_.clear_asset_file_def();
  (*meta_.mutable_collection_def())["saved_model_assets"].mutable_any_list()->add_value()->PackFrom(
      asset);
  testing::WriteSavedModel(dir_, meta_);
  EXPECT_TRUE(Load().ok()) << Load();

  // Without any asset definition the main op's Assert fails, and the load says so.
  meta_.mutable_collection_def()->erase("saved_model_assets");
  testing::WriteSavedModel(dir_, meta_);
  status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()),
              StartsWith(absl::StrCat("SavedModel '", Dir(), "': running the init op 'main_op': ")));
  EXPECT_THAT(status.message(), HasSubstr("the asset path was not fed"));

  (*meta_.mutable_collection_def())["saved_model_main_op"].mutable_node_list()->add_value("init");
  testing::WriteSavedModel(dir_, meta_);
  status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), absl::StrCat("SavedModel '", Dir(),
                                           "': collection 'saved_model_main_op' must name exactly "
                                           "one node, it names 2"));
}

TEST_F(SavedModelErrorsTest, UnknownAndRecursiveFunctionsFailTheLoad) {
  testing::WriteTf1SavedModel(dir_, meta_);
  // A call of a function the library does not have.
  tensorflow::NodeDef* call = meta_.mutable_graph_def()->add_node();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    name: "call" op: "PartitionedCall" input: "x"
    attr { key: "Tin" value { list { type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "missing_fn" } } })pb", call));
  testing::WriteSavedModel(dir_, meta_);
  absl::Status status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_THAT(std::string(status.message()), StartsWith(absl::StrCat("SavedModel '", Dir(), "': ")));
  EXPECT_THAT(status.message(), HasSubstr("missing_fn"));

  // A function that calls itself.
  (*call->mutable_attr())["f"].mutable_func()->set_name("loop_fn");
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    signature {
      name: "loop_fn"
      input_arg { name: "a" type: DT_FLOAT }
      output_arg { name: "b" type: DT_FLOAT }
    }
    node_def {
      name: "again" op: "PartitionedCall" input: "a"
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "loop_fn" } } }
    }
    ret { key: "b" value: "again:output:0" })pb",
                                                            meta_.mutable_graph_def()
                                                                ->mutable_library()
                                                                ->add_function()));
  testing::WriteSavedModel(dir_, meta_);
  status = Load();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), StartsWith(absl::StrCat("SavedModel '", Dir(), "': ")));
  EXPECT_THAT(status.message(), HasSubstr("function 'loop_fn' calls itself"));
}

TEST_F(SavedModelErrorsTest, SignaturesRunOnlyWithTheirInputs) {
  auto& with_default = (*meta_.mutable_signature_def())["with_default"];
  with_default = meta_.signature_def().at("serving_default");
  tensorflow::TensorProto* fallback = &(*with_default.mutable_defaults())["x"];
  fallback->set_dtype(tensorflow::DT_FLOAT);
  fallback->mutable_tensor_shape()->add_dim()->set_size(1);
  fallback->add_float_val(10.0f);
  testing::WriteTf1SavedModel(dir_, meta_);
  absl::StatusOr<SavedModelBundle> bundle = LoadSavedModel(SessionOptions(), Dir());
  ASSERT_TRUE(bundle.ok()) << bundle.status();

  absl::StatusOr<std::map<std::string, Tensor>> out = RunSignature(*bundle, "predict", {});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(), "the SavedModel has no signature 'predict'; its signatures: "
                                    "serving_default, with_counter, with_default");
  out = RunSignature(*bundle, "serving_default", {{"w", Tensor::Vector<float>({1.0f})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(), "signature 'serving_default' has no input 'w'; its inputs: x");
  out = RunSignature(*bundle, "serving_default", {{"x", Tensor::Vector<int32_t>({1})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(),
            "signature 'serving_default' input 'x' is float, got a int32 tensor");
  out = RunSignature(*bundle, "serving_default", {});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(), "signature 'serving_default' needs input 'x'; its inputs: x");
  // A step error names the signature.
  out = RunSignature(*bundle, "serving_default",
                     {{"x", Tensor::FromVector<float>(TensorShape{1, 1}, {1.0f})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_THAT(std::string(out.status().message()), StartsWith("signature 'serving_default': "));
  // The signature's default stands in for a missing input.
  out = RunSignature(*bundle, "with_default", {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(testing::Floats(out->at("y")), ::testing::ElementsAre(7.0f));
}

TEST_F(SavedModelErrorsTest, MetaGraphFilesAndSaverDefs) {
  std::ofstream(dir_ / "model.meta") << "\x01\x02 garbage {";
  absl::StatusOr<tensorflow::MetaGraphDef> meta = ReadMetaGraphDefFile(Dir() + "/model.meta");
  EXPECT_EQ(meta.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(meta.status().message()),
              StartsWith(absl::StrCat("meta graph file '", Dir(),
                                      "/model.meta' is neither a binary nor a text MetaGraphDef")));
  meta = ReadMetaGraphDefFile(Dir() + "/absent.meta");
  EXPECT_EQ(meta.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(meta.status().message()),
              StartsWith(absl::StrCat("cannot open meta graph file '", Dir(), "/absent.meta'")));

  tensorflow::MetaGraphDef no_saver = meta_;
  no_saver.clear_saver_def();
  absl::StatusOr<std::unique_ptr<Session>> session =
      LoadMetaGraph(SessionOptions(), no_saver, Dir() + "/ckpt");
  EXPECT_EQ(session.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(session.status().message(),
            absl::StrCat("cannot restore checkpoint '", Dir(),
                         "/ckpt': the MetaGraph has no saver_def"));

  session = LoadMetaGraph(SessionOptions(), no_saver, "");
  ASSERT_TRUE(session.ok()) << session.status();
  absl::Status restore = RestoreWithSaverDef(session->get(), tensorflow::SaverDef(), "p");
  EXPECT_EQ(restore.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(restore.message(), "the SaverDef names no restore op or no filename tensor");
}

}  // namespace
}  // namespace tessera
